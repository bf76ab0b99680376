#include "runtime/kernels/optimized/quantized16.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/c/builtin_op_data.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

// Elements of a broadcast operand expanded at a time (Q16BinaryState::expanded).
constexpr int64_t kExpandElements = 1024;

std::atomic<int64_t> g_prepared{0};

void NotePrepared() { g_prepared.fetch_add(1, std::memory_order_relaxed); }

bool HasScale(const TfLiteTensor* t) { return t->params.scale > 0.f && std::isfinite(t->params.scale); }

// A multiplier and shift as MultiplyByQuantizedMultiplier applies them (the left shift masked as
// the x86 shift masks it); false for what the kernels do not reproduce (INT32_MIN, which
// QuantizeMultiplier never gives for a positive scale, or a right shift past 31).
bool SplitMultiplier(int32_t multiplier, int shift, int32_t* m, int* left, int* right) {
  if (multiplier == INT32_MIN || shift < -31) return false;
  *m = multiplier;
  *left = (shift > 0 ? shift : 0) & 31;
  *right = shift > 0 ? 0 : -shift;
  return true;
}

// ---- The GEMM.

int64_t RoundUp(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// The output stage's per-column arrays for the reference's multipliers and biases; false where a
// multiplier is one the 32-bit stage does not take.
bool BuildColumns(const nn::OutputRequantization& rq, const TfLiteTensor* bias, int32_t offset, Q16GemmState* s) {
  const int n = s->n;
  const size_t padded = RoundUp(n, s->kernels->nr);
  s->bias32.assign(padded, 0);
  s->multiplier.assign(padded, 0);
  s->left.assign(padded, 0);
  s->right.assign(padded, 0);
  s->bias64.assign(padded, 0);
  s->reduced.assign(padded, 0);
  s->round.assign(padded, 0);
  s->shift.assign(padded, 0);
  for (int c = 0; c < n; ++c) {
    const int32_t multiplier = rq.MultiplierOf(c);
    const int shift = rq.ShiftOf(c);
    const int64_t bias_value = nn::IntegerBiasValue(bias, c);
    if (s->exact64) {
      // MultiplyByQuantizedMultiplier(int64_t, ...): the multiplier rounded to 16 bits, one
      // rounding shift by 15 - shift (counts taken modulo 64, as the reference's are).
      const int total = 15 - shift;
      s->bias64[c] = bias_value;
      s->reduced[c] = multiplier < 0x7FFF0000 ? (static_cast<int64_t>(multiplier) + (1 << 15)) >> 16 : 0x7FFF;
      s->round[c] = static_cast<int64_t>(uint64_t{1} << ((total - 1) & 63));
      s->shift[c] = total & 63;
    } else {
      if (multiplier == INT32_MIN || shift < -31) return false;
      // The low 32 bits of the bias: the stage keeps the sum's.
      s->bias32[c] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(bias_value)));
      s->multiplier[c] = multiplier;
      s->left[c] = std::min(shift > 0 ? shift : 0, 32);
      s->right[c] = shift > 0 ? 0 : -shift;
    }
  }
  Q16Columns& columns = s->columns;
  columns.bias32 = s->bias32.data();
  columns.multiplier = s->multiplier.data();
  columns.left = s->left.data();
  columns.right = s->right.data();
  columns.bias64 = s->bias64.data();
  columns.reduced = s->reduced.data();
  columns.round = s->round.data();
  columns.shift = s->shift.data();
  columns.offset = offset;
  columns.act_min = rq.activation_min;
  columns.act_max = rq.activation_max;
  return true;
}

// What every GEMM shares once its shape is known.
void FinishGemmPrepare(TfLiteContext* context, Q16GemmState* s) {
  s->pairs = (s->k + 1) / 2;
  const int nr = s->kernels->nr;
  s->packed_matrix = static_cast<size_t>(RoundUp(s->n, nr)) * s->pairs * 2;
  const int threads = NumThreads(context);
  s->a_tile.Ensure(threads, static_cast<size_t>(s->kernels->mr) * s->pairs * 2);
  s->sums32.Ensure(threads, static_cast<size_t>(s->kernels->mr) * nr);
  s->sums64.Ensure(threads, static_cast<size_t>(s->kernels->mr) * nr);
  NotePrepared();
}

// B's panels from element (kk, col) = src[kk * k_stride + col * col_stride] + offset, matrices
// `matrix_stride` elements apart.
template <typename T>
void PackB(TfLiteContext* context, const T* src, int64_t matrices, int64_t matrix_stride, int64_t k_stride,
           int64_t col_stride, int32_t offset, Q16GemmState* s) {
  const int nr = s->kernels->nr;
  const int64_t panels = (s->n + nr - 1) / nr;
  const size_t pairs = s->pairs;
  s->packed.resize(s->packed_matrix * matrices);
  ParallelChunks(context, matrices * panels, 1, [&](int, int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t matrix = item / panels;
      const int panel = static_cast<int>(item % panels);
      const T* base = src + matrix * matrix_stride;
      int16_t* out = s->packed.data() + matrix * s->packed_matrix + static_cast<size_t>(panel) * pairs * nr * 2;
      std::fill(out, out + pairs * nr * 2, int16_t{0});
      const int first = panel * nr;
      const int cols = std::min(nr, s->n - first);
      for (int j = 0; j < cols; ++j) {
        const T* column = base + static_cast<int64_t>(first + j) * col_stride;
        for (size_t kk = 0; kk < s->k; ++kk) {
          out[((kk / 2) * nr + j) * 2 + kk % 2] = static_cast<int16_t>(column[kk * k_stride] + offset);
        }
      }
    }
  });
}

