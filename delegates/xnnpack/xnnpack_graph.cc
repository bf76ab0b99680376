#include "delegates/xnnpack/xnnpack_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace xnnpack {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

const char* StatusName(enum xnn_status status) {
  switch (status) {
    case xnn_status_success:
      return "success";
    case xnn_status_uninitialized:
      return "uninitialized";
    case xnn_status_invalid_parameter:
      return "invalid parameter";
    case xnn_status_invalid_state:
      return "invalid state";
    case xnn_status_unsupported_parameter:
      return "unsupported parameter";
    case xnn_status_unsupported_hardware:
      return "unsupported hardware";
    case xnn_status_out_of_memory:
      return "out of memory";
  }
  return "unknown status";
}

const char* OpName(int op) {
  switch (op) {
    case kTfLiteBuiltinAdd:
      return "ADD";
    case kTfLiteBuiltinSub:
      return "SUB";
    case kTfLiteBuiltinMul:
      return "MUL";
    case kTfLiteBuiltinDiv:
      return "DIV";
    case kTfLiteBuiltinMaximum:
      return "MAXIMUM";
    case kTfLiteBuiltinMinimum:
      return "MINIMUM";
    case kTfLiteBuiltinSquaredDifference:
      return "SQUARED_DIFFERENCE";
    case kTfLiteBuiltinConv2d:
      return "CONV_2D";
    case kTfLiteBuiltinDepthwiseConv2d:
      return "DEPTHWISE_CONV_2D";
    case kTfLiteBuiltinFullyConnected:
      return "FULLY_CONNECTED";
    case kTfLiteBuiltinBatchMatmul:
      return "BATCH_MATMUL";
    case kTfLiteBuiltinSoftmax:
      return "SOFTMAX";
    case kTfLiteBuiltinResizeBilinear:
      return "RESIZE_BILINEAR";
    case kTfLiteBuiltinTranspose:
      return "TRANSPOSE";
    case kTfLiteBuiltinMaxPool2d:
      return "MAX_POOL_2D";
    case kTfLiteBuiltinAveragePool2d:
      return "AVERAGE_POOL_2D";
    case kTfLiteBuiltinPad:
      return "PAD";
    case kTfLiteBuiltinPadv2:
      return "PADV2";
    case kTfLiteBuiltinReshape:
      return "RESHAPE";
    case kTfLiteBuiltinSqueeze:
      return "SQUEEZE";
    case kTfLiteBuiltinExpandDims:
      return "EXPAND_DIMS";
    default:
      return "op";
  }
}

// TFLite's output size of a convolution or pooling window; -1 when the window does not fit.
int WindowOutputSize(int in, int filter, int stride, int dilation, TfLitePadding padding) {
  const int64_t effective = static_cast<int64_t>(filter - 1) * dilation + 1;
  if (padding == kTfLitePaddingSame) return static_cast<int>((static_cast<int64_t>(in) + stride - 1) / stride);
  if (padding == kTfLitePaddingValid) {
    if (in < effective) return -1;
    return static_cast<int>((in - effective) / stride + 1);
  }
  return -1;
}

// TFLite's padding before the data (ComputePaddingWithOffset without the offset).
int PaddingBefore(int in, int out, int filter, int stride, int dilation) {
  const int64_t effective = static_cast<int64_t>(filter - 1) * dilation + 1;
  const int64_t total = std::max<int64_t>(0, (static_cast<int64_t>(out) - 1) * stride + effective - in);
  return static_cast<int>(total / 2);
}

uint32_t PaddingFlags(TfLitePadding padding) {
  return padding == kTfLitePaddingSame ? XNN_FLAG_TENSORFLOW_SAME_PADDING : 0;
}

// The float values of a folded DEQUANTIZE (the reference kernel's arithmetic), with
// XNN_EXTRA_BYTES of slack after them.
bool FoldDequantize(const TfLiteTensor& in, std::vector<float>* out) {
  int64_t count = 1;
  for (int i = 0; i < in.dims->size; ++i) count *= in.dims->data[i];
  out->assign(static_cast<size_t>(count) + XNN_EXTRA_BYTES / sizeof(float), 0.0f);
  if (in.type == kTfLiteFloat16) {
    const auto* h = reinterpret_cast<const uint16_t*>(in.data.raw);
    float16::HalfsToFloats(h, count, out->data());
    return true;
  }
  auto value = [&](int64_t i) -> int32_t {
    return in.type == kTfLiteInt8 ? static_cast<int32_t>(reinterpret_cast<const int8_t*>(in.data.raw)[i])
                                  : static_cast<int32_t>(reinterpret_cast<const uint8_t*>(in.data.raw)[i]);
  };
  const TfLiteAffineQuantization* q = AffineQuantization(&in);
  if (IsPerChannelQuantized(&in)) {
    const int dim = q->quantized_dimension;
    int64_t inner = 1;
    for (int i = dim + 1; i < in.dims->size; ++i) inner *= in.dims->data[i];
    const int channels = in.dims->data[dim];
    for (int64_t i = 0; i < count; ++i) {
      const int c = static_cast<int>((i / inner) % channels);
      const int32_t zp = q->zero_point != nullptr && q->zero_point->size > c ? q->zero_point->data[c] : 0;
      (*out)[i] = q->scale->data[c] * static_cast<float>(value(i) - zp);
    }
    return true;
  }
  const double scale = in.params.scale;
  const int32_t zp = in.params.zero_point;
  for (int64_t i = 0; i < count; ++i) (*out)[i] = static_cast<float>(scale * (value(i) - zp));
  return true;
}

bool FoldableDequantize(const TfLiteTensor& in, const TfLiteTensor& out) {
  if (in.allocation_type != kTfLiteMmapRo || in.data.raw == nullptr || in.dims == nullptr) return false;
  if (out.type != kTfLiteFloat32 || out.is_variable) return false;
  if (in.dims->size > XNN_MAX_TENSOR_DIMS) return false;
  int64_t count = 1;
  for (int i = 0; i < in.dims->size; ++i) {
    if (in.dims->data[i] <= 0) return false;
    count *= in.dims->data[i];
  }
  if (in.type == kTfLiteFloat16) return in.bytes >= static_cast<size_t>(count) * 2;
  if (in.type != kTfLiteInt8 && in.type != kTfLiteUInt8) return false;
  if (in.bytes < static_cast<size_t>(count)) return false;
  const TfLiteAffineQuantization* q = AffineQuantization(&in);
  if (q == nullptr) return false;
  if (IsPerChannelQuantized(&in)) {
    const int dim = q->quantized_dimension;
    if (dim < 0 || dim >= in.dims->size || q->scale->size != in.dims->data[dim]) return false;
    return q->zero_point == nullptr || q->zero_point->size == q->scale->size;
  }
  return true;
}

// Whether the node's output shape depends on the values (not just the shapes) of inputs that are not
// constants: the inputs that give a shape, size, bounds, axes, paddings or counts.
bool OutputShapeFromValues(int op, const TfLiteRegistration* registration, const TfLiteNode* node,
                           TfLiteContext* context) {
  std::vector<int> shape_inputs;
  switch (op) {
    case kTfLiteBuiltinWhere:
    case kTfLiteBuiltinUnique:
    case kTfLiteBuiltinNonMaxSuppressionV4:
    case kTfLiteBuiltinNonMaxSuppressionV5:
    case kTfLiteBuiltinWhile:
    case kTfLiteBuiltinIf:
    case kTfLiteBuiltinCallOnce:
      return true;
    case kTfLiteBuiltinCustom:
      // Detection post-processing has fixed output shapes; other custom ops are unknown.
      return registration->custom_name == nullptr ||
             std::strcmp(registration->custom_name, "TFLite_Detection_PostProcess") != 0;
    case kTfLiteBuiltinFill:
    case kTfLiteBuiltinSplit:
    case kTfLiteBuiltinTransposeConv:
      shape_inputs = {0};
      break;
    case kTfLiteBuiltinRange:
      shape_inputs = {0, 1, 2};
      break;
    case kTfLiteBuiltinSlice:
    case kTfLiteBuiltinSplitV:
    case kTfLiteBuiltinSpaceToBatchNd:
    case kTfLiteBuiltinBatchToSpaceNd:
      shape_inputs = {1, 2};
      break;
    case kTfLiteBuiltinStridedSlice:
      shape_inputs = {1, 2, 3};
      break;
    case kTfLiteBuiltinScatterNd:
    case kTfLiteBuiltinUnsortedSegmentSum:
    case kTfLiteBuiltinUnsortedSegmentMax:
    case kTfLiteBuiltinUnsortedSegmentMin:
    case kTfLiteBuiltinUnsortedSegmentProd:
      shape_inputs = {2};
      break;
    case kTfLiteBuiltinReshape:
    case kTfLiteBuiltinTile:
    case kTfLiteBuiltinPad:
    case kTfLiteBuiltinPadv2:
    case kTfLiteBuiltinMirrorPad:
    case kTfLiteBuiltinBroadcastTo:
    case kTfLiteBuiltinResizeBilinear:
    case kTfLiteBuiltinResizeNearestNeighbor:
    case kTfLiteBuiltinExpandDims:
    case kTfLiteBuiltinTranspose:
    case kTfLiteBuiltinMean:
    case kTfLiteBuiltinSum:
    case kTfLiteBuiltinReduceProd:
    case kTfLiteBuiltinReduceMax:
    case kTfLiteBuiltinReduceMin:
    case kTfLiteBuiltinReduceAny:
    case kTfLiteBuiltinReduceAll:
    case kTfLiteBuiltinArgMax:
    case kTfLiteBuiltinArgMin:
    case kTfLiteBuiltinTopkV2:
    case kTfLiteBuiltinOneHot:
    case kTfLiteBuiltinSparseToDense:
    case kTfLiteBuiltinSegmentSum:
    case kTfLiteBuiltinRfft2d:
      shape_inputs = {1};
      break;
    default:
      return false;
  }
  for (int k : shape_inputs) {
    if (k >= node->inputs->size) continue;
    const int t = node->inputs->data[k];
    if (t < 0 || t >= static_cast<int>(context->tensors_size)) continue;
    if (context->tensors[t].allocation_type != kTfLiteMmapRo) return true;
  }
  return false;
}

}  // namespace

