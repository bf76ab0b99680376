#include "evaluation/output_diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace {

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
    case kTfLiteFloat32:
      return Read<float>(t, i);
    case kTfLiteFloat64:
      return Read<double>(t, i);
    case kTfLiteInt32:
      return Read<int32_t>(t, i);
    case kTfLiteInt64:
      return Read<int64_t>(t, i);
    case kTfLiteUInt64:
      return Read<uint64_t>(t, i);
    case kTfLiteInt16:
      return Read<int16_t>(t, i);
    case kTfLiteUInt16:
      return Read<uint16_t>(t, i);
    case kTfLiteInt8:
      return Read<int8_t>(t, i);
    case kTfLiteUInt8:
      return Read<uint8_t>(t, i);
    case kTfLiteBool:
      return Read<uint8_t>(t, i) != 0 ? 1.0 : 0.0;
    case kTfLiteUInt32:
      return Read<uint32_t>(t, i);
    case kTfLiteComplex64:
      return Read<float>(t, i);
    case kTfLiteComplex128:
      return Read<double>(t, i);
    case kTfLiteFloat16: {
      uint16_t h;
      std::memcpy(&h, t.data.raw + 2 * i, 2);
      return float16::HalfToFloat(h);
    }
    default:
      return 0.0;
  }
}

void TensorDiffAccumulator::AddBytewiseRun(const TfLiteTensor& reference, const TfLiteTensor& test) {
  s_.bytewise = true;
  const bool equal = reference.bytes == test.bytes &&
                     (reference.bytes == 0 || std::memcmp(reference.data.raw, test.data.raw, reference.bytes) == 0);
  const double error = equal ? 0.0 : 1.0;
  s_.elements = 1;
  if (!equal) {
    ++s_.differing;
    if (s_.max_index < 0) {
      s_.max_run = NextRun();
      s_.max_index = 0;
      s_.reference_at_max = 0.0;
      s_.test_at_max = 1.0;
    }
    s_.max_abs = 1.0;
    s_.max_relative = 1.0;
  }
  s_.run_means.push_back(error);
  s_.run_relative.push_back(error);
  s_.run_cosine.push_back(equal ? 1.0 : 0.0);
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
  if (n > 0 &&
      (reference.data.raw == nullptr || test.data.raw == nullptr ||
       reference.bytes < static_cast<size_t>(n) * scalar_bytes || test.bytes < static_cast<size_t>(n) * scalar_bytes)) {
    return ExecutionError(name + " has no data, or fewer bytes than its shape needs");
  }
  s_.quantized = IsQuantizedInteger(reference);
  s_.scale = s_.quantized ? reference.params.scale : 0.0;
  s_.zero_point = s_.quantized ? reference.params.zero_point : 0;
  s_.elements = n;
  const int64_t run = NextRun();
  double sum_abs = 0.0, max_ref = 0.0, run_max_diff = 0.0, dot = 0.0, norm_ref = 0.0, norm_test = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = ElementAsDouble(reference, i);
    const double t = ElementAsDouble(test, i);
    double diff = 0.0;
    const bool same_bytes =
        std::memcmp(reference.data.raw + i * scalar_bytes, test.data.raw + i * scalar_bytes, scalar_bytes) == 0;
    const bool finite = std::isfinite(r) && std::isfinite(t);
    if (same_bytes || r == t || (std::isnan(r) && std::isnan(t))) {
      diff = 0.0;
    } else if (!finite) {
      diff = std::numeric_limits<double>::infinity();
      ++s_.nonfinite;
    } else {
      diff = std::fabs(t - r);
    }
    sum_abs += diff;
    run_max_diff = std::fmax(run_max_diff, diff);
    if (diff == 0.0) {
      ++s_.zeros;
    } else if (std::isfinite(diff)) {
      const int e = std::min(std::max(std::ilogb(diff), kErrorLog2Min), kErrorLog2Max);
      ++s_.error_log2[static_cast<size_t>(e - kErrorLog2Min)];
    }
    if (diff > 0) ++s_.differing;
    if (diff > s_.max_abs || (diff > 0 && s_.max_index < 0)) {
      s_.max_abs = diff;
      s_.max_run = run;
      s_.max_index = i;
      s_.reference_at_max = r;
      s_.test_at_max = t;
    }
    if (!finite) continue;
    max_ref = std::fmax(max_ref, std::fabs(r));
    // Cosine of the dequantized values: the zero point must not count as signal.
    const double rz = s_.quantized ? r - reference.params.zero_point : r;
    const double tz = s_.quantized ? t - test.params.zero_point : t;
    dot += rz * tz;
    norm_ref += rz * rz;
    norm_test += tz * tz;
    if (s_.quantized) s_.histogram[diff < 0.5 ? 0 : diff < 1.5 ? 1 : diff < 2.5 ? 2 : 3]++;
  }
  const double mean = n > 0 ? sum_abs / static_cast<double>(n) : 0.0;
  s_.run_means.push_back(mean);
  s_.run_relative.push_back(max_ref > 0 ? mean / max_ref : mean);
  s_.max_relative = std::fmax(s_.max_relative, max_ref > 0 ? run_max_diff / max_ref : run_max_diff);
  double cosine = 1.0;
  if (norm_ref > 0 && norm_test > 0) {
    cosine = dot / (std::sqrt(norm_ref) * std::sqrt(norm_test));
  } else if (norm_ref != norm_test) {
    cosine = 0.0;  // one is all zeros and the other is not
  }
  s_.run_cosine.push_back(cosine);
  return Status::Ok();
}

