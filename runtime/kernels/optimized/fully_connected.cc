// FULLY_CONNECTED and BATCH_MATMUL, float32: GEMMs on the packed-panel microkernels over the thread
// pool. FULLY_CONNECTED's uint8 and int8 forms run the integer kernels of quantized.h
// (byte-identical to the reference), and its hybrid form (float input, int8 weights per tensor) the
// reference's arithmetic with the integer dot products on the int8 matrix-vector kernels
// (int8_gemv.h: VNNI, AVX2 or NEON over weights packed at the first Eval): the
// input rows quantized by the same function, the same int32 sums, the same float steps after them,
// so its output is the reference's bit for bit. FULLY_CONNECTED with int16 activations (16x8) and
// the int8 and int16 BATCH_MATMUL run the 16-bit GEMM of quantized16.h, byte-identical too. The other
// forms run the reference kernel.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/lstm_float.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/elementwise.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/int8_gemv.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/kernels/optimized/softmax.h"
#include "runtime/kernels/reference/reference_ops.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "runtime/kernels/optimized/isa_target.h"
#endif

namespace touchstone {
namespace optimized {
namespace {

// ---- FULLY_CONNECTED: output[r][u] = clamp(bias[u] + sum_k input[r][k] * weights[u][k]).

// Nodes with at most this many multiply-adds per Invoke run FullyConnectedOp::EvalTiny.
constexpr size_t kTinyMultiplyAdds = 512;

#if defined(__x86_64__)
TS_TARGET_BEGIN("avx")
// EvalTiny's row on the AVX sets: each block of 8 units (weights [depth][8], bias padded to whole
// blocks) summed in one 256-bit register, AVX without FMA so that each product and sum rounds apart
// in the plain loop's order; then the bias and the clamp (max(lo, v) then min(hi, .): a NaN stays,
// as in ClampToActivation), stored whole or, in the last block, lane by lane.
void TinyRowAvx(const float* x, size_t depth, const float* w, const float* bias, size_t units, float act_min,
                float act_max, float* out) {
  const __m256 lo = _mm256_set1_ps(act_min);
  const __m256 hi = _mm256_set1_ps(act_max);
  size_t first = 0;
  // Two whole blocks at a time: each unit's sum is a chain of dependent adds, two chains overlap.
  for (; first + 16 <= units; first += 16, w += depth * 16) {
    const float* w2 = w + depth * 8;
    __m256 sums = _mm256_setzero_ps();
    __m256 sums2 = _mm256_setzero_ps();
    for (size_t d = 0; d < depth; ++d) {
      const __m256 xd = _mm256_set1_ps(x[d]);
      sums = _mm256_add_ps(sums, _mm256_mul_ps(xd, _mm256_loadu_ps(w + d * 8)));
      sums2 = _mm256_add_ps(sums2, _mm256_mul_ps(xd, _mm256_loadu_ps(w2 + d * 8)));
    }
    _mm256_storeu_ps(out + first,
                     _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_add_ps(sums, _mm256_loadu_ps(bias + first)))));
    _mm256_storeu_ps(out + first + 8,
                     _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_add_ps(sums2, _mm256_loadu_ps(bias + first + 8)))));
  }
  for (; first < units; first += 8, w += depth * 8) {
    __m256 sums = _mm256_setzero_ps();
    for (size_t d = 0; d < depth; ++d) {
      sums = _mm256_add_ps(sums, _mm256_mul_ps(_mm256_set1_ps(x[d]), _mm256_loadu_ps(w + d * 8)));
    }
    const __m256 v = _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_add_ps(sums, _mm256_loadu_ps(bias + first))));
    if (units - first >= 8) {
      _mm256_storeu_ps(out + first, v);
    } else {
      // Lanes below the count (compared as floats: AVX has no 256-bit integer compare).
      const __m256 lanes = _mm256_setr_ps(0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f);
      const __m256 below = _mm256_cmp_ps(lanes, _mm256_set1_ps(static_cast<float>(units - first)), _CMP_LT_OQ);
      _mm256_maskstore_ps(out + first, _mm256_castps_si256(below), v);
    }
  }
}
TS_TARGET_END
#endif