GraphInfo AnalyzeGraph(TfLiteContext* context) {
  GraphInfo info;
  TfLiteIntArray* plan = nullptr;
  if (context->GetExecutionPlan(context, &plan) != kTfLiteOk || plan == nullptr) return info;
  const int tensor_count = static_cast<int>(context->tensors_size);
  auto valid = [&](int t) { return t >= 0 && t < tensor_count; };
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* registration = nullptr;
    if (context->GetNodeAndRegistration(context, plan->data[i], &node, &registration) != kTfLiteOk) continue;
    if (node->inputs == nullptr || node->outputs == nullptr) continue;
    const int op = registration->builtin_code;
    // Folded weights.
    if (op == kTfLiteBuiltinDequantize && node->inputs->size == 1 && node->outputs->size == 1) {
      const int in = node->inputs->data[0], out = node->outputs->data[0];
      if (valid(in) && valid(out) && FoldableDequantize(context->tensors[in], context->tensors[out])) {
        info.quasi_static[out] = in;
      }
    }
    // Shapes that may change at run time.
    bool dynamic = false;
    for (int k = 0; k < node->inputs->size; ++k) {
      const int t = node->inputs->data[k];
      if (valid(t) && (info.maybe_dynamic.count(t) || context->tensors[t].allocation_type == kTfLiteDynamic)) {
        dynamic = true;
      }
    }
    if (!dynamic) dynamic = OutputShapeFromValues(op, registration, node, context);
    for (int k = 0; k < node->outputs->size; ++k) {
      const int t = node->outputs->data[k];
      if (!valid(t)) continue;
      if (dynamic || context->tensors[t].allocation_type == kTfLiteDynamic) info.maybe_dynamic.insert(t);
    }
  }
  return info;
}

GraphTranslator::GraphTranslator(TfLiteContext* context, uint32_t flags, const GraphInfo* info,
                                 const XnnpackExtraOptions* extra)
    : context_(context), flags_(flags), info_(info), extra_(extra) {}

Status GraphTranslator::Fail(const std::string& message) { return Status(StatusCode::kExecution, message); }

bool GraphTranslator::Taken(const Status& status) {
  why_ = status.message();
  return status.ok();
}

Status GraphTranslator::XnnOk(enum xnn_status status, const char* what) {
  if (status == xnn_status_success) return Status::Ok();
  return Fail(std::string(what) + " failed: " + StatusName(status));
}

std::string GraphTranslator::Name(int index) const {
  const TfLiteTensor& t = Tensor(index);
  return std::string("tensor ") + std::to_string(index) + (t.name != nullptr ? std::string(" '") + t.name + "'" : "");
}

std::vector<int> GraphTranslator::Dims(int index) const {
  int source = index;
  if (IsFolded(index)) source = info_->quasi_static.at(index);
  return ShapeOf(&Tensor(source));
}

bool GraphTranslator::IsStatic(int index) const {
  if (IsFolded(index)) return true;
  const TfLiteTensor& t = Tensor(index);
  return t.allocation_type == kTfLiteMmapRo && t.data.raw != nullptr;
}

bool GraphTranslator::QuantizedAllowed(TfLiteType type) const {
  if (type == kTfLiteInt8) return (flags_ & TFLITE_XNNPACK_DELEGATE_FLAG_QS8) != 0;
  if (type == kTfLiteUInt8) return (flags_ & TFLITE_XNNPACK_DELEGATE_FLAG_QU8) != 0;
  return false;
}

Status GraphTranslator::PerTensorQuant(int index, float* scale, int32_t* zero_point) {
  const TfLiteTensor& t = Tensor(index);
  const TfLiteAffineQuantization* q = AffineQuantization(&t);
  if (q == nullptr) return Fail(Name(index) + " has no quantization parameters");
  if (IsPerChannelQuantized(&t)) return Fail(Name(index) + " is quantized per channel");
  *scale = t.params.scale;
  *zero_point = t.params.zero_point;
  if (*scale == 0.0f && q->scale != nullptr && q->scale->size == 1) {
    *scale = q->scale->data[0];
    *zero_point = q->zero_point != nullptr && q->zero_point->size == 1 ? q->zero_point->data[0] : 0;
  }
  if (!(*scale > 0.0f) || !std::isnormal(*scale)) {
    return Fail(Name(index) + " has quantization scale " + std::to_string(*scale));
  }
  const int32_t lo = t.type == kTfLiteInt8 ? -128 : 0;
  const int32_t hi = t.type == kTfLiteInt8 ? 127 : 255;
  if (*zero_point < lo || *zero_point > hi) {
    return Fail(Name(index) + " has zero point " + std::to_string(*zero_point) + " outside its type's range");
  }
  return Status::Ok();
}

Status GraphTranslator::SameQuantization(int a, int b) {
  if (Tensor(a).type == kTfLiteFloat32) return Status::Ok();
  float sa, sb;
  int32_t za, zb;
  TS_RETURN_IF_ERROR(PerTensorQuant(a, &sa, &za));
  TS_RETURN_IF_ERROR(PerTensorQuant(b, &sb, &zb));
  if (sa != sb || za != zb) {
    return Fail(Name(a) + " and " + Name(b) + " are quantized differently (XNNPACK needs them equal here)");
  }
  return Status::Ok();
}

Status GraphTranslator::CheckData(int index, bool allow_float, bool allow_quantized, const char* role) {
  if (index < 0 || index >= static_cast<int>(context_->tensors_size)) {
    return Fail(std::string("the ") + role + " is missing");
  }
  const bool is_output = std::strcmp(role, "output") == 0;
  if (is_output && IsStatic(index)) return Fail(Name(index) + " is a constant written by a node");
  // A constant read as data: XNNPACK reads it at every run, so it gets a padded copy.
  if (!is_output && IsStatic(index) && !IsFolded(index)) unpacked_constants_.insert(index);
  if (IsFolded(index)) {
    if (!allow_float) return Fail(Name(index) + " (" + role + ") is float32");
    return Status::Ok();
  }
  const TfLiteTensor& t = Tensor(index);
  if (t.dims == nullptr) return Fail(Name(index) + " has no shape");
  if (t.allocation_type == kTfLiteDynamic || info_->maybe_dynamic.count(index)) {
    return Fail(Name(index) + " is dynamic: its shape is computed at run time (static shapes only)");
  }
  if (t.is_variable) return Fail(Name(index) + " is a variable");
  // Converters write [] for a computed tensor whose shape they did not know.
  if (t.dims->size == 0 && !IsStatic(index)) return Fail(Name(index) + " has no known shape (rank 0 in the file)");
  if (t.sparsity != nullptr) return Fail(Name(index) + " is sparse");
  if (t.dims->size > XNN_MAX_TENSOR_DIMS) {
    return Fail(Name(index) + " has rank " + std::to_string(t.dims->size) + " (XNNPACK takes at most " +
                std::to_string(XNN_MAX_TENSOR_DIMS) + ")");
  }
  for (int i = 0; i < t.dims->size; ++i) {
    if (t.dims->data[i] <= 0) return Fail(Name(index) + " has shape " + ShapeString(Dims(index)));
  }
  if (t.type == kTfLiteFloat32) {
    if (!allow_float) return Fail(Name(index) + " (" + role + ") is float32");
    return Status::Ok();
  }
  if (t.type == kTfLiteInt8 || t.type == kTfLiteUInt8) {
    if (!allow_quantized) return Fail(Name(index) + " (" + role + ") is quantized, which XNNPACK cannot take here");
    if (!QuantizedAllowed(t.type)) {
      return Fail(Name(index) + " is " + TfLiteTypeGetName(t.type) + " and the delegate's " +
                  (t.type == kTfLiteInt8 ? "QS8" : "QU8") + " flag is off");
    }
    float scale;
    int32_t zero_point;
    return PerTensorQuant(index, &scale, &zero_point);
  }
  return Fail(Name(index) + " has type " + TfLiteTypeGetName(t.type));
}

void GraphTranslator::UseStatic(int index, bool packed) {
  if (!packed && !IsFolded(index) && IsStatic(index)) unpacked_constants_.insert(index);
}

Status GraphTranslator::CheckRequantization(int input, int filter, int output, float filter_scale_min,
                                            float filter_scale_max) {
  float in_scale, out_scale;
  int32_t zp;
  TS_RETURN_IF_ERROR(PerTensorQuant(input, &in_scale, &zp));
  TS_RETURN_IF_ERROR(PerTensorQuant(output, &out_scale, &zp));
  auto outside = [&](float filter_scale) {
    const float scale = in_scale * filter_scale / out_scale;
    return !(scale >= 0x1.0p-32f) || !(scale < 256.0f);
  };
  // Multiplying and dividing by positive finite scales is monotonic in float arithmetic: the
  // smallest and the largest filter scale bound every channel's requantization scale.
  const bool monotonic = in_scale > 0.0f && out_scale > 0.0f && std::isfinite(in_scale) && std::isfinite(out_scale);
  if (monotonic && !outside(filter_scale_min) && !outside(filter_scale_max)) return Status::Ok();
  // Channel by channel: the message names the first one outside.
  const TfLiteTensor& f = Tensor(filter);
  const float* filter_scales = &filter_scale_min;
  int channels = 1;
  if (IsPerChannelQuantized(&f)) {
    const TfLiteAffineQuantization* q = AffineQuantization(&f);
    filter_scales = q->scale->data;
    channels = q->scale->size;
  }
  for (int c = 0; c < channels; ++c) {
    if (outside(filter_scales[c])) {
      return Fail("requantization scale " + std::to_string(in_scale * filter_scales[c] / out_scale) +
                  " (input * filter / output scale) is outside "
                  "XNNPACK's range [2^-32, 256)");
    }
  }
  return Status::Ok();
}