// The same for int16 matrices without an offset (BATCH_MATMUL's rhs, packed at every Eval unless
// constant): [k][n] interleaves two source rows per pair, [n][k] (adj_y) copies each column's pairs
// as 32-bit words.
void PackInt16(TfLiteContext* context, const int16_t* src, int64_t matrices, bool columns_contiguous, Q16GemmState* s) {
  const int nr = s->kernels->nr;
  const int64_t panels = (s->n + nr - 1) / nr;
  const size_t pairs = s->pairs;
  const size_t k = s->k;
  const int64_t n = s->n;
  s->packed.resize(s->packed_matrix * matrices);
  ParallelChunks(context, matrices * panels, 1, [&](int, int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t matrix = item / panels;
      const int panel = static_cast<int>(item % panels);
      const int16_t* base = src + matrix * static_cast<int64_t>(k) * n;
      int16_t* out = s->packed.data() + matrix * s->packed_matrix + static_cast<size_t>(panel) * pairs * nr * 2;
      const int first = panel * nr;
      const int cols = static_cast<int>(std::min<int64_t>(nr, n - first));
      if (!columns_contiguous) {
        for (size_t p = 0; p < pairs; ++p) {
          const int16_t* row0 = base + static_cast<int64_t>(2 * p) * n + first;
          const int16_t* row1 = 2 * p + 1 < k ? row0 + n : nullptr;
          s->kernels->interleave_rows(row0, row1, cols, nr, out + p * nr * 2);
        }
        continue;
      }
      std::fill(out, out + pairs * nr * 2, int16_t{0});
      for (int j = 0; j < cols; ++j) {
        const int16_t* column = base + static_cast<int64_t>(first + j) * k;
        int16_t* slot = out + 2 * j;
        for (size_t p = 0; p < k / 2; ++p) std::memcpy(slot + p * nr * 2, column + 2 * p, 2 * sizeof(int16_t));
        if (k % 2 != 0) slot[(k / 2) * nr * 2] = column[k - 1];
      }
    }
  });
}

void PackWeightsOrRhs(TfLiteContext* context, const TfLiteTensor* b, Q16GemmState* s) {
  if (s->kind != Q16GemmState::Kind::kBatchMatMul) {
    // Weights [n][k], int8.
    PackB(context, b->data.int8, 1, 0, 1, static_cast<int64_t>(s->k), s->b_offset, s);
  } else {
    // rhs matrices [k][n], or [n][k] with adj_y.
    const int64_t matrix = static_cast<int64_t>(s->k) * s->n;
    const int64_t k_stride = s->adj_y ? 1 : s->n;  // element (kk, col)
    const int64_t col_stride = s->adj_y ? static_cast<int64_t>(s->k) : 1;
    if (s->type == kTfLiteInt16) {
      PackInt16(context, b->data.i16, s->rhs_matrices, s->adj_y, s);
    } else {
      PackB(context, b->data.int8, s->rhs_matrices, matrix, k_stride, col_stride, s->b_offset, s);
    }
  }
  s->packed_from = b->data.raw;
  s->packed_kernels = s->kernels;
  // Only the packed copy of constant weights is read from here on.
  if (s->constant_b) ConstantCopied(context, b->data.raw, b->bytes);
}

// Rows [m0, m0 + rows) of a matrix whose element (row, kk) is src[row * row_stride + kk *
// k_stride], as the GEMM reads them: kp values per row (zeros past k), the value plus `offset`, or
// with `split` two rows per row, x >> 8 and x & 255.
template <typename T>
void PackMatrixRows(const Q16Kernels& kernels, const T* src, int64_t row_stride, int64_t k_stride, int64_t m0, int rows,
                    size_t k, size_t kp, bool split, int32_t offset, int16_t* dst) {
  for (int r = 0; r < rows; ++r) {
    const T* row = src + (m0 + r) * row_stride;
    if constexpr (std::is_same<T, int16_t>::value) {
      if (split && k_stride == 1) {
        int16_t* high = dst + static_cast<size_t>(2 * r) * kp;
        kernels.split_row(row, k, kp, high, high + kp);
        continue;
      }
      if (!split && k_stride == 1 && offset == 0) {
        int16_t* out = dst + static_cast<size_t>(r) * kp;
        std::memcpy(out, row, k * sizeof(int16_t));
        std::fill(out + k, out + kp, int16_t{0});
        continue;
      }
    }
    if (split) {
      int16_t* high = dst + static_cast<size_t>(2 * r) * kp;
      int16_t* low = high + kp;
      for (size_t kk = 0; kk < k; ++kk) {
        const int32_t x = row[kk * k_stride];
        high[kk] = static_cast<int16_t>(x >> 8);
        low[kk] = static_cast<int16_t>(x & 255);
      }
      std::fill(high + k, high + kp, int16_t{0});
      std::fill(low + k, low + kp, int16_t{0});
    } else {
      int16_t* out = dst + static_cast<size_t>(r) * kp;
      for (size_t kk = 0; kk < k; ++kk) out[kk] = static_cast<int16_t>(row[kk * k_stride] + offset);
      std::fill(out + k, out + kp, int16_t{0});
    }
  }
}

