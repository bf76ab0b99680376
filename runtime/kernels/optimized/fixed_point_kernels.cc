// The portable fixed-point set (the reference functions) and the choice between the sets.
#include <cstring>

#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/optimized/fixed_point_kernels.h"

namespace touchstone {
namespace optimized {
namespace fixed_point_portable {
namespace {

namespace fp = quantization_util::fixed_point;

void Sigmoid(const int16_t* in, size_t n, int16_t* out) {
  using F3 = fp::FixedPoint<int16_t, 3>;
  for (size_t i = 0; i < n; ++i) out[i] = fp::Logistic(F3::FromRaw(in[i])).raw;
}

template <int IntegerBits>
void TanhOf(const int16_t* in, size_t n, int16_t* out) {
  using F = fp::FixedPoint<int16_t, IntegerBits>;
  for (size_t i = 0; i < n; ++i) out[i] = fp::Tanh(F::FromRaw(in[i])).raw;
}

void Tanh(int integer_bits, const int16_t* in, size_t n, int16_t* out) {
  switch (integer_bits) {
    case 0:
      return TanhOf<0>(in, n, out);
    case 1:
      return TanhOf<1>(in, n, out);
    case 2:
      return TanhOf<2>(in, n, out);
    case 3:
      return TanhOf<3>(in, n, out);
    case 4:
      return TanhOf<4>(in, n, out);
    case 5:
      return TanhOf<5>(in, n, out);
    case 6:
      return TanhOf<6>(in, n, out);
    default:
      return;
  }
}

}  // namespace

const FixedPointKernels* Table() {
  static const FixedPointKernels table = [] {
    FixedPointKernels k;
    k.name = "portable";
    k.sigmoid = Sigmoid;
    k.tanh = Tanh;
    return k;
  }();
  return &table;
}

}  // namespace fixed_point_portable

namespace {

// Below this many values one vector evaluation (a chain of some 100 dependent instructions) takes
// longer than the portable functions do value by value: a small LSTM's gates.
constexpr size_t kVectorFrom = 8;

// A vector set's table whose functions take short arrays value by value (the same results).
template <const FixedPointKernels* (*VectorTable)()>
const FixedPointKernels* WithShortArraysScalar() {
  static const FixedPointKernels table = [] {
    FixedPointKernels k = *VectorTable();
    k.sigmoid = [](const int16_t* in, size_t n, int16_t* out) {
      (n < kVectorFrom ? fixed_point_portable::Table() : VectorTable())->sigmoid(in, n, out);
    };
    k.tanh = [](int integer_bits, const int16_t* in, size_t n, int16_t* out) {
      (n < kVectorFrom ? fixed_point_portable::Table() : VectorTable())->tanh(integer_bits, in, n, out);
    };
    return k;
  }();
  return &table;
}

}  // namespace

const FixedPointKernels& FixedPointKernelsFor(const MicroKernels& set) {
#if defined(__x86_64__)
  static const bool avx512bw = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  }();
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  const bool avx512_set = std::strcmp(set.name, "avx512") == 0;
  if (avx512_set && avx512bw) return *WithShortArraysScalar<fixed_point_avx512::Table>();
  if ((avx512_set || std::strcmp(set.name, "avx_fma") == 0) && avx2) {
    return *WithShortArraysScalar<fixed_point_avx2::Table>();
  }
#else
  (void)set;
#endif
  return *fixed_point_portable::Table();
}

}  // namespace optimized
}  // namespace touchstone
