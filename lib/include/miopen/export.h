/* hipfuse's <miopen/export.h>: symbol visibility of the public API. */
#ifndef MIOPEN_GUARD_EXPORT_H_
#define MIOPEN_GUARD_EXPORT_H_

#if defined(_WIN32)
#define MIOPEN_EXPORT
#else
#define MIOPEN_EXPORT __attribute__((visibility("default")))
#endif

#endif
