// ADD and MUL, float32: inputs of the same shape, or one of them a single value, run vectorised
// over the thread pool; other broadcasts and every other type run the reference kernel. The result
// is exactly the reference's (the same one rounding per element, then the same clamp).
//
// ADD, uint8 and int8, the same shapes. Where the 8-bit kernel set has add_arith (AVX-512), Eval
// computes the reference's arithmetic in integer SIMD, lane for lane (the inputs' rescaling and
// the output's with the GEMM's output stage). Elsewhere, since an 8-bit sum depends on nothing but
// its two input bytes, Prepare tabulates the reference's result for all 65536 pairs (64 KiB) and
// Eval looks each element up. Both are byte-identical to the reference.
//
// The other quantized forms (int16 ADD, uint8/int8/int16 MUL, 8-bit ADD with a broadcast) run
// quantized16.h's element-wise kernels, byte-identical as well.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

// Elements a chunk should hold at least before it goes to another thread.
constexpr int64_t kMinElementsPerChunk = 16 * 1024;

struct BinaryState : OpState {
  int64_t elements = 0;
  bool swap = false;      // the first input is the single value
  bool b_scalar = false;  // one input is a single value
  float act_min = 0.f, act_max = 0.f;
  bool quantized = false;       // 8-bit ADD through add_arith or `table`
  bool arith = false;
  QuantOutput input1_stage, input2_stage, output_stage;
  QuantKernels::AddStages stages;
  std::vector<uint8_t> table;   // [a * 256 + b], then kLookupTablePadding bytes
  const QuantKernels* quant_kernels = nullptr;
  bool q16 = false;  // the other quantized forms, broadcasts included (quantized16.h)
  Q16BinaryState q16_state;
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
  static TfLiteRegistration* Reference() {
    return kMul ? reference::Register_MUL() : reference::Register_ADD();
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (node->inputs->size != 2 || node->outputs->size != 1) return kTfLiteOk;
    const TfLiteTensor* a = tflite::GetInput(context, node, 0);
    const TfLiteTensor* b = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->quantized = false;
    s->q16 = false;
    if (!kMul && (a->type == kTfLiteUInt8 || a->type == kTfLiteInt8) && b->type == a->type &&
        output->type == a->type && !tflite::IsDynamicTensor(output) &&
        tflite::NumElements(output) > 0 && SameDims(a->dims, output->dims) &&
        SameDims(b->dims, output->dims)) {
      s->elements = tflite::NumElements(output);
      s->quant_kernels = &QuantKernelsFor(*s->kernels);
      s->arith = false;
      reference::QuantizedAddParams p;
      if (s->quant_kernels->add_arith != nullptr &&
          reference::GetQuantizedAddParams(s->reference_data, a->type, &p) &&
          BuildUniformOutputStage(p.input1_multiplier, p.input1_shift, 0, INT32_MIN, INT32_MAX,
                                  &s->input1_stage) &&
          BuildUniformOutputStage(p.input2_multiplier, p.input2_shift, 0, INT32_MIN, INT32_MAX,
                                  &s->input2_stage) &&
          BuildUniformOutputStage(p.output_multiplier, p.output_shift, p.output_offset,
                                  p.act_min, p.act_max, &s->output_stage)) {
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
      s->q16 = PrepareQ16Binary(context, node, kMul, *s->kernels, &s->q16_state);
      s->fast = s->q16;
      return kTfLiteOk;
    }
    if (b->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 || tflite::IsDynamicTensor(output)) {
      return kTfLiteOk;
    }
    s->elements = tflite::NumElements(output);
    if (s->elements == 0) return kTfLiteOk;
    if (SameDims(a->dims, output->dims) && SameDims(b->dims, output->dims)) {
      s->swap = false;
      s->b_scalar = false;
    } else if (SameDims(a->dims, output->dims) && tflite::NumElements(b) == 1) {
      s->swap = false;
      s->b_scalar = true;
    } else if (SameDims(b->dims, output->dims) && tflite::NumElements(a) == 1) {
      s->swap = true;  // a + b = b + a and a * b = b * a exactly
      s->b_scalar = true;
    } else {
      return kTfLiteOk;  // a real broadcast: the reference kernel
    }
    TfLiteFusedActivation activation = kTfLiteActNone;
    if (node->builtin_data != nullptr) {
      activation = kMul ? static_cast<const TfLiteMulParams*>(node->builtin_data)->activation
                        : static_cast<const TfLiteAddParams*>(node->builtin_data)->activation;
    }
    tflite::CalculateActivationRange(activation, &s->act_min, &s->act_max);
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus EvalQuantized(TfLiteContext* context, TfLiteNode* node, State* s) {
    const uint8_t* a = tflite::GetInput(context, node, 0)->data.uint8;
    const uint8_t* b = tflite::GetInput(context, node, 1)->data.uint8;
    uint8_t* out = tflite::GetOutput(context, node, 0)->data.uint8;
    if (s->arith) {
      const auto add_arith = s->quant_kernels->add_arith;
      const QuantKernels::AddStages& stages = s->stages;
      ParallelChunks(context, s->elements, kMinElementsPerChunk,
                     [&](int, int64_t begin, int64_t end) {
                       add_arith(a + begin, b + begin, end - begin, stages, out + begin);
                     });
      return kTfLiteOk;
    }
    const uint8_t* table = s->table.data();
    const auto lookup = s->quant_kernels->lookup_pairs;
    ParallelChunks(context, s->elements, kMinElementsPerChunk,
                   [&](int, int64_t begin, int64_t end) {
                     lookup(a + begin, b + begin, end - begin, table, out + begin);
                   });
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->q16) return EvalQ16Binary(context, node, &s->q16_state);
    if (s->quantized) return EvalQuantized(context, node, s);
    const float* a = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    const float* b = tflite::GetTensorData<float>(tflite::GetInput(context, node, 1));
    float* out = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    if (s->swap) std::swap(a, b);
    const BinaryFn fn = kMul ? s->kernels->mul : s->kernels->add;
    const bool b_scalar = s->b_scalar;
    ParallelChunks(context, s->elements, kMinElementsPerChunk,
                   [&](int, int64_t begin, int64_t end) {
                     fn(end - begin, a + begin, b_scalar ? b : b + begin, b_scalar, out + begin,
                        s->act_min, s->act_max);
                   });
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_ADD() { return OptimizedKernel<BinaryOp<false>>::Registration(); }
TfLiteRegistration* Register_MUL() { return OptimizedKernel<BinaryOp<true>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