struct FullyConnectedState : OpState {
  size_t rows = 0, units = 0, depth = 0;
  float act_min = 0.f, act_max = 0.f;
  const GemmVariant* variant = nullptr;
  CacheAlignedVector<float> packed;
  const void* packed_weights = nullptr;
  const void* packed_bias = nullptr;
  const GemmVariant* packed_variant = nullptr;
  bool constant_weights = false;
  bool tiny = false;                   // few enough multiply-adds for plain loops (EvalTiny)
  std::vector<float> tiny_transposed;  // EvalTiny's weights: blocks of 8 units, [depth][8] each
  std::vector<float> tiny_bias;        // and bias, zeros past the last unit (and without one)
  const void* tiny_from = nullptr;     // the weights they were transposed from
  const void* tiny_bias_from = nullptr;
  std::vector<const float*> row_pointers;
  const float* rows_input = nullptr;
  bool quantized = false;
  QuantGemmState quant;
  bool q16 = false;  // int16 activations (quantized16.h)
  Q16GemmState q16_state;
  // Hybrid: the quantized input rows, their scale factors and zero points, the weights' row sums.
  bool hybrid = false;
  bool asymmetric = false;
  TfLiteFusedActivation activation = kTfLiteActNone;
  nn::QuantizedRows quantized_input;
  std::vector<int32_t> row_sums;
  // The weights packed for the int8 matrix-vector kernels, one block of kHybridUnitsPerTask units
  // after another (block_bytes each), at the first Eval.
  const Int8GemvKernels* gemv = nullptr;
  std::vector<uint8_t> hybrid_packed;
  size_t hybrid_block_bytes = 0;
  const void* hybrid_packed_from = nullptr;
};

// Units of one hybrid task: its dot products in one call.
constexpr int64_t kHybridUnitsPerTask = 16;

struct FullyConnectedOp {
  using State = FullyConnectedState;
  // Float paths accumulate in another order than the reference anyway: denormals flushed there
  // (float_mode.h). Not EvalTiny's few hundred multiply-adds: switching the mode twice would cost more
  // than the node (hello_world's three nodes: a fifth of the Invoke).
  static bool FlushesDenormals(const FullyConnectedState* s) {
    return !s->quantized && !s->hybrid && !s->q16 && !s->tiny;
  }
  static TfLiteRegistration* Reference() { return reference::Register_FULLY_CONNECTED(); }

  // Packs the weights and bias; constant weights' file pages are then given back (ConstantCopied).
  static void Pack(TfLiteContext* context, State* s, const TfLiteTensor* weights, const TfLiteTensor* bias) {
    PackGemmWeights(s->units, 1, s->depth, tflite::GetTensorData<float>(weights), s->depth, 0, 1,
                    bias != nullptr ? tflite::GetTensorData<float>(bias) : nullptr, s->variant->nr, &s->packed);
    s->packed_weights = weights->data.raw;
    s->packed_bias = bias != nullptr ? bias->data.raw : nullptr;
    s->packed_variant = s->variant;
    if (s->constant_weights) ConstantCopied(context, weights->data.raw, weights->bytes);
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto& params = nn::ParamsOf<TfLiteFullyConnectedParams>(node);
    const auto [input, weights, bias, output] = nn::WeightedNodeTensors(context, node);
    s->quantized = false;
    s->hybrid = false;
    s->tiny = false;
    s->q16 = false;
    if (input->type != kTfLiteFloat32) {
      s->q16 = PrepareQ16FullyConnected(context, node, *s->kernels, &s->q16_state);
      s->quantized = !s->q16 && PrepareQuantFullyConnected(context, node, *s->kernels, &s->quant);
      s->fast = s->quantized || s->q16;
      return kTfLiteOk;
    }
    if (weights->type == kTfLiteInt8) {
      s->fast = PrepareHybrid(params, input, weights, bias, output, s);
      return kTfLiteOk;
    }
    if (input->type != kTfLiteFloat32 || weights->type != kTfLiteFloat32 ||
        (bias != nullptr && bias->type != kTfLiteFloat32) || output->type != kTfLiteFloat32 ||
        tflite::NumElements(output) == 0 || tflite::IsDynamicTensor(output)) {
      return kTfLiteOk;
    }
    s->units = weights->dims->data[0];
    s->depth = weights->dims->data[1];
    s->rows = tflite::NumElements(output) / s->units;
    tflite::CalculateActivationRange(params.activation, &s->act_min, &s->act_max);
    s->variant = &ChooseGemmVariant(*s->kernels, s->units);
    s->tiny = s->depth > 0 && s->rows * s->units * s->depth <= kTinyMultiplyAdds;
    if (!s->tiny) s->tiny_from = nullptr;
    s->constant_weights = tflite::IsConstantOrPersistentTensor(weights) &&
                          (bias == nullptr || tflite::IsConstantOrPersistentTensor(bias));
    // Constant weights are packed at the first Invoke (Init stays short, as TFLite's, whose kernels
    // also pack on first use), and kept across a second Prepare with the same constants.
    if (!(s->constant_weights && s->packed_weights == weights->data.raw &&
          s->packed_bias == (bias != nullptr ? bias->data.raw : nullptr) && s->packed_variant == s->variant)) {
      s->packed.clear();
      s->packed_weights = nullptr;
      s->packed_bias = nullptr;
    }
    s->rows_input = nullptr;
    s->fast = true;
    return kTfLiteOk;
  }