// The im2col rows [m0, m0 + rows) of an int16 convolution: taps in the padding read 0 (int16
// inputs have zero point 0), values past k are 0.
void PackConvRows(const Q16GemmState& s, const int16_t* input, int64_t m0, int rows, size_t kp, int16_t* dst) {
  const WindowGeometry& g = s.geometry;
  const size_t channels = s.channels;
  const int64_t plane = static_cast<int64_t>(g.out_height) * g.out_width;
  for (int r = 0; r < rows; ++r) {
    const int64_t m = m0 + r;
    const int64_t b = m / plane;
    const int oy = static_cast<int>((m % plane) / g.out_width);
    const int ox = static_cast<int>(m % g.out_width);
    int16_t* tap = dst + static_cast<size_t>(r) * kp;
    for (int ky = 0; ky < g.kernel_height; ++ky) {
      const int iy = oy * g.stride_height - g.pad_top + ky * g.dilation_height;
      for (int kx = 0; kx < g.kernel_width; ++kx, tap += channels) {
        const int ix = ox * g.stride_width - g.pad_left + kx * g.dilation_width;
        if (iy < 0 || iy >= g.in_height || ix < 0 || ix >= g.in_width) {
          std::fill(tap, tap + channels, int16_t{0});
        } else {
          std::memcpy(tap, input + ((b * g.in_height + iy) * g.in_width + ix) * static_cast<int64_t>(channels),
                      channels * sizeof(int16_t));
        }
      }
    }
    std::fill(dst + static_cast<size_t>(r) * kp + s.k, dst + static_cast<size_t>(r + 1) * kp, int16_t{0});
  }
}

int64_t BroadcastIndex(const int* dims, int64_t problem, const int* out) {
  const int64_t b2 = problem % out[2];
  const int64_t b1 = (problem / out[2]) % out[1];
  const int64_t b0 = problem / (static_cast<int64_t>(out[2]) * out[1]);
  const int64_t i0 = dims[0] == 1 ? 0 : b0;
  const int64_t i1 = dims[1] == 1 ? 0 : b1;
  const int64_t i2 = dims[2] == 1 ? 0 : b2;
  return (i0 * dims[1] + i1) * dims[2] + i2;
}

void ExtendedBatchDims(const TfLiteTensor* tensor, int* batch) {
  const int rank = tensor->dims->size;
  for (int i = 0; i < 3; ++i) batch[i] = i < 5 - rank ? 1 : tensor->dims->data[i - (5 - rank)];
}

// The end of the Prepare of an int16 x int8 GEMM with constant weights (FULLY_CONNECTED, CONV_2D),
// once kernels, shape and rows are set: the reference's stages (int64 sums with an int64 bias,
// else ruy's, one group), the weights' zero point, and the packed weights, which Eval packs the
// first time (Init stays short) and a second Prepare of the same weights keeps.
bool FinishConstantWeightsPrepare(TfLiteContext* context, const nn::OutputRequantization& rq,
                                  const TfLiteTensor* weights, const TfLiteTensor* bias, const TfLiteTensor* output,
                                  Q16GemmState* s) {
  s->split = false;
  s->exact64 = bias != nullptr && bias->type == kTfLiteInt64;
  s->out16 = true;
  s->a_offset = 0;
  s->b_offset = -weights->params.zero_point;
  if (!BuildColumns(rq, bias, output->params.zero_point, s)) return false;
  if (!(s->constant_b && s->packed_from == weights->data.raw && s->packed_kernels == s->kernels)) {
    s->packed.clear();
    s->packed_from = nullptr;
  }
  s->constant_b = true;
  FinishGemmPrepare(context, s);
  return true;
}

}  // namespace

bool PrepareQ16FullyConnected(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, Q16GemmState* s) {
  QuantFullyConnectedNode fc;
  const auto types_accepted = [](const QuantFullyConnectedNode& fc) {
    return fc.input->type == kTfLiteInt16 && fc.weights->type == kTfLiteInt8 && fc.output->type == kTfLiteInt16 &&
           (fc.bias == nullptr || fc.bias->type == kTfLiteInt32 || fc.bias->type == kTfLiteInt64);
  };
  if (!ReadQuantFullyConnected(context, node, types_accepted, &fc)) return false;
  s->kind = Q16GemmState::Kind::kFullyConnected;
  s->kernels = &Q16KernelsFor(set);
  s->type = kTfLiteInt16;
  s->n = fc.n;
  s->k = fc.k;
  s->rows = fc.rows;
  return FinishConstantWeightsPrepare(context, fc.rq, fc.weights, fc.bias, fc.output, s);
}

bool PrepareQ16Conv(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, const WindowGeometry& geometry,
                    Q16GemmState* s) {
  const auto& params = nn::ParamsOf<TfLiteConvParams>(node);
  const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
  if (input->type != kTfLiteInt16 || filter->type != kTfLiteInt8 || output->type != kTfLiteInt16 ||
      input->dims->size != 4 || filter->dims->size != 4 || input->dims->data[3] != filter->dims->data[3] ||
      !tflite::IsConstantTensor(filter) || tflite::IsDynamicTensor(output) ||
      (bias != nullptr &&
       (!tflite::IsConstantTensor(bias) || (bias->type != kTfLiteInt32 && bias->type != kTfLiteInt64))) ||
      tflite::NumElements(output) == 0) {
    return false;
  }
  const int n = filter->dims->data[0];
  nn::OutputRequantization rq;
  if (nn::PopulateConvolutionQuantizationParams(context, input, filter, bias, output, params.activation, n,
                                                "input 1 (filter)", &rq) != kTfLiteOk) {
    return false;
  }
  s->kind = Q16GemmState::Kind::kConv;
  s->kernels = &Q16KernelsFor(set);
  s->type = kTfLiteInt16;
  s->geometry = geometry;
  s->channels = input->dims->data[3];
  s->n = n;
  s->k = static_cast<size_t>(geometry.taps()) * s->channels;
  s->rows = geometry.out_pixels();
  if (s->k == 0) return false;
  return FinishConstantWeightsPrepare(context, rq, filter, bias, output, s);
}

