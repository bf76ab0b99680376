// Reference RESHAPE, SQUEEZE, EXPAND_DIMS, SHAPE and RANK kernels (TFLite 2.14 semantics; helpers
// and conventions in kernel_helpers.h).
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
// RESHAPE (TFLite 2.14 reshape.cc): the new shape comes from input 1 when it is a 1-D INT32
// tensor, else from the options (where a legacy [0] means a scalar). One -1 is inferred.

// Into *result (assigned, so that a Shape kept from an earlier Eval is reused without allocating).
void ReshapeRequestedShape(TfLiteContext* context, TfLiteNode* node, Shape* result) {
  if (NumInputs(node) == 2) {
    const TfLiteTensor* shape = GetInput(context, node, 1);
    if (shape != nullptr && shape->dims->size == 1 && shape->type == kTfLiteInt32) {
      const int n = shape->dims->data[0];
      result->assign(shape->data.i32, shape->data.i32 + n);
      return;
    }
  }
  const TfLiteReshapeParams params = ParamsOf<TfLiteReshapeParams>(node);
  int n = std::min(std::max(params.num_dimensions, 0), TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT);
  if (n == 1 && params.shape[0] == 0) n = 0;
  result->assign(params.shape, params.shape + n);
}

TfLiteStatus ReshapeShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  if (NumInputs(node) == 2) {
    const TfLiteTensor* shape = GetInput(context, node, 1);
    if (shape != nullptr && shape->dims->size == 1 && shape->type == kTfLiteInt32 && shape->dims->data[0] > 0 &&
        shape->data.raw == nullptr) {
      TF_LITE_KERNEL_LOG(context, "RESHAPE: shape input has no data");
      return kTfLiteError;
    }
  }
  shapes->resize(1);
  Shape& out = shapes->front();
  ReshapeRequestedShape(context, node, &out);
  const int64_t num_input = tflite::NumElements(input);
  int64_t non_zero_input = 1;
  for (int i = 0; i < input->dims->size; ++i) {
    if (input->dims->data[i] != 0) non_zero_input *= input->dims->data[i];
  }
  int stretch = -1;
  int64_t num_output = 1, non_zero_output = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (stretch != -1) {
        TF_LITE_KERNEL_LOG(context, "RESHAPE: more than one -1 in the new shape");
        return kTfLiteError;
      }
      stretch = static_cast<int>(i);
      continue;
    }
    if (out[i] < 0) {
      TF_LITE_KERNEL_LOG(context, "RESHAPE: negative dimension %d in the new shape", out[i]);
      return kTfLiteError;
    }
    if (out[i] != 0) non_zero_output *= out[i];
    num_output *= out[i];
  }
  if (stretch != -1) {
    if (num_input == 0 && num_output != 0) {
      out[stretch] = 0;
    } else {
      out[stretch] = static_cast<int>(non_zero_input / non_zero_output);
    }
    num_output *= out[stretch];
  }
  if (num_input != num_output) {
    std::string dims;
    for (size_t i = 0; i < out.size(); ++i) dims += (i ? "," : "") + std::to_string(out[i]);
    TF_LITE_KERNEL_LOG(context, "RESHAPE: cannot reshape %lld elements into shape [%s] (%lld elements)",
                       static_cast<long long>(num_input), dims.c_str(), static_cast<long long>(num_output));
    return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus ReshapePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, 1, 2, &input, &output));
  // String tensors are always sized in Eval, when their content is known (as in TFLite).
  if (output->type == kTfLiteString) {
    tflite::SetTensorToDynamic(output);
    return kTfLiteOk;
  }
  const bool known = NumInputs(node) == 1 || InputValuesKnown(context, node, 1);
  if (known && tflite::IsConstantOrPersistentTensor(input)) {
    // A constant reshaped is a constant: written once here, as TFLite 2.14 does, so that no Invoke
    // copies it again (the interpreter then skips the node, kernel "prepare").
    tflite::SetTensorToPersistentRo(output);
    TF_LITE_ENSURE_OK(context, ResizeOutputs(context, node, ReshapeShape));
    TF_LITE_ENSURE_OK(context, CopyAllBytes(context, input, output));
    if (input->bytes > 0) ConstantCopied(context, input->data.raw, input->bytes);
    return kTfLiteOk;
  }
  // Folded at an earlier Prepare, whose input a delegate has since taken over: computed again by Eval.
  if (output->allocation_type == kTfLitePersistentRo) {
    TfLiteTensorDataFree(output);
    output->allocation_type = kTfLiteArenaRw;
  }
  return SizeOrDefer(context, node, known, ReshapeShape);
}

TfLiteStatus ReshapeEval(TfLiteContext* context, TfLiteNode* node) {
  // Prepare found both tensors (GetSameTypedIo).
  const TfLiteTensor* input = GetInput(context, node, 0);
  TfLiteTensor* output = GetOutput(context, node, 0);
  if (output->allocation_type == kTfLitePersistentRo) return kTfLiteOk;  // written at Prepare
  if (IsDynamicTensor(output)) TF_LITE_ENSURE_OK(context, ResizeOutputs(context, node, ReshapeShape));
  if (output->type == kTfLiteString) {
    TF_LITE_ENSURE_OK(context, TfLiteTensorRealloc(input->bytes, output));
    output->bytes = input->bytes;
  }
  return CopyAllBytes(context, input, output);
}