Status GraphTranslator::CheckChannelScales(const TfLiteAffineQuantization* q, float* scale_min, float* scale_max) {
  const float* scales = q->scale->data;
  const int channels = q->scale->size;
  const int32_t* zero_points = q->zero_point != nullptr ? q->zero_point->data : nullptr;
  const int zero_point_count = q->zero_point != nullptr ? std::min(q->zero_point->size, channels) : 0;
  // A positive normal float's bits lie in [0x00800000, 0x7f7fffff] and order as the floats do:
  // `scale > 0 && isnormal(scale)` is one unsigned compare and the extremes are integer minimum and
  // maximum, in one pass without branches: eight independent lanes a block at a time, which the
  // compiler keeps in vector registers, then the tail.
  constexpr int kLanes = 8;
  uint32_t first = 0;
  if (channels > 0) std::memcpy(&first, &scales[0], sizeof(first));
  uint32_t lane_min[kLanes], lane_max[kLanes];
  for (int j = 0; j < kLanes; ++j) lane_min[j] = lane_max[j] = first;  // a member of the set
  uint32_t bits_min = first, bits_max = first;
  int c = 0;
  for (; c + kLanes <= channels; c += kLanes) {
    uint32_t block[kLanes];
    std::memcpy(block, &scales[c], sizeof(block));
    for (int j = 0; j < kLanes; ++j) {
      lane_min[j] = block[j] < lane_min[j] ? block[j] : lane_min[j];
      lane_max[j] = block[j] > lane_max[j] ? block[j] : lane_max[j];
    }
  }
  if (c > 0) {
    for (int j = 0; j < kLanes; ++j) {
      bits_min = lane_min[j] < bits_min ? lane_min[j] : bits_min;
      bits_max = lane_max[j] > bits_max ? lane_max[j] : bits_max;
    }
  }
  for (; c < channels; ++c) {
    uint32_t bits;
    std::memcpy(&bits, &scales[c], sizeof(bits));
    bits_min = bits < bits_min ? bits : bits_min;
    bits_max = bits > bits_max ? bits : bits_max;
  }
  // Every scale lies in [bits_min, bits_max]: all are valid when both ends are.
  auto bad_bits = [](uint32_t bits) { return bits - 0x00800000u >= 0x7f000000u; };
  const bool any_bad_scale = channels > 0 && (bad_bits(bits_min) || bad_bits(bits_max));
  int32_t lane_or[kLanes] = {};
  c = 0;
  for (; c + kLanes <= zero_point_count; c += kLanes) {
    for (int j = 0; j < kLanes; ++j) lane_or[j] |= zero_points[c + j];
  }
  int32_t any_zero_point = 0;
  for (int j = 0; j < kLanes; ++j) any_zero_point |= lane_or[j];
  for (; c < zero_point_count; ++c) any_zero_point |= zero_points[c];
  if (!any_bad_scale && any_zero_point == 0) {
    std::memcpy(scale_min, &bits_min, sizeof(*scale_min));
    std::memcpy(scale_max, &bits_max, sizeof(*scale_max));
    return Status::Ok();
  }
  // The first channel that fails names the refusal, as a channel-by-channel check would.
  for (c = 0; c < channels; ++c) {
    if (!(scales[c] > 0.0f) || !std::isnormal(scales[c])) return Fail("filter scale");
    if (c < zero_point_count && zero_points[c] != 0) return Fail("int8 filter with a non-zero zero point");
  }
  return Fail("filter scale");
}

Status GraphTranslator::CheckBiasScale(int input, int filter, int bias, int output) {
  if (bias < 0) return Status::Ok();
  const TfLiteTensor& b = Tensor(bias);
  const TfLiteTensor& f = Tensor(filter);
  if (AffineQuantization(&b) == nullptr || IsPerChannelQuantized(&b) || IsPerChannelQuantized(&f)) return Status::Ok();
  // TFLite's GetQuantizedConvolutionMultipler check, as runtime/kernels/internal/nn_common.h has it.
  const double product = static_cast<double>(Tensor(input).params.scale) * f.params.scale;
  if (std::abs(product - static_cast<double>(b.params.scale)) / Tensor(output).params.scale <= 0.02)
    return Status::Ok();
  return Fail("the bias scale differs from the input scale times the weights scale");
}

Status GraphTranslator::CheckSameTypeData(int input, int output, bool allow_quantized) {
  TS_RETURN_IF_ERROR(CheckData(input, true, allow_quantized, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, true, allow_quantized, "output"));
  if (Tensor(input).type != Tensor(output).type) return Fail("input and output types differ");
  return SameQuantization(input, output);
}

Status GraphTranslator::CheckWeightedTensors(const TfLiteNode* node, int input_slot, int bias_slot,
                                             WeightedTensors* t) {
  t->input = node->inputs->data[input_slot];
  t->filter = node->inputs->data[1];
  t->bias = node->inputs->size > bias_slot ? node->inputs->data[bias_slot] : -1;
  t->output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckData(t->input, true, true, "input"));
  TS_RETURN_IF_ERROR(CheckData(t->output, true, true, "output"));
  // A folded tensor's own type is float32 too.
  t->type = Tensor(t->input).type;
  if (Tensor(t->output).type != t->type) return Fail("input and output types differ");
  return Status::Ok();
}

template <typename ConvParams>
Status GraphTranslator::CheckConvWindow(const ConvParams& params, const std::vector<int>& in, int kh, int kw,
                                        int out_channels, const std::vector<int>& out, float* lo, float* hi) {
  if (params.stride_height <= 0 || params.stride_width <= 0 || params.dilation_height_factor <= 0 ||
      params.dilation_width_factor <= 0) {
    return Fail("bad strides or dilations");
  }
  if (params.padding != kTfLitePaddingSame && params.padding != kTfLitePaddingValid) return Fail("unknown padding");
  if (!tflite::FusedActivationRange(params.activation, lo, hi)) return Fail("fused activation");
  const int oh = WindowOutputSize(in[1], kh, params.stride_height, params.dilation_height_factor, params.padding);
  const int ow = WindowOutputSize(in[2], kw, params.stride_width, params.dilation_width_factor, params.padding);
  const std::vector<int> expected = {in[0], oh, ow, out_channels};
  if (out != expected) return Fail("output shape " + ShapeString(out) + ", expected " + ShapeString(expected));
  return Status::Ok();
}

Status GraphTranslator::CheckWeights(const WeightedTensors& t, int out_channels, const FilterRules& rules) {
  const TfLiteTensor& ft = Tensor(t.filter);
  const bool has_bias = t.bias >= 0;
  if (t.type == kTfLiteFloat32) {
    if (!IsFolded(t.filter) && ft.type != kTfLiteFloat32) return Fail(rules.float_refusal);
    if (has_bias && !IsFolded(t.bias) && Tensor(t.bias).type != kTfLiteFloat32) return Fail("bias type");
  } else {
    if (ft.type != t.type) return Fail("filter type differs from the input's");
    float filter_scale_min, filter_scale_max;
    if (IsPerChannelQuantized(&ft)) {
      if (rules.per_channel_dimension < 0) return Fail(rules.per_channel_refusal);
      if (t.type != kTfLiteInt8) return Fail("per-channel uint8 filter");
      const TfLiteAffineQuantization* q = AffineQuantization(&ft);
      if (q->quantized_dimension != rules.per_channel_dimension || q->scale->size != out_channels) {
        return Fail("per-channel filter not along dimension " + std::to_string(rules.per_channel_dimension));
      }
      TS_RETURN_IF_ERROR(CheckChannelScales(q, &filter_scale_min, &filter_scale_max));
    } else {
      int32_t zp;
      TS_RETURN_IF_ERROR(PerTensorQuant(t.filter, &filter_scale_min, &zp));
      if (t.type == kTfLiteInt8 && zp != 0) return Fail("int8 filter with a non-zero zero point");
      filter_scale_max = filter_scale_min;
    }
    if (rules.bias_shape_with_type) {
      if (has_bias && (Tensor(t.bias).type != kTfLiteInt32 || Dims(t.bias) != std::vector<int>{out_channels})) {
        return Fail("quantized bias must be int32 [" + std::to_string(out_channels) + "]");
      }
    } else if (has_bias && Tensor(t.bias).type != kTfLiteInt32) {
      return Fail("quantized bias must be int32");
    }
    TS_RETURN_IF_ERROR(CheckRequantization(t.input, t.filter, t.output, filter_scale_min, filter_scale_max));
    TS_RETURN_IF_ERROR(CheckBiasScale(t.input, t.filter, t.bias, t.output));
  }
  if (has_bias && Dims(t.bias) != std::vector<int>{out_channels}) return Fail("bias shape");
  return Status::Ok();
}

const void* GraphTranslator::StaticData(int index, bool packed) {
  if (IsFolded(index)) {
    auto it = folded_.find(index);
    if (it == folded_.end()) {
      std::vector<float> data;
      FoldDequantize(Tensor(info_->quasi_static.at(index)), &data);
      it = folded_.emplace(index, std::move(data)).first;
    }
    return it->second.data();
  }
  const TfLiteTensor& t = Tensor(index);
  if (packed && unpacked_constants_.count(index) == 0) return t.data.raw;
  // XNNPACK reads this at every run and may read XNN_EXTRA_BYTES past the end: a padded copy.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[t.bytes + XNN_EXTRA_BYTES]());
  std::memcpy(copy.get(), t.data.raw, t.bytes);
  buffers_.push_back(std::move(copy));
  return buffers_.back().get();
}

const std::vector<float>* GraphTranslator::FoldedData(int tensor) {
  if (!IsFolded(tensor)) return nullptr;
  StaticData(tensor, /*packed=*/true);
  return &folded_.at(tensor);
}

StatusOr<uint32_t> GraphTranslator::Value(int index, bool packed) {
  auto it = values_.find(index);
  if (it != values_.end()) return it->second;
  const std::vector<int> dims_int = Dims(index);
  const std::vector<size_t> dims(dims_int.begin(), dims_int.end());
  const void* data = nullptr;
  uint32_t external_id = XNN_INVALID_VALUE_ID;
  uint32_t flags = 0;
  if (IsStatic(index)) {
    data = StaticData(index, packed);
  } else {
    if (external_inputs_.count(index)) flags |= XNN_VALUE_FLAG_EXTERNAL_INPUT;
    if (external_outputs_.count(index)) flags |= XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
    if (flags != 0) external_id = ExternalId(index);
  }
  uint32_t id = XNN_INVALID_VALUE_ID;
  enum xnn_status status;
  const TfLiteTensor& t = Tensor(index);
  if (IsFolded(index) || t.type == kTfLiteFloat32) {
    status =
        xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), data, external_id, flags, &id);
  } else if (t.type == kTfLiteInt8 && IsPerChannelQuantized(&t)) {
    const TfLiteAffineQuantization* q = AffineQuantization(&t);
    status = xnn_define_channelwise_quantized_tensor_value(subgraph_, xnn_datatype_qcint8, q->scale->data, dims.size(),
                                                           q->quantized_dimension, dims.data(), data, external_id,
                                                           flags, &id);
  } else if (t.type == kTfLiteInt8 || t.type == kTfLiteUInt8) {
    float scale;
    int32_t zero_point;
    TS_RETURN_IF_ERROR(PerTensorQuant(index, &scale, &zero_point));
    status =
        xnn_define_quantized_tensor_value(subgraph_, t.type == kTfLiteInt8 ? xnn_datatype_qint8 : xnn_datatype_quint8,
                                          zero_point, scale, dims.size(), dims.data(), data, external_id, flags, &id);
  } else {
    return Fail(Name(index) + " has type " + TfLiteTypeGetName(t.type));
  }
  TS_RETURN_IF_ERROR(XnnOk(status, "xnn_define_tensor_value"));
  values_[index] = id;
  return id;
}

