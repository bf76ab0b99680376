// SOFTMAX, float32: rows (the last dimension) split over the thread pool, each row's exponentials
// from a vectorised exp accurate to about 1 ulp. A float ADD just before (an attention mask) is
// folded in: each row is summed into the output row, which the softmax then rewrites in place
// while it is in the cache (FoldAdd).
// SOFTMAX, uint8 and int8 inputs (outputs of the input's type or int16): the reference's table and
// its float sum in order (internal/softmax_8bit.h), with the row maximum and the outputs in blocks
// of 16 the compiler vectorises, and the rounding half away from zero done exactly on integers
// (the probabilities in output steps are then below 2^30; other rows take the reference's row):
// byte for byte the reference's. int16 inputs run the reference kernel.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/softmax_8bit.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/elementwise.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/softmax.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

// Finer than the element-wise ops' chunks (op_common.h's kMinElementsPerChunk).
constexpr int64_t kMinSoftmaxElementsPerChunk = 8 * 1024;

struct SoftmaxState : OpState {
  int64_t rows = 0;
  int depth = 0;
  float beta = 1.f;
  // 8-bit inputs: the types (kTfLiteNoType: float), the reference's table and output format, and
  // whether every table entry lies in [0, 1] (the exact integer rounding's precondition).
  TfLiteType quantized_input = kTfLiteNoType, quantized_output = kTfLiteNoType;
  float exp_table[256] = {};
  float output_scale = 0.f;
  int32_t output_zero_point = 0;
  bool table_within_unit = false;
  const TfLiteNode* fused_add = nullptr;  // FoldAdd: the ADD whose rows this node computes
  bool fused_into_consumer = false;       // MarkSoftmaxFused: the reader computes the rows
};

