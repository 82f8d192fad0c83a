/*
 * hipfuse: MIOpen's fusion API, re-implemented on HIP (NVIDIA and AMD).
 *
 * This header declares the same names, types, enum values and signatures as MIOpen's
 * <miopen/miopen.h> for the part of the API a fusion program uses: handles, tensor,
 * convolution and activation descriptors, the batch-norm descriptor helper, fusion plans,
 * their ops and operator arguments, and the one-shot convolution+bias+activation call.
 * A program written against MIOpen's fusion API compiles and links unchanged.
 *
 * Where hipfuse deliberately differs from MIOpen (documented per function below):
 *  - Precise statuses. A null handle, descriptor or output pointer is miopenStatusBadParm,
 *    never miopenStatusUnknownError and never Success with nothing written. Outputs are
 *    written only on Success.
 *  - Errors are reported where they happen: shape, type and mode errors when an op is
 *    created, not swallowed until compile. The reason of every failure is kept in a
 *    thread-local message (hipfuseGetLastErrorMessage() in <hipfuse/hipfuse.h>) and
 *    logged to stderr at MIOPEN_LOG_LEVEL >= 3 (errors; on by default).
 *  - miopenStatusUnsupportedOp from miopenCompileFusionPlan carries each kernel family's
 *    reason; a failed compile leaves the plan unexecutable.
 *  - miopenExecuteFusionPlan checks that every op has arguments of the right kind.
 *  - Objects passed in place of another kind, or used after being destroyed, are
 *    detected (miopenStatusBadParm) where possible instead of crashing.
 *  - Ops are computed in plan order; BN forward training updates the running statistics
 *    only when the op asks for them.
 * Kept from MIOpen because applications rely on them: alpha/beta pointers of
 * miopenSetOpArgs* are accepted and ignored (never dereferenced); BN parameters are fp32
 * for fp16/bf16 data; destroying a null object is a successful no-op.
 *
 * Statuses: each function below lists the statuses it returns. Besides those, any function
 * returning miopenStatus_t can return miopenStatusAllocFailed when host memory runs out,
 * miopenStatusInternalError for an unexpected failure inside hipfuse (with its text) and
 * miopenStatusUnknownError for an exception of unknown kind. Every status other than
 * Success leaves its reason for hipfuseGetLastErrorMessage().
 */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#define MIOPEN_GUARD_MIOPEN_H_

#include <stddef.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#include <miopen/config.h>
#include <miopen/export.h>
#include <miopen/version.h>

#include <hip/hip_runtime_api.h>

/* Opaque object types, declared MIOpen's way: `struct name` and `name_t`, a pointer to
 * it. In C++ the struct is complete and empty (hipfuse's objects derive from it), in C
 * it stays incomplete (an empty struct is not ISO C). */
#ifdef __cplusplus
#define MIOPEN_DECLARE_OBJECT(name) \
  struct name {                     \
  };                                \
  typedef struct name* name##_t
#else
#define MIOPEN_DECLARE_OBJECT(name) \
  struct name;                      \
  typedef struct name* name##_t
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The HIP stream kernels are enqueued on. */
typedef hipStream_t miopenAcceleratorQueue_t;

/* The empty structs sit inside extern "C"; clang warns that C would size them 0. The
 * pointers are all either language ever sees, so the warning says nothing here. */
#if defined(__clang__) && defined(__cplusplus)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wextern-c-compat"
#endif
MIOPEN_DECLARE_OBJECT(miopenHandle);
MIOPEN_DECLARE_OBJECT(miopenFusionOpDescriptor);
MIOPEN_DECLARE_OBJECT(miopenTensorDescriptor);
MIOPEN_DECLARE_OBJECT(miopenConvolutionDescriptor);
MIOPEN_DECLARE_OBJECT(miopenActivationDescriptor);
MIOPEN_DECLARE_OBJECT(miopenFusionPlanDescriptor);
/* Declared by MIOpen and used by no function; kept for source compatibility. */
MIOPEN_DECLARE_OBJECT(miopenOperatorDescriptor);
MIOPEN_DECLARE_OBJECT(miopenOperatorArgs);
#if defined(__clang__) && defined(__cplusplus)
#pragma clang diagnostic pop
#endif

/* ------------------------------------------------------------------------------------ */
/* Enums (values are MIOpen's)                                                            */
/* ------------------------------------------------------------------------------------ */

