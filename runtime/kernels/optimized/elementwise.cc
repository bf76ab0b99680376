// ADD and MUL, float32: inputs of the same shape, one of them a single value, or any broadcast, run
// vectorised over the thread pool. A broadcast is reduced to rows (BroadcastRows): the output's
// dimensions merged where both inputs step through them alike, the innermost run computed by the
// same microkernel (both inputs consecutive, or one of them a single value over the run). The
// result is exactly the reference's (the same one rounding per element, then the same clamp).
//
// ADD, uint8 and int8, the same shapes. Where the 8-bit kernel set has add_arith (AVX-512, AVX2), Eval
// computes the reference's arithmetic in integer SIMD, lane for lane (the inputs' rescaling and
// the output's with the GEMM's output stage). Elsewhere, since an 8-bit sum depends on nothing but
// its two input bytes, Prepare tabulates the reference's result for all 65536 pairs (64 KiB) and
// Eval looks each element up. Both are byte-identical to the reference.
//
// The other quantized forms (int16 ADD, uint8/int8/int16 MUL, 8-bit ADD with a broadcast) run
// quantized16.h's element-wise kernels, byte-identical as well.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/conv_util.h"
#include "runtime/kernels/optimized/elementwise.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

// Broadcast rows shorter than this are tiled (EvalTiled) into buffers of kTileElements floats.
constexpr int64_t kShortRow = 32;
constexpr int64_t kTileElements = 1024;
// MakeBroadcastRows keeps at most this many outer dimensions (OuterOffsets' odometer).
constexpr size_t kMaxOuterDims = 8;

// A broadcast as rows: the output is `rows` runs of `inner` elements; run r starts in the inputs at
// the offsets the odometer over outer_sizes gives (outer_a / outer_b: each outer dimension's stride,
// 0 where that input repeats), and steps through them by inner_a / inner_b (1, or 0: a single value).
struct BroadcastRows {
  int64_t rows = 0;
  int64_t inner = 0;
  int64_t inner_a = 1, inner_b = 1;
  std::vector<int64_t> outer_sizes, outer_a, outer_b;  // outermost first
};

// Builds `rows` from the inputs' and the output's dimensions (numpy broadcasting, the inputs
// right-aligned); false when the shapes do not broadcast to the output's.
bool MakeBroadcastRows(const TfLiteIntArray* a, const TfLiteIntArray* b, const TfLiteIntArray* out,
                       BroadcastRows* rows) {
  const int rank = out->size;
  if (a->size > rank || b->size > rank) return false;
  struct Dim {
    int64_t size, stride_a, stride_b;
  };
  std::vector<Dim> dims;  // innermost first, size-1 dimensions left out
  int64_t stride_a = 1, stride_b = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t size = out->data[d];
    const int da = d - (rank - a->size), db = d - (rank - b->size);
    const int64_t size_a = da >= 0 ? a->data[da] : 1, size_b = db >= 0 ? b->data[db] : 1;
    if ((size_a != size && size_a != 1) || (size_b != size && size_b != 1)) return false;
    if (size != 1) dims.push_back({size, size_a == 1 ? 0 : stride_a, size_b == 1 ? 0 : stride_b});
    stride_a *= size_a;
    stride_b *= size_b;
  }
  // Merge a dimension into the one inside it where both inputs continue their steps across it.
  std::vector<Dim> merged;
  for (const Dim& dim : dims) {
    if (!merged.empty()) {
      Dim& in = merged.back();
      if (dim.stride_a == in.stride_a * in.size && dim.stride_b == in.stride_b * in.size) {
        in.size *= dim.size;
        continue;
      }
    }
    merged.push_back(dim);
  }
  rows->outer_sizes.clear();
  rows->outer_a.clear();
  rows->outer_b.clear();
  if (merged.empty()) merged.push_back({1, 1, 1});
  const Dim& inner = merged.front();
  // Both inputs repeating over the innermost run: left to the reference kernel.
  if ((inner.stride_a != 1 && inner.stride_a != 0) || (inner.stride_b != 1 && inner.stride_b != 0) ||
      (inner.stride_a == 0 && inner.stride_b == 0 && inner.size > 1)) {
    return false;
  }
  rows->inner = inner.size;
  rows->inner_a = inner.stride_a;
  rows->inner_b = inner.stride_b;
  if (merged.size() - 1 > kMaxOuterDims) return false;
  rows->rows = 1;
  for (size_t i = merged.size(); i-- > 1;) {
    rows->outer_sizes.push_back(merged[i].size);
    rows->outer_a.push_back(merged[i].stride_a);
    rows->outer_b.push_back(merged[i].stride_b);
    rows->rows *= merged[i].size;
  }
  return true;
}

