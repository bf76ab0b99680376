// Every quantized microkernel set this CPU runs (quant_kernels.h: AVX-512 VNNI, AVX2, NEON with and
// without dot products) against the portable set, call by call and byte for byte: GEMMs of every
// row count and of column and depth counts across the panels and k groups, depthwise blocks with
// odd channel counts, the 8-bit ADD over all 65536 input pairs, row sums; random and extreme
// bytes, wrapping column and row terms, and output stages with every shift from -31 to 33, tied
// and INT32_MIN / INT32_MAX accumulators, both roundings. Unlike the one-op model tests, this
// reaches both NEON sets on a CPU with dot products.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/optimized/quantized.h"

namespace touchstone {
namespace optimized {
namespace {

// The vector sets this CPU runs.
std::vector<const QuantKernels*> VectorSets() {
  std::vector<const QuantKernels*> sets;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) sets.push_back(qisa_avx2::Table());
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
    sets.push_back(qisa_avx512::Table());
  }
#endif
#if defined(__aarch64__)
  sets.push_back(qisa_neon::Table());
  if (CpuHasDotProd()) sets.push_back(qisa_neon_dotprod::Table());
#endif
  return sets;
}

const QuantKernels& Scalar() { return *qisa_scalar::Table(); }

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

std::vector<uint8_t> RandomBytes(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(dist(rng));
  return v;
}

int32_t RandomInt32(std::mt19937& rng) { return static_cast<int32_t>(rng()); }

// Per-column multipliers and shifts: QuantizeMultiplier's range [2^30, 2^31) and its ends, 0, 1,
// negative ones, every shift from -31 to 33 (left shifts of 32 and more included). `typical`
// keeps to the shifts real layers have (-19 .. -6), which leave most outputs unclamped, so that a
// wrong sum shows.
nn::OutputRequantization RandomRequantization(std::mt19937& rng, int n, bool is_signed, bool typical) {
  nn::OutputRequantization rq;
  const int32_t special[] = {kMax, 1 << 30, (1 << 30) + 1, 0, 1, -kMax, -(1 << 30), 1518500250};
  for (int c = 0; c < n; ++c) {
    const int pick = static_cast<int>(rng() % 12);
    rq.multiplier.push_back(pick < 8 && !typical ? special[pick]
                                                 : (1 << 30) + static_cast<int32_t>(rng() % (1u << 30)));
    rq.shift.push_back(typical ? -6 - static_cast<int>(rng() % 14) : static_cast<int>(rng() % 65) - 31);
  }
  // Now and then a narrow activation range.
  const int lo = is_signed ? -128 : 0;
  rq.activation_min = lo + (rng() % 4 == 0 ? static_cast<int>(rng() % 100) : 0);
  rq.activation_max = lo + 255 - (rng() % 4 == 0 ? static_cast<int>(rng() % 100) : 0);
  return rq;
}

// The same output stage for the portable set and for `set` (which may want extra column terms).
struct Stages {
  QuantOutput scalar, vector;
};

// ---- GEMM

struct GemmCase {
  int rows = 1, n = 1;
  size_t k = 1;
  bool is_signed = false, rounding_up = false;
  bool zero_inputs = false;    // every input byte 0: the accumulators are the row and column terms
  bool extreme_bytes = false;  // inputs and weights at the ends of their ranges
  bool typical = false;        // small row and column terms, typical shifts (RandomRequantization)
  size_t extra_stride = 0;     // bytes between rows beyond kp
  // Nonzero: `set` packs it into the weights (pack_b_with_row_factor) and runs with row terms 0;
  // the portable set gets it as row terms (row_factor * the row's input sum).
  int32_t row_factor = 0;
  // With row_factor: `set` packs the narrow (int8) layout (pack_b_narrow, gemm_narrow_*), the
  // weights drawn so that each d + row_factor fits int8.
  bool narrow = false;
};

void CheckGemm(const QuantKernels& set, const GemmCase& gc, uint32_t seed,
               const std::vector<int32_t>* row_terms_in = nullptr, const std::vector<int64_t>* col_terms_in = nullptr,
               const nn::OutputRequantization* rq_in = nullptr) {
  std::mt19937 rng(seed);
  const size_t kp = (gc.k + 3) / 4 * 4;
  const size_t stride = kp + gc.extra_stride;
  std::vector<uint8_t> a = RandomBytes(rng, stride * gc.rows);
  std::vector<uint8_t> d = RandomBytes(rng, static_cast<size_t>(gc.n) * kp);
  if (gc.extreme_bytes) {
    const uint8_t ends[] = {0x00, 0xFF, 0x80, 0x7F};
    for (uint8_t& x : a) x = ends[rng() % 4];
    for (uint8_t& x : d) x = ends[rng() % 4];
  }
  if (gc.narrow) {
    // d + row_factor within [-128, 127], d a byte of its type (int8 for uint8 inputs, else uint8).
    const int32_t d_low = gc.is_signed ? 0 : -128;
    const int32_t low = std::max(-128, d_low + gc.row_factor) - gc.row_factor;
    const int32_t high = std::min(127, d_low + 255 + gc.row_factor) - gc.row_factor;
    for (uint8_t& x : d) {
      const int32_t value = gc.extreme_bytes && rng() % 2 == 0 ? (rng() % 2 == 0 ? low : high)
                                                               : low + static_cast<int32_t>(rng() % (high - low + 1));
      x = static_cast<uint8_t>(value);
    }
  }
  if (gc.zero_inputs) std::fill(a.begin(), a.end(), 0);
  for (int r = 0; r < gc.rows; ++r) {
    for (size_t i = gc.k; i < kp; ++i) a[r * stride + i] = 0;
  }
  for (int c = 0; c < gc.n; ++c) {
    for (size_t i = gc.k; i < kp; ++i) d[c * kp + i] = 0;
  }
  // Wrapping terms, or ones of the size real zero points give.
  const int term_bits = gc.typical ? 16 : 32;
  auto random_term = [&] {
    return static_cast<int32_t>(static_cast<uint32_t>(rng()) >> (32 - term_bits)) -
           (gc.typical ? (1 << (term_bits - 1)) : 0);
  };
  std::vector<int32_t> row_terms(gc.rows);
  for (int32_t& t : row_terms) t = random_term();
  if (row_terms_in != nullptr) row_terms = *row_terms_in;
  std::vector<int64_t> col_terms(gc.n);
  for (int64_t& t : col_terms) t = random_term();
  if (col_terms_in != nullptr) col_terms = *col_terms_in;
  const nn::OutputRequantization rq =
      rq_in != nullptr ? *rq_in : RandomRequantization(rng, gc.n, gc.is_signed, gc.typical);
  const int32_t output_offset = static_cast<int32_t>(rng() % 256) - 128;
  QuantOutput output;
  ASSERT_TRUE(BuildOutputStage(rq, gc.rounding_up, col_terms, output_offset, &output));

  std::vector<uint8_t> expected(static_cast<size_t>(gc.rows) * gc.n + 1, 0xA5);
  std::vector<uint8_t> got(expected.size(), 0xA5);
  std::vector<int32_t> folded_row_terms(gc.rows, 0);
  if (gc.row_factor != 0) {
    for (int r = 0; r < gc.rows; ++r) {
      int64_t sum = 0;
      for (size_t i = 0; i < gc.k; ++i) {
        const uint8_t byte = a[r * stride + i];
        sum += gc.is_signed ? static_cast<int8_t>(byte) : byte;
      }
      row_terms[r] = static_cast<int32_t>(static_cast<uint32_t>(sum * gc.row_factor));
    }
  }
  auto run = [&](const QuantKernels& k, bool fold, std::vector<uint8_t>* c) {
    const bool narrow = fold && gc.narrow;
    std::vector<uint8_t> packed(narrow ? k.narrow_packed_b_size(gc.n, kp) : k.packed_b_size(gc.n, kp));
    if (narrow) {
      k.pack_b_narrow(d.data(), gc.n, gc.k, kp, /*d_signed=*/!gc.is_signed, gc.row_factor, packed.data());
    } else if (fold) {
      k.pack_b_with_row_factor(d.data(), gc.n, gc.k, kp, /*d_signed=*/!gc.is_signed, gc.row_factor, packed.data());
    } else {
      k.pack_b(d.data(), gc.n, kp, /*d_signed=*/!gc.is_signed, packed.data());
    }
    const auto gemm =
        narrow ? (gc.is_signed ? k.gemm_narrow_s8 : k.gemm_narrow_u8) : (gc.is_signed ? k.gemm_s8 : k.gemm_u8);
    QGemmArgs g;
    g.a = a.data();
    g.a_stride = stride;
    g.rows = gc.rows;
    g.row_terms = fold ? folded_row_terms.data() : row_terms.data();
    g.packed_b = packed.data();
    g.kp = kp;
    g.n = gc.n;
    g.stage = &output.stage;
    g.c = c->data();
    g.c_stride = gc.n;
    // Two column ranges split at a panel boundary, as threads take them.
    const int split = std::min(gc.n, k.panel);
    g.n_begin = 0;
    g.n_end = split;
    gemm(g);
    if (split < gc.n) {
      g.n_begin = split;
      g.n_end = gc.n;
      gemm(g);
    }
  };
  run(Scalar(), false, &expected);
  run(set, gc.row_factor != 0, &got);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(expected[i], got[i]) << set.name << ": rows " << gc.rows << " n " << gc.n << " k " << gc.k
                                   << (gc.is_signed ? " int8" : " uint8")
                                   << (gc.rounding_up ? " ruy rounding" : " ties away") << " row factor "
                                   << gc.row_factor << (gc.narrow ? " narrow" : "") << ", byte " << i << " (row "
                                   << i / gc.n << ", column " << i % gc.n << "), seed " << seed;
  }
}

