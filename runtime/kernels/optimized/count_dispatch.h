// Run-time counts to compile-time ones: the microkernels' tiles are templates on their row (or
// block) count, so that a tile's accumulators live in registers, and a call picks the instance for
// the count it has. Plain integer code, always inlined: it takes on the instruction set of the
// function that calls it (isa_target.h) and lets the compiler inline the tile there.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_COUNT_DISPATCH_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_COUNT_DISPATCH_H_

#include <cstddef>
#include <type_traits>
#include <utility>

namespace touchstone {
namespace optimized {

template <int N>
using Count = std::integral_constant<int, N>;

// f(Count<n>(), args...) for n in [kFirst, kLast), f(Count<kLast>(), args...) for any other n: a
// switch over n whose default case is kLast.
template <int kFirst, int kLast, typename F, typename... Args>
__attribute__((always_inline)) inline decltype(auto) WithCount(int n, F&& f, Args&&... args) {
  if constexpr (kFirst >= kLast) {
    return f(Count<kLast>(), std::forward<Args>(args)...);
  } else {
    if (n == kFirst) return f(Count<kFirst>(), std::forward<Args>(args)...);
    return WithCount<kFirst + 1, kLast>(n, std::forward<F>(f), std::forward<Args>(args)...);
  }
}

// `blocks` blocks, kAtOnce at a time and then the rest at once: f(Count<k>(), first) for the k
// blocks from block `first` on.
template <int kAtOnce, typename F>
__attribute__((always_inline)) inline void ForBlockGroups(size_t blocks, F&& f) {
  size_t first = 0;
  for (; first + kAtOnce <= blocks; first += kAtOnce) f(Count<kAtOnce>(), first);
  if (first < blocks) WithCount<1, kAtOnce - 1>(static_cast<int>(blocks - first), f, first);
}

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_COUNT_DISPATCH_H_