  // The hybrid form with one weights scale (per-channel weights keep the reference, whose TFLite
  // output is the bias alone), constant weights, float bias and output.
  static bool PrepareHybrid(const TfLiteFullyConnectedParams& params, const TfLiteTensor* input,
                            const TfLiteTensor* weights, const TfLiteTensor* bias, const TfLiteTensor* output,
                            State* s) {
    const auto* quantization = static_cast<const TfLiteAffineQuantization*>(weights->quantization.params);
    if (output->type != kTfLiteFloat32 || (bias != nullptr && bias->type != kTfLiteFloat32) ||
        !tflite::IsConstantTensor(weights) || tflite::NumElements(output) == 0 || tflite::IsDynamicTensor(output) ||
        (quantization != nullptr && quantization->scale != nullptr && quantization->scale->size > 1) ||
        weights->dims->size != 2) {
      return false;
    }
    s->units = weights->dims->data[0];
    s->depth = weights->dims->data[1];
    if (s->units == 0 || tflite::NumElements(input) % static_cast<int64_t>(s->depth) != 0) return false;
    s->rows = tflite::NumElements(output) / s->units;
    s->asymmetric = params.asymmetric_quantize_inputs;
    s->activation = params.activation;
    s->quantized_input.Resize(s->rows, s->depth);
    s->row_sums.assign(s->units, 0);
    if (s->asymmetric) {
      const int8_t* w = tflite::GetTensorData<int8_t>(weights);
      for (size_t unit = 0; unit < s->units; ++unit) {
        int32_t sum = 0;
        for (size_t d = 0; d < s->depth; ++d) sum += w[unit * s->depth + d];
        s->row_sums[unit] = sum;
      }
    }
    s->gemv = &Int8GemvKernelsFor(*s->kernels);
    s->hybrid_packed_from = nullptr;
    s->hybrid = true;
    return true;
  }