typedef enum {
  miopenStatusSuccess = 0,              /* no error */
  miopenStatusNotInitialized = 1,       /* no GPU, or the runtime could not be initialised */
  miopenStatusInvalidValue = 2,         /* a null input array */
  miopenStatusBadParm = 3,              /* an invalid argument; the message says which */
  miopenStatusAllocFailed = 4,          /* out of host or device memory */
  miopenStatusInternalError = 5,        /* a HIP / hipRTC failure (with its log), or an unexpected error */
  miopenStatusNotImplemented = 6,       /* a feature hipfuse does not implement */
  miopenStatusUnknownError = 7,         /* an unexpected exception inside hipfuse */
  miopenStatusUnsupportedOp = 8,        /* no fused kernel supports the plan; the message says why */
  miopenStatusGpuOperationsSkipped = 9, /* not an error */
  miopenStatusVersionMismatch = 10,     /* version mismatch of supplied binary data */
} miopenStatus_t;

#ifdef MIOPEN_BETA_API
typedef enum {
  miopenF8RoundingModeStandard = 0,
  miopenF8RoundingModeStochastic = 1,
} miopenF8RoundingMode_t;
#endif

typedef enum {
  miopenHalf = 0,
  miopenFloat = 1,
  miopenInt32 = 2,
  miopenInt8 = 3,
  /* 4 was miopenInt8x4 (discontinued) */
  miopenBFloat16 = 5,
  miopenDouble = 6,
#ifdef MIOPEN_BETA_API
  miopenFloat8 = 7,
  miopenBFloat8 = 8,
#endif
  miopenInt64 = 9,
} miopenDataType_t;

typedef enum {
  miopenTensorNCHW = 0,
  miopenTensorNHWC = 1,
  miopenTensorCHWN = 2,
  miopenTensorNCHWc4 = 3,
  miopenTensorNCHWc8 = 4,
  miopenTensorCHWNc4 = 5,
  miopenTensorCHWNc8 = 6,
  miopenTensorNCDHW = 7,
  miopenTensorNDHWC = 8,
} miopenTensorLayout_t;

typedef enum {
  miopenConvolution = 0, /* cross-correlation */
  miopenTranspose = 1,   /* transposed convolution (deconvolution) */
  miopenGroupConv = 2,   /* deprecated: treated as miopenConvolution */
  miopenDepthwise = 3,   /* deprecated: treated as miopenConvolution */
} miopenConvolutionMode_t;

typedef enum {
  miopenPaddingDefault = 0,
  miopenPaddingSame = 1,
  miopenPaddingValid = 2,
} miopenPaddingMode_t;

typedef enum {
  miopenConvolutionFwdAlgoGEMM = 0,
  miopenConvolutionFwdAlgoDirect = 1,
  miopenConvolutionFwdAlgoFFT = 2,
  miopenConvolutionFwdAlgoWinograd = 3,
  miopenConvolutionFwdAlgoImplicitGEMM = 5,
} miopenConvFwdAlgorithm_t;

typedef enum {
  miopenConvolutionAlgoGEMM = 0,
  miopenConvolutionAlgoDirect = 1,
  miopenConvolutionAlgoFFT = 2,
  miopenConvolutionAlgoWinograd = 3,
  miopenConvolutionAlgoImplicitGEMM = 5,
} miopenConvAlgorithm_t;

typedef enum {
  miopenBNPerActivation = 0, /* one set of parameters per (c, [d,] h, w) */
  miopenBNSpatial = 1,       /* one set of parameters per channel */
} miopenBatchNormMode_t;

typedef enum {
  miopenActivationPASTHRU = 0,     /* y = x */
  miopenActivationLOGISTIC = 1,    /* y = 1 / (1 + e^-x) */
  miopenActivationTANH = 2,        /* y = beta * tanh(alpha * x) */
  miopenActivationRELU = 3,        /* y = max(0, x) */
  miopenActivationSOFTRELU = 4,    /* y = log(1 + e^x) */
  miopenActivationABS = 5,         /* y = |x| */
  miopenActivationPOWER = 6,       /* y = (alpha + beta * x)^gamma */
  miopenActivationCLIPPEDRELU = 7, /* y = min(alpha, max(0, x)) */
  miopenActivationLEAKYRELU = 8,   /* y = x > 0 ? x : alpha * x */
  miopenActivationELU = 9,         /* y = x > 0 ? x : alpha * (e^x - 1) */
} miopenActivationMode_t;

typedef enum {
  MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL = 0, /* -1 default, 0 off, 1 on; no effect in hipfuse */
  MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC = 1, /* 0 off (default), 1 on; fused kernels are deterministic */
#ifdef MIOPEN_BETA_API
  MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE = 2, /* a miopenF8RoundingMode_t; stored only */
#endif
} miopenConvolutionAttrib_t;

typedef enum {
  miopenVerticalFusion = 0,   /* ops applied one after another to one tensor: the supported mode */
  miopenHorizontalFusion = 1, /* not implemented: compiling such a plan is miopenStatusNotImplemented */
} miopenFusionDirection_t;

/* ------------------------------------------------------------------------------------ */
/* Handle                                                                                 */
/* ------------------------------------------------------------------------------------ */

