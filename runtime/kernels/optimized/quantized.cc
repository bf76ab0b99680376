#include "runtime/kernels/optimized/quantized.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "runtime/c/builtin_op_data.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace optimized {
namespace {

constexpr int kMaxRowsPerTile = 8;
// A GEMM of at most this many rows is bound by reading its weights, which are then read once
// (EvalPanelMajor; the row terms are on the stack) and, where they fit and are many, narrow
// (QuantKernels::pack_b_narrow). With more rows, or weights that stay in L2 from one Invoke to the
// next (fc_qat's), widening them as they load costs more than the bytes it saves: a third more
// instructions in a one-row tile.
constexpr int64_t kFewRows = 32;
constexpr size_t kNarrowMinWideBytes = 256 * 1024;
// The packed weight bytes of a group of panels EvalPanelMajor keeps in L2 over the rows' tiles.
constexpr size_t kPanelMajorGroupBytes = 64 * 1024;
// The flipped weight bytes packed at a time (PackFlippedWeights): a layer's packing holds this
// much besides the packed copy, instead of a second whole copy.
constexpr size_t kFlipChunkBytes = 64 * 1024;

std::atomic<int64_t> g_prepared{0};
std::atomic<int64_t> g_narrow_packed{0};

int64_t RoundUp(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

int32_t Wrap(int64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }

bool IsQuantized8(TfLiteType type) { return type == kTfLiteUInt8 || type == kTfLiteInt8; }

// BuildStage's only refusals, checked at Prepare so that the first Eval cannot fail: every stored
// multiplier and shift (one per channel, or the one a single-scale layer keeps).
bool StageTakes(const nn::OutputRequantization& rq) {
  for (size_t i = 0; i < rq.multiplier.size(); ++i) {
    if (rq.multiplier[i] == INT32_MIN || rq.shift[i] < -31) return false;
  }
  return true;
}

// The stage arrays for n columns padded to a multiple of `padding`, column c's multiplier, shift and
// column term given by column(c, &multiplier, &shift, &col_term). With `uniform` (every column has
// column 0's multiplier and shift) the per-column constants but the column terms are stored for
// kUniformStageColumns columns only and read there whatever the column (QuantOutputStage::
// column_mask 0): 52 bytes a column fewer. False as BuildOutputStage says.
template <typename Column>
bool BuildStage(int n, int padding, bool uniform, bool rounding_up, int32_t output_offset, int32_t act_min,
                int32_t act_max, Column column, QuantOutput* out) {
  const size_t padded = RoundUp(std::max(n, 1), padding);
  const size_t constants = uniform ? static_cast<size_t>(kUniformStageColumns) : padded;
  out->words.assign(padded + constants * 7, 0);
  out->wide.assign(constants * 3, 0);
  int32_t* col_term = out->words.data();
  int32_t* multiplier = col_term + padded;
  int32_t* shift = multiplier + constants;
  int32_t* left_shift = shift + constants;
  int32_t* right_shift = left_shift + constants;
  int32_t* round_a = right_shift + constants;
  int32_t* round_b = round_a + constants;
  int32_t* overflow_value = round_b + constants;
  int64_t* round64 = out->wide.data();
  int64_t* shift64 = round64 + constants;
  int64_t* negative_fix64 = shift64 + constants;
  if (rounding_up) std::fill(round_b, round_b + constants, INT32_MAX);
  std::fill(round64, round64 + constants, int64_t{1} << 30);
  std::fill(shift64, shift64 + constants, 31);
  bool any_left_shift = false;
  // Column c's constants.
  auto set_constants = [&](int c, int32_t column_multiplier, int column_shift) {
    const int left = column_shift > 0 ? column_shift : 0;
    multiplier[c] = column_multiplier;
    shift[c] = column_shift;
    // ruy's stage makes a left shift of 32 or more 0 (as vpsllvd does); the reference's masks the
    // count as the x86 shift instruction does.
    left_shift[c] = rounding_up ? std::min(left, 32) : (left & 31);
    const int right = column_shift > 0 ? 0 : -column_shift;
    right_shift[c] = right;
    if (left_shift[c] != 0) any_left_shift = true;
    // Column c's slot in its 16-column block: the even columns first, then the odd ones.
    const size_t slot = static_cast<size_t>(c / 16 * 16 + (c % 2) * 8 + (c % 16) / 2);
    const int64_t nudge64 = right > 0 ? int64_t{1} << (right - 1) : 0;
    round64[slot] = (int64_t{1} << 30) + nudge64 * (int64_t{1} << 31);
    shift64[slot] = 31 + right;
    negative_fix64[slot] = !rounding_up && right > 0 ? -(int64_t{1} << 31) : 0;
    if (rounding_up) {
      const int32_t nudge = right > 0 ? int32_t{1} << (right - 1) : 0;
      round_a[c] = nudge;
      round_b[c] = INT32_MAX - nudge;
      overflow_value[c] = right > 0 ? static_cast<int32_t>(uint32_t{1} << (31 - right)) : 0;
    } else {
      const int32_t mask = static_cast<int32_t>((int64_t{1} << right) - 1);
      round_a[c] = mask;
      round_b[c] = mask >> 1;
    }
  };
  for (int c = 0; c < n; ++c) {
    int32_t column_multiplier;
    int column_shift;
    int64_t column_term;
    column(c, &column_multiplier, &column_shift, &column_term);
    if (column_multiplier == INT32_MIN || column_shift < -31) return false;
    col_term[c] = Wrap(column_term);
    if (!uniform) {
      set_constants(c, column_multiplier, column_shift);
    } else if (c == 0) {
      for (int u = 0; u < kUniformStageColumns; ++u) set_constants(u, column_multiplier, column_shift);
    }
  }
  QuantOutputStage& s = out->stage;
  s.col_term = col_term;
  s.multiplier = multiplier;
  s.shift = shift;
  s.left_shift = left_shift;
  s.right_shift = right_shift;
  s.round_a = round_a;
  s.round_b = round_b;
  s.overflow_value = overflow_value;
  s.round64 = round64;
  s.shift64 = shift64;
  s.negative_fix64 = negative_fix64;
  s.column_mask = uniform ? 0 : -1;
  s.any_left_shift = any_left_shift;
  s.output_offset = output_offset;
  s.act_min = act_min;
  s.act_max = act_max;
  s.rounding_up = rounding_up;
  return true;
}

}  // namespace

bool BuildOutputStage(const nn::OutputRequantization& rq, bool rounding_up, const std::vector<int64_t>& col_terms,
                      int32_t output_offset, QuantOutput* out) {
  return BuildStage(
      static_cast<int>(col_terms.size()), kQuantColumnPadding, /*uniform=*/rq.multiplier.size() == 1, rounding_up,
      output_offset, rq.activation_min, rq.activation_max,
      [&](int c, int32_t* multiplier, int* shift, int64_t* col_term) {
        *multiplier = rq.MultiplierOf(c);
        *shift = rq.ShiftOf(c);
        *col_term = col_terms[c];
      },
      out);
}

bool BuildUniformOutputStage(int32_t multiplier, int shift, int32_t offset, int32_t act_min, int32_t act_max,
                             QuantOutput* out) {
  return BuildStage(
      kUniformStageColumns, kUniformStageColumns, /*uniform=*/true, /*rounding_up=*/false, offset, act_min, act_max,
      [&](int, int32_t* column_multiplier, int* column_shift, int64_t* col_term) {
        *column_multiplier = multiplier;
        *column_shift = shift;
        *col_term = 0;
      },
      out);
}

namespace {

// Packs the weights [n][k] (bytes of the input's type) as d = w ^ 0x80 and derives the column
// terms: bias - zx * sum d - K * zx * beta (quant_kernels.h).
bool PrepareGemm(const MicroKernels& set, bool is_signed, const uint8_t* weights, int n, size_t k,
                 int32_t input_zero_point, int32_t weights_zero_point, const int32_t* bias,
                 const nn::OutputRequantization& rq, bool rq_lasts, bool rounding_up, int32_t output_offset,
                 QuantGemmState* s) {
  const QuantGemmState::PackedFrom from{weights,
                                        bias,
                                        n,
                                        k,
                                        input_zero_point,
                                        weights_zero_point,
                                        output_offset,
                                        rounding_up,
                                        is_signed,
                                        &QuantKernelsFor(set)};
  if (from == s->packed_from && (!s->packed_b.empty() || s->pending.pending)) return true;
  if (!StageTakes(rq)) return false;
  s->kernels = &QuantKernelsFor(set);
  s->is_signed = is_signed;
  s->n = n;
  s->k = k;
  s->kp = RoundUp(static_cast<int64_t>(k), 4);
  s->input_zero_point = input_zero_point;
  const int32_t delta = is_signed ? -128 : 128;
  s->row_factor = static_cast<int32_t>(int64_t{delta} - weights_zero_point);
  s->packed_b.clear();
  s->pending.pending = true;
  s->pending.weights = weights;
  s->pending.bias = bias;
  if (rq_lasts) {
    s->pending.rq.Refer(rq);
  } else {
    s->pending.rq.Keep(rq);
  }
  s->pending.weights_zero_point = weights_zero_point;
  s->pending.output_offset = output_offset;
  s->pending.rounding_up = rounding_up;
  s->packed_from = from;
  return true;
}

// Whether every weight minus its zero point, the value the packed weights hold once the row factor
// is folded in, fits int8.
bool WeightsFitInt8(const QuantGemmState& s) {
  const size_t count = static_cast<size_t>(s.n) * s.k;
  int32_t low = 255, high = -128;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t byte = s.pending.weights[i];
    const int32_t value = s.is_signed ? static_cast<int8_t>(byte) : byte;
    low = std::min(low, value);
    high = std::max(high, value);
  }
  const int32_t zero_point = s.pending.weights_zero_point;
  return count == 0 || (low - zero_point >= -128 && high - zero_point <= 127);
}

// The GEMM that reads the state's packed weights, and the bytes of one packed panel of them.
decltype(QuantKernels::gemm_u8) GemmOf(const QuantGemmState& s) {
  const QuantKernels& k = *s.kernels;
  if (s.narrow_weights) return s.is_signed ? k.gemm_narrow_s8 : k.gemm_narrow_u8;
  return s.is_signed ? k.gemm_s8 : k.gemm_u8;
}
size_t PanelBytes(const QuantGemmState& s) {
  const QuantKernels& k = *s.kernels;
  return (s.narrow_weights ? k.narrow_packed_b_size : k.packed_b_size)(k.panel, s.kp);
}

// The weights' columns with the sign bit flipped, their constant terms folded into the output
// stage, packed for the microkernels.
}  // namespace