bool PrepareQ16BatchMatMul(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, Q16GemmState* s) {
  const auto& params = nn::ParamsOf<TfLiteBatchMatMulParams>(node);
  const TfLiteTensor* lhs = tflite::GetInput(context, node, 0);
  const TfLiteTensor* rhs = tflite::GetInput(context, node, 1);
  const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if ((lhs->type != kTfLiteInt16 && lhs->type != kTfLiteInt8) || rhs->type != lhs->type || output->type != lhs->type ||
      tflite::IsDynamicTensor(output) || tflite::NumElements(output) == 0 || lhs->dims->size > 5 ||
      rhs->dims->size > 5 || output->dims->size > 5) {
    return false;
  }
  // The reference's multiplier: the float product of the scales, over the output scale in double.
  const double product = static_cast<double>(lhs->params.scale * rhs->params.scale);
  if (!(product >= 0)) return false;
  nn::OutputRequantization rq;
  int32_t multiplier;
  int shift;
  quantization_util::QuantizeMultiplier(product / static_cast<double>(output->params.scale), &multiplier, &shift);
  const int* lhs_matrix = lhs->dims->data + lhs->dims->size - 2;
  s->kind = Q16GemmState::Kind::kBatchMatMul;
  s->kernels = &Q16KernelsFor(set);
  s->type = lhs->type;
  s->adj_x = params.adj_x;
  s->adj_y = params.adj_y;
  s->rows = output->dims->data[output->dims->size - 2];
  s->n = output->dims->data[output->dims->size - 1];
  s->k = s->adj_x ? lhs_matrix[0] : lhs_matrix[1];
  if (s->k == 0 || s->n <= 0 || s->rows <= 0) return false;
  rq.SetUniform(multiplier, shift);
  ExtendedBatchDims(lhs, s->lhs_batch);
  ExtendedBatchDims(rhs, s->rhs_batch);
  ExtendedBatchDims(output, s->out_batch);
  s->rhs_matrices = static_cast<int64_t>(s->rhs_batch[0]) * s->rhs_batch[1] * s->rhs_batch[2];
  if (lhs->type == kTfLiteInt16) {
    // 64-bit sums of int16 x int16 products, the int64 stage; zero points are 0.
    rq.activation_min = -32768;
    rq.activation_max = 32767;
    s->split = true;
    s->exact64 = true;
    s->out16 = true;
    s->a_offset = 0;
    s->b_offset = 0;
  } else {
    // ruy's stage on the low 32 bits.
    rq.activation_min = -128;
    rq.activation_max = 127;
    s->split = false;
    s->exact64 = false;
    s->out16 = false;
    s->a_offset = -lhs->params.zero_point;
    s->b_offset = -rhs->params.zero_point;
  }
  if (!BuildColumns(rq, nullptr, output->params.zero_point, s)) return false;
  const bool constant = tflite::IsConstantOrPersistentTensor(rhs);
  if (!(constant && s->constant_b && s->packed_from == rhs->data.raw && s->packed_kernels == s->kernels)) {
    s->packed.clear();
    s->packed_from = nullptr;
  }
  s->constant_b = constant;
  FinishGemmPrepare(context, s);
  return true;
}

