// Integer microkernels for the quantized (uint8 / int8) CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED kernels, one set per instruction set: AVX-512 VNNI (vpdpbusd), AVX2 (vpmaddwd),
// arm64 NEON with dot products (SDOT / UDOT) or without (vmlal), and portable C++. Each computes exactly what the
// reference kernels compute (see docs/kernels.md, "How the 8-bit results stay byte-identical"):
//
// - Products are summed in int32 that wraps, which is the low 32 bits of the reference's sum, the
//   part its output stage keeps.
// - A GEMM multiplies the raw input bytes x by the weights d = w ^ 0x80 (uint8 weights become
//   int8, int8 weights uint8: the one operand order vpdpbusd takes), and adds back the zero-point
//   terms: with w = d + delta (delta = 128 for uint8, -128 for int8) and beta = delta - zw,
//     sum (x - zx)(w - zw) = sum x*d + beta * sum x - zx * sum d - K * zx * beta,
//   a row term (beta * the row's input sum) and a column term (bias - zx * sum d - K zx beta,
//   packed once in Prepare). Padding taps read the input zero point, so they add nothing.
// - The output stage is the reference's MultiplyByQuantizedMultiplier (ties away from zero) or
//   ruy's rounding-up variant, in integer SIMD, lane for lane the same arithmetic.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANT_KERNELS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANT_KERNELS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/count_dispatch.h"
#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

// Column (output channel) arrays are padded with zeros to a multiple of this many entries, so the
// kernels load whole vectors of them.
constexpr int kQuantColumnPadding = 64;

// The columns of a uniform stage (the same multiplier in every column, BuildUniformOutputStage):
// its users (add_arith) load one vector of columns from column 0, 16 int32 lanes at most.
constexpr int kUniformStageColumns = 16;

// How accumulators become outputs, per output channel (arrays of padded length).
struct QuantOutputStage {
  const int32_t* col_term = nullptr;     // added to every accumulator of the column (bias included)
  const int32_t* multiplier = nullptr;   // QuantizeMultiplier's, never INT32_MIN
  const int32_t* shift = nullptr;        // its exponent (the scalar kernels use it as is)
  const int32_t* left_shift = nullptr;   // the count the stage shifts left by (masked to 0..31
                                         // for the ties-away stage; >= 32 gives 0 for ruy's)
  const int32_t* right_shift = nullptr;  // 0..31
  // Per-column constants of the rounding right shift, so the kernels need not derive them: for
  // ties away from zero, (1 << right) - 1 and its half; for ruy's ties up, the nudge
  // 1 << (right - 1) (0 without a shift), INT32_MAX - nudge, and the value an overflowing nudge
  // gives, 1 << (31 - right).
  const int32_t* round_a = nullptr;
  const int32_t* round_b = nullptr;
  const int32_t* overflow_value = nullptr;
  // The high multiply and the rounding right shift as one rounding of the 64-bit product p = x * m
  // (used by the AVX-512 set): the result is (p + round64 + (p < -2^30 ? negative_fix64 : 0)) >>
  // shift64, arithmetic, with round64 = 2^30 + nudge * 2^31, shift64 = 31 + right and
  // negative_fix64 = -2^31 for the ties-away stage with right > 0 (else 0); nudge = 2^(right - 1),
  // 0 without a right shift. Per 16-column block, the 8 even columns' entries, then the 8 odd ones'.
  const int64_t* round64 = nullptr;
  const int64_t* shift64 = nullptr;
  const int64_t* negative_fix64 = nullptr;
  // Every array but col_term is read at (column & column_mask): -1 for a constant per column, 0
  // where every column has the same (a layer of one scale: the arrays then hold
  // kUniformStageColumns identical entries).
  int column_mask = -1;
  bool any_left_shift = false;  // else the kernels skip the left shift
  int32_t output_offset = 0;
  int32_t act_min = 0, act_max = 0;
  bool rounding_up = false;  // ruy's right shift (ties up), else ties away from zero
};

