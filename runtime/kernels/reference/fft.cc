// Reference RFFT2D and COMPLEX_ABS with TensorFlow Lite 2.14.1's semantics
// (tensorflow/lite/kernels/rfft2d.cc, complex_support.cc).
//
// RFFT2D(input [..., H_in, W_in] float32, fft_length [2] int32 = {H, W}) is the 2-D FFT of each
// innermost H x W slice (cropped or zero-padded to H x W), keeping the W/2 + 1 non-negative
// frequencies of the last axis: out[k1, k2] = sum x[n1, n2] exp(-2 pi i (k1 n1 / H + k2 n2 / W)).
// H and W must be powers of two, as TFLite's Ooura rdft2d needs. TFLite computes in double and
// rounds to float once; so does this radix-2 FFT, whose double-precision result differs from
// Ooura's by far less than a float ulp, so the rounded outputs agree except at rare ties.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h
using Complex = std::complex<double>;

constexpr double kPi = 3.14159265358979323846264338327950288;

// exp(-2 pi i k / n) for 0 <= k < n / 2, each from cos/sin directly (no recurrence, so errors do
// not accumulate) of an angle reduced to at most pi / 4, so the quarter turn is exactly -i and
// sums of integers stay exact.
Complex Twiddle(int k, int n) {
  double c, s;  // cos and sin of 2 pi k / n
  if (8 * k <= n) {
    const double angle = 2.0 * kPi * k / n;
    c = std::cos(angle);
    s = std::sin(angle);
  } else if (4 * k <= n) {
    const double rest = 2.0 * kPi * (n - 4.0 * k) / (4.0 * n);  // pi/2 - angle
    c = std::sin(rest);
    s = std::cos(rest);
  } else {
    const double beyond = 2.0 * kPi * (4.0 * k - n) / (4.0 * n);  // angle - pi/2
    c = -std::sin(beyond);
    s = std::cos(beyond);
  }
  return Complex(c, -s);
}

// An in-place radix-2 decimation-in-time FFT of one power-of-two length.
class Fft {
 public:
  void Plan(int n) {
    if (n == n_) return;
    n_ = n;
    twiddles_.resize(n / 2);
    for (int k = 0; k < n / 2; ++k) twiddles_[k] = Twiddle(k, n);
    bit_reversed_.resize(n);
    int bits = 0;
    while ((1 << bits) < n) ++bits;
    for (int i = 0; i < n; ++i) {
      int r = 0;
      for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
      bit_reversed_[i] = r;
    }
  }

  // Transforms data[0], data[stride], ..., data[(n-1) * stride].
  void Forward(Complex* data, int64_t stride, std::vector<Complex>* line) const {
    line->resize(n_);
    Complex* x = line->data();
    for (int i = 0; i < n_; ++i) x[bit_reversed_[i]] = data[i * stride];
    for (int half = 1; half < n_; half *= 2) {
      const int step = n_ / (2 * half);
      for (int start = 0; start < n_; start += 2 * half) {
        for (int k = 0; k < half; ++k) {
          const Complex t = twiddles_[k * step] * x[start + half + k];
          const Complex u = x[start + k];
          x[start + k] = u + t;
          x[start + half + k] = u - t;
        }
      }
    }
    for (int i = 0; i < n_; ++i) data[i * stride] = x[i];
  }

 private:
  int n_ = 0;
  std::vector<Complex> twiddles_;
  std::vector<int> bit_reversed_;
};

struct Rfft2dData {
  Fft rows, cols;
  std::vector<Complex> grid;
  std::vector<Complex> line;
};

bool IsPowerOfTwo(int v) { return v > 0 && (v & (v - 1)) == 0; }

TfLiteStatus Rfft2dResize(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* fft_length = tflite::GetInput(context, node, 1);
  const int height = fft_length->data.i32[0];
  const int width = fft_length->data.i32[1];
  if (!IsPowerOfTwo(height) || !IsPowerOfTwo(width)) {
    TF_LITE_KERNEL_LOG(context, "input 1 (fft_length) is [%d, %d]; both must be powers of two", height, width);
    return kTfLiteError;
  }
  Shape shape = ShapeOf(input);
  shape[shape.size() - 2] = height;
  shape[shape.size() - 1] = width / 2 + 1;
  return ResizeOutput(context, tflite::GetOutput(context, node, 0), shape);
}