  // The reference's FullyConnectedHybrid, step for step, with the dot products vectorised and the
  // units of each row split over the threads.
  static TfLiteStatus EvalHybrid(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto [input, weights, bias, output] = nn::WeightedNodeTensors(context, node);
    const float* input_data = tflite::GetTensorData<float>(input);
    const int8_t* weights_data = tflite::GetTensorData<int8_t>(weights);
    const float* bias_data = bias != nullptr ? tflite::GetTensorData<float>(bias) : nullptr;
    float* output_data = tflite::GetTensorData<float>(output);
    const int depth = static_cast<int>(s->depth);
    s->quantized_input.Quantize(input_data, s->asymmetric);
    for (float& scaling_factor : s->quantized_input.scaling_factors) scaling_factor *= weights->params.scale;
    const int64_t unit_blocks = (static_cast<int64_t>(s->units) + kHybridUnitsPerTask - 1) / kHybridUnitsPerTask;
    const int64_t min_tasks = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, kHybridUnitsPerTask * depth));
    const Int8GemvKernels& gemv = *s->gemv;
    if (s->hybrid_packed_from != weights_data) {
      s->hybrid_block_bytes = gemv.packed_size(kHybridUnitsPerTask, s->depth);
      s->hybrid_packed.assign(static_cast<size_t>(unit_blocks) * s->hybrid_block_bytes, 0);
      for (int64_t block = 0; block < unit_blocks; ++block) {
        const size_t first = static_cast<size_t>(block) * kHybridUnitsPerTask;
        gemv.pack(weights_data + first * s->depth, std::min<size_t>(kHybridUnitsPerTask, s->units - first), s->depth,
                  s->hybrid_packed.data() + block * s->hybrid_block_bytes);
      }
      s->hybrid_packed_from = weights_data;
      ConstantCopied(context, weights_data, weights->bytes);
    }
    ParallelChunks(
        context, static_cast<int64_t>(s->rows) * unit_blocks, min_tasks, [&](int, int64_t begin, int64_t end) {
          int32_t sums[kHybridUnitsPerTask];
          for (int64_t task = begin; task < end; ++task) {
            const size_t row = static_cast<size_t>(task / unit_blocks);
            const int64_t block = task % unit_blocks;
            const size_t first = static_cast<size_t>(block) * kHybridUnitsPerTask;
            const size_t count = std::min<size_t>(kHybridUnitsPerTask, s->units - first);
            gemv.gemv(s->hybrid_packed.data() + block * s->hybrid_block_bytes, count, s->depth,
                      s->quantized_input.values.data() + row * s->depth, sums);
            const float scaling_factor = s->quantized_input.scaling_factors[row];
            const int32_t offset = s->quantized_input.offsets[row];
            float* out = output_data + row * s->units;
            for (size_t j = 0; j < count; ++j) {
              const size_t unit = first + j;
              int32_t dotprod = sums[j];
              if (s->asymmetric) {
                dotprod = quantization_util::TruncateToInt32LikeX86(
                    static_cast<float>(dotprod) - static_cast<float>(s->row_sums[unit]) * static_cast<float>(offset));
              }
              float value = bias_data != nullptr ? bias_data[unit] : 0.f;
              value += static_cast<float>(dotprod) * scaling_factor;
              out[unit] = value;
            }
          }
        });
    lstm::float_internal::ApplyActivation(output_data, static_cast<int>(s->rows * s->units), s->activation,
                                          output_data);
    return kTfLiteOk;
  }

  // A few hundred multiply-adds (hello_world's 16x16 layers) take less time than setting up the GEMM:
  // plain loops over the weights transposed to [depth][units], every unit's sum in the reference's
  // order (so bit-exact) and the units side by side in vector registers.
  static TfLiteStatus EvalTiny(TfLiteContext* context, TfLiteNode* node, State* s) {
    // The tensors straight from the node (no GetInput checks: Prepare took them; a tiny graph's
    // Invoke is mostly such overhead, so the rare work is out of line).
    const TfLiteTensor* tensors = context->tensors;
    const int* inputs = node->inputs->data;
    const float* input_data = tensors[inputs[0]].data.f;
    const void* weights_data = tensors[inputs[1]].data.raw;
    const void* bias_data = node->inputs->size > 2 && inputs[2] >= 0 ? tensors[inputs[2]].data.raw : nullptr;
    float* output_data = tensors[node->outputs->data[0]].data.f;
    if (!s->constant_weights || s->tiny_from != weights_data || s->tiny_bias_from != bias_data) {
      TransposeTiny(s, static_cast<const float*>(weights_data), static_cast<const float*>(bias_data));
    }
#if defined(__x86_64__)
    if (SetHasAvx(*s->kernels)) {
      for (size_t row = 0; row < s->rows; ++row) {
        TinyRowAvx(input_data + row * s->depth, s->depth, s->tiny_transposed.data(), s->tiny_bias.data(), s->units,
                   s->act_min, s->act_max, output_data + row * s->units);
      }
      return kTfLiteOk;
    }
#endif
    TinyRows(*s, input_data, output_data);
    return kTfLiteOk;
  }

  // Blocks of kTinyBlock units (zeros past the last): loops of a constant count, which the compiler
  // keeps in vector registers.
  static constexpr size_t kTinyBlock = 8;

  // EvalTiny's weights transposed to blocks of [depth][kTinyBlock], and its bias padded alike.
  [[gnu::noinline]] static void TransposeTiny(State* s, const float* weights, const float* bias) {
    const size_t depth = s->depth;
    const size_t units = s->units;
    const size_t blocks = (units + kTinyBlock - 1) / kTinyBlock;
    s->tiny_transposed.assign(blocks * depth * kTinyBlock, 0.f);
    for (size_t unit = 0; unit < units; ++unit) {
      float* column = s->tiny_transposed.data() + (unit / kTinyBlock) * depth * kTinyBlock + unit % kTinyBlock;
      for (size_t d = 0; d < depth; ++d) column[d * kTinyBlock] = weights[unit * depth + d];
    }
    // No bias adds 0 as the reference does (-0 becomes +0).
    s->tiny_bias.assign(blocks * kTinyBlock, 0.f);
    if (bias != nullptr) std::copy_n(bias, units, s->tiny_bias.begin());
    s->tiny_from = weights;
    s->tiny_bias_from = bias;
  }

  // EvalTiny's rows in plain loops (the sets without AVX).
  [[gnu::noinline]] static void TinyRows(const State& s, const float* input_data, float* output_data) {
    const size_t depth = s.depth;
    const size_t units = s.units;
    const size_t blocks = (units + kTinyBlock - 1) / kTinyBlock;
    for (size_t row = 0; row < s.rows; ++row) {
      const float* x = input_data + row * depth;
      float* out = output_data + row * units;
      for (size_t block = 0; block < blocks; ++block) {
        const float* w = s.tiny_transposed.data() + block * depth * kTinyBlock;
        float totals[kTinyBlock] = {};
        for (size_t d = 0; d < depth; ++d) {
          const float xd = x[d];
          for (size_t j = 0; j < kTinyBlock; ++j) totals[j] += xd * w[d * kTinyBlock + j];
        }
        const size_t first = block * kTinyBlock;
        const float* bias = s.tiny_bias.data() + first;
        for (size_t j = 0; j < kTinyBlock; ++j) {
          totals[j] = nn::ClampToActivation(totals[j] + bias[j], s.act_min, s.act_max);
        }
        std::copy_n(totals, std::min(kTinyBlock, units - first), out + first);
      }
    }
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->quantized) return EvalQuantGemm(context, node, &s->quant);
    if (s->q16) return EvalQ16Gemm(context, node, &s->q16_state);
    if (s->hybrid) return EvalHybrid(context, node, s);
    if (s->tiny) return EvalTiny(context, node, s);
    const auto [input, weights, bias, output] = nn::WeightedNodeTensors(context, node);
    if (!s->constant_weights || s->packed_weights != weights->data.raw ||
        s->packed_bias != (bias != nullptr ? bias->data.raw : nullptr) || s->packed_variant != s->variant) {
      Pack(context, s, weights, bias);
    }
    const float* input_data = tflite::GetTensorData<float>(input);
    if (s->rows_input != input_data || s->row_pointers.size() != s->rows) {
      s->row_pointers.resize(s->rows);
      for (size_t r = 0; r < s->rows; ++r) s->row_pointers[r] = input_data + r * s->depth;
      s->rows_input = input_data;
    }
    RunGemm(context, MatrixProblem(s->variant, s->rows, s->units, s->depth, s->row_pointers.data(), s->packed.data(),
                                   tflite::GetTensorData<float>(output), s->act_min, s->act_max));
    return kTfLiteOk;
  }
};