// One GEMM call: rows (at most mr) of K input bytes (padded to kp, a multiple of 4, with zeros)
// times the packed columns [n_begin, n_end), written to c[row * c_stride + column].
struct QGemmArgs {
  const uint8_t* a = nullptr;
  size_t a_stride = 0;
  int rows = 0;
  const int32_t* row_terms = nullptr;  // one per row
  const uint8_t* packed_b = nullptr;   // every column's panel (pack_b's layout)
  size_t kp = 0;
  int n = 0;                   // columns in all
  int n_begin = 0, n_end = 0;  // n_begin a multiple of the panel width
  const QuantOutputStage* stage = nullptr;
  uint8_t* c = nullptr;
  size_t c_stride = 0;
};

// `pixels` consecutive output pixels of a depthwise convolution with depth multiplier 1: pixel p's
// in[p * taps + t] points at tap t's input pixel (or at a row of input zero points), taps padded
// to an even count; its outputs go to out + p * channels.
struct QDwArgs {
  const uint8_t* const* in = nullptr;
  int pixels = 1;
  int taps = 0;  // even
  int channels = 0;
  int32_t input_zero_point = 0;       // subtracted per tap unless the set folds it (below)
  const uint8_t* packed_w = nullptr;  // dw_pack's layout
  const QuantOutputStage* stage = nullptr;
  uint8_t* out = nullptr;
};

struct QuantKernels {
  const char* name = "";
  int mr = 1;     // GEMM rows per call
  int panel = 1;  // columns per packed panel (n_begin granularity for threads)
  // Packed size and layout of the weights d, given as [n][kp] bytes (int8 when d_signed, i.e.
  // for uint8 inputs; uint8 otherwise).
  size_t (*packed_b_size)(int n, size_t kp) = nullptr;
  void (*pack_b)(const uint8_t* d, int n, size_t kp, bool d_signed, uint8_t* packed) = nullptr;
  // Where not null: pack_b with row_factor added to each column's first k values (the padding
  // stays 0), for a set that widens the weights to 16 bits (d + row_factor is the weight minus its
  // zero point, within +-255). The GEMM's row terms are then 0: no row sums at Eval.
  void (*pack_b_with_row_factor)(const uint8_t* d, int n, size_t k, size_t kp, bool d_signed, int32_t row_factor,
                                 uint8_t* packed) = nullptr;
  // Where not null: pack_b_with_row_factor's layout with int8 in place of int16, for weights whose
  // d + row_factor all fit int8 (weight minus zero point: always for int8 weights of zero point
  // 0), and the GEMMs that read it (widening as they load). Half the bytes to stream: a GEMM of few
  // rows, bound by reading its weights, takes them (quantized.cc, kFewRows and kNarrowMinWideBytes).
  size_t (*narrow_packed_b_size)(int n, size_t kp) = nullptr;
  void (*pack_b_narrow)(const uint8_t* d, int n, size_t k, size_t kp, bool d_signed, int32_t row_factor,
                        uint8_t* packed) = nullptr;
  void (*gemm_narrow_u8)(const QGemmArgs& args) = nullptr;
  void (*gemm_narrow_s8)(const QGemmArgs& args) = nullptr;
  // Sums of `rows` rows of k bytes (signed or unsigned), a_stride apart.
  void (*row_sums)(const uint8_t* a, size_t a_stride, int rows, size_t k, bool is_signed, int32_t* sums) = nullptr;
  // GEMMs for uint8 inputs (int8 weights d) and int8 inputs (uint8 weights d).
  void (*gemm_u8)(const QGemmArgs& args) = nullptr;
  void (*gemm_s8)(const QGemmArgs& args) = nullptr;
  // Depthwise: weights w - zw as int16 [taps (even)][channels].
  size_t (*dw_packed_size)(int channels, int taps) = nullptr;
  void (*dw_pack)(const int16_t* w, int channels, int taps, uint8_t* packed) = nullptr;
  void (*dw_u8)(const QDwArgs& args) = nullptr;
  void (*dw_s8)(const QDwArgs& args) = nullptr;
  // True when the depthwise kernels multiply the raw input values and expect the column term to
  // hold -input_zero_point * sum over taps of (w - zw) (Prepare adds it): the same int32 sum
  // modulo 2^32, since padding taps read the zero point.
  bool dw_zero_point_in_column_term = false;
  // out[i] = table[a[i] * 256 + b[i]] for i < n; the table has kLookupTablePadding readable bytes
  // past its 65536 entries (the vector form gathers 4-byte words).
  void (*lookup_pairs)(const uint8_t* a, const uint8_t* b, int64_t n, const uint8_t* table, uint8_t* out) = nullptr;
  // An 8-bit ADD computed (reference::QuantizedAddParams): each input's value plus its offset,
  // shifted left by left_shift (wrapping), through its stage's multiplier (the stage's column 0
  // in every column, no offset); the sum through the output stage. Null where the set has none
  // (the ADD then uses lookup_pairs).
  struct AddStages {
    const QuantOutputStage* input1 = nullptr;
    const QuantOutputStage* input2 = nullptr;
    const QuantOutputStage* output = nullptr;
    int32_t input1_offset = 0, input2_offset = 0;
    int left_shift = 0;
    bool is_signed = false;
  };
  void (*add_arith)(const uint8_t* a, const uint8_t* b, int64_t n, const AddStages& stages, uint8_t* out) = nullptr;
};

