// NEON quantized microkernels for arm64, two sets: plain NEON (every arm64 CPU: bytes widened to
// int16 and multiplied into int32 with vmlal, which is exact) and ARMv8.2 dot products (SDOT/UDOT,
// four byte products summed into each int32 lane), which QuantKernelsFor hands out only where the
// auxiliary vector says the CPU has them (HWCAP_ASIMDDP). The baseline is armv8-a, so the dot
// product functions enable the extension with a target attribute.
//
// Both sets compute exactly what the portable set computes: int32 sums wrap, and the output stage
// is the reference's, lane for lane:
// - vqrdmulhq_s32 is SaturatingRoundingDoublingHighMul (round half up of 2ab / 2^32, saturating
//   only INT32_MIN * INT32_MIN), and for a multiplier other than INT32_MIN (QuantOutputStage
//   never holds one) it is also ruy's high multiply (p + 2^30) >> 31;
// - vrshlq_s32 by -right rounds half up without overflowing (the sum is formed wider), which is
//   ruy's right shift including its overflow fix-up value 2^(31 - right); subtracting 1 from the
//   negative values first (saturating: INT32_MIN - 1 rounds to the same result) turns it into
//   RoundingDivideByPOT's ties away from zero;
// - vshlq_s32 by 32 gives 0, as ruy's stage wants; the ties-away stage's counts are masked to
//   0..31 in Prepare.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/isa_target.h"
#include "runtime/kernels/optimized/quant_kernels.h"

#if defined(__aarch64__)
#include <arm_neon.h>