// ---- BATCH_MATMUL: lhs [..., M, K] (adj_x: [..., K, M]) times rhs [..., K, N] (adj_y: [..., N,
// K]); batch dimensions (up to 3) broadcast.

constexpr int kMaxRank = 5;
constexpr int kBatchDims = kMaxRank - 2;

void ExtendedBatchDims(const TfLiteTensor* tensor, int* batch_dims) {
  const int rank = tensor->dims->size;
  const int padding = kMaxRank - rank;
  for (int i = 0; i < kBatchDims; ++i) {
    batch_dims[i] = i < padding ? 1 : tensor->dims->data[i - padding];
  }
}

int64_t BroadcastIndex(const int* dims, int b0, int b1, int b2) {
  const int i0 = dims[0] == 1 ? 0 : b0;
  const int i1 = dims[1] == 1 ? 0 : b1;
  const int i2 = dims[2] == 1 ? 0 : b2;
  return (static_cast<int64_t>(i0) * dims[1] + i1) * dims[2] + i2;
}

// An attention block computed by its second BATCH_MATMUL (BatchMatMulOp::PrepareAttention):
// scores = Q K (the first BATCH_MATMUL), a mask added (an ADD folded into the SOFTMAX), softmax
// over each row, output = P V, with RESHAPEs between. Per batch matrix and tile of rows, the
// tile's scores, mask and softmax stay in a per-thread buffer, so the [matrices, rows, rows] scores
// and probabilities (torchaudio_conformer: 17 MB each) are neither written nor read back.
struct AttentionFusion {
  const TfLiteNode* scores_node = nullptr;  // the first BATCH_MATMUL (its state: variant, packing)
  const TfLiteNode* mask_add = nullptr;     // the ADD folded into the SOFTMAX; null: none
  float beta = 1.f;
  size_t tile_rows = 1;         // rows a task computes: at most both GEMM variants' mr
  ThreadScratch<float> buffer;  // per thread: tile_rows rows of scores
};

std::atomic<int64_t> g_attention_runs{0};

struct BatchMatMulState : OpState {
  int lhs_batch[kBatchDims] = {}, rhs_batch[kBatchDims] = {}, out_batch[kBatchDims] = {};
  size_t rows = 0, cols = 0, depth = 0;
  size_t lhs_matrices = 0, rhs_matrices = 0;
  bool adj_x = false, adj_y = false;
  const GemmVariant* variant = nullptr;
  size_t packed_matrix_size = 0;
  CacheAlignedVector<float> packed;  // every rhs matrix, packed
  const void* packed_rhs = nullptr;
  bool constant_rhs = false;
  std::vector<float> lhs_transposed;
  std::vector<const float*> row_pointers;
  std::vector<GemmProblem> problems;
  bool q16 = false;  // int8 and int16 (quantized16.h)
  Q16GemmState q16_state;
  bool fused_into_consumer = false;  // a later BATCH_MATMUL computes this node's output (attention)
  std::unique_ptr<AttentionFusion> attention;
};