size_t PackedWeightsSize(const QuantKernels& set, WeightLayout layout, int n, size_t kp) {
  return (layout == WeightLayout::kNarrow ? set.narrow_packed_b_size : set.packed_b_size)(n, kp);
}

void PackFlippedWeights(const QuantKernels& set, WeightLayout layout, const uint8_t* weights, int n, size_t k,
                        size_t kp, bool d_signed, int32_t row_factor, int chunk_columns, uint8_t* packed) {
  // Every layout puts the panel of column c (a multiple of the panel width) at the packed size of c
  // columns, so a chunk of whole panels packs on its own at that offset.
  const std::unique_ptr<uint8_t[]> flipped(new uint8_t[static_cast<size_t>(std::min(chunk_columns, n)) * kp]);
  for (int c0 = 0; c0 < n; c0 += chunk_columns) {
    const int columns = std::min(chunk_columns, n - c0);
    for (int col = 0; col < columns; ++col) {
      const uint8_t* source = weights + static_cast<size_t>(c0 + col) * k;
      uint8_t* row = flipped.get() + static_cast<size_t>(col) * kp;
      size_t i = 0;
      for (; i + 8 <= k; i += 8) {  // eight bytes a step (the loop is not vectorized at -O2)
        uint64_t bytes;
        std::memcpy(&bytes, source + i, 8);
        bytes ^= 0x8080808080808080ull;
        std::memcpy(row + i, &bytes, 8);
      }
      for (; i < k; ++i) row[i] = source[i] ^ 0x80;
      std::memset(row + k, 0, kp - k);
    }
    uint8_t* out = packed + PackedWeightsSize(set, layout, c0, kp);
    switch (layout) {
      case WeightLayout::kPlain:
        set.pack_b(flipped.get(), columns, kp, d_signed, out);
        break;
      case WeightLayout::kWithRowFactor:
        set.pack_b_with_row_factor(flipped.get(), columns, k, kp, d_signed, row_factor, out);
        break;
      case WeightLayout::kNarrow:
        set.pack_b_narrow(flipped.get(), columns, k, kp, d_signed, row_factor, out);
        break;
    }
  }
}

