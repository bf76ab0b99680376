// ARG_MAX's and ARG_MIN's rule, shared by the reference kernel and the optimized one: the first
// index of the extreme of n values `stride` apart, by selects rather than branches (a segmentation
// map's class scores make a branch unpredictable). A NaN is never better, so a NaN first value stays.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ARG_EXTREME_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ARG_EXTREME_H_

#include <cstdint>
#include <type_traits>

#include "runtime/kernels/internal/type_dispatch.h"

namespace touchstone {

// ARG_MAX's and ARG_MIN's input types, as TFLite 2.14's kernels (no INT16).
using ArgTypes = TypeList<float, int32_t, int64_t, uint8_t, int8_t, bool>;

// The type values are compared in: types narrower than int as int (the same order, and conditional
// moves take no 8-bit registers).
template <typename T>
using ArgCompareType = typename std::conditional<(sizeof(T) < sizeof(int)), int, T>::type;

// One step of the chain: value v at index k against the best so far.
template <bool kIsMax, typename V>
inline void ArgStep(V v, int k, V* best, int* index) {
  const bool better = kIsMax ? (v > *best) : (v < *best);
  *best = better ? v : *best;
  *index = better ? k : *index;
}

template <typename T, bool kIsMax>
inline int ArgExtremeIndex(const T* p, int n, int64_t stride) {
  using V = ArgCompareType<T>;
  V best = n > 0 ? static_cast<V>(p[0]) : V();
  int index = 0;
  for (int k = 1; k < n; ++k) ArgStep<kIsMax>(static_cast<V>(p[k * stride]), k, &best, &index);
  return index;
}

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ARG_EXTREME_H_