struct BatchMatMulOp {
  using State = BatchMatMulState;
  // Float paths accumulate in another order than the reference anyway: denormals flushed there
  // (float_mode.h).
  static bool FlushesDenormals(const BatchMatMulState* s) { return !s->q16; }
  static TfLiteRegistration* Reference() { return reference::Register_BATCH_MATMUL(); }

  static void Pack(TfLiteContext* context, State* s, const TfLiteTensor* rhs) {
    const float* rhs_data = tflite::GetTensorData<float>(rhs);
    const size_t matrix = s->depth * s->cols;
    const size_t nr = s->variant->nr;
    s->packed_matrix_size = (s->cols + nr - 1) / nr * PackedPanelSize(1, s->depth, nr);
    s->packed.resize(s->packed_matrix_size * s->rhs_matrices);
    // Column j, depth k of rhs matrix i: rhs[k][j], or rhs[j][k] with adj_y.
    const size_t col_stride = s->adj_y ? s->depth : 1;
    const size_t k_stride = s->adj_y ? 1 : s->cols;
    ParallelChunks(context, s->rhs_matrices, 1, [&](int, int64_t begin, int64_t end) {
      CacheAlignedVector<float> one;
      for (int64_t i = begin; i < end; ++i) {
        PackGemmWeights(s->cols, 1, s->depth, rhs_data + i * matrix, col_stride, 0, k_stride, nullptr, nr, &one);
        std::copy(one.begin(), one.end(), s->packed.begin() + i * s->packed_matrix_size);
      }
    });
    s->packed_rhs = rhs->data.raw;
    if (s->constant_rhs) ConstantCopied(context, rhs->data.raw, rhs->bytes);
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto& params = nn::ParamsOf<TfLiteBatchMatMulParams>(node);
    const TfLiteTensor* lhs = tflite::GetInput(context, node, 0);
    const TfLiteTensor* rhs = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->q16 = false;
    s->fused_into_consumer = false;
    s->attention.reset();
    if (lhs->type == kTfLiteInt16 || lhs->type == kTfLiteInt8) {
      s->q16 = PrepareQ16BatchMatMul(context, node, *s->kernels, &s->q16_state);
      s->fast = s->q16;
      return kTfLiteOk;
    }
    if (lhs->type != kTfLiteFloat32 || rhs->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 ||
        tflite::NumElements(output) == 0 || tflite::IsDynamicTensor(output)) {
      return kTfLiteOk;
    }
    ExtendedBatchDims(lhs, s->lhs_batch);
    ExtendedBatchDims(rhs, s->rhs_batch);
    ExtendedBatchDims(output, s->out_batch);
    s->adj_x = params.adj_x;
    s->adj_y = params.adj_y;
    const int* lhs_matrix = lhs->dims->data + lhs->dims->size - 2;
    s->rows = output->dims->data[output->dims->size - 2];
    s->cols = output->dims->data[output->dims->size - 1];
    s->depth = s->adj_x ? lhs_matrix[0] : lhs_matrix[1];
    s->lhs_matrices = s->lhs_batch[0] * s->lhs_batch[1] * s->lhs_batch[2];
    s->rhs_matrices = s->rhs_batch[0] * s->rhs_batch[1] * s->rhs_batch[2];
    s->variant = &ChooseGemmVariant(*s->kernels, s->cols);
    s->constant_rhs = tflite::IsConstantOrPersistentTensor(rhs);
    s->packed.clear();
    s->packed_rhs = nullptr;
    if (s->constant_rhs) Pack(context, s, rhs);
    s->fast = true;
    PrepareAttention(context, node, s);
    return kTfLiteOk;
  }

  // Float, every matrix its own (no broadcast batch), the left side not transposed.
  static bool PlainBatches(const State* s) {
    const size_t out_matrices = static_cast<size_t>(s->out_batch[0]) * s->out_batch[1] * s->out_batch[2];
    return s->fast && !s->q16 && !s->adj_x && s->lhs_matrices == out_matrices && s->rhs_matrices == out_matrices;
  }