StatusOr<uint32_t> GraphTranslator::BiasValue(int bias, int input, int filter, int out_channels, TfLiteType type) {
  auto it = values_.find(bias);
  if (it != values_.end()) return it->second;
  if (type == kTfLiteFloat32) return Value(bias, /*packed=*/true);
  TS_ASSIGN_OR_RETURN(const uint32_t id, QuantizedBias(StaticData(bias, /*packed=*/true), out_channels, input, filter,
                                                       "xnn_define_tensor_value (bias)"));
  values_[bias] = id;
  return id;
}

StatusOr<uint32_t> GraphTranslator::ZeroBias(int out_channels, int input, int filter, bool quantized) {
  std::unique_ptr<uint8_t[]> zeros(new uint8_t[static_cast<size_t>(out_channels) * 4 + XNN_EXTRA_BYTES]());
  const void* data = zeros.get();
  buffers_.push_back(std::move(zeros));
  if (quantized) return QuantizedBias(data, out_channels, input, filter, "xnn_define_tensor_value (zero bias)");
  const size_t dims[1] = {static_cast<size_t>(out_channels)};
  uint32_t id = XNN_INVALID_VALUE_ID;
  TS_RETURN_IF_ERROR(
      XnnOk(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, 1, dims, data, XNN_INVALID_VALUE_ID, 0, &id),
            "xnn_define_tensor_value (zero bias)"));
  return id;
}

StatusOr<uint32_t> GraphTranslator::QuantizedBias(const void* data, int out_channels, int input, int filter,
                                                  const char* what) {
  const size_t dims[1] = {static_cast<size_t>(out_channels)};
  float in_scale;
  int32_t zp;
  TS_RETURN_IF_ERROR(PerTensorQuant(input, &in_scale, &zp));
  const TfLiteTensor& f = Tensor(filter);
  uint32_t id = XNN_INVALID_VALUE_ID;
  enum xnn_status status;
  if (IsPerChannelQuantized(&f)) {
    const TfLiteAffineQuantization* q = AffineQuantization(&f);
    scales_.push_back(std::make_unique<std::vector<float>>(q->scale->size));
    std::vector<float>& s = *scales_.back();
    for (int c = 0; c < q->scale->size; ++c) s[c] = in_scale * q->scale->data[c];
    status = xnn_define_channelwise_quantized_tensor_value(subgraph_, xnn_datatype_qcint32, s.data(), 1, 0, dims, data,
                                                           XNN_INVALID_VALUE_ID, 0, &id);
  } else {
    float filter_scale;
    TS_RETURN_IF_ERROR(PerTensorQuant(filter, &filter_scale, &zp));
    status = xnn_define_quantized_tensor_value(subgraph_, xnn_datatype_qint32, 0, in_scale * filter_scale, 1, dims,
                                               data, XNN_INVALID_VALUE_ID, 0, &id);
  }
  TS_RETURN_IF_ERROR(XnnOk(status, what));
  return id;
}

StatusOr<GraphTranslator::WeightedValues> GraphTranslator::DefineWeightedValues(const WeightedTensors& t,
                                                                                int out_channels) {
  WeightedValues v;
  TS_ASSIGN_OR_RETURN(v.input, Value(t.input));
  TS_ASSIGN_OR_RETURN(v.filter, Value(t.filter, /*packed=*/true));
  TS_ASSIGN_OR_RETURN(v.bias, t.bias >= 0 ? BiasValue(t.bias, t.input, t.filter, out_channels, t.type)
                                          : ZeroBias(out_channels, t.input, t.filter, t.type != kTfLiteFloat32));
  TS_RETURN_IF_ERROR(MarkProduced(t.output));
  TS_ASSIGN_OR_RETURN(v.output, Value(t.output));
  return v;
}

Status GraphTranslator::InputOutputValues(int input, int output, uint32_t* input_value, uint32_t* output_value) {
  TS_ASSIGN_OR_RETURN(*input_value, Value(input));
  TS_RETURN_IF_ERROR(MarkProduced(output));
  TS_ASSIGN_OR_RETURN(*output_value, Value(output));
  return Status::Ok();
}

Status GraphTranslator::Defined(enum xnn_status status, const char* what) {
  TS_RETURN_IF_ERROR(XnnOk(status, what));
  ++nodes_defined_;
  return Status::Ok();
}

StatusOr<uint32_t> GraphTranslator::InternalValue(int like_tensor, const std::vector<size_t>& dims) {
  const TfLiteTensor& t = Tensor(like_tensor);
  uint32_t id = XNN_INVALID_VALUE_ID;
  enum xnn_status status;
  if (t.type == kTfLiteFloat32) {
    status = xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), nullptr,
                                     XNN_INVALID_VALUE_ID, 0, &id);
  } else {
    float scale;
    int32_t zero_point;
    TS_RETURN_IF_ERROR(PerTensorQuant(like_tensor, &scale, &zero_point));
    status = xnn_define_quantized_tensor_value(
        subgraph_, t.type == kTfLiteInt8 ? xnn_datatype_qint8 : xnn_datatype_quint8, zero_point, scale, dims.size(),
        dims.data(), nullptr, XNN_INVALID_VALUE_ID, 0, &id);
  }
  TS_RETURN_IF_ERROR(XnnOk(status, "xnn_define_tensor_value (intermediate)"));
  return id;
}

StatusOr<uint32_t> GraphTranslator::ReshapedStatic(int index, const std::vector<size_t>& dims) {
  const void* data = StaticData(index, /*packed=*/true);
  uint32_t id = XNN_INVALID_VALUE_ID;
  TS_RETURN_IF_ERROR(XnnOk(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, dims.size(), dims.data(), data,
                                                   XNN_INVALID_VALUE_ID, 0, &id),
                           "xnn_define_tensor_value (slope)"));
  return id;
}

Status GraphTranslator::MarkProduced(int index) {
  if (IsStatic(index)) return Fail(Name(index) + " is a constant and cannot be computed");
  if (external_inputs_.count(index)) return Fail(Name(index) + " is both an input and an output of the partition");
  if (!produced_.insert(index).second) return Fail(Name(index) + " is written by two nodes");
  return Status::Ok();
}

bool GraphTranslator::Check(int node_index, const TfLiteNode* node, const TfLiteRegistration* registration) {
  mode_ = Mode::kCheck;
  // Declined before Visit, which notes the constants a taken node reads.
  const bool always = extra_ != nullptr && registration != nullptr &&
                      extra_->always_declined_float_builtins.count(registration->builtin_code) != 0;
  if (extra_ != nullptr && node != nullptr && registration != nullptr &&
      (always || extra_->declined_float_builtins.count(registration->builtin_code) != 0) && node->outputs != nullptr &&
      node->outputs->size > 0 && node->outputs->data[0] >= 0 &&
      node->outputs->data[0] < static_cast<int>(context_->tensors_size) &&
      Tensor(node->outputs->data[0]).type == kTfLiteFloat32 && !DequantizesTakenEightBit(node, registration) &&
      (always || !extra_->cpu_kernel_state || extra_->cpu_kernel_state(context_, node) != 0)) {
    return Taken(Fail(std::string("float32 ") + OpName(registration->builtin_code) +
                      " stays on the optimized kernels (--xnnpack_fp32=auto)"));
  }
  return Taken(Visit(node_index, node, registration));
}

bool GraphTranslator::DequantizesTakenEightBit(const TfLiteNode* node, const TfLiteRegistration* registration) const {
  if (registration->builtin_code != kTfLiteBuiltinDequantize || node->inputs == nullptr || node->inputs->size < 1)
    return false;
  const int input = node->inputs->data[0];
  if (input < 0 || input >= static_cast<int>(context_->tensors_size)) return false;
  const TfLiteType type = Tensor(input).type;
  return (type == kTfLiteInt8 || type == kTfLiteUInt8) && QuantizedAllowed(type) && !IsStatic(input);
}

bool GraphTranslator::RefusesEightBitOutput(const TfLiteNode* node) const {
  if (node == nullptr || node->outputs == nullptr || node->outputs->size == 0) return false;
  const int output = node->outputs->data[0];
  if (output < 0 || output >= static_cast<int>(context_->tensors_size)) return false;
  const TfLiteType type = Tensor(output).type;
  return (type == kTfLiteInt8 || type == kTfLiteUInt8) && !QuantizedAllowed(type);
}

bool GraphTranslator::BeginDefine(xnn_subgraph_t subgraph, const std::set<int>& external_inputs,
                                  const std::set<int>& external_outputs) {
  subgraph_ = subgraph;
  external_inputs_ = external_inputs;
  external_outputs_ = external_outputs;
  external_ids_.clear();
  for (int t : Boundary(external_inputs, external_outputs)) {
    external_ids_.emplace(t, static_cast<uint32_t>(external_ids_.size()));
  }
  mode_ = Mode::kDefine;
  return true;
}

std::set<int> GraphTranslator::Boundary(const std::set<int>& external_inputs, const std::set<int>& external_outputs) {
  std::set<int> boundary = external_inputs;
  boundary.insert(external_outputs.begin(), external_outputs.end());
  return boundary;
}

bool GraphTranslator::Define(int node_index, const TfLiteNode* node, const TfLiteRegistration* registration) {
  mode_ = Mode::kDefine;
  return Taken(Visit(node_index, node, registration));
}