TEST(QuantKernelsTest, SetsChecked) {
  for (const QuantKernels* set : VectorSets()) std::printf("checking %s\n", set->name);
#if defined(__aarch64__)
  const std::vector<const QuantKernels*> sets = VectorSets();
  EXPECT_EQ(sets.size(), CpuHasDotProd() ? 2u : 1u);
#endif
}

TEST(QuantKernelsTest, GemmShapes) {
  uint32_t seed = 1;
  for (const QuantKernels* set : VectorSets()) {
    for (bool is_signed : {false, true}) {
      for (bool rounding_up : {false, true}) {
        for (int rows = 1; rows <= set->mr; ++rows) {
          for (int n : {1, 3, 4, 8, 9, 15, 16, 17, 31, 33, 64, 70}) {
            for (size_t k : {1, 3, 4, 5, 8, 12, 16, 17, 20, 31, 32, 36, 64, 100}) {
              GemmCase gc;
              gc.rows = rows;
              gc.n = n;
              gc.k = k;
              gc.is_signed = is_signed;
              gc.rounding_up = rounding_up;
              gc.extra_stride = (seed % 3 == 0) ? 5 : 0;
              gc.typical = seed % 2 == 0;
              ASSERT_NO_FATAL_FAILURE(CheckGemm(*set, gc, seed++));
            }
          }
        }
      }
    }
  }
}

