// RESIZE_BILINEAR, float32 and uint8 with a constant size: output rows split over the thread pool,
// channels vectorised, each value computed with the reference expression in the same order (so
// exactly the reference's; uint8 weighs its four corners in float and truncates after adding 0.5, as
// TFLite's optimized kernel). int8, int16 and a size computed at run time run the reference kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/resize.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

// The sampling positions along one axis, as TFLite's ComputeInterpolationValues (and the reference
// kernel) compute them.
struct Axis {
  std::vector<int32_t> lower, upper;
  std::vector<float> fraction;

  void Compute(int input_size, int output_size, bool align_corners, bool half_pixel_centers) {
    const float scale = align_corners && output_size > 1 ? static_cast<float>(input_size - 1) / (output_size - 1)
                                                         : static_cast<float>(input_size) / output_size;
    lower.resize(output_size);
    upper.resize(output_size);
    fraction.resize(output_size);
    for (int i = 0; i < output_size; ++i) {
      const float position = static_cast<float>(i);
      const float scaled = half_pixel_centers ? (position + 0.5f) * scale - 0.5f : position * scale;
      lower[i] = std::min(std::max(static_cast<int>(std::floor(scaled)), 0), input_size - 1);
      upper[i] = std::min(static_cast<int>(std::ceil(scaled)), input_size - 1);
      fraction[i] = scaled - lower[i];
    }
  }
};

// One output row of uint8 RESIZE_BILINEAR: the reference's blend, term for term (weights as float
// products, the weighted corners summed left to right, 0.5 added, truncated). Four channels per
// SSE2 step, which rounds each multiply and add on its own as the scalar expression does.
void BilinearRowUInt8(size_t channels, size_t width, const uint8_t* top, const uint8_t* bottom, const int32_t* x0,
                      const int32_t* x1, const float* dx, float dy, uint8_t* out) {
  for (size_t x = 0; x < width; ++x) {
    const float fx = dx[x];
    const float top_left_weight = (1 - dy) * (1 - fx);
    const float top_right_weight = (1 - dy) * fx;
    const float bottom_left_weight = dy * (1 - fx);
    const float bottom_right_weight = dy * fx;
    const uint8_t* tl = top + static_cast<size_t>(x0[x]) * channels;
    const uint8_t* tr = top + static_cast<size_t>(x1[x]) * channels;
    const uint8_t* bl = bottom + static_cast<size_t>(x0[x]) * channels;
    const uint8_t* br = bottom + static_cast<size_t>(x1[x]) * channels;
    uint8_t* o = out + x * channels;
    size_t c = 0;
#if defined(__SSE2__)
    const __m128 w_tl = _mm_set1_ps(top_left_weight), w_tr = _mm_set1_ps(top_right_weight);
    const __m128 w_bl = _mm_set1_ps(bottom_left_weight), w_br = _mm_set1_ps(bottom_right_weight);
    const __m128 half = _mm_set1_ps(0.5f);
    const __m128i zero = _mm_setzero_si128();
    auto load4 = [zero](const uint8_t* p) {
      int32_t bytes;
      std::memcpy(&bytes, p, 4);
      const __m128i v = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(bytes), zero), zero);
      return _mm_cvtepi32_ps(v);
    };
    for (; c + 4 <= channels; c += 4) {
      __m128 sum = _mm_add_ps(_mm_mul_ps(load4(tl + c), w_tl), _mm_mul_ps(load4(tr + c), w_tr));
      sum = _mm_add_ps(sum, _mm_mul_ps(load4(bl + c), w_bl));
      sum = _mm_add_ps(sum, _mm_mul_ps(load4(br + c), w_br));
      sum = _mm_add_ps(sum, half);
      const __m128i i32 = _mm_cvttps_epi32(sum);
      const __m128i u8 = _mm_packus_epi16(_mm_packs_epi32(i32, zero), zero);
      const int32_t bytes = _mm_cvtsi128_si32(u8);
      std::memcpy(o + c, &bytes, 4);
    }
#endif
    for (; c < channels; ++c) {
      o[c] = static_cast<uint8_t>(tl[c] * top_left_weight + tr[c] * top_right_weight + bl[c] * bottom_left_weight +
                                  br[c] * bottom_right_weight + 0.5f);
    }
  }
}

