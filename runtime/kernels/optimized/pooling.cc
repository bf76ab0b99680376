// AVERAGE_POOL_2D and MAX_POOL_2D, float32: each output pixel reduces the in-bounds pixels of its
// window, vectorised over channels, output pixels split over the thread pool. The window is
// visited rows then columns as in the reference, so the results are exactly the reference's.
// Quantized pooling runs the reference kernel.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

constexpr int64_t kMinElementsPerChunk = 16 * 1024;

struct PoolState : OpState {
  WindowGeometry geometry;
  int channels = 0;
  float act_min = 0.f, act_max = 0.f;
  // Per-chunk scratch for one window's pointers.
  std::vector<std::vector<const float*>> windows;
};

template <bool kMax>
struct PoolOp {
  using State = PoolState;
  static TfLiteRegistration* Reference() {
    return kMax ? reference::Register_MAX_POOL_2D() : reference::Register_AVERAGE_POOL_2D();
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto& params = nn::ParamsOf<TfLitePoolParams>(node);
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    if (input->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 ||
        tflite::NumElements(output) == 0) {
      return kTfLiteOk;
    }
    WindowGeometry& g = s->geometry;
    g.batches = input->dims->data[0];
    g.in_height = input->dims->data[1];
    g.in_width = input->dims->data[2];
    g.kernel_height = params.filter_height;
    g.kernel_width = params.filter_width;
    g.stride_height = params.stride_height;
    g.stride_width = params.stride_width;
    int out_height = 0, out_width = 0;
    const TfLitePaddingValues padding = nn::ComputePaddingHeightWidth(
        params.stride_height, params.stride_width, 1, 1, g.in_height, g.in_width,
        params.filter_height, params.filter_width, params.padding, &out_height, &out_width);
    g.pad_top = padding.height;
    g.pad_left = padding.width;
    g.out_height = output->dims->data[1];
    g.out_width = output->dims->data[2];
    s->channels = input->dims->data[3];
    tflite::CalculateActivationRange(params.activation, &s->act_min, &s->act_max);
    s->windows.assign(MaxChunks(context), {});
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const float* input = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    float* output = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    const WindowGeometry& g = s->geometry;
    const size_t channels = s->channels;
    const PoolFn pool = kMax ? s->kernels->max_pool : s->kernels->avg_pool;
    const int64_t pixels = g.out_pixels();
    const int64_t min_pixels = std::max<int64_t>(
        1, kMinElementsPerChunk / std::max<int64_t>(1, int64_t{g.taps()} * s->channels));
    if (static_cast<int>(s->windows.size()) < MaxChunks(context)) {
      s->windows.resize(MaxChunks(context));
    }
    ParallelChunks(context, pixels, min_pixels, [&](int chunk, int64_t begin, int64_t end) {
      std::vector<const float*>& window = s->windows[chunk];
      window.resize(g.taps());
      // The chunk's first pixel decomposed once; the loop steps (b, oy, ox) without dividing (a
      // pixel of a few channels is a few dozen cycles of work).
      int ox = static_cast<int>(begin % g.out_width);
      int oy = static_cast<int>((begin / g.out_width) % g.out_height);
      int b = static_cast<int>(begin / (int64_t{g.out_width} * g.out_height));
      for (int64_t p = begin; p < end; ++p) {
        const int y0 = oy * g.stride_height - g.pad_top;
        const int x0 = ox * g.stride_width - g.pad_left;
        const int ky_begin = std::max(0, -y0);
        const int ky_end = std::min(g.kernel_height, g.in_height - y0);
        const int kx_begin = std::max(0, -x0);
        const int kx_end = std::min(g.kernel_width, g.in_width - x0);
        size_t count = 0;
        for (int ky = ky_begin; ky < ky_end; ++ky) {
          const int64_t row = (int64_t{b} * g.in_height + (y0 + ky)) * g.in_width;
          for (int kx = kx_begin; kx < kx_end; ++kx) {
            window[count++] = input + (row + x0 + kx) * static_cast<int64_t>(channels);
          }
        }
        pool(channels, count, window.data(), output + p * channels, s->act_min, s->act_max);
        if (++ox < g.out_width) continue;
        ox = 0;
        if (++oy < g.out_height) continue;
        oy = 0;
        ++b;
      }
    });
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_AVERAGE_POOL_2D() { return OptimizedKernel<PoolOp<false>>::Registration(); }
TfLiteRegistration* Register_MAX_POOL_2D() { return OptimizedKernel<PoolOp<true>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