// The weights' zero point packed into the weights (quantized.cc, PackPendingGemm): every row
// factor a zero point in the type's range gives (128 - zw for uint8 inputs, -128 - zw for int8),
// against the portable set computing it as row terms.
TEST(QuantKernelsTest, GemmRowFactorInWeights) {
  uint32_t seed = 3000;
  int sets_checked = 0;
  for (const QuantKernels* set : VectorSets()) {
    if (set->pack_b_with_row_factor == nullptr) continue;
    ++sets_checked;
    for (bool is_signed : {false, true}) {
      const std::vector<int32_t> factors =
          is_signed ? std::vector<int32_t>{-255, -129, -128, -1} : std::vector<int32_t>{-127, -1, 1, 3, 128};
      for (int32_t row_factor : factors) {
        for (size_t k : {1, 3, 8, 27, 100, 1001}) {
          for (int rows : {1, 3, set->mr}) {
            GemmCase gc;
            gc.rows = rows;
            gc.n = 21;
            gc.k = k;
            gc.is_signed = is_signed;
            gc.extreme_bytes = seed % 3 == 0;
            gc.typical = seed % 2 == 0;
            gc.extra_stride = seed % 4 == 0 ? 5 : 0;
            gc.row_factor = row_factor;
            ASSERT_NO_FATAL_FAILURE(CheckGemm(*set, gc, seed++));
          }
        }
      }
    }
  }
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_GT(sets_checked, 0);  // the AVX2 set folds it
  }