struct SoftmaxOp {
  using State = SoftmaxState;
  // The float path accumulates in another order than the reference anyway: denormals flushed there
  // (float_mode.h). The 8-bit path sums the reference's table entries, denormal ones included.
  static bool FlushesDenormals(const SoftmaxState* s) { return s->quantized_input == kTfLiteNoType; }
  static TfLiteRegistration* Reference() { return reference::Register_SOFTMAX(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->fused_add = nullptr;
    s->fused_into_consumer = false;
    s->quantized_input = s->quantized_output = kTfLiteNoType;
    const bool quantized = input->type == kTfLiteUInt8 || input->type == kTfLiteInt8;
    if ((input->type != kTfLiteFloat32 && !quantized) || input->dims->size < 1 || tflite::NumElements(input) == 0 ||
        tflite::NumElements(output) != tflite::NumElements(input)) {
      return kTfLiteOk;
    }
    s->depth = input->dims->data[input->dims->size - 1];
    s->rows = tflite::NumElements(input) / s->depth;
    s->beta = nn::ParamsOf<TfLiteSoftmaxParams>(node).beta;
    s->fast = true;
    if (quantized) {
      // The reference Prepare accepted the pair of types and the output format.
      s->quantized_input = input->type;
      s->quantized_output = output->type;
      softmax_8bit::PopulateSoftmaxLookupTable(input->params.scale, s->beta, s->exp_table);
      s->output_scale = output->params.scale;
      s->output_zero_point = output->params.zero_point;
      s->table_within_unit =
          std::all_of(s->exp_table, s->exp_table + 256, [](float e) { return e >= 0.f && e <= 1.f; });
      return kTfLiteOk;
    }
    if (output->type != kTfLiteFloat32) {
      s->fast = false;
      return kTfLiteOk;
    }
    FoldAdd(context, node, s);
    return kTfLiteOk;
  }

  // A float ADD that writes this node's input and nothing else reads (the runtime decides:
  // fuse_producer): each row of its output is computed into the output row, then the softmax runs
  // on it there. The same values as the two nodes apart; the sum is neither written to nor read
  // back from memory.
  static void FoldAdd(TfLiteContext* context, TfLiteNode* node, State* s) {
    CpuBackendContext* backend = GetCpuBackendContext(context);
    if (backend == nullptr || backend->fuse_producer == nullptr) return;
    const Producer p = ProducerOfInput(context, node);
    if (p.producer < 0 || p.node->delegate != nullptr || !FoldableFloatAdd(p.node, p.registration, s->depth)) return;
    if (!backend->fuse_producer(context, p.producer, p.self)) return;
    MarkAddFused(p.node);
    s->fused_add = p.node;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->quantized_input != kTfLiteNoType) return EvalQuantized(context, node, s);
    if (s->fused_into_consumer) return kTfLiteOk;
    const float* input = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    float* output = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    const SoftmaxFn softmax = s->kernels->softmax;
    const int64_t depth = s->depth;
    const int64_t min_rows = std::max<int64_t>(1, kMinSoftmaxElementsPerChunk / depth);
    const TfLiteNode* add = s->fused_add;
    ParallelChunks(context, s->rows, min_rows, [&](int, int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float* row = output + r * depth;
        if (add != nullptr) {
          FusedAddRow(context, add, r, depth, nullptr, row);
          softmax(depth, row, row, s->beta);
        } else {
          softmax(depth, input + r * depth, row, s->beta);
        }
      }
    });
    return kTfLiteOk;
  }

  static constexpr int kBlock = 16;

  // The row's maximum: kBlock running maxima side by side, then the rest.
  template <typename In>
  static int32_t RowMax(const In* in, int depth) {
    int32_t max = std::numeric_limits<In>::min();
    int c = 0;
    if (depth >= kBlock) {
      In lanes[kBlock];
      for (int j = 0; j < kBlock; ++j) lanes[j] = in[j];
      for (c = kBlock; c + kBlock <= depth; c += kBlock) {
        for (int j = 0; j < kBlock; ++j) lanes[j] = std::max(lanes[j], in[c + j]);
      }
      for (int j = 0; j < kBlock; ++j) max = std::max<int32_t>(max, lanes[j]);
    }
    for (; c < depth; ++c) max = std::max<int32_t>(max, in[c]);
    return max;
  }

  // kLanes outputs from c. For p = e * inverse in [0, 2^30): the uint8 form's truncation of
  // p + 0.5, or p rounded half away from zero as t + (p - t >= 0.5) with t = trunc(p) (p - t is
  // exact), plus the zero point; no conversion leaves the int32 range.
  template <typename In, typename Out, int kLanes>
  static void Outputs(const float* table, float inverse, int32_t zero_point, const In* in, Out* out) {
    float p[kLanes];
    for (int j = 0; j < kLanes; ++j) p[j] = table[in[j]] * inverse;
    int32_t q[kLanes];
    if (std::is_same<Out, uint8_t>::value) {
      for (int j = 0; j < kLanes; ++j) q[j] = static_cast<int32_t>(p[j] + 0.5f);
    } else {
      for (int j = 0; j < kLanes; ++j) {
        const int32_t t = static_cast<int32_t>(p[j]);
        q[j] = t + (p[j] - static_cast<float>(t) >= 0.5f ? 1 : 0) + zero_point;
      }
    }
    for (int j = 0; j < kLanes; ++j) out[j] = kernel_helpers::SaturateTo<Out>(q[j]);
  }

  template <typename In, typename Out>
  static void Row(const State& s, const In* in, Out* out) {
    const int depth = s.depth;
    if (!s.table_within_unit) {
      softmax_8bit::Softmax8BitRow<In, Out>(s.exp_table, s.output_scale, s.output_zero_point, in, out, depth);
      return;
    }
    const float* table = s.exp_table + 255 - RowMax(in, depth);
    // The sum in the reference's order: one dependent add per value.
    float sum_exp = 0.f;
    for (int c = 0; c < depth; ++c) sum_exp += table[in[c]];
    const float inverse = 1.0f / (sum_exp * s.output_scale);
    // The maximum's entry is 1, so sum_exp >= 1 and every p <= inverse. A negative output scale
    // (nothing refuses one) would need the rounding of negative values: the reference's row.
    if (!(inverse >= 0.f && inverse < 1073741824.f)) {
      softmax_8bit::Softmax8BitRow<In, Out>(s.exp_table, s.output_scale, s.output_zero_point, in, out, depth);
      return;
    }
    int c = 0;
    for (; c + kBlock <= depth; c += kBlock) {
      Outputs<In, Out, kBlock>(table, inverse, s.output_zero_point, in + c, out + c);
    }
    for (; c < depth; ++c) Outputs<In, Out, 1>(table, inverse, s.output_zero_point, in + c, out + c);
  }

  template <typename In, typename Out>
  static void Rows(TfLiteContext* context, TfLiteNode* node, const State* s) {
    const In* input = tflite::GetTensorData<In>(tflite::GetInput(context, node, 0));
    Out* output = tflite::GetTensorData<Out>(tflite::GetOutput(context, node, 0));
    const int64_t depth = s->depth;
    ParallelChunks(context, s->rows, std::max<int64_t>(1, kMinSoftmaxElementsPerChunk / depth),
                   [&](int, int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) Row<In, Out>(*s, input + r * depth, output + r * depth);
                   });
  }

  static TfLiteStatus EvalQuantized(TfLiteContext* context, TfLiteNode* node, const State* s) {
    return EvalForType(TypeList<uint8_t, int8_t>(), s->quantized_input, [&](auto in) {
      using In = decltype(in);
      if (s->quantized_output == kTfLiteInt16) {
        Rows<In, int16_t>(context, node, s);
      } else {
        Rows<In, In>(context, node, s);
      }
    });
  }
};

}  // namespace

bool FoldableSoftmax(const TfLiteNode* node, const TfLiteRegistration* registration, SoftmaxRows* rows) {
  if (registration->invoke != OptimizedKernel<SoftmaxOp>::Invoke || node->inputs->size != 1) return false;
  const SoftmaxState* s = static_cast<const SoftmaxState*>(node->user_data);
  if (!s->fast || s->quantized_input != kTfLiteNoType) return false;
  rows->rows = s->rows;
  rows->depth = s->depth;
  rows->beta = s->beta;
  rows->fused_add = s->fused_add;
  return true;
}

void MarkSoftmaxFused(TfLiteNode* node) { static_cast<SoftmaxState*>(node->user_data)->fused_into_consumer = true; }

TfLiteRegistration* Register_SOFTMAX() { return OptimizedKernel<SoftmaxOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
