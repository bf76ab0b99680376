// Small helpers on shapes and tensors that the interpreter, the kernels, the delegates and the
// evaluation code share: a shape as a vector and as text, element counts, numpy broadcasting of two
// shapes, and a tensor's affine quantization.
#ifndef TOUCHSTONE_RUNTIME_TENSOR_UTIL_H_
#define TOUCHSTONE_RUNTIME_TENSOR_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/c/common.h"

namespace touchstone {

// True when sizing `tensor` to the `rank` dimensions `dims` would change nothing: it is dynamic, of a
// fixed-size type, holds its buffer and has that shape already. A kernel that sizes a dynamic output
// at every Eval skips ResizeTensor then, and the allocation of the new dims with it.
inline bool DynamicTensorHasShape(const TfLiteTensor* tensor, int rank, const int* dims) {
  if (tensor->allocation_type != kTfLiteDynamic || tensor->data.raw == nullptr || tensor->type == kTfLiteString ||
      tensor->type == kTfLiteVariant || tensor->dims == nullptr || tensor->dims->size != rank) {
    return false;
  }
  for (int i = 0; i < rank; ++i) {
    if (tensor->dims->data[i] != dims[i]) return false;
  }
  return true;
}

// The dimensions of a shape array or of a tensor; empty where there is none (a scalar, or no shape).
std::vector<int> ShapeOf(const TfLiteIntArray* dims);
std::vector<int> ShapeOf(const TfLiteTensor* tensor);

// A shape as text: "[1,2,3]"; "[]" for a scalar or where there is no shape.
std::string ShapeString(const std::vector<int>& shape);
std::string ShapeString(const TfLiteIntArray* dims);
std::string ShapeString(const TfLiteTensor* tensor);

// The number of elements of a shape: the product of its dimensions (1 for a scalar).
int64_t ElementCount(const std::vector<int>& shape);

// The numpy broadcast of shapes a and b (aligned on their last dimensions, a dimension of 1
// stretching to the other's); false when they do not broadcast.
bool BroadcastShapes(const std::vector<int>& a, const std::vector<int>& b, std::vector<int>* out);

// The tensor's affine quantization when it has at least one scale, else null.
const TfLiteAffineQuantization* AffineQuantization(const TfLiteTensor* tensor);

// TFLite's test for per-channel quantization: an affine quantization with more than one scale.
bool IsPerChannelQuantized(const TfLiteTensor* tensor);

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_TENSOR_UTIL_H_