namespace {

void PackPendingGemm(TfLiteContext* context, QuantGemmState* s) {
  QuantGemmState::PendingPack& p = s->pending;
  const int n = s->n;
  const size_t k = s->k;
  const int64_t beta = s->row_factor;
  const QuantKernels& kernels = *s->kernels;
  // Each column's sum of its flipped bytes as the microkernels read them (unsigned for int8
  // weights, signed for uint8): the weights' own sum (row_sums reads int8 as signed) plus or minus
  // 128 per byte.
  std::vector<int32_t> sums(n);
  kernels.row_sums(p.weights, k, n, k, s->is_signed, sums.data());
  const int64_t flip_offset = (s->is_signed ? 128 : -128) * static_cast<int64_t>(k);
  std::vector<int64_t> col_terms(n);
  for (int col = 0; col < n; ++col) {
    const int64_t sum = sums[col] + flip_offset;
    const int64_t bias_value = p.bias != nullptr ? p.bias[col] : 0;
    col_terms[col] =
        bias_value - int64_t{s->input_zero_point} * sum - static_cast<int64_t>(k) * s->input_zero_point * beta;
  }
  BuildOutputStage(p.rq.get(), p.rounding_up, col_terms, p.output_offset, &s->output);
  s->narrow_weights = kernels.pack_b_narrow != nullptr && s->rows <= kFewRows &&
                      kernels.packed_b_size(n, s->kp) >= kNarrowMinWideBytes && WeightsFitInt8(*s);
  WeightLayout layout = WeightLayout::kPlain;
  if (s->narrow_weights) {
    layout = WeightLayout::kNarrow;
    g_narrow_packed.fetch_add(1, std::memory_order_relaxed);
  } else if (kernels.pack_b_with_row_factor != nullptr && std::abs(s->row_factor) <= 32000) {
    // Within int16 whatever the weight byte (a zero point far outside the type keeps the row sums).
    layout = WeightLayout::kWithRowFactor;
  }
  s->packed_b.assign(PackedWeightsSize(kernels, layout, n, s->kp), 0);
  // About 64 KiB of flipped columns at a time, in whole panels.
  const int chunk_columns =
      std::max(1, static_cast<int>(kFlipChunkBytes / (static_cast<size_t>(kernels.panel) * s->kp))) * kernels.panel;
  PackFlippedWeights(kernels, layout, p.weights, n, k, s->kp, /*d_signed=*/!s->is_signed, s->row_factor, chunk_columns,
                     s->packed_b.data());
  // The row factor is in the weights now (the column terms above are the same).
  if (layout != WeightLayout::kPlain) s->row_factor = 0;
  // Only the packed copy is read from here on.
  ConstantCopied(context, p.weights, static_cast<size_t>(n) * k);
  p.pending = false;
  p.rq.Reset();
}

// The im2col rows [m0, m0 + rows) into dst (kp bytes each; taps in the padding read the input
// zero point, the bytes past k are 0).
void PackRows(const QuantGemmState& s, const uint8_t* input, int64_t m0, int rows, uint8_t* dst) {
  const WindowGeometry& g = s.geometry;
  const size_t channels = s.channels;
  if (!s.conv) {
    for (int r = 0; r < rows; ++r) {
      uint8_t* row = dst + r * s.kp;
      std::memcpy(row, input + (m0 + r) * s.k, s.k);
      std::memset(row + s.k, 0, s.kp - s.k);
    }
    return;
  }
  // The first row's position, then stepped (no division per row).
  const int64_t plane = static_cast<int64_t>(g.out_height) * g.out_width;
  int64_t b = m0 / plane;
  int oy = static_cast<int>((m0 % plane) / g.out_width);
  int ox = static_cast<int>(m0 % g.out_width);
  // A kernel row whose taps are all inside the image is one run of bytes when taps are adjacent.
  const size_t run_bytes = static_cast<size_t>(g.kernel_width) * channels;
  const bool adjacent_taps = g.dilation_width == 1;
  for (int r = 0; r < rows; ++r) {
    uint8_t* row = dst + r * s.kp;
    uint8_t* tap = row;
    const int ix0 = ox * g.stride_width - g.pad_left;
    const bool row_inside = adjacent_taps && ix0 >= 0 && ix0 + g.kernel_width <= g.in_width;
    for (int ky = 0; ky < g.kernel_height; ++ky) {
      const int iy = oy * g.stride_height - g.pad_top + ky * g.dilation_height;
      if (iy < 0 || iy >= g.in_height) {
        std::memset(tap, static_cast<uint8_t>(s.input_zero_point), run_bytes);
        tap += run_bytes;
        continue;
      }
      const uint8_t* line = input + (b * g.in_height + iy) * g.in_width * static_cast<int64_t>(channels);
      if (row_inside) {
        shape_util::CopyRow(tap, line + static_cast<int64_t>(ix0) * channels, run_bytes);
        tap += run_bytes;
        continue;
      }
      for (int kx = 0; kx < g.kernel_width; ++kx, tap += channels) {
        const int ix = ix0 + kx * g.dilation_width;
        if (ix < 0 || ix >= g.in_width) {
          std::memset(tap, static_cast<uint8_t>(s.input_zero_point), channels);
        } else {
          shape_util::CopyRow(tap, line + static_cast<int64_t>(ix) * channels, channels);
        }
      }
    }
    for (size_t i = s.k; i < s.kp; ++i) row[i] = 0;  // at most 3 bytes
    if (++ox == g.out_width) {
      ox = 0;
      if (++oy == g.out_height) {
        oy = 0;
        ++b;
      }
    }
  }
}

void EnsureScratch(TfLiteContext* context, QuantGemmState* s) {
  if (s->direct) return;
  s->scratch.Ensure(NumThreads(context), static_cast<size_t>(s->kernels->mr) * s->kp);
}

// The rows split into tiles of at most mr rows, spread evenly, the first tiles taking the extra rows
// (as RunGemm does, without a division per tile): 7x7 = 49 rows make nine tiles of 5 or 6 rows,
// not eight of 6 and one of 1.
struct RowTiles {
  RowTiles(int64_t rows, int mr)
      : count((rows + mr - 1) / mr),
        base_rows(count > 0 ? rows / count : 0),
        with_extra_row(count > 0 ? rows % count : 0) {}
  int64_t first_row(int64_t tile) const { return tile * base_rows + std::min(tile, with_extra_row); }
  int64_t count, base_rows, with_extra_row;
};

// Few rows read straight from the input (a pointwise convolution on a small map, a fully connected
// layer over a few batches): the weights, far more bytes than the rows, are read once, panels
// outer and the rows' tiles inner, so that a group of panels stays in cache over the tiles. In
// the row-major order every tile streams all the weights again (yamnet's last pointwise layer,
// 6 rows against 1024x1024 weights, read them twice from L3). False where too few groups of
// panels would leave threads idle: the caller then splits the rows.
bool EvalPanelMajor(TfLiteContext* context, const QuantGemmState& s, int64_t max_chunks, const uint8_t* input,
                    uint8_t* output) {
  const QuantKernels& kernels = *s.kernels;
  const int64_t panels = (s.n + kernels.panel - 1) / kernels.panel;
  if (panels < max_chunks) return false;
  const RowTiles tiles(s.rows, std::min(kernels.mr, kMaxRowsPerTile));
  const size_t panel_bytes = PanelBytes(s);
  const int64_t panels_per_group = std::clamp<int64_t>(static_cast<int64_t>(kPanelMajorGroupBytes / panel_bytes), 1,
                                                       std::max<int64_t>(1, panels / max_chunks));
  const int64_t groups = (panels + panels_per_group - 1) / panels_per_group;
  int32_t row_terms[kFewRows];
  if (s.row_factor != 0) {
    int32_t sums[kFewRows];
    kernels.row_sums(input, s.k, static_cast<int>(s.rows), s.k, s.is_signed, sums);
    for (int64_t r = 0; r < s.rows; ++r) row_terms[r] = Wrap(int64_t{s.row_factor} * sums[r]);
  } else {
    std::fill(row_terms, row_terms + s.rows, 0);
  }
  const auto gemm = GemmOf(s);
  const int64_t macs_per_group = s.rows * static_cast<int64_t>(s.kp) * panels_per_group * kernels.panel;
  const int64_t min_groups = std::max<int64_t>(1, kMinMacsPerChunk / std::max<int64_t>(1, macs_per_group));
  ParallelChunks(context, groups, min_groups, [&](int, int64_t begin, int64_t end) {
    QGemmArgs args;
    args.packed_b = s.packed_b.data();
    args.kp = s.kp;
    args.n = s.n;
    args.stage = &s.output.stage;
    args.a_stride = s.k;
    args.c_stride = s.n;
    for (int64_t group = begin; group < end; ++group) {
      args.n_begin = static_cast<int>(group * panels_per_group * kernels.panel);
      args.n_end = static_cast<int>(std::min<int64_t>(s.n, (group + 1) * panels_per_group * kernels.panel));
      for (int64_t tile = 0; tile < tiles.count; ++tile) {
        const int64_t m0 = tiles.first_row(tile);
        args.rows = static_cast<int>(tiles.first_row(tile + 1) - m0);
        args.a = input + m0 * s.k;
        args.row_terms = row_terms + m0;
        args.c = output + m0 * s.n;
        gemm(args);
      }
    }
  });
  return true;
}

}  // namespace