/* The name of a status, e.g. "miopenStatusBadParm"; "Unknown error status" for a value
 * outside the enum. Never null; does not change the last-error message. */
MIOPEN_EXPORT const char* miopenGetErrorString(miopenStatus_t error);

/* Device memory allocation callbacks (miopenSetAllocator). */
typedef void* (*miopenAllocatorFunction)(void* context, size_t sizeBytes);
typedef void (*miopenDeallocatorFunction)(void* context, void* memory);

/* The MIOpen API version hipfuse implements (MIOPEN_VERSION_* of <miopen/version.h>).
 * As in MIOpen, null pointers are skipped. Returns Success. */
MIOPEN_EXPORT miopenStatus_t miopenGetVersion(size_t* major, size_t* minor, size_t* patch);

/* Creates a handle on the current HIP device with the default (null) stream.
 * Success; BadParm if handle is null; NotInitialized when no GPU is usable (the message
 * says "no GPU device found (<runtime's reason>)"); InternalError if the device cannot be
 * queried; AllocFailed. *handle is written only on Success. */
MIOPEN_EXPORT miopenStatus_t miopenCreate(miopenHandle_t* handle);

/* As miopenCreate, with `stream` (not owned) as the stream kernels are enqueued on. */
MIOPEN_EXPORT miopenStatus_t miopenCreateWithStream(miopenHandle_t* handle, miopenAcceleratorQueue_t stream);

/* Destroys a handle (not its stream). Success (null is a no-op); BadParm if handle is
 * not a live handle (another kind of object, or already destroyed). */
MIOPEN_EXPORT miopenStatus_t miopenDestroy(miopenHandle_t handle);

/* Sets the stream later calls enqueue kernels on (null: the default stream).
 * Success; BadParm for a null or invalid handle. */
MIOPEN_EXPORT miopenStatus_t miopenSetStream(miopenHandle_t handle, miopenAcceleratorQueue_t streamID);

/* Reads the handle's stream. Success; BadParm for a null/invalid handle or null streamID. */
MIOPEN_EXPORT miopenStatus_t miopenGetStream(miopenHandle_t handle, miopenAcceleratorQueue_t* streamID);

/* Stores a device allocator for internal allocations (null restores the default).
 * hipfuse does not call the callbacks: execution allocates nothing, and the only device
 * memory it takes, the scratch of BN-training / BN-backward plans and the kernel modules,
 * is allocated with hipMalloc / the module loader at compile time.
 * Success; BadParm for a null or invalid handle. */
MIOPEN_EXPORT miopenStatus_t miopenSetAllocator(miopenHandle_t handle, miopenAllocatorFunction allocator,
                                                miopenDeallocatorFunction deallocator, void* allocatorContext);

/* Milliseconds the last miopenExecuteFusionPlan / miopenConvolutionBiasActivationForward
 * on this handle took on the GPU (all its kernels, timed with events), when profiling is
 * enabled; 0 before any timed call. Success; BadParm for a null/invalid handle or null time. */
MIOPEN_EXPORT miopenStatus_t miopenGetKernelTime(miopenHandle_t handle, float* time);

/* Turns kernel timing on or off. While on, each execution waits for its kernels to finish
 * (as in MIOpen). Success; BadParm for a null/invalid handle; InternalError if the timing
 * events cannot be created. */
MIOPEN_EXPORT miopenStatus_t miopenEnableProfiling(miopenHandle_t handle, bool enable);

/* ------------------------------------------------------------------------------------ */
/* Tensor descriptors                                                                     */
/* Lengths are always given in logical order N, C, [D,] H, W; strides (in elements) carry */
/* the layout. Every setter also returns BadParm ("tensor too large") for a tensor that   */
/* addresses 2^59 or more elements, so that sizes never overflow.                         */
/* ------------------------------------------------------------------------------------ */

/* Creates an unset descriptor (fp32, no dimensions). Success; BadParm if tensorDesc is null;
 * AllocFailed. */
MIOPEN_EXPORT miopenStatus_t miopenCreateTensorDescriptor(miopenTensorDescriptor_t* tensorDesc);

/* Sets a packed NCHW 4-D tensor. Success; BadParm for a null/invalid descriptor, a data
 * type outside the enum, or a length <= 0. */
MIOPEN_EXPORT miopenStatus_t miopenSet4dTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                         miopenDataType_t dataType, int n, int c, int h, int w);

/* Sets a packed tensor with lengths lens[0..num_lens) in logical order and the strides of
 * `tensorLayout` (NCHW/NHWC/CHWN need 4 lengths, NCDHW/NDHWC need 5). Success;
 * InvalidValue if lens is null; BadParm for a null/invalid descriptor, a bad data type or
 * layout, a layout/length-count mismatch, or a length <= 0; NotImplemented for the
 * vectorised layouts (NCHWc4/c8, CHWNc4/c8). */
