#include "runtime/kernels/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/kernels/internal/quantization_util.h"

namespace tflite {

TfLiteStatus GetInputSafe(const TfLiteContext* context, const TfLiteNode* node, int index,
                          const TfLiteTensor** tensor) {
  *tensor = kernel_util_internal::TensorAt(context, node->inputs, index);
  if (*tensor == nullptr) {
    TF_LITE_KERNEL_LOG(const_cast<TfLiteContext*>(context), "input %d of the node is missing", index);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteTensor* GetVariableInput(TfLiteContext* context, const TfLiteNode* node, int index) {
  TfLiteTensor* tensor = kernel_util_internal::TensorAt(context, node->inputs, index);
  if (tensor == nullptr) return nullptr;
  return tensor->is_variable ? tensor : nullptr;
}

TfLiteStatus GetOutputSafe(const TfLiteContext* context, const TfLiteNode* node, int index, TfLiteTensor** tensor) {
  *tensor = kernel_util_internal::TensorAt(context, node->outputs, index);
  if (*tensor == nullptr) {
    TF_LITE_KERNEL_LOG(const_cast<TfLiteContext*>(context), "output %d of the node is missing", index);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteTensor* GetTemporary(TfLiteContext* context, const TfLiteNode* node, int index) {
  return kernel_util_internal::TensorAt(context, node->temporaries, index);
}

TfLiteStatus GetTemporarySafe(const TfLiteContext* context, const TfLiteNode* node, int index, TfLiteTensor** tensor) {
  *tensor = kernel_util_internal::TensorAt(context, node->temporaries, index);
  if (*tensor == nullptr) {
    TF_LITE_KERNEL_LOG(const_cast<TfLiteContext*>(context), "temporary %d of the node is missing", index);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

const TfLiteTensor* GetIntermediates(TfLiteContext* context, const TfLiteNode* node, int index) {
  return kernel_util_internal::TensorAt(context, node->intermediates, index);
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

bool FusedActivationRange(TfLiteFusedActivation activation, float* min, float* max) {
  *min = -std::numeric_limits<float>::infinity();
  *max = std::numeric_limits<float>::infinity();
  switch (activation) {
    case kTfLiteActNone:
      return true;
    case kTfLiteActRelu:
      *min = 0.f;
      return true;
    case kTfLiteActReluN1To1:
      *min = -1.f;
      *max = 1.f;
      return true;
    case kTfLiteActRelu6:
      *min = 0.f;
      *max = 6.f;
      return true;
    default:
      return false;
  }
}

void CalculateActivationRange(TfLiteFusedActivation activation, float* min, float* max) {
  // As TFLite: "no clamp" (an activation that is not a clamp too) is the finite float range.
  FusedActivationRange(activation, min, max);
  *min = std::max(*min, std::numeric_limits<float>::lowest());
  *max = std::min(*max, std::numeric_limits<float>::max());
}

TfLiteStatus CalculateActivationRangeQuantized(TfLiteContext* context, TfLiteFusedActivation activation,
                                               const TfLiteTensor* output, int32_t* act_min, int32_t* act_max) {
  int32_t qmin = 0, qmax = 0;
  switch (output->type) {
    case kTfLiteUInt8:
      qmin = std::numeric_limits<uint8_t>::min();
      qmax = std::numeric_limits<uint8_t>::max();
      break;
    case kTfLiteInt8:
      qmin = std::numeric_limits<int8_t>::min();
      qmax = std::numeric_limits<int8_t>::max();
      break;
    case kTfLiteInt16:
      qmin = std::numeric_limits<int16_t>::min();
      qmax = std::numeric_limits<int16_t>::max();
      break;
    default:
      TF_LITE_MAYBE_KERNEL_LOG(context, "output 0 has type %s; no quantized range", TfLiteTypeGetName(output->type));
      return kTfLiteError;
  }
  const float scale = output->params.scale;
  const int32_t zero_point = output->params.zero_point;
  bool overflow = false;
  auto quantize = [&](float bound) {
    const float rounded = std::round(bound / scale);
    if (!(rounded >= static_cast<float>(std::numeric_limits<int32_t>::min()) &&
          rounded <= static_cast<float>(std::numeric_limits<int32_t>::max()))) {
      overflow = true;
      return 0;
    }
    namespace qu = ::touchstone::quantization_util;
    return qu::WrappingAdd(zero_point, qu::TruncateToInt32LikeX86(rounded));
  };
  *act_min = qmin;
  *act_max = qmax;
  if (activation == kTfLiteActRelu) {
    *act_min = std::max(qmin, quantize(0.f));
  } else if (activation == kTfLiteActRelu6) {
    *act_min = std::max(qmin, quantize(0.f));
    *act_max = std::min(qmax, quantize(6.f));
  } else if (activation == kTfLiteActReluN1To1) {
    *act_min = std::max(qmin, quantize(-1.f));
    *act_max = std::min(qmax, quantize(1.f));
  }
  if (overflow) {
    TF_LITE_MAYBE_KERNEL_LOG(context, "output 0's scale %g puts the fused activation's bounds outside int32",
                             static_cast<double>(scale));
    return kTfLiteError;
  }
  return kTfLiteOk;
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
