// AVX-512 VNNI quantized microkernels (vpdpbusd: four u8 x s8 products summed into each int32
// lane per instruction), for x86-64 CPUs with AVX-512 F/BW/DQ/VL and VNNI; QuantKernelsFor checks
// before handing this set out. Enabled per function (target pragma): the build has no global -m
// flags.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/isa_target.h"
#include "runtime/kernels/optimized/quant_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_AVX512_TARGET_BEGIN("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,avx,fma")

namespace touchstone {
namespace optimized {
namespace qisa_avx512 {
namespace {

constexpr int kMr = 6;      // rows per GEMM call
constexpr int kBlocks = 4;  // 16-column vectors per panel
constexpr int kPanel = 16 * kBlocks;

inline __m512i Load(const int32_t* p) { return _mm512_loadu_si512(p); }

#include "runtime/kernels/optimized/avx512_dot.inc"

// The per-column constants of the output stage for 16 columns, loaded once where a kernel
// requantizes many rows or pixels of the same columns.
struct StageRegs {
  __m512i col_term, multiplier, multiplier_odd, left;
  // 64-bit lanes: the even columns' constants, then the odd columns' (QuantOutputStage::round64).
  __m512i round_even, round_odd, shift_even, shift_odd, fix_even, fix_odd;
  __m512i offset, act_min, act_max;
};

inline __m512i Load64(const int64_t* p) { return _mm512_loadu_si512(p); }

// Always inlined: GCC kept it out of line, and a call returns its 13 vectors through memory.
__attribute__((always_inline)) inline StageRegs LoadStage(const QuantOutputStage& s, int col) {
  StageRegs r;
  r.col_term = Load(s.col_term + col);
  const int c = col & s.column_mask;  // the constants' column (0 for a layer of one scale)
  r.multiplier = Load(s.multiplier + c);
  r.multiplier_odd = _mm512_srli_epi64(r.multiplier, 32);
  r.left = Load(s.left_shift + c);
  r.round_even = Load64(s.round64 + c);
  r.round_odd = Load64(s.round64 + c + 8);
  r.shift_even = Load64(s.shift64 + c);
  r.shift_odd = Load64(s.shift64 + c + 8);
  r.fix_even = Load64(s.negative_fix64 + c);
  r.fix_odd = Load64(s.negative_fix64 + c + 8);
  r.offset = _mm512_set1_epi32(s.output_offset);
  r.act_min = _mm512_set1_epi32(s.act_min);
  r.act_max = _mm512_set1_epi32(s.act_max);
  return r;
}

// The rounding high multiply and rounding right shift of 8 lanes' 64-bit products p as one
// rounding (quant_kernels.h, QuantOutputStage::round64): with h = floor((p + 2^30) / 2^31), the
// reference's high multiply for a multiplier other than INT32_MIN,
// - ruy's (h + nudge) >> right is floor((p + 2^30 + nudge * 2^31) / 2^(31 + right)), and where
//   h + nudge overflows int32 ruy's fix-up value 2^(31 - right) is that same floor;
// - RoundingDivideByPOT(h, right) (ties away from zero) is that floor with nudge - 1 in place of
//   nudge where h < 0, i.e. where p < -2^30.
// |p| < 2^62 and nudge * 2^31 <= 2^61, so nothing overflows 64 bits.
template <bool kUp>
inline __m512i RoundShift64(__m512i p, __m512i round, __m512i shift, __m512i fix) {
  __m512i t = _mm512_add_epi64(p, round);
  if (!kUp) {
    const __mmask8 negative = _mm512_cmplt_epi64_mask(p, _mm512_set1_epi64(-(int64_t{1} << 30)));
    t = _mm512_mask_add_epi64(t, negative, t, fix);
  }
  return _mm512_srav_epi64(t, shift);
}

// The column term, the left shift, the high multiply and the rounding right shift (RoundShift64,
// on the even and odd lanes' 64-bit products) of 16 lanes.
template <bool kUp>
inline __m512i Scale(__m512i v, const StageRegs& r, bool any_left_shift) {
  v = _mm512_add_epi32(v, r.col_term);
  if (any_left_shift) v = _mm512_sllv_epi32(v, r.left);
  const __m512i even = RoundShift64<kUp>(_mm512_mul_epi32(v, r.multiplier), r.round_even, r.shift_even, r.fix_even);
  const __m512i odd = RoundShift64<kUp>(_mm512_mul_epi32(_mm512_srli_epi64(v, 32), r.multiplier_odd), r.round_odd,
                                        r.shift_odd, r.fix_odd);
  // The results fit int32: the even lanes' low halves, and the odd lanes' low halves moved up.
  return _mm512_mask_shuffle_epi32(even, 0xAAAA, odd, _MM_PERM_CDAB);
}

// The reference's output stage on 16 accumulators of columns [col, col + 16): Scale, then the
// zero point and the clamp.
template <bool kUp>
inline __m128i Requantize(__m512i v, const StageRegs& r, bool any_left_shift) {
  __m512i result = Scale<kUp>(v, r, any_left_shift);
  result = _mm512_add_epi32(result, r.offset);
  result = _mm512_max_epi32(result, r.act_min);
  result = _mm512_min_epi32(result, r.act_max);
  return _mm512_cvtepi32_epi8(result);  // in the output type's range: truncation is exact
}

template <bool kUp>
inline __m128i Requantize(__m512i v, const QuantOutputStage& s, int col) {
  return Requantize<kUp>(v, LoadStage(s, col), s.any_left_shift);
}

inline __mmask16 FirstLanes16(int n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

size_t PackedBSize(int n, size_t kp) { return static_cast<size_t>((n + 15) / 16 * 16) * kp; }

// Panels of 64 columns (the last one as many 16-column blocks as it needs); within a panel, for
// each group of 4 k, each column's 4 bytes.
void PackB(const uint8_t* d, int n, size_t kp, bool, uint8_t* packed) {
  for (int n0 = 0; n0 < n; n0 += kPanel) {
    const int width = std::min(kBlocks, (n - n0 + 15) / 16) * 16;
    uint8_t* panel = packed + static_cast<size_t>(n0) * kp;
    for (size_t k = 0; k < kp; k += 4) {
      uint8_t* step = panel + k * width;
      for (int j = 0; j < width; ++j) {
        const int col = n0 + j;
        for (int i = 0; i < 4; ++i) {
          step[j * 4 + i] = col < n ? d[static_cast<size_t>(col) * kp + k + i] : 0;
        }
      }
    }
  }
}

void RowSums(const uint8_t* a, size_t a_stride, int rows, size_t k, bool is_signed, int32_t* sums) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int r = 0; r < rows; ++r) {
    const uint8_t* row = a + r * a_stride;
    __m512i total = _mm512_setzero_si512();
    for (size_t i = 0; i < k; i += 64) {
      const size_t left = k - i;
      const __mmask64 m = left >= 64 ? ~__mmask64{0} : ((__mmask64{1} << left) - 1);
      __m512i v = _mm512_maskz_loadu_epi8(m, row + i);
      if (is_signed) v = _mm512_mask_xor_epi32(v, 0xFFFF, v, _mm512_maskz_mov_epi8(m, flip));
      total = _mm512_add_epi64(total, _mm512_sad_epu8(v, _mm512_setzero_si512()));
    }
    int64_t sum = _mm512_reduce_add_epi64(total);
    if (is_signed) sum -= int64_t{128} * static_cast<int64_t>(k);
    sums[r] = static_cast<int32_t>(sum);
  }
}

template <bool kSigned, bool kUp, int MR, int NB>
struct Tile {
  static void Run(const QGemmArgs& g, int n0) {
    const int width = NB * 16;
    const uint8_t* panel = g.packed_b + static_cast<size_t>(n0) * g.kp;
    __m512i acc[MR][NB];
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < NB; ++j) acc[i][j] = _mm512_setzero_si512();
    }
    const uint8_t* a = g.a;
    const size_t stride = g.a_stride;
    for (size_t k = 0; k < g.kp; k += 4) {
      const uint8_t* step = panel + k * width;
      __m512i b[NB];
      for (int j = 0; j < NB; ++j) b[j] = _mm512_loadu_si512(step + 64 * j);
      for (int i = 0; i < MR; ++i) {
        int32_t word;
        std::memcpy(&word, a + i * stride + k, 4);
        const __m512i x = _mm512_set1_epi32(word);
        for (int j = 0; j < NB; ++j) {
          // vpdpbusd multiplies unsigned bytes (first) by signed ones (second).
          acc[i][j] = kSigned ? DotBytes(acc[i][j], b[j], x) : DotBytes(acc[i][j], x, b[j]);
        }
      }
    }
    // Columns outer: each 16-column block's output-stage constants are loaded once for the tile's
    // rows (byte stores may alias anything, so the compiler would reload them per row otherwise).
    int32_t row_terms[MR];
    uint8_t* rows_out[MR];
    for (int i = 0; i < MR; ++i) {
      row_terms[i] = g.row_terms[i];
      rows_out[i] = g.c + i * g.c_stride;
    }
    const bool any_left_shift = g.stage->any_left_shift;
    for (int j = 0; j < NB; ++j) {
      const int col = n0 + 16 * j;
      const StageRegs regs = LoadStage(*g.stage, col);
      const __mmask16 store_mask = FirstLanes16(g.n - col);
      for (int i = 0; i < MR; ++i) {
        const __m128i bytes =
            Requantize<kUp>(_mm512_add_epi32(acc[i][j], _mm512_set1_epi32(row_terms[i])), regs, any_left_shift);
        _mm_mask_storeu_epi8(rows_out[i] + col, store_mask, bytes);
      }
    }
  }
};

// ---- Depthwise, 32 channels per block: two taps' inputs interleaved as int16 pairs, multiplied
// by (w - zw) pairs and accumulated with vpdpwssd (exact: |products| < 2^16, so a pair sum fits
// int32, and the accumulation wraps as the reference's int32 sums do).

constexpr int kDwBlock = 32;

// Two taps' 32 channels (all valid, or the first `m` of them), widened to int16: the zero point
// is in the column term (dw_zero_point_in_column_term), so the raw values are multiplied.
template <bool kSigned, bool kFull>
inline __m512i WidenTap(const uint8_t* p, __mmask32 m) {
  const __m256i bytes = kFull ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)) : _mm256_maskz_loadu_epi8(m, p);
  return kSigned ? _mm512_cvtepi8_epi16(bytes) : _mm512_cvtepu8_epi16(bytes);
}

