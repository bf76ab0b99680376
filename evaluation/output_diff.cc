#include "evaluation/output_diff.h"

#include <cmath>
#include <cstring>

#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace {

double HalfToDouble(uint16_t h) {
  const int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double value;
  if (exponent == 0) {
    value = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -value : value;
}

template <typename T>
double Read(const TfLiteTensor& t, int64_t i) {
  T v;
  std::memcpy(&v, t.data.raw + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return static_cast<double>(v);
}

bool IsQuantizedInteger(const TfLiteTensor& t) {
  return (t.type == kTfLiteInt8 || t.type == kTfLiteUInt8 || t.type == kTfLiteInt16) &&
         t.quantization.type == kTfLiteAffineQuantization && t.params.scale > 0;
}

}  // namespace

double ElementAsDouble(const TfLiteTensor& t, int64_t i) {
  switch (t.type) {
    case kTfLiteFloat32: return Read<float>(t, i);
    case kTfLiteFloat64: return Read<double>(t, i);
    case kTfLiteInt32: return Read<int32_t>(t, i);
    case kTfLiteInt64: return Read<int64_t>(t, i);
    case kTfLiteInt16: return Read<int16_t>(t, i);
    case kTfLiteUInt16: return Read<uint16_t>(t, i);
    case kTfLiteInt8: return Read<int8_t>(t, i);
    case kTfLiteUInt8: return Read<uint8_t>(t, i);
    case kTfLiteBool: return Read<uint8_t>(t, i) != 0 ? 1.0 : 0.0;
    case kTfLiteUInt32: return Read<uint32_t>(t, i);
    case kTfLiteFloat16: {
      uint16_t h;
      std::memcpy(&h, t.data.raw + 2 * i, 2);
      return HalfToDouble(h);
    }
    default: return 0.0;
  }
}

Status TensorDiffAccumulator::AddRun(const TfLiteTensor& reference, const TfLiteTensor& test) {
  if (reference.type != test.type) {
    return ExecutionError(std::string("tensor '") + (reference.name ? reference.name : "") + "' has type " +
                          TfLiteTypeGetName(test.type) + " in the test run, " +
                          TfLiteTypeGetName(reference.type) + " in the reference");
  }
  if (!TfLiteIntArrayEqual(reference.dims, test.dims)) {
    return ExecutionError(std::string("tensor '") + (reference.name ? reference.name : "") +
                          "' has a different shape in the test run");
  }
  const int64_t n = tflite::NumElements(&reference);
  quantized_ = IsQuantizedInteger(reference);
  scale_ = quantized_ ? reference.params.scale : 0.0;
  double sum_abs = 0.0, max_ref = 0.0, dot = 0.0, norm_ref = 0.0, norm_test = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = ElementAsDouble(reference, i);
    const double t = ElementAsDouble(test, i);
    const double diff = std::fabs(t - r);
    sum_abs += diff;
    max_abs_ = std::fmax(max_abs_, diff);
    max_ref = std::fmax(max_ref, std::fabs(r));
    // Cosine of the dequantized values: the zero point must not count as signal.
    const double rz = quantized_ ? r - reference.params.zero_point : r;
    const double tz = quantized_ ? t - test.params.zero_point : t;
    dot += rz * tz;
    norm_ref += rz * rz;
    norm_test += tz * tz;
    if (quantized_) histogram_[diff < 0.5 ? 0 : diff < 1.5 ? 1 : diff < 2.5 ? 2 : 3]++;
  }
  const double mean = n > 0 ? sum_abs / static_cast<double>(n) : 0.0;
  run_means_.push_back(mean);
  run_relative_.push_back(max_ref > 0 ? mean / max_ref : mean);
  double cosine = 1.0;
  if (norm_ref > 0 && norm_test > 0) {
    cosine = dot / (std::sqrt(norm_ref) * std::sqrt(norm_test));
  } else if (norm_ref != norm_test) {
    cosine = 0.0;  // one is all zeros and the other is not
  }
  run_cosine_.push_back(cosine);
  return Status::Ok();
}

TensorDiffSummary TensorDiffAccumulator::Summary() const {
  TensorDiffSummary s;
  s.runs = static_cast<int64_t>(run_means_.size());
  if (s.runs == 0) return s;
  double sum = 0.0, sum_rel = 0.0, sum_cos = 0.0;
  for (size_t i = 0; i < run_means_.size(); ++i) {
    sum += run_means_[i];
    sum_rel += run_relative_[i];
    sum_cos += run_cosine_[i];
  }
  s.avg_error = sum / static_cast<double>(s.runs);
  double squares = 0.0;
  for (double m : run_means_) squares += (m - s.avg_error) * (m - s.avg_error);
  s.std_dev = std::sqrt(squares / static_cast<double>(s.runs));
  s.max_abs_error = max_abs_;
  s.mean_relative_error = sum_rel / static_cast<double>(s.runs);
  s.cosine_similarity = sum_cos / static_cast<double>(s.runs);
  s.quantized = quantized_;
  s.scale = scale_;
  s.step_histogram = histogram_;
  s.max_abs_error_dequantized = quantized_ ? max_abs_ * scale_ : max_abs_;
  s.avg_error_dequantized = quantized_ ? s.avg_error * scale_ : s.avg_error;
  return s;
}

}  // namespace touchstone