constexpr int kLookupTablePadding = 4;

// The quantized set that goes with a float microkernel set (one override hook for both,
// SelectKernelSet / TOUCHSTONE_CPU_KERNELS): "avx512" takes AVX-512 VNNI where the CPU has it,
// "avx_fma" AVX2 where it has it, "neon" the dot-product NEON set where the CPU has ARMv8.2 dot
// products (HWCAP_ASIMDDP) and plain NEON elsewhere, the others the portable set.
const QuantKernels& QuantKernelsFor(const MicroKernels& set);

namespace qisa_scalar {
const QuantKernels* Table();
// The portable lookup_pairs (AVX2 gathers are no faster than it; the AVX-512 one ends with it).
void LookupPairs(const uint8_t* a, const uint8_t* b, int64_t n, const uint8_t* table, uint8_t* out);
}  // namespace qisa_scalar

// The vector sets' depthwise weight layout (dw_packed_size / dw_pack), kBlock channels per block
// (32 for AVX-512, 16 for AVX2): per block and pair of taps, two vectors of kBlock / 2 int16 pairs
// (tap t, tap t + 1); element pair i of the low (high) vector holds channel 8 * (i / 4) + i % 4
// (+ 4), the order vpunpcklwd / vpunpckhwd leave a block's channels in. Plain C++, Prepare only;
// instantiated for 16 and 32.
template <int kBlock>
size_t DepthwisePairsPackedSize(int channels, int taps);
template <int kBlock>
void PackDepthwisePairs(const int16_t* w, int channels, int taps, uint8_t* packed);

// The vector sets' depthwise order: groups of pixels; within a group, channel blocks outer and
// pixels inner, so that a block's weights and output-stage constants stay in registers and L1 over
// the group (byte stores may alias the constants: per pixel they would be reloaded), and the
// group's input rows stay in cache across the blocks. Calls block(group, c0, the block's weights).
template <int kBlock, typename Block>
void ForEachDepthwiseBlock(const QDwArgs& a, Block block) {
  constexpr int kPixelGroup = 64;
  const size_t block_bytes = DepthwisePairsPackedSize<kBlock>(kBlock, a.taps);
  for (int p0 = 0; p0 < a.pixels; p0 += kPixelGroup) {
    QDwArgs group = a;
    group.pixels = std::min(kPixelGroup, a.pixels - p0);
    group.in = a.in + static_cast<size_t>(p0) * a.taps;
    group.out = a.out + static_cast<size_t>(p0) * a.channels;
    for (int c0 = 0; c0 < a.channels; c0 += kBlock) {
      block(group, c0, a.packed_w + static_cast<size_t>(c0 / kBlock) * block_bytes);
    }
  }
}

// ---- What the sets' GEMM and depthwise kernels share: the choice of a tile or instance per call.
// Integer code only: the instances are compiled in the sets' own files, with their instruction
// sets, and are called, not inlined.

using QTileFn = void (*)(const QGemmArgs& args, int n0);

// Tile<kSigned, kUp, rows, blocks>::Run for rows in [1, kMr] and blocks in [1, kBlocks] (each
// count past its range the largest).
template <template <bool, bool, int, int> class Tile, int kMr, int kBlocks, bool kSigned, bool kUp>
QTileFn TileFor(int rows, int blocks) {
  return WithCount<1, kMr>(rows, [blocks](auto mr) {
    return WithCount<1, kBlocks>(
        blocks, [](auto nb) -> QTileFn { return Tile<kSigned, kUp, decltype(mr)::value, decltype(nb)::value>::Run; });
  });
}