// ---------------------------------------------------------------------------------------------
// SQUEEZE: drops the listed size-1 dimensions, or all of them when none are listed.

TfLiteStatus SqueezePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetSameTypedIo(context, node, 1, 1, &input, &output));
  const TfLiteSqueezeParams params = ParamsOf<TfLiteSqueezeParams>(node);
  const int rank = NumDimensions(input);
  std::vector<bool> squeeze(rank, false);
  const int count = std::min(std::max(params.num_squeeze_dims, 0), 8);
  if (count == 0) {
    for (int i = 0; i < rank; ++i) squeeze[i] = input->dims->data[i] == 1;
  } else {
    for (int i = 0; i < count; ++i) {
      int axis;
      if (!NormalizeAxis(params.squeeze_dims[i], rank, &axis)) {
        TF_LITE_KERNEL_LOG(context, "SQUEEZE: dimension %d is out of range for rank %d", params.squeeze_dims[i], rank);
        return kTfLiteError;
      }
      if (input->dims->data[axis] != 1) {
        TF_LITE_KERNEL_LOG(context, "SQUEEZE: dimension %d has size %d, not 1", axis, input->dims->data[axis]);
        return kTfLiteError;
      }
      squeeze[axis] = true;
    }
  }
  Shape out;
  for (int i = 0; i < rank; ++i) {
    if (!squeeze[i]) out.push_back(input->dims->data[i]);
  }
  return ResizeOutput(context, output, out);
}

TfLiteStatus CopyEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  return CopyAllBytes(context, input, output);
}

TfLiteStatus SqueezeEval(TfLiteContext* context, TfLiteNode* node) { return CopyEval(context, node); }

// ---------------------------------------------------------------------------------------------
// EXPAND_DIMS: inserts a size-1 dimension at `axis` (input 1), in [-(rank+1), rank].

TfLiteStatus ExpandDimsShape(TfLiteContext* context, TfLiteNode* node, std::vector<Shape>* shapes) {
  const TfLiteTensor* input;
  const TfLiteTensor* axis_t;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 1, &axis_t));
  int64_t axis;
  TF_LITE_ENSURE_OK(context, ReadOneInt(context, axis_t, "axis", &axis));
  int normalized;
  if (!NormalizeAxis(axis, NumDimensions(input) + 1, &normalized)) {
    TF_LITE_KERNEL_LOG(context, "EXPAND_DIMS: axis %lld is out of range for rank %d", static_cast<long long>(axis),
                       NumDimensions(input));
    return kTfLiteError;
  }
  Shape out = ShapeOf(input);
  out.insert(out.begin() + normalized, 1);
  shapes->assign(1, out);
  return kTfLiteOk;
}

TfLiteStatus ExpandDimsPrepare(TfLiteContext* context, TfLiteNode* node) {
  return PrepareShapedByInput1(context, node, ExpandDimsShape);
}

TfLiteStatus ExpandDimsEval(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, ResizeDynamicOutputs(context, node, ExpandDimsShape));
  return CopyEval(context, node);
}

// ---------------------------------------------------------------------------------------------
// SHAPE and RANK.

TfLiteStatus ShapePrepare(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetNodeTensors(context, node, {&input}, {&output}));
  const TfLiteShapeParams params = ParamsOf<TfLiteShapeParams>(node);
  const TfLiteType want = params.out_type == kTfLiteNoType ? output->type : params.out_type;
  if ((want != kTfLiteInt32 && want != kTfLiteInt64) || output->type != want) {
    TF_LITE_KERNEL_LOG(context, "SHAPE: output type must be INT32 or INT64 (out_type %s, output %s)",
                       TfLiteTypeGetName(params.out_type), TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return ResizeOutput(context, output, {NumDimensions(input)});
}

TfLiteStatus ShapeEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  for (int i = 0; i < input->dims->size; ++i) {
    if (output->type == kTfLiteInt64) {
      output->data.i64[i] = input->dims->data[i];
    } else {
      output->data.i32[i] = input->dims->data[i];
    }
  }
  return kTfLiteOk;
}

TfLiteStatus RankPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_OK(context, CheckArity(context, node, 1, 1));
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  if (output->type != kTfLiteInt32) {
    TF_LITE_KERNEL_LOG(context, "RANK: output type must be INT32, got %s", TfLiteTypeGetName(output->type));
    return kTfLiteError;
  }
  return ResizeOutput(context, output, {});
}

TfLiteStatus RankEval(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input;
  TfLiteTensor* output;
  TF_LITE_ENSURE_OK(context, GetInputSafe(context, node, 0, &input));
  TF_LITE_ENSURE_OK(context, GetOutputSafe(context, node, 0, &output));
  output->data.i32[0] = NumDimensions(input);
  return kTfLiteOk;
}

}  // namespace

TS_REGISTER(RESHAPE, ReshapePrepare, ReshapeEval)
TS_REGISTER(SQUEEZE, SqueezePrepare, SqueezeEval)
TS_REGISTER(EXPAND_DIMS, ExpandDimsPrepare, ExpandDimsEval)
TS_REGISTER(SHAPE, ShapePrepare, ShapeEval)
TS_REGISTER(RANK, RankPrepare, RankEval)

}  // namespace reference
}  // namespace touchstone
