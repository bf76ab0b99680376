// Window geometry and indirection buffers of the convolution and pooling kernels.
#include <algorithm>
#include <vector>

#include "runtime/kernels/optimized/op_common.h"

namespace touchstone {
namespace optimized {

bool WindowGeometry::operator==(const WindowGeometry& o) const {
  return batches == o.batches && in_height == o.in_height && in_width == o.in_width && out_height == o.out_height &&
         out_width == o.out_width && kernel_height == o.kernel_height && kernel_width == o.kernel_width &&
         stride_height == o.stride_height && stride_width == o.stride_width && dilation_height == o.dilation_height &&
         dilation_width == o.dilation_width && pad_top == o.pad_top && pad_left == o.pad_left;
}

void BuildIndirection(const WindowGeometry& g, const float* input, size_t pixel_stride, const float* zero,
                      std::vector<const float*>* buffer, int skip_begin, int skip_end) {
  const size_t taps = g.taps();
  const int skipped = std::max(0, skip_end - skip_begin);
  const size_t row_pixels = static_cast<size_t>(g.out_width - skipped);
  buffer->resize(static_cast<size_t>(g.batches) * g.out_height * row_pixels * taps);
  const float** out = buffer->data();
  for (int b = 0; b < g.batches; ++b) {
    const float* image = input + static_cast<size_t>(b) * g.in_height * g.in_width * pixel_stride;
    for (int oy = 0; oy < g.out_height; ++oy) {
      for (int ox = 0; ox < g.out_width; ++ox) {
        if (ox >= skip_begin && ox < skip_end) continue;
        const int64_t y0 = static_cast<int64_t>(oy) * g.stride_height - g.pad_top;
        const int64_t x0 = static_cast<int64_t>(ox) * g.stride_width - g.pad_left;
        for (int ky = 0; ky < g.kernel_height; ++ky) {
          const int64_t y = y0 + static_cast<int64_t>(ky) * g.dilation_height;
          const bool row_inside = y >= 0 && y < g.in_height;
          for (int kx = 0; kx < g.kernel_width; ++kx) {
            const int64_t x = x0 + static_cast<int64_t>(kx) * g.dilation_width;
            *out++ = row_inside && x >= 0 && x < g.in_width
                         ? image + (static_cast<size_t>(y) * g.in_width + x) * pixel_stride
                         : zero;
          }
        }
      }
    }
  }
}

}  // namespace optimized
}  // namespace touchstone