// A set's gemm_u8 (kSigned false) or gemm_s8: the call's columns in panels of kBlocks blocks of
// kBlockColumns columns, each panel through the tile for the call's rows, the blocks that hold
// columns, and the stage's rounding (ruy's rounding up, or ties away from zero).
template <template <bool, bool, int, int> class Tile, int kMr, int kBlocks, int kBlockColumns, bool kSigned>
void GemmPanels(const QGemmArgs& g) {
  constexpr int kPanel = kBlocks * kBlockColumns;
  for (int n0 = g.n_begin; n0 < g.n_end; n0 += kPanel) {
    const int blocks = std::min(kBlocks, (g.n - n0 + kBlockColumns - 1) / kBlockColumns);
    const QTileFn tile = g.stage->rounding_up ? TileFor<Tile, kMr, kBlocks, kSigned, true>(g.rows, blocks)
                                              : TileFor<Tile, kMr, kBlocks, kSigned, false>(g.rows, blocks);
    tile(g, n0);
  }
}

// A set's dw_u8 (kSigned false) or dw_s8: Dw<kSigned, kUp>::Run for the stage's rounding (ruy's
// rounding up, or ties away from zero).
template <template <bool, bool> class Dw, bool kSigned>
void DwForRounding(const QDwArgs& args) {
  if (args.stage->rounding_up) {
    Dw<kSigned, true>::Run(args);
  } else {
    Dw<kSigned, false>::Run(args);
  }
}

// A vector set's table: its name; mr, panel and gemm_u8 / gemm_s8 through GemmPanels over Tile
// (kMr rows, panels of kBlocks blocks of kBlockColumns columns) with the weights' packing and row
// sums given; dw_u8 / dw_s8 through DwForRounding over Dw with its weights' packing given. The set
// fills in the rest.
template <template <bool, bool, int, int> class Tile, int kMr, int kBlocks, int kBlockColumns,
          template <bool, bool> class Dw>
QuantKernels TiledTable(const char* name, decltype(QuantKernels::packed_b_size) packed_b_size,
                        decltype(QuantKernels::pack_b) pack_b, decltype(QuantKernels::row_sums) row_sums,
                        decltype(QuantKernels::dw_packed_size) dw_packed_size,
                        decltype(QuantKernels::dw_pack) dw_pack) {
  QuantKernels t;
  t.name = name;
  t.mr = kMr;
  t.panel = kBlocks * kBlockColumns;
  t.gemm_u8 = GemmPanels<Tile, kMr, kBlocks, kBlockColumns, false>;
  t.gemm_s8 = GemmPanels<Tile, kMr, kBlocks, kBlockColumns, true>;
  t.packed_b_size = packed_b_size;
  t.pack_b = pack_b;
  t.row_sums = row_sums;
  t.dw_packed_size = dw_packed_size;
  t.dw_pack = dw_pack;
  t.dw_u8 = DwForRounding<Dw, false>;
  t.dw_s8 = DwForRounding<Dw, true>;
  return t;
}

using QAddArithFn = void (*)(const uint8_t* a, const uint8_t* b, int64_t n, const QuantKernels::AddStages& stages,
                             uint8_t* out);

// A set's add_arith from its int8 and uint8 instances.
template <QAddArithFn kSigned, QAddArithFn kUnsigned>
void AddArithForSign(const uint8_t* a, const uint8_t* b, int64_t n, const QuantKernels::AddStages& stages,
                     uint8_t* out) {
  if (stages.is_signed) {
    kSigned(a, b, n, stages, out);
  } else {
    kUnsigned(a, b, n, stages, out);
  }
}

#if defined(__x86_64__)
namespace qisa_avx2 {
const QuantKernels* Table();
}
namespace qisa_avx512 {
const QuantKernels* Table();
}
#endif
#if defined(__aarch64__)
// Plain NEON ("neon": every arm64 CPU) and ARMv8.2 dot products ("neon+dotprod": call only where
// CpuHasDotProd()).
namespace qisa_neon {
const QuantKernels* Table();
}
namespace qisa_neon_dotprod {
const QuantKernels* Table();
}
bool CpuHasDotProd();
#endif

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANT_KERNELS_H_
