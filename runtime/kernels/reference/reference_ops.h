// The reference kernel set: single-threaded, simple, the golden reference every other kernel set and
// delegate is checked against. Each function returns a registration with static storage; the op
// resolver (runtime/op_resolver.cc) is the one table that maps builtin codes to these.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_REFERENCE_OPS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_REFERENCE_OPS_H_

#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"

namespace touchstone {
namespace lstm {
struct IntegerParams;
}  // namespace lstm
namespace svdf {
struct Shape;
struct IntegerParams;
}  // namespace svdf
namespace reference {

// arithmetic_ops.cc, unary_math_ops.cc, activation_ops.cc, cast_ops.cc, compare_select_ops.cc:
// arithmetic, unary math, activations, comparisons, casts, selection.
TfLiteRegistration* Register_ADD();
// For the optimized kernel set: a prepared uint8 or int8 ADD node's output (`user_data` is the
// reference kernel's) for every pair of input bytes, table[a * 256 + b]. False for other types.
bool QuantizedAddTable(const void* user_data, TfLiteType type, uint8_t* table);
// The same node's arithmetic as parameters: each input byte x (as the type's value) becomes
// MultiplyByQuantizedMultiplier((x + offset) << left_shift, multiplier, shift) (the shift wraps),
// the two are added, and the sum becomes clamp(MultiplyByQuantizedMultiplier(sum,
// output_multiplier, output_shift) + output_offset, act_min, act_max). False for other types.
struct QuantizedAddParams {
  int32_t input1_offset = 0, input2_offset = 0;
  int left_shift = 0;
  int32_t input1_multiplier = 0, input2_multiplier = 0;
  int input1_shift = 0, input2_shift = 0;
  int32_t output_multiplier = 0;
  int output_shift = 0;
  int32_t output_offset = 0;
  int32_t act_min = 0, act_max = 0;
};
bool GetQuantizedAddParams(const void* user_data, TfLiteType type, QuantizedAddParams* params);
TfLiteRegistration* Register_SUB();
TfLiteRegistration* Register_MUL();
TfLiteRegistration* Register_DIV();
TfLiteRegistration* Register_SQUARED_DIFFERENCE();
TfLiteRegistration* Register_MAXIMUM();
TfLiteRegistration* Register_MINIMUM();
TfLiteRegistration* Register_POW();
TfLiteRegistration* Register_FLOOR_DIV();
TfLiteRegistration* Register_FLOOR_MOD();
TfLiteRegistration* Register_BITWISE_XOR();
TfLiteRegistration* Register_RIGHT_SHIFT();
TfLiteRegistration* Register_ABS();
TfLiteRegistration* Register_NEG();
TfLiteRegistration* Register_SQRT();
TfLiteRegistration* Register_RSQRT();
TfLiteRegistration* Register_SQUARE();
TfLiteRegistration* Register_EXP();
TfLiteRegistration* Register_LOG();
TfLiteRegistration* Register_SIN();
TfLiteRegistration* Register_COS();
TfLiteRegistration* Register_FLOOR();
TfLiteRegistration* Register_CEIL();
TfLiteRegistration* Register_ROUND();
TfLiteRegistration* Register_TANH();
TfLiteRegistration* Register_LOGISTIC();
// For the optimized kernel set: a prepared TANH or LOGISTIC node's quantized arithmetic
// (`user_data` is the reference kernel's). uint8 and int8: lut8[input byte] is the output byte.
// int16: input_multiplier > 0 takes elementwise::{Logistic,Tanh}Int16ByTable(x, input_multiplier,
// input_left_shift); 0 the fixed-point function on Q3.12 (TANH doubles the input, saturating,
// first when input_left_shift is 1).
struct QuantizedActivationParams {
  uint8_t lut8[256] = {};
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
};
void GetQuantizedActivationParams(const void* user_data, QuantizedActivationParams* params);
TfLiteRegistration* Register_RELU();
TfLiteRegistration* Register_RELU6();
TfLiteRegistration* Register_RELU_N1_TO_1();
TfLiteRegistration* Register_RELU_0_TO_1();
TfLiteRegistration* Register_LEAKY_RELU();
TfLiteRegistration* Register_PRELU();
TfLiteRegistration* Register_HARD_SWISH();
TfLiteRegistration* Register_ELU();
TfLiteRegistration* Register_GELU();
TfLiteRegistration* Register_CAST();
TfLiteRegistration* Register_SELECT();
TfLiteRegistration* Register_SELECT_V2();
TfLiteRegistration* Register_LESS();
TfLiteRegistration* Register_LESS_EQUAL();
TfLiteRegistration* Register_GREATER();
TfLiteRegistration* Register_GREATER_EQUAL();
TfLiteRegistration* Register_EQUAL();
TfLiteRegistration* Register_NOT_EQUAL();
TfLiteRegistration* Register_LOGICAL_AND();
TfLiteRegistration* Register_LOGICAL_OR();
TfLiteRegistration* Register_LOGICAL_NOT();

// reshape_ops.cc, rearrange_ops.cc, gather_ops.cc, slice_ops.cc, concat_split_ops.cc, pad_ops.cc,
// reduce_ops.cc, arg_topk_ops.cc, fill_range_ops.cc: reshaping, data movement, reductions, sorting.
TfLiteRegistration* Register_RESHAPE();
TfLiteRegistration* Register_SQUEEZE();
TfLiteRegistration* Register_EXPAND_DIMS();
TfLiteRegistration* Register_SHAPE();
TfLiteRegistration* Register_RANK();
TfLiteRegistration* Register_TILE();
TfLiteRegistration* Register_TRANSPOSE();
TfLiteRegistration* Register_PACK();
TfLiteRegistration* Register_UNPACK();
TfLiteRegistration* Register_GATHER();
TfLiteRegistration* Register_GATHER_ND();
TfLiteRegistration* Register_SLICE();
TfLiteRegistration* Register_STRIDED_SLICE();
TfLiteRegistration* Register_CONCATENATION();
TfLiteRegistration* Register_SPLIT();
TfLiteRegistration* Register_SPLIT_V();
TfLiteRegistration* Register_PAD();
TfLiteRegistration* Register_PADV2();
TfLiteRegistration* Register_MIRROR_PAD();
TfLiteRegistration* Register_MEAN();
TfLiteRegistration* Register_SUM();
TfLiteRegistration* Register_REDUCE_PROD();
TfLiteRegistration* Register_REDUCE_MAX();
TfLiteRegistration* Register_REDUCE_MIN();
TfLiteRegistration* Register_REDUCE_ANY();
TfLiteRegistration* Register_REDUCE_ALL();
TfLiteRegistration* Register_ARG_MAX();
TfLiteRegistration* Register_ARG_MIN();
TfLiteRegistration* Register_TOPK_V2();
TfLiteRegistration* Register_FILL();
TfLiteRegistration* Register_ZEROS_LIKE();
TfLiteRegistration* Register_RANGE();
TfLiteRegistration* Register_BROADCAST_TO();
TfLiteRegistration* Register_BROADCAST_ARGS();
TfLiteRegistration* Register_DEPTH_TO_SPACE();
TfLiteRegistration* Register_SPACE_TO_DEPTH();
TfLiteRegistration* Register_REVERSE_V2();
TfLiteRegistration* Register_CUMSUM();

// nn_ops.cc: convolution, pooling, dense layers, normalization, resizing.
TfLiteRegistration* Register_CONV_2D();
TfLiteRegistration* Register_DEPTHWISE_CONV_2D();
// The output requantization a quantized CONV_2D's or DEPTHWISE_CONV_2D's Prepare computed (from its
// user_data), for a kernel set that wraps these kernels; null for none.
const nn::OutputRequantization* ConvRequantization(const void* user_data);
TfLiteRegistration* Register_TRANSPOSE_CONV();
TfLiteRegistration* Register_FULLY_CONNECTED();
TfLiteRegistration* Register_BATCH_MATMUL();
TfLiteRegistration* Register_AVERAGE_POOL_2D();
TfLiteRegistration* Register_MAX_POOL_2D();
TfLiteRegistration* Register_L2_POOL_2D();
TfLiteRegistration* Register_SOFTMAX();
TfLiteRegistration* Register_LOG_SOFTMAX();
TfLiteRegistration* Register_L2_NORMALIZATION();
TfLiteRegistration* Register_LOCAL_RESPONSE_NORMALIZATION();
TfLiteRegistration* Register_RESIZE_BILINEAR();
TfLiteRegistration* Register_RESIZE_NEAREST_NEIGHBOR();

// lstm_ops.cc: LSTM cells and sequences.
TfLiteRegistration* Register_LSTM();
TfLiteRegistration* Register_UNIDIRECTIONAL_SEQUENCE_LSTM();
// For the optimized kernel set: the integer (8x8_16) parameters a prepared full-kernel LSTM or
// UNIDIRECTIONAL_SEQUENCE_LSTM node computes with (`user_data` is the reference kernel's); null
// when the node runs another arithmetic.
const lstm::IntegerParams* LstmIntegerParams(const void* user_data);

// quantize.cc: conversions between float and quantized types, float16 weights, sparse weights.
TfLiteRegistration* Register_QUANTIZE();
TfLiteRegistration* Register_DEQUANTIZE();
TfLiteRegistration* Register_DENSIFY();

// misc_ops.cc: the rest of the op set users' models hold.
TfLiteRegistration* Register_ADD_N();
TfLiteRegistration* Register_ATAN2();
TfLiteRegistration* Register_SIGN();
TfLiteRegistration* Register_BATCH_TO_SPACE_ND();
TfLiteRegistration* Register_SPACE_TO_BATCH_ND();
TfLiteRegistration* Register_BUCKETIZE();
TfLiteRegistration* Register_DYNAMIC_UPDATE_SLICE();
TfLiteRegistration* Register_EMBEDDING_LOOKUP();
TfLiteRegistration* Register_MATRIX_DIAG();
TfLiteRegistration* Register_MATRIX_SET_DIAG();
TfLiteRegistration* Register_ONE_HOT();
TfLiteRegistration* Register_REVERSE_SEQUENCE();
TfLiteRegistration* Register_SCATTER_ND();
TfLiteRegistration* Register_SEGMENT_SUM();
TfLiteRegistration* Register_UNSORTED_SEGMENT_SUM();
TfLiteRegistration* Register_UNSORTED_SEGMENT_MAX();
TfLiteRegistration* Register_UNSORTED_SEGMENT_MIN();
TfLiteRegistration* Register_UNSORTED_SEGMENT_PROD();
TfLiteRegistration* Register_UNIQUE();
TfLiteRegistration* Register_WHERE();
TfLiteRegistration* Register_RFFT2D();
TfLiteRegistration* Register_COMPLEX_ABS();

// svdf_ops.cc.
TfLiteRegistration* Register_SVDF();
// For the optimized kernel set: a prepared integer SVDF node's sizes and requantization (`user_data`
// is the reference kernel's); false when the node runs the float or hybrid arithmetic.
bool SvdfIntegerParams(const void* user_data, svdf::Shape* shape, svdf::IntegerParams* params);

// detection_postprocess.cc: the custom op "TFLite_Detection_PostProcess".
TfLiteRegistration* Register_DETECTION_POSTPROCESS();

}  // namespace reference
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_REFERENCE_OPS_H_
