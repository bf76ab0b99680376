// AVX2 quantized microkernels, for x86-64 CPUs with AVX2 but no AVX-512 VNNI (QuantKernelsFor
// checks). Bytes are widened to int16 and multiplied in pairs with vpmaddwd, which is exact here
// (|products| < 2^16); vpmaddubsw would saturate. Enabled per function (target pragma).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/isa_target.h"
#include "runtime/kernels/optimized/quant_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_TARGET_BEGIN("avx2,avx,fma")

namespace touchstone {
namespace optimized {
namespace qisa_avx2 {
namespace {

constexpr int kMr = 4;      // rows per GEMM call
constexpr int kBlocks = 2;  // 8-column vectors per panel
constexpr int kPanel = 8 * kBlocks;

inline __m256i Load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// The output stage's constants for 8 columns, loaded once where a kernel requantizes many
// elements of the same columns (see qisa_avx512::StageRegs).
struct StageRegs {
  __m256i col_term, multiplier, multiplier_odd, left, right, round_a, round_b, overflow_value;
  __m256i offset, act_min, act_max;
  bool any_left_shift;
};

// Always inlined, so that the loads of constants a kernel does not use are dropped.
__attribute__((always_inline)) inline StageRegs LoadStage(const QuantOutputStage& s, int col) {
  StageRegs r;
  r.col_term = Load(s.col_term + col);
  const int c = col & s.column_mask;  // the constants' column (0 for a layer of one scale)
  r.multiplier = Load(s.multiplier + c);
  r.multiplier_odd = _mm256_srli_epi64(r.multiplier, 32);
  r.left = Load(s.left_shift + c);
  r.right = Load(s.right_shift + c);
  r.round_a = Load(s.round_a + c);
  r.round_b = Load(s.round_b + c);
  r.overflow_value = Load(s.overflow_value + c);
  r.offset = _mm256_set1_epi32(s.output_offset);
  r.act_min = _mm256_set1_epi32(s.act_min);
  r.act_max = _mm256_set1_epi32(s.act_max);
  r.any_left_shift = s.any_left_shift;
  return r;
}

// See qisa_avx512::Scale; the same arithmetic on 8 lanes: the column term, the left shift, the
// high multiply and the rounding right shift.
template <bool kUp>
inline __m256i Scale(__m256i v, const StageRegs& r) {
  v = _mm256_add_epi32(v, r.col_term);
  if (r.any_left_shift) v = _mm256_sllv_epi32(v, r.left);
  const __m256i round = _mm256_set1_epi64x(int64_t{1} << 30);
  const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(v, r.multiplier), round), 31);
  const __m256i odd =
      _mm256_slli_epi64(_mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(v, 32), r.multiplier_odd), round), 1);
  const __m256i high = _mm256_blend_epi32(even, odd, 0xAA);
  __m256i result;
  if (kUp) {
    const __m256i overflow = _mm256_cmpgt_epi32(high, r.round_b);
    result = _mm256_srav_epi32(_mm256_add_epi32(high, r.round_a), r.right);
    result = _mm256_blendv_epi8(result, r.overflow_value, overflow);
  } else {
    const __m256i remainder = _mm256_and_si256(high, r.round_a);
    const __m256i negative = _mm256_srai_epi32(high, 31);  // -1 where < 0
    const __m256i threshold = _mm256_sub_epi32(r.round_b, negative);
    const __m256i up = _mm256_cmpgt_epi32(remainder, threshold);
    result = _mm256_sub_epi32(_mm256_srav_epi32(high, r.right), up);
  }
  return result;
}

// See qisa_avx512::Requantize: Scale, then the zero point and the clamp. Returns the 8 output bytes
// in the low 64 bits.
template <bool kUp>
inline __m128i Requantize(__m256i v, const StageRegs& r) {
  __m256i result = Scale<kUp>(v, r);
  result = _mm256_add_epi32(result, r.offset);
  result = _mm256_max_epi32(result, r.act_min);
  result = _mm256_min_epi32(result, r.act_max);
  // The low byte of each lane (in range, so exact), gathered into the low 8 bytes.
  const __m256i bytes =
      _mm256_shuffle_epi8(result, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8,
                                                   12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1)));
}

template <bool kUp>
inline __m128i Requantize(__m256i v, const QuantOutputStage& s, int col) {
  return Requantize<kUp>(v, LoadStage(s, col));
}

inline void Store8(uint8_t* out, __m128i bytes, int n) {
  if (n >= 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
  } else if (n > 0) {
    uint8_t tmp[16];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(tmp), bytes);
    std::memcpy(out, tmp, n);
  }
}

