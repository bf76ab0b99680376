// Reference SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND with TensorFlow Lite 2.14.1's semantics
// (tensorflow/lite/kernels/space_to_batch_nd.cc, batch_to_space_nd.cc and
// internal/reference/{space_to_batch_nd,batch_to_space_nd}.h): 3-D [batch, H, C] or 4-D
// [batch, H, W, C] inputs, INT32 block_shape and paddings/crops. Elements are moved as bytes;
// SPACE_TO_BATCH_ND pads quantized tensors with the output zero point, everything else with 0.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h

// The input viewed as [batch, H, W, C]; a 3-D input has W = 1 and no width block or padding.
struct Layout {
  int batch, height, width, depth;
};

Layout LayoutOf(const Shape& shape) {
  if (shape.size() == 3) return {shape[0], shape[1], 1, shape[2]};
  return {shape[0], shape[1], shape[2], shape[3]};
}

struct BlockParams {
  int block_h = 1, block_w = 1;
  int before_h = 0, after_h = 0, before_w = 0, after_w = 0;  // paddings, or crops
};

// Validates block_shape ([spatial]) and paddings/crops ([spatial, 2], non-negative, INT32) and
// reads them; `role` names the second tensor.
TfLiteStatus ReadBlockParams(TfLiteContext* context, const TfLiteTensor* input, const TfLiteTensor* block_shape,
                             const TfLiteTensor* amounts, const char* role, BlockParams* p) {
  const int spatial = input->dims->size - 2;
  if (block_shape->dims->size != 1 || block_shape->dims->data[0] != spatial) {
    TF_LITE_KERNEL_LOG(context, "input 1 (block_shape) has shape %s, expected [%d]", ShapeString(block_shape).c_str(),
                       spatial);
    return kTfLiteError;
  }
  if (amounts->dims->size != 2 || amounts->dims->data[0] != spatial || amounts->dims->data[1] != 2) {
    TF_LITE_KERNEL_LOG(context, "input 2 (%s) has shape %s, expected [%d, 2]", role, ShapeString(amounts).c_str(),
                       spatial);
    return kTfLiteError;
  }
  const int32_t* block = block_shape->data.i32;
  const int32_t* amount = amounts->data.i32;
  for (int i = 0; i < spatial; ++i) {
    if (block[i] < 1) {
      TF_LITE_KERNEL_LOG(context, "input 1 (block_shape) value %d must be at least 1", block[i]);
      return kTfLiteError;
    }
  }
  for (int i = 0; i < 2 * spatial; ++i) {
    if (amount[i] < 0) {
      TF_LITE_KERNEL_LOG(context, "input 2 (%s) value %d must not be negative", role, amount[i]);
      return kTfLiteError;
    }
  }
  p->block_h = block[0];
  p->before_h = amount[0];
  p->after_h = amount[1];
  if (spatial == 2) {
    p->block_w = block[1];
    p->before_w = amount[2];
    p->after_w = amount[3];
  }
  return kTfLiteOk;
}

TfLiteStatus CheckCommon(TfLiteContext* context, TfLiteNode* node, const char* role,
                         std::initializer_list<TfLiteType> types) {
  const TfLiteTensor* input;
  const TfLiteTensor* block_shape;
  const TfLiteTensor* amounts;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input, &block_shape, &amounts}, {&output}));
  if (input->dims->size < 3 || input->dims->size > 4) {
    TF_LITE_KERNEL_LOG(context, "input 0 has shape %s; only 3-D and 4-D inputs are supported",
                       ShapeString(input).c_str());
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, CheckTypeOneOf(context, input, "input 0", types));
  TF_LITE_ENSURE_OK(context, CheckType(context, output, "output 0", input->type));
  TF_LITE_ENSURE_OK(context, CheckType(context, block_shape, "input 1 (block_shape)", kTfLiteInt32));
  std::string amounts_role = std::string("input 2 (") + role + ")";
  return CheckType(context, amounts, amounts_role.c_str(), kTfLiteInt32);
}

// ---------------------------------------------------------------------------------------------
// SPACE_TO_BATCH_ND: pads H and W, then moves each block_h x block_w phase into its own batch:
// output batch (sh * block_w + sw) * batch + b holds padded[b, oh * block_h + sh, ow * block_w +
// sw].