TfLiteStatus EvalQ16Gemm(TfLiteContext* context, TfLiteNode* node, Q16GemmState* s) {
  const TfLiteTensor* a_tensor = tflite::GetInput(context, node, 0);
  const TfLiteTensor* b_tensor = tflite::GetInput(context, node, 1);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (!s->constant_b || s->packed_from != b_tensor->data.raw || s->packed_kernels != s->kernels || s->packed.empty()) {
    PackWeightsOrRhs(context, b_tensor, s);
  }
  const Q16Kernels& kernels = *s->kernels;
  const int nr = kernels.nr;
  const size_t pairs = s->pairs;
  const size_t kp = pairs * 2;
  const int row_factor = s->split ? 2 : 1;
  const int mr = kernels.mr / row_factor;  // output rows per tile
  const bool bmm = s->kind == Q16GemmState::Kind::kBatchMatMul;
  const int64_t problems = bmm ? static_cast<int64_t>(s->out_batch[0]) * s->out_batch[1] * s->out_batch[2] : 1;
  const int64_t tiles = (s->rows + mr - 1) / mr;
  const int64_t tile_base_rows = s->rows / tiles;
  const int64_t tiles_with_extra_row = s->rows % tiles;
  auto tile_first_row = [&](int64_t tile) { return tile * tile_base_rows + std::min(tile, tiles_with_extra_row); };
  const int64_t panels = (s->n + nr - 1) / nr;
  // Few row tiles (a fully connected layer, one small matrix): the panels are split too.
  const int64_t max_chunks = MaxChunks(context);
  int64_t groups = 1;
  if (problems * tiles < max_chunks && panels > 1) {
    groups = std::min<int64_t>(panels, (max_chunks + problems * tiles - 1) / (problems * tiles));
  }
  const int64_t panels_per_group = (panels + groups - 1) / groups;
  groups = (panels + panels_per_group - 1) / panels_per_group;
  const int64_t macs_per_item =
      static_cast<int64_t>(mr) * row_factor * static_cast<int64_t>(kp) * panels_per_group * nr;
  const int64_t min_items = std::max<int64_t>(1, kMinMacsPerChunk / std::max<int64_t>(1, macs_per_item));
  const size_t out_bytes = s->out16 ? 2 : 1;
  const int64_t lhs_rows = bmm ? s->rows : 0;
  const int64_t lhs_matrix = bmm ? s->rows * static_cast<int64_t>(s->k) : 0;
  uint8_t* out_base = output->data.uint8;
  const int threads = NumThreads(context);
  s->a_tile.Ensure(threads, static_cast<size_t>(kernels.mr) * kp);
  s->sums32.Ensure(threads, static_cast<size_t>(kernels.mr) * nr);
  s->sums64.Ensure(threads, static_cast<size_t>(kernels.mr) * nr);

  ParallelChunks(context, problems * tiles * groups, min_items, [&](int, int64_t begin, int64_t end) {
    const int thread = CurrentThread(context);
    int16_t* a = s->a_tile.part(thread);
    int32_t* sums32 = s->sums32.part(thread);
    int64_t* sums64 = s->sums64.part(thread);
    int64_t current = -1;
    int rows = 0;
    int64_t m0 = 0;
    const int16_t* b_matrix = s->packed.data();
    uint8_t* out_matrix = out_base;
    for (int64_t item = begin; item < end; ++item) {
      const int64_t problem = item / (tiles * groups);
      const int64_t tile = (item / groups) % tiles;
      const int64_t group = item % groups;
      if (problem * tiles + tile != current) {
        current = problem * tiles + tile;
        m0 = tile_first_row(tile);
        rows = static_cast<int>(tile_first_row(tile + 1) - m0);
        if (s->kind == Q16GemmState::Kind::kConv) {
          PackConvRows(*s, a_tensor->data.i16, m0, rows, kp, a);
        } else if (s->kind == Q16GemmState::Kind::kFullyConnected) {
          PackMatrixRows(kernels, a_tensor->data.i16, static_cast<int64_t>(s->k), 1, m0, rows, s->k, kp, false, 0, a);
        } else {
          const int64_t lhs_index = BroadcastIndex(s->lhs_batch, problem, s->out_batch);
          // Element (row, kk): [rows][k], or [k][rows] with adj_x.
          const int64_t row_stride = s->adj_x ? 1 : static_cast<int64_t>(s->k);
          const int64_t k_stride = s->adj_x ? lhs_rows : 1;
          if (s->type == kTfLiteInt16) {
            PackMatrixRows(kernels, a_tensor->data.i16 + lhs_index * lhs_matrix, row_stride, k_stride, m0, rows, s->k,
                           kp, true, 0, a);
          } else {
            PackMatrixRows(kernels, a_tensor->data.int8 + lhs_index * lhs_matrix, row_stride, k_stride, m0, rows, s->k,
                           kp, false, s->a_offset, a);
          }
          b_matrix = s->packed.data() + BroadcastIndex(s->rhs_batch, problem, s->out_batch) * s->packed_matrix;
          out_matrix = out_base + problem * s->rows * s->n * static_cast<int64_t>(out_bytes);
        }
      }
      const int virtual_rows = rows * row_factor;
      const int64_t panel_end = std::min(panels, (group + 1) * panels_per_group);
      for (int64_t panel = group * panels_per_group; panel < panel_end; ++panel) {
        const int first = static_cast<int>(panel * nr);
        const int cols = std::min(nr, s->n - first);
        const int16_t* b = b_matrix + static_cast<size_t>(panel) * pairs * nr * 2;
        uint8_t* out = out_matrix + (m0 * s->n + first) * static_cast<int64_t>(out_bytes);
        const size_t out_stride = s->n;
        if (!s->exact64) {
          kernels.gemm(a, kp, virtual_rows, b, pairs, sums32);
          kernels.stage32(sums32, rows, nr, cols, s->columns, first, s->out16, out, out_stride);
          continue;
        }
        // Blocks whose int32 sums cannot wrap; all but the last carried in int64.
        size_t p0 = 0;
        for (; pairs - p0 > kQ16BlockPairs; p0 += kQ16BlockPairs) {
          kernels.gemm(a + 2 * p0, kp, virtual_rows, b + p0 * nr * 2, kQ16BlockPairs, sums32);
          kernels.accumulate64(sums32, s->split, /*assign=*/p0 == 0, rows, nr, sums64);
        }
        kernels.gemm(a + 2 * p0, kp, virtual_rows, b + p0 * nr * 2, pairs - p0, sums32);
        kernels.stage64(p0 > 0 ? sums64 : nullptr, sums32, s->split, rows, nr, cols, s->columns, first,
                        reinterpret_cast<int16_t*>(out), out_stride);
      }
    }
  });
  return kTfLiteOk;
}

// ---- ADD and MUL.

