#include "runtime/kernels/kernel_util.h"

#include <algorithm>
#include <limits>

namespace tflite {
namespace {

// Resolves a node-relative tensor index; -1 (kTfLiteOptionalTensor) and out-of-range give null.
TfLiteTensor* TensorAt(const TfLiteContext* context, const TfLiteIntArray* indices, int index) {
  if (indices == nullptr || index < 0 || index >= indices->size) return nullptr;
  const int tensor_index = indices->data[index];
  if (tensor_index < 0 || static_cast<size_t>(tensor_index) >= context->tensors_size) return nullptr;
  if (context->tensors != nullptr) return &context->tensors[tensor_index];
  return context->GetTensor(context, tensor_index);
}

}  // namespace

const TfLiteTensor* GetInput(const TfLiteContext* context, const TfLiteNode* node, int index) {
  return TensorAt(context, node->inputs, index);
}

TfLiteStatus GetInputSafe(const TfLiteContext* context, const TfLiteNode* node, int index,
                          const TfLiteTensor** tensor) {
  *tensor = TensorAt(context, node->inputs, index);
  if (*tensor == nullptr) {
    TF_LITE_KERNEL_LOG(const_cast<TfLiteContext*>(context), "input %d of the node is missing", index);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteTensor* GetVariableInput(TfLiteContext* context, const TfLiteNode* node, int index) {
  TfLiteTensor* tensor = TensorAt(context, node->inputs, index);
  if (tensor == nullptr) return nullptr;
  return tensor->is_variable ? tensor : nullptr;
}

TfLiteTensor* GetOutput(TfLiteContext* context, const TfLiteNode* node, int index) {
  return TensorAt(context, node->outputs, index);
}

TfLiteStatus GetOutputSafe(const TfLiteContext* context, const TfLiteNode* node, int index, TfLiteTensor** tensor) {
  *tensor = TensorAt(context, node->outputs, index);
  if (*tensor == nullptr) {
    TF_LITE_KERNEL_LOG(const_cast<TfLiteContext*>(context), "output %d of the node is missing", index);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

const TfLiteTensor* GetOptionalInputTensor(const TfLiteContext* context, const TfLiteNode* node, int index) {
  return TensorAt(context, node->inputs, index);
}

TfLiteTensor* GetTemporary(TfLiteContext* context, const TfLiteNode* node, int index) {
  return TensorAt(context, node->temporaries, index);
}

TfLiteStatus GetTemporarySafe(const TfLiteContext* context, const TfLiteNode* node, int index, TfLiteTensor** tensor) {
  *tensor = TensorAt(context, node->temporaries, index);
  if (*tensor == nullptr) {
    TF_LITE_KERNEL_LOG(const_cast<TfLiteContext*>(context), "temporary %d of the node is missing", index);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

const TfLiteTensor* GetIntermediates(TfLiteContext* context, const TfLiteNode* node, int index) {
  return TensorAt(context, node->intermediates, index);
}

bool HaveSameShapes(const TfLiteTensor* a, const TfLiteTensor* b) { return TfLiteIntArrayEqual(a->dims, b->dims); }

namespace {

TfLiteStatus BroadcastShapes(TfLiteContext* context, const TfLiteIntArray* const* shapes, int count,
                             TfLiteIntArray** output_shape) {
  int rank = 0;
  for (int i = 0; i < count; ++i) rank = std::max(rank, shapes[i]->size);
  TfLiteIntArray* out = TfLiteIntArrayCreate(rank);
  for (int d = 0; d < rank; ++d) {
    int result = 1;
    bool seen_zero = false;
    for (int i = 0; i < count; ++i) {
      const TfLiteIntArray* s = shapes[i];
      const int k = s->size - rank + d;
      const int dim = k >= 0 ? s->data[k] : 1;
      if (dim == 1) continue;
      if (dim == 0) seen_zero = true;
      if (result != 1 && result != dim) {
        TF_LITE_KERNEL_LOG(context, "shapes cannot be broadcast: dimension %d is %d and %d", d, result, dim);
        TfLiteIntArrayFree(out);
        return kTfLiteError;
      }
      result = dim;
    }
    out->data[d] = seen_zero ? 0 : result;
  }
  *output_shape = out;
  return kTfLiteOk;
}

}  // namespace

TfLiteStatus CalculateShapeForBroadcast(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                                        TfLiteIntArray** output_shape) {
  const TfLiteIntArray* shapes[] = {a->dims, b->dims};
  return BroadcastShapes(context, shapes, 2, output_shape);
}

TfLiteStatus CalculateShapeForBroadcast(TfLiteContext* context, const TfLiteTensor* a, const TfLiteTensor* b,
                                        const TfLiteTensor* c, TfLiteIntArray** output_shape) {
  const TfLiteIntArray* shapes[] = {a->dims, b->dims, c->dims};
  return BroadcastShapes(context, shapes, 3, output_shape);
}

void CalculateActivationRange(TfLiteFusedActivation activation, float* min, float* max) {
  // As TFLite: "no clamp" is the finite float range, so infinities become +-FLT_MAX.
  constexpr float kLowest = std::numeric_limits<float>::lowest();
  constexpr float kHighest = std::numeric_limits<float>::max();
  switch (activation) {
    case kTfLiteActRelu:
      *min = 0.f;
      *max = kHighest;
      break;
    case kTfLiteActReluN1To1:
      *min = -1.f;
      *max = 1.f;
      break;
    case kTfLiteActRelu6:
      *min = 0.f;
      *max = 6.f;
      break;
    default:
      *min = kLowest;
      *max = kHighest;
      break;
  }
}

size_t TfLiteTypeGetSize(TfLiteType type) {
  switch (type) {
    case kTfLiteFloat32:
      return 4;
    case kTfLiteInt32:
      return 4;
    case kTfLiteUInt32:
      return 4;
    case kTfLiteUInt8:
      return 1;
    case kTfLiteInt8:
      return 1;
    case kTfLiteBool:
      return 1;
    case kTfLiteInt16:
      return 2;
    case kTfLiteUInt16:
      return 2;
    case kTfLiteFloat16:
      return 2;
    case kTfLiteInt64:
      return 8;
    case kTfLiteUInt64:
      return 8;
    case kTfLiteFloat64:
      return 8;
    case kTfLiteComplex64:
      return 8;
    case kTfLiteComplex128:
      return 16;
    case kTfLiteResource:
      return 4;  // a resource id, as TFLite stores it
    default:
      return 0;
  }
}

TfLiteStatus GetSizeOfType(TfLiteContext* context, TfLiteType type, size_t* bytes) {
  *bytes = TfLiteTypeGetSize(type);
  if (*bytes == 0) {
    if (context != nullptr) {
      TF_LITE_KERNEL_LOG(context, "type %s has no fixed element size", TfLiteTypeGetName(type));
    }
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteIntArray* CreateIntArray(std::initializer_list<int> values) {
  TfLiteIntArray* array = TfLiteIntArrayCreate(static_cast<int>(values.size()));
  int i = 0;
  for (int v : values) array->data[i++] = v;
  return array;
}

}  // namespace tflite
