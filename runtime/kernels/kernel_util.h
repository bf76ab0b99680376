// Helpers kernels and delegates use, with TensorFlow Lite's names and meaning (kernel_util.h), so code
// written for TFLite compiles against Touchstone with only its include lines changed.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_KERNEL_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_KERNEL_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"

namespace tflite {

inline int NumDimensions(const TfLiteTensor* t) { return t->dims->size; }
inline int SizeOfDimension(const TfLiteTensor* t, int dim) { return t->dims->data[dim]; }
inline int NumInputs(const TfLiteNode* node) { return node->inputs->size; }
inline int NumOutputs(const TfLiteNode* node) { return node->outputs->size; }
inline int NumIntermediates(const TfLiteNode* node) { return node->intermediates->size; }

inline int64_t NumElements(const TfLiteIntArray* dims) {
  int64_t count = 1;
  for (int i = 0; i < dims->size; ++i) count *= dims->data[i];
  return count;
}
inline int64_t NumElements(const TfLiteTensor* t) { return NumElements(t->dims); }
inline int64_t NumElements(const int* dims, int num_dims) {
  int64_t count = 1;
  for (int i = 0; i < num_dims; ++i) count *= dims[i];
  return count;
}

template <typename T>
inline T* GetTensorData(TfLiteTensor* tensor) {
  return tensor != nullptr ? reinterpret_cast<T*>(tensor->data.raw) : nullptr;
}
template <typename T>
inline const T* GetTensorData(const TfLiteTensor* tensor) {
  return tensor != nullptr ? reinterpret_cast<const T*>(tensor->data.raw) : nullptr;
}

namespace kernel_util_internal {

// Resolves a node-relative tensor index; -1 (kTfLiteOptionalTensor) and out-of-range give null.
// Inline with the accessors below: every kernel's Eval calls them, and a tiny graph's Invoke is
// mostly such overhead.
inline TfLiteTensor* TensorAt(const TfLiteContext* context, const TfLiteIntArray* indices, int index) {
  if (indices == nullptr || index < 0 || index >= indices->size) return nullptr;
  const int tensor_index = indices->data[index];
  if (tensor_index < 0 || static_cast<size_t>(tensor_index) >= context->tensors_size) return nullptr;
  if (context->tensors != nullptr) return &context->tensors[tensor_index];
  return context->GetTensor(context, tensor_index);
}

}  // namespace kernel_util_internal

// Tensor access by the node's input/output position. The *Safe forms report an error instead of
// returning null when the index is out of range or the tensor is optional and absent.
inline const TfLiteTensor* GetInput(const TfLiteContext* context, const TfLiteNode* node, int index) {
  return kernel_util_internal::TensorAt(context, node->inputs, index);
}
TfLiteStatus GetInputSafe(const TfLiteContext* context, const TfLiteNode* node, int index, const TfLiteTensor** tensor);
TfLiteTensor* GetVariableInput(TfLiteContext* context, const TfLiteNode* node, int index);
inline TfLiteTensor* GetOutput(TfLiteContext* context, const TfLiteNode* node, int index) {
  return kernel_util_internal::TensorAt(context, node->outputs, index);
}
TfLiteStatus GetOutputSafe(const TfLiteContext* context, const TfLiteNode* node, int index, TfLiteTensor** tensor);
inline const TfLiteTensor* GetOptionalInputTensor(const TfLiteContext* context, const TfLiteNode* node, int index) {
  return kernel_util_internal::TensorAt(context, node->inputs, index);
}
TfLiteTensor* GetTemporary(TfLiteContext* context, const TfLiteNode* node, int index);
TfLiteStatus GetTemporarySafe(const TfLiteContext* context, const TfLiteNode* node, int index, TfLiteTensor** tensor);
const TfLiteTensor* GetIntermediates(TfLiteContext* context, const TfLiteNode* node, int index);

inline bool IsConstantTensor(const TfLiteTensor* t) { return t->allocation_type == kTfLiteMmapRo; }
inline bool IsConstantOrPersistentTensor(const TfLiteTensor* t) {
  return t->allocation_type == kTfLiteMmapRo || t->allocation_type == kTfLitePersistentRo;
}
inline bool IsDynamicTensor(const TfLiteTensor* t) { return t->allocation_type == kTfLiteDynamic; }
inline void SetTensorToDynamic(TfLiteTensor* t) {
  if (t->allocation_type != kTfLiteDynamic) {
    t->allocation_type = kTfLiteDynamic;
    t->data.raw = nullptr;
  }
}
inline void SetTensorToPersistentRo(TfLiteTensor* t) {
  if (t->allocation_type != kTfLitePersistentRo) {
    t->allocation_type = kTfLitePersistentRo;
    t->data.raw = nullptr;
  }
}
inline bool IsHybridOp(const TfLiteTensor* input, const TfLiteTensor* weight) {
  return (weight->type == kTfLiteUInt8 || weight->type == kTfLiteInt8) && input->type == kTfLiteFloat32;
}

bool HaveSameShapes(const TfLiteTensor* a, const TfLiteTensor* b);

// Numpy-style broadcast of two or three shapes; *output_shape is a new array owned by the caller
// (pass it to ResizeTensor, which takes ownership).
TfLiteStatus CalculateShapeForBroadcast(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                                        TfLiteIntArray** output_shape);
TfLiteStatus CalculateShapeForBroadcast(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                                        const TfLiteTensor* c, TfLiteIntArray** output_shape);

// The float range a fused activation clamps to, with infinite bounds where it does not clamp: what a
// delegate's clamp takes. False, leaving -infinity and +infinity, for an activation that is not a clamp
// (tanh, sign bit).
bool FusedActivationRange(TfLiteFusedActivation activation, float* min, float* max);

// The float range a fused activation clamps to, as TFLite's kernels take it: FusedActivationRange's
// infinities become -+FLT_MAX.
void CalculateActivationRange(TfLiteFusedActivation activation, float* min, float* max);

// The range a fused activation clamps a quantized (UINT8, INT8 or INT16) output to, in the output's
// integer units, as TFLite 2.14.1's CalculateActivationRangeQuantized: each bound the activation has
// becomes zero_point + round(bound / scale), intersected with the type's range. Refused (logged
// when `context` is not null) for any other output type, and where round(bound / scale) lies
// outside TFLite's check, which compares with float(INT32_MIN) and float(INT32_MAX) = 2^31. Within
// it the result is what TFLite computes on x86: 2^31 converts to INT32_MIN and the sum with the
// zero point wraps.
TfLiteStatus CalculateActivationRangeQuantized(TfLiteContext* context, TfLiteFusedActivation activation,
                                               const TfLiteTensor* output, int32_t* act_min, int32_t* act_max);

// Bytes of one element of a type; 0 for types without a fixed size (string, resource, variant).
size_t TfLiteTypeGetSize(TfLiteType type);
TfLiteStatus GetSizeOfType(TfLiteContext* context, TfLiteType type, size_t* bytes);

// A new TfLiteIntArray from a list of dimensions.
TfLiteIntArray* CreateIntArray(std::initializer_list<int> values);

}  // namespace tflite