bool PrepareQuantConv(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, const WindowGeometry& geometry,
                      const nn::OutputRequantization* requantization, QuantGemmState* s) {
  const auto& params = nn::ParamsOf<TfLiteConvParams>(node);
  const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
  if (!IsQuantized8(input->type) || filter->type != input->type || output->type != input->type ||
      bias->type != kTfLiteInt32 || input->dims->data[3] != filter->dims->data[3] ||
      !tflite::IsConstantTensor(filter) || !tflite::IsConstantTensor(bias) || tflite::NumElements(output) == 0) {
    return false;
  }
  const int n = filter->dims->data[0];
  nn::OutputRequantization computed;
  if (requantization == nullptr) {
    if (nn::PopulateConvolutionQuantizationParams(context, input, filter, bias, output, params.activation, n,
                                                  "input 1 (filter)", &computed) != kTfLiteOk) {
      return false;
    }
    requantization = &computed;
  }
  const nn::OutputRequantization& rq = *requantization;
  const bool rq_lasts = requantization != &computed;
  s->conv = true;
  s->geometry = geometry;
  s->channels = input->dims->data[3];
  s->rows = geometry.out_pixels();
  const size_t k = static_cast<size_t>(geometry.taps()) * s->channels;
  // The reference's stages: uint8 through gemmlowp (ties away from zero), int8 through ruy.
  const bool rounding_up = input->type == kTfLiteInt8;
  if (!PrepareGemm(set, input->type == kTfLiteInt8, filter->data.uint8, n, k, input->params.zero_point,
                   filter->params.zero_point, tflite::GetTensorData<int32_t>(bias), rq, rq_lasts, rounding_up,
                   output->params.zero_point, s)) {
    return false;
  }
  // A pointwise convolution that keeps the image reads its rows straight from the input.
  s->direct = geometry.taps() == 1 && geometry.stride_height == 1 && geometry.stride_width == 1 &&
              geometry.out_height == geometry.in_height && geometry.out_width == geometry.in_width &&
              geometry.pad_top == 0 && geometry.pad_left == 0 && k % 4 == 0;
  s->scratch.Clear();
  EnsureScratch(context, s);
  g_prepared.fetch_add(1, std::memory_order_relaxed);
  return true;
}