namespace {

// The reference's activation range (kernel_util.h's, TFLite's); false where it refuses the output,
// so that the reference's Prepare reports why.
bool ElementwiseActivationBounds(TfLiteFusedActivation activation, const TfLiteTensor* out, int32_t* lo, int32_t* hi) {
  return tflite::CalculateActivationRangeQuantized(nullptr, activation, out, lo, hi) == kTfLiteOk;
}

// The reference's PrepareQuantizedAddSub for ADD.
bool AddParams(const TfLiteNode* node, const TfLiteTensor* in1, const TfLiteTensor* in2, const TfLiteTensor* out,
               Q16AddParams* p) {
  const auto* params = static_cast<const TfLiteAddParams*>(node->builtin_data);
  const TfLiteFusedActivation activation = params != nullptr ? params->activation : kTfLiteActNone;
  // The output type's range (uint8, int8, else int16), which every zero point must lie in.
  const int32_t qmin = out->type == kTfLiteUInt8 ? 0 : (out->type == kTfLiteInt8 ? -128 : -32768);
  const int32_t qmax = out->type == kTfLiteUInt8 ? 255 : (out->type == kTfLiteInt8 ? 127 : 32767);
  for (const TfLiteTensor* t : {in1, in2, out}) {
    if (t->params.zero_point < qmin || t->params.zero_point > qmax) return false;
  }
  p->type = out->type;
  p->pot = false;
  if (out->type == kTfLiteInt16) {
    if (in1->params.zero_point != 0 || in2->params.zero_point != 0 || out->params.zero_point != 0) return false;
    if (params != nullptr && params->pot_scale_int16) {
      int log1 = 0, log2 = 0, logo = 0;
      const bool pot1 = quantization_util::CheckedLog2(in1->params.scale, &log1);
      const bool pot2 = quantization_util::CheckedLog2(in2->params.scale, &log2);
      const bool poto = quantization_util::CheckedLog2(out->params.scale, &logo);
      if (pot1 && pot2 && poto) {
        const int shift1 = log1 - logo, shift2 = log2 - logo;
        if ((shift1 != 0 && shift2 != 0) || shift1 > 0 || shift2 > 0) return false;  // the reference refuses
        p->pot = true;
        p->pot_shift_first = shift1 != 0;
        p->pot_shift = p->pot_shift_first ? -shift1 : -shift2;
        if (p->pot_shift > 31) return false;
      }
    }
  }
  if (!p->pot) {
    p->input1_offset = -in1->params.zero_point;
    p->input2_offset = -in2->params.zero_point;
    p->output_offset = out->params.zero_point;
    p->left_shift = out->type == kTfLiteInt16 ? 15 : 20;
    int32_t m1, m2, mo;
    int s1, s2, so;
    quantization_util::QuantizeAddMultipliers(in1->params.scale, in2->params.scale, out->params.scale, p->left_shift,
                                              &m1, &s1, &m2, &s2, &mo, &so);
    if (!SplitMultiplier(m1, s1, &p->input1_multiplier, &p->input1_left, &p->input1_right) ||
        !SplitMultiplier(m2, s2, &p->input2_multiplier, &p->input2_left, &p->input2_right) ||
        !SplitMultiplier(mo, so, &p->output_multiplier, &p->output_left, &p->output_right)) {
      return false;
    }
  }
  return ElementwiseActivationBounds(activation, out, &p->act_min, &p->act_max);
}

// The reference's quantized MUL parameters.
bool MulParams(const TfLiteNode* node, const TfLiteTensor* in1, const TfLiteTensor* in2, const TfLiteTensor* out,
               Q16MulParams* p) {
  const auto* params = static_cast<const TfLiteMulParams*>(node->builtin_data);
  const TfLiteFusedActivation activation = params != nullptr ? params->activation : kTfLiteActNone;
  // int16 MUL takes zero points of 0 only (the reference refuses others at Invoke).
  if (out->type == kTfLiteInt16 &&
      (in1->params.zero_point != 0 || in2->params.zero_point != 0 || out->params.zero_point != 0)) {
    return false;
  }
  p->type = out->type;
  p->input1_offset = -in1->params.zero_point;
  p->input2_offset = -in2->params.zero_point;
  p->output_offset = out->params.zero_point;
  // The scale ratio in float, as the reference forms it.
  const float real = in1->params.scale * in2->params.scale / out->params.scale;
  int32_t multiplier;
  int shift;
  quantization_util::QuantizeMultiplier(real, &multiplier, &shift);
  if (!SplitMultiplier(multiplier, shift, &p->multiplier, &p->left, &p->right)) return false;
  // The products (a + offset) * (b + offset) fit int32 for 8-bit offsets in range.
  if (out->type != kTfLiteInt16) {
    for (int32_t offset : {p->input1_offset, p->input2_offset}) {
      if (offset < -255 || offset > 255) return false;
    }
  }
  return ElementwiseActivationBounds(activation, out, &p->act_min, &p->act_max);
}

// The broadcast of a's and b's shapes onto out's, reduced: dimensions of 1 dropped, and neighbours
// merged where both inputs read them as one (both contiguous across them, or both broadcast).
bool ReduceShapes(const TfLiteIntArray* a, const TfLiteIntArray* b, const TfLiteIntArray* out, Q16BinaryState* s) {
  constexpr int kMaxRank = Q16BinaryState::kMaxRank;
  if (out->size > kMaxRank || a->size > out->size || b->size > out->size) return false;
  int64_t extent[kMaxRank], sa[kMaxRank], sb[kMaxRank];
  const TfLiteIntArray* inputs[2] = {a, b};
  int64_t* strides[2] = {sa, sb};
  for (int k = 0; k < 2; ++k) {
    const TfLiteIntArray* in = inputs[k];
    const int lead = out->size - in->size;
    int64_t stride = 1;
    for (int d = out->size - 1; d >= 0; --d) {
      const int64_t e = d - lead >= 0 ? in->data[d - lead] : 1;
      extent[d] = out->data[d];
      if (e == extent[d]) {
        strides[k][d] = e == 1 ? 0 : stride;
      } else if (e == 1) {
        strides[k][d] = 0;
      } else {
        return false;
      }
      stride *= e;
    }
  }
  s->rank = 0;
  for (int d = 0; d < out->size; ++d) {
    if (extent[d] == 1) continue;
    if (s->rank > 0) {
      const int last = s->rank - 1;
      auto merges = [&](const int64_t* st, const int64_t* reduced) {
        return (reduced[last] == 0 && st[d] == 0) || (reduced[last] == st[d] * extent[d] && st[d] != 0);
      };
      if (merges(sa, s->a_stride) && merges(sb, s->b_stride)) {
        s->extent[last] *= extent[d];
        s->a_stride[last] = sa[d];
        s->b_stride[last] = sb[d];
        continue;
      }
    }
    s->extent[s->rank] = extent[d];
    s->a_stride[s->rank] = sa[d];
    s->b_stride[s->rank] = sb[d];
    ++s->rank;
  }
  return true;
}

}  // namespace

