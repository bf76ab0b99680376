// NEON microkernels for aarch64 (4 floats per register, 32 registers, fused multiply-add). NEON is
// part of the aarch64 baseline, so the set is chosen at build time.
#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/baseline_lanes.h"
#include "runtime/kernels/optimized/isa_tables.h"
#include "runtime/kernels/optimized/microkernels.h"

#if defined(__aarch64__)
#include <arm_neon.h>

namespace touchstone {
namespace optimized {
namespace isa_neon {
namespace {

struct V : BaselineLanes<V> {
  using T = float32x4_t;
  static constexpr int W = 4;
  static T load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, T v) { vst1q_f32(p, v); }
  static T set1(float x) { return vdupq_n_f32(x); }
  static T zero() { return vdupq_n_f32(0.f); }
  // x86 semantics (the second operand when either is NaN), as the other sets.
  static T min(T a, T b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
  static T max(T a, T b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
  static T fma(T a, T b, T c) { return vfmaq_f32(c, a, b); }
  static T round(T x) { return vrndnq_f32(x); }
  static T pow2i(T n) {
    const int32x4_t e = vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127));
    return vreinterpretq_f32_s32(vshlq_n_s32(e, 23));
  }
};

constexpr int kWideMr = 8;
constexpr int kNarrowMr = 8;
constexpr const char* kIsaName = "neon";

}  // namespace

#include "runtime/kernels/optimized/microkernels_impl.inc"

}  // namespace isa_neon
}  // namespace optimized
}  // namespace touchstone

#endif  // __aarch64__