namespace touchstone {

// The registration a builtin kernel hands out: the four callbacks set, every other field zero.
// init and free may be null (kernels without per-node data).
inline TfLiteRegistration MakeKernelRegistration(void* (*init)(TfLiteContext*, const char*, size_t),
                                                 void (*free)(TfLiteContext*, void*),
                                                 TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*),
                                                 TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*)) {
  TfLiteRegistration registration{};
  registration.init = init;
  registration.free = free;
  registration.prepare = prepare;
  registration.invoke = invoke;
  return registration;
}
inline TfLiteRegistration MakeKernelRegistration(TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*),
                                                 TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*)) {
  return MakeKernelRegistration(nullptr, nullptr, prepare, invoke);
}

// The init and free of a kernel whose per-node data is a T, value-initialized by init.
template <typename T>
void* NewNodeData(TfLiteContext*, const char*, size_t) {
  return new T();
}
template <typename T>
void DeleteNodeData(TfLiteContext*, void* data) {
  delete static_cast<T*>(data);
}

}  // namespace touchstone

// In a function returning TfLiteStatus: unless `condition` holds, reports the printf-style message
// (as given: unlike TF_LITE_ENSURE_MSG, without the source file's name) and returns kTfLiteError.
#define TS_ENSURE(context, condition, ...)        \
  do {                                            \
    if (!(condition)) {                           \
      TF_LITE_KERNEL_LOG((context), __VA_ARGS__); \
      return kTfLiteError;                        \
    }                                             \
  } while (0)

// Defines TfLiteRegistration* Register_NAME(), returning a registration with static storage made
// by MakeKernelRegistration from the other arguments: (prepare, invoke) or (init, free, prepare,
// invoke).
#define TS_REGISTER(NAME, ...)                                                                  \
  TfLiteRegistration* Register_##NAME() {                                                       \
    static TfLiteRegistration registration = ::touchstone::MakeKernelRegistration(__VA_ARGS__); \
    return &registration;                                                                       \
  }

#endif  // TOUCHSTONE_RUNTIME_KERNELS_KERNEL_UTIL_H_