TfLiteStatus SpaceToBatchResize(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  BlockParams p;
  TF_LITE_ENSURE_OK(context, ReadBlockParams(context, input, tflite::GetInput(context, node, 1),
                                             tflite::GetInput(context, node, 2), "paddings", &p));
  Shape shape = ShapeOf(input);
  const int64_t padded_h = static_cast<int64_t>(shape[1]) + p.before_h + p.after_h;
  if (padded_h % p.block_h != 0) {
    TF_LITE_KERNEL_LOG(context, "padded height %lld is not a multiple of block height %d",
                       static_cast<long long>(padded_h), p.block_h);
    return kTfLiteError;
  }
  shape[1] = static_cast<int>(padded_h / p.block_h);
  if (shape.size() == 4) {
    const int64_t padded_w = static_cast<int64_t>(shape[2]) + p.before_w + p.after_w;
    if (padded_w % p.block_w != 0) {
      TF_LITE_KERNEL_LOG(context, "padded width %lld is not a multiple of block width %d",
                         static_cast<long long>(padded_w), p.block_w);
      return kTfLiteError;
    }
    shape[2] = static_cast<int>(padded_w / p.block_w);
  }
  shape[0] = static_cast<int>(static_cast<int64_t>(shape[0]) * p.block_h * p.block_w);
  return ResizeOutput(context, tflite::GetOutput(context, node, 0), shape);
}

TfLiteStatus SpaceToBatchPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context,
                    CheckCommon(context, node, "paddings",
                                {kTfLiteFloat32, kTfLiteUInt8, kTfLiteInt8, kTfLiteInt16, kTfLiteInt32, kTfLiteInt64}));
  if (!InputValuesKnown(context, node, 1) || !InputValuesKnown(context, node, 2)) {
    tflite::SetTensorToDynamic(tflite::GetOutput(context, node, 0));
    return kTfLiteOk;
  }
  return SpaceToBatchResize(context, node);
}

TfLiteStatus SpaceToBatchEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (tflite::IsDynamicTensor(output)) TF_LITE_ENSURE_OK(context, SpaceToBatchResize(context, node));
  if (output->bytes == 0) return kTfLiteOk;
  BlockParams p;
  TF_LITE_ENSURE_OK(context, ReadBlockParams(context, input, tflite::GetInput(context, node, 1),
                                             tflite::GetInput(context, node, 2), "paddings", &p));
  const Layout in = LayoutOf(ShapeOf(input));
  const Layout out = LayoutOf(ShapeOf(output));
  const size_t elem = tflite::TfLiteTypeGetSize(input->type);
  const size_t pixel_bytes = static_cast<size_t>(in.depth) * elem;
  // TFLite memsets padding with the output zero point (for 8-bit types that value; int16's is 0).
  const bool quantized = input->type == kTfLiteUInt8 || input->type == kTfLiteInt8 || input->type == kTfLiteInt16;
  const int pad_byte = quantized ? output->params.zero_point : 0;
  char* dst = output->data.raw;
  for (int ob = 0; ob < out.batch; ++ob) {
    const int b = ob % in.batch;
    const int phase = ob / in.batch;
    const int shift_h = phase / p.block_w;
    const int shift_w = phase % p.block_w;
    for (int oh = 0; oh < out.height; ++oh) {
      const int h = oh * p.block_h + shift_h - p.before_h;
      for (int ow = 0; ow < out.width; ++ow, dst += pixel_bytes) {
        const int w = ow * p.block_w + shift_w - p.before_w;
        if (h < 0 || h >= in.height || w < 0 || w >= in.width) {
          std::memset(dst, pad_byte, pixel_bytes);
        } else {
          const int64_t offset = ((static_cast<int64_t>(b) * in.height + h) * in.width + w) * in.depth;
          std::memcpy(dst, input->data.raw_const + offset * elem, pixel_bytes);
        }
      }
    }
  }
  return kTfLiteOk;
}

// ---------------------------------------------------------------------------------------------
// BATCH_TO_SPACE_ND: the inverse, then crops: input batch (sh * block_w + sw) * out_batch + b
// lands at output [b, h * block_h + sh - crop_top, w * block_w + sw - crop_left].