namespace {

// FULLY_CONNECTED's output requantization (QuantFullyConnectedNode::rq) for an integer node of n
// units. False where the weights have no scales, or neither one nor n, or the activation has no
// range on the output.
bool FullyConnectedRequantization(TfLiteContext* context, const TfLiteTensor* input, const TfLiteTensor* weights,
                                  const TfLiteTensor* output, TfLiteFusedActivation activation, int n,
                                  nn::OutputRequantization* rq) {
  const TfLiteAffineQuantization* quantization = nn::AffineQuantization(weights);
  if (quantization == nullptr) return false;
  const double product = static_cast<double>(input->params.scale * weights->params.scale);
  int32_t multiplier;
  int shift;
  quantization_util::QuantizeMultiplier(product / static_cast<double>(output->params.scale), &multiplier, &shift);
  rq->SetUniform(multiplier, shift);
  if (quantization->scale->size > 1) {
    if (quantization->scale->size != n) return false;
    rq->SetPerChannel(n);
    for (int u = 0; u < n; ++u) {
      quantization_util::QuantizeMultiplier(static_cast<double>(input->params.scale) *
                                                static_cast<double>(quantization->scale->data[u]) /
                                                static_cast<double>(output->params.scale),
                                            &rq->multiplier[u], &rq->shift[u]);
    }
  }
  return nn::CalculateActivationRangeQuantized(context, activation, output, &rq->activation_min, &rq->activation_max) ==
         kTfLiteOk;
}

}  // namespace

bool ReadQuantFullyConnected(TfLiteContext* context, const TfLiteNode* node,
                             bool (*types_accepted)(const QuantFullyConnectedNode& fc), QuantFullyConnectedNode* fc) {
  const auto& params = nn::ParamsOf<TfLiteFullyConnectedParams>(node);
  fc->input = tflite::GetInput(context, node, 0);
  fc->weights = tflite::GetInput(context, node, 1);
  fc->bias = nn::OptionalBias(context, node);
  fc->output = tflite::GetOutput(context, node, 0);
  if (!types_accepted(*fc) || params.weights_format != kTfLiteFullyConnectedWeightsFormatDefault ||
      tflite::IsDynamicTensor(fc->output) || !tflite::IsConstantTensor(fc->weights) ||
      (fc->bias != nullptr && !tflite::IsConstantTensor(fc->bias)) || fc->weights->dims->size != 2) {
    return false;
  }
  fc->n = fc->weights->dims->data[0];
  fc->k = fc->weights->dims->data[1];
  if (fc->n <= 0 || fc->k == 0 || tflite::NumElements(fc->output) == 0 ||
      !FullyConnectedRequantization(context, fc->input, fc->weights, fc->output, params.activation, fc->n, &fc->rq)) {
    return false;
  }
  fc->rows = tflite::NumElements(fc->output) / fc->n;
  return fc->rows * static_cast<int64_t>(fc->k) <= tflite::NumElements(fc->input);
}

