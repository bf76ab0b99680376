// Compares an output tensor with the bytes TensorFlow Lite wrote for it, under the rules of
// ../shared/golden and ../shared/opsuite: integers and bool exactly; float32 element-wise within
// rtol*|expected| + atol, NaN matching NaN, infinities matching exactly, -0.0 equal to 0.0.
#ifndef TOUCHSTONE_TESTS_COMMON_TENSOR_COMPARE_H_
#define TOUCHSTONE_TESTS_COMMON_TENSOR_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/c/common.h"

namespace touchstone {
namespace testing {

struct FloatTolerance {
  double rtol = 0.0;
  double atol = 0.0;
  // When set, atol is atol_of_max times the largest finite |expected| in the tensor.
  double atol_of_max = 0.0;
};

struct CompareResult {
  bool match = false;
  std::string detail;          // what differs, when not a match
  double max_abs_diff = 0.0;   // float outputs: largest |got - expected|
  double max_magnitude = 0.0;  // float outputs: largest finite |expected|
};

CompareResult CompareTensor(const TfLiteTensor* actual, const std::vector<int>& expected_shape,
                            const std::vector<uint8_t>& expected, const FloatTolerance& tolerance);

// How far a delegate's output strays, in the units of the XNNPACK delegate's bound (docs/xnnpack.md):
// float32, the largest difference over the largest finite |expected| (infinity where NaN or infinity
// positions disagree); int8 and uint8, the largest difference in steps; other types, 0 when equal.
// Infinity when the sizes differ.
double DelegateDeviation(TfLiteType type, const void* got, size_t got_bytes, const std::vector<uint8_t>& expected);

}  // namespace testing
}  // namespace touchstone

#endif  // TOUCHSTONE_TESTS_COMMON_TENSOR_COMPARE_H_