namespace touchstone {
namespace optimized {
namespace qisa_neon_common {
namespace {

constexpr int kMr = 4;      // GEMM rows per call
constexpr int kPanel = 16;  // columns per packed panel, four int32x4 accumulators per row

// One 4-column slice of the output stage's per-column constants.
struct StageRegs {
  int32x4_t col_term, multiplier, left, neg_right;
};

inline StageRegs LoadStage(const QuantOutputStage& s, int col) {
  StageRegs r;
  r.col_term = vld1q_s32(s.col_term + col);
  const int c = col & s.column_mask;  // the constants' column (0 for a layer of one scale)
  r.multiplier = vld1q_s32(s.multiplier + c);
  r.left = vld1q_s32(s.left_shift + c);
  r.neg_right = vnegq_s32(vld1q_s32(s.right_shift + c));
  return r;
}

// The column term, the left shift, the high multiply and the rounding right shift (see the top of
// the file for why each is exact).
template <bool kUp>
inline int32x4_t Scale(int32x4_t v, const StageRegs& r, bool any_left_shift) {
  v = vaddq_s32(v, r.col_term);
  if (any_left_shift) v = vshlq_s32(v, r.left);
  int32x4_t high = vqrdmulhq_s32(v, r.multiplier);
  if (!kUp) {
    // -1 where high < 0 and there is a right shift (neg_right then has its sign bit set).
    const int32x4_t fix = vshrq_n_s32(vandq_s32(high, r.neg_right), 31);
    high = vqaddq_s32(high, fix);
  }
  return vrshlq_s32(high, r.neg_right);
}

struct Clamp {
  int32x4_t offset, act_min, act_max;
  explicit Clamp(const QuantOutputStage& s)
      : offset(vdupq_n_s32(s.output_offset)), act_min(vdupq_n_s32(s.act_min)), act_max(vdupq_n_s32(s.act_max)) {}
};

template <bool kUp>
inline int32x4_t Requantize(int32x4_t v, const StageRegs& r, const Clamp& c, bool any_left_shift) {
  const int32x4_t result = vaddq_s32(Scale<kUp>(v, r, any_left_shift), c.offset);
  return vminq_s32(vmaxq_s32(result, c.act_min), c.act_max);
}

// The low byte of each lane (the clamped values are in the output type's range, so truncation is
// what the scalar set's cast does).
inline uint8x8_t Narrow8(int32x4_t lo, int32x4_t hi) {
  return vreinterpret_u8_s8(vmovn_s16(vcombine_s16(vmovn_s32(lo), vmovn_s32(hi))));
}

inline void StoreBytes(uint8_t* out, uint8x8_t bytes, int n) {
  if (n >= 8) {
    vst1_u8(out, bytes);
  } else if (n > 0) {
    uint8_t tmp[8];
    vst1_u8(tmp, bytes);
    std::memcpy(out, tmp, n);
  }
}

inline uint8x16_t LoadBytes(const uint8_t* p, int n) {
  if (n >= 16) return vld1q_u8(p);
  uint8_t tmp[16] = {};
  std::memcpy(tmp, p, n);
  return vld1q_u8(tmp);
}

// Four bytes into lane 0 of a vector, the other lanes 0.
inline uint8x16_t LoadWord(const uint8_t* p) {
  uint32_t word;
  std::memcpy(&word, p, 4);
  return vreinterpretq_u8_u32(vsetq_lane_u32(word, vdupq_n_u32(0), 0));
}

template <bool kSigned>
inline int16x8_t WidenLow(uint8x16_t v) {
  return kSigned ? vmovl_s8(vget_low_s8(vreinterpretq_s8_u8(v))) : vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(v)));
}
template <bool kSigned>
inline int16x8_t WidenHigh(uint8x16_t v) {
  return kSigned ? vmovl_high_s8(vreinterpretq_s8_u8(v)) : vreinterpretq_s16_u16(vmovl_high_u8(v));
}

// A GEMM tile's epilogue: MR rows of 4 * NB accumulators (columns n0 ...) plus the row terms,
// through the output stage, to c. Columns outer, so each slice's constants load once.
template <bool kUp, int MR, int NB>
inline void StoreTile(const QGemmArgs& g, int n0, int32x4_t (&acc)[MR][4]) {
  const QuantOutputStage& s = *g.stage;
  const Clamp clamp(s);
  const bool any_left_shift = s.any_left_shift;
  for (int h = 0; h < NB / 2; ++h) {
    const int col = n0 + 8 * h;
    const StageRegs r0 = LoadStage(s, col);
    const StageRegs r1 = LoadStage(s, col + 4);
    for (int i = 0; i < MR; ++i) {
      const int32x4_t row_term = vdupq_n_s32(g.row_terms[i]);
      const int32x4_t lo = Requantize<kUp>(vaddq_s32(acc[i][2 * h], row_term), r0, clamp, any_left_shift);
      const int32x4_t hi = Requantize<kUp>(vaddq_s32(acc[i][2 * h + 1], row_term), r1, clamp, any_left_shift);
      StoreBytes(g.c + i * g.c_stride + col, Narrow8(lo, hi), g.n - col);
    }
  }
}

void RowSums(const uint8_t* a, size_t a_stride, int rows, size_t k, bool is_signed, int32_t* sums) {
  for (int r = 0; r < rows; ++r) {
    const uint8_t* row = a + r * a_stride;
    size_t i = 0;
    uint32_t sum = 0;
    // Pairwise widening adds: at most 2 * 255 per int16 lane per step, then int32 lanes that
    // wrap as the scalar sum does.
    if (is_signed) {
      int32x4_t total = vdupq_n_s32(0);
      for (; i + 16 <= k; i += 16) {
        total = vpadalq_s16(total, vpaddlq_s8(vld1q_s8(reinterpret_cast<const int8_t*>(row + i))));
      }
      sum = static_cast<uint32_t>(vaddvq_s32(total));
      for (; i < k; ++i) sum += static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(row[i])));
    } else {
      uint32x4_t total = vdupq_n_u32(0);
      for (; i + 16 <= k; i += 16) total = vpadalq_u16(total, vpaddlq_u8(vld1q_u8(row + i)));
      sum = vaddvq_u32(total);
      for (; i < k; ++i) sum += row[i];
    }
    sums[r] = static_cast<int32_t>(sum);
  }
}

// ---- Depthwise, 16 channels per block: per block and tap, the 16 channels' int16 weights. The
// raw inputs are multiplied (dw_zero_point_in_column_term): |x * w| < 2^23, exact in int32.

constexpr int kDwBlock = 16;

size_t DwPackedSize(int channels, int taps) {
  return static_cast<size_t>((channels + kDwBlock - 1) / kDwBlock) * taps * kDwBlock * sizeof(int16_t);
}

void DwPack(const int16_t* w, int channels, int taps, uint8_t* packed) {
  int16_t* out = reinterpret_cast<int16_t*>(packed);
  for (int c0 = 0; c0 < channels; c0 += kDwBlock) {
    for (int t = 0; t < taps; ++t) {
      for (int i = 0; i < kDwBlock; ++i) {
        const int c = c0 + i;
        *out++ = c < channels ? w[static_cast<size_t>(t) * channels + c] : 0;
      }
    }
  }
}

