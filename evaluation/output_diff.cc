#include "evaluation/output_diff.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

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

size_t ScalarBytes(TfLiteType type) {
  switch (type) {
    case kTfLiteFloat64:
    case kTfLiteInt64:
    case kTfLiteUInt64:
    case kTfLiteComplex128:
      return 8;
    case kTfLiteFloat32:
    case kTfLiteInt32:
    case kTfLiteUInt32:
    case kTfLiteComplex64:
      return 4;
    case kTfLiteInt16:
    case kTfLiteUInt16:
    case kTfLiteFloat16:
      return 2;
    default:
      return 1;
  }
}

// Number of scalars compared: complex tensors count their two parts.
int64_t ScalarCount(const TfLiteTensor& t) {
  const int64_t n = tflite::NumElements(&t);
  return t.type == kTfLiteComplex64 || t.type == kTfLiteComplex128 ? 2 * n : n;
}

}  // namespace

bool IsNumericType(TfLiteType type) {
  switch (type) {
    case kTfLiteFloat32:
    case kTfLiteFloat64:
    case kTfLiteFloat16:
    case kTfLiteInt32:
    case kTfLiteInt64:
    case kTfLiteUInt64:
    case kTfLiteInt16:
    case kTfLiteUInt16:
    case kTfLiteInt8:
    case kTfLiteUInt8:
    case kTfLiteBool:
    case kTfLiteUInt32:
    case kTfLiteComplex64:
    case kTfLiteComplex128:
      return true;
    default:
      return false;
  }
}

std::string TypeName(TfLiteType type) {
  std::string name = TfLiteTypeGetName(type);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

double ElementAsDouble(const TfLiteTensor& t, int64_t i) {
  switch (t.type) {
    case kTfLiteFloat32: return Read<float>(t, i);
    case kTfLiteFloat64: return Read<double>(t, i);
    case kTfLiteInt32: return Read<int32_t>(t, i);
    case kTfLiteInt64: return Read<int64_t>(t, i);
    case kTfLiteUInt64: return Read<uint64_t>(t, i);
    case kTfLiteInt16: return Read<int16_t>(t, i);
    case kTfLiteUInt16: return Read<uint16_t>(t, i);
    case kTfLiteInt8: return Read<int8_t>(t, i);
    case kTfLiteUInt8: return Read<uint8_t>(t, i);
    case kTfLiteBool: return Read<uint8_t>(t, i) != 0 ? 1.0 : 0.0;
    case kTfLiteUInt32: return Read<uint32_t>(t, i);
    case kTfLiteComplex64: return Read<float>(t, i);
    case kTfLiteComplex128: return Read<double>(t, i);
    case kTfLiteFloat16: {
      uint16_t h;
      std::memcpy(&h, t.data.raw + 2 * i, 2);
      return HalfToDouble(h);
    }
    default: return 0.0;
  }
}

void TensorDiffAccumulator::AddBytewiseRun(const TfLiteTensor& reference, const TfLiteTensor& test) {
  bytewise_ = true;
  const bool equal = reference.bytes == test.bytes &&
                     (reference.bytes == 0 || std::memcmp(reference.data.raw, test.data.raw, reference.bytes) == 0);
  const double error = equal ? 0.0 : 1.0;
  elements_ = 1;
  if (!equal) {
    ++differing_;
    if (max_index_ < 0) {
      max_run_ = static_cast<int64_t>(run_means_.size());
      max_index_ = 0;
      reference_at_max_ = 0.0;
      test_at_max_ = 1.0;
    }
    max_abs_ = 1.0;
    max_relative_ = 1.0;
  }
  run_means_.push_back(error);
  run_relative_.push_back(error);
  run_cosine_.push_back(equal ? 1.0 : 0.0);
}

Status TensorDiffAccumulator::AddRun(const TfLiteTensor& reference, const TfLiteTensor& test) {
  const std::string name = std::string("tensor '") + (reference.name ? reference.name : "") + "'";
  if (reference.type != test.type) {
    return ExecutionError(name + " has type " + TfLiteTypeGetName(test.type) + " in the test run, " +
                          TfLiteTypeGetName(reference.type) + " in the reference");
  }
  if (!TfLiteIntArrayEqual(reference.dims, test.dims)) {
    return ExecutionError(name + " has a different shape in the test run");
  }
  if (!IsNumericType(reference.type)) {
    AddBytewiseRun(reference, test);
    return Status::Ok();
  }
  const int64_t n = ScalarCount(reference);
  const size_t scalar_bytes = ScalarBytes(reference.type);
  if (n > 0 && (reference.data.raw == nullptr || test.data.raw == nullptr ||
                reference.bytes < static_cast<size_t>(n) * scalar_bytes ||
                test.bytes < static_cast<size_t>(n) * scalar_bytes)) {
    return ExecutionError(name + " has no data, or fewer bytes than its shape needs");
  }
  quantized_ = IsQuantizedInteger(reference);
  scale_ = quantized_ ? reference.params.scale : 0.0;
  zero_point_ = quantized_ ? reference.params.zero_point : 0;
  elements_ = n;
  const int64_t run = static_cast<int64_t>(run_means_.size());
  double sum_abs = 0.0, max_ref = 0.0, run_max_diff = 0.0, dot = 0.0, norm_ref = 0.0, norm_test = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = ElementAsDouble(reference, i);
    const double t = ElementAsDouble(test, i);
    double diff = 0.0;
    const bool same_bytes = std::memcmp(reference.data.raw + i * scalar_bytes, test.data.raw + i * scalar_bytes,
                                        scalar_bytes) == 0;
    const bool finite = std::isfinite(r) && std::isfinite(t);
    if (same_bytes || r == t || (std::isnan(r) && std::isnan(t))) {
      diff = 0.0;
    } else if (!finite) {
      diff = std::numeric_limits<double>::infinity();
      ++nonfinite_;
    } else {
      diff = std::fabs(t - r);
    }
    sum_abs += diff;
    run_max_diff = std::fmax(run_max_diff, diff);
    if (diff > 0) ++differing_;
    if (diff > max_abs_ || (diff > 0 && max_index_ < 0)) {
      max_abs_ = diff;
      max_run_ = run;
      max_index_ = i;
      reference_at_max_ = r;
      test_at_max_ = t;
    }
    if (!finite) continue;
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
  max_relative_ = std::fmax(max_relative_, max_ref > 0 ? run_max_diff / max_ref : run_max_diff);
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
  s.std_dev = std::isfinite(s.avg_error) ? std::sqrt(squares / static_cast<double>(s.runs)) : 0.0;
  s.max_abs_error = max_abs_;
  s.mean_relative_error = sum_rel / static_cast<double>(s.runs);
  s.max_relative_error = max_relative_;
  s.cosine_similarity = sum_cos / static_cast<double>(s.runs);
  s.quantized = quantized_;
  s.scale = scale_;
  s.zero_point = zero_point_;
  s.step_histogram = histogram_;
  s.max_abs_error_dequantized = quantized_ ? max_abs_ * scale_ : max_abs_;
  s.avg_error_dequantized = quantized_ ? s.avg_error * scale_ : s.avg_error;
  s.max_abs_error_run = max_run_;
  s.max_abs_error_index = max_index_;
  s.reference_at_max = reference_at_max_;
  s.test_at_max = test_at_max_;
  s.elements = elements_;
  s.elements_differing = differing_;
  s.nonfinite_mismatches = nonfinite_;
  s.compared_bytewise = bytewise_;
  return s;
}

}  // namespace touchstone
