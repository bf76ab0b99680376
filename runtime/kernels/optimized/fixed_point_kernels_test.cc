// Every fixed-point set this CPU runs against the reference functions (quantization_util.h) on all
// 65536 int16 inputs: the logistic of Q3.12 and the tanh of every integer-bit count the kernels
// take. Also arrays of every length up to a few registers (the partial last register) and in place.
// A plain program (exit code 0 when everything agrees).
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/optimized/fixed_point_kernels.h"
#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/kernels/optimized/plain_test.h"

namespace touchstone {
namespace optimized {
namespace {

namespace fp = quantization_util::fixed_point;

void Expect(bool ok, const std::string& what, int input, int expected, int actual) {
  if (!ok) plain_test::Fail("%s(%d): expected %d, got %d", what.c_str(), input, expected, actual);
}

template <int IntegerBits>
int16_t ReferenceTanh(int16_t x) {
  return fp::Tanh(fp::FixedPoint<int16_t, IntegerBits>::FromRaw(x)).raw;
}

int16_t ReferenceTanhOf(int integer_bits, int16_t x) {
  switch (integer_bits) {
    case 0:
      return ReferenceTanh<0>(x);
    case 1:
      return ReferenceTanh<1>(x);
    case 2:
      return ReferenceTanh<2>(x);
    case 3:
      return ReferenceTanh<3>(x);
    case 4:
      return ReferenceTanh<4>(x);
    case 5:
      return ReferenceTanh<5>(x);
    default:
      return ReferenceTanh<6>(x);
  }
}

void CheckSet(const FixedPointKernels& k) {
  std::vector<int16_t> all(65536), out(65536);
  for (int i = 0; i < 65536; ++i) all[i] = static_cast<int16_t>(i - 32768);
  const std::string name = k.name;
  k.sigmoid(all.data(), all.size(), out.data());
  for (int i = 0; i < 65536; ++i) {
    const int16_t expected = fp::Logistic(fp::FixedPoint<int16_t, 3>::FromRaw(all[i])).raw;
    Expect(out[i] == expected, name + " sigmoid", all[i], expected, out[i]);
  }
  for (int bits = 0; bits <= kMaxTanhIntegerBits; ++bits) {
    k.tanh(bits, all.data(), all.size(), out.data());
    for (int i = 0; i < 65536; ++i) {
      const int16_t expected = ReferenceTanhOf(bits, all[i]);
      Expect(out[i] == expected, name + " tanh" + std::to_string(bits), all[i], expected, out[i]);
    }
  }
  // Every short length, offset so that no call starts on a register boundary; and in place.
  for (size_t n = 1; n <= 100; ++n) {
    std::vector<int16_t> in(all.begin() + 1000 + 37 * n, all.begin() + 1000 + 37 * n + n);
    std::vector<int16_t> result(n + 1, 12345);
    k.sigmoid(in.data(), n, result.data());
    for (size_t i = 0; i < n; ++i) {
      const int16_t expected = fp::Logistic(fp::FixedPoint<int16_t, 3>::FromRaw(in[i])).raw;
      Expect(result[i] == expected, name + " sigmoid of " + std::to_string(n), in[i], expected, result[i]);
    }
    Expect(result[n] == 12345, name + " sigmoid wrote past the end of " + std::to_string(n), 0, 12345, result[n]);
    std::vector<int16_t> inout = in;
    k.tanh(3, inout.data(), n, inout.data());
    for (size_t i = 0; i < n; ++i) {
      Expect(inout[i] == ReferenceTanh<3>(in[i]), name + " tanh in place", in[i], ReferenceTanh<3>(in[i]), inout[i]);
    }
  }
}

int Run() {
  plain_test::CheckEachTable<FixedPointKernels>(
      []() -> const FixedPointKernels& { return FixedPointKernelsFor(Kernels()); },
      [](const FixedPointKernels& k, const std::string&) { CheckSet(k); });
  return plain_test::Finish();
}

}  // namespace
}  // namespace optimized
}  // namespace touchstone

int main() { return touchstone::optimized::Run(); }