// Pixels [0, pixels) of one 32-channel block, two at a time (four independent accumulators).
template <bool kSigned, bool kUp, bool kFull>
void DwBlock(const QDwArgs& a, int c0, const uint8_t* w_block, __mmask32 m, int valid) {
  const __m512i first = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i second = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const StageRegs r0 = LoadStage(*a.stage, c0);
  const StageRegs r1 = LoadStage(*a.stage, c0 + 16);
  const bool any_left_shift = a.stage->any_left_shift;
  const __mmask16 m0 = FirstLanes16(valid);
  const __mmask16 m1 = valid > 16 ? FirstLanes16(valid - 16) : 0;
  const int taps = a.taps;
  auto finish = [&](__m512i lo, __m512i hi, uint8_t* out) {
    const __m128i out0 = Requantize<kUp>(_mm512_permutex2var_epi32(lo, first, hi), r0, any_left_shift);
    const __m128i out1 = Requantize<kUp>(_mm512_permutex2var_epi32(lo, second, hi), r1, any_left_shift);
    if (kFull) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), out0);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), out1);
    } else {
      _mm_mask_storeu_epi8(out, m0, out0);
      _mm_mask_storeu_epi8(out + 16, m1, out1);
    }
  };
  int p = 0;
  for (; p + 2 <= a.pixels; p += 2) {
    const uint8_t* const* in_a = a.in + static_cast<size_t>(p) * taps;
    const uint8_t* const* in_b = in_a + taps;
    __m512i lo_a = _mm512_setzero_si512(), hi_a = _mm512_setzero_si512();
    __m512i lo_b = _mm512_setzero_si512(), hi_b = _mm512_setzero_si512();
    const uint8_t* w = w_block;
    for (int t = 0; t < taps; t += 2, w += 128) {
      const __m512i w_lo = _mm512_loadu_si512(w);
      const __m512i w_hi = _mm512_loadu_si512(w + 64);
      const __m512i a0 = WidenTap<kSigned, kFull>(in_a[t] + c0, m);
      const __m512i a1 = WidenTap<kSigned, kFull>(in_a[t + 1] + c0, m);
      const __m512i b0 = WidenTap<kSigned, kFull>(in_b[t] + c0, m);
      const __m512i b1 = WidenTap<kSigned, kFull>(in_b[t + 1] + c0, m);
      lo_a = DotWords(lo_a, _mm512_unpacklo_epi16(a0, a1), w_lo);
      hi_a = DotWords(hi_a, _mm512_unpackhi_epi16(a0, a1), w_hi);
      lo_b = DotWords(lo_b, _mm512_unpacklo_epi16(b0, b1), w_lo);
      hi_b = DotWords(hi_b, _mm512_unpackhi_epi16(b0, b1), w_hi);
    }
    finish(lo_a, hi_a, a.out + static_cast<size_t>(p) * a.channels + c0);
    finish(lo_b, hi_b, a.out + static_cast<size_t>(p + 1) * a.channels + c0);
  }
  if (p < a.pixels) {
    const uint8_t* const* in_a = a.in + static_cast<size_t>(p) * taps;
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
    const uint8_t* w = w_block;
    for (int t = 0; t < taps; t += 2, w += 128) {
      const __m512i a0 = WidenTap<kSigned, kFull>(in_a[t] + c0, m);
      const __m512i a1 = WidenTap<kSigned, kFull>(in_a[t + 1] + c0, m);
      lo = DotWords(lo, _mm512_unpacklo_epi16(a0, a1), _mm512_loadu_si512(w));
      hi = DotWords(hi, _mm512_unpackhi_epi16(a0, a1), _mm512_loadu_si512(w + 64));
    }
    finish(lo, hi, a.out + static_cast<size_t>(p) * a.channels + c0);
  }
}

