// AVERAGE_POOL_2D and MAX_POOL_2D, float32, uint8 and int8: each output pixel reduces the
// in-bounds pixels of its window, channels innermost, output pixels split over the thread pool.
// Float windows are visited rows then columns as in the reference, so the results are exactly the
// reference's; 8-bit sums and maxima are exact integers in any order, and the average then rounds
// as the reference does ((sum +- count / 2) / count, truncating). int16 runs the reference kernel.
#include <algorithm>
#include <cstdint>
#include <limits>
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

struct PoolState : OpState {
  WindowGeometry geometry;
  int channels = 0;
  float act_min = 0.f, act_max = 0.f;
  // Per thread, one window's pointers.
  ThreadScratch<const float*> windows;
  // uint8 and int8: the clamp in stored values.
  TfLiteType quantized_type = kTfLiteNoType;
  int32_t quantized_min = 0, quantized_max = 0;
};

// One output pixel's window: its taps [ky_begin, ky_end) x [kx_begin, kx_end) lie in the input;
// tap (ky, kx) reads input pixel first_row_pixel + ky * in_width + x0 + kx.
struct WindowSpan {
  int64_t first_row_pixel = 0;  // the window's top row (which may lie in the padding), column 0
  int x0 = 0;                   // the window's left column (negative in the padding)
  int ky_begin = 0, ky_end = 0, kx_begin = 0, kx_end = 0;
  int count() const { return (ky_end - ky_begin) * (kx_end - kx_begin); }
};

// Calls fn(pixel, window) for output pixels [begin, end).
template <typename F>
void ForEachWindow(const WindowGeometry& g, int64_t begin, int64_t end, F&& fn) {
  // The first pixel decomposed once; the loop steps (b, oy, ox) without dividing (a pixel of a
  // few channels is a few dozen cycles of work).
  int ox = static_cast<int>(begin % g.out_width);
  int oy = static_cast<int>((begin / g.out_width) % g.out_height);
  int b = static_cast<int>(begin / (int64_t{g.out_width} * g.out_height));
  for (int64_t p = begin; p < end; ++p) {
    const int y0 = oy * g.stride_height - g.pad_top;
    WindowSpan w;
    w.x0 = ox * g.stride_width - g.pad_left;
    w.ky_begin = std::max(0, -y0);
    w.ky_end = std::min(g.kernel_height, g.in_height - y0);
    w.kx_begin = std::max(0, -w.x0);
    w.kx_end = std::min(g.kernel_width, g.in_width - w.x0);
    w.first_row_pixel = (int64_t{b} * g.in_height + y0) * g.in_width;
    fn(p, w);
    if (++ox < g.out_width) continue;
    ox = 0;
    if (++oy < g.out_height) continue;
    oy = 0;
    ++b;
  }
}

// Sums (or maxima) of `kLanes` channels from c over the window, then the average's rounding and
// the clamp. The lanes live in a local array of fixed size, which the compiler keeps in vector
// registers (the input, of a character type, may alias anything in memory).
template <typename T, bool kMax, size_t kLanes>
inline void PoolQuantizedLanes(const WindowGeometry& g, const T* input, size_t channels, size_t c, const WindowSpan& w,
                               int32_t quantized_min, int32_t quantized_max, T* out) {
  int32_t acc[kLanes];
  for (size_t j = 0; j < kLanes; ++j) acc[j] = kMax ? int32_t{std::numeric_limits<T>::min()} : 0;
  for (int ky = w.ky_begin; ky < w.ky_end; ++ky) {
    const int64_t row = w.first_row_pixel + int64_t{ky} * g.in_width + w.x0;
    for (int kx = w.kx_begin; kx < w.kx_end; ++kx) {
      const T* pixel = input + (row + kx) * static_cast<int64_t>(channels) + c;
      for (size_t j = 0; j < kLanes; ++j) {
        const int32_t v = pixel[j];
        acc[j] = kMax ? std::max(acc[j], v) : acc[j] + v;
      }
    }
  }
  if (!kMax) {
    const int32_t count = w.count();
    const int32_t half = count / 2;
    for (size_t j = 0; j < kLanes; ++j) {
      acc[j] = acc[j] > 0 ? (acc[j] + half) / count : (acc[j] - half) / count;
    }
  }
  for (size_t j = 0; j < kLanes; ++j) {
    out[c + j] = static_cast<T>(std::min(std::max(acc[j], quantized_min), quantized_max));
  }
}