MIOPEN_EXPORT miopenStatus_t miopenSetNdTensorDescriptorWithLayout(miopenTensorDescriptor_t tensorDesc,
                                                                   miopenDataType_t dataType,
                                                                   miopenTensorLayout_t tensorLayout,
                                                                   const int* lens, int num_lens);

/* Sets a 4-D tensor with explicit strides (the layout follows from them, e.g. NHWC strides
 * H*W*C, 1, W*C, C). Success; BadParm for a null/invalid descriptor, a bad data type, a
 * length <= 0 or a stride <= 0. */
MIOPEN_EXPORT miopenStatus_t miopenSet4dTensorDescriptorEx(miopenTensorDescriptor_t tensorDesc,
                                                           miopenDataType_t dataType, int n, int c, int h, int w,
                                                           int nStride, int cStride, int hStride, int wStride);

/* Reads a 4-D descriptor. Success; BadParm for a null/invalid descriptor, any null output,
 * or a descriptor that is not 4-D. */
MIOPEN_EXPORT miopenStatus_t miopenGet4dTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                         miopenDataType_t* dataType, int* n, int* c, int* h, int* w,
                                                         int* nStride, int* cStride, int* hStride, int* wStride);

/* Sets an nbDims-dimensional tensor (1..8 dimensions); stridesA null means packed
 * (row-major). Success; InvalidValue if dimsA is null; BadParm for a null/invalid
 * descriptor, a bad data type, nbDims out of range, a length <= 0 or a stride <= 0. */
MIOPEN_EXPORT miopenStatus_t miopenSetTensorDescriptor(miopenTensorDescriptor_t tensorDesc, miopenDataType_t dataType,
                                                       int nbDims, const int* dimsA, const int* stridesA);

/* The number of dimensions of the descriptor (MIOpen's header calls it the size).
 * Success; BadParm for a null/invalid descriptor or a null size. */
MIOPEN_EXPORT miopenStatus_t miopenGetTensorDescriptorSize(miopenTensorDescriptor_t tensorDesc, int* size);

/* Copies the type, lengths and strides (arrays of miopenGetTensorDescriptorSize entries).
 * Success; BadParm for a null/invalid descriptor or any null output. */
MIOPEN_EXPORT miopenStatus_t miopenGetTensorDescriptor(miopenTensorDescriptor_t tensorDesc,
                                                       miopenDataType_t* dataType, int* dimsA, int* stridesA);

/* Bytes spanned by the tensor: (1 + sum((len-1)*stride)) * element size.
 * Success; BadParm for a null/invalid descriptor or a null numBytes. */
MIOPEN_EXPORT miopenStatus_t miopenGetTensorNumBytes(miopenTensorDescriptor_t tensorDesc, size_t* numBytes);

/* Destroys a descriptor. Success (null is a no-op); BadParm if it is not a live tensor
 * descriptor. Plans keep their own copies. */
MIOPEN_EXPORT miopenStatus_t miopenDestroyTensorDescriptor(miopenTensorDescriptor_t tensorDesc);

/* ------------------------------------------------------------------------------------ */
/* Convolution descriptors                                                                */
/* ------------------------------------------------------------------------------------ */

/* Creates a 2-D convolution descriptor: pad 0, stride 1, dilation 1, 1 group.
 * Success; BadParm if convDesc is null; AllocFailed. */
MIOPEN_EXPORT miopenStatus_t miopenCreateConvolutionDescriptor(miopenConvolutionDescriptor_t* convDesc);

/* Initialises a 2-D convolution. miopenGroupConv / miopenDepthwise are treated as
 * miopenConvolution (as MIOpen does). Success; BadParm for a null/invalid descriptor, a
 * mode outside the enum, a pad < 0, a stride < 1 or a dilation < 1. */
MIOPEN_EXPORT miopenStatus_t miopenInitConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                             miopenConvolutionMode_t c_mode, int pad_h, int pad_w,
                                                             int stride_h, int stride_w, int dilation_h,
                                                             int dilation_w);

/* Initialises a 2-D or 3-D convolution from arrays of spatialDim values. Success;
 * BadParm for a null/invalid descriptor, a null array, spatialDim not 2 or 3, a bad mode,
 * a pad < 0, a stride < 1 or a dilation < 1. */
MIOPEN_EXPORT miopenStatus_t miopenInitConvolutionNdDescriptor(miopenConvolutionDescriptor_t convDesc, int spatialDim,
                                                               const int* padA, const int* strideA,
                                                               const int* dilationA, miopenConvolutionMode_t c_mode);

/* The number of spatial dimensions. Success; BadParm for a null/invalid descriptor or a
 * null spatialDim. */
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionSpatialDim(miopenConvolutionDescriptor_t convDesc, int* spatialDim);