Status GraphTranslator::Visit(int node_index, const TfLiteNode* node, const TfLiteRegistration* registration) {
  (void)node_index;
  if (node == nullptr || registration == nullptr) return Fail("no node");
  if (node->delegate != nullptr) return Fail("already delegated");
  if (registration->custom_name != nullptr && registration->builtin_code == kTfLiteBuiltinCustom) {
    return Fail(std::string("custom op ") + registration->custom_name);
  }
  if (node->inputs == nullptr || node->outputs == nullptr) return Fail("node without tensors");
  for (int i = 0; i < node->inputs->size; ++i) {
    for (int o = 0; o < node->outputs->size; ++o) {
      if (node->inputs->data[i] >= 0 && node->inputs->data[i] == node->outputs->data[o]) {
        return Fail(Name(node->outputs->data[o]) + " is both read and written by the node");
      }
    }
  }
  const void* params = node->builtin_data;
  const int op = registration->builtin_code;
  switch (op) {
    case kTfLiteBuiltinAdd:
    case kTfLiteBuiltinSub:
    case kTfLiteBuiltinMul:
    case kTfLiteBuiltinDiv:
    case kTfLiteBuiltinMaximum:
    case kTfLiteBuiltinMinimum:
    case kTfLiteBuiltinSquaredDifference:
      return VisitBinary(op, node, params);
    case kTfLiteBuiltinConv2d:
      return VisitConv2D(node, params);
    case kTfLiteBuiltinDepthwiseConv2d:
      return VisitDepthwiseConv2D(node, params);
    case kTfLiteBuiltinFullyConnected:
      return VisitFullyConnected(node, params);
    case kTfLiteBuiltinTransposeConv:
      return VisitTransposeConv(node, params);
    case kTfLiteBuiltinMaxPool2d:
    case kTfLiteBuiltinAveragePool2d:
      return VisitPool(op, node, params);
    case kTfLiteBuiltinMean:
      return VisitMean(node, params);
    case kTfLiteBuiltinHardSwish:
    case kTfLiteBuiltinElu:
    case kTfLiteBuiltinLeakyRelu:
    case kTfLiteBuiltinAbs:
    case kTfLiteBuiltinCeil:
    case kTfLiteBuiltinFloor:
    case kTfLiteBuiltinNeg:
    case kTfLiteBuiltinRound:
    case kTfLiteBuiltinSquare:
    case kTfLiteBuiltinSqrt:
      return VisitUnary(op, node, params);
    case kTfLiteBuiltinRelu:
      return VisitClamp(node, 0.0f, kInf);
    case kTfLiteBuiltinRelu6:
      return VisitClamp(node, 0.0f, 6.0f);
    case kTfLiteBuiltinReluN1To1:
      return VisitClamp(node, -1.0f, 1.0f);
    case kTfLiteBuiltinRelu0To1:
      return VisitClamp(node, 0.0f, 1.0f);
    case kTfLiteBuiltinSoftmax:
      return VisitSoftmax(node, params);
    case kTfLiteBuiltinLogistic:
      return VisitLogistic(node);
    case kTfLiteBuiltinPrelu:
      return VisitPrelu(node);
    case kTfLiteBuiltinPad:
    case kTfLiteBuiltinPadv2:
      return VisitPad(op, node);
    case kTfLiteBuiltinReshape:
    case kTfLiteBuiltinSqueeze:
    case kTfLiteBuiltinExpandDims:
      return VisitReshape(op, node);
    case kTfLiteBuiltinResizeBilinear:
      return VisitResizeBilinear(node, params);
    case kTfLiteBuiltinDepthToSpace:
      return VisitDepthToSpace(node, params);
    case kTfLiteBuiltinQuantize:
      return VisitQuantize(node);
    case kTfLiteBuiltinDequantize:
      return VisitDequantize(node);
    default:
      return Fail("op " + std::to_string(op) + " is not one XNNPACK takes");
  }
}

