// RFFT2D and COMPLEX_ABS (a spectrogram: yamnet spends most of its time there on the reference).
// RFFT2D: the reference's arithmetic (internal/fft.h), slices split over the thread pool, so the
// outputs are the reference's bit for bit. COMPLEX_ABS of complex64: |z| as glibc's hypotf
// computes it, sqrt(re^2 + im^2) in double rounded to float (the products are exact in double, so
// the one sum and the square root round as there), split over the pool; non-finite parts, and C
// libraries other than glibc, take std::abs as the reference does.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/fft.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "runtime/kernels/optimized/isa_target.h"
#endif

namespace touchstone {
namespace optimized {
namespace {

#if defined(__x86_64__)
TS_TARGET_BEGIN("avx")

// fft::Fft::Stages two butterflies at a time in 256-bit registers (AVX, no FMA): the same
// multiplies, and the same subtraction and additions of their products (addsub takes a*c - b*d in
// the even lanes and a*d + b*c in the odd ones), element for element, so the same bits. The first
// stage, whose butterflies pair neighbours, stays scalar.
void StagesAvx(const fft::Fft& fft, double* line) {
  const int n = fft.size();
  const double a0 = fft.stage_re()[0], b0 = fft.stage_im()[0];
  for (int start = 0; start < n; start += 2) fft::Fft::Butterfly(a0, b0, line + 2 * start, line + 2 * start + 2);
  for (int half = 2; half < n; half *= 2) {
    const double* re = fft.stage_re() + half - 1;
    const double* im = fft.stage_im() + half - 1;
    for (int group = 0; group < n; group += 2 * half) {
      for (int k = 0; k < half; k += 2) {
        double* lo = line + 2 * (group + k);
        double* hi = lo + 2 * half;
        // (a_k, a_k, a_k+1, a_k+1) and the same of b.
        const __m256d a = _mm256_permute_pd(_mm256_broadcast_pd(reinterpret_cast<const __m128d*>(re + k)), 0b1100);
        const __m256d b = _mm256_permute_pd(_mm256_broadcast_pd(reinterpret_cast<const __m128d*>(im + k)), 0b1100);
        const __m256d cd = _mm256_loadu_pd(hi);            // (c, d) of both
        const __m256d dc = _mm256_permute_pd(cd, 0b0101);  // (d, c)
        const __m256d t = _mm256_addsub_pd(_mm256_mul_pd(a, cd), _mm256_mul_pd(b, dc));
        const __m256d u = _mm256_loadu_pd(lo);
        _mm256_storeu_pd(lo, _mm256_add_pd(u, t));
        _mm256_storeu_pd(hi, _mm256_sub_pd(u, t));
      }
    }
  }
}

TS_TARGET_END
#endif  // __x86_64__

// The least work a chunk holds: complex values of RFFT2D output (each costs a row and a column
// transform's share), absolute values.
constexpr int64_t kMinFftOutputsPerChunk = 2 * 1024;
constexpr int64_t kMinAbsPerChunk = 4 * 1024;
// Scratch of every thread together (a slice's transform in double, twice the output's bytes each)
// above which the node stays on the reference kernel's one scratch.
constexpr size_t kMaxFftScratchBytes = size_t{64} << 20;

struct Rfft2dState : OpState {
  fft::Rfft2d plan;
  ThreadScratch<double> scratch;
  int64_t slices = 0;
  int in_height = 0, in_width = 0;
};

struct Rfft2dOp {
  using State = Rfft2dState;
  static TfLiteRegistration* Reference() { return reference::Register_RFFT2D(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* fft_length = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    // fft_length computed at run time: the reference resizes the output at every Invoke.
    if (tflite::IsDynamicTensor(output) || !tflite::IsConstantOrPersistentTensor(fft_length)) return kTfLiteOk;
    const int rank = input->dims->size;
    s->in_height = input->dims->data[rank - 2];
    s->in_width = input->dims->data[rank - 1];
    s->slices = 1;
    for (int i = 0; i < rank - 2; ++i) s->slices *= input->dims->data[i];
    const int height = fft_length->data.i32[0], width = fft_length->data.i32[1];
    const uint64_t scratch_bytes = fft::Rfft2d::ScratchDoubles(height, width) * sizeof(double);
    if (scratch_bytes * static_cast<uint64_t>(NumThreads(context)) > kMaxFftScratchBytes) return kTfLiteOk;
    s->plan.Plan(height, width);
    s->scratch.Clear();
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const float* in = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    TfLiteComplex64* out = tflite::GetOutput(context, node, 0)->data.c64;
    const int64_t in_floats = int64_t{s->in_height} * s->in_width;
    const int64_t out_values = int64_t{s->plan.height()} * (s->plan.width() / 2 + 1);
    s->scratch.Ensure(NumThreads(context), s->plan.ScratchDoubles());
    const bool avx_stages = SetHasAvx(*s->kernels);
    const int64_t min_slices = std::max<int64_t>(1, kMinFftOutputsPerChunk / std::max<int64_t>(1, out_values));
    ParallelChunks(context, s->slices, min_slices, [&](int, int64_t begin, int64_t end) {
      double* scratch = s->scratch.part(CurrentThread(context));
      for (int64_t slice = begin; slice < end; ++slice) {
#if defined(__x86_64__)
        if (avx_stages) {
          s->plan.Slice(in + slice * in_floats, s->in_height, s->in_width, out + slice * out_values, scratch,
                        StagesAvx);
          continue;
        }
#endif
        s->plan.Slice(in + slice * in_floats, s->in_height, s->in_width, out + slice * out_values, scratch);
      }
    });
    return kTfLiteOk;
  }
};

struct ComplexAbsState : OpState {
  int64_t elements = 0;
};

struct ComplexAbsOp {
  using State = ComplexAbsState;
  static TfLiteRegistration* Reference() { return reference::Register_COMPLEX_ABS(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    s->elements = tflite::NumElements(input);
    s->fast = input->type == kTfLiteComplex64 && !tflite::IsDynamicTensor(tflite::GetOutput(context, node, 0));
    return kTfLiteOk;
  }

  static float Abs(float re, float im) {
#if defined(__GLIBC__)
    if (std::isfinite(re) && std::isfinite(im)) {
      return static_cast<float>(std::sqrt(static_cast<double>(re) * re + static_cast<double>(im) * im));
    }
#endif
    return std::abs(std::complex<float>(re, im));
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteComplex64* in = tflite::GetInput(context, node, 0)->data.c64;
    float* out = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    ParallelChunks(context, s->elements, kMinAbsPerChunk, [&](int, int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = Abs(in[i].re, in[i].im);
    });
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_RFFT2D() { return OptimizedKernel<Rfft2dOp>::Registration(); }
TfLiteRegistration* Register_COMPLEX_ABS() { return OptimizedKernel<ComplexAbsOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
