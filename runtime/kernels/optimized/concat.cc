// CONCATENATION with sizes known at Prepare, no fused activation and nothing to requantize: for
// each index of the dimensions before the axis (an "outer row"), every input's block is copied in
// input order, and the outer rows are split over the thread pool. A copy has no arithmetic, so the
// output is the reference's byte for byte. uint8 inputs whose scale or zero point differ from the
// output's (the reference rescales them), a fused activation, dynamic shapes and types without a
// fixed element size take the reference kernel.
//
// Why it is threaded although it only moves bytes: its inputs were written by both threads of the
// ops before it, split by rows, and the op after it reads the output split the same way. Run on
// the calling thread alone, it reads half its input from the other core and leaves half its output
// for the other core to fetch (DeepLab v3's 33x33x512 concatenation: 0.07 ms on one thread or two).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/concat.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

struct ConcatState : OpState {
  int64_t outer_rows = 0;
  size_t output_row_bytes = 0;
  // The inputs with elements (an empty one adds nothing), their bytes per outer row, and their
  // data pointers, filled at each Eval (sized in Prepare).
  std::vector<int> input_index;
  std::vector<size_t> input_block_bytes;
  std::vector<const char*> inputs;
  bool float_channels = false;       // float32, along the last axis (FoldableChannelConcat)
  bool fused_into_consumer = false;  // MarkConcatFused: the reader reads the inputs
};

struct ConcatOp {
  using State = ConcatState;
  static TfLiteRegistration* Reference() { return reference::Register_CONCATENATION(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    // Set again by the reader's Prepare, which runs after this one.
    s->fused_into_consumer = false;
    s->float_channels = false;
    if (node->inputs->size < 1 || node->outputs->size != 1) return kTfLiteOk;
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    const size_t element_bytes = ElementBytes(output->type);
    const int rank = output->dims->size;
    TfLiteFusedActivation activation = kTfLiteActNone;
    int axis = 0;
    if (node->builtin_data != nullptr) {
      const auto* params = static_cast<const TfLiteConcatenationParams*>(node->builtin_data);
      activation = params->activation;
      axis = params->axis;
    }
    if (axis < 0) axis += rank;
    if (element_bytes == 0 || activation != kTfLiteActNone || rank < 1 || axis < 0 || axis >= rank ||
        tflite::IsDynamicTensor(output) || tflite::NumElements(output) == 0) {
      return kTfLiteOk;
    }
    // The reference's Prepare has checked types, ranks and the dimensions off the axis.
    int64_t outer_rows = 1;
    for (int d = 0; d < axis; ++d) outer_rows *= output->dims->data[d];
    int64_t inner = 1;
    for (int d = axis + 1; d < rank; ++d) inner *= output->dims->data[d];
    s->input_index.clear();
    s->input_block_bytes.clear();
    size_t row_bytes = 0;
    for (int i = 0; i < node->inputs->size; ++i) {
      const TfLiteTensor* input = tflite::GetInput(context, node, i);
      if (input == nullptr || tflite::IsDynamicTensor(input)) return kTfLiteOk;
      if (output->type == kTfLiteUInt8 &&
          (input->params.scale != output->params.scale || input->params.zero_point != output->params.zero_point)) {
        return kTfLiteOk;
      }
      const size_t block = static_cast<size_t>(input->dims->data[axis] * inner) * element_bytes;
      if (block == 0) continue;
      s->input_index.push_back(i);
      s->input_block_bytes.push_back(block);
      row_bytes += block;
    }
    s->outer_rows = outer_rows;
    s->output_row_bytes = row_bytes;
    s->inputs.assign(s->input_block_bytes.size(), nullptr);
    s->float_channels = output->type == kTfLiteFloat32 && axis == rank - 1;
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->fused_into_consumer) return kTfLiteOk;
    for (size_t i = 0; i < s->inputs.size(); ++i) {
      s->inputs[i] = tflite::GetInput(context, node, s->input_index[i])->data.raw_const;
    }
    char* output = tflite::GetOutput(context, node, 0)->data.raw;
    const State& state = *s;
    ParallelChunks(context, state.outer_rows, MinRowsPerChunk(state.output_row_bytes),
                   [&](int, int64_t begin, int64_t end) {
                     char* dst = output + static_cast<size_t>(begin) * state.output_row_bytes;
                     for (int64_t row = begin; row < end; ++row) {
                       for (size_t i = 0; i < state.inputs.size(); ++i) {
                         const size_t block = state.input_block_bytes[i];
                         shape_util::CopyRow(dst, state.inputs[i] + static_cast<size_t>(row) * block, block);
                         dst += block;
                       }
                     }
                   });
    return kTfLiteOk;
  }
};

}  // namespace

bool FoldableChannelConcat(const TfLiteNode* node, const TfLiteRegistration* registration) {
  if (registration->invoke != OptimizedKernel<ConcatOp>::Invoke || node->inputs->size != 2) return false;
  const ConcatState* s = static_cast<const ConcatState*>(node->user_data);
  return s->fast && s->float_channels && s->input_index.size() == 2;
}

void MarkConcatFused(TfLiteNode* node) { static_cast<ConcatState*>(node->user_data)->fused_into_consumer = true; }

TfLiteRegistration* Register_CONCATENATION() { return OptimizedKernel<ConcatOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