bool PrepareQ16Binary(TfLiteContext* context, TfLiteNode* node, bool mul, const MicroKernels& set, Q16BinaryState* s) {
  if (node->inputs->size != 2 || node->outputs->size != 1) return false;
  const TfLiteTensor* a = tflite::GetInput(context, node, 0);
  const TfLiteTensor* b = tflite::GetInput(context, node, 1);
  const TfLiteTensor* out = tflite::GetOutput(context, node, 0);
  if (!IsQuantizedType(out->type) || a->type != out->type || b->type != out->type || tflite::IsDynamicTensor(out) ||
      !HasScale(a) || !HasScale(b) || !HasScale(out)) {
    return false;
  }
  s->mul = mul;
  if (mul ? !MulParams(node, a, b, out, &s->mul_params) : !AddParams(node, a, b, out, &s->add)) return false;
  if (!ReduceShapes(a->dims, b->dims, out->dims, s)) return false;
  s->elements = tflite::NumElements(out);
  s->kernels = &Q16KernelsFor(set);
  s->element_bytes = ElementBytes(out->type);
  s->expanded.Ensure(NumThreads(context), kExpandElements * s->element_bytes);
  NotePrepared();
  return true;
}

TfLiteStatus EvalQ16Binary(TfLiteContext* context, TfLiteNode* node, Q16BinaryState* s) {
  const uint8_t* a = tflite::GetInput(context, node, 0)->data.uint8;
  const uint8_t* b = tflite::GetInput(context, node, 1)->data.uint8;
  uint8_t* out = tflite::GetOutput(context, node, 0)->data.uint8;
  const size_t bytes = s->element_bytes;
  const Q16Kernels& kernels = *s->kernels;
  auto run = [&](const uint8_t* x, const uint8_t* y, int64_t n, uint8_t* z) {
    if (s->mul) {
      kernels.mul(x, y, n, s->mul_params, z);
    } else {
      kernels.add(x, y, n, s->add, z);
    }
  };
  if (s->rank == 0) {  // one element
    run(a, b, 1, out);
    return kTfLiteOk;
  }
  const int last = s->rank - 1;
  const int64_t inner = s->extent[last];
  const int64_t outer = s->elements / inner;
  const bool a_broadcast = s->a_stride[last] == 0;
  const bool b_broadcast = s->b_stride[last] == 0;
  // Runs [begin, end) of `outer`, each split into pieces [i0, i1) of the run; an operand broadcast
  // along the run is read from a buffer of its value (the kernels take contiguous operands).
  auto runs = [&](int64_t begin, int64_t end, int64_t i0, int64_t i1) {
    uint8_t* expanded = s->expanded.part(CurrentThread(context));
    int64_t index[Q16BinaryState::kMaxRank] = {};
    int64_t rest = begin;
    int64_t a_offset = 0, b_offset = 0;
    for (int d = last - 1; d >= 0; --d) {
      index[d] = rest % s->extent[d];
      rest /= s->extent[d];
      a_offset += index[d] * s->a_stride[d];
      b_offset += index[d] * s->b_stride[d];
    }
    for (int64_t o = begin; o < end; ++o) {
      for (int64_t p = i0; p < i1; p += kExpandElements) {
        const int64_t n = std::min(kExpandElements, i1 - p);
        const uint8_t* x = a + (a_offset + p * s->a_stride[last]) * bytes;
        const uint8_t* y = b + (b_offset + p * s->b_stride[last]) * bytes;
        if (a_broadcast || b_broadcast) {
          // Expanded once per run: the value does not change along it.
          if (p == i0) {
            const uint8_t* value = a_broadcast ? x : y;
            const int64_t count = std::min(kExpandElements, i1 - i0);
            for (int64_t i = 0; i < count; ++i) std::memcpy(expanded + i * bytes, value, bytes);
          }
          if (a_broadcast) x = expanded;
          if (b_broadcast) y = expanded;
        }
        run(x, y, n, out + (o * inner + p) * bytes);
      }
      // The next run's offsets, odometer fashion.
      for (int d = last - 1; d >= 0; --d) {
        a_offset += s->a_stride[d];
        b_offset += s->b_stride[d];
        if (++index[d] < s->extent[d]) break;
        a_offset -= s->a_stride[d] * s->extent[d];
        b_offset -= s->b_stride[d] * s->extent[d];
        index[d] = 0;
      }
    }
  };
  if (outer == 1) {
    ParallelChunks(context, inner, kMinElementsPerChunk,
                   [&](int, int64_t begin, int64_t end) { runs(0, 1, begin, end); });
  } else {
    ParallelChunks(context, outer, std::max<int64_t>(1, kMinElementsPerChunk / inner),
                   [&](int, int64_t begin, int64_t end) { runs(begin, end, 0, inner); });
  }
  return kTfLiteOk;
}