  // This node's left side is softmax(Q K [+ mask]) through RESHAPEs that keep the rows: the chain
  // BATCH_MATMUL, [RESHAPE], [ADD folded into the SOFTMAX], SOFTMAX, [RESHAPE], this node. The
  // runtime decides whether the graph allows it (fuse_chain: each link's output read by the next
  // alone); the first BATCH_MATMUL and the SOFTMAX then do nothing (EvalAttention).
  static void PrepareAttention(TfLiteContext* context, TfLiteNode* node, State* s) {
    CpuBackendContext* backend = GetCpuBackendContext(context);
    if (backend == nullptr || backend->fuse_chain == nullptr || !PlainBatches(s)) return;
    int chain[6];
    int length = 0;
    auto cpu_node = [](const Producer& p) { return p.producer >= 0 && p.node->delegate == nullptr; };
    auto is_reshape = [&](const Producer& p) {
      return cpu_node(p) && p.registration->builtin_code == kTfLiteBuiltinReshape;
    };
    Producer p = ProducerOfInput(context, node);
    chain[length++] = p.self;
    if (is_reshape(p)) {
      chain[length++] = p.producer;
      p = ProducerOfInput(context, p.node);
    }
    SoftmaxRows softmax;
    if (!cpu_node(p) || !FoldableSoftmax(p.node, p.registration, &softmax)) return;
    TfLiteNode* softmax_node = p.node;
    chain[length++] = p.producer;
    p = ProducerOfInput(context, softmax_node);
    if (softmax.fused_add != nullptr) {
      if (!cpu_node(p) || p.node != softmax.fused_add || !FusedAddFirstInputIsWhole(p.node)) return;
      chain[length++] = p.producer;
      p = ProducerOfInput(context, p.node);
    }
    if (is_reshape(p)) {
      chain[length++] = p.producer;
      p = ProducerOfInput(context, p.node);
    }
    if (!cpu_node(p) || p.registration->invoke != OptimizedKernel<BatchMatMulOp>::Invoke) return;
    State* scores = static_cast<State*>(p.node->user_data);
    if (!PlainBatches(scores) || scores->attention != nullptr || scores->lhs_matrices != s->lhs_matrices ||
        scores->rows != s->rows || scores->cols != s->depth ||
        softmax.rows != static_cast<int64_t>(s->lhs_matrices * s->rows) ||
        softmax.depth != static_cast<int64_t>(s->depth)) {
      return;
    }
    chain[length++] = p.producer;
    std::reverse(chain, chain + length);
    if (!backend->fuse_chain(context, chain, length, /*unwritten=*/false)) return;
    scores->fused_into_consumer = true;
    MarkSoftmaxFused(softmax_node);
    s->attention.reset(new AttentionFusion);
    AttentionFusion& a = *s->attention;
    a.scores_node = p.node;
    a.mask_add = softmax.fused_add;
    a.beta = softmax.beta;
    a.tile_rows = static_cast<size_t>(std::min(scores->variant->mr, s->variant->mr));
    // Written (GEMM, then mask and softmax in place) before each read: not zero-filled.
    a.buffer.EnsureUnfilled(NumThreads(context), a.tile_rows * s->depth);
  }