TfLiteStatus BatchToSpaceResize(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  BlockParams p;
  TF_LITE_ENSURE_OK(context, ReadBlockParams(context, input, tflite::GetInput(context, node, 1),
                                             tflite::GetInput(context, node, 2), "crops", &p));
  Shape shape = ShapeOf(input);
  const int64_t blocks = static_cast<int64_t>(p.block_h) * p.block_w;
  if (shape[0] % blocks != 0) {
    TF_LITE_KERNEL_LOG(context, "input batch %d is not a multiple of the block size %lld", shape[0],
                       static_cast<long long>(blocks));
    return kTfLiteError;
  }
  shape[0] = static_cast<int>(shape[0] / blocks);
  const int64_t h = static_cast<int64_t>(shape[1]) * p.block_h - p.before_h - p.after_h;
  const int64_t w = shape.size() == 4 ? static_cast<int64_t>(shape[2]) * p.block_w - p.before_w - p.after_w : 1;
  if (h < 0 || w < 0) {
    TF_LITE_KERNEL_LOG(context, "input 2 (crops) crop more than the block-expanded input holds");
    return kTfLiteError;
  }
  shape[1] = static_cast<int>(h);
  if (shape.size() == 4) shape[2] = static_cast<int>(w);
  return ResizeOutput(context, tflite::GetOutput(context, node, 0), shape);
}

TfLiteStatus BatchToSpacePrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context,
                    CheckCommon(context, node, "crops",
                                {kTfLiteFloat32, kTfLiteUInt8, kTfLiteInt8, kTfLiteInt16, kTfLiteInt32, kTfLiteInt64}));
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (input->type == kTfLiteUInt8 || input->type == kTfLiteInt8 || input->type == kTfLiteInt16) {
    if (input->params.scale != output->params.scale || input->params.zero_point != output->params.zero_point) {
      TF_LITE_KERNEL_LOG(context,
                         "input 0 (scale %g, zero point %d) and output 0 (scale %g, zero point %d) "
                         "must be quantized alike",
                         input->params.scale, input->params.zero_point, output->params.scale,
                         output->params.zero_point);
      return kTfLiteError;
    }
    if (input->type == kTfLiteInt16 && input->params.zero_point != 0) {
      TF_LITE_KERNEL_LOG(context, "input 0 is INT16 with zero point %d; it must be 0", input->params.zero_point);
      return kTfLiteError;
    }
  }
  if (!InputValuesKnown(context, node, 1) || !InputValuesKnown(context, node, 2)) {
    tflite::SetTensorToDynamic(tflite::GetOutput(context, node, 0));
    return kTfLiteOk;
  }
  return BatchToSpaceResize(context, node);
}

TfLiteStatus BatchToSpaceEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = tflite::GetInput(context, node, 0);
  TfLiteTensor* output = tflite::GetOutput(context, node, 0);
  if (tflite::IsDynamicTensor(output)) TF_LITE_ENSURE_OK(context, BatchToSpaceResize(context, node));
  if (output->bytes == 0) return kTfLiteOk;
  BlockParams p;
  TF_LITE_ENSURE_OK(context, ReadBlockParams(context, input, tflite::GetInput(context, node, 1),
                                             tflite::GetInput(context, node, 2), "crops", &p));
  const Layout in = LayoutOf(ShapeOf(input));
  const Layout out = LayoutOf(ShapeOf(output));
  const size_t elem = tflite::TfLiteTypeGetSize(input->type);
  const size_t pixel_bytes = static_cast<size_t>(in.depth) * elem;
  const char* src = input->data.raw_const;
  for (int ib = 0; ib < in.batch; ++ib) {
    const int b = ib % out.batch;
    const int phase = ib / out.batch;
    const int shift_h = phase / p.block_w;
    const int shift_w = phase % p.block_w;
    for (int ih = 0; ih < in.height; ++ih) {
      const int h = ih * p.block_h + shift_h - p.before_h;
      for (int iw = 0; iw < in.width; ++iw, src += pixel_bytes) {
        const int w = iw * p.block_w + shift_w - p.before_w;
        if (h < 0 || h >= out.height || w < 0 || w >= out.width) continue;
        const int64_t offset = ((static_cast<int64_t>(b) * out.height + h) * out.width + w) * out.depth;
        std::memcpy(output->data.raw + offset * elem, src, pixel_bytes);
      }
    }
  }
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(SPACE_TO_BATCH_ND, SpaceToBatchPrepare, SpaceToBatchEval)
TS_REGISTER(BATCH_TO_SPACE_ND, BatchToSpacePrepare, BatchToSpaceEval)

}  // namespace reference
}  // namespace touchstone
