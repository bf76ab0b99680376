/* Touchstone C API: basic types shared by the C API and kernels.
 *
 * Mirrors TensorFlow Lite 2.14.1's tensorflow/lite/core/c/c_api_types.h.
 * Names, enum values and struct layouts must match TFLite 2.14.1 exactly so
 * that delegates built against TFLite's headers work unchanged;
 * runtime/c/abi_test.cc checks this. */
#ifndef RUNTIME_C_C_API_TYPES_H_
#define RUNTIME_C_C_API_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks functions exported from a shared library (same rules as TFLite). */
#ifdef SWIG
#define TFL_CAPI_EXPORT
#elif defined(TFL_STATIC_LIBRARY_BUILD)
#define TFL_CAPI_EXPORT
#else
#if defined(_WIN32)
#ifdef TFL_COMPILE_LIBRARY
#define TFL_CAPI_EXPORT __declspec(dllexport)
#else
#define TFL_CAPI_EXPORT __declspec(dllimport)
#endif
#else
#define TFL_CAPI_EXPORT __attribute__((visibility("default")))
#endif
#endif

/* Status codes. More may be added later; callers should not assume the set
 * is closed. */
typedef enum TfLiteStatus {
  kTfLiteOk = 0,
  /* Error in the runtime. */
  kTfLiteError = 1,
  /* Error reported by a delegate. */
  kTfLiteDelegateError = 2,
  /* Delegate could not be applied (e.g. graph already immutable). */
  kTfLiteApplicationError = 3,
  /* Delegate serialization: data not found / write error / read error. */
  kTfLiteDelegateDataNotFound = 4,
  kTfLiteDelegateDataWriteError = 5,
  kTfLiteDelegateDataReadError = 6,
  /* The model has ops the runtime cannot resolve. */
  kTfLiteUnresolvedOps = 7,
  /* Invocation was cancelled by the user. */
  kTfLiteCancelled = 8,
} TfLiteStatus;

/* Element types of tensors. */
typedef enum {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteUInt8 = 3,
  kTfLiteInt64 = 4,
  kTfLiteString = 5,
  kTfLiteBool = 6,
  kTfLiteInt16 = 7,
  kTfLiteComplex64 = 8,
  kTfLiteInt8 = 9,
  kTfLiteFloat16 = 10,
  kTfLiteFloat64 = 11,
  kTfLiteComplex128 = 12,
  kTfLiteUInt64 = 13,
  kTfLiteResource = 14,
  kTfLiteVariant = 15,
  kTfLiteUInt32 = 16,
  kTfLiteUInt16 = 17,
  kTfLiteInt4 = 18,
} TfLiteType;

/* Legacy per-tensor affine quantization:
 *   real_value = scale * (quantized_value - zero_point)
 * Superseded by TfLiteAffineQuantization but still filled in. */
typedef struct TfLiteQuantizationParams {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;

/* Opaque types used by the stable C API and by common.h. */
typedef struct TfLiteOpaqueContext TfLiteOpaqueContext;
typedef struct TfLiteOpaqueNode TfLiteOpaqueNode;
typedef struct TfLiteOpaqueTensor TfLiteOpaqueTensor;

/* Defined in common.h. */
typedef struct TfLiteDelegate TfLiteDelegate;

/* Always-opaque counterpart of TfLiteDelegate. */
typedef struct TfLiteOpaqueDelegateStruct TfLiteOpaqueDelegateStruct;

/* Opaque in stable-ABI builds; otherwise the same type as TfLiteDelegate,
 * as in TFLite. */
#if TFLITE_WITH_STABLE_ABI || TFLITE_USE_OPAQUE_DELEGATE
typedef TfLiteOpaqueDelegateStruct TfLiteOpaqueDelegate;
#else
typedef TfLiteDelegate TfLiteOpaqueDelegate;
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RUNTIME_C_C_API_TYPES_H_ */
