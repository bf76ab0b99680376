// Packed GEMM weights (see microkernels.h).
#include <algorithm>
#include <vector>

#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

void PackGemmWeights(size_t n, size_t ks, size_t kc, const float* src, size_t col_stride, size_t tap_stride,
                     size_t k_stride, const float* bias, int nr, CacheAlignedVector<float>* packed) {
  const size_t panels = (n + nr - 1) / nr;
  const size_t panel_size = PackedPanelSize(ks, kc, nr);
  packed->assign(panels * panel_size, 0.f);
  for (size_t panel = 0; panel < panels; ++panel) {
    float* out = packed->data() + panel * panel_size;
    const size_t first = panel * nr;
    const size_t cols = std::min<size_t>(nr, n - first);
    if (bias != nullptr) {
      for (size_t j = 0; j < cols; ++j) out[j] = bias[first + j];
    }
    out += nr;
    for (size_t t = 0; t < ks; ++t) {
      for (size_t k = 0; k < kc; ++k) {
        const float* column = src + t * tap_stride + k * k_stride;
        for (size_t j = 0; j < cols; ++j) out[j] = column[(first + j) * col_stride];
        out += nr;
      }
    }
  }
}

}  // namespace optimized
}  // namespace touchstone