template <bool kSigned, bool kUp>
struct DwImpl {
  static void Run(const QDwArgs& a) {
    ForEachDepthwiseBlock<kDwBlock>(a, [](const QDwArgs& group, int c0, const uint8_t* w_block) {
      const int valid = std::min(kDwBlock, group.channels - c0);
      if (valid == kDwBlock) {
        DwBlock<kSigned, kUp, true>(group, c0, w_block, ~__mmask32{0}, valid);
      } else {
        DwBlock<kSigned, kUp, false>(group, c0, w_block, (__mmask32{1} << valid) - 1, valid);
      }
    });
  }
};

// 16 bytes as int32 lanes (a named function: GCC warns of the ABI of a lambda returning a vector).
template <bool kSigned>
inline __m512i WidenWords(__m128i bytes) {
  return kSigned ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
}

// An 8-bit ADD, 16 pairs at a time in registers (quant_kernels.h, add_arith): no table, so
// nothing to fetch from memory but the inputs.
template <bool kSigned>
void AddArith(const uint8_t* a, const uint8_t* b, int64_t n, const QuantKernels::AddStages& st, uint8_t* out) {
  const StageRegs r1 = LoadStage(*st.input1, 0);
  const StageRegs r2 = LoadStage(*st.input2, 0);
  const StageRegs ro = LoadStage(*st.output, 0);
  const bool left1 = st.input1->any_left_shift, left2 = st.input2->any_left_shift;
  const bool left_out = st.output->any_left_shift;
  const __m512i offset1 = _mm512_set1_epi32(st.input1_offset);
  const __m512i offset2 = _mm512_set1_epi32(st.input2_offset);
  const __m128i shift = _mm_cvtsi32_si128(st.left_shift);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = FirstLanes16(static_cast<int>(std::min<int64_t>(n - i, 16)));
    const __m512i va =
        _mm512_sll_epi32(_mm512_add_epi32(WidenWords<kSigned>(_mm_maskz_loadu_epi8(m, a + i)), offset1), shift);
    const __m512i vb =
        _mm512_sll_epi32(_mm512_add_epi32(WidenWords<kSigned>(_mm_maskz_loadu_epi8(m, b + i)), offset2), shift);
    const __m512i sum = _mm512_add_epi32(Scale<false>(va, r1, left1), Scale<false>(vb, r2, left2));
    _mm_mask_storeu_epi8(out + i, m, Requantize<false>(sum, ro, left_out));
  }
}

