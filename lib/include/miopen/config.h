/* hipfuse's <miopen/config.h>: the build configuration macros MIOpen's public header and
 * applications test. hipfuse is always the HIP backend (on NVIDIA or AMD). */
#ifndef MIOPEN_GUARD_CONFIG_H_
#define MIOPEN_GUARD_CONFIG_H_

#define MIOPEN_BACKEND_OPENCL 0
#define MIOPEN_BACKEND_HIP 1

/* Marks the library as hipfuse for applications that want to know. */
#define MIOPEN_HIPFUSE 1

#endif
