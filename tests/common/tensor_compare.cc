#include "tests/common/tensor_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace testing {

CompareResult CompareTensor(const TfLiteTensor* actual, const std::vector<int>& expected_shape,
                            const std::vector<uint8_t>& expected, const FloatTolerance& tolerance) {
  CompareResult result;
  const std::vector<int> shape(actual->dims->data, actual->dims->data + actual->dims->size);
  if (shape != expected_shape) {
    result.detail = "shape " + ShapeString(shape) + ", TFLite " + ShapeString(expected_shape);
    return result;
  }
  if (actual->bytes != expected.size()) {
    result.detail = std::to_string(actual->bytes) + " bytes, TFLite wrote " + std::to_string(expected.size());
    return result;
  }
  if (expected.empty()) {
    result.match = true;
    return result;
  }
  if (actual->type != kTfLiteFloat32) {
    if (std::memcmp(actual->data.raw, expected.data(), expected.size()) == 0) {
      result.match = true;
      return result;
    }
    const size_t element = tflite::TfLiteTypeGetSize(actual->type);
    for (size_t i = 0; i < expected.size(); ++i) {
      if (static_cast<uint8_t>(actual->data.raw[i]) != expected[i]) {
        result.detail = std::string(TfLiteTypeGetName(actual->type)) + " element " +
                        std::to_string(element ? i / element : i) + " differs";
        break;
      }
    }
    return result;
  }
  const float* got = reinterpret_cast<const float*>(actual->data.raw);
  std::vector<float> want(expected.size() / sizeof(float));
  std::memcpy(want.data(), expected.data(), expected.size());
  for (float e : want) {
    if (std::isfinite(e)) result.max_magnitude = std::max(result.max_magnitude, std::fabs(static_cast<double>(e)));
  }
  const double atol = tolerance.atol + tolerance.atol_of_max * result.max_magnitude;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got[i], e = want[i];
    bool ok;
    if (std::isnan(e)) {
      ok = std::isnan(g);
    } else if (std::isinf(e)) {
      ok = g == e;
    } else {
      const double diff = std::fabs(g - e);
      if (std::isfinite(diff)) result.max_abs_diff = std::max(result.max_abs_diff, diff);
      ok = diff <= tolerance.rtol * std::fabs(e) + atol;  // false for NaN g
    }
    if (!ok && result.detail.empty()) {
      char buffer[160];
      std::snprintf(buffer, sizeof(buffer), "element %zu is %.9g, TFLite %.9g", i, g, e);
      result.detail = buffer;
    }
  }
  result.match = result.detail.empty();
  return result;
}

double DelegateDeviation(TfLiteType type, const void* got, size_t got_bytes, const std::vector<uint8_t>& expected) {
  if (got_bytes != expected.size()) return INFINITY;
  const uint8_t* got_data = static_cast<const uint8_t*>(got);
  if (type == kTfLiteFloat32) {
    const float* g = static_cast<const float*>(got);
    const float* w = reinterpret_cast<const float*>(expected.data());
    double magnitude = 0.0, diff = 0.0;
    for (size_t i = 0; i < expected.size() / 4; ++i) {
      if (std::isnan(g[i]) || std::isnan(w[i])) {
        if (std::isnan(g[i]) != std::isnan(w[i])) return INFINITY;
        continue;
      }
      if (std::isinf(g[i]) || std::isinf(w[i])) {
        if (g[i] != w[i]) return INFINITY;
        continue;
      }
      magnitude = std::max(magnitude, std::fabs(static_cast<double>(w[i])));
      diff = std::max(diff, std::fabs(static_cast<double>(g[i]) - w[i]));
    }
    return magnitude > 0.0 ? diff / magnitude : diff;
  }
  if (type == kTfLiteInt8 || type == kTfLiteUInt8) {
    int steps = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      const int a = type == kTfLiteInt8 ? static_cast<int8_t>(got_data[i]) : got_data[i];
      const int b = type == kTfLiteInt8 ? static_cast<int8_t>(expected[i]) : expected[i];
      steps = std::max(steps, std::abs(a - b));
    }
    return steps;
  }
  return std::memcmp(got, expected.data(), expected.size()) == 0 ? 0.0 : INFINITY;
}

}  // namespace testing
}  // namespace touchstone