template <bool kSigned, bool kUp>
struct DwImpl {
  static void Run(const QDwArgs& a) {
    // Pixel groups, channel blocks within: a block's weights and constants stay in L1 over the
    // group, whose input rows stay in cache across the blocks.
    constexpr int kPixelGroup = 64;
    const QuantOutputStage& s = *a.stage;
    const Clamp clamp(s);
    const bool any_left_shift = s.any_left_shift;
    const int taps = a.taps;
    const int16_t* weights = reinterpret_cast<const int16_t*>(a.packed_w);
    for (int p0 = 0; p0 < a.pixels; p0 += kPixelGroup) {
      const int p_end = std::min(a.pixels, p0 + kPixelGroup);
      for (int c0 = 0; c0 < a.channels; c0 += kDwBlock) {
        const int valid = std::min(kDwBlock, a.channels - c0);
        const int16_t* w_block = weights + static_cast<size_t>(c0 / kDwBlock) * taps * kDwBlock;
        // The column arrays are padded to kQuantColumnPadding, so whole slices load.
        StageRegs r[4];
        for (int j = 0; j < 4; ++j) r[j] = LoadStage(s, c0 + 4 * j);
        for (int p = p0; p < p_end; ++p) {
          const uint8_t* const* in = a.in + static_cast<size_t>(p) * taps;
          int32x4_t acc[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
          const int16_t* w = w_block;
          for (int t = 0; t < taps; ++t, w += kDwBlock) {
            const uint8x16_t x = LoadBytes(in[t] + c0, valid);
            const int16x8_t x_lo = WidenLow<kSigned>(x);
            const int16x8_t x_hi = WidenHigh<kSigned>(x);
            const int16x8_t w_lo = vld1q_s16(w);
            const int16x8_t w_hi = vld1q_s16(w + 8);
            acc[0] = vmlal_s16(acc[0], vget_low_s16(x_lo), vget_low_s16(w_lo));
            acc[1] = vmlal_high_s16(acc[1], x_lo, w_lo);
            acc[2] = vmlal_s16(acc[2], vget_low_s16(x_hi), vget_low_s16(w_hi));
            acc[3] = vmlal_high_s16(acc[3], x_hi, w_hi);
          }
          uint8_t* out = a.out + static_cast<size_t>(p) * a.channels + c0;
          int32x4_t q[4];
          for (int j = 0; j < 4; ++j) q[j] = Requantize<kUp>(acc[j], r[j], clamp, any_left_shift);
          const uint8x16_t bytes = vcombine_u8(Narrow8(q[0], q[1]), Narrow8(q[2], q[3]));
          if (valid == kDwBlock) {
            vst1q_u8(out, bytes);
          } else {
            uint8_t tmp[16];
            vst1q_u8(tmp, bytes);
            std::memcpy(out, tmp, valid);
          }
        }
      }
    }
  }
};

// ---- 8-bit ADD in registers (quant_kernels.h, add_arith), 16 pairs per step.

template <bool kSigned>
void AddArith(const uint8_t* a, const uint8_t* b, int64_t n, const QuantKernels::AddStages& st, uint8_t* out) {
  // The stages are uniform: column 0's constants hold for every lane.
  const StageRegs r1 = LoadStage(*st.input1, 0);
  const StageRegs r2 = LoadStage(*st.input2, 0);
  const StageRegs ro = LoadStage(*st.output, 0);
  const Clamp clamp(*st.output);
  const bool left1 = st.input1->any_left_shift, left2 = st.input2->any_left_shift;
  const bool left_out = st.output->any_left_shift;
  const int32x4_t offset1 = vdupq_n_s32(st.input1_offset);
  const int32x4_t offset2 = vdupq_n_s32(st.input2_offset);
  const int32x4_t shift = vdupq_n_s32(st.left_shift);
  // Lane group j (0..3) of 16 bytes widened to int32.
  auto widen = [](uint8x16_t v, int32x4_t(&lanes)[4]) {
    const int16x8_t lo = WidenLow<kSigned>(v);
    const int16x8_t hi = WidenHigh<kSigned>(v);
    lanes[0] = vmovl_s16(vget_low_s16(lo));
    lanes[1] = vmovl_high_s16(lo);
    lanes[2] = vmovl_s16(vget_low_s16(hi));
    lanes[3] = vmovl_high_s16(hi);
  };
  for (int64_t i = 0; i < n; i += 16) {
    const int count = static_cast<int>(std::min<int64_t>(n - i, 16));
    int32x4_t va[4], vb[4], q[4];
    widen(LoadBytes(a + i, count), va);
    widen(LoadBytes(b + i, count), vb);
    for (int j = 0; j < 4; ++j) {
      const int32x4_t x1 = vshlq_s32(vaddq_s32(va[j], offset1), shift);
      const int32x4_t x2 = vshlq_s32(vaddq_s32(vb[j], offset2), shift);
      const int32x4_t sum = vaddq_s32(Scale<false>(x1, r1, left1), Scale<false>(x2, r2, left2));
      q[j] = Requantize<false>(sum, ro, clamp, left_out);
    }
    const uint8x16_t bytes = vcombine_u8(Narrow8(q[0], q[1]), Narrow8(q[2], q[3]));
    if (count == 16) {
      vst1q_u8(out + i, bytes);
    } else {
      uint8_t tmp[16];
      vst1q_u8(tmp, bytes);
      std::memcpy(out + i, tmp, count);
    }
  }
}

// A set's table: its GEMM (TileOfBlocks<kSigned, kUp, rows, blocks of 8 columns>, packed with
// pack_b) and what both sets share.
template <template <bool, bool, int, int> class TileOfBlocks>
QuantKernels MakeTable(const char* name, size_t (*packed_b_size)(int, size_t),
                       void (*pack_b)(const uint8_t*, int, size_t, bool, uint8_t*)) {
  QuantKernels t =
      TiledTable<TileOfBlocks, kMr, kPanel / 8, 8, DwImpl>(name, packed_b_size, pack_b, RowSums, DwPackedSize, DwPack);
  t.dw_zero_point_in_column_term = true;
  t.lookup_pairs = qisa_scalar::LookupPairs;
  t.add_arith = AddArithForSign<AddArith<true>, AddArith<false>>;
  return t;
}

// ---- Plain NEON GEMM: the weights d widened to int16 in Prepare, per panel and k the 16
// columns' values; each input byte widened, broadcast from its lane and multiplied into the
// 16 columns' int32 sums with vmlal (exact: |x * d| < 2^15).

size_t PlainPackedBSize(int n, size_t kp) {
  return static_cast<size_t>((n + kPanel - 1) / kPanel) * kPanel * kp * sizeof(int16_t);
}

void PlainPackB(const uint8_t* d, int n, size_t kp, bool d_signed, uint8_t* packed) {
  int16_t* out = reinterpret_cast<int16_t*>(packed);
  for (int n0 = 0; n0 < n; n0 += kPanel) {
    for (size_t k = 0; k < kp; ++k) {
      for (int col = n0; col < n0 + kPanel; ++col) {
        const uint8_t byte = col < n ? d[static_cast<size_t>(col) * kp + k] : 0;
        *out++ = d_signed ? static_cast<int16_t>(static_cast<int8_t>(byte)) : byte;
      }
    }
  }
}

// One k: the row inputs' lane L times the panel's 4 * NB columns at b.
template <int L, int MR, int NB>
inline void PlainStep(int32x4_t (&acc)[MR][4], const int16_t* b, const int16x8_t (&x)[MR]) {
  const int16x8_t b0 = vld1q_s16(b);
  const int16x8_t b1 = NB > 2 ? vld1q_s16(b + 8) : b0;
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = vmlal_laneq_s16(acc[i][0], vget_low_s16(b0), x[i], L);
    acc[i][1] = vmlal_high_laneq_s16(acc[i][1], b0, x[i], L);
    if (NB > 2) {
      acc[i][2] = vmlal_laneq_s16(acc[i][2], vget_low_s16(b1), x[i], L);
      acc[i][3] = vmlal_high_laneq_s16(acc[i][3], b1, x[i], L);
    }
  }
}

