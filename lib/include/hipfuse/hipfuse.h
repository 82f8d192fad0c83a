/*
 * hipfuse extensions to MIOpen's fusion API (prefix hipfuse, C linkage). Everything here
 * works with the objects of <miopen/miopen.h> and returns its statuses; every failing call
 * records its reason for hipfuseGetLastErrorMessage().
 */
#ifndef HIPFUSE_GUARD_HIPFUSE_H_
#define HIPFUSE_GUARD_HIPFUSE_H_

#include <miopen/miopen.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* hipfuse's own version, "major.minor.patch" (static storage). Never null; cannot fail. */
MIOPEN_EXPORT const char* hipfuseGetVersionString(void);

/* The reason for the most recent failed hipfuse/MIOpen call on this thread, or "" when the
 * most recent call succeeded (miopenGetErrorString and this function do not count). The
 * text stays valid until the next call on this thread. Never null. */
MIOPEN_EXPORT const char* hipfuseGetLastErrorMessage(void);

/* How many GPUs hipfuse can use. When none, *why (if why is not null) points to one line
 * saying why, e.g. "no GPU device found (CUDA driver version is insufficient ...)", valid
 * until the next call on this thread; otherwise to "". Success; BadParm if count is null. */
MIOPEN_EXPORT miopenStatus_t hipfuseGetDeviceAvailable(int* count, const char** why);

/* Appends a residual add to a plan: y = y + alpha * z, z of descriptor zDesc, which must
 * equal the current tensor's descriptor (type, lengths, strides). MIOpen builds this op
 * ("tensor scale-add") only inside miopenConvolutionBiasActivationForward.
 * Success; BadParm for a null/invalid plan, op or descriptor, or a zDesc that differs from
 * the current tensor (with both descriptors in the message). */
MIOPEN_EXPORT miopenStatus_t hipfuseCreateOpResidualAdd(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                        miopenFusionOpDescriptor_t* residualOp,
                                                        const miopenTensorDescriptor_t zDesc);

/* Arguments of a residual add op: its scale alpha and the device tensor z. Same rules and
 * statuses as the miopenSetOpArgs* functions. */
MIOPEN_EXPORT miopenStatus_t hipfuseSetOpArgsResidualAdd(miopenOperatorArgs_t args,
                                                         const miopenFusionOpDescriptor_t residualOp, double alpha,
                                                         const void* z);

/* Compiles the plan's kernels for an architecture ("sm_90", ...) without a GPU, into the
 * disk cache, so that a later miopenCompileFusionPlan on such a GPU finds them. The plan
 * is left uncompiled (executing it needs miopenCompileFusionPlan).
 * Success; BadParm for a null/invalid plan, a null arch or an architecture unknown to the
 * platform; UnsupportedOp / NotImplemented as miopenCompileFusionPlan; InternalError when
 * hipRTC fails (the message has its log). */
MIOPEN_EXPORT miopenStatus_t hipfuseCompileFusionPlanForArch(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                             const char* arch);

/* Which kernel family would take the plan on an architecture ("sm_90", ...), from the
 * solvers' applicability checks alone: nothing is compiled, no GPU is needed, and the plan
 * is left as it was. *solver is set to the family's name (static storage, never freed).
 * Success; BadParm for a null/invalid plan, a null solver, a null arch or an architecture
 * unknown to the platform; UnsupportedOp when no fused kernel supports the plan or it has
 * no ops (the message gives every family's reason); NotImplemented for a horizontal plan.
 * *solver is written only on Success. */
MIOPEN_EXPORT miopenStatus_t hipfuseCheckFusionPlanForArch(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                           const char* arch, const char** solver);

typedef struct {
  int compiled;           /* 1 when the plan can be executed */
  int opCount;            /* ops in the plan */
  const char* key;        /* the plan's canonical key (what decides its kernels) */
  const char* solver;     /* the kernel family chosen by the last compile; "" before one
                             (hipfuseCheckFusionPlanForArch does not count as a compile) */
  int kernelLaunches;     /* kernels launched per execution (per compile for offline) */
  double compileMs;       /* wall time of the last compile, milliseconds */
  int cacheHit;           /* 1 when every kernel of the last compile came from a cache */
} hipfuseFusionPlanInfo;

/* What the plan is and what its last compile (miopenCompileFusionPlan or
 * hipfuseCompileFusionPlanForArch) did. The strings stay valid until the plan is changed,
 * compiled or destroyed. Reads the plan only: several threads may call it, and execute the
 * plan, at once.
 * Success; BadParm for a null/invalid plan or a null info. */
MIOPEN_EXPORT miopenStatus_t hipfuseGetFusionPlanInfo(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                      hipfuseFusionPlanInfo* info);

typedef struct {
  uint64_t memoryHits;     /* kernels found loaded in this process */
  uint64_t diskHits;       /* kernels found in the disk cache */
  uint64_t compiles;       /* kernels compiled with hipRTC */
  uint64_t corruptEntries; /* disk entries rejected and rebuilt */
} hipfuseKernelCacheStats;

/* Counts of the process-wide kernel cache since start (or the last reset).
 * Success; BadParm if stats is null. */
MIOPEN_EXPORT miopenStatus_t hipfuseGetKernelCacheStats(hipfuseKernelCacheStats* stats);

/* Sets the counts of hipfuseGetKernelCacheStats to zero. Success. */
MIOPEN_EXPORT miopenStatus_t hipfuseResetKernelCacheStats(void);

/* Allows fp32 convolutions built from this descriptor to use TF32 tensor cores (faster,
 * about 10 mantissa bits per product). Off by default: fp32 stays fp32 unless asked.
 * It is part of what a plan compiles, so set it before miopenCreateOpConvForward.
 * Success; BadParm for a null/invalid descriptor or a value other than 0 or 1. */
MIOPEN_EXPORT miopenStatus_t hipfuseSetConvolutionAllowTF32(miopenConvolutionDescriptor_t convDesc, int allow);

/* Reads the TF32 permission. Success; BadParm for a null/invalid descriptor or null allow. */
MIOPEN_EXPORT miopenStatus_t hipfuseGetConvolutionAllowTF32(miopenConvolutionDescriptor_t convDesc, int* allow);

#ifdef __cplusplus
}
#endif

#endif /* HIPFUSE_GUARD_HIPFUSE_H_ */
