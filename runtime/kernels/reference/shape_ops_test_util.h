// Helpers shared by the tests of the reference shape, data-movement, reduction and sorting kernels
// (reshape_ops_test.cc, slice_ops_test.cc, ...).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_SHAPE_OPS_TEST_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_SHAPE_OPS_TEST_UTIL_H_

#include <vector>

namespace touchstone {
namespace shape_ops_test {

inline std::vector<float> Iota(int n, float start = 0.f) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

}  // namespace shape_ops_test
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_SHAPE_OPS_TEST_UTIL_H_