#endif
}

// Weights packed a few panels at a time (PackFlippedWeights, as the GEMM's first Invoke packs them)
// give the bytes of flipping every column first and packing them at once, in every layout a set has,
// for column counts within one panel, across several and past the last whole one.
TEST(QuantKernelsTest, WeightsPackedInChunksAsAtOnce) {
  std::mt19937 rng(7100);
  std::vector<const QuantKernels*> sets = VectorSets();
  sets.push_back(&Scalar());
  for (const QuantKernels* set : sets) {
    std::vector<WeightLayout> layouts = {WeightLayout::kPlain};
    if (set->pack_b_with_row_factor != nullptr) layouts.push_back(WeightLayout::kWithRowFactor);
    if (set->pack_b_narrow != nullptr) layouts.push_back(WeightLayout::kNarrow);
    for (WeightLayout layout : layouts) {
      for (int n : {1, set->panel - 1, 3 * set->panel + 5}) {
        if (n < 1) continue;
        for (size_t k : {3, 28, 101}) {
          const size_t kp = (k + 3) / 4 * 4;
          const bool d_signed = n % 2 == 0;
          const int32_t row_factor = layout == WeightLayout::kPlain ? 0 : -3;
          std::vector<uint8_t> weights = RandomBytes(rng, static_cast<size_t>(n) * k);
          std::vector<uint8_t> d(static_cast<size_t>(n) * kp, 0);
          for (int c = 0; c < n; ++c) {
            for (size_t i = 0; i < k; ++i) d[c * kp + i] = weights[c * k + i] ^ 0x80;
          }
          std::vector<uint8_t> at_once(PackedWeightsSize(*set, layout, n, kp), 0);
          if (layout == WeightLayout::kPlain) set->pack_b(d.data(), n, kp, d_signed, at_once.data());
          if (layout == WeightLayout::kWithRowFactor) {
            set->pack_b_with_row_factor(d.data(), n, k, kp, d_signed, row_factor, at_once.data());
          }
          if (layout == WeightLayout::kNarrow) {
            set->pack_b_narrow(d.data(), n, k, kp, d_signed, row_factor, at_once.data());
          }
          for (int chunk : {set->panel, 2 * set->panel}) {
            std::vector<uint8_t> chunked(at_once.size(), 0xee);
            PackFlippedWeights(*set, layout, weights.data(), n, k, kp, d_signed, row_factor, chunk, chunked.data());
            ASSERT_EQ(chunked, at_once) << set->name << " layout " << static_cast<int>(layout) << " n " << n << " k "
                                        << k << " chunk " << chunk;
          }
        }
      }
    }
  }
}

// The narrow (int8) weight layout: weights minus their zero point that fit int8 (every row factor
// a zero point gives, the weights drawn to fit), against the portable set computing the row terms.
TEST(QuantKernelsTest, GemmNarrowWeights) {
  uint32_t seed = 5000;
  int sets_checked = 0;
  for (const QuantKernels* set : VectorSets()) {
    if (set->pack_b_narrow == nullptr) continue;
    ++sets_checked;
    for (bool is_signed : {false, true}) {
      const std::vector<int32_t> factors =
          is_signed ? std::vector<int32_t>{-255, -129, -128, -1} : std::vector<int32_t>{-127, -1, 1, 128, 255};
      for (int32_t row_factor : factors) {
        for (size_t k : {1, 3, 8, 27, 100, 1001}) {
          for (int rows = 1; rows <= set->mr; ++rows) {
            for (int n : {1, 8, 9, 16, 21, 40}) {
              GemmCase gc;
              gc.rows = rows;
              gc.n = n;
              gc.k = k;
              gc.is_signed = is_signed;
              gc.rounding_up = seed % 5 < 2;
              gc.extreme_bytes = seed % 3 == 0;
              gc.typical = seed % 2 == 0;
              gc.extra_stride = seed % 4 == 0 ? 5 : 0;
              gc.row_factor = row_factor;
              gc.narrow = true;
              ASSERT_NO_FATAL_FAILURE(CheckGemm(*set, gc, seed++));
            }
          }
        }
      }
    }
  }
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_GT(sets_checked, 0);  // the AVX2 set has it
  }