// The two inputs' element offsets at one row of BroadcastRows' first `dims` outer dimensions, moved
// on row by row (an odometer).
struct OuterOffsets {
  OuterOffsets(const BroadcastRows& rows, int dim_count, int64_t first) : r(rows), dims(dim_count) {
    for (int d = dims - 1; d >= 0; --d) {
      index[d] = first % r.outer_sizes[d];
      first /= r.outer_sizes[d];
      a += index[d] * r.outer_a[d];
      b += index[d] * r.outer_b[d];
    }
  }
  void Next() {
    for (int d = dims - 1; d >= 0; --d) {
      a += r.outer_a[d];
      b += r.outer_b[d];
      if (++index[d] < r.outer_sizes[d]) return;
      a -= index[d] * r.outer_a[d];
      b -= index[d] * r.outer_b[d];
      index[d] = 0;
    }
  }
  const BroadcastRows& r;
  const int dims;
  int64_t index[kMaxOuterDims] = {};
  int64_t a = 0, b = 0;
};

struct BinaryState : OpState {
  bool broadcast = false;  // rows below; else the same shape or a single value
  BroadcastRows rows;
  // Short rows (a rotary embedding's pairs) where one input repeats its row over the next dimension
  // out: that input's row is tiled into a buffer so that one call covers many rows (EvalTiled).
  bool tiled = false;
  int64_t elements = 0;
  bool empty = false;                // a float output of no elements: Eval has nothing to do
  bool fused_into_consumer = false;  // MarkAddFused: the reader computes the rows (FusedAddRow)
  // FoldResidualConv: the CONV_2D writing one input, computed by this node's Eval; the other input.
  TfLiteNode* residual_conv = nullptr;
  int residual_conv_index = -1;
  int residual_input = -1;
  bool a_whole = false;   // the first input has the output's shape
  bool swap = false;      // the first input is the single value
  bool b_scalar = false;  // one input is a single value
  float act_min = 0.f, act_max = 0.f;
  bool quantized = false;  // 8-bit ADD through add_arith or `table`
  bool arith = false;
  QuantOutput input1_stage, input2_stage, output_stage;
  QuantKernels::AddStages stages;
  std::vector<uint8_t> table;  // [a * 256 + b], then kLookupTablePadding bytes
  const QuantKernels* quant_kernels = nullptr;
  bool q16 = false;  // the other quantized forms, broadcasts included (quantized16.h)
  std::unique_ptr<Q16BinaryState> q16_state;  // made by the first Prepare that takes the form
};

bool SameDims(const TfLiteIntArray* a, const TfLiteIntArray* b) {
  if (a->size != b->size) return false;
  for (int i = 0; i < a->size; ++i) {
    if (a->data[i] != b->data[i]) return false;
  }
  return true;
}