struct ResizeState : OpState {
  bool uint8 = false;
  int batches = 0, in_height = 0, in_width = 0, channels = 0, out_height = 0, out_width = 0;
  Axis rows, columns;
  bool fused_into_consumer = false;  // MarkResizeFused: the reader uses the input pixel
};

struct ResizeBilinearOp {
  using State = ResizeState;
  static TfLiteRegistration* Reference() { return reference::Register_RESIZE_BILINEAR(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto& params = nn::ParamsOf<TfLiteResizeBilinearParams>(node);
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    const bool uint8 = input->type == kTfLiteUInt8 && output->type == kTfLiteUInt8;
    // Set again by the reader's Prepare, which runs after this one.
    s->fused_into_consumer = false;
    if (!((input->type == kTfLiteFloat32 && output->type == kTfLiteFloat32) || uint8) ||
        tflite::IsDynamicTensor(output) || output->dims->size != 4 || tflite::NumElements(output) == 0 ||
        tflite::NumElements(input) == 0) {
      return kTfLiteOk;
    }
    s->uint8 = uint8;
    s->batches = input->dims->data[0];
    s->in_height = input->dims->data[1];
    s->in_width = input->dims->data[2];
    s->channels = input->dims->data[3];
    s->out_height = output->dims->data[1];
    s->out_width = output->dims->data[2];
    s->rows.Compute(s->in_height, s->out_height, params.align_corners, params.half_pixel_centers);
    s->columns.Compute(s->in_width, s->out_width, params.align_corners, params.half_pixel_centers);
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->fused_into_consumer) return kTfLiteOk;
    if (s->uint8) {
      return EvalRows<uint8_t>(context, node, s, [](auto... args) { BilinearRowUInt8(args...); });
    }
    return EvalRows<float>(context, node, s, s->kernels->bilinear_row);
  }

  // Each output row (batch, y) from its two input rows through row_fn (BilinearRowFn's arguments).
  template <typename T, typename RowFn>
  static TfLiteStatus EvalRows(TfLiteContext* context, TfLiteNode* node, const State* s, RowFn row_fn) {
    const T* input = tflite::GetTensorData<T>(tflite::GetInput(context, node, 0));
    T* output = tflite::GetTensorData<T>(tflite::GetOutput(context, node, 0));
    const size_t channels = s->channels;
    const size_t in_row = static_cast<size_t>(s->in_width) * channels;
    const size_t out_row = static_cast<size_t>(s->out_width) * channels;
    const int64_t rows = int64_t{s->batches} * s->out_height;
    const int64_t min_rows = std::max<int64_t>(1, kMinElementsPerChunk / std::max<size_t>(1, out_row));
    ParallelChunks(context, rows, min_rows, [&](int, int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / s->out_height;
        const int y = static_cast<int>(r % s->out_height);
        const T* image = input + static_cast<size_t>(b) * s->in_height * in_row;
        row_fn(channels, s->out_width, image + s->rows.lower[y] * in_row, image + s->rows.upper[y] * in_row,
               s->columns.lower.data(), s->columns.upper.data(), s->columns.fraction.data(), s->rows.fraction[y],
               output + r * out_row);
      }
    });
    return kTfLiteOk;
  }
};

}  // namespace

bool FoldableBroadcastResize(const TfLiteNode* node, const TfLiteRegistration* registration) {
  if (registration->invoke != OptimizedKernel<ResizeBilinearOp>::Invoke) return false;
  const ResizeState* s = static_cast<const ResizeState*>(node->user_data);
  const auto zero = [](float f) { return f == 0.f; };
  return s->fast && !s->uint8 && s->batches == 1 && s->in_height == 1 && s->in_width == 1 &&
         std::all_of(s->rows.fraction.begin(), s->rows.fraction.end(), zero) &&
         std::all_of(s->columns.fraction.begin(), s->columns.fraction.end(), zero);
}

void MarkResizeFused(TfLiteNode* node) { static_cast<ResizeState*>(node->user_data)->fused_into_consumer = true; }

TfLiteRegistration* Register_RESIZE_BILINEAR() { return OptimizedKernel<ResizeBilinearOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