Status GraphTranslator::VisitBinary(int op, const TfLiteNode* node, const void* params) {
  if (node->inputs->size != 2 || node->outputs->size != 1) return Fail("expected 2 inputs and 1 output");
  const int a = node->inputs->data[0], b = node->inputs->data[1], o = node->outputs->data[0];
  const bool quantizable = op == kTfLiteBuiltinAdd || op == kTfLiteBuiltinSub || op == kTfLiteBuiltinMul;
  TS_RETURN_IF_ERROR(CheckData(a, true, quantizable, "input 0"));
  TS_RETURN_IF_ERROR(CheckData(b, true, quantizable, "input 1"));
  TS_RETURN_IF_ERROR(CheckData(o, true, quantizable, "output"));
  const TfLiteType type = IsFolded(o) ? kTfLiteFloat32 : Tensor(o).type;
  for (int t : {a, b}) {
    const TfLiteType tt = IsFolded(t) ? kTfLiteFloat32 : Tensor(t).type;
    if (tt != type) return Fail(std::string(OpName(op)) + " with mixed types");
  }
  if (IsStatic(a) && IsStatic(b)) return Fail("both inputs are constants");
  std::vector<int> shape;
  if (!BroadcastShapes(Dims(a), Dims(b), &shape)) {
    return Fail("shapes " + ShapeString(Dims(a)) + " and " + ShapeString(Dims(b)) + " do not broadcast");
  }
  if (shape != Dims(o)) return Fail("output shape " + ShapeString(Dims(o)) + ", expected " + ShapeString(shape));
  TfLiteFusedActivation activation = kTfLiteActNone;
  if (op == kTfLiteBuiltinAdd || op == kTfLiteBuiltinSub || op == kTfLiteBuiltinMul || op == kTfLiteBuiltinDiv) {
    if (params == nullptr) return Fail("no options");
    // ADD, SUB, MUL and DIV params all start with the activation.
    activation = *static_cast<const TfLiteFusedActivation*>(params);
  }
  float lo, hi;
  if (!tflite::FusedActivationRange(activation, &lo, &hi)) {
    return Fail("fused activation " + std::to_string(activation));
  }
  if (type != kTfLiteFloat32) {
    float sa, sb, so;
    int32_t za, zb, zo;
    TS_RETURN_IF_ERROR(PerTensorQuant(a, &sa, &za));
    TS_RETURN_IF_ERROR(PerTensorQuant(b, &sb, &zb));
    TS_RETURN_IF_ERROR(PerTensorQuant(o, &so, &zo));
    if (op == kTfLiteBuiltinMul) {
      const float s = sa * sb / so;
      if (!(s >= 0x1.0p-16f && s < 0x1.0p+8f)) return Fail("MUL scale ratio outside XNNPACK's [2^-16, 2^8)");
    } else {
      const float ra = sa / so, rb = sb / so;
      if (!(ra >= 0x1.0p-10f && ra < 0x1.0p+8f) || !(rb >= 0x1.0p-10f && rb < 0x1.0p+8f)) {
        return Fail(std::string(OpName(op)) + " scale ratios outside XNNPACK's [2^-10, 2^8)");
      }
    }
  }
  UseStatic(a, false);
  UseStatic(b, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  TS_ASSIGN_OR_RETURN(const uint32_t va, Value(a));
  TS_ASSIGN_OR_RETURN(const uint32_t vb, Value(b));
  TS_RETURN_IF_ERROR(MarkProduced(o));
  TS_ASSIGN_OR_RETURN(const uint32_t vo, Value(o));
  enum xnn_status s;
  switch (op) {
    case kTfLiteBuiltinAdd:
      s = xnn_define_add2(subgraph_, lo, hi, va, vb, vo, 0);
      break;
    case kTfLiteBuiltinSub:
      s = xnn_define_subtract(subgraph_, lo, hi, va, vb, vo, 0);
      break;
    case kTfLiteBuiltinMul:
      s = xnn_define_multiply2(subgraph_, lo, hi, va, vb, vo, 0);
      break;
    case kTfLiteBuiltinDiv:
      s = xnn_define_divide(subgraph_, lo, hi, va, vb, vo, 0);
      break;
    case kTfLiteBuiltinMaximum:
      s = xnn_define_maximum2(subgraph_, va, vb, vo, 0);
      break;
    case kTfLiteBuiltinMinimum:
      s = xnn_define_minimum2(subgraph_, va, vb, vo, 0);
      break;
    default:
      s = xnn_define_squared_difference(subgraph_, va, vb, vo, 0);
      break;
  }
  return Defined(s, OpName(op));
}

Status GraphTranslator::VisitConv2D(const TfLiteNode* node, const void* params_ptr) {
  // TFLite's CONV_2D requires the bias (its kernel refuses the node without one).
  if (node->inputs->size != 3 || node->inputs->data[2] < 0) return Fail("CONV_2D without a bias");
  if (node->outputs->size != 1) return Fail("expected 1 output");
  if (params_ptr == nullptr) return Fail("no options");
  const auto& params = *static_cast<const TfLiteConvParams*>(params_ptr);
  WeightedTensors t;
  TS_RETURN_IF_ERROR(CheckWeightedTensors(node, /*input_slot=*/0, /*bias_slot=*/2, &t));
  if (t.filter < 0 || !IsStatic(t.filter)) return Fail("the filter is not a constant");
  if (t.bias >= 0 && !IsStatic(t.bias)) return Fail("the bias is not a constant");
  const std::vector<int> in = Dims(t.input), w = Dims(t.filter);
  if (in.size() != 4 || w.size() != 4) return Fail("input and filter must be 4-D");
  const int oc = w[0], kh = w[1], kw = w[2], ic_group = w[3];
  if (oc <= 0 || kh <= 0 || kw <= 0 || ic_group <= 0 || in[3] % ic_group != 0) return Fail("filter shape does not fit");
  const int groups = in[3] / ic_group;
  if (oc % groups != 0) return Fail("output channels do not divide into groups");
  float lo, hi;
  TS_RETURN_IF_ERROR(CheckConvWindow(params, in, kh, kw, oc, Dims(t.output), &lo, &hi));
  TS_RETURN_IF_ERROR(CheckWeights(t, oc, {"float input with quantized filter (hybrid)", 0, nullptr, true}));
  if (mode_ == Mode::kCheck) return Status::Ok();

  TS_ASSIGN_OR_RETURN(const WeightedValues v, DefineWeightedValues(t, oc));
  return Defined(
      xnn_define_convolution_2d(subgraph_, 0, 0, 0, 0, kh, kw, params.stride_height, params.stride_width,
                                params.dilation_height_factor, params.dilation_width_factor, groups, ic_group,
                                oc / groups, lo, hi, v.input, v.filter, v.bias, v.output, PaddingFlags(params.padding)),
      "xnn_define_convolution_2d");
}

Status GraphTranslator::VisitDepthwiseConv2D(const TfLiteNode* node, const void* params_ptr) {
  if (node->inputs->size != 2 && node->inputs->size != 3) return Fail("expected 2 or 3 inputs");
  // As TFLite's kernel: the bias may be left out, but not given as an omitted (-1) input.
  if (node->inputs->size == 3 && node->inputs->data[2] < 0) return Fail("bias given as an omitted input");
  if (node->outputs->size != 1) return Fail("expected 1 output");
  if (params_ptr == nullptr) return Fail("no options");
  const auto& params = *static_cast<const TfLiteDepthwiseConvParams*>(params_ptr);
  WeightedTensors t;
  TS_RETURN_IF_ERROR(CheckWeightedTensors(node, /*input_slot=*/0, /*bias_slot=*/2, &t));
  if (t.filter < 0 || !IsStatic(t.filter)) return Fail("the filter is not a constant");
  if (t.bias >= 0 && !IsStatic(t.bias)) return Fail("the bias is not a constant");
  const std::vector<int> in = Dims(t.input), w = Dims(t.filter);
  if (in.size() != 4 || w.size() != 4 || w[0] != 1) return Fail("input and filter must be 4-D, filter [1,h,w,c]");
  const int kh = w[1], kw = w[2], oc = w[3], ic = in[3];
  if (oc <= 0 || oc % ic != 0) return Fail("filter channels are not a multiple of the input's");
  const int multiplier = oc / ic;
  float lo, hi;
  TS_RETURN_IF_ERROR(CheckConvWindow(params, in, kh, kw, oc, Dims(t.output), &lo, &hi));
  TS_RETURN_IF_ERROR(CheckWeights(t, oc, {"float input with quantized filter (hybrid)", 3, nullptr, false}));
  if (mode_ == Mode::kCheck) return Status::Ok();

  TS_ASSIGN_OR_RETURN(const WeightedValues v, DefineWeightedValues(t, oc));
  return Defined(
      xnn_define_depthwise_convolution_2d(subgraph_, 0, 0, 0, 0, kh, kw, params.stride_height, params.stride_width,
                                          params.dilation_height_factor, params.dilation_width_factor, multiplier, ic,
                                          lo, hi, v.input, v.filter, v.bias, v.output, PaddingFlags(params.padding)),
      "xnn_define_depthwise_convolution_2d");
}

Status GraphTranslator::VisitFullyConnected(const TfLiteNode* node, const void* params_ptr) {
  if (node->inputs->size != 2 && node->inputs->size != 3) return Fail("expected 2 or 3 inputs");
  if (node->outputs->size != 1) return Fail("expected 1 output");
  if (params_ptr == nullptr) return Fail("no options");
  const auto& params = *static_cast<const TfLiteFullyConnectedParams*>(params_ptr);
  if (params.weights_format != kTfLiteFullyConnectedWeightsFormatDefault) return Fail("shuffled weights");
  WeightedTensors t;
  TS_RETURN_IF_ERROR(CheckWeightedTensors(node, /*input_slot=*/0, /*bias_slot=*/2, &t));
  if (t.filter < 0 || !IsStatic(t.filter)) return Fail("the filter is not a constant");
  if (t.bias >= 0 && !IsStatic(t.bias)) return Fail("the bias is not a constant");
  const std::vector<int> in = Dims(t.input), w = Dims(t.filter), out = Dims(t.output);
  if (w.size() != 2 || w[0] <= 0 || w[1] <= 0) return Fail("filter must be 2-D");
  const int oc = w[0], ic = w[1];
  int64_t count = 1;
  for (int d : in) count *= d;
  if (in.empty() || count % ic != 0) return Fail("input size is not a multiple of the filter's input channels");
  std::vector<int> expected;
  if (params.keep_num_dims) {
    if (in.back() != ic) return Fail("keep_num_dims with an input whose last dimension differs from the filter's");
    expected = in;
    expected.back() = oc;
  } else {
    expected = {static_cast<int>(count / ic), oc};
  }
  if (out != expected) return Fail("output shape " + ShapeString(out) + ", expected " + ShapeString(expected));
  float lo, hi;
  if (!tflite::FusedActivationRange(params.activation, &lo, &hi)) return Fail("fused activation");
  TS_RETURN_IF_ERROR(CheckWeights(t, oc,
                                  {"float input with quantized weights (hybrid)", -1,
                                   "per-channel weights (this XNNPACK has no per-channel fully connected)", false}));
  if (mode_ == Mode::kCheck) return Status::Ok();

  TS_ASSIGN_OR_RETURN(const WeightedValues v, DefineWeightedValues(t, oc));
  const uint32_t flags = params.keep_num_dims ? 0 : XNN_FLAG_TENSORFLOW_RESHAPE_2D;
  return Defined(xnn_define_fully_connected(subgraph_, lo, hi, v.input, v.filter, v.bias, v.output, flags),
                 "xnn_define_fully_connected");
}

Status GraphTranslator::VisitTransposeConv(const TfLiteNode* node, const void* params_ptr) {
  if (node->inputs->size != 3 && node->inputs->size != 4) return Fail("expected 3 or 4 inputs");
  if (node->outputs->size != 1) return Fail("expected 1 output");
  if (params_ptr == nullptr) return Fail("no options");
  const auto& params = *static_cast<const TfLiteTransposeConvParams*>(params_ptr);
  const int shape = node->inputs->data[0];
  WeightedTensors t;
  TS_RETURN_IF_ERROR(CheckWeightedTensors(node, /*input_slot=*/2, /*bias_slot=*/3, &t));
  if (shape < 0 || !IsStatic(shape) || IsFolded(shape) || Tensor(shape).type != kTfLiteInt32 ||
      Dims(shape) != std::vector<int>{4}) {
    return Fail("the output shape is not a constant int32 [4]");
  }
  if (t.filter < 0 || !IsStatic(t.filter)) return Fail("the filter is not a constant");
  if (t.bias >= 0 && !IsStatic(t.bias)) return Fail("the bias is not a constant");
  const std::vector<int> in = Dims(t.input), w = Dims(t.filter), out = Dims(t.output);
  if (in.size() != 4 || w.size() != 4) return Fail("input and filter must be 4-D");
  const int32_t* shape_data = reinterpret_cast<const int32_t*>(Tensor(shape).data.raw);
  if (std::vector<int>(shape_data, shape_data + 4) != out) return Fail("output shape tensor disagrees with the output");
  const int oc = w[0], kh = w[1], kw = w[2], ic = w[3];
  if (in[3] != ic || out[3] != oc || out[0] != in[0]) return Fail("channels do not match the filter");
  if (params.stride_height <= 0 || params.stride_width <= 0) return Fail("bad strides");
  if (params.padding != kTfLitePaddingSame && params.padding != kTfLitePaddingValid) return Fail("unknown padding");
  float lo, hi;
  if (!tflite::FusedActivationRange(params.activation, &lo, &hi)) return Fail("fused activation");
  // TFLite pads as if convolving the output back to the input; XNNPACK crops the full deconvolution
  // [stride*(in-1) + kernel] by top/left and bottom/right padding, plus an adjustment past the end.
  int pads[2][2], adjust[2];
  const int sizes_in[2] = {in[1], in[2]}, sizes_out[2] = {out[1], out[2]}, kernel[2] = {kh, kw};
  const int strides[2] = {params.stride_height, params.stride_width};
  for (int d = 0; d < 2; ++d) {
    const int conv_out = WindowOutputSize(sizes_out[d], kernel[d], strides[d], 1, params.padding);
    if (conv_out <= 0) return Fail("output smaller than the filter with VALID padding");
    const int before = PaddingBefore(sizes_out[d], conv_out, kernel[d], strides[d], 1);
    const int64_t full = static_cast<int64_t>(strides[d]) * (sizes_in[d] - 1) + kernel[d];
    int64_t after = full - before - sizes_out[d];
    adjust[d] = 0;
    if (after < 0) {
      adjust[d] = static_cast<int>(-after);
      after = 0;
    }
    if (adjust[d] >= strides[d]) return Fail("output larger than the transposed convolution produces");
    pads[d][0] = before;
    pads[d][1] = static_cast<int>(after);
  }
  TS_RETURN_IF_ERROR(CheckWeights(
      t, oc, {"filter type", -1, "per-channel filter (this XNNPACK has no per-channel deconvolution)", false}));
  if (mode_ == Mode::kCheck) return Status::Ok();

  TS_ASSIGN_OR_RETURN(const WeightedValues v, DefineWeightedValues(t, oc));
  return Defined(xnn_define_deconvolution_2d(subgraph_, pads[0][0], pads[1][1], pads[0][1], pads[1][0], adjust[0],
                                             adjust[1], kh, kw, params.stride_height, params.stride_width, 1, 1, 1, ic,
                                             oc, lo, hi, v.input, v.filter, v.bias, v.output, 0),
                 "xnn_define_deconvolution_2d");
}

Status GraphTranslator::VisitPool(int op, const TfLiteNode* node, const void* params_ptr) {
  if (node->inputs->size != 1 || node->outputs->size != 1) return Fail("expected 1 input and 1 output");
  if (params_ptr == nullptr) return Fail("no options");
  const auto& params = *static_cast<const TfLitePoolParams*>(params_ptr);
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckSameTypeData(input, output, true));
  const std::vector<int> in = Dims(input), out = Dims(output);
  if (in.size() != 4) return Fail("input must be 4-D");
  const int fh = params.filter_height, fw = params.filter_width;
  if (fh <= 0 || fw <= 0 || params.stride_height <= 0 || params.stride_width <= 0) return Fail("bad window");
  if (params.padding != kTfLitePaddingSame && params.padding != kTfLitePaddingValid) return Fail("unknown padding");
  float lo, hi;
  if (!tflite::FusedActivationRange(params.activation, &lo, &hi)) return Fail("fused activation");
  const int oh = WindowOutputSize(in[1], fh, params.stride_height, 1, params.padding);
  const int ow = WindowOutputSize(in[2], fw, params.stride_width, 1, params.padding);
  const std::vector<int> expected = {in[0], oh, ow, in[3]};
  if (out != expected) return Fail("output shape " + ShapeString(out) + ", expected " + ShapeString(expected));
  const bool quantized = Tensor(input).type != kTfLiteFloat32;
  const bool identity = fh == 1 && fw == 1;
  if (identity && (params.stride_height != 1 || params.stride_width != 1)) return Fail("1x1 window with strides");
  const bool global = fh == in[1] && fw == in[2] && oh == 1 && ow == 1;
  if (op == kTfLiteBuiltinAveragePool2d && quantized && !identity && !global) {
    return Fail("quantized average pooling other than over the whole feature map");
  }
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  const uint32_t flags = PaddingFlags(params.padding);
  enum xnn_status s;
  if (identity) {
    s = xnn_define_clamp(subgraph_, lo, hi, vi, vo, 0);
  } else if (op == kTfLiteBuiltinMaxPool2d) {
    s = xnn_define_max_pooling_2d(subgraph_, 0, 0, 0, 0, fh, fw, params.stride_height, params.stride_width, 1, 1, lo,
                                  hi, vi, vo, flags);
  } else if (global) {
    s = xnn_define_global_average_pooling_2d(subgraph_, lo, hi, vi, vo, 0);
  } else {
    s = xnn_define_average_pooling_2d(subgraph_, 0, 0, 0, 0, fh, fw, params.stride_height, params.stride_width, lo, hi,
                                      vi, vo, flags);
  }
  return Defined(s, OpName(op));
}