template <bool kMul>
struct BinaryOp {
  using State = BinaryState;
  static TfLiteRegistration* Reference() { return kMul ? reference::Register_MUL() : reference::Register_ADD(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (node->inputs->size != 2 || node->outputs->size != 1) return kTfLiteOk;
    const TfLiteTensor* a = tflite::GetInput(context, node, 0);
    const TfLiteTensor* b = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->quantized = false;
    s->q16 = false;
    s->fused_into_consumer = false;
    s->residual_conv = nullptr;
    if (!kMul && (a->type == kTfLiteUInt8 || a->type == kTfLiteInt8) && b->type == a->type && output->type == a->type &&
        !tflite::IsDynamicTensor(output) && tflite::NumElements(output) > 0 && SameDims(a->dims, output->dims) &&
        SameDims(b->dims, output->dims)) {
      s->elements = tflite::NumElements(output);
      s->quant_kernels = &QuantKernelsFor(*s->kernels);
      s->arith = false;
      reference::QuantizedAddParams p;
      if (s->quant_kernels->add_arith != nullptr && reference::GetQuantizedAddParams(s->reference_data, a->type, &p) &&
          BuildUniformOutputStage(p.input1_multiplier, p.input1_shift, 0, INT32_MIN, INT32_MAX, &s->input1_stage) &&
          BuildUniformOutputStage(p.input2_multiplier, p.input2_shift, 0, INT32_MIN, INT32_MAX, &s->input2_stage) &&
          BuildUniformOutputStage(p.output_multiplier, p.output_shift, p.output_offset, p.act_min, p.act_max,
                                  &s->output_stage)) {
        s->stages.input1 = &s->input1_stage.stage;
        s->stages.input2 = &s->input2_stage.stage;
        s->stages.output = &s->output_stage.stage;
        s->stages.input1_offset = p.input1_offset;
        s->stages.input2_offset = p.input2_offset;
        s->stages.left_shift = p.left_shift;
        s->stages.is_signed = a->type == kTfLiteInt8;
        s->arith = true;
      }
      if (s->arith) {
        std::vector<uint8_t>().swap(s->table);
        s->quantized = true;
      } else {
        s->table.assign(256 * 256 + kLookupTablePadding, 0);
        s->quantized = reference::QuantizedAddTable(s->reference_data, a->type, s->table.data());
      }
      s->fast = s->quantized;
      return kTfLiteOk;
    }
    if (a->type != kTfLiteFloat32) {
      s->q16 = PrepareQ16Binary(context, node, kMul, *s->kernels, MadeOnDemand(s->q16_state));
      s->fast = s->q16;
      return kTfLiteOk;
    }
    if (b->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 || tflite::IsDynamicTensor(output)) {
      return kTfLiteOk;
    }
    s->elements = tflite::NumElements(output);
    s->broadcast = false;
    s->tiled = false;
    s->a_whole = SameDims(a->dims, output->dims);
    s->empty = s->elements == 0;
    if (s->empty) {
      // Nothing to compute (the reference would still walk its broadcast shapes at every Invoke).
      s->fast = true;
      return kTfLiteOk;
    }
    if (SameDims(a->dims, output->dims) && SameDims(b->dims, output->dims)) {
      s->swap = false;
      s->b_scalar = false;
    } else if (SameDims(a->dims, output->dims) && tflite::NumElements(b) == 1) {
      s->swap = false;
      s->b_scalar = true;
    } else if (SameDims(b->dims, output->dims) && tflite::NumElements(a) == 1) {
      s->swap = true;  // a + b = b + a and a * b = b * a exactly
      s->b_scalar = true;
    } else if (MakeBroadcastRows(a->dims, b->dims, output->dims, &s->rows)) {
      s->broadcast = true;
      const BroadcastRows& r = s->rows;
      const size_t repeat_dim = r.outer_sizes.size() - 1;  // the innermost outer dimension
      s->tiled = r.inner < kShortRow && r.inner_a == 1 && r.inner_b == 1 && !r.outer_sizes.empty() &&
                 ((r.outer_a[repeat_dim] == r.inner && r.outer_b[repeat_dim] == 0) ||
                  (r.outer_b[repeat_dim] == r.inner && r.outer_a[repeat_dim] == 0));
    } else {
      return kTfLiteOk;
    }
    TfLiteFusedActivation activation = kTfLiteActNone;
    if (node->builtin_data != nullptr) {
      activation = kMul ? static_cast<const TfLiteMulParams*>(node->builtin_data)->activation
                        : static_cast<const TfLiteAddParams*>(node->builtin_data)->activation;
    }
    tflite::CalculateActivationRange(activation, &s->act_min, &s->act_max);
    s->fast = true;
    if (!kMul && !s->broadcast && !s->b_scalar) FoldResidualConv(context, node, s);
    return kTfLiteOk;
  }

  // A residual connection: a float CONV_2D writes one input of this ADD, of the same shape as the
  // other, and nothing else reads it (the runtime decides: fuse_producer). This node's Eval then runs
  // the convolution into its own output and adds the other input to each tile as it is written
  // (conv_util.h, EvalConvWithResidual): the same values as the two nodes apart, without writing the
  // convolution's output and reading it back (hand_landmark, deeplabv3, the BlazeFace detectors).
  static void FoldResidualConv(TfLiteContext* context, TfLiteNode* node, State* s) {
    CpuBackendContext* backend = GetCpuBackendContext(context);
    if (backend == nullptr || backend->fuse_producer == nullptr) return;
    for (int input = 0; input < 2; ++input) {
      const Producer p = ProducerOfInput(context, node, input);
      if (p.producer < 0 || !conv_internal::ResidualFoldableConv(p.node, p.registration)) continue;
      if (!backend->fuse_producer(context, p.producer, p.self)) continue;
      conv_internal::MarkConvFused(p.node);
      s->residual_conv = p.node;
      s->residual_conv_index = p.producer;
      s->residual_input = 1 - input;
      return;
    }
  }

  static TfLiteStatus EvalQuantized(TfLiteContext* context, TfLiteNode* node, State* s) {
    const uint8_t* a = tflite::GetInput(context, node, 0)->data.uint8;
    const uint8_t* b = tflite::GetInput(context, node, 1)->data.uint8;
    uint8_t* out = tflite::GetOutput(context, node, 0)->data.uint8;
    if (s->arith) {
      const auto add_arith = s->quant_kernels->add_arith;
      const QuantKernels::AddStages& stages = s->stages;
      ParallelChunks(context, s->elements, kMinElementsPerChunk, [&](int, int64_t begin, int64_t end) {
        add_arith(a + begin, b + begin, end - begin, stages, out + begin);
      });
      return kTfLiteOk;
    }
    const uint8_t* table = s->table.data();
    const auto lookup = s->quant_kernels->lookup_pairs;
    ParallelChunks(context, s->elements, kMinElementsPerChunk, [&](int, int64_t begin, int64_t end) {
      lookup(a + begin, b + begin, end - begin, table, out + begin);
    });
    return kTfLiteOk;
  }

  static void EvalBroadcast(TfLiteContext* context, const float* a, const float* b, float* out, State* s) {
    const BroadcastRows& r = s->rows;
    const BinaryFn fn = kMul ? s->kernels->mul : s->kernels->add;
    const int outer = static_cast<int>(r.outer_sizes.size());
    const int64_t inner = r.inner;
    // The single value over a run goes second (a + b = b + a, a * b = b * a exactly).
    const bool swap = r.inner_a == 0 && r.inner_b != 0;
    const bool scalar = r.inner_a == 0 || r.inner_b == 0;
    ParallelChunks(context, r.rows, std::max<int64_t>(1, kMinElementsPerChunk / std::max<int64_t>(1, inner)),
                   [&](int, int64_t begin, int64_t end) {
                     OuterOffsets at(r, outer, begin);
                     for (int64_t row = begin; row < end; ++row) {
                       const float* x = a + at.a;
                       const float* y = b + at.b;
                       if (swap) std::swap(x, y);
                       fn(inner, x, y, scalar, out + row * inner, s->act_min, s->act_max);
                       at.Next();
                     }
                   });
  }

  // Groups of `repeats` rows in which one input's row repeats: that row tiled into `pattern` (up to
  // kTileElements), then one call per block of rows. Exact: the same operation on each element.
  static void EvalTiled(TfLiteContext* context, const float* a, const float* b, float* out, State* s) {
    const BroadcastRows& r = s->rows;
    const BinaryFn fn = kMul ? s->kernels->mul : s->kernels->add;
    const int outer = static_cast<int>(r.outer_sizes.size()) - 1;  // dimensions above the repeated one
    const int64_t inner = r.inner;
    const int64_t repeats = r.outer_sizes[outer];
    const int64_t group_elements = inner * repeats;
    const bool b_repeats = r.outer_b[outer] == 0;
    const int64_t groups = r.rows / repeats;
    const int64_t block_repeats = std::min<int64_t>(repeats, std::max<int64_t>(1, kTileElements / inner));
    ParallelChunks(context, groups, std::max<int64_t>(1, kMinElementsPerChunk / group_elements),
                   [&](int, int64_t begin, int64_t end) {
                     float pattern[kTileElements];
                     OuterOffsets at(r, outer, begin);
                     for (int64_t group = begin; group < end; ++group) {
                       const float* full = b_repeats ? a + at.a : b + at.b;
                       const float* row = b_repeats ? b + at.b : a + at.a;
                       // A few rows element by element, then doubling copies.
                       const int64_t pattern_elements = block_repeats * inner;
                       int64_t filled = std::min<int64_t>(pattern_elements, inner * 8);
                       for (int64_t i = 0; i < filled; ++i) pattern[i] = row[i % inner];
                       while (filled < pattern_elements) {
                         const int64_t n = std::min(filled - filled % inner, pattern_elements - filled);
                         std::memcpy(pattern + filled, pattern, static_cast<size_t>(n) * sizeof(float));
                         filled += n;
                       }
                       float* o = out + group * group_elements;
                       for (int64_t j = 0; j < repeats; j += block_repeats) {
                         const int64_t n = std::min(block_repeats, repeats - j) * inner;
                         fn(n, full + j * inner, pattern, false, o + j * inner, s->act_min, s->act_max);
                       }
                       at.Next();
                     }
                   });
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->q16) return EvalQ16Binary(context, node, s->q16_state.get());
    if (s->quantized) return EvalQuantized(context, node, s);
    if (s->empty || s->fused_into_consumer) return kTfLiteOk;
    return EvalFloat(context, node, s, tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0)), nullptr, 0.f,
                     0.f);
  }

  // The float Eval into `out`; with `post` (a RELU computing this node, FoldableAddForActivation:
  // the same shapes or a single value), each piece then post(piece) clamped to [post_lo, post_hi].
  static TfLiteStatus EvalFloat(TfLiteContext* context, TfLiteNode* node, State* s, float* out, ClampFn post,
                                float post_lo, float post_hi) {
    if (s->residual_conv != nullptr) {
      const float* residual = tflite::GetTensorData<float>(tflite::GetInput(context, node, s->residual_input));
      return conv_internal::EvalConvWithResidual(context, s->residual_conv, out, residual, s->kernels->add, s->act_min,
                                                 s->act_max, post, post_lo, post_hi);
    }
    const float* a = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    const float* b = tflite::GetTensorData<float>(tflite::GetInput(context, node, 1));
    if (s->tiled) {
      EvalTiled(context, a, b, out, s);
      return kTfLiteOk;
    }
    if (s->broadcast) {
      EvalBroadcast(context, a, b, out, s);
      return kTfLiteOk;
    }
    if (s->swap) std::swap(a, b);
    const BinaryFn fn = kMul ? s->kernels->mul : s->kernels->add;
    const bool b_scalar = s->b_scalar;
    ParallelChunks(context, s->elements, kMinElementsPerChunk, [&](int, int64_t begin, int64_t end) {
      fn(end - begin, a + begin, b_scalar ? b : b + begin, b_scalar, out + begin, s->act_min, s->act_max);
      if (post != nullptr) post(end - begin, out + begin, out + begin, post_lo, post_hi);
    });
    return kTfLiteOk;
  }
};

}  // namespace