  // Each task: one tile of rows of one batch matrix, through scores, mask, softmax and the product
  // with this node's right side, with the same microkernel calls on the same values as the nodes
  // apart (each output element's sums run in the same order whatever the tile).
  static TfLiteStatus EvalAttention(TfLiteContext* context, TfLiteNode* node, State* s) {
    AttentionFusion& a = *s->attention;
    State* q = static_cast<State*>(a.scores_node->user_data);
    const TfLiteTensor* q_lhs = &context->tensors[a.scores_node->inputs->data[0]];
    const TfLiteTensor* q_rhs = &context->tensors[a.scores_node->inputs->data[1]];
    const TfLiteTensor* rhs = tflite::GetInput(context, node, 1);
    if (!q->constant_rhs || q->packed_rhs != q_rhs->data.raw) Pack(context, q, q_rhs);
    if (!s->constant_rhs || s->packed_rhs != rhs->data.raw) Pack(context, s, rhs);
    const float* q_data = q_lhs->data.f;
    float* output_data = tflite::GetOutput(context, node, 0)->data.f;
    const size_t rows = s->rows, depth = q->depth, keys = s->depth, cols = s->cols;
    const size_t tiles = (rows + a.tile_rows - 1) / a.tile_rows;
    // Rows spread evenly over the tiles, as RunGemm spreads them.
    const size_t base_rows = rows / tiles, extra_rows = rows % tiles;
    const SoftmaxFn softmax = s->kernels->softmax;
    const float lowest = -std::numeric_limits<float>::infinity(), highest = std::numeric_limits<float>::infinity();
    ParallelChunks(context, static_cast<int64_t>(s->lhs_matrices * tiles), 1, [&](int, int64_t begin, int64_t end) {
      float* buffer = a.buffer.part(CurrentThread(context));
      const float* q_rows[kMaxGemmMr];
      const float* p_rows[kMaxGemmMr];
      for (int64_t task = begin; task < end; ++task) {
        const size_t matrix = static_cast<size_t>(task) / tiles, tile = static_cast<size_t>(task) % tiles;
        const size_t first = tile * base_rows + std::min(tile, extra_rows);
        const size_t count = base_rows + (tile < extra_rows ? 1 : 0);
        const size_t first_row = matrix * rows + first;  // over all matrices
        for (size_t i = 0; i < count; ++i) {
          q_rows[i] = q_data + (first_row + i) * depth;
          p_rows[i] = buffer + i * keys;
        }
        GemmArgs scores;
        scores.nc = keys;
        scores.kc = depth;
        scores.a = q_rows;
        scores.w = q->packed.data() + matrix * q->packed_matrix_size;
        scores.c = buffer;
        scores.c_stride = keys;
        scores.min = lowest;
        scores.max = highest;
        q->variant->fn[count](scores);
        for (size_t i = 0; i < count; ++i) {
          float* row = buffer + i * keys;
          if (a.mask_add != nullptr) FusedAddRow(context, a.mask_add, first_row + i, keys, row, row);
          softmax(keys, row, row, a.beta);
        }
        GemmArgs product;
        product.nc = cols;
        product.kc = keys;
        product.a = p_rows;
        product.w = s->packed.data() + matrix * s->packed_matrix_size;
        product.c = output_data + first_row * cols;
        product.c_stride = cols;
        product.min = lowest;
        product.max = highest;
        s->variant->fn[count](product);
      }
    });
    g_attention_runs.fetch_add(1, std::memory_order_relaxed);
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->q16) return EvalQ16Gemm(context, node, &s->q16_state);
    if (s->fused_into_consumer) return kTfLiteOk;
    if (s->attention != nullptr) return EvalAttention(context, node, s);
    const TfLiteTensor* lhs = tflite::GetInput(context, node, 0);
    const TfLiteTensor* rhs = tflite::GetInput(context, node, 1);
    TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    if (!s->constant_rhs || s->packed_rhs != rhs->data.raw) Pack(context, s, rhs);

    // Rows of every lhs matrix, transposed first with adj_x.
    const float* lhs_data = tflite::GetTensorData<float>(lhs);
    const size_t lhs_matrix = s->rows * s->depth;
    if (s->adj_x) {
      s->lhs_transposed.resize(lhs_matrix * s->lhs_matrices);
      for (size_t i = 0; i < s->lhs_matrices; ++i) {
        const float* src = lhs_data + i * lhs_matrix;            // [K][M]
        float* dst = s->lhs_transposed.data() + i * lhs_matrix;  // [M][K]
        for (size_t k = 0; k < s->depth; ++k) {
          for (size_t m = 0; m < s->rows; ++m) dst[m * s->depth + k] = src[k * s->rows + m];
        }
      }
      lhs_data = s->lhs_transposed.data();
    }
    s->row_pointers.resize(s->rows * s->lhs_matrices);
    for (size_t r = 0; r < s->row_pointers.size(); ++r) {
      s->row_pointers[r] = lhs_data + r * s->depth;
    }

    GemmProblem problem =
        MatrixProblem(s->variant, s->rows, s->cols, s->depth, nullptr, nullptr, nullptr,
                      -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity());
    float* output_data = tflite::GetTensorData<float>(output);
    s->problems.clear();
    for (int b0 = 0; b0 < s->out_batch[0]; ++b0) {
      for (int b1 = 0; b1 < s->out_batch[1]; ++b1) {
        for (int b2 = 0; b2 < s->out_batch[2]; ++b2) {
          problem.a = s->row_pointers.data() + BroadcastIndex(s->lhs_batch, b0, b1, b2) * s->rows;
          problem.w = s->packed.data() + BroadcastIndex(s->rhs_batch, b0, b1, b2) * s->packed_matrix_size;
          problem.c = output_data + BroadcastIndex(s->out_batch, b0, b1, b2) * s->rows * s->cols;
          s->problems.push_back(problem);
        }
      }
    }
    RunGemm(context, s->problems.data(), s->problems.size());
    return kTfLiteOk;
  }
};

}  // namespace

int64_t FusedAttentionRuns() { return g_attention_runs.load(std::memory_order_relaxed); }

TfLiteRegistration* Register_FULLY_CONNECTED() { return OptimizedKernel<FullyConnectedOp>::Registration(); }

TfLiteRegistration* Register_BATCH_MATMUL() { return OptimizedKernel<BatchMatMulOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