Status GraphTranslator::VisitMean(const TfLiteNode* node, const void* params_ptr) {
  if (node->inputs->size != 2 || node->outputs->size != 1) return Fail("expected 2 inputs and 1 output");
  if (params_ptr == nullptr) return Fail("no options");
  const bool keep_dims = static_cast<const TfLiteReducerParams*>(params_ptr)->keep_dims;
  const int input = node->inputs->data[0], axes = node->inputs->data[1], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckData(input, true, true, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, true, true, "output"));
  if (Tensor(input).type != Tensor(output).type) return Fail("input and output types differ");
  const std::vector<int> in = Dims(input), out = Dims(output);
  if (in.size() != 4) return Fail("MEAN over a tensor that is not 4-D");
  if (axes < 0 || !IsStatic(axes) || IsFolded(axes) || Tensor(axes).type != kTfLiteInt32) {
    return Fail("the axes are not a constant int32 tensor");
  }
  std::set<int> axis_set;
  const int32_t* axis_data = reinterpret_cast<const int32_t*>(Tensor(axes).data.raw);
  int64_t axis_count = 1;
  for (int d : Dims(axes)) axis_count *= d;
  for (int64_t i = 0; i < axis_count; ++i) axis_set.insert(axis_data[i] < 0 ? axis_data[i] + 4 : axis_data[i]);
  if (axis_set != std::set<int>{1, 2}) return Fail("MEAN over axes other than height and width");
  const std::vector<int> expected = keep_dims ? std::vector<int>{in[0], 1, 1, in[3]} : std::vector<int>{in[0], in[3]};
  if (out != expected) return Fail("output shape " + ShapeString(out) + ", expected " + ShapeString(expected));
  if (Tensor(input).type != kTfLiteFloat32) {
    float si, so;
    int32_t zi, zo;
    TS_RETURN_IF_ERROR(PerTensorQuant(input, &si, &zi));
    TS_RETURN_IF_ERROR(PerTensorQuant(output, &so, &zo));
    const float ratio = si / so;
    if (!(ratio >= 0x1.0p-8f && ratio < 0x1.0p+8f)) return Fail("scale ratio outside XNNPACK's [2^-8, 2^8)");
  }
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  if (keep_dims) {
    return Defined(xnn_define_global_average_pooling_2d(subgraph_, -kInf, kInf, vi, vo, 0), "MEAN");
  }
  const std::vector<size_t> mid_dims = {static_cast<size_t>(in[0]), 1, 1, static_cast<size_t>(in[3])};
  TS_ASSIGN_OR_RETURN(const uint32_t vm, InternalValue(output, mid_dims));
  TS_RETURN_IF_ERROR(XnnOk(xnn_define_global_average_pooling_2d(subgraph_, -kInf, kInf, vi, vm, 0), "MEAN"));
  const size_t out_dims[2] = {static_cast<size_t>(in[0]), static_cast<size_t>(in[3])};
  TS_RETURN_IF_ERROR(XnnOk(xnn_define_static_reshape(subgraph_, 2, out_dims, vm, vo, 0), "MEAN (reshape)"));
  nodes_defined_ += 2;
  return Status::Ok();
}

Status GraphTranslator::VisitUnary(int op, const TfLiteNode* node, const void* params) {
  if (node->inputs->size != 1 || node->outputs->size != 1) return Fail("expected 1 input and 1 output");
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckData(input, true, false, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, true, false, "output"));
  if (Dims(input) != Dims(output)) return Fail("output shape differs from the input's");
  float alpha = 0.0f;
  if (op == kTfLiteBuiltinLeakyRelu) {
    if (params == nullptr) return Fail("no options");
    alpha = static_cast<const TfLiteLeakyReluParams*>(params)->alpha;
    if (!std::isfinite(alpha)) return Fail("alpha is not finite");
  }
  UseStatic(input, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  enum xnn_status s;
  switch (op) {
    case kTfLiteBuiltinHardSwish:
      s = xnn_define_hardswish(subgraph_, vi, vo, 0);
      break;
    case kTfLiteBuiltinElu:
      s = xnn_define_elu(subgraph_, 1.0f, vi, vo, 0);
      break;
    case kTfLiteBuiltinLeakyRelu:
      s = xnn_define_leaky_relu(subgraph_, alpha, vi, vo, 0);
      break;
    case kTfLiteBuiltinAbs:
      s = xnn_define_abs(subgraph_, vi, vo, 0);
      break;
    case kTfLiteBuiltinCeil:
      s = xnn_define_ceiling(subgraph_, vi, vo, 0);
      break;
    case kTfLiteBuiltinFloor:
      s = xnn_define_floor(subgraph_, vi, vo, 0);
      break;
    case kTfLiteBuiltinNeg:
      s = xnn_define_negate(subgraph_, vi, vo, 0);
      break;
    case kTfLiteBuiltinRound:
      s = xnn_define_bankers_rounding(subgraph_, vi, vo, 0);
      break;
    case kTfLiteBuiltinSquare:
      s = xnn_define_square(subgraph_, vi, vo, 0);
      break;
    default:
      s = xnn_define_square_root(subgraph_, vi, vo, 0);
      break;
  }
  return Defined(s, "unary op");
}

Status GraphTranslator::VisitClamp(const TfLiteNode* node, float lo, float hi) {
  if (node->inputs->size != 1 || node->outputs->size != 1) return Fail("expected 1 input and 1 output");
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckSameTypeData(input, output, true));
  if (Dims(input) != Dims(output)) return Fail("output shape differs from the input's");
  UseStatic(input, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  return Defined(xnn_define_clamp(subgraph_, lo, hi, vi, vo, 0), "xnn_define_clamp");
}

Status GraphTranslator::VisitSoftmax(const TfLiteNode* node, const void* params) {
  if (node->inputs->size != 1 || node->outputs->size != 1) return Fail("expected 1 input and 1 output");
  if (params == nullptr) return Fail("no options");
  if (static_cast<const TfLiteSoftmaxParams*>(params)->beta != 1.0f) return Fail("beta other than 1");
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckData(input, true, false, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, true, false, "output"));
  if (Dims(input) != Dims(output) || Dims(input).empty()) return Fail("output shape differs from the input's");
  UseStatic(input, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  return Defined(xnn_define_softmax(subgraph_, vi, vo, 0), "xnn_define_softmax");
}

Status GraphTranslator::VisitLogistic(const TfLiteNode* node) {
  if (node->inputs->size != 1 || node->outputs->size != 1) return Fail("expected 1 input and 1 output");
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckData(input, true, true, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, true, true, "output"));
  const TfLiteType type = Tensor(input).type;
  if (Tensor(output).type != type) return Fail("input and output types differ");
  if (Dims(input) != Dims(output)) return Fail("output shape differs from the input's");
  if (type != kTfLiteFloat32) {
    float s;
    int32_t zp;
    TS_RETURN_IF_ERROR(PerTensorQuant(output, &s, &zp));
    if (s != 1.0f / 256.0f || zp != (type == kTfLiteInt8 ? -128 : 0)) {
      return Fail("quantized LOGISTIC output must have scale 1/256 and the type's lowest value as zero point");
    }
  }
  UseStatic(input, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  return Defined(xnn_define_sigmoid(subgraph_, vi, vo, 0), "xnn_define_sigmoid");
}

Status GraphTranslator::VisitPrelu(const TfLiteNode* node) {
  if (node->inputs->size != 2 || node->outputs->size != 1) return Fail("expected 2 inputs and 1 output");
  const int input = node->inputs->data[0], slope = node->inputs->data[1], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckData(input, true, false, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, true, false, "output"));
  TS_RETURN_IF_ERROR(CheckData(slope, true, false, "slope"));
  if (!IsStatic(slope)) return Fail("the slope is not a constant");
  const std::vector<int> in = Dims(input), s = Dims(slope);
  if (in.size() != 4) return Fail("input must be 4-D");
  if (Dims(output) != in) return Fail("output shape differs from the input's");
  if (s.size() > in.size()) return Fail("slope of higher rank than the input");
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != 1) return Fail("slope varies along a dimension other than the channels");
  }
  const int channels = in[3];
  const int slope_channels = s.empty() ? 1 : s.back();
  if (slope_channels != channels && slope_channels != 1) return Fail("slope does not broadcast over the channels");
  if (mode_ == Mode::kCheck) return Status::Ok();

  TS_ASSIGN_OR_RETURN(const uint32_t vi, Value(input));
  uint32_t vs = XNN_INVALID_VALUE_ID;
  const std::vector<size_t> slope_dims = {static_cast<size_t>(channels)};
  if (slope_channels == channels) {
    TS_ASSIGN_OR_RETURN(vs, ReshapedStatic(slope, slope_dims));
  } else {
    // One slope for every channel: XNNPACK wants one per channel.
    const float value = *static_cast<const float*>(StaticData(slope, true));
    std::unique_ptr<uint8_t[]> buffer(new uint8_t[channels * sizeof(float) + XNN_EXTRA_BYTES]());
    float* values = reinterpret_cast<float*>(buffer.get());
    for (int c = 0; c < channels; ++c) values[c] = value;
    const Status defined = XnnOk(xnn_define_tensor_value(subgraph_, xnn_datatype_fp32, 1, slope_dims.data(), values,
                                                         XNN_INVALID_VALUE_ID, 0, &vs),
                                 "xnn_define_tensor_value (slope)");
    buffers_.push_back(std::move(buffer));
    TS_RETURN_IF_ERROR(defined);
  }
  TS_RETURN_IF_ERROR(MarkProduced(output));
  TS_ASSIGN_OR_RETURN(const uint32_t vo, Value(output));
  return Defined(xnn_define_prelu(subgraph_, vi, vs, vo, 0), "xnn_define_prelu");
}