bool FoldableFloatAdd(const TfLiteNode* node, const TfLiteRegistration* registration, int64_t row_length) {
  if (registration->invoke != OptimizedKernel<BinaryOp<false>>::Invoke || node->inputs->size != 2 || row_length <= 0) {
    return false;
  }
  const BinaryState* s = static_cast<const BinaryState*>(node->user_data);
  // The tiled path (short rows) is only another Eval of the same rows.
  // An ADD computing its convolution operand itself leaves that tensor unwritten.
  if (!s->fast || s->quantized || s->q16 || s->empty || s->residual_conv != nullptr) return false;
  return !s->broadcast || s->rows.inner % row_length == 0;
}

bool FoldableAddForActivation(const TfLiteNode* node, const TfLiteRegistration* registration) {
  if (registration->invoke != OptimizedKernel<BinaryOp<false>>::Invoke || node->inputs->size != 2) return false;
  const BinaryState* s = static_cast<const BinaryState*>(node->user_data);
  return s->fast && !s->quantized && !s->q16 && !s->empty && !s->broadcast && !s->tiled && !s->fused_into_consumer;
}

int FusedAddConvolution(const TfLiteNode* node) {
  const BinaryState* s = static_cast<const BinaryState*>(node->user_data);
  return s->residual_conv != nullptr ? s->residual_conv_index : -1;
}