// 16 pairs per step: the two bytes make a 16-bit index, and vpgatherdd reads the 4-byte word at
// each (the table's padding keeps the last ones in bounds); the low byte is the entry.
void LookupPairs(const uint8_t* a, const uint8_t* b, int64_t n, const uint8_t* table, uint8_t* out) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i hi = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m512i lo = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    const __m512i index = _mm512_or_si512(_mm512_slli_epi32(hi, 8), lo);
    const __m512i words = _mm512_i32gather_epi32(index, table, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(words));
  }
  qisa_scalar::LookupPairs(a + i, b + i, n - i, table, out + i);
}

}  // namespace

const QuantKernels* Table() {
  static const QuantKernels table = [] {
    QuantKernels t = TiledTable<Tile, kMr, kBlocks, 16, DwImpl>(
        "avx512vnni", PackedBSize, PackB, RowSums, DepthwisePairsPackedSize<kDwBlock>, PackDepthwisePairs<kDwBlock>);
    t.dw_zero_point_in_column_term = true;
    t.lookup_pairs = LookupPairs;
    t.add_arith = AddArithForSign<AddArith<true>, AddArith<false>>;
    return t;
  }();
  return &table;
}

}  // namespace qisa_avx512
}  // namespace optimized
}  // namespace touchstone

TS_AVX512_TARGET_END

#endif  // __x86_64__