Status GraphTranslator::VisitPad(int op, const TfLiteNode* node) {
  const int expected_inputs = op == kTfLiteBuiltinPad ? 2 : 3;
  if (node->inputs->size != expected_inputs || node->outputs->size != 1) return Fail("wrong number of tensors");
  const int input = node->inputs->data[0], paddings = node->inputs->data[1], output = node->outputs->data[0];
  const bool allow_quantized = op == kTfLiteBuiltinPad;
  TS_RETURN_IF_ERROR(CheckSameTypeData(input, output, allow_quantized));
  const std::vector<int> in = Dims(input), out = Dims(output);
  if (paddings < 0 || !IsStatic(paddings) || IsFolded(paddings)) return Fail("the paddings are not a constant");
  const TfLiteTensor& pt = Tensor(paddings);
  if ((pt.type != kTfLiteInt32 && pt.type != kTfLiteInt64) ||
      Dims(paddings) != std::vector<int>{static_cast<int>(in.size()), 2}) {
    return Fail("paddings must be int32 or int64 [rank, 2]");
  }
  float value = 0.0f;
  if (op == kTfLiteBuiltinPadv2) {
    const int v = node->inputs->data[2];
    if (v < 0 || !IsStatic(v) || IsFolded(v) || Tensor(v).type != kTfLiteFloat32 || Tensor(v).bytes != sizeof(float)) {
      return Fail("the padding value is not a float32 constant scalar");
    }
    value = *reinterpret_cast<const float*>(Tensor(v).data.raw);
  }
  size_t pre[XNN_MAX_TENSOR_DIMS] = {0}, post[XNN_MAX_TENSOR_DIMS] = {0};
  std::vector<int> expected = in;
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t p0, p1;
    if (pt.type == kTfLiteInt32) {
      p0 = reinterpret_cast<const int32_t*>(pt.data.raw)[2 * d];
      p1 = reinterpret_cast<const int32_t*>(pt.data.raw)[2 * d + 1];
    } else {
      p0 = reinterpret_cast<const int64_t*>(pt.data.raw)[2 * d];
      p1 = reinterpret_cast<const int64_t*>(pt.data.raw)[2 * d + 1];
    }
    if (p0 < 0 || p1 < 0 || p0 > (1 << 24) || p1 > (1 << 24)) return Fail("negative or huge padding");
    pre[d] = static_cast<size_t>(p0);
    post[d] = static_cast<size_t>(p1);
    expected[d] = static_cast<int>(in[d] + p0 + p1);
  }
  if (out != expected) return Fail("output shape " + ShapeString(out) + ", expected " + ShapeString(expected));
  UseStatic(input, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  return Defined(xnn_define_static_constant_pad(subgraph_, pre, post, value, vi, vo, 0), OpName(op));
}

Status GraphTranslator::VisitReshape(int op, const TfLiteNode* node) {
  if (node->inputs->size < 1 || node->inputs->size > 2 || node->outputs->size != 1) return Fail("wrong tensors");
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  if (node->inputs->size == 2) {
    const int shape = node->inputs->data[1];
    if (shape >= 0 && (!IsStatic(shape) || IsFolded(shape))) {
      return Fail(std::string(OpName(op)) + " with a computed shape or axis (static shapes only)");
    }
  }
  TS_RETURN_IF_ERROR(CheckSameTypeData(input, output, true));
  const std::vector<int> in = Dims(input), out = Dims(output);
  int64_t a = 1, b = 1;
  for (int d : in) a *= d;
  for (int d : out) b *= d;
  if (a != b) return Fail("output has " + std::to_string(b) + " elements, input " + std::to_string(a));
  UseStatic(input, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  const std::vector<size_t> shape(out.begin(), out.end());
  return Defined(xnn_define_static_reshape(subgraph_, shape.size(), shape.data(), vi, vo, 0), OpName(op));
}

Status GraphTranslator::VisitResizeBilinear(const TfLiteNode* node, const void* params_ptr) {
  if (node->inputs->size != 2 || node->outputs->size != 1) return Fail("expected 2 inputs and 1 output");
  if (params_ptr == nullptr) return Fail("no options");
  const auto& params = *static_cast<const TfLiteResizeBilinearParams*>(params_ptr);
  const int input = node->inputs->data[0], size = node->inputs->data[1], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckSameTypeData(input, output, true));
  if (size < 0 || !IsStatic(size) || IsFolded(size) || Tensor(size).type != kTfLiteInt32 ||
      Dims(size) != std::vector<int>{2}) {
    return Fail("the size is not a constant int32 [2]");
  }
  if (params.align_corners && params.half_pixel_centers) return Fail("align_corners with half_pixel_centers");
  const std::vector<int> in = Dims(input), out = Dims(output);
  if (in.size() != 4) return Fail("input must be 4-D");
  const int32_t* s = reinterpret_cast<const int32_t*>(Tensor(size).data.raw);
  const std::vector<int> expected = {in[0], s[0], s[1], in[3]};
  if (out != expected) return Fail("output shape " + ShapeString(out) + ", expected " + ShapeString(expected));
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  uint32_t flags = 0;
  if (params.align_corners) {
    flags = XNN_FLAG_ALIGN_CORNERS;
  } else if (!params.half_pixel_centers) {
    flags = XNN_FLAG_TENSORFLOW_LEGACY_MODE;
  }
  return Defined(xnn_define_static_resize_bilinear_2d(subgraph_, s[0], s[1], vi, vo, flags), "RESIZE_BILINEAR");
}

Status GraphTranslator::VisitDepthToSpace(const TfLiteNode* node, const void* params_ptr) {
  if (node->inputs->size != 1 || node->outputs->size != 1) return Fail("expected 1 input and 1 output");
  if (params_ptr == nullptr) return Fail("no options");
  const int block = static_cast<const TfLiteDepthToSpaceParams*>(params_ptr)->block_size;
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckData(input, true, false, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, true, false, "output"));
  const std::vector<int> in = Dims(input), out = Dims(output);
  if (in.size() != 4 || block < 2 || in[3] % (block * block) != 0) return Fail("shape or block size");
  const std::vector<int> expected = {in[0], in[1] * block, in[2] * block, in[3] / (block * block)};
  if (out != expected) return Fail("output shape " + ShapeString(out) + ", expected " + ShapeString(expected));
  UseStatic(input, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  return Defined(xnn_define_depth_to_space(subgraph_, vi, vo, block, 0), "xnn_define_depth_to_space");
}

Status GraphTranslator::VisitQuantize(const TfLiteNode* node) {
  if (node->inputs->size != 1 || node->outputs->size != 1) return Fail("expected 1 input and 1 output");
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  TS_RETURN_IF_ERROR(CheckData(input, true, false, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, false, true, "output"));
  if (Dims(input) != Dims(output)) return Fail("output shape differs from the input's");
  UseStatic(input, false);
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  return Defined(xnn_define_convert(subgraph_, vi, vo, 0), "QUANTIZE");
}

Status GraphTranslator::VisitDequantize(const TfLiteNode* node) {
  if (node->inputs->size != 1 || node->outputs->size != 1) return Fail("expected 1 input and 1 output");
  const int input = node->inputs->data[0], output = node->outputs->data[0];
  if (IsFolded(output)) {
    // Folded into float32 weights: worth it only when every reader of the weights is delegated too
    // (otherwise the interpreter's own DEQUANTIZE, computed once, serves them better).
    if (mode_ == Mode::kDefine) return Status::Ok();
    TfLiteIntArray* plan = nullptr;
    if (context_->GetExecutionPlan(context_, &plan) != kTfLiteOk || plan == nullptr) return Fail("no plan");
    int readers = 0;
    for (int i = 0; i < plan->size; ++i) {
      TfLiteNode* other = nullptr;
      TfLiteRegistration* registration = nullptr;
      if (context_->GetNodeAndRegistration(context_, plan->data[i], &other, &registration) != kTfLiteOk) continue;
      if (other == node || other->inputs == nullptr) continue;
      bool reads = false;
      for (int k = 0; k < other->inputs->size; ++k) reads = reads || other->inputs->data[k] == output;
      if (!reads) continue;
      ++readers;
      GraphTranslator reader_check(context_, flags_, info_, extra_);
      if (!reader_check.Check(plan->data[i], other, registration)) {
        return Fail("folded weights read by a node XNNPACK does not take (" + reader_check.why_not() + ")");
      }
    }
    if (readers == 0) return Fail("folded weights nothing reads");
    return Status::Ok();
  }
  TS_RETURN_IF_ERROR(CheckData(input, false, true, "input"));
  TS_RETURN_IF_ERROR(CheckData(output, true, false, "output"));
  if (Dims(input) != Dims(output)) return Fail("output shape differs from the input's");
  if (IsStatic(input)) return Fail("constant input");
  if (mode_ == Mode::kCheck) return Status::Ok();

  uint32_t vi, vo;
  TS_RETURN_IF_ERROR(InputOutputValues(input, output, &vi, &vo));
  return Defined(xnn_define_convert(subgraph_, vi, vo, 0), "DEQUANTIZE");
}

}  // namespace xnnpack
}  // namespace touchstone