bool PrepareQuantFullyConnected(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, QuantGemmState* s) {
  QuantFullyConnectedNode fc;
  const auto types_accepted = [](const QuantFullyConnectedNode& fc) {
    return IsQuantized8(fc.input->type) && fc.weights->type == fc.input->type && fc.output->type == fc.input->type &&
           (fc.bias == nullptr || fc.bias->type == kTfLiteInt32);
  };
  if (!ReadQuantFullyConnected(context, node, types_accepted, &fc)) return false;
  s->conv = false;
  s->channels = 0;
  s->rows = fc.rows;
  const bool rounding_up = fc.input->type == kTfLiteInt8;
  if (!PrepareGemm(set, fc.input->type == kTfLiteInt8, fc.weights->data.uint8, fc.n, fc.k, fc.input->params.zero_point,
                   fc.weights->params.zero_point,
                   fc.bias != nullptr ? tflite::GetTensorData<int32_t>(fc.bias) : nullptr, fc.rq, /*rq_lasts=*/false,
                   rounding_up, fc.output->params.zero_point, s)) {
    return false;
  }
  s->direct = fc.k % 4 == 0;
  s->scratch.Clear();
  EnsureScratch(context, s);
  g_prepared.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool QuantizedKernelsOutrunXnnpack() {
  const char* name = QuantKernelsFor(Kernels()).name;
  return std::strcmp(name, "avx512vnni") == 0 || std::strcmp(name, "avx2") == 0;
}

bool FloatKernelsUseFma() {
  const char* name = Kernels().name;
  return std::strcmp(name, "avx512") == 0 || std::strcmp(name, "avx_fma") == 0;
}

int64_t QuantizedNodesPrepared() { return g_prepared.load(std::memory_order_relaxed); }
int64_t NarrowGemmWeightsPacked() { return g_narrow_packed.load(std::memory_order_relaxed); }

TfLiteStatus EvalQuantGemm(TfLiteContext* context, TfLiteNode* node, QuantGemmState* s) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const uint8_t* input_data = input->data.uint8;
  uint8_t* output_data = output->data.uint8;
  if (s->pending.pending) PackPendingGemm(context, s);
  EnsureScratch(context, s);
  const QuantKernels& kernels = *s->kernels;
  const int mr = std::min(kernels.mr, kMaxRowsPerTile);
  const RowTiles row_tiles(s->rows, mr);
  const int64_t tiles = row_tiles.count;
  if (tiles == 0) return kTfLiteOk;
  const int64_t max_chunks = MaxChunksFor(context, s->rows * static_cast<int64_t>(s->kp) * s->n, kMinMacsPerChunk);
  if (s->direct && s->rows <= kFewRows && EvalPanelMajor(context, *s, max_chunks, input_data, output_data)) {
    return kTfLiteOk;
  }
  const int64_t panels = (s->n + kernels.panel - 1) / kernels.panel;
  // Few rows (a fully connected layer, a small image): split the columns too.
  int64_t groups = 1;
  if (tiles < max_chunks && panels > 1) {
    groups = std::min<int64_t>(panels, (max_chunks + tiles - 1) / tiles);
  }
  const int64_t panels_per_group = (panels + groups - 1) / groups;
  groups = (panels + panels_per_group - 1) / panels_per_group;
  const auto gemm = GemmOf(*s);
  const int64_t macs_per_item =
      static_cast<int64_t>(mr) * static_cast<int64_t>(s->kp) * panels_per_group * kernels.panel;
  const int64_t min_items = std::max<int64_t>(1, kMinMacsPerChunk / std::max<int64_t>(1, macs_per_item));
  ParallelChunks(context, tiles * groups, min_items, [&](int, int64_t begin, int64_t end) {
    int32_t sums[kMaxRowsPerTile];
    int32_t row_terms[kMaxRowsPerTile];
    QGemmArgs args;
    args.row_terms = row_terms;
    args.packed_b = s->packed_b.data();
    args.kp = s->kp;
    args.n = s->n;
    args.stage = &s->output.stage;
    args.c_stride = s->n;
    int64_t current_tile = -1;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t tile = item / groups;
      const int64_t group = item % groups;
      const int64_t m0 = row_tiles.first_row(tile);
      if (tile != current_tile) {
        current_tile = tile;
        args.rows = static_cast<int>(row_tiles.first_row(tile + 1) - m0);
        if (s->direct) {
          args.a = input_data + m0 * s->k;
          args.a_stride = s->k;
        } else {
          uint8_t* buffer = s->scratch.part(CurrentThread(context));
          PackRows(*s, input_data, m0, args.rows, buffer);
          args.a = buffer;
          args.a_stride = s->kp;
        }
        if (s->row_factor != 0) {
          kernels.row_sums(args.a, args.a_stride, args.rows, s->k, s->is_signed, sums);
          for (int r = 0; r < args.rows; ++r) {
            row_terms[r] = Wrap(int64_t{s->row_factor} * sums[r]);
          }
        } else {
          std::fill(row_terms, row_terms + args.rows, 0);
        }
        args.c = output_data + m0 * s->n;
      }
      args.n_begin = static_cast<int>(group * panels_per_group * kernels.panel);
      args.n_end = static_cast<int>(std::min<int64_t>(s->n, (group + 1) * panels_per_group * kernels.panel));
      gemm(args);
    }
  });
  return kTfLiteOk;
}

// Whole-image indirection (and expansion) above this many bytes: the kernel goes row by row instead.
constexpr size_t kWholeImageDepthwiseBytes = 128 * 1024;
// Except for nodes of few output channels, up to kWholeImageFewChannelsBytes: there the row path's
// tap pointers, rebuilt at every Eval, cost as much as the products they address
// (mobilenet_v1_0.25_224_quant's 112x112x8 layer: 0.21 ms from the whole image, 0.31 ms row by row).
constexpr int kFewDepthwiseChannels = 64;
constexpr size_t kWholeImageFewChannelsBytes = 1024 * 1024;