void TensorDiffAccumulator::Append(const State& later) {
  const int64_t offset = NextRun() - later.first_run;
  // The running maximum's rule (AddRun): a later maximum wins only when strictly larger, or when none
  // was found yet.
  if (later.max_index >= 0 && (later.max_abs > s_.max_abs || s_.max_index < 0)) {
    s_.max_abs = later.max_abs;
    s_.max_run = later.max_run + offset;
    s_.max_index = later.max_index;
    s_.reference_at_max = later.reference_at_max;
    s_.test_at_max = later.test_at_max;
  } else if (later.max_index < 0 && later.max_abs > s_.max_abs) {
    s_.max_abs = later.max_abs;
  }
  s_.max_relative = std::fmax(s_.max_relative, later.max_relative);
  s_.run_means.insert(s_.run_means.end(), later.run_means.begin(), later.run_means.end());
  s_.run_relative.insert(s_.run_relative.end(), later.run_relative.begin(), later.run_relative.end());
  s_.run_cosine.insert(s_.run_cosine.end(), later.run_cosine.begin(), later.run_cosine.end());
  for (size_t b = 0; b < s_.histogram.size(); ++b) s_.histogram[b] += later.histogram[b];
  for (size_t b = 0; b < s_.error_log2.size(); ++b) s_.error_log2[b] += later.error_log2[b];
  s_.zeros += later.zeros;
  s_.differing += later.differing;
  s_.nonfinite += later.nonfinite;
  s_.bytewise = s_.bytewise || later.bytewise;
  if (!later.run_means.empty()) {
    // Figures of the last run compared.
    s_.quantized = later.quantized;
    s_.scale = later.scale;
    s_.zero_point = later.zero_point;
    s_.elements = later.elements;
  }
}

TensorDiffSummary TensorDiffAccumulator::Summary() const {
  TensorDiffSummary s;
  s.runs = static_cast<int64_t>(s_.run_means.size());
  if (s.runs == 0) return s;
  double sum = 0.0, sum_rel = 0.0, sum_cos = 0.0;
  for (size_t i = 0; i < s_.run_means.size(); ++i) {
    sum += s_.run_means[i];
    sum_rel += s_.run_relative[i];
    sum_cos += s_.run_cosine[i];
  }
  s.avg_error = sum / static_cast<double>(s.runs);
  double squares = 0.0;
  for (double m : s_.run_means) squares += (m - s.avg_error) * (m - s.avg_error);
  s.std_dev = std::isfinite(s.avg_error) ? std::sqrt(squares / static_cast<double>(s.runs)) : 0.0;
  s.max_abs_error = s_.max_abs;
  s.mean_relative_error = sum_rel / static_cast<double>(s.runs);
  s.max_relative_error = s_.max_relative;
  s.cosine_similarity = sum_cos / static_cast<double>(s.runs);
  s.quantized = s_.quantized;
  s.scale = s_.scale;
  s.zero_point = s_.zero_point;
  s.step_histogram = s_.histogram;
  s.max_abs_error_dequantized = s_.quantized ? s_.max_abs * s_.scale : s_.max_abs;
  s.avg_error_dequantized = s_.quantized ? s.avg_error * s_.scale : s.avg_error;
  s.max_abs_error_run = s_.max_run;
  s.max_abs_error_index = s_.max_index;
  s.reference_at_max = s_.reference_at_max;
  s.test_at_max = s_.test_at_max;
  s.elements = s_.elements;
  s.elements_differing = s_.differing;
  s.nonfinite_mismatches = s_.nonfinite;
  s.compared_bytewise = s_.bytewise;
  for (size_t b = 0; b < s_.error_log2.size(); ++b) {
    if (s_.error_log2[b] != 0)
      s.error_log2_histogram.emplace_back(static_cast<int>(b) + kErrorLog2Min, s_.error_log2[b]);
  }
  s.zero_errors = s_.zeros;
  return s;
}

}  // namespace touchstone
