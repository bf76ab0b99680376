// Reference RFFT2D and COMPLEX_ABS with TensorFlow Lite 2.14.1's semantics
// (tensorflow/lite/kernels/rfft2d.cc, complex_support.cc).
//
// RFFT2D(input [..., H_in, W_in] float32, fft_length [2] int32 = {H, W}) is the 2-D FFT of each
// innermost H x W slice (cropped or zero-padded to H x W), keeping the W/2 + 1 non-negative
// frequencies of the last axis: out[k1, k2] = sum x[n1, n2] exp(-2 pi i (k1 n1 / H + k2 n2 / W)).
// H and W must be powers of two, as TFLite's Ooura rdft2d needs. The arithmetic (internal/fft.h,
// shared with the optimized kernel) is in double, rounded to float once, as TFLite's.
#include <complex>
#include <cstdint>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/fft.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h

struct Rfft2dData {
  fft::Rfft2d plan;
  std::vector<double> scratch;
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
  const Shape in_shape = ShapeOf(input);
  const int rank = static_cast<int>(in_shape.size());
  const int in_height = in_shape[rank - 2];
  const int in_width = in_shape[rank - 1];
  int64_t slices = 1;
  for (int i = 0; i < rank - 2; ++i) slices *= in_shape[i];
  if (slices == 0) return kTfLiteOk;

  data->plan.Plan(height, width);
  data->scratch.resize(data->plan.ScratchDoubles());
  const float* in = input->data.f;
  TfLiteComplex64* out = output->data.c64;
  const int64_t out_values = static_cast<int64_t>(height) * (width / 2 + 1);
  for (int64_t s = 0; s < slices; ++s) {
    data->plan.Slice(in, in_height, in_width, out, data->scratch.data());
    in += static_cast<int64_t>(in_height) * in_width;
    out += out_values;
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