/* Reads a 2-D convolution. Success; BadParm for a null/invalid descriptor, any null
 * output, or a descriptor that is not 2-D. */
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                            miopenConvolutionMode_t* c_mode, int* pad_h, int* pad_w,
                                                            int* stride_h, int* stride_w, int* dilation_h,
                                                            int* dilation_w);

/* Reads an N-D convolution; the arrays hold requestedSpatialDim entries, of which the
 * descriptor's spatial dimension count are written. Success; BadParm for a null/invalid
 * descriptor, any null output, or requestedSpatialDim smaller than the descriptor's. */
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionNdDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                              int requestedSpatialDim, int* spatialDim, int* padA,
                                                              int* strideA, int* dilationA,
                                                              miopenConvolutionMode_t* c_mode);

/* Sets the group count (weights are then K x C/groups x filter). Success; BadParm for a
 * null/invalid descriptor or groupCount < 1 (MIOpen does not validate it). */
MIOPEN_EXPORT miopenStatus_t miopenSetConvolutionGroupCount(miopenConvolutionDescriptor_t convDesc, int groupCount);

/* Reads the group count. Success; BadParm for a null/invalid descriptor or null output. */
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionGroupCount(miopenConvolutionDescriptor_t convDesc, int* groupCount);

/* The 4-D forward output dimensions of a 2-D convolution of inputTensorDesc with filterDesc:
 * per spatial dimension max(1, (in + 2*pad - (dil*(k-1)+1)) / stride + 1), K channels.
 * Success; BadParm for a null/invalid descriptor or output, a convolution that is not 2-D,
 * a channel mismatch ("Channels do not match for the filter": C must equal the weights'
 * C times the group count), an input/weights type mismatch, or a rank mismatch. */
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionForwardOutputDim(miopenConvolutionDescriptor_t convDesc,
                                                                  const miopenTensorDescriptor_t inputTensorDesc,
                                                                  const miopenTensorDescriptor_t filterDesc, int* n,
                                                                  int* c, int* h, int* w);

/* As above for any spatial rank: *nDim = rank, outputTensorDimA[0..rank) = N, K, spatial.
 * Same statuses. */
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionNdForwardOutputDim(miopenConvolutionDescriptor_t convDesc,
                                                                    const miopenTensorDescriptor_t inputTensorDesc,
                                                                    const miopenTensorDescriptor_t filterDesc,
                                                                    int* nDim, int* outputTensorDimA);

/* Sets an attribute: FP16_ALT_IMPL in {-1, 0, 1}, DETERMINISTIC in {0, 1}, FP8_ROUNDING_MODE
 * a miopenF8RoundingMode_t. Success; BadParm for a null/invalid descriptor, an unknown
 * attribute or a value out of range. */
MIOPEN_EXPORT miopenStatus_t miopenSetConvolutionAttribute(miopenConvolutionDescriptor_t convDesc,
                                                           const miopenConvolutionAttrib_t attr, int value);

/* Reads an attribute. Success; BadParm for a null/invalid descriptor, an unknown attribute
 * or a null value. */
MIOPEN_EXPORT miopenStatus_t miopenGetConvolutionAttribute(miopenConvolutionDescriptor_t convDesc,
                                                           const miopenConvolutionAttrib_t attr, int* value);

/* Destroys a convolution descriptor. Success (null is a no-op); BadParm if it is not a
 * live convolution descriptor. */
MIOPEN_EXPORT miopenStatus_t miopenDestroyConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc);

/* ------------------------------------------------------------------------------------ */
/* Activation descriptors                                                                 */
/* ------------------------------------------------------------------------------------ */

/* Creates an activation descriptor (PASTHRU, alpha = beta = gamma = 0). Success; BadParm if
 * activDesc is null; AllocFailed. */
MIOPEN_EXPORT miopenStatus_t miopenCreateActivationDescriptor(miopenActivationDescriptor_t* activDesc);

/* Sets mode and parameters. Success; BadParm for a null/invalid descriptor or a mode
 * outside the enum (MIOpen does not validate it). */
MIOPEN_EXPORT miopenStatus_t miopenSetActivationDescriptor(const miopenActivationDescriptor_t activDesc,
                                                           miopenActivationMode_t mode, double activAlpha,
                                                           double activBeta, double activGamma);

/* Reads mode and parameters. Success; BadParm for a null/invalid descriptor or any null
 * output. */
MIOPEN_EXPORT miopenStatus_t miopenGetActivationDescriptor(const miopenActivationDescriptor_t activDesc,
                                                           miopenActivationMode_t* mode, double* activAlpha,
                                                           double* activBeta, double* activGamma);

/* Destroys an activation descriptor. Success (null is a no-op); BadParm if it is not a
 * live activation descriptor. */
