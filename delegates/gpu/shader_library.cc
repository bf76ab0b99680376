#include "delegates/gpu/shader_library.h"

namespace touchstone {
namespace gpu {
namespace {

// Each .inc is glslc's -mfmt=c output: a brace-enclosed list of SPIR-V words.
const uint32_t kBinaryF32[] =
#include "delegates/gpu/shaders/binary_f32.inc"
    ;
const uint32_t kBinaryF16[] =
#include "delegates/gpu/shaders/binary_f16.inc"
    ;
const uint32_t kUnaryF32[] =
#include "delegates/gpu/shaders/unary_f32.inc"
    ;
const uint32_t kUnaryF16[] =
#include "delegates/gpu/shaders/unary_f16.inc"
    ;
const uint32_t kConv2dF32[] =
#include "delegates/gpu/shaders/conv2d_f32.inc"
    ;
const uint32_t kConv2dF16[] =
#include "delegates/gpu/shaders/conv2d_f16.inc"
    ;
const uint32_t kDepthwiseConv2dF32[] =
#include "delegates/gpu/shaders/depthwise_conv2d_f32.inc"
    ;
const uint32_t kDepthwiseConv2dF16[] =
#include "delegates/gpu/shaders/depthwise_conv2d_f16.inc"
    ;
const uint32_t kFullyConnectedF32[] =
#include "delegates/gpu/shaders/fully_connected_f32.inc"
    ;
const uint32_t kFullyConnectedF16[] =
#include "delegates/gpu/shaders/fully_connected_f16.inc"
    ;
const uint32_t kPool2dF32[] =
#include "delegates/gpu/shaders/pool2d_f32.inc"
    ;
const uint32_t kPool2dF16[] =
#include "delegates/gpu/shaders/pool2d_f16.inc"
    ;
const uint32_t kSoftmaxF32[] =
#include "delegates/gpu/shaders/softmax_f32.inc"
    ;
const uint32_t kSoftmaxF16[] =
#include "delegates/gpu/shaders/softmax_f16.inc"
    ;
const uint32_t kReduceF32[] =
#include "delegates/gpu/shaders/reduce_f32.inc"
    ;
const uint32_t kReduceF16[] =
#include "delegates/gpu/shaders/reduce_f16.inc"
    ;
const uint32_t kResizeF32[] =
#include "delegates/gpu/shaders/resize_f32.inc"
    ;
const uint32_t kResizeF16[] =
#include "delegates/gpu/shaders/resize_f16.inc"
    ;
const uint32_t kCopyF32[] =
#include "delegates/gpu/shaders/copy_f32.inc"
    ;
const uint32_t kCopyF16[] =
#include "delegates/gpu/shaders/copy_f16.inc"
    ;
const uint32_t kTransposeConvF32[] =
#include "delegates/gpu/shaders/transpose_conv_f32.inc"
    ;
const uint32_t kTransposeConvF16[] =
#include "delegates/gpu/shaders/transpose_conv_f16.inc"
    ;
const uint32_t kLstmF32[] =
#include "delegates/gpu/shaders/lstm_f32.inc"
    ;
const uint32_t kLstmF16[] =
#include "delegates/gpu/shaders/lstm_f16.inc"
    ;

#define TS_ENTRY(array, name) \
  { array, sizeof(array), name }

// Indexed by ShaderId, float32 then float16.
const SpirvCode kShaders[static_cast<int>(ShaderId::kCount)][2] = {
    {TS_ENTRY(kBinaryF32, "binary"), TS_ENTRY(kBinaryF16, "binary")},
    {TS_ENTRY(kUnaryF32, "unary"), TS_ENTRY(kUnaryF16, "unary")},
    {TS_ENTRY(kConv2dF32, "conv2d"), TS_ENTRY(kConv2dF16, "conv2d")},
    {TS_ENTRY(kDepthwiseConv2dF32, "depthwise_conv2d"), TS_ENTRY(kDepthwiseConv2dF16, "depthwise_conv2d")},
    {TS_ENTRY(kFullyConnectedF32, "fully_connected"), TS_ENTRY(kFullyConnectedF16, "fully_connected")},
    {TS_ENTRY(kPool2dF32, "pool2d"), TS_ENTRY(kPool2dF16, "pool2d")},
    {TS_ENTRY(kSoftmaxF32, "softmax"), TS_ENTRY(kSoftmaxF16, "softmax")},
    {TS_ENTRY(kReduceF32, "reduce"), TS_ENTRY(kReduceF16, "reduce")},
    {TS_ENTRY(kResizeF32, "resize"), TS_ENTRY(kResizeF16, "resize")},
    {TS_ENTRY(kCopyF32, "copy"), TS_ENTRY(kCopyF16, "copy")},
    {TS_ENTRY(kTransposeConvF32, "transpose_conv"), TS_ENTRY(kTransposeConvF16, "transpose_conv")},
    {TS_ENTRY(kLstmF32, "lstm"), TS_ENTRY(kLstmF16, "lstm")},
};

}  // namespace

SpirvCode ShaderCode(ShaderId shader, bool float16) { return kShaders[static_cast<int>(shader)][float16 ? 1 : 0]; }

}  // namespace gpu
}  // namespace touchstone