#endif
}

TEST(QuantKernelsTest, GemmExtremeBytesAndDeepRows) {
  uint32_t seed = 1000;
  for (const QuantKernels* set : VectorSets()) {
    for (bool is_signed : {false, true}) {
      for (bool rounding_up : {false, true}) {
        for (size_t k : {4, 68, 1000, 4099}) {
          for (int rows : {1, set->mr}) {
            GemmCase gc;
            gc.rows = rows;
            gc.n = 37;
            gc.k = k;
            gc.is_signed = is_signed;
            gc.rounding_up = rounding_up;
            gc.extreme_bytes = true;
            gc.typical = seed % 2 == 0;
            ASSERT_NO_FATAL_FAILURE(CheckGemm(*set, gc, seed++));
          }
        }
      }
    }
  }
}

// Zero inputs, so each accumulator is its row term plus its column term: INT32_MIN, INT32_MAX,
// 0, +-1 and values whose high multiply by 2^30 (exactly v / 2) lands on a rounding tie of the
// right shift, or one off it, across all shifts.
TEST(QuantKernelsTest, GemmOutputStageEdges) {
  uint32_t seed = 2000;
  for (const QuantKernels* set : VectorSets()) {
    for (bool is_signed : {false, true}) {
      for (bool rounding_up : {false, true}) {
        for (int shift = -31; shift <= 33; ++shift) {
          const int right = shift < 0 ? -shift : 0;
          std::vector<int64_t> values = {kMin, kMin + 1, kMax, kMax - 1, 0, 1, -1, 2, -2};
          if (right > 0) {
            for (int64_t odd : {1, 3, -1, -3, 1001, -1001}) {
              const int64_t tie = odd * (int64_t{1} << (right - 1));
              for (int64_t delta : {-1, 0, 1}) {
                const int64_t v = 2 * (tie + delta);
                if (v >= kMin && v <= kMax) values.push_back(v);
              }
            }
          }
          const int n = static_cast<int>(values.size());
          for (int32_t multiplier : {1 << 30, kMax, 1518500250}) {
            GemmCase gc;
            gc.rows = set->mr;
            gc.n = n;
            gc.k = 4;
            gc.is_signed = is_signed;
            gc.rounding_up = rounding_up;
            gc.zero_inputs = true;
            // Row r adds r - 1 to every column (wrapping), so the rows land around the values.
            std::vector<int32_t> row_terms(gc.rows);
            for (int r = 0; r < gc.rows; ++r) row_terms[r] = r == 0 ? 0 : r - 2;
            nn::OutputRequantization rq;
            rq.multiplier.assign(n, multiplier);
            rq.shift.assign(n, shift);
            rq.activation_min = is_signed ? -128 : 0;
            rq.activation_max = is_signed ? 127 : 255;
            ASSERT_NO_FATAL_FAILURE(CheckGemm(*set, gc, seed++, &row_terms, &values, &rq));
          }
        }
      }
    }
  }
}

