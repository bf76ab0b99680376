#include "runtime/tensor_util.h"

#include <algorithm>

namespace touchstone {

std::vector<int> ShapeOf(const TfLiteIntArray* dims) {
  if (dims == nullptr) return {};
  return std::vector<int>(dims->data, dims->data + dims->size);
}

std::vector<int> ShapeOf(const TfLiteTensor* tensor) { return ShapeOf(tensor->dims); }

std::string ShapeString(const std::vector<int>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::string ShapeString(const TfLiteIntArray* dims) { return ShapeString(ShapeOf(dims)); }

std::string ShapeString(const TfLiteTensor* tensor) { return ShapeString(tensor->dims); }

int64_t ElementCount(const std::vector<int>& shape) {
  int64_t count = 1;
  for (int d : shape) count *= d;
  return count;
}

bool BroadcastShapes(const std::vector<int>& a, const std::vector<int>& b, std::vector<int>* out) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int> result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    result[i] = da == 1 ? db : da;
  }
  *out = std::move(result);
  return true;
}

const TfLiteAffineQuantization* AffineQuantization(const TfLiteTensor* tensor) {
  if (tensor->quantization.type != kTfLiteAffineQuantization) return nullptr;
  const auto* affine = static_cast<const TfLiteAffineQuantization*>(tensor->quantization.params);
  const bool has_scales = affine != nullptr && affine->scale != nullptr && affine->scale->size > 0;
  return has_scales ? affine : nullptr;
}

bool IsPerChannelQuantized(const TfLiteTensor* tensor) {
  const TfLiteAffineQuantization* affine = AffineQuantization(tensor);
  return affine != nullptr && affine->scale->size > 1;
}

}  // namespace touchstone
