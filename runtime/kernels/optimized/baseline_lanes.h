// What the microkernel sets of the baseline instruction sets (SSE2, NEON, scalar) write alike in
// their vector type V (microkernels_impl.inc): the lane-wise arithmetic through the operators GCC
// and clang define on vector types (one IEEE operation per lane, the instruction the intrinsic
// names), and the partial loads and stores through a buffer of W lanes, for sets without masked
// ones. A set derives its V from BaselineLanes<V>.
//
// Only for files compiled without a target pragma (isa_target.h): these templates are defined
// outside any, so they compile for the baseline instruction set wherever they are instantiated.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_BASELINE_LANES_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_BASELINE_LANES_H_

#include <cstddef>

namespace touchstone {
namespace optimized {

template <typename V>
struct BaselineLanes {
  template <typename T>
  static T add(T a, T b) {
    return a + b;
  }
  template <typename T>
  static T sub(T a, T b) {
    return a - b;
  }
  template <typename T>
  static T mul(T a, T b) {
    return a * b;
  }
  template <typename T>
  static T div(T a, T b) {
    return a / b;
  }
  // The first n (< W) lanes; the others read as 0 / are left untouched.
  static auto load_partial(const float* p, size_t n) {
    float tmp[V::W] = {};
    for (size_t i = 0; i < n; ++i) tmp[i] = p[i];
    return V::load(tmp);
  }
  template <typename T>
  static void store_partial(float* p, T v, size_t n) {
    float tmp[V::W];
    V::store(tmp, v);
    for (size_t i = 0; i < n; ++i) p[i] = tmp[i];
  }
};

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_BASELINE_LANES_H_