bool PrepareQuantDepthwise(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set,
                           const WindowGeometry& geometry, const nn::OutputRequantization* requantization,
                           QuantDepthwiseState* s) {
  const auto& params = nn::ParamsOf<TfLiteDepthwiseConvParams>(node);
  const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
  const int multiplier = params.depth_multiplier;
  if (!IsQuantized8(input->type) || filter->type != input->type || output->type != input->type ||
      (bias != nullptr && bias->type != kTfLiteInt32) || multiplier < 1 ||
      filter->dims->data[3] != input->dims->data[3] * multiplier || !tflite::IsConstantTensor(filter) ||
      (bias != nullptr && !tflite::IsConstantTensor(bias)) || tflite::NumElements(output) == 0) {
    return false;
  }
  const int channels = filter->dims->data[3];
  s->multiplier = multiplier;
  nn::OutputRequantization computed;
  if (requantization == nullptr) {
    if (nn::PopulateConvolutionQuantizationParams(context, input, filter, bias, output, params.activation, channels,
                                                  "input 1 (filter)", &computed) != kTfLiteOk) {
      return false;
    }
    requantization = &computed;
  }
  const nn::OutputRequantization& rq = *requantization;
  const bool rq_lasts = requantization != &computed;
  s->kernels = &QuantKernelsFor(set);
  s->is_signed = input->type == kTfLiteInt8;
  s->geometry = geometry;
  s->channels = channels;
  const int taps = geometry.taps();
  s->taps = static_cast<int>(RoundUp(taps, 2));
  s->input_zero_point = input->params.zero_point;
  if (!StageTakes(rq)) return false;
  QuantDepthwiseState::PendingPack& p = s->pending;
  p.pending = true;
  p.filter = filter->data.uint8;
  p.filter_zero_point = filter->params.zero_point;
  p.bias = bias != nullptr ? tflite::GetTensorData<int32_t>(bias) : nullptr;
  p.real_taps = taps;
  p.output_zero_point = output->params.zero_point;
  if (rq_lasts) {
    p.rq.Refer(rq);
  } else {
    p.rq.Keep(rq);
  }
  s->packed_w.clear();
  s->zero.assign(channels, static_cast<uint8_t>(s->input_zero_point));
  s->indirection_input = nullptr;
  // Small images keep the whole image's indirection (and expansion) from Eval to Eval; large ones
  // go row by row in per-thread scratch (EvalQuantDepthwise). Only the chosen path's buffers stay.
  const size_t row_bytes = static_cast<size_t>(geometry.in_width) * channels;  // an input row, expanded
  const size_t whole_image_bytes =
      static_cast<size_t>(geometry.out_pixels()) * s->taps * sizeof(const uint8_t*) +
      (multiplier > 1 ? static_cast<size_t>(geometry.batches) * geometry.in_height * row_bytes : 0);
  s->whole_image = whole_image_bytes <= kWholeImageDepthwiseBytes ||
                   (channels < kFewDepthwiseChannels && whole_image_bytes <= kWholeImageFewChannelsBytes);
  s->ring_rows = (geometry.kernel_height - 1) * geometry.dilation_height + 1;
  const int threads = NumThreads(context);
  if (s->whole_image) {
    s->row_taps.Clear();
    s->expanded_rows.Clear();
  } else {
    std::vector<const uint8_t*>().swap(s->indirection);
    std::vector<uint8_t>().swap(s->expanded);
    // Every entry and expanded row is written before it is read (EvalQuantDepthwise).
    s->row_taps.EnsureUnfilled(threads, static_cast<size_t>(geometry.out_width) * s->taps);
    if (multiplier > 1) s->expanded_rows.EnsureUnfilled(threads, static_cast<size_t>(s->ring_rows) * row_bytes);
  }
  g_prepared.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// The filter with its zero point taken off, packed for the microkernels, the output stage with the
// bias (and, where the kernels want it, the input zero point's term) folded in, and each output
// column's input columns (kilobytes per layer, so made at the first Eval rather than at Prepare).
void PackPendingDepthwise(TfLiteContext* context, QuantDepthwiseState* s) {
  QuantDepthwiseState::PendingPack& p = s->pending;
  const int channels = s->channels;
  const WindowGeometry& geometry = s->geometry;
  s->tap_columns.resize(static_cast<size_t>(geometry.out_width) * geometry.kernel_width);
  for (int ox = 0; ox < geometry.out_width; ++ox) {
    for (int kx = 0; kx < geometry.kernel_width; ++kx) {
      const int ix = ox * geometry.stride_width - geometry.pad_left + kx * geometry.dilation_width;
      s->tap_columns[static_cast<size_t>(ox) * geometry.kernel_width + kx] =
          ix >= 0 && ix < geometry.in_width ? int64_t{ix} * channels : -1;
    }
  }
  const int taps = p.real_taps;
  std::vector<int16_t> w(static_cast<size_t>(s->taps) * channels, 0);
  for (int t = 0; t < taps; ++t) {
    for (int c = 0; c < channels; ++c) {
      const size_t i = static_cast<size_t>(t) * channels + c;
      const int32_t value =
          s->is_signed ? static_cast<int32_t>(static_cast<int8_t>(p.filter[i])) : static_cast<int32_t>(p.filter[i]);
      w[i] = static_cast<int16_t>(value - p.filter_zero_point);
    }
  }
  s->packed_w.assign(s->kernels->dw_packed_size(channels, s->taps), 0);
  s->kernels->dw_pack(w.data(), channels, s->taps, s->packed_w.data());
  std::vector<int64_t> col_terms(channels, 0);
  if (p.bias != nullptr) {
    for (int c = 0; c < channels; ++c) col_terms[c] = p.bias[c];
  }
  if (s->kernels->dw_zero_point_in_column_term) {
    for (int c = 0; c < channels; ++c) {
      int64_t weight_sum = 0;
      for (int t = 0; t < taps; ++t) weight_sum += w[static_cast<size_t>(t) * channels + c];
      col_terms[c] -= int64_t{s->input_zero_point} * weight_sum;
    }
  }
  // Depthwise convolutions requantize in TFLite's own loops: ties away from zero. Prepare checked
  // what BuildOutputStage refuses.
  BuildOutputStage(p.rq.get(), /*rounding_up=*/false, col_terms, p.output_zero_point, &s->output);
  ConstantCopied(context, p.filter, static_cast<size_t>(taps) * channels);
  p.pending = false;
  p.rq.Reset();
}

namespace {

// Writes each of `count` bytes of `in` `multiplier` times.
void ExpandChannels(const uint8_t* in, int64_t count, int multiplier, uint8_t* out) {
  switch (multiplier) {
    case 2:
      for (int64_t i = 0; i < count; ++i, out += 2) std::memset(out, in[i], 2);
      return;
    case 4:
      for (int64_t i = 0; i < count; ++i, out += 4) std::memset(out, in[i], 4);
      return;
    case 8:
      for (int64_t i = 0; i < count; ++i, out += 8) std::memset(out, in[i], 8);
      return;
    default:
      for (int64_t i = 0; i < count; ++i, out += multiplier) std::memset(out, in[i], static_cast<size_t>(multiplier));
  }
}

// Per output pixel and tap (taps padded to even read `zero`), the input pixel read: `row_start(b, iy)`
// gives the start of input row iy of batch b, `columns[ox * kernel_width + kx]` the offset of tap
// column kx of output column ox in it (-1: padding). Fills the entries of output rows
// [first_row, end_row), each once.
template <typename RowStart>
void FillDepthwiseTaps(const WindowGeometry& g, int taps, const int64_t* columns, const uint8_t* zero,
                       int64_t first_row, int64_t end_row, RowStart row_start, const uint8_t** entries) {
  const int kw = g.kernel_width;
  const int window_taps = g.kernel_height * kw;
  for (int64_t row = first_row; row < end_row; ++row) {
    const int64_t b = row / g.out_height;
    const int oy = static_cast<int>(row % g.out_height);
    const uint8_t** row_entries = entries + (row - first_row) * g.out_width * taps;
    for (int ky = 0; ky < g.kernel_height; ++ky) {
      const int iy = oy * g.stride_height - g.pad_top + ky * g.dilation_height;
      const uint8_t* line = iy >= 0 && iy < g.in_height ? row_start(b, iy) : nullptr;
      for (int ox = 0; ox < g.out_width; ++ox) {
        const uint8_t** entry = row_entries + int64_t{ox} * taps + ky * kw;
        const int64_t* column = columns + int64_t{ox} * kw;
        if (line == nullptr) {
          for (int kx = 0; kx < kw; ++kx) entry[kx] = zero;
        } else {
          for (int kx = 0; kx < kw; ++kx) entry[kx] = column[kx] < 0 ? zero : line + column[kx];
        }
      }
    }
    for (int ox = 0; ox < g.out_width && window_taps < taps; ++ox) {
      for (int t = window_taps; t < taps; ++t) row_entries[int64_t{ox} * taps + t] = zero;
    }
  }
}

}  // namespace

TfLiteStatus EvalQuantDepthwise(TfLiteContext* context, TfLiteNode* node, QuantDepthwiseState* s) {
  if (s->pending.pending) PackPendingDepthwise(context, s);
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  const WindowGeometry& g = s->geometry;
  const int taps = s->taps;
  const int channels = s->channels;
  const int multiplier = s->multiplier;
  const int input_channels = channels / multiplier;
  const int64_t row_bytes = int64_t{g.in_width} * channels;  // an input row, expanded
  const uint8_t* in = input->data.uint8;
  const uint8_t* zero = s->zero.data();
  const int64_t rows = int64_t{g.batches} * g.out_height;
  const bool whole_image = s->whole_image;  // chosen in Prepare
  if (whole_image) {
    // The input expanded (each channel repeated `multiplier` times, so the kernels see a multiplier
    // of 1) and the indirection kept for every pixel, rebuilt only when the input moved.
    if (multiplier > 1) {
      s->expanded.resize(static_cast<size_t>(g.batches) * g.in_height * row_bytes);
      ExpandChannels(in, int64_t{g.batches} * g.in_height * g.in_width * input_channels, multiplier,
                     s->expanded.data());
      in = s->expanded.data();
    }
    if (s->indirection_input != in) {
      s->indirection.resize(static_cast<size_t>(g.out_pixels()) * taps);
      FillDepthwiseTaps(
          g, taps, s->tap_columns.data(), zero, 0, rows,
          [&](int64_t b, int iy) { return in + (b * g.in_height + iy) * row_bytes; }, s->indirection.data());
      s->indirection_input = in;
    }
  }
  const auto dw = s->is_signed ? s->kernels->dw_s8 : s->kernels->dw_u8;
  uint8_t* output_data = output->data.uint8;
  const auto make_args = [&]() {
    QDwArgs args;
    args.taps = taps;
    args.channels = channels;
    args.input_zero_point = s->input_zero_point;
    args.packed_w = s->packed_w.data();
    args.stage = &s->output.stage;
    return args;
  };
  if (whole_image) {
    const int64_t macs_per_pixel = int64_t{taps} * channels;
    const int64_t min_pixels = std::max<int64_t>(1, kMinDepthwiseMacsPerChunk / std::max<int64_t>(1, macs_per_pixel));
    ParallelChunks(context, g.out_pixels(), min_pixels, [&](int, int64_t begin, int64_t end) {
      QDwArgs args = make_args();
      args.in = s->indirection.data() + begin * taps;
      args.out = output_data + begin * channels;
      args.pixels = static_cast<int>(end - begin);
      dw(args);
    });
    return kTfLiteOk;
  }
  const int64_t row_macs = int64_t{g.out_width} * taps * channels;
  const int64_t min_rows = std::max<int64_t>(1, kMinDepthwiseMacsPerChunk / std::max<int64_t>(1, row_macs));
  ParallelChunks(context, rows, min_rows, [&](int, int64_t begin, int64_t end) {
    QDwArgs args = make_args();
    const int thread = CurrentThread(context);
    const uint8_t** entries = s->row_taps.part(thread);
    uint8_t* ring = multiplier > 1 ? s->expanded_rows.part(thread) : nullptr;
    const int64_t ring_rows = s->ring_rows;
    int64_t batch = -1, next_row = 0;  // the next input row of `batch` to expand
    args.in = entries;
    args.pixels = g.out_width;
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / g.out_height;
      if (multiplier > 1) {
        if (b != batch) {
          batch = b;
          next_row = 0;
        }
        const int64_t y0 = (row % g.out_height) * g.stride_height - g.pad_top;
        const int64_t last = std::min<int64_t>(g.in_height - 1, y0 + int64_t{g.kernel_height - 1} * g.dilation_height);
        // Rows below the window's first are not read again; the ring keeps the latest ring_rows.
        for (next_row = std::max(next_row, std::max<int64_t>(0, y0)); next_row <= last; ++next_row) {
          ExpandChannels(input->data.uint8 + (b * g.in_height + next_row) * g.in_width * input_channels,
                         int64_t{g.in_width} * input_channels, multiplier, ring + (next_row % ring_rows) * row_bytes);
        }
      }
      FillDepthwiseTaps(
          g, taps, s->tap_columns.data(), zero, row, row + 1,
          [&](int64_t batch_index, int iy) {
            return multiplier > 1 ? ring + (iy % ring_rows) * row_bytes
                                  : in + (batch_index * g.in_height + iy) * row_bytes;
          },
          entries);
      args.out = output_data + row * g.out_width * channels;
      dw(args);
    }
  });
  return kTfLiteOk;
}

}  // namespace optimized
}  // namespace touchstone