TfLiteStatus Rfft2dPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  const TfLiteTensor* fft_length;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input, &fft_length}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckType(context, input, "input 0", kTfLiteFloat32));
  TF_LITE_ENSURE_OK(context, CheckType(context, fft_length, "input 1 (fft_length)", kTfLiteInt32));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", kTfLiteComplex64));
  if (input->dims->size < 2) {
    TF_LITE_KERNEL_LOG(context, "input 0 has shape %s, expected rank 2 or more", ShapeString(input).c_str());
    return kTfLiteError;
  }
  if (fft_length->dims->size != 1 || fft_length->dims->data[0] != 2) {
    TF_LITE_KERNEL_LOG(context, "input 1 (fft_length) has shape %s, expected [2]", ShapeString(fft_length).c_str());
    return kTfLiteError;
  }
  if (!ValuesKnown(fft_length)) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  return Rfft2dResize(context, node);
}

TfLiteStatus Rfft2dEval(TfLiteContext* context, TfLiteNode* node) {
  auto* data = static_cast<Rfft2dData*>(node->user_data);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* fft_length = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (tflite::IsDynamicTensor(output)) TF_LITE_ENSURE_OK(context, Rfft2dResize(context, node));
  const int height = fft_length->data.i32[0];
  const int width = fft_length->data.i32[1];
  const int out_width = width / 2 + 1;
  const Shape in_shape = ShapeOf(input);
  const int rank = static_cast<int>(in_shape.size());
  const int in_height = in_shape[rank - 2];
  const int in_width = in_shape[rank - 1];
  int64_t slices = 1;
  for (int i = 0; i < rank - 2; ++i) slices *= in_shape[i];
  if (slices == 0) return kTfLiteOk;
  const int valid_height = std::min(in_height, height);
  const int valid_width = std::min(in_width, width);

  data->rows.Plan(width);
  data->cols.Plan(height);
  std::vector<Complex>& grid = data->grid;
  grid.resize(static_cast<size_t>(height) * width);
  const float* in = input->data.f;
  TfLiteComplex64* out = output->data.c64;
  for (int64_t s = 0; s < slices; ++s) {
    std::fill(grid.begin(), grid.end(), Complex());
    for (int i = 0; i < valid_height; ++i) {
      for (int j = 0; j < valid_width; ++j) grid[i * width + j] = in[i * in_width + j];
    }
    // Rows that are all padding stay zero: transform only the rows holding data.
    for (int i = 0; i < valid_height; ++i) data->rows.Forward(&grid[i * width], 1, &data->line);
    for (int j = 0; j < out_width; ++j) data->cols.Forward(&grid[j], width, &data->line);
    for (int i = 0; i < height; ++i) {
      for (int j = 0; j < out_width; ++j) {
        const Complex v = grid[i * width + j];
        out->re = static_cast<float>(v.real());
        out->im = static_cast<float>(v.imag());
        ++out;
      }
    }
    in += static_cast<int64_t>(in_height) * in_width;
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// COMPLEX_ABS: |z| of COMPLEX64 (to FLOAT32) or COMPLEX128 (to FLOAT64), by std::abs as TFLite.

TfLiteStatus ComplexAbsPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input}, {&output}));
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, input, "input 0", {kTfLiteComplex64, kTfLiteComplex128}));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0",
                                       input->type == kTfLiteComplex64 ? kTfLiteFloat32 : kTfLiteFloat64));
  return context->ResizeTensor(context, output, TfLiteIntArrayCopy(input->dims));
}

TfLiteStatus ComplexAbsEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const int64_t n = tflite::NumElements(input);
  if (input->type == kTfLiteComplex64) {
    for (int64_t i = 0; i < n; ++i) {
      output->data.f[i] = std::abs(std::complex<float>(input->data.c64[i].re, input->data.c64[i].im));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      output->data.f64[i] = std::abs(std::complex<double>(input->data.c128[i].re, input->data.c128[i].im));
    }
  }
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(RFFT2D, NewNodeData<Rfft2dData>, DeleteNodeData<Rfft2dData>, Rfft2dPrepare, Rfft2dEval)
TS_REGISTER(COMPLEX_ABS, ComplexAbsPrepare, ComplexAbsEval)

}  // namespace reference
}  // namespace touchstone