size_t PackedBSize(int n, size_t kp) { return static_cast<size_t>((n + 7) / 8 * 8) * kp * 2; }
size_t NarrowPackedBSize(int n, size_t kp) { return static_cast<size_t>((n + 7) / 8 * 8) * kp; }

// Panels of 16 columns (the last one 8 where that is enough); within a panel, for each group of 4
// k and each 8-column block, the columns' (k, k + 2) pairs, then their (k + 1, k + 3), as Weight
// (int16, or int8 for the narrow layout). The first k bytes of each column get row_factor added (0
// for pack_b); the padding stays 0.
template <typename Weight>
void PackPanels(const uint8_t* d, int n, size_t k, size_t kp, bool d_signed, int32_t row_factor, uint8_t* packed) {
  Weight* out = reinterpret_cast<Weight*>(packed);
  // Within each 128-bit half (4 columns of 4 bytes): their (k, k + 2) bytes, then (k + 1, k + 3).
  const __m256i pairs = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12,
                                         14, 1, 3, 5, 7, 9, 11, 13, 15);
  const __m256i factor = _mm256_set1_epi16(static_cast<int16_t>(row_factor));
  for (int n0 = 0; n0 < n; n0 += kPanel) {
    const int blocks = std::min(kBlocks, (n - n0 + 7) / 8);
    for (size_t k0 = 0; k0 < kp; k0 += 4) {
      for (int j = 0; j < blocks; ++j) {
        const int first_col = n0 + 8 * j;
        if (sizeof(Weight) == 2 && first_col + 8 <= n && k0 + 4 <= k) {
          // A whole block of 4 k: the 8 columns' 4 bytes each, regrouped by parity in two shuffles,
          // widened to int16 and offset by the row factor (wrapping as the plain loop's cast does).
          int32_t words[8];
          for (int c = 0; c < 8; ++c) std::memcpy(&words[c], d + static_cast<size_t>(first_col + c) * kp + k0, 4);
          __m256i v = _mm256_shuffle_epi8(Load(words), pairs);
          v = _mm256_permute4x64_epi64(v, 0xD8);  // halves' even pairs first, then their odd pairs
          const __m128i even = _mm256_castsi256_si128(v);
          const __m128i odd = _mm256_extracti128_si256(v, 1);
          const __m256i even16 = d_signed ? _mm256_cvtepi8_epi16(even) : _mm256_cvtepu8_epi16(even);
          const __m256i odd16 = d_signed ? _mm256_cvtepi8_epi16(odd) : _mm256_cvtepu8_epi16(odd);
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_add_epi16(even16, factor));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 16), _mm256_add_epi16(odd16, factor));
          out += 32;
          continue;
        }
        for (int parity = 0; parity < 2; ++parity) {
          for (int col = n0 + 8 * j; col < n0 + 8 * j + 8; ++col) {
            for (size_t i = parity; i < 4; i += 2) {
              int32_t value = 0;
              if (col < n && k0 + i < k) {
                const uint8_t byte = d[static_cast<size_t>(col) * kp + k0 + i];
                value = (d_signed ? static_cast<int8_t>(byte) : byte) + row_factor;
              }
              *out++ = static_cast<Weight>(value);
            }
          }
        }
      }
    }
  }
}

void PackBWithRowFactor(const uint8_t* d, int n, size_t k, size_t kp, bool d_signed, int32_t row_factor,
                        uint8_t* packed) {
  PackPanels<int16_t>(d, n, k, kp, d_signed, row_factor, packed);
}

void PackBNarrow(const uint8_t* d, int n, size_t k, size_t kp, bool d_signed, int32_t row_factor, uint8_t* packed) {
  PackPanels<int8_t>(d, n, k, kp, d_signed, row_factor, packed);
}

void PackB(const uint8_t* d, int n, size_t kp, bool d_signed, uint8_t* packed) {
  PackBWithRowFactor(d, n, kp, kp, d_signed, 0, packed);
}

void RowSums(const uint8_t* a, size_t a_stride, int rows, size_t k, bool is_signed, int32_t* sums) {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  for (int r = 0; r < rows; ++r) {
    const uint8_t* row = a + r * a_stride;
    __m256i total = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= k; i += 32) {
      __m256i v = Load(row + i);
      if (is_signed) v = _mm256_xor_si256(v, flip);
      total = _mm256_add_epi64(total, _mm256_sad_epu8(v, _mm256_setzero_si256()));
    }
    int64_t lanes[4];
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), total);
    int64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    if (is_signed) sum -= int64_t{128} * static_cast<int64_t>(i);
    for (; i < k; ++i) sum += is_signed ? static_cast<int8_t>(row[i]) : row[i];
    sums[r] = static_cast<int32_t>(sum);
  }
}

