// SVDF, integer (int8 input and feature weights, int16 state and time weights): the feature
// filter's dot products on the int8 dot-product microkernel, input times weights minus the input
// zero point times each weights row's sum (the same value in wrapping int32 arithmetic as the
// reference's sum of row x (input - zero point)), then the reference's own requantization, time
// filter and output stage (svdf::internal). Float and hybrid SVDF run the reference kernel.
#include <cstdint>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/svdf_arithmetic.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

constexpr int kInput = 0, kWeightsFeature = 1, kWeightsTime = 2, kBias = 3, kState = 4;

struct SvdfState : OpState {
  svdf::Shape shape;
  svdf::IntegerParams params;
  // Each feature weights row's sum, computed at the first Eval for the weights it was computed from.
  std::vector<int32_t> row_sums;
  const int8_t* row_sums_of = nullptr;
  std::vector<int32_t> dots, scratch, output_temp;
};

struct SvdfOp {
  using State = SvdfState;
  static TfLiteRegistration* Reference() { return reference::Register_SVDF(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (!reference::SvdfIntegerParams(s->reference_data, &s->shape, &s->params)) return kTfLiteOk;
    const TfLiteTensor* weights_feature = tflite::GetInput(context, node, kWeightsFeature);
    if (!tflite::IsConstantTensor(weights_feature) || s->kernels->int8_dots == nullptr) return kTfLiteOk;
    const svdf::Shape& shape = s->shape;
    s->dots.assign(static_cast<size_t>(shape.num_filters), 0);
    s->scratch.assign(static_cast<size_t>(shape.batch_size) * shape.num_filters, 0);
    s->output_temp.assign(static_cast<size_t>(shape.batch_size) * shape.num_units, 0);
    s->row_sums_of = nullptr;
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const svdf::Shape& shape = s->shape;
    const int8_t* input = tflite::GetTensorData<int8_t>(tflite::GetInput(context, node, kInput));
    const int8_t* weights = tflite::GetTensorData<int8_t>(tflite::GetInput(context, node, kWeightsFeature));
    const int16_t* weights_time = tflite::GetTensorData<int16_t>(tflite::GetInput(context, node, kWeightsTime));
    const TfLiteTensor* bias_tensor =
        node->inputs->size > kBias && node->inputs->data[kBias] >= 0 ? tflite::GetInput(context, node, kBias) : nullptr;
    const int32_t* bias = bias_tensor != nullptr ? tflite::GetTensorData<int32_t>(bias_tensor) : nullptr;
    int16_t* state = tflite::GetTensorData<int16_t>(tflite::GetVariableInput(context, node, kState));
    int8_t* output = tflite::GetTensorData<int8_t>(tflite::GetOutput(context, node, 0));
    if (s->row_sums_of != weights) {
      s->row_sums.assign(static_cast<size_t>(shape.num_filters), 0);
      for (int f = 0; f < shape.num_filters; ++f) {
        int32_t sum = 0;
        for (int c = 0; c < shape.input_size; ++c) sum += weights[static_cast<size_t>(f) * shape.input_size + c];
        s->row_sums[f] = sum;
      }
      s->row_sums_of = weights;
    }

    svdf::internal::ShiftStateLeft(shape, state);
    int16_t* newest = state + (shape.memory_size - 1);
    const uint32_t zero_point = static_cast<uint32_t>(s->params.input_zero_point);
    for (int b = 0; b < shape.batch_size; ++b) {
      s->kernels->int8_dots(input + static_cast<size_t>(b) * shape.input_size, weights, shape.input_size,
                            shape.input_size, shape.num_filters, s->dots.data());
      for (int f = 0; f < shape.num_filters; ++f) {
        const int32_t dot = static_cast<int32_t>(static_cast<uint32_t>(s->dots[f]) -
                                                 zero_point * static_cast<uint32_t>(s->row_sums[f]));
        *newest = svdf::internal::RequantizeFeature(dot, s->params);
        newest += shape.memory_size;
      }
    }
    svdf::internal::IntegerTimeAndOutput(shape, s->params, weights_time, bias, state, s->scratch.data(),
                                         s->output_temp.data(), output);
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_SVDF() { return OptimizedKernel<SvdfOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