// ---- QUANTIZE and DEQUANTIZE.

namespace {

struct ConvertState : OpState {
  const Q16Kernels* q16 = nullptr;
  bool from_float = false;
  double scale = 0.0;
  int32_t zero_point = 0;
  TfLiteType type = kTfLiteNoType;  // the quantized side's
  Q16RequantizeParams requantize;
  int64_t elements = 0;
};

bool PerChannel(const TfLiteTensor* t) {
  const TfLiteAffineQuantization* q = nn::AffineQuantization(t);
  return q != nullptr && q->scale->size > 1;
}

// The end of a Prepare that takes the node: the set's kernels, and the count of nodes taken.
TfLiteStatus TakeNode(ConvertState* s) {
  s->q16 = &Q16KernelsFor(*s->kernels);
  s->fast = true;
  NotePrepared();
  return kTfLiteOk;
}

struct QuantizeOp {
  using State = ConvertState;
  static TfLiteRegistration* Reference() { return reference::Register_QUANTIZE(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    if (tflite::IsDynamicTensor(output) || nn::AffineQuantization(output) == nullptr) return kTfLiteOk;
    s->elements = tflite::NumElements(output);
    if (input->type == kTfLiteFloat32) {
      // Per tensor only (the reference's per-channel quantization rounds in float).
      if (!IsQuantizedType(output->type) || PerChannel(output)) return kTfLiteOk;
      s->from_float = true;
      s->scale = static_cast<double>(output->params.scale);
      s->zero_point = output->params.zero_point;
      s->type = output->type;
    } else {
      // The requantizations the reference takes (its QuantizeSupports).
      bool supported = false;
      switch (input->type) {
        case kTfLiteInt16:
          supported = output->type == kTfLiteInt8 || output->type == kTfLiteInt16 || output->type == kTfLiteInt32;
          break;
        case kTfLiteInt32:
          supported = output->type == kTfLiteInt8 || output->type == kTfLiteInt16;
          break;
        case kTfLiteInt8:
        case kTfLiteUInt8:
          supported = output->type == kTfLiteInt8 || output->type == kTfLiteUInt8;
          break;
        default:
          break;
      }
      if (!supported) return kTfLiteOk;
      int32_t multiplier;
      int shift;
      quantization_util::QuantizeMultiplier(
          static_cast<double>(input->params.scale) / static_cast<double>(output->params.scale), &multiplier, &shift);
      Q16RequantizeParams& p = s->requantize;
      if (!SplitMultiplier(multiplier, shift, &p.multiplier, &p.left, &p.right)) return kTfLiteOk;
      p.input_type = input->type;
      p.output_type = output->type;
      p.input_zero_point = input->params.zero_point;
      p.output_zero_point = output->params.zero_point;
      s->from_float = false;
    }
    return TakeNode(s);
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    const size_t in_bytes = s->from_float ? sizeof(float) : ElementBytes(input->type);
    const size_t out_bytes = ElementBytes(output->type);
    ParallelChunks(context, s->elements, kMinElementsPerChunk, [&](int, int64_t begin, int64_t end) {
      const uint8_t* in = input->data.uint8 + begin * in_bytes;
      uint8_t* out = output->data.uint8 + begin * out_bytes;
      if (s->from_float) {
        s->q16->quantize(reinterpret_cast<const float*>(in), end - begin, s->scale, s->zero_point, s->type, out);
      } else {
        s->q16->requantize(in, end - begin, s->requantize, out);
      }
    });
    return kTfLiteOk;
  }
};

struct DequantizeOp {
  using State = ConvertState;
  static TfLiteRegistration* Reference() { return reference::Register_DEQUANTIZE(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    // Constants (float16 weights, ...) are dequantized once by the reference Prepare.
    if (!IsQuantizedType(input->type) || output->type != kTfLiteFloat32 || PerChannel(input) ||
        tflite::IsConstantOrPersistentTensor(input) || tflite::IsDynamicTensor(output)) {
      return kTfLiteOk;
    }
    s->scale = static_cast<double>(input->params.scale);
    s->zero_point = input->params.zero_point;
    s->type = input->type;
    s->elements = tflite::NumElements(input);
    return TakeNode(s);
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    const size_t in_bytes = ElementBytes(s->type);
    ParallelChunks(context, s->elements, kMinElementsPerChunk, [&](int, int64_t begin, int64_t end) {
      s->q16->dequantize(input->data.uint8 + begin * in_bytes, end - begin, s->scale, s->zero_point, s->type,
                         output->data.f + begin);
    });
    return kTfLiteOk;
  }
};

}  // namespace

int64_t Q16NodesPrepared() { return g_prepared.load(std::memory_order_relaxed); }

TfLiteRegistration* Register_QUANTIZE() { return OptimizedKernel<QuantizeOp>::Registration(); }
TfLiteRegistration* Register_DEQUANTIZE() { return OptimizedKernel<DequantizeOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