// A single-scale layer keeps one multiplier for all its channels (SetUniform); its stage keeps the
// per-column constants for one block of columns (column_mask 0), and every column reads there what
// it reads from the same multiplier written out per channel.
TEST(QuantKernelsTest, UniformRequantizationBuildsThePerChannelStage) {
  const std::vector<int64_t> col_terms = {5, -7, 0, 123456, -1, 2, 3, 4, 9, 10, 11, 12, 13, 14, 15, 16, 17};
  const int n = static_cast<int>(col_terms.size());
  for (bool rounding_up : {false, true}) {
    for (int shift : {-31, -12, 0, 3, 33}) {
      nn::OutputRequantization uniform, per_channel;
      uniform.SetUniform(1518500250, shift);
      per_channel.SetPerChannel(n);
      for (int c = 0; c < n; ++c) {
        per_channel.multiplier[c] = 1518500250;
        per_channel.shift[c] = shift;
      }
      uniform.activation_min = per_channel.activation_min = -100;
      uniform.activation_max = per_channel.activation_max = 90;
      for (int c = 0; c < n; ++c) {
        ASSERT_EQ(uniform.MultiplierOf(c), per_channel.MultiplierOf(c));
        ASSERT_EQ(uniform.ShiftOf(c), per_channel.ShiftOf(c));
      }
      QuantOutput a, b;
      ASSERT_TRUE(BuildOutputStage(uniform, rounding_up, col_terms, 3, &a));
      ASSERT_TRUE(BuildOutputStage(per_channel, rounding_up, col_terms, 3, &b));
      EXPECT_EQ(a.stage.column_mask, 0);
      EXPECT_EQ(b.stage.column_mask, -1);
      EXPECT_LT(a.words.size() + 2 * a.wide.size(), b.words.size() + 2 * b.wide.size());
      // What a kernel reads for column c: a 16-column block's lanes from (block & column_mask), the
      // 64-bit constants in their even / odd slots.
      for (int c = 0; c < n; ++c) {
        const int lane = c % 16;
        auto at = [&](const QuantOutputStage& st, const int32_t* array) { return array[((c - lane) & st.column_mask) + lane]; };
        auto at64 = [&](const QuantOutputStage& st, const int64_t* array) {
          return array[((c - lane) & st.column_mask) + (lane % 2) * 8 + lane / 2];
        };
        const QuantOutputStage& x = a.stage;
        const QuantOutputStage& y = b.stage;
        EXPECT_EQ(x.col_term[c], y.col_term[c]);
        EXPECT_EQ(at(x, x.multiplier), at(y, y.multiplier)) << c;
        EXPECT_EQ(at(x, x.shift), at(y, y.shift)) << c;
        EXPECT_EQ(at(x, x.left_shift), at(y, y.left_shift)) << c;
        EXPECT_EQ(at(x, x.right_shift), at(y, y.right_shift)) << c;
        EXPECT_EQ(at(x, x.round_a), at(y, y.round_a)) << c;
        EXPECT_EQ(at(x, x.round_b), at(y, y.round_b)) << c;
        EXPECT_EQ(at(x, x.overflow_value), at(y, y.overflow_value)) << c;
        EXPECT_EQ(at64(x, x.round64), at64(y, y.round64)) << c;
        EXPECT_EQ(at64(x, x.shift64), at64(y, y.shift64)) << c;
        EXPECT_EQ(at64(x, x.negative_fix64), at64(y, y.negative_fix64)) << c;
      }
      EXPECT_EQ(a.stage.any_left_shift, b.stage.any_left_shift);
    }
  }
}

TEST(QuantKernelsTest, RowSums) {
  std::mt19937 rng(3);
  for (const QuantKernels* set : VectorSets()) {
    for (bool is_signed : {false, true}) {
      for (size_t k : {0, 1, 4, 15, 16, 17, 33, 64, 100, 5000}) {
        const int rows = 3;
        const size_t stride = k + 3;
        std::vector<uint8_t> a = RandomBytes(rng, stride * rows);
        std::vector<int32_t> expected(rows), got(rows);
        Scalar().row_sums(a.data(), stride, rows, k, is_signed, expected.data());
        set->row_sums(a.data(), stride, rows, k, is_signed, got.data());
        EXPECT_EQ(expected, got) << set->name << " k " << k << (is_signed ? " int8" : " uint8");
      }
    }
  }
}

// ---- Depthwise