MIOPEN_EXPORT miopenStatus_t miopenDestroyActivationDescriptor(miopenActivationDescriptor_t activDesc);

/* ------------------------------------------------------------------------------------ */
/* Batch normalisation                                                                    */
/* ------------------------------------------------------------------------------------ */

/* Sets derivedBnDesc to the BN parameter shape for xDesc: spatial 1xCx1x1 (1xCx1x1x1 for
 * 5-D), per-activation 1xCxHxW (1xCxDxHxW); always fp32 and packed, whatever x's type.
 * Success; BadParm for a null/invalid descriptor, an x that is not 4-D or 5-D, or a mode
 * outside the enum. */
MIOPEN_EXPORT miopenStatus_t miopenDeriveBNTensorDescriptor(miopenTensorDescriptor_t derivedBnDesc,
                                                            const miopenTensorDescriptor_t xDesc,
                                                            miopenBatchNormMode_t bn_mode);

/* ------------------------------------------------------------------------------------ */
/* Fusion plans                                                                           */
/* A plan is an input tensor descriptor and an ordered list of ops; op i reads op i-1's   */
/* output. Only convolution changes the shape. Ops are validated as they are added;       */
/* miopenCompileFusionPlan decides support; miopenExecuteFusionPlan only launches.        */
/* ------------------------------------------------------------------------------------ */

/* Creates a plan whose input is a copy of inputDesc (4-D or 5-D). Success; BadParm for a
 * null output, a null/invalid descriptor, an input that is not 4-D/5-D with positive
 * lengths and strides, or a direction outside the enum (horizontal plans are created and
 * refused at compile, with NotImplemented). */
MIOPEN_EXPORT miopenStatus_t miopenCreateFusionPlan(miopenFusionPlanDescriptor_t* fusePlanDesc,
                                                    const miopenFusionDirection_t fuseDirection,
                                                    const miopenTensorDescriptor_t inputDesc);

/* Destroys a plan and its ops (their handles become invalid). Success (null is a no-op);
 * BadParm if it is not a live plan. */
MIOPEN_EXPORT miopenStatus_t miopenDestroyFusionPlan(miopenFusionPlanDescriptor_t fusePlanDesc);

/* Chooses the fused kernel family for the plan on the handle's device and builds its
 * kernels (hipRTC, through the memory and disk caches). Compiling again is allowed.
 * Success; BadParm for a null/invalid handle or plan; UnsupportedOp when no fused kernel
 * supports the plan or the plan has no ops (the message gives every family's reason);
 * NotImplemented for a horizontal plan; InternalError if building the kernel fails (the
 * message has the compiler log). After a failure the plan cannot be executed. */
MIOPEN_EXPORT miopenStatus_t miopenCompileFusionPlan(miopenHandle_t handle, miopenFusionPlanDescriptor_t fusePlanDesc);

/* The handle of op op_idx (0-based, in creation order). Success; BadParm for a null/invalid
 * plan, a null op, or op_idx < 0 or >= the op count. */
MIOPEN_EXPORT miopenStatus_t miopenFusionPlanGetOp(miopenFusionPlanDescriptor_t fusePlanDesc, const int op_idx,
                                                   miopenFusionOpDescriptor_t* op);

/* The workspace the plan needs: always 0 (fused kernels use none, and Execute takes none;
 * MIOpen reports the unfused convolution's workspace). algo is ignored. Success; BadParm
 * for a null/invalid handle or plan or a null workSpaceSize. */
MIOPEN_EXPORT miopenStatus_t miopenFusionPlanGetWorkSpaceSize(miopenHandle_t handle,
                                                              miopenFusionPlanDescriptor_t fusePlanDesc,
                                                              size_t* workSpaceSize, miopenConvFwdAlgorithm_t algo);

/* MIOpen's fixed list [Direct, Winograd], truncated to requestAlgoCount entries; the value
 * has no effect on hipfuse's kernel choice. Success; BadParm for a null/invalid plan, a null
 * returnedAlgoCount, requestAlgoCount < 0, or a null returnedAlgos with requestAlgoCount > 0. */
MIOPEN_EXPORT miopenStatus_t miopenFusionPlanConvolutionGetAlgo(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                                const int requestAlgoCount, int* returnedAlgoCount,
                                                                miopenConvFwdAlgorithm_t* returnedAlgos);

/* Stores a convolution algorithm preference; like MIOpen, it has no effect on the kernel
 * choice. Success; BadParm for a null/invalid plan or a value outside the enum. */
MIOPEN_EXPORT miopenStatus_t miopenFusionPlanConvolutionSetAlgo(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                                miopenConvFwdAlgorithm_t algo);