template <bool kSigned, bool kUp, int MR, int NB>
struct PlainTile {
  static void Run(const QGemmArgs& g, int n0) {
    const int16_t* panel = reinterpret_cast<const int16_t*>(g.packed_b) + static_cast<size_t>(n0) * g.kp;
    int32x4_t acc[MR][4];
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < 4; ++j) acc[i][j] = vdupq_n_s32(0);
    }
    size_t k = 0;
    int16x8_t x[MR];
    for (; k + 8 <= g.kp; k += 8) {
      for (int i = 0; i < MR; ++i) {
        const uint8x8_t bytes = vld1_u8(g.a + i * g.a_stride + k);
        x[i] = WidenLow<kSigned>(vcombine_u8(bytes, bytes));
      }
      const int16_t* b = panel + k * kPanel;
      PlainStep<0, MR, NB>(acc, b, x);
      PlainStep<1, MR, NB>(acc, b + 1 * kPanel, x);
      PlainStep<2, MR, NB>(acc, b + 2 * kPanel, x);
      PlainStep<3, MR, NB>(acc, b + 3 * kPanel, x);
      PlainStep<4, MR, NB>(acc, b + 4 * kPanel, x);
      PlainStep<5, MR, NB>(acc, b + 5 * kPanel, x);
      PlainStep<6, MR, NB>(acc, b + 6 * kPanel, x);
      PlainStep<7, MR, NB>(acc, b + 7 * kPanel, x);
    }
    if (k < g.kp) {  // kp is a multiple of 4: one group of 4 left
      for (int i = 0; i < MR; ++i) x[i] = WidenLow<kSigned>(LoadWord(g.a + i * g.a_stride + k));
      const int16_t* b = panel + k * kPanel;
      PlainStep<0, MR, NB>(acc, b, x);
      PlainStep<1, MR, NB>(acc, b + 1 * kPanel, x);
      PlainStep<2, MR, NB>(acc, b + 2 * kPanel, x);
      PlainStep<3, MR, NB>(acc, b + 3 * kPanel, x);
    }
    StoreTile<kUp, MR, NB>(g, n0, acc);
  }
};

