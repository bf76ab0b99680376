// Reference PAD, PADV2 and MIRROR_PAD kernels (TFLite 2.14 semantics; helpers in
// kernel_helpers.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/internal/type_dispatch.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace reference {
namespace {

using namespace kernel_helpers;  // NOLINT(build/namespaces): the helpers of kernel_helpers.h

// ---------------------------------------------------------------------------------------------
// PAD, PADV2, MIRROR_PAD. Paddings are an INT32/INT64 [rank, 2] tensor of (before, after).

TfLiteStatus ReadPaddings(TfLiteContext* context, TfLiteNode* node, const char* op, std::vector<int64_t>* pads) {
  const TfLiteTensor* input = GetInput(context, node, 0);
  const TfLiteTensor* paddings = GetInput(context, node, 1);
  const int rank = NumDimensions(input);
  if (NumDimensions(paddings) != 2 || paddings->dims->data[0] != rank || paddings->dims->data[1] != 2) {
    TF_LITE_KERNEL_LOG(context, "%s: paddings must have shape [%d, 2]", op, rank);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_OK(context, ReadInts(context, paddings, "paddings", pads));
  for (int64_t p : *pads) {
    if (p < 0) {
      TF_LITE_KERNEL_LOG(context, "%s: negative padding %lld", op, static_cast<long long>(p));
      return kTfLiteError;
    }
  }
  return kTfLiteOk;
}

TfLiteStatus PaddedShape(TfLiteContext* context, TfLiteNode* node, const char* op, std::vector<Shape>* shapes) {
  std::vector<int64_t> pads;
  TF_LITE_ENSURE_OK(context, ReadPaddings(context, node, op, &pads));
  const TfLiteTensor* input = GetInput(context, node, 0);
  Shape out(NumDimensions(input));
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t v = input->dims->data[d] + pads[2 * d] + pads[2 * d + 1];
    TF_LITE_ENSURE_OK(context, CheckDimValue(context, v));
    out[d] = static_cast<int>(v);
  }
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus PadShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  return PaddedShape(context, node, "PAD", shapes);
}

TfLiteStatus PadPrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, 2, 3, &input, &output));
  // TFLite's PAD and PADV2 kernels stop at rank 5 (PadKernelMaxDimensionCount) and refuse more.
  constexpr int kMaxPadRank = 5;
  if (NumDimensions(input) > kMaxPadRank) {
    TF_LITE_KERNEL_LOG(context, "PAD: rank %d is above %d, the most TFLite pads", NumDimensions(input), kMaxPadRank);
    return kTfLiteError;
  }
  const TfLiteTensor* value = NumInputs(node) == 3 ? GetInput(context, node, 2) : nullptr;
  if (value != nullptr) {
    TF_LITE_ENSURE_OK(context, CheckType(context, value, "constant_values", input->type));
    if (tflite::NumElements(value) != 1) {
      TF_LITE_KERNEL_LOG(context, "PAD: constant_values must hold one value");
      return kTfLiteError;
    }
  }
  return SizeOrDefer(context, node, InputValuesKnown(context, node, 1), PadShape);
}

TfLiteStatus PadEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, PadShape));
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  std::vector<int64_t> pads;
  TF_LITE_ENSURE_OK(context, ReadPaddings(context, node, "PAD", &pads));
  // The pad value: constant_values when given, else zero (the zero point for quantized types).
  char pad_value[16] = {0};
  const TfLiteTensor* value = NumInputs(node) == 3 ? GetInput(context, node, 2) : nullptr;
  size_t elem;
  TF_LITE_ENSURE_OK(context, ElementSize(context, input, "input 0", &elem));
  if (value != nullptr) {
    std::memcpy(pad_value, value->data.raw_const, elem);
  } else if (output->type == kTfLiteUInt8) {
    pad_value[0] = static_cast<char>(static_cast<uint8_t>(output->params.zero_point));
  } else if (output->type == kTfLiteInt8) {
    pad_value[0] = static_cast<char>(static_cast<int8_t>(output->params.zero_point));
  } else if (output->type == kTfLiteInt16) {
    const int16_t zp = static_cast<int16_t>(output->params.zero_point);
    std::memcpy(pad_value, &zp, sizeof(zp));
  }
  return GatherEachDim(
      context, input,
      [&](int d, int i) {
        const int64_t j = i - pads[2 * d];
        return (j >= 0 && j < input->dims->data[d]) ? j : int64_t{-1};
      },
      pad_value, output);
}

TfLiteStatus MirrorPadShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteMirrorPaddingParams params = ParamsOf<TfLiteMirrorPaddingParams>(node);
  if (params.mode != kTfLiteMirrorPaddingReflect && params.mode != kTfLiteMirrorPaddingSymmetric) {
    TF_LITE_KERNEL_LOG(context, "MIRROR_PAD: mode must be REFLECT or SYMMETRIC (got %d)",
                       static_cast<int>(params.mode));
    return kTfLiteError;
  }
  const int offset = params.mode == kTfLiteMirrorPaddingReflect ? 1 : 0;
  std::vector<int64_t> pads;
  TF_LITE_ENSURE_OK(context, ReadPaddings(context, node, "MIRROR_PAD", &pads));
  const TfLiteTensor* input = GetInput(context, node, 0);
  for (int d = 0; d < NumDimensions(input); ++d) {
    const int64_t limit = input->dims->data[d] - offset;
    if (pads[2 * d] > limit || pads[2 * d + 1] > limit) {
      TF_LITE_KERNEL_LOG(context, "MIRROR_PAD: padding (%lld, %lld) of dimension %d exceeds %lld for %s mode",
                         static_cast<long long>(pads[2 * d]), static_cast<long long>(pads[2 * d + 1]), d,
                         static_cast<long long>(std::max<int64_t>(limit, 0)), offset ? "REFLECT" : "SYMMETRIC");
      return kTfLiteError;
    }
  }
  return PaddedShape(context, node, "MIRROR_PAD", shapes);
}

TfLiteStatus MirrorPadPrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareShapedByInput1(context, node, MirrorPadShape);
}

TfLiteStatus MirrorPadEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, MirrorPadShape));
  const TfLiteMirrorPaddingParams params = ParamsOf<TfLiteMirrorPaddingParams>(node);
  const int offset = params.mode == kTfLiteMirrorPaddingReflect ? 1 : 0;
  std::vector<int64_t> pads;
  TF_LITE_ENSURE_OK(context, ReadPaddings(context, node, "MIRROR_PAD", &pads));
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  return GatherEachDim(
      context, input,
      [&](int d, int i) { return shape_util::MirrorPadIndex(i, pads[2 * d], input->dims->data[d], offset); }, nullptr,
      output);
}

}  // namespace

TS_REGISTER(PAD, PadPrepare, PadEval)
TS_REGISTER(PADV2, PadPrepare, PadEval)
TS_REGISTER(MIRROR_PAD, MirrorPadPrepare, MirrorPadEval)

}  // namespace reference
}  // namespace touchstone