void CheckDepthwise(const QuantKernels& set, int channels, int taps, int pixels, bool is_signed, bool rounding_up,
                    bool typical, uint32_t seed) {
  std::mt19937 rng(seed);
  const int32_t zero_point = is_signed ? static_cast<int32_t>(rng() % 256) - 128 : static_cast<int32_t>(rng() % 256);
  // Input rows, one of them the zero-point row padding taps read.
  const int input_rows = 9;
  std::vector<uint8_t> input = RandomBytes(rng, static_cast<size_t>(input_rows) * channels);
  std::memset(input.data(), static_cast<uint8_t>(zero_point), channels);
  std::vector<const uint8_t*> in(static_cast<size_t>(pixels) * taps);
  for (const uint8_t*& p : in) p = input.data() + (rng() % input_rows) * channels;
  // Weights w - zw: [-255, 255], the ends included; the padding tap's (if any) 0.
  std::vector<int16_t> w(static_cast<size_t>(taps) * channels);
  for (int16_t& x : w) {
    const int pick = static_cast<int>(rng() % 8);
    x = static_cast<int16_t>(pick == 0 ? 255 : pick == 1 ? -255 : static_cast<int>(rng() % 511) - 255);
  }
  std::vector<int64_t> bias(channels);
  for (int64_t& b : bias) b = RandomInt32(rng) / (typical ? 65536 : 4);
  const nn::OutputRequantization rq = RandomRequantization(rng, channels, is_signed, typical);
  const int32_t output_offset = static_cast<int32_t>(rng() % 256) - 128;

  auto run = [&](const QuantKernels& k, std::vector<uint8_t>* out) {
    std::vector<int64_t> col_terms = bias;
    if (k.dw_zero_point_in_column_term) {
      for (int c = 0; c < channels; ++c) {
        int64_t sum = 0;
        for (int t = 0; t < taps; ++t) sum += w[static_cast<size_t>(t) * channels + c];
        col_terms[c] -= int64_t{zero_point} * sum;
      }
    }
    QuantOutput output;
    ASSERT_TRUE(BuildOutputStage(rq, rounding_up, col_terms, output_offset, &output));
    std::vector<uint8_t> packed(k.dw_packed_size(channels, taps));
    k.dw_pack(w.data(), channels, taps, packed.data());
    QDwArgs a;
    a.in = in.data();
    a.pixels = pixels;
    a.taps = taps;
    a.channels = channels;
    a.input_zero_point = zero_point;
    a.packed_w = packed.data();
    a.stage = &output.stage;
    a.out = out->data();
    (is_signed ? k.dw_s8 : k.dw_u8)(a);
  };
  std::vector<uint8_t> expected(static_cast<size_t>(pixels) * channels + 1, 0x5A);
  std::vector<uint8_t> got(expected.size(), 0x5A);
  run(Scalar(), &expected);
  run(set, &got);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(expected[i], got[i]) << set.name << ": channels " << channels << " taps " << taps << " pixels " << pixels
                                   << (is_signed ? " int8" : " uint8") << ", byte " << i << ", seed " << seed;
  }
}

TEST(QuantKernelsTest, Depthwise) {
  uint32_t seed = 5000;
  for (const QuantKernels* set : VectorSets()) {
    for (bool is_signed : {false, true}) {
      for (bool rounding_up : {false, true}) {
        for (int channels : {1, 3, 4, 8, 12, 15, 16, 17, 33, 40, 64, 100}) {
          for (int taps : {2, 4, 10, 26}) {
            for (int pixels : {1, 3, 70}) {
              const bool typical = seed % 2 == 0;
              ASSERT_NO_FATAL_FAILURE(
                  CheckDepthwise(*set, channels, taps, pixels, is_signed, rounding_up, typical, seed++));
            }
          }
        }
      }
    }
  }
}

// ---- 8-bit ADD