// By blocks of 8 columns, as GemmPanels counts them.
template <bool kSigned, bool kUp, int MR, int kBlocks>
using PlainTileOfBlocks = PlainTile<kSigned, kUp, MR, 2 * kBlocks>;

}  // namespace
}  // namespace qisa_neon_common

namespace qisa_neon {

const QuantKernels* Table() {
  static const QuantKernels table = qisa_neon_common::MakeTable<qisa_neon_common::PlainTileOfBlocks>(
      "neon", qisa_neon_common::PlainPackedBSize, qisa_neon_common::PlainPackB);
  return &table;
}

}  // namespace qisa_neon
}  // namespace optimized
}  // namespace touchstone

// ---- Dot products (ARMv8.2 SDOT / UDOT): the functions that use them say so themselves
// (TS_DOTPROD, isa_target.h).

namespace touchstone {
namespace optimized {
namespace qisa_neon_common {
namespace {

// SDOT and UDOT multiply bytes of one signedness, the packed operands are of mixed signedness:
// the input bytes get their sign bit flipped, x' = x ^ 0x80, which is x - 128 as int8 for uint8
// inputs (then x * d = x' * d + 128 d, SDOT) and x + 128 as uint8 for int8 inputs (x * d =
// x' * d - 128 d, UDOT). The per-column sums of -+128 d are stored after each panel and start the
// accumulators. Padding (x = 0, so x' = 0x80, and d = 0) adds nothing.
//
// Layout: panels of 16 columns; per group of 4 k, four 16-byte vectors, vector j holding columns
// 4j .. 4j + 3, each column's 4 bytes in k order; after the panel's kp / 4 groups, the 16
// columns' int32 corrections.

size_t DotPanelBytes(size_t kp) { return kPanel * kp + kPanel * sizeof(int32_t); }

size_t DotPackedBSize(int n, size_t kp) { return static_cast<size_t>((n + kPanel - 1) / kPanel) * DotPanelBytes(kp); }

void DotPackB(const uint8_t* d, int n, size_t kp, bool d_signed, uint8_t* packed) {
  for (int n0 = 0; n0 < n; n0 += kPanel) {
    uint8_t* panel = packed + static_cast<size_t>(n0 / kPanel) * DotPanelBytes(kp);
    for (size_t k = 0; k < kp; k += 4) {
      uint8_t* step = panel + k * kPanel;
      for (int j = 0; j < kPanel; ++j) {
        const int col = n0 + j;
        for (int i = 0; i < 4; ++i) step[j * 4 + i] = col < n ? d[static_cast<size_t>(col) * kp + k + i] : 0;
      }
    }
    int32_t corrections[kPanel];
    for (int j = 0; j < kPanel; ++j) {
      const int col = n0 + j;
      uint32_t sum = 0;  // wraps, as the accumulators do
      for (size_t k = 0; col < n && k < kp; ++k) {
        const uint8_t byte = d[static_cast<size_t>(col) * kp + k];
        sum += d_signed ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(byte))) : byte;
      }
      corrections[j] = static_cast<int32_t>(d_signed ? sum * 128u : 0u - sum * 128u);
    }
    std::memcpy(panel + kPanel * kp, corrections, sizeof(corrections));
  }
}

// One group of 4 k: lane L (4 bytes) of each row's flipped inputs dotted with the 4 * NB
// columns' bytes at b.
template <bool kSigned, int L, int MR, int NB>
TS_DOTPROD inline void DotStep(int32x4_t (&acc)[MR][4], const uint8_t* b, const uint8x16_t (&x)[MR]) {
  uint8x16_t w[NB];
  for (int j = 0; j < NB; ++j) w[j] = vld1q_u8(b + 16 * j);
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NB; ++j) {
      if (kSigned) {  // int8 inputs, uint8 weights: both unsigned after the flip
        acc[i][j] = vreinterpretq_s32_u32(vdotq_laneq_u32(vreinterpretq_u32_s32(acc[i][j]), w[j], x[i], L));
      } else {
        acc[i][j] = vdotq_laneq_s32(acc[i][j], vreinterpretq_s8_u8(w[j]), vreinterpretq_s8_u8(x[i]), L);
      }
    }
  }
}