// One output pixel of 8-bit pooling: blocks of 16 channels, then the rest one at a time.
template <typename T, bool kMax>
void PoolQuantizedPixel(const WindowGeometry& g, const T* input, size_t channels, const WindowSpan& w,
                        int32_t quantized_min, int32_t quantized_max, T* out) {
  constexpr size_t kBlock = 16;
  size_t c = 0;
  for (; c + kBlock <= channels; c += kBlock) {
    PoolQuantizedLanes<T, kMax, kBlock>(g, input, channels, c, w, quantized_min, quantized_max, out);
  }
  for (; c < channels; ++c) {
    PoolQuantizedLanes<T, kMax, 1>(g, input, channels, c, w, quantized_min, quantized_max, out);
  }
}

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
    const bool is_8bit = input->type == kTfLiteUInt8 || input->type == kTfLiteInt8;
    if ((input->type != kTfLiteFloat32 && !is_8bit) || output->type != input->type ||
        tflite::NumElements(output) == 0) {
      return kTfLiteOk;
    }
    // 8-bit sums fit an int32 for any window below 2^23 pixels.
    if (is_8bit && int64_t{params.filter_height} * params.filter_width >= (int64_t{1} << 23)) {
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
        params.stride_height, params.stride_width, 1, 1, g.in_height, g.in_width, params.filter_height,
        params.filter_width, params.padding, &out_height, &out_width);
    g.pad_top = padding.height;
    g.pad_left = padding.width;
    g.out_height = output->dims->data[1];
    g.out_width = output->dims->data[2];
    s->channels = input->dims->data[3];
    s->quantized_type = is_8bit ? input->type : kTfLiteNoType;
    if (is_8bit) {
      const TfLiteStatus range = nn::CalculateActivationRangeQuantized(context, params.activation, output,
                                                                       &s->quantized_min, &s->quantized_max);
      if (range != kTfLiteOk) return range;
    } else {
      tflite::CalculateActivationRange(params.activation, &s->act_min, &s->act_max);
      s->windows.Assign(NumThreads(context), static_cast<size_t>(g.taps()));
    }
    s->fast = true;
    return kTfLiteOk;
  }

  template <typename T>
  static TfLiteStatus EvalQuantized(TfLiteContext* context, TfLiteNode* node, State* s) {
    const T* input = tflite::GetTensorData<T>(tflite::GetInput(context, node, 0));
    T* output = tflite::GetTensorData<T>(tflite::GetOutput(context, node, 0));
    const WindowGeometry& g = s->geometry;
    const size_t channels = s->channels;
    const int64_t min_pixels =
        std::max<int64_t>(1, kMinElementsPerChunk / std::max<int64_t>(1, int64_t{g.taps()} * s->channels));
    ParallelChunks(context, g.out_pixels(), min_pixels, [&](int, int64_t begin, int64_t end) {
      ForEachWindow(g, begin, end, [&](int64_t p, const WindowSpan& w) {
        PoolQuantizedPixel<T, kMax>(g, input, channels, w, s->quantized_min, s->quantized_max, output + p * channels);
      });
    });
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->quantized_type == kTfLiteUInt8) return EvalQuantized<uint8_t>(context, node, s);
    if (s->quantized_type == kTfLiteInt8) return EvalQuantized<int8_t>(context, node, s);
    const float* input = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    float* output = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    const WindowGeometry& g = s->geometry;
    const size_t channels = s->channels;
    const PoolFn pool = kMax ? s->kernels->max_pool : s->kernels->avg_pool;
    const int64_t pixels = g.out_pixels();
    const int64_t min_pixels =
        std::max<int64_t>(1, kMinElementsPerChunk / std::max<int64_t>(1, int64_t{g.taps()} * s->channels));
    s->windows.Ensure(NumThreads(context), static_cast<size_t>(g.taps()));
    ParallelChunks(context, pixels, min_pixels, [&](int, int64_t begin, int64_t end) {
      const float** window = s->windows.part(CurrentThread(context));
      ForEachWindow(g, begin, end, [&](int64_t p, const WindowSpan& w) {
        size_t count = 0;
        for (int ky = w.ky_begin; ky < w.ky_end; ++ky) {
          const int64_t row = w.first_row_pixel + int64_t{ky} * g.in_width + w.x0;
          for (int kx = w.kx_begin; kx < w.kx_end; ++kx) {
            window[count++] = input + (row + kx) * static_cast<int64_t>(channels);
          }
        }
        pool(channels, count, window, output + p * channels, s->act_min, s->act_max);
      });
    });
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_AVERAGE_POOL_2D() { return OptimizedKernel<PoolOp<false>>::Registration(); }
TfLiteRegistration* Register_MAX_POOL_2D() { return OptimizedKernel<PoolOp<true>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
