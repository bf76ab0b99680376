// The optimized kernel set: multi-threaded (over the interpreter's thread pool, see
// runtime/kernels/cpu_backend_context.h), vectorised float32 kernels for the ops where models spend
// their time. Each validates exactly as the reference kernel of its op (it runs the reference
// Prepare first) and runs the reference Eval for every type and configuration it does not
// specialise (the quantized forms, hybrid weights, general broadcasts). Float results differ from
// the reference only by the order of accumulation (and fused multiply-add): within 1e-5 of the
// output's largest magnitude. Pooling, ADD, MUL, RESIZE_BILINEAR, PAD, TRANSPOSE,
// CONCATENATION, ARG_MAX and ARG_MIN are exactly the reference's, and so are the quantized (uint8, int8) CONV_2D,
// DEPTHWISE_CONV_2D, FULLY_CONNECTED and ADD (quantized.h), pooling (pooling.cc), and the 16-bit
// products, quantized ADD and MUL forms, QUANTIZE and DEQUANTIZE of quantized16.h.
//
// The op resolver (runtime/op_resolver.cc) serves these for KernelSet::kOptimized.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_OPS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_OPS_H_

#include "runtime/c/common.h"

namespace touchstone {
namespace optimized {

TfLiteRegistration* Register_CONV_2D();
TfLiteRegistration* Register_DEPTHWISE_CONV_2D();
TfLiteRegistration* Register_FULLY_CONNECTED();
TfLiteRegistration* Register_BATCH_MATMUL();
TfLiteRegistration* Register_ADD();
TfLiteRegistration* Register_MUL();
TfLiteRegistration* Register_AVERAGE_POOL_2D();
TfLiteRegistration* Register_MAX_POOL_2D();
TfLiteRegistration* Register_SOFTMAX();
TfLiteRegistration* Register_MEAN();
TfLiteRegistration* Register_SUM();
TfLiteRegistration* Register_ARG_MAX();
TfLiteRegistration* Register_ARG_MIN();
TfLiteRegistration* Register_RESIZE_BILINEAR();
TfLiteRegistration* Register_PAD();
TfLiteRegistration* Register_PADV2();
TfLiteRegistration* Register_TRANSPOSE();
TfLiteRegistration* Register_CONCATENATION();
TfLiteRegistration* Register_LSTM();
TfLiteRegistration* Register_UNIDIRECTIONAL_SEQUENCE_LSTM();
TfLiteRegistration* Register_LOGISTIC();
TfLiteRegistration* Register_RELU();
TfLiteRegistration* Register_RELU6();
TfLiteRegistration* Register_RELU_N1_TO_1();
TfLiteRegistration* Register_RELU_0_TO_1();
TfLiteRegistration* Register_TANH();
TfLiteRegistration* Register_SVDF();
TfLiteRegistration* Register_RFFT2D();
TfLiteRegistration* Register_COMPLEX_ABS();
TfLiteRegistration* Register_QUANTIZE();
TfLiteRegistration* Register_DEQUANTIZE();

// True when the optimized 8-bit CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED kernels run on
// AVX-512 VNNI or AVX2 on this CPU (with the microkernel set in force): the XNNPACK delegate's
// default leaves int8 and uint8 operators to them then (delegates/xnnpack/xnnpack_provider.h).
bool QuantizedKernelsOutrunXnnpack();

// True when the optimized float32 kernels run on AVX-512 or AVX+FMA on this CPU (with the microkernel
// set in force): the XNNPACK delegate's default leaves float32 operators that have an optimized kernel
// to them then (delegates/xnnpack/xnnpack_provider.h).
bool FloatKernelsUseFma();

// Invokes of a BATCH_MATMUL that computed a whole attention block since the process started
// (fully_connected.cc, BatchMatMulOp::PrepareAttention; tests check that a block was fused).
int64_t FusedAttentionRuns();

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_OPS_H_