template <bool kSigned, bool kUp, int MR, int NB>
struct DotTile {
  TS_DOTPROD static void Run(const QGemmArgs& g, int n0) {
    const uint8_t* panel = g.packed_b + static_cast<size_t>(n0 / kPanel) * DotPanelBytes(g.kp);
    const int32_t* corrections = reinterpret_cast<const int32_t*>(panel + kPanel * g.kp);
    int32x4_t acc[MR][4];
    for (int j = 0; j < 4; ++j) {
      const int32x4_t start = vld1q_s32(corrections + 4 * j);
      for (int i = 0; i < MR; ++i) acc[i][j] = start;
    }
    const uint8x16_t flip = vdupq_n_u8(0x80);
    uint8x16_t x[MR];
    size_t k = 0;
    for (; k + 16 <= g.kp; k += 16) {
      for (int i = 0; i < MR; ++i) x[i] = veorq_u8(vld1q_u8(g.a + i * g.a_stride + k), flip);
      const uint8_t* b = panel + k * kPanel;
      DotStep<kSigned, 0, MR, NB>(acc, b, x);
      DotStep<kSigned, 1, MR, NB>(acc, b + 4 * kPanel, x);
      DotStep<kSigned, 2, MR, NB>(acc, b + 8 * kPanel, x);
      DotStep<kSigned, 3, MR, NB>(acc, b + 12 * kPanel, x);
    }
    // The last groups of 4 (a row holds only kp bytes, so no 16-byte load past them).
    for (; k < g.kp; k += 4) {
      for (int i = 0; i < MR; ++i) x[i] = veorq_u8(LoadWord(g.a + i * g.a_stride + k), flip);
      DotStep<kSigned, 0, MR, NB>(acc, panel + k * kPanel, x);
    }
    StoreTile<kUp, MR, NB>(g, n0, acc);
  }
};

template <bool kSigned, bool kUp, int MR, int kBlocks>
using DotTileOfBlocks = DotTile<kSigned, kUp, MR, 2 * kBlocks>;

}  // namespace
}  // namespace qisa_neon_common

namespace qisa_neon_dotprod {

const QuantKernels* Table() {
  static const QuantKernels table = qisa_neon_common::MakeTable<qisa_neon_common::DotTileOfBlocks>(
      "neon+dotprod", qisa_neon_common::DotPackedBSize, qisa_neon_common::DotPackB);
  return &table;
}

}  // namespace qisa_neon_dotprod
}  // namespace optimized
}  // namespace touchstone

#endif  // __aarch64__
