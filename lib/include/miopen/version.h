/* hipfuse's <miopen/version.h>: the MIOpen API level hipfuse implements (MIOpen 3.3, the
 * late-2024 fusion API). hipfuse's own version: hipfuseGetVersionString(). */
#ifndef MIOPEN_GUARD_VERSION_H_
#define MIOPEN_GUARD_VERSION_H_

#define MIOPEN_VERSION_MAJOR 3
#define MIOPEN_VERSION_MINOR 3
#define MIOPEN_VERSION_PATCH 0
#define MIOPEN_VERSION_TWEAK 0

#endif