TEST(QuantKernelsTest, AddArithEveryPair) {
  std::mt19937 rng(11);
  for (const QuantKernels* set : VectorSets()) {
    if (set->add_arith == nullptr) continue;
    for (bool is_signed : {false, true}) {
      for (int trial = 0; trial < 12; ++trial) {
        // As ADD's Prepare makes them: input multipliers below 1/2 (shifts -1 and below), an
        // output multiplier around 2^-20 .. 2^-15, offsets the negated zero points.
        const int32_t m1 = (1 << 30) + static_cast<int32_t>(rng() % (1u << 30));
        const int32_t m2 = trial == 0 ? kMax : (1 << 30) + static_cast<int32_t>(rng() % (1u << 30));
        const int32_t mo = trial == 1 ? (1 << 30) : (1 << 30) + static_cast<int32_t>(rng() % (1u << 30));
        const int s1 = -1 - static_cast<int>(rng() % 8), s2 = -1 - static_cast<int>(rng() % 8);
        const int so = trial == 2 ? 0 : -12 - static_cast<int>(rng() % 20);
        const int32_t zero1 = static_cast<int32_t>(rng() % 256) - (is_signed ? 128 : 0);
        const int32_t zero2 = static_cast<int32_t>(rng() % 256) - (is_signed ? 128 : 0);
        const int32_t zero_out = static_cast<int32_t>(rng() % 256) - (is_signed ? 128 : 0);
        const int32_t lo = is_signed ? -128 : 0;
        const int32_t act_min = trial % 3 == 0 ? lo + 20 : lo, act_max = trial % 4 == 0 ? lo + 200 : lo + 255;
        QuantOutput st1, st2, sto;
        ASSERT_TRUE(BuildUniformOutputStage(m1, s1, 0, kMin, kMax, &st1));
        ASSERT_TRUE(BuildUniformOutputStage(m2, s2, 0, kMin, kMax, &st2));
        ASSERT_TRUE(BuildUniformOutputStage(mo, so, zero_out, act_min, act_max, &sto));
        QuantKernels::AddStages stages;
        stages.input1 = &st1.stage;
        stages.input2 = &st2.stage;
        stages.output = &sto.stage;
        stages.input1_offset = -zero1;
        stages.input2_offset = -zero2;
        stages.left_shift = 20;
        stages.is_signed = is_signed;
        // Every pair, then a tail that is not a whole vector.
        const int64_t n = 65536 + 13;
        std::vector<uint8_t> a(n), b(n), got(n + 1, 0x33);
        for (int64_t i = 0; i < n; ++i) {
          a[i] = static_cast<uint8_t>((i >> 8) & 0xFF);
          b[i] = static_cast<uint8_t>(i & 0xFF);
        }
        set->add_arith(a.data(), b.data(), n, stages, got.data());
        namespace qu = quantization_util;
        for (int64_t i = 0; i < n; ++i) {
          const int32_t x1 = is_signed ? static_cast<int8_t>(a[i]) : a[i];
          const int32_t x2 = is_signed ? static_cast<int8_t>(b[i]) : b[i];
          const int32_t v1 = static_cast<int32_t>(static_cast<uint32_t>(x1 - zero1) << 20);
          const int32_t v2 = static_cast<int32_t>(static_cast<uint32_t>(x2 - zero2) << 20);
          const int32_t sum = qu::WrappingAdd(qu::MultiplyByQuantizedMultiplier(v1, m1, s1),
                                              qu::MultiplyByQuantizedMultiplier(v2, m2, s2));
          const int32_t out = qu::WrappingAdd(qu::MultiplyByQuantizedMultiplier(sum, mo, so), zero_out);
          const uint8_t expected = static_cast<uint8_t>(std::min(std::max(out, act_min), act_max));
          ASSERT_EQ(expected, got[i]) << set->name << " pair " << i << " trial " << trial;
        }
        ASSERT_EQ(got[n], 0x33) << set->name << " wrote past the end";
        // Short calls (a tail only).
        for (int64_t m : {1, 7, 15, 16, 17}) {
          std::vector<uint8_t> part(m + 1, 0x33);
          set->add_arith(a.data() + 1000, b.data() + 1000, m, stages, part.data());
          for (int64_t i = 0; i < m; ++i) ASSERT_EQ(part[i], got[1000 + i]) << set->name << " n " << m;
          ASSERT_EQ(part[m], 0x33) << set->name << " n " << m << " wrote past the end";
        }
      }
    }
  }
}

}  // namespace
}  // namespace optimized
}  // namespace touchstone
