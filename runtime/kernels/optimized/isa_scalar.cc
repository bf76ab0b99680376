// The portable microkernels: plain C++ on one float at a time (the compiler may still vectorise).
// Every build has them; they are the fallback on CPUs without a specialised set.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/baseline_lanes.h"
#include "runtime/kernels/optimized/isa_tables.h"
#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {
namespace isa_scalar {
namespace {

struct V : BaselineLanes<V> {
  using T = float;
  static constexpr int W = 1;
  static T load(const float* p) { return *p; }
  static void store(float* p, T v) { *p = v; }
  static T set1(float x) { return x; }
  static T zero() { return 0.f; }
  // The x86 semantics: the second operand when either is NaN.
  static T min(T a, T b) { return a < b ? a : b; }
  static T max(T a, T b) { return a > b ? a : b; }
  static T fma(T a, T b, T c) { return a * b + c; }
  static T round(T x) {
    const float magic = 12582912.f;  // 1.5 * 2^23: adding it rounds to an integer (to even)
    volatile float sum = x + magic;  // volatile: no reassociation, whatever the flags
    return sum - magic;
  }
  static T pow2i(T n) {
    // As cvttps2dq and vpslld: NaN and out-of-range values convert to INT32_MIN, the shift is logical.
    const int32_t i = n >= -2147483648.f && n < 2147483648.f ? static_cast<int32_t>(n) : INT32_MIN;
    const uint32_t bits = (static_cast<uint32_t>(i) + 127u) << 23;
    float result;
    std::memcpy(&result, &bits, sizeof(result));
    return result;
  }
};

constexpr int kWideMr = 4;
constexpr int kNarrowMr = 8;
constexpr const char* kIsaName = "scalar";

}  // namespace

#include "runtime/kernels/optimized/microkernels_impl.inc"

}  // namespace isa_scalar
}  // namespace optimized
}  // namespace touchstone
