#include "delegates/sample/elementwise.h"
#include "runtime/tensor_util.h"

#include <algorithm>

namespace touchstone {
namespace {

// Element strides of `dims` laid out in an output of rank `rank`; 0 along broadcast dimensions.
void BroadcastStrides(const std::vector<int>& dims, int rank, int* strides) {
  const int r = static_cast<int>(dims.size());
  int stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int d = i - (rank - r);
    const int size = d >= 0 ? dims[d] : 1;
    strides[i] = size == 1 ? 0 : stride;
    stride *= size;
  }
}

}  // namespace

bool BroadcastShape(const std::vector<int>& a, const std::vector<int>& b, std::vector<int>* out) {
  if (std::max(a.size(), b.size()) > static_cast<size_t>(kSampleMaxRank)) return false;
  return BroadcastShapes(a, b, out);
}

void ComputeElementwise(bool add, float lo, float hi, float bias, const std::vector<int>& a_shape, const float* a,
                        const std::vector<int>& b_shape, const float* b, const std::vector<int>& out_shape,
                        float* out) {
  const int64_t n = ElementCount(out_shape);
  auto apply = [&](float x, float y) {
    const float v = add ? x + y : x - y;
    const float clamped = std::min(std::max(v, lo), hi);
    return bias != 0.0f ? clamped + bias : clamped;  // (-0 + 0 would be +0: keep exact results exact)
  };
  if (ElementCount(a_shape) == n && ElementCount(b_shape) == n) {
    for (int64_t i = 0; i < n; ++i) out[i] = apply(a[i], b[i]);
    return;
  }
  // Broadcasting: walk the output index by index, advancing each input by its strides.
  const int rank = static_cast<int>(out_shape.size());
  int sa[kSampleMaxRank], sb[kSampleMaxRank], index[kSampleMaxRank] = {0};
  BroadcastStrides(a_shape, rank, sa);
  BroadcastStrides(b_shape, rank, sb);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = apply(a[ia], b[ib]);
    for (int d = rank - 1; d >= 0; --d) {
      ++index[d];
      ia += sa[d];
      ib += sb[d];
      if (index[d] < out_shape[d]) break;
      ia -= static_cast<int64_t>(sa[d]) * index[d];
      ib -= static_cast<int64_t>(sb[d]) * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace touchstone