TfLiteStatus EvalFusedAdd(TfLiteContext* context, TfLiteNode* node, float* out, ClampFn post, float post_lo,
                          float post_hi) {
  return BinaryOp<false>::EvalFloat(context, node, static_cast<BinaryState*>(node->user_data), out, post, post_lo,
                                    post_hi);
}

void MarkAddFused(TfLiteNode* node) { static_cast<BinaryState*>(node->user_data)->fused_into_consumer = true; }

bool FusedAddFirstInputIsWhole(const TfLiteNode* node) {
  return static_cast<const BinaryState*>(node->user_data)->a_whole;
}

void FusedAddRow(const TfLiteContext* context, const TfLiteNode* node, int64_t row, int64_t row_length,
                 const float* first_input_row, float* out) {
  const BinaryState* s = static_cast<const BinaryState*>(node->user_data);
  const float* a = context->tensors[node->inputs->data[0]].data.f;
  const float* b = context->tensors[node->inputs->data[1]].data.f;
  const int64_t first = row * row_length;
  if (!s->broadcast) {
    if (s->swap) std::swap(a, b);
    const float* x = first_input_row != nullptr ? first_input_row : a + first;
    s->kernels->add(row_length, x, s->b_scalar ? b : b + first, s->b_scalar, out, s->act_min, s->act_max);
    return;
  }
  // The run holding the row, and the row's place in it (FoldableFloatAdd: runs are whole rows).
  const BroadcastRows& r = s->rows;
  const OuterOffsets at(r, static_cast<int>(r.outer_sizes.size()), first / r.inner);
  const int64_t within = first % r.inner;
  const float* x = first_input_row != nullptr ? first_input_row : a + at.a + within * r.inner_a;
  const float* y = b + at.b + within * r.inner_b;
  // As EvalBroadcast: the single value over a run goes second.
  if (r.inner_a == 0 && r.inner_b != 0) std::swap(x, y);
  s->kernels->add(row_length, x, y, r.inner_a == 0 || r.inner_b == 0, out, s->act_min, s->act_max);
}

TfLiteRegistration* Register_ADD() { return OptimizedKernel<BinaryOp<false>>::Registration(); }
TfLiteRegistration* Register_MUL() { return OptimizedKernel<BinaryOp<true>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
