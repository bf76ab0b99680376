// Checks and shape plumbing shared by the reference kernels of misc_ops.cc, space_batch_ops.cc,
// segment_ops.cc and fft.cc. Every check reports one line naming the input, output or option at
// fault (the interpreter prefixes the op's name and index) and returns kTfLiteError.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_MISC_OPS_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_MISC_OPS_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace misc_ops {

using Shape = std::vector<int>;

inline Shape ShapeOf(const TfLiteTensor* t) { return Shape(t->dims->data, t->dims->data + t->dims->size); }

inline std::string ShapeString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}
inline std::string ShapeString(const TfLiteTensor* t) { return ShapeString(ShapeOf(t)); }

inline int64_t FlatSize(const Shape& shape) {
  int64_t n = 1;
  for (int d : shape) n *= d;
  return n;
}

// True when the tensor's values are available at Prepare time.
inline bool ValuesKnown(const TfLiteTensor* t) { return tflite::IsConstantOrPersistentTensor(t); }

inline TfLiteStatus CheckArity(TfLiteContext* context, const TfLiteNode* node, int inputs, int outputs) {
  if (tflite::NumInputs(node) != inputs) {
    TF_LITE_KERNEL_LOG(context, "expected %d inputs, got %d", inputs, tflite::NumInputs(node));
    return kTfLiteError;
  }
  if (tflite::NumOutputs(node) != outputs) {
    TF_LITE_KERNEL_LOG(context, "expected %d outputs, got %d", outputs, tflite::NumOutputs(node));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

inline TfLiteStatus GetIn(TfLiteContext* context, const TfLiteNode* node, int index, const TfLiteTensor** t) {
  return tflite::GetInputSafe(context, node, index, t);
}
inline TfLiteStatus GetOut(TfLiteContext* context, const TfLiteNode* node, int index, TfLiteTensor** t) {
  return tflite::GetOutputSafe(context, node, index, t);
}

inline TfLiteStatus ExpectType(TfLiteContext* context, const TfLiteTensor* t, const char* role, TfLiteType expected) {
  if (t->type == expected) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s has type %s, expected %s", role, TfLiteTypeGetName(t->type),
                     TfLiteTypeGetName(expected));
  return kTfLiteError;
}

inline TfLiteStatus ExpectOneOf(TfLiteContext* context, const TfLiteTensor* t, const char* role,
                                std::initializer_list<TfLiteType> allowed) {
  std::string names;
  for (TfLiteType type : allowed) {
    if (t->type == type) return kTfLiteOk;
    if (!names.empty()) names += ", ";
    names += TfLiteTypeGetName(type);
  }
  TF_LITE_KERNEL_LOG(context, "%s has type %s, which this op does not support (supported: %s)", role,
                     TfLiteTypeGetName(t->type), names.c_str());
  return kTfLiteError;
}

template <typename... Ts>
inline TfLiteStatus ExpectOneOf(TfLiteContext* context, const TfLiteTensor* t, const char* role, TypeList<Ts...>) {
  return ExpectOneOf(context, t, role, {TfLiteTypeOf<Ts>()...});
}

inline TfLiteStatus ExpectRank(TfLiteContext* context, const TfLiteTensor* t, const char* role, int rank) {
  if (t->dims->size == rank) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s has shape %s, expected rank %d", role, ShapeString(t).c_str(), rank);
  return kTfLiteError;
}

// Bytes of one element; refuses types without a fixed size (string, resource, variant, int4).
inline TfLiteStatus ElementSize(TfLiteContext* context, const TfLiteTensor* t, const char* role, size_t* bytes) {
  *bytes = t->type == kTfLiteInt4 ? 0 : tflite::TfLiteTypeGetSize(t->type);
  if (*bytes > 0) return kTfLiteOk;
  TF_LITE_KERNEL_LOG(context, "%s has type %s, which has no fixed element size", role, TfLiteTypeGetName(t->type));
  return kTfLiteError;
}

inline TfLiteStatus ResizeOutput(TfLiteContext* context, TfLiteTensor* output, const Shape& shape) {
  for (int d : shape) {
    if (d < 0) {
      TF_LITE_KERNEL_LOG(context, "output dimension %d is negative", d);
      return kTfLiteError;
    }
  }
  TfLiteIntArray* dims = TfLiteIntArrayCreate(static_cast<int>(shape.size()));
  for (size_t i = 0; i < shape.size(); ++i) dims->data[i] = shape[i];
  return context->ResizeTensor(context, output, dims);
}

// Reads an INT32 or INT64 tensor as int64 values.
inline TfLiteStatus ReadIndices(TfLiteContext* context, const TfLiteTensor* t, const char* role,
                                std::vector<int64_t>* values) {
  const int64_t n = tflite::NumElements(t);
  values->resize(n);
  if (n > 0 && t->data.raw == nullptr) {
    TF_LITE_KERNEL_LOG(context, "%s has no data", role);
    return kTfLiteError;
  }
  if (t->type == kTfLiteInt32) {
    for (int64_t i = 0; i < n; ++i) (*values)[i] = t->data.i32[i];
  } else if (t->type == kTfLiteInt64) {
    for (int64_t i = 0; i < n; ++i) (*values)[i] = t->data.i64[i];
  } else {
    TF_LITE_KERNEL_LOG(context, "%s has type %s, expected INT32 or INT64", role, TfLiteTypeGetName(t->type));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

}  // namespace misc_ops
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_MISC_OPS_UTIL_H_