/* Appends a forward convolution with weights wDesc (K x C/groups x filter, laid out like
 * the data, e.g. KYXC for NHWC). Its output is packed in the input's layout. Adding an op
 * to a compiled plan makes it uncompiled. Success; BadParm for a null plan/op/descriptor,
 * invalid objects, or a convolution that cannot follow the current tensor (rank, type or
 * channel mismatch, with the reason); AllocFailed. */
MIOPEN_EXPORT miopenStatus_t miopenCreateOpConvForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                       miopenFusionOpDescriptor_t* convOp,
                                                       miopenConvolutionDescriptor_t convDesc,
                                                       const miopenTensorDescriptor_t wDesc);

/* Appends a forward activation; the mode is compiled into the kernel, its parameters are
 * run-time arguments. Success; BadParm for a null/invalid plan or op, or a mode outside the
 * enum. */
MIOPEN_EXPORT miopenStatus_t miopenCreateOpActivationForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                             miopenFusionOpDescriptor_t* activFwdOp,
                                                             miopenActivationMode_t mode);

/* Appends an activation backward (fused after a BN backward op: the plan
 * [BN backward, activation backward] computes dx from dy). Same statuses. */
MIOPEN_EXPORT miopenStatus_t miopenCreateOpActivationBackward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                              miopenFusionOpDescriptor_t* activBwdOp,
                                                              miopenActivationMode_t mode);

/* Appends a per-channel bias add; bDesc must be 1xKx1x1 (all ones but C = the current
 * tensor's channels, contiguous) of the data type. Success; BadParm for a null/invalid
 * plan, op or descriptor, or a bias of the wrong shape or type. */
MIOPEN_EXPORT miopenStatus_t miopenCreateOpBiasForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                       miopenFusionOpDescriptor_t* biasOp,
                                                       const miopenTensorDescriptor_t bDesc);

/* Appends a batch-norm inference; bnScaleBiasMeanVarDesc describes scale, bias, mean and
 * variance: what miopenDeriveBNTensorDescriptor gives (fp32, 1xCx1x1 spatial, 1xCxHxW
 * per-activation). Success; BadParm for a null/invalid plan, op or descriptor, a mode
 * outside the enum, or a parameter descriptor not matching the mode's shape or fp32. */
MIOPEN_EXPORT miopenStatus_t miopenCreateOpBatchNormInference(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                              miopenFusionOpDescriptor_t* bnOp,
                                                              const miopenBatchNormMode_t bn_mode,
                                                              const miopenTensorDescriptor_t bnScaleBiasMeanVarDesc);

/* Appends a batch-norm forward training; runningMeanVariance asks for the running mean and
 * variance to be updated (only then are they written). Success; BadParm for a null/invalid
 * plan or op, or a mode outside the enum. */
MIOPEN_EXPORT miopenStatus_t miopenCreateOpBatchNormForward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                            miopenFusionOpDescriptor_t* bnFwdOp,
                                                            const miopenBatchNormMode_t bn_mode,
                                                            bool runningMeanVariance);

/* Appends a batch-norm backward training (uses the saved mean and inverse variance).
 * Same statuses as miopenCreateOpBatchNormForward. */
MIOPEN_EXPORT miopenStatus_t miopenCreateOpBatchNormBackward(miopenFusionPlanDescriptor_t fusePlanDesc,
                                                             miopenFusionOpDescriptor_t* bnBwdOp,
                                                             const miopenBatchNormMode_t bn_mode);

/* Creates an empty argument set: one slot per op position, filled by miopenSetOpArgs*.
 * Not bound to a plan. Success; BadParm if args is null; AllocFailed. */
MIOPEN_EXPORT miopenStatus_t miopenCreateOperatorArgs(miopenOperatorArgs_t* args);

/* Destroys an argument set. Success (null is a no-op); BadParm if it is not a live one. */
MIOPEN_EXPORT miopenStatus_t miopenDestroyOperatorArgs(miopenOperatorArgs_t args);

/* miopenSetOpArgs* common rules: the record is stored in the slot of the op's position
 * (overwriting); device pointers are stored, not checked (Execute checks them), so they
 * may be re-bound at any time without recompiling; alpha and beta are accepted and
 * ignored, never dereferenced. Statuses: Success; BadParm for a null/invalid args or op
 * (including an op whose plan was destroyed), or an op of another kind than the setter's
 * (MIOpen: UnknownError); AllocFailed. */

/* Weights of a convolution op. */
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsConvForward(miopenOperatorArgs_t args,
                                                        const miopenFusionOpDescriptor_t convOp, const void* alpha,
                                                        const void* beta, const void* w);

/* Parameters of a forward activation op (converted to the kernel's precision at launch). */
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsActivForward(miopenOperatorArgs_t args,
                                                         const miopenFusionOpDescriptor_t activFwdOp,
                                                         const void* alpha, const void* beta, double activAlpha,
                                                         double activBeta, double activGamma);