// The 16 int16 weights of one k pair of one 8-column block, from PackB's int16 layout or
// PackBNarrow's int8 one (sign-extended as loaded).
template <bool kNarrow>
inline __m256i LoadWeights(const uint8_t* p) {
  if (kNarrow) return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return Load(p);
}

template <bool kNarrow>
struct TileOf {
  static constexpr size_t kWeightBytes = kNarrow ? 1 : 2;

  template <bool kSigned, bool kUp, int MR, int NB>
  struct Tile {
    static void Run(const QGemmArgs& g, int n0) {
      constexpr int kHalfBlockBytes = 16 * kWeightBytes;  // one parity of one block: 16 weights
      const uint8_t* panel = g.packed_b + static_cast<size_t>(n0) * g.kp * kWeightBytes;
      __m256i acc[MR][NB];
      for (int i = 0; i < MR; ++i) {
        for (int j = 0; j < NB; ++j) acc[i][j] = _mm256_setzero_si256();
      }
      const __m256i low_bytes = _mm256_set1_epi32(0x00FF00FF);
      for (size_t k = 0; k < g.kp; k += 4) {
        const uint8_t* step = panel + k * NB * 8 * kWeightBytes;
        __m256i even_w[NB], odd_w[NB];
        for (int j = 0; j < NB; ++j) {
          even_w[j] = LoadWeights<kNarrow>(step + 2 * kHalfBlockBytes * j);
          odd_w[j] = LoadWeights<kNarrow>(step + 2 * kHalfBlockBytes * j + kHalfBlockBytes);
        }
        for (int i = 0; i < MR; ++i) {
          int32_t word;
          std::memcpy(&word, g.a + i * g.a_stride + k, 4);
          const __m256i x = _mm256_set1_epi32(word);
          // Bytes 0 and 2, and 1 and 3, of each group of four as int16 pairs.
          const __m256i even = kSigned ? _mm256_srai_epi16(_mm256_slli_epi16(x, 8), 8) : _mm256_and_si256(x, low_bytes);
          const __m256i odd = kSigned ? _mm256_srai_epi16(x, 8) : _mm256_srli_epi16(x, 8);
          for (int j = 0; j < NB; ++j) {
            acc[i][j] = _mm256_add_epi32(
                acc[i][j], _mm256_add_epi32(_mm256_madd_epi16(even, even_w[j]), _mm256_madd_epi16(odd, odd_w[j])));
          }
        }
      }
      // Column block by column block, so that each block's stage constants are loaded once for all
      // rows (the byte stores may alias them): with a short k (MobileNet v1 0.25's pointwise layers)
      // this epilogue is half of the tile.
#pragma GCC unroll 4
      for (int j = 0; j < NB; ++j) {
        const int col = n0 + 8 * j;
        const StageRegs stage = LoadStage(*g.stage, col);
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
          const __m256i sum = _mm256_add_epi32(acc[i][j], _mm256_set1_epi32(g.row_terms[i]));
          Store8(g.c + i * g.c_stride + col, Requantize<kUp>(sum, stage), g.n - col);
        }
      }
    }
  };
};

template <bool kSigned, bool kUp, int MR, int NB>
using Tile = TileOf<false>::Tile<kSigned, kUp, MR, NB>;
template <bool kSigned, bool kUp, int MR, int NB>
using NarrowTile = TileOf<true>::Tile<kSigned, kUp, MR, NB>;

// ---- Depthwise, 16 channels per block (see qisa_avx512's).

constexpr int kDwBlock = 16;

template <bool kSigned>
inline __m256i Widen(const uint8_t* p, int valid) {
  __m128i bytes;
  if (valid >= 16) {
    bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  } else if (valid == 8) {
    // 8 channels (MobileNet v1 0.25's first layers): a copy through memory per tap made the
    // depthwise layer 30% of the model.
    bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  } else if ((valid & 3) == 0) {
    const __m128i words = _mm_cmpgt_epi32(_mm_set1_epi32(valid / 4), _mm_setr_epi32(0, 1, 2, 3));
    bytes = _mm_maskload_epi32(reinterpret_cast<const int*>(p), words);
  } else {
    uint8_t tmp[16] = {};
    std::memcpy(tmp, p, valid);
    bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(tmp));
  }
  return kSigned ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
}