/* Parameters of an activation backward op: y is the forward activation's output; reserved
 * is ignored. */
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsActivBackward(miopenOperatorArgs_t args,
                                                          const miopenFusionOpDescriptor_t activBwdOp,
                                                          const void* alpha, const void* beta, const void* y,
                                                          const void* reserved, double activAlpha, double activBeta,
                                                          double activGamma);

/* The K bias values of a bias op. */
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsBiasForward(miopenOperatorArgs_t args,
                                                        const miopenFusionOpDescriptor_t biasOp, const void* alpha,
                                                        const void* beta, const void* bias);

/* Scale, bias, estimated mean and variance (fp32 for fp16/bf16 data) and epsilon of a BN
 * inference op. */
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsBatchNormInference(miopenOperatorArgs_t args,
                                                               const miopenFusionOpDescriptor_t bnOp,
                                                               const void* alpha, const void* beta,
                                                               const void* bnScale, const void* bnBias,
                                                               const void* estimatedMean,
                                                               const void* estimatedVariance, double epsilon);

/* BN forward training: bnScale, bnBias (in); savedMean, savedInvVariance (out);
 * runningMean, runningVariance (in/out, used only when the op was created with
 * runningMeanVariance; then they must not be null: BadParm, as in MIOpen). expAvgFactor
 * weights the new batch statistic. */
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsBatchNormForward(miopenOperatorArgs_t args,
                                                             const miopenFusionOpDescriptor_t bnOp, const void* alpha,
                                                             const void* beta, const void* bnScale,
                                                             const void* bnBias, void* savedMean,
                                                             void* savedInvVariance, void* runningMean,
                                                             void* runningVariance, double expAvgFactor,
                                                             double epsilon);

/* BN backward training: x is the forward BN input; resultBnScaleDiff and resultBnBiasDiff
 * are overwritten; savedMean and savedInvVariance come from the forward pass. */
MIOPEN_EXPORT miopenStatus_t miopenSetOpArgsBatchNormBackward(miopenOperatorArgs_t args,
                                                              const miopenFusionOpDescriptor_t bnOp,
                                                              const void* alpha, const void* beta, const void* x,
                                                              const void* bnScale, const void* bnBias,
                                                              void* resultBnScaleDiff, void* resultBnBiasDiff,
                                                              const void* savedMean, const void* savedInvVariance);

/* Runs a compiled plan on the handle's stream (asynchronously unless profiling is on).
 * inputDesc/outputDesc must equal the plan's input and output (type, lengths, strides);
 * for a BN-backward plan input is dy and output dx. Success; BadParm for a null/invalid
 * handle, plan, descriptor or args, a null input/output pointer, a plan not compiled
 * successfully ("not compiled"), a plan compiled on another device, descriptors that differ
 * from the plan's, an op without arguments or with arguments of another kind, or a null
 * device pointer an op needs (naming the op); InternalError / AllocFailed if the launch
 * fails. */
MIOPEN_EXPORT miopenStatus_t miopenExecuteFusionPlan(const miopenHandle_t handle,
                                                     const miopenFusionPlanDescriptor_t fusePlanDesc,
                                                     const miopenTensorDescriptor_t inputDesc, const void* input,
                                                     const miopenTensorDescriptor_t outputDesc, void* output,
                                                     miopenOperatorArgs_t args);

/* y = act(alpha1 * conv(x, w) + alpha2 * z + bias), in one fused kernel: the plan
 * conv -> residual add(z) -> bias -> activation, compiled once per handle and reused.
 * alpha1/alpha2 point to floats (null means 1). Every activation mode is supported (MIOpen:
 * RELU only); its parameters come from activationDesc. z and y must both have the
 * convolution's output descriptor (y may alias z). algo and the workspace are ignored
 * (none is needed). Success; BadParm for a null/invalid handle or descriptor, a null data
 * pointer, or mismatched descriptors (with the reason); UnsupportedOp when no fused kernel
 * supports the problem (with the reasons); InternalError / AllocFailed from the build or
 * the launch. */
MIOPEN_EXPORT miopenStatus_t miopenConvolutionBiasActivationForward(
    miopenHandle_t handle, const void* alpha1, const miopenTensorDescriptor_t xDesc, const void* x,
    const miopenTensorDescriptor_t wDesc, const void* w, const miopenConvolutionDescriptor_t convDesc,
    miopenConvFwdAlgorithm_t algo, void* workspace, size_t workspaceSizeInBytes, const void* alpha2,
    const miopenTensorDescriptor_t zDesc, const void* z, const miopenTensorDescriptor_t biasDesc, const void* bias,
    const miopenActivationDescriptor_t activationDesc, const miopenTensorDescriptor_t yDesc, void* y);

#ifdef __cplusplus
}
#endif

#endif /* MIOPEN_GUARD_MIOPEN_H_ */