// One block of up to 16 channels over a group of pixels (ForEachDepthwiseBlock).
template <bool kSigned, bool kUp>
void DwBlock(const QDwArgs& g, int c0, const uint8_t* w_block) {
  const int valid = std::min(kDwBlock, g.channels - c0);
  const __m256i zero_point = _mm256_set1_epi16(static_cast<int16_t>(g.input_zero_point));
  const StageRegs low_stage = LoadStage(*g.stage, c0);
  const StageRegs high_stage = LoadStage(*g.stage, c0 + 8);  // in the stage's column padding if past n
  for (int p = 0; p < g.pixels; ++p) {
    const uint8_t* const* in = g.in + static_cast<size_t>(p) * g.taps;
    const uint8_t* w = w_block;
    __m256i lo = _mm256_setzero_si256();
    __m256i hi = _mm256_setzero_si256();
    for (int t = 0; t < g.taps; t += 2) {
      const __m256i x0 = _mm256_sub_epi16(Widen<kSigned>(in[t] + c0, valid), zero_point);
      const __m256i x1 = _mm256_sub_epi16(Widen<kSigned>(in[t + 1] + c0, valid), zero_point);
      lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), Load(w)));
      hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), Load(w + 32)));
      w += 64;
    }
    uint8_t* out = g.out + static_cast<size_t>(p) * g.channels + c0;
    Store8(out, Requantize<kUp>(_mm256_permute2x128_si256(lo, hi, 0x20), low_stage), valid);
    if (valid > 8) Store8(out + 8, Requantize<kUp>(_mm256_permute2x128_si256(lo, hi, 0x31), high_stage), valid - 8);
  }
}

template <bool kSigned, bool kUp>
struct DwImpl {
  static void Run(const QDwArgs& a) { ForEachDepthwiseBlock<kDwBlock>(a, DwBlock<kSigned, kUp>); }
};

// The low 8 bytes as int32 lanes (a named function: GCC warns of the ABI of a lambda returning a
// vector).
template <bool kSigned>
inline __m256i WidenWords(__m128i bytes) {
  return kSigned ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
}

// An 8-bit ADD, 8 pairs at a time in registers (quant_kernels.h, add_arith; see qisa_avx512's):
// no 64 KiB table to build at Prepare (~2.7 ms a node) or to fetch from.
template <bool kSigned>
void AddArith(const uint8_t* a, const uint8_t* b, int64_t n, const QuantKernels::AddStages& st, uint8_t* out) {
  // In registers for the whole loop: the byte stores may alias the stages, so the compiler would
  // otherwise reload them at every step.
  const StageRegs r1 = LoadStage(*st.input1, 0);
  const StageRegs r2 = LoadStage(*st.input2, 0);
  const StageRegs ro = LoadStage(*st.output, 0);
  const __m256i offset1 = _mm256_set1_epi32(st.input1_offset);
  const __m256i offset2 = _mm256_set1_epi32(st.input2_offset);
  const __m128i shift = _mm_cvtsi32_si128(st.left_shift);
  auto add8 = [&](__m128i bytes_a, __m128i bytes_b) {
    const __m256i va = _mm256_sll_epi32(_mm256_add_epi32(WidenWords<kSigned>(bytes_a), offset1), shift);
    const __m256i vb = _mm256_sll_epi32(_mm256_add_epi32(WidenWords<kSigned>(bytes_b), offset2), shift);
    return Requantize<false>(_mm256_add_epi32(Scale<false>(va, r1), Scale<false>(vb, r2)), ro);
  };
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i bytes_a = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i));
    const __m128i bytes_b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + i));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), add8(bytes_a, bytes_b));
  }
  if (i < n) {
    const int valid = static_cast<int>(n - i);
    uint8_t tail_a[16] = {}, tail_b[16] = {};
    std::memcpy(tail_a, a + i, static_cast<size_t>(valid));
    std::memcpy(tail_b, b + i, static_cast<size_t>(valid));
    Store8(out + i,
           add8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(tail_a)),
                _mm_loadl_epi64(reinterpret_cast<const __m128i*>(tail_b))),
           valid);
  }
}

}  // namespace

const QuantKernels* Table() {
  static const QuantKernels table = [] {
    QuantKernels t = TiledTable<Tile, kMr, kBlocks, 8, DwImpl>(
        "avx2", PackedBSize, PackB, RowSums, DepthwisePairsPackedSize<kDwBlock>, PackDepthwisePairs<kDwBlock>);
    t.lookup_pairs = qisa_scalar::LookupPairs;
    t.pack_b_with_row_factor = PackBWithRowFactor;
    t.narrow_packed_b_size = NarrowPackedBSize;
    t.pack_b_narrow = PackBNarrow;
    t.gemm_narrow_u8 = GemmPanels<NarrowTile, kMr, kBlocks, 8, false>;
    t.gemm_narrow_s8 = GemmPanels<NarrowTile, kMr, kBlocks, 8, true>;
    t.add_arith = AddArithForSign<AddArith<true>, AddArith<false>>;
    return t;
  }();
  return &table;
}

}  // namespace qisa_avx2
}  // namespace optimized
}  // namespace touchstone

TS_TARGET_END

#endif  // __x86_64__
