#include "delegates/gpu/gpu_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <utility>

#include "delegates/api/delegate_helpers.h"
#include "delegates/gpu/vulkan_context.h"
#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace gpu {
namespace {

using Shape = std::vector<int>;

// ---- Tensor helpers -------------------------------------------------------------------------------

bool IsConstant(const TfLiteTensor& t) { return t.allocation_type == kTfLiteMmapRo && t.data.raw != nullptr; }

bool IsQuantizedType(TfLiteType type) { return type == kTfLiteUInt8 || type == kTfLiteInt8 || type == kTfLiteInt16; }

// Shapes the delegate handles: known, at most kMaxRank dimensions, no empty dimension, and fewer
// than 2^31 elements.
bool ShapeOk(const TfLiteTensor& t, std::string* why) {
  if (t.dims == nullptr) {
    *why = "tensor without a shape";
    return false;
  }
  if (t.dims->size > kMaxRank) {
    *why = "rank " + std::to_string(t.dims->size) + " above " + std::to_string(kMaxRank);
    return false;
  }
  int64_t n = 1;
  for (int i = 0; i < t.dims->size; ++i) {
    if (t.dims->data[i] <= 0) {
      *why = "shape " + ShapeString(&t) + " has an empty or unknown dimension";
      return false;
    }
    n *= t.dims->data[i];
  }
  if (n >= (int64_t{1} << 31)) {
    *why = "tensor of " + std::to_string(n) + " elements";
    return false;
  }
  return true;
}

// The support checks: what a node's tensors must be.
class Checker {
 public:
  Checker(TfLiteContext* context, const TfLiteNode* node, const OpSettings& settings, std::string* why)
      : context_(context), node_(node), settings_(settings), why_(why) {}

  int num_inputs() const { return node_->inputs->size; }
  int num_outputs() const { return node_->outputs->size; }
  int input_index(int k) const { return k < node_->inputs->size ? node_->inputs->data[k] : -1; }
  int output_index(int k) const { return k < node_->outputs->size ? node_->outputs->data[k] : -1; }
  const TfLiteTensor& input(int k) const { return context_->tensors[input_index(k)]; }
  const TfLiteTensor& output(int k) const { return context_->tensors[output_index(k)]; }
  bool has_input(int k) const { return input_index(k) >= 0; }

  bool Fail(const std::string& why) {
    *why_ = why;
    return false;
  }
  bool Counts(int min_inputs, int max_inputs, int outputs) {
    if (num_inputs() < min_inputs || num_inputs() > max_inputs) {
      return Fail(std::to_string(num_inputs()) + " inputs");
    }
    if (num_outputs() != outputs) return Fail(std::to_string(num_outputs()) + " outputs");
    for (int k = 0; k < min_inputs; ++k) {
      if (!has_input(k)) return Fail("input " + std::to_string(k) + " missing");
    }
    for (int k = 0; k < outputs; ++k) {
      if (output_index(k) < 0) return Fail("output missing");
    }
    return true;
  }

  // A tensor computed on the device (non-constant): float32, or a quantized activation with one
  // scale when quantized models are enabled.
  bool Activation(const TfLiteTensor& t, const char* role) {
    std::string why;
    if (!ShapeOk(t, &why)) return Fail(std::string(role) + ": " + why);
    if (t.type == kTfLiteFloat32) return true;
    if (IsQuantizedType(t.type)) {
      if (!settings_.enable_quant) {
        return Fail(std::string(role) + " is " + TfLiteTypeGetName(t.type) +
                    " (quantized models are off: --gpu_experimental_enable_quant=false)");
      }
      const TfLiteAffineQuantization* q = AffineQuantization(&t);
      if (q == nullptr || q->scale->size != 1 || !(q->scale->data[0] > 0.0f)) {
        return Fail(std::string(role) + " is " + TfLiteTypeGetName(t.type) + " without one positive scale");
      }
      if (t.type == kTfLiteInt16 && q->zero_point != nullptr && q->zero_point->size > 0 &&
          q->zero_point->data[0] != 0) {
        return Fail(std::string(role) + " is int16 with a non-zero zero point");
      }
      return true;
    }
    return Fail(std::string(role) + " is " + TfLiteTypeGetName(t.type));
  }

  // A value read by a shader: an activation, or a constant the delegate turns into floats (float32,
  // float16, quantized with a scale per tensor or per channel).
  bool Data(const TfLiteTensor& t, const char* role) {
    if (!IsConstant(t)) return Activation(t, role);
    std::string why;
    if (!ShapeOk(t, &why)) return Fail(std::string(role) + ": " + why);
    if (t.type == kTfLiteFloat32 || t.type == kTfLiteFloat16) return true;
    if (IsQuantizedType(t.type) || t.type == kTfLiteInt32) {
      if (!settings_.enable_quant) {
        return Fail(std::string(role) + " is " + TfLiteTypeGetName(t.type) +
                    " (quantized models are off: --gpu_experimental_enable_quant=false)");
      }
      const TfLiteAffineQuantization* q = AffineQuantization(&t);
      if (q == nullptr)
        return Fail(std::string(role) + " is a " + TfLiteTypeGetName(t.type) + " constant without a scale");
      if (q->scale->size != 1) {
        const int dim = q->quantized_dimension;
        if (dim < 0 || dim >= t.dims->size || t.dims->data[dim] != q->scale->size) {
          return Fail(std::string(role) + ": per-channel scales do not match the quantized dimension");
        }
      }
      return true;
    }
    return Fail(std::string(role) + " is a " + TfLiteTypeGetName(t.type) + " constant");
  }

  // A constant integer tensor read on the CPU (shapes, axes, paddings).
  bool ConstInts(const TfLiteTensor& t, const char* role) {
    if (!IsConstant(t)) return Fail(std::string(role) + " is not constant");
    if (t.type != kTfLiteInt32 && t.type != kTfLiteInt64) return Fail(std::string(role) + " is not int32/int64");
    return true;
  }

  bool Rank(const TfLiteTensor& t, int rank, const char* role) {
    if (t.dims == nullptr || t.dims->size != rank) {
      return Fail(std::string(role) + " has rank " + std::to_string(t.dims ? t.dims->size : -1) + ", expected " +
                  std::to_string(rank));
    }
    return true;
  }

  bool Activation(TfLiteFusedActivation a) {
    if (a == kTfLiteActNone || a == kTfLiteActRelu || a == kTfLiteActReluN1To1 || a == kTfLiteActRelu6) return true;
    return Fail("fused activation " + std::to_string(static_cast<int>(a)));
  }

  // All inputs [first, last) data, and output 0 an activation.
  bool DataInputsAndOutput(int first, int last) {
    for (int k = first; k < last; ++k) {
      if (has_input(k) && !Data(input(k), ("input " + std::to_string(k)).c_str())) return false;
    }
    return Activation(output(0), "output");
  }

 private:
  TfLiteContext* context_;
  const TfLiteNode* node_;
  const OpSettings& settings_;
  std::string* why_;
};

std::vector<int64_t> ReadInts(const TfLiteTensor& t) {
  std::vector<int64_t> v;
  const int64_t n = ElementCount(ShapeOf(&t));
  v.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v.push_back(t.type == kTfLiteInt64 ? t.data.i64[i] : t.data.i32[i]);
  }
  return v;
}

template <typename P>
const P& ParamsOf(const TfLiteNode* node) {
  static const P kZero{};
  return node->builtin_data != nullptr ? *static_cast<const P*>(node->builtin_data) : kZero;
}

// CONV_2D's and DEPTHWISE_CONV_2D's window and activation (their options name them alike).
struct ConvWindow {
  int stride_w, stride_h, dilation_w, dilation_h;
  TfLitePadding padding;
  TfLiteFusedActivation activation;
};

template <typename ConvParams>
ConvWindow ConvWindowOf(const TfLiteNode* node) {
  const ConvParams& p = ParamsOf<ConvParams>(node);
  return {p.stride_width, p.stride_height, p.dilation_width_factor, p.dilation_height_factor, p.padding, p.activation};
}

ConvWindow ConvWindowOf(const TfLiteNode* node, bool depthwise) {
  return depthwise ? ConvWindowOf<TfLiteDepthwiseConvParams>(node) : ConvWindowOf<TfLiteConvParams>(node);
}

TfLiteFusedActivation FusedActivation(int code, const TfLiteNode* node) {
  switch (code) {
    case kTfLiteBuiltinAdd:
      return ParamsOf<TfLiteAddParams>(node).activation;
    case kTfLiteBuiltinSub:
      return ParamsOf<TfLiteSubParams>(node).activation;
    case kTfLiteBuiltinMul:
      return ParamsOf<TfLiteMulParams>(node).activation;
    case kTfLiteBuiltinDiv:
      return ParamsOf<TfLiteDivParams>(node).activation;
    case kTfLiteBuiltinConv2d:
      return ParamsOf<TfLiteConvParams>(node).activation;
    case kTfLiteBuiltinDepthwiseConv2d:
      return ParamsOf<TfLiteDepthwiseConvParams>(node).activation;
    case kTfLiteBuiltinFullyConnected:
      return ParamsOf<TfLiteFullyConnectedParams>(node).activation;
    case kTfLiteBuiltinAveragePool2d:
    case kTfLiteBuiltinMaxPool2d:
    case kTfLiteBuiltinL2Pool2d:
      return ParamsOf<TfLitePoolParams>(node).activation;
    case kTfLiteBuiltinConcatenation:
      return ParamsOf<TfLiteConcatenationParams>(node).activation;
    case kTfLiteBuiltinTransposeConv:
      return ParamsOf<TfLiteTransposeConvParams>(node).activation;
    default:
      return kTfLiteActNone;
  }
}

// ---- Support per op -------------------------------------------------------------------------------

enum class Group {
  kBinary,
  kUnary,
  kConv2d,
  kDepthwise,
  kFullyConnected,
  kPool,
  kSoftmax,
  kConcat,
  kReshape,
  kResize,
  kPad,
  kReduce,
  kStridedSlice,
  kSlice,
  kTranspose,
  kDepthToSpace,
  kSpaceToDepth,
  kTransposeConv,
  kDequantize,
  kQuantize,
  kLstmBasic,
};

struct OpEntry {
  int code;
  Group group;
  uint32_t op;  // the shader's op selector
};

// Unary ops: the unary shader's op codes (shaders/unary.comp).
constexpr uint32_t kUnaryCopy = 0, kUnaryLogistic = 1, kUnaryTanh = 2, kUnaryHardSwish = 3, kUnaryExp = 4,
                   kUnaryAbs = 5, kUnaryNeg = 6, kUnarySqrt = 7, kUnaryRsqrt = 8, kUnarySquare = 9, kUnaryLog = 10,
                   kUnarySin = 11, kUnaryCos = 12, kUnaryElu = 13, kUnaryLeakyRelu = 14, kUnaryFloor = 15,
                   kUnaryCeil = 16;

const std::vector<OpEntry>& OpTable() {
  static const std::vector<OpEntry>* const table = new std::vector<OpEntry>{
      {kTfLiteBuiltinAdd, Group::kBinary, 0},
      {kTfLiteBuiltinSub, Group::kBinary, 1},
      {kTfLiteBuiltinMul, Group::kBinary, 2},
      {kTfLiteBuiltinDiv, Group::kBinary, 3},
      {kTfLiteBuiltinMaximum, Group::kBinary, 4},
      {kTfLiteBuiltinMinimum, Group::kBinary, 5},
      {kTfLiteBuiltinSquaredDifference, Group::kBinary, 6},
      {kTfLiteBuiltinPrelu, Group::kBinary, 7},
      {kTfLiteBuiltinPow, Group::kBinary, 8},
      {kTfLiteBuiltinRelu, Group::kUnary, kUnaryCopy},
      {kTfLiteBuiltinRelu6, Group::kUnary, kUnaryCopy},
      {kTfLiteBuiltinReluN1To1, Group::kUnary, kUnaryCopy},
      {kTfLiteBuiltinRelu0To1, Group::kUnary, kUnaryCopy},
      {kTfLiteBuiltinLogistic, Group::kUnary, kUnaryLogistic},
      {kTfLiteBuiltinTanh, Group::kUnary, kUnaryTanh},
      {kTfLiteBuiltinHardSwish, Group::kUnary, kUnaryHardSwish},
      {kTfLiteBuiltinExp, Group::kUnary, kUnaryExp},
      {kTfLiteBuiltinAbs, Group::kUnary, kUnaryAbs},
      {kTfLiteBuiltinNeg, Group::kUnary, kUnaryNeg},
      {kTfLiteBuiltinSqrt, Group::kUnary, kUnarySqrt},
      {kTfLiteBuiltinRsqrt, Group::kUnary, kUnaryRsqrt},
      {kTfLiteBuiltinSquare, Group::kUnary, kUnarySquare},
      {kTfLiteBuiltinLog, Group::kUnary, kUnaryLog},
      {kTfLiteBuiltinSin, Group::kUnary, kUnarySin},
      {kTfLiteBuiltinCos, Group::kUnary, kUnaryCos},
      {kTfLiteBuiltinElu, Group::kUnary, kUnaryElu},
      {kTfLiteBuiltinLeakyRelu, Group::kUnary, kUnaryLeakyRelu},
      {kTfLiteBuiltinFloor, Group::kUnary, kUnaryFloor},
      {kTfLiteBuiltinCeil, Group::kUnary, kUnaryCeil},
      {kTfLiteBuiltinConv2d, Group::kConv2d, 0},
      {kTfLiteBuiltinDepthwiseConv2d, Group::kDepthwise, 0},
      {kTfLiteBuiltinFullyConnected, Group::kFullyConnected, 0},
      {kTfLiteBuiltinAveragePool2d, Group::kPool, 0},
      {kTfLiteBuiltinMaxPool2d, Group::kPool, 1},
      {kTfLiteBuiltinL2Pool2d, Group::kPool, 2},
      {kTfLiteBuiltinSoftmax, Group::kSoftmax, 0},
      {kTfLiteBuiltinLogSoftmax, Group::kSoftmax, 1},
      {kTfLiteBuiltinConcatenation, Group::kConcat, 0},
      {kTfLiteBuiltinReshape, Group::kReshape, 0},
      {kTfLiteBuiltinSqueeze, Group::kReshape, 1},
      {kTfLiteBuiltinExpandDims, Group::kReshape, 2},
      {kTfLiteBuiltinResizeBilinear, Group::kResize, 0},
      {kTfLiteBuiltinResizeNearestNeighbor, Group::kResize, 1},
      {kTfLiteBuiltinPad, Group::kPad, 0},
      {kTfLiteBuiltinPadv2, Group::kPad, 1},
      {kTfLiteBuiltinMean, Group::kReduce, 0},
      {kTfLiteBuiltinSum, Group::kReduce, 1},
      {kTfLiteBuiltinReduceMax, Group::kReduce, 2},
      {kTfLiteBuiltinReduceMin, Group::kReduce, 3},
      {kTfLiteBuiltinReduceProd, Group::kReduce, 4},
      {kTfLiteBuiltinStridedSlice, Group::kStridedSlice, 0},
      {kTfLiteBuiltinSlice, Group::kSlice, 0},
      {kTfLiteBuiltinTranspose, Group::kTranspose, 0},
      {kTfLiteBuiltinDepthToSpace, Group::kDepthToSpace, 0},
      {kTfLiteBuiltinSpaceToDepth, Group::kSpaceToDepth, 0},
      {kTfLiteBuiltinTransposeConv, Group::kTransposeConv, 0},
      {kTfLiteBuiltinDequantize, Group::kDequantize, 0},
      {kTfLiteBuiltinQuantize, Group::kQuantize, 0},
      {kTfLiteBuiltinLstm, Group::kLstmBasic, 0},
  };
  return *table;
}

const OpEntry* FindOp(int code) {
  for (const OpEntry& e : OpTable()) {
    if (e.code == code) return &e;
  }
  return nullptr;
}

// Normalized, sorted, distinct reduction axes; false when one is out of range.
bool ReductionAxes(const TfLiteTensor& axes_tensor, int rank, std::vector<int>* axes) {
  axes->clear();
  for (int64_t a : ReadInts(axes_tensor)) {
    int axis;
    if (!shape_util::NormalizeAxis(a, rank, &axis)) return false;
    axes->push_back(axis);
  }
  std::sort(axes->begin(), axes->end());
  axes->erase(std::unique(axes->begin(), axes->end()), axes->end());
  return true;
}

// The output shape of RESHAPE, from its shape input, its options, or the output tensor; -1 resolved.
bool ReshapeShape(TfLiteContext* context, const TfLiteNode* node, int64_t elements, Shape* out) {
  std::vector<int64_t> wanted;
  const int shape_tensor = node->inputs->size > 1 ? node->inputs->data[1] : -1;
  if (shape_tensor >= 0 && IsConstant(context->tensors[shape_tensor]) &&
      (context->tensors[shape_tensor].type == kTfLiteInt32 || context->tensors[shape_tensor].type == kTfLiteInt64) &&
      context->tensors[shape_tensor].dims->size == 1) {
    wanted = ReadInts(context->tensors[shape_tensor]);
  } else if (node->builtin_data != nullptr && ParamsOf<TfLiteReshapeParams>(node).num_dimensions > 0) {
    const TfLiteReshapeParams& p = ParamsOf<TfLiteReshapeParams>(node);
    for (int i = 0; i < p.num_dimensions && i < TFLITE_RESHAPE_PARAMS_MAX_DIMENSION_COUNT; ++i) {
      wanted.push_back(p.shape[i]);
    }
  } else {
    const Shape dims = ShapeOf(&context->tensors[node->outputs->data[0]]);
    wanted.assign(dims.begin(), dims.end());
  }
  int unknown = -1;
  int64_t known = 1;
  out->clear();
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i] == -1) {
      if (unknown >= 0) return false;
      unknown = static_cast<int>(i);
      out->push_back(1);
    } else {
      if (wanted[i] < 0) return false;
      known *= wanted[i];
      out->push_back(static_cast<int>(wanted[i]));
    }
  }
  if (unknown >= 0) {
    if (known == 0 || elements % known != 0) return false;
    (*out)[unknown] = static_cast<int>(elements / known);
  }
  return ElementCount(*out) == elements && out->size() <= static_cast<size_t>(kMaxRank);
}

bool SqueezeShape(const TfLiteNode* node, const Shape& in, Shape* out) {
  const TfLiteSqueezeParams& p = ParamsOf<TfLiteSqueezeParams>(node);
  std::vector<bool> drop(in.size(), false);
  if (p.num_squeeze_dims == 0) {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  } else {
    for (int k = 0; k < p.num_squeeze_dims && k < 8; ++k) {
      int axis;
      if (!shape_util::NormalizeAxis(p.squeeze_dims[k], static_cast<int>(in.size()), &axis) || in[axis] != 1) {
        return false;
      }
      drop[axis] = true;
    }
  }
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out->push_back(in[i]);
  }
  return true;
}

bool ExpandDimsShape(TfLiteContext* context, const TfLiteNode* node, const Shape& in, Shape* out) {
  if (node->inputs->size < 2 || node->inputs->data[1] < 0) return false;
  const TfLiteTensor& axis_tensor = context->tensors[node->inputs->data[1]];
  if (!IsConstant(axis_tensor) || ElementCount(ShapeOf(&axis_tensor)) != 1) return false;
  int64_t axis = ReadInts(axis_tensor)[0];
  const int rank = static_cast<int>(in.size()) + 1;
  if (axis < -rank || axis >= rank) return false;
  if (axis < 0) axis += rank;
  *out = in;
  out->insert(out->begin() + axis, 1);
  return static_cast<int>(out->size()) <= kMaxRank;
}

// STRIDED_SLICE without ellipsis or new axes: per dimension the start, count and stride taken.
struct Slicing {
  std::vector<int> start, count, stride;
  std::vector<bool> shrink;
};

bool StridedSlicing(TfLiteContext* context, const TfLiteNode* node, const Shape& in, Slicing* s, std::string* why) {
  const TfLiteStridedSliceParams& p = ParamsOf<TfLiteStridedSliceParams>(node);
  if (p.ellipsis_mask != 0 || p.new_axis_mask != 0) {
    *why = "ellipsis or new-axis masks";
    return false;
  }
  const std::vector<int64_t> begin = ReadInts(context->tensors[node->inputs->data[1]]);
  const std::vector<int64_t> end = ReadInts(context->tensors[node->inputs->data[2]]);
  const std::vector<int64_t> strides = ReadInts(context->tensors[node->inputs->data[3]]);
  if (begin.size() != end.size() || begin.size() != strides.size() || begin.size() > in.size()) {
    *why = "begin/end/strides lengths";
    return false;
  }
  const int rank = static_cast<int>(in.size());
  s->start.assign(rank, 0);
  s->count.assign(rank, 0);
  s->stride.assign(rank, 1);
  s->shrink.assign(rank, false);
  for (int i = 0; i < rank; ++i) {
    int64_t b = 0, e = 0, st = 1;
    bool begin_mask = true, end_mask = true;
    if (i < static_cast<int>(begin.size())) {
      b = begin[i];
      e = end[i];
      st = strides[i];
      begin_mask = (p.begin_mask >> i) & 1;
      end_mask = (p.end_mask >> i) & 1;
      s->shrink[i] = (p.shrink_axis_mask >> i) & 1;
    }
    if (st == 0 || st > INT32_MAX || st < INT32_MIN) {
      *why = "stride " + std::to_string(st);
      return false;
    }
    auto clamp32 = [](int64_t v) {
      return static_cast<int>(std::max<int64_t>(std::min<int64_t>(v, INT32_MAX), INT32_MIN));
    };
    const int start = shape_util::StridedSliceStart(clamp32(b), static_cast<int>(st), in[i], begin_mask);
    if (s->shrink[i]) {
      if (start < 0 || start >= in[i]) {
        *why = "shrunk index out of range";
        return false;
      }
      s->start[i] = start;
      s->count[i] = 1;
      s->stride[i] = 1;
      continue;
    }
    const int stop =
        shape_util::StridedSliceStop(clamp32(e), start, static_cast<int>(st), in[i], end_mask, false, p.offset);
    s->start[i] = start;
    s->stride[i] = static_cast<int>(st);
    s->count[i] = shape_util::StridedCount(start, stop, static_cast<int>(st));
    if (s->count[i] <= 0) {
      *why = "empty slice";
      return false;
    }
  }
  return true;
}

// Per group of ops: the support check (partitioning) and the plan (Prepare), paired in one table
// (OpsOf, after the planners) so that what the delegate takes and what it can run cannot drift.
struct GroupOps {
  Group group;
  bool (*check)(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry);
  Status (*plan)(Planner& pl, const TfLiteNode* node, const OpEntry* entry);
};

const GroupOps* OpsOf(Group group);

// ---- Support checks, one per group ---------------------------------------------------------------

bool CheckBinary(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(2, 2, 1) || !c.DataInputsAndOutput(0, 2)) return false;
  Shape out;
  if (!BroadcastShapes(ShapeOf(&c.input(0)), ShapeOf(&c.input(1)), &out)) return c.Fail("inputs do not broadcast");
  return true;
}

bool CheckUnary(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(1, 1, 1) || !c.DataInputsAndOutput(0, 1)) return false;
  if (IsConstant(c.input(0))) return c.Fail("constant input");
  return true;
}

bool StridesAndDilationsPositive(Checker& c, const ConvWindow& w) {
  if (w.stride_w <= 0 || w.stride_h <= 0 || w.dilation_w <= 0 || w.dilation_h <= 0) {
    return c.Fail("stride or dilation below 1");
  }
  return true;
}

bool CheckConv2d(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(2, 3, 1) || !c.DataInputsAndOutput(0, 3)) return false;
  if (!c.Rank(c.input(0), 4, "input") || !c.Rank(c.input(1), 4, "filter")) return false;
  if (c.input(1).dims->data[3] != c.input(0).dims->data[3]) {
    return c.Fail("grouped convolution (filter depth " + std::to_string(c.input(1).dims->data[3]) + ", input depth " +
                  std::to_string(c.input(0).dims->data[3]) + ")");
  }
  if (c.has_input(2) && ElementCount(ShapeOf(&c.input(2))) != c.input(1).dims->data[0]) return c.Fail("bias size");
  return StridesAndDilationsPositive(c, ConvWindowOf(node, /*depthwise=*/false));
}

bool CheckDepthwise(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(2, 3, 1) || !c.DataInputsAndOutput(0, 3)) return false;
  if (!c.Rank(c.input(0), 4, "input") || !c.Rank(c.input(1), 4, "filter")) return false;
  const int in_c = c.input(0).dims->data[3], out_c = c.input(1).dims->data[3];
  if (c.input(1).dims->data[0] != 1 || in_c == 0 || out_c % in_c != 0) return c.Fail("filter shape");
  if (c.has_input(2) && ElementCount(ShapeOf(&c.input(2))) != out_c) return c.Fail("bias size");
  return StridesAndDilationsPositive(c, ConvWindowOf(node, /*depthwise=*/true));
}

bool CheckFullyConnected(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(2, 3, 1) || !c.DataInputsAndOutput(0, 3)) return false;
  const TfLiteFullyConnectedParams& p = ParamsOf<TfLiteFullyConnectedParams>(node);
  if (p.weights_format != kTfLiteFullyConnectedWeightsFormatDefault) return c.Fail("shuffled weights");
  if (!c.Rank(c.input(1), 2, "weights")) return false;
  const int in_c = c.input(1).dims->data[1];
  if (in_c <= 0 || ElementCount(ShapeOf(&c.input(0))) % in_c != 0)
    return c.Fail("input size not a multiple of the weights' depth");
  if (c.has_input(2) && ElementCount(ShapeOf(&c.input(2))) != c.input(1).dims->data[0]) return c.Fail("bias size");
  return true;
}

bool CheckPool(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(1, 1, 1) || !c.DataInputsAndOutput(0, 1) || !c.Rank(c.input(0), 4, "input")) return false;
  const TfLitePoolParams& p = ParamsOf<TfLitePoolParams>(node);
  if (p.stride_width <= 0 || p.stride_height <= 0 || p.filter_width <= 0 || p.filter_height <= 0) {
    return c.Fail("stride or filter below 1");
  }
  return true;
}

bool CheckSoftmax(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(1, 1, 1) || !c.DataInputsAndOutput(0, 1)) return false;
  if (c.input(0).dims->size < 1) return c.Fail("scalar input");
  return true;
}

bool CheckConcat(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (c.num_inputs() < 1 || c.num_outputs() != 1) return c.Fail("inputs/outputs");
  if (!c.DataInputsAndOutput(0, c.num_inputs())) return false;
  const int rank = c.output(0).dims->size;
  int axis = ParamsOf<TfLiteConcatenationParams>(node).axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return c.Fail("axis");
  for (int k = 0; k < c.num_inputs(); ++k) {
    if (!c.has_input(k) || c.input(k).dims->size != rank) return c.Fail("input ranks differ");
  }
  return true;
}

bool CheckReshape(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(1, 2, 1) || !c.Data(c.input(0), "input") || !c.Activation(c.output(0), "output")) return false;
  const Shape in = ShapeOf(&c.input(0));
  Shape out;
  if (entry->op == 0) {
    if (c.has_input(1) && !IsConstant(c.input(1)) && ShapeOf(&c.input(1)).size() == 1) {
      return c.Fail("shape input is not constant");
    }
    if (!ReshapeShape(context, node, ElementCount(in), &out)) return c.Fail("shape");
  } else if (entry->op == 1) {
    if (!SqueezeShape(node, in, &out)) return c.Fail("squeeze dimensions");
  } else {
    if (!c.has_input(1) || !c.ConstInts(c.input(1), "axis")) return false;
    if (!ExpandDimsShape(context, node, in, &out)) return c.Fail("axis");
  }
  return true;
}

bool CheckResize(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(2, 2, 1) || !c.DataInputsAndOutput(0, 1) || !c.Rank(c.input(0), 4, "input")) return false;
  if (!c.ConstInts(c.input(1), "size") || ElementCount(ShapeOf(&c.input(1))) != 2)
    return c.Fail("size is not 2 constants");
  for (int64_t v : ReadInts(c.input(1))) {
    if (v <= 0 || v > (1 << 20)) return c.Fail("size " + std::to_string(v));
  }
  bool align = false, half = false;
  if (entry->op == 0) {
    align = ParamsOf<TfLiteResizeBilinearParams>(node).align_corners;
    half = ParamsOf<TfLiteResizeBilinearParams>(node).half_pixel_centers;
  } else {
    align = ParamsOf<TfLiteResizeNearestNeighborParams>(node).align_corners;
    half = ParamsOf<TfLiteResizeNearestNeighborParams>(node).half_pixel_centers;
  }
  if (align && half) return c.Fail("align_corners with half_pixel_centers");
  return true;
}

bool CheckPad(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(2, entry->op == 1 ? 3 : 2, 1) || !c.DataInputsAndOutput(0, 1)) return false;
  if (!c.ConstInts(c.input(1), "paddings")) return false;
  const int rank = c.input(0).dims->size;
  if (ElementCount(ShapeOf(&c.input(1))) != 2 * rank) return c.Fail("paddings shape");
  for (int64_t v : ReadInts(c.input(1))) {
    if (v < 0 || v > (1 << 24)) return c.Fail("padding " + std::to_string(v));
  }
  if (entry->op == 1 && c.has_input(2)) {
    if (!IsConstant(c.input(2)) || ElementCount(ShapeOf(&c.input(2))) != 1)
      return c.Fail("pad value is not a constant scalar");
    if (!c.Data(c.input(2), "pad value")) return false;
  }
  return true;
}

bool CheckReduce(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(2, 2, 1) || !c.DataInputsAndOutput(0, 1)) return false;
  if (!c.ConstInts(c.input(1), "axes")) return false;
  std::vector<int> axes;
  if (!ReductionAxes(c.input(1), c.input(0).dims->size, &axes)) return c.Fail("axis out of range");
  return true;
}

bool CheckStridedSlice(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(4, 4, 1) || !c.DataInputsAndOutput(0, 1)) return false;
  for (int k = 1; k <= 3; ++k) {
    if (!c.ConstInts(c.input(k), "begin/end/strides")) return false;
  }
  Slicing s;
  std::string reason;
  if (!StridedSlicing(context, node, ShapeOf(&c.input(0)), &s, &reason)) return c.Fail(reason);
  return true;
}

bool CheckSlice(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(3, 3, 1) || !c.DataInputsAndOutput(0, 1)) return false;
  if (!c.ConstInts(c.input(1), "begin") || !c.ConstInts(c.input(2), "size")) return false;
  const Shape in = ShapeOf(&c.input(0));
  const std::vector<int64_t> begin = ReadInts(c.input(1)), size = ReadInts(c.input(2));
  if (begin.size() != in.size() || size.size() != in.size()) return c.Fail("begin/size length");
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t s = size[d] == -1 ? in[d] - begin[d] : size[d];
    if (begin[d] < 0 || s <= 0 || begin[d] + s > in[d]) return c.Fail("slice out of range");
  }
  return true;
}

bool CheckTranspose(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(2, 2, 1) || !c.DataInputsAndOutput(0, 1) || !c.ConstInts(c.input(1), "perm")) return false;
  const std::vector<int64_t> perm = ReadInts(c.input(1));
  const int rank = c.input(0).dims->size;
  if (static_cast<int>(perm.size()) != rank) return c.Fail("perm length");
  std::vector<bool> seen(rank, false);
  for (int64_t v : perm) {
    if (v < 0 || v >= rank || seen[v]) return c.Fail("perm is not a permutation");
    seen[v] = true;
  }
  return true;
}

bool CheckDepthSpace(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(1, 1, 1) || !c.DataInputsAndOutput(0, 1) || !c.Rank(c.input(0), 4, "input")) return false;
  const int block = entry->group == Group::kDepthToSpace ? ParamsOf<TfLiteDepthToSpaceParams>(node).block_size
                                                         : ParamsOf<TfLiteSpaceToDepthParams>(node).block_size;
  if (block < 1) return c.Fail("block size");
  const Shape in = ShapeOf(&c.input(0));
  if (entry->group == Group::kDepthToSpace ? in[3] % (block * block) != 0
                                           : (in[1] % block != 0 || in[2] % block != 0)) {
    return c.Fail("shape not divisible by the block");
  }
  return true;
}

bool CheckTransposeConv(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(3, 4, 1) || !c.DataInputsAndOutput(1, 4)) return false;
  if (!c.ConstInts(c.input(0), "output shape") || ElementCount(ShapeOf(&c.input(0))) != 4)
    return c.Fail("output shape");
  if (!c.Rank(c.input(2), 4, "input") || !c.Rank(c.input(1), 4, "filter")) return false;
  if (c.input(1).dims->data[3] != c.input(2).dims->data[3]) return c.Fail("filter depth");
  const std::vector<int64_t> shape = ReadInts(c.input(0));
  if (shape[0] != c.input(2).dims->data[0] || shape[3] != c.input(1).dims->data[0]) return c.Fail("output shape");
  for (int64_t v : shape) {
    if (v <= 0 || v > (1 << 20)) return c.Fail("output shape");
  }
  if (c.has_input(3) && ElementCount(ShapeOf(&c.input(3))) != shape[3]) return c.Fail("bias size");
  const TfLiteTransposeConvParams& p = ParamsOf<TfLiteTransposeConvParams>(node);
  if (p.stride_width <= 0 || p.stride_height <= 0) return c.Fail("stride below 1");
  return true;
}

bool CheckDequantize(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(1, 1, 1) || c.output(0).type != kTfLiteFloat32) return c.Fail("output is not float32");
  std::string reason;
  if (!ShapeOk(c.output(0), &reason)) return c.Fail(reason);
  // Constants (float16 or quantized weights) are folded at init; activations are already real
  // values on the device.
  if (IsConstant(c.input(0))) return c.Data(c.input(0), "input");
  if (!IsQuantizedType(c.input(0).type)) return c.Fail("input is " + std::string(TfLiteTypeGetName(c.input(0).type)));
  return c.Activation(c.input(0), "input");
}

bool CheckQuantize(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  if (!c.Counts(1, 1, 1) || !c.Activation(c.input(0), "input") || !c.Activation(c.output(0), "output")) return false;
  if (!IsQuantizedType(c.output(0).type)) return c.Fail("output is not quantized");
  return true;
}

bool CheckLstmBasic(Checker& c, TfLiteContext* context, const TfLiteNode* node, const OpEntry* entry) {
  // The basic kernel only (TFLite's GPU delegate takes the same): float32, 5 inputs, 4 outputs.
  if (node->builtin_data == nullptr || ParamsOf<TfLiteLSTMParams>(node).kernel_type != kTfLiteLSTMBasicKernel) {
    return c.Fail("LSTM with the full kernel (only the basic kernel is supported)");
  }
  if (!c.Counts(5, 5, 4)) return false;
  for (int k = 0; k < 5; ++k) {
    if (c.input(k).type != kTfLiteFloat32 || !c.Data(c.input(k), "input")) return c.Fail("input is not float32");
  }
  for (int k = 0; k < 4; ++k) {
    if (c.output(k).type != kTfLiteFloat32 || !c.Activation(c.output(k), "output"))
      return c.Fail("output is not float32");
  }
  if (!c.Rank(c.input(0), 2, "input") || !c.Rank(c.input(1), 2, "prev_activation") ||
      !c.Rank(c.input(2), 2, "weights") || !c.Rank(c.input(4), 2, "prev_state")) {
    return false;
  }
  const int batch = c.input(0).dims->data[0], depth = c.input(1).dims->data[1];
  const int total = c.input(0).dims->data[1] + depth;
  if (c.input(1).dims->data[0] != batch || c.input(2).dims->data[0] != 4 * depth || c.input(2).dims->data[1] != total ||
      ElementCount(ShapeOf(&c.input(3))) != 4 * depth || c.input(4).dims->data[0] != batch ||
      c.input(4).dims->data[1] != depth) {
    return c.Fail("shapes do not fit");
  }
  return true;
}

bool SupportedImpl(TfLiteContext* context, const TfLiteNode* node, const TfLiteRegistration* registration,
                   const OpSettings& settings, std::string* why) {
  const int code = registration->builtin_code;
  const OpEntry* entry = FindOp(code);
  if (entry == nullptr || (registration->custom_name != nullptr && code == kTfLiteBuiltinCustom)) {
    *why = "op not supported";
    return false;
  }
  Checker c(context, node, settings, why);
  // A node that reads its own output (a damaged graph) is left to the interpreter to refuse.
  for (int o = 0; o < node->outputs->size; ++o) {
    for (int i = 0; i < node->inputs->size; ++i) {
      if (node->outputs->data[o] >= 0 && node->outputs->data[o] == node->inputs->data[i]) {
        return c.Fail("output tensor " + std::to_string(node->outputs->data[o]) + " is also an input");
      }
    }
  }
  if (!c.Activation(FusedActivation(code, node))) return false;
  const GroupOps* ops = OpsOf(entry->group);
  return ops != nullptr ? ops->check(c, context, node, entry) : c.Fail("op not supported");
}

// ---- Planning -------------------------------------------------------------------------------------

// Push constants, built word by word.
class Push {
 public:
  Push& U(uint32_t v) {
    words_.push_back(v);
    return *this;
  }
  Push& I(int32_t v) { return U(static_cast<uint32_t>(v)); }
  Push& F(float v) {
    uint32_t w;
    std::memcpy(&w, &v, 4);
    return U(w);
  }
  std::vector<uint32_t> Take() { return std::move(words_); }

 private:
  std::vector<uint32_t> words_;
};

// Emits one dispatch of `shader` that writes value `output` from `inputs` (bindings 1 on; -1: unused)
// over `work_items` items, with the push constants gathered in `push`.
Status EmitDispatch(Planner& planner, ShaderId shader, int output, std::initializer_list<int> inputs, Push* push,
                    uint64_t work_items) {
  Dispatch d;
  d.shader = shader;
  d.output = output;
  std::copy(inputs.begin(), inputs.end(), d.inputs.begin());
  d.push = push->Take();
  d.work_items = work_items;
  planner.Emit(std::move(d));
  return Status::Ok();
}

// The value of the node's input `index`, or -1 when the node has no such input (an omitted bias).
StatusOr<int> OptionalInputValue(Planner& planner, const TfLiteNode* node, int index) {
  if (node->inputs->size <= index || node->inputs->data[index] < 0) return -1;
  return planner.InputValue(node->inputs->data[index]);
}

// COMMON_PARAMS of shaders/common.glsl for a dispatch writing `out` clamped to [lo, hi], or to
// `activation`'s range.
Push Common(const Value& out, float lo, float hi, uint64_t total) {
  Push p;
  p.F(lo).F(hi).F(out.q_scale).F(out.q_lo).F(out.q_hi).U(static_cast<uint32_t>(total));
  return p;
}

Push Common(const Value& out, TfLiteFusedActivation activation, uint64_t total) {
  float lo, hi;
  tflite::CalculateActivationRange(activation, &lo, &hi);
  return Common(out, lo, hi, total);
}

// Row-major strides of `shape` aligned to the last `rank` dimensions, 0 along size-1 dimensions
// (broadcast).
std::vector<uint32_t> BroadcastStrides(const Shape& shape, int rank) {
  std::vector<uint32_t> strides(rank, 0);
  uint32_t stride = 1;
  const int r = static_cast<int>(shape.size());
  for (int i = rank - 1; i >= 0; --i) {
    const int d = i - (rank - r);
    const int size = d >= 0 ? shape[d] : 1;
    strides[i] = size == 1 ? 0 : stride;
    stride *= static_cast<uint32_t>(size);
  }
  return strides;
}

// A strided copy (shaders/copy.comp) over a region of up to kMaxRank dimensions.
struct CopyRegion {
  std::vector<int> dims;
  std::vector<int64_t> src_stride, dst_stride;
  int64_t src_offset = 0, dst_offset = 0;
};

Status EmitCopy(Planner& planner, int input, int output, CopyRegion region, TfLiteFusedActivation activation,
                bool fill = false, float fill_value = 0.0f) {
  // Pad to kMaxRank leading dimensions of size 1.
  while (static_cast<int>(region.dims.size()) < kMaxRank) {
    region.dims.insert(region.dims.begin(), 1);
    region.src_stride.insert(region.src_stride.begin(), 0);
    region.dst_stride.insert(region.dst_stride.begin(), 0);
  }
  if (static_cast<int>(region.dims.size()) > kMaxRank) return ExecutionError("copy of rank above 6");
  const uint64_t total = static_cast<uint64_t>(ElementCount(region.dims));
  Push p = Common(planner.value(output), activation, total);
  p.U(fill ? 1 : 0)
      .F(fill_value)
      .U(static_cast<uint32_t>(region.src_offset))
      .U(static_cast<uint32_t>(region.dst_offset));
  for (int d : region.dims) p.U(static_cast<uint32_t>(d));
  for (int64_t s : region.src_stride) p.U(static_cast<uint32_t>(s));  // negative strides wrap, as intended
  for (int64_t s : region.dst_stride) p.U(static_cast<uint32_t>(s));
  return EmitDispatch(planner, ShaderId::kCopy, output, {fill ? -1 : input}, &p, total);
}

std::vector<int64_t> Strides(const Shape& shape) { return shape_util::RowMajorStrides(shape); }

Status Fail(const std::string& m) { return ExecutionError(m); }

Status PlanBinary(Planner& pl, const TfLiteNode* node, int code, uint32_t op) {
  TS_ASSIGN_OR_RETURN(int a, pl.InputValue(node->inputs->data[0]));
  TS_ASSIGN_OR_RETURN(int b, pl.InputValue(node->inputs->data[1]));
  Shape out_shape;
  if (!BroadcastShapes(pl.shape(a), pl.shape(b), &out_shape)) {
    return Fail("inputs " + ShapeString(pl.shape(a)) + " and " + ShapeString(pl.shape(b)) + " do not broadcast");
  }
  if (out_shape.size() > static_cast<size_t>(kMaxRank)) return Fail("rank above 6");
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const uint64_t total = static_cast<uint64_t>(ElementCount(out_shape));
  Push p = Common(pl.value(out), FusedActivation(code, node), total);
  p.U(op);
  Shape dims = out_shape;
  while (static_cast<int>(dims.size()) < kMaxRank) dims.insert(dims.begin(), 1);
  for (int d : dims) p.U(static_cast<uint32_t>(d));
  for (uint32_t s : BroadcastStrides(pl.shape(a), kMaxRank)) p.U(s);
  for (uint32_t s : BroadcastStrides(pl.shape(b), kMaxRank)) p.U(s);
  return EmitDispatch(pl, ShaderId::kBinary, out, {a, b}, &p, total);
}

Status PlanUnary(Planner& pl, const TfLiteNode* node, int code, uint32_t op) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape shape = pl.shape(in);
  const int out = pl.OutputValue(node->outputs->data[0], shape);
  float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  float alpha = 0.0f;
  switch (code) {
    case kTfLiteBuiltinRelu:
      lo = 0.0f;
      break;
    case kTfLiteBuiltinRelu6:
      lo = 0.0f;
      hi = 6.0f;
      break;
    case kTfLiteBuiltinReluN1To1:
      lo = -1.0f;
      hi = 1.0f;
      break;
    case kTfLiteBuiltinRelu0To1:
      lo = 0.0f;
      hi = 1.0f;
      break;
    case kTfLiteBuiltinLeakyRelu:
      alpha = ParamsOf<TfLiteLeakyReluParams>(node).alpha;
      break;
    default:
      break;
  }
  const uint64_t total = static_cast<uint64_t>(ElementCount(shape));
  Push p = Common(pl.value(out), lo, hi, total);
  p.U(op).F(alpha);
  return EmitDispatch(pl, ShaderId::kUnary, out, {in}, &p, total);
}

// The identity (or a regrid onto the output's quantization): QUANTIZE, DEQUANTIZE of activations,
// reshapes between different grids.
Status PlanCopyAll(Planner& pl, int in, int out) {
  const uint64_t total = static_cast<uint64_t>(ElementCount(pl.shape(in)));
  Push p = Common(pl.value(out), kTfLiteActNone, total);
  p.U(kUnaryCopy).F(0.0f);
  return EmitDispatch(pl, ShaderId::kUnary, out, {in}, &p, total);
}

Status PlanConv(Planner& pl, const TfLiteNode* node, bool depthwise) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  TS_ASSIGN_OR_RETURN(int filter, pl.InputValue(node->inputs->data[1]));
  TS_ASSIGN_OR_RETURN(int bias, OptionalInputValue(pl, node, 2));
  const Shape is = pl.shape(in);
  const Shape fs = pl.shape(filter);
  if (is.size() != 4 || fs.size() != 4) return Fail("input or filter is not 4-D");
  const ConvWindow w = ConvWindowOf(node, depthwise);
  const int kernel_h = fs[1], kernel_w = fs[2];
  const int out_c = depthwise ? fs[3] : fs[0];
  if (is[3] <= 0) return Fail("input " + ShapeString(is) + " has no channels");
  if (depthwise ? (out_c % is[3] != 0) : (fs[3] != is[3]))
    return Fail("filter " + ShapeString(fs) + " does not fit input " + ShapeString(is));
  int out_h = 0, out_w = 0;
  const TfLitePaddingValues pad = nn::ComputePaddingHeightWidth(
      w.stride_h, w.stride_w, w.dilation_h, w.dilation_w, is[1], is[2], kernel_h, kernel_w, w.padding, &out_h, &out_w);
  if (out_h <= 0 || out_w <= 0)
    return Fail("empty output (" + std::to_string(out_h) + "x" + std::to_string(out_w) + ")");
  const Shape out_shape = {is[0], out_h, out_w, out_c};
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  // Both shaders take 4 output pixels along x per work item; CONV_2D also 8 output channels.
  const uint64_t total =
      static_cast<uint64_t>(is[0]) * out_h * ((out_w + 3) / 4) * (depthwise ? out_c : (out_c + 7) / 8);
  Push p = Common(pl.value(out), w.activation, total);
  p.U(is[1]).U(is[2]).U(is[3]).U(out_h).U(out_w).U(out_c).U(kernel_h).U(kernel_w).U(w.stride_h).U(w.stride_w);
  p.U(w.dilation_h).U(w.dilation_w).I(pad.height).I(pad.width).U(bias >= 0 ? 1 : 0);
  if (depthwise) p.U(static_cast<uint32_t>(out_c / is[3]));
  return EmitDispatch(pl, depthwise ? ShaderId::kDepthwiseConv2d : ShaderId::kConv2d, out, {in, filter, bias}, &p,
                      total);
}

Status PlanFullyConnected(Planner& pl, const TfLiteNode* node) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  TS_ASSIGN_OR_RETURN(int weights, pl.InputValue(node->inputs->data[1]));
  TS_ASSIGN_OR_RETURN(int bias, OptionalInputValue(pl, node, 2));
  const TfLiteFullyConnectedParams& params = ParamsOf<TfLiteFullyConnectedParams>(node);
  const Shape is = pl.shape(in);
  const Shape ws = pl.shape(weights);
  if (ws.size() != 2) return Fail("weights are not 2-D");
  const int out_c = ws[0], in_c = ws[1];
  const int64_t n = ElementCount(is);
  if (in_c <= 0 || n % in_c != 0) return Fail("input " + ShapeString(is) + " does not fit weights " + ShapeString(ws));
  const int batches = static_cast<int>(n / in_c);
  Shape out_shape;
  if (params.keep_num_dims) {
    if (is.empty() || is.back() != in_c)
      return Fail("keep_num_dims with input depth " + std::to_string(is.empty() ? 0 : is.back()));
    out_shape = is;
    out_shape.back() = out_c;
  } else {
    out_shape = {batches, out_c};
  }
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const uint64_t total = static_cast<uint64_t>(batches) * out_c;
  Push p = Common(pl.value(out), params.activation, total);
  p.U(in_c).U(out_c).U(bias >= 0 ? 1 : 0);
  return EmitDispatch(pl, ShaderId::kFullyConnected, out, {in, weights, bias}, &p, total);
}

Status PlanPool(Planner& pl, const TfLiteNode* node, uint32_t op) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  if (is.size() != 4) return Fail("input is not 4-D");
  const TfLitePoolParams& params = ParamsOf<TfLitePoolParams>(node);
  int out_h = 0, out_w = 0;
  const TfLitePaddingValues pad =
      nn::ComputePaddingHeightWidth(params.stride_height, params.stride_width, 1, 1, is[1], is[2], params.filter_height,
                                    params.filter_width, params.padding, &out_h, &out_w);
  if (out_h <= 0 || out_w <= 0) return Fail("empty output");
  const Shape out_shape = {is[0], out_h, out_w, is[3]};
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const uint64_t total = static_cast<uint64_t>(ElementCount(out_shape));
  Push p = Common(pl.value(out), params.activation, total);
  p.U(is[1]).U(is[2]).U(is[3]).U(out_h).U(out_w).U(params.filter_height).U(params.filter_width);
  p.U(params.stride_height).U(params.stride_width).I(pad.height).I(pad.width).U(op);
  return EmitDispatch(pl, ShaderId::kPool2d, out, {in}, &p, total);
}

Status PlanSoftmax(Planner& pl, const TfLiteNode* node, uint32_t op) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape shape = pl.shape(in);
  if (shape.empty()) return Fail("scalar input");
  const int out = pl.OutputValue(node->outputs->data[0], shape);
  const int depth = shape.back();
  const uint64_t rows = depth > 0 ? static_cast<uint64_t>(ElementCount(shape) / depth) : 0;
  const float beta = op == 0 ? ParamsOf<TfLiteSoftmaxParams>(node).beta : 1.0f;
  Push p = Common(pl.value(out), kTfLiteActNone, rows);
  p.U(depth).F(beta).U(op);
  return EmitDispatch(pl, ShaderId::kSoftmax, out, {in}, &p, rows);
}

Status PlanConcat(Planner& pl, const TfLiteNode* node) {
  const TfLiteConcatenationParams& params = ParamsOf<TfLiteConcatenationParams>(node);
  std::vector<int> inputs;
  for (int k = 0; k < node->inputs->size; ++k) {
    TS_ASSIGN_OR_RETURN(int v, pl.InputValue(node->inputs->data[k]));
    inputs.push_back(v);
  }
  Shape out_shape = pl.shape(inputs[0]);
  const int rank = static_cast<int>(out_shape.size());
  int axis = params.axis < 0 ? params.axis + rank : params.axis;
  if (axis < 0 || axis >= rank) return Fail("axis " + std::to_string(params.axis));
  out_shape[axis] = 0;
  for (int v : inputs) {
    const Shape s = pl.shape(v);
    if (static_cast<int>(s.size()) != rank) return Fail("input ranks differ");
    for (int d = 0; d < rank; ++d) {
      if (d != axis && s[d] != pl.shape(inputs[0])[d]) return Fail("input shapes differ outside the axis");
    }
    out_shape[axis] += s[axis];
  }
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const std::vector<int64_t> dst_strides = Strides(out_shape);
  int64_t offset = 0;
  for (int v : inputs) {
    CopyRegion r;
    r.dims = pl.shape(v);
    r.src_stride = Strides(r.dims);
    r.dst_stride = dst_strides;
    r.dst_offset = offset * dst_strides[axis];
    TS_RETURN_IF_ERROR(EmitCopy(pl, v, out, r, params.activation));
    offset += pl.shape(v)[axis];
  }
  return Status::Ok();
}

Status PlanReshape(Planner& pl, const TfLiteNode* node, uint32_t kind) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape in_shape = pl.shape(in);
  Shape out_shape;
  bool ok = false;
  if (kind == 0) ok = ReshapeShape(pl.context(), node, ElementCount(in_shape), &out_shape);
  if (kind == 1) ok = SqueezeShape(node, in_shape, &out_shape);
  if (kind == 2) ok = ExpandDimsShape(pl.context(), node, in_shape, &out_shape);
  if (!ok) return Fail("cannot reshape " + ShapeString(in_shape));
  const int out_tensor = node->outputs->data[0];
  QuantGrid out_grid;
  const bool in_q = pl.value(in).q_scale > 0.0f;
  const bool out_q = ActivationGrid(pl.tensor(out_tensor), &out_grid);
  if (in_q == out_q && (!out_q || (pl.value(in).q_scale == out_grid.scale &&
                                   pl.value(in).q_lo == static_cast<float>(out_grid.q_min - out_grid.zero_point) &&
                                   pl.value(in).q_hi == static_cast<float>(out_grid.q_max - out_grid.zero_point)))) {
    pl.AliasOutput(out_tensor, in, out_shape);
    return Status::Ok();
  }
  const int out = pl.OutputValue(out_tensor, out_shape);
  return PlanCopyAll(pl, in, out);
}

Status PlanResize(Planner& pl, const TfLiteNode* node, uint32_t op) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  if (is.size() != 4) return Fail("input is not 4-D");
  const std::vector<int64_t> size = ReadInts(pl.tensor(node->inputs->data[1]));
  const int out_h = static_cast<int>(size[0]), out_w = static_cast<int>(size[1]);
  bool align, half;
  if (op == 0) {
    align = ParamsOf<TfLiteResizeBilinearParams>(node).align_corners;
    half = ParamsOf<TfLiteResizeBilinearParams>(node).half_pixel_centers;
  } else {
    align = ParamsOf<TfLiteResizeNearestNeighborParams>(node).align_corners;
    half = ParamsOf<TfLiteResizeNearestNeighborParams>(node).half_pixel_centers;
  }
  auto scale = [align](int in_size, int out_size) {
    if (align && out_size > 1) return static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1);
    return static_cast<float>(in_size) / static_cast<float>(out_size);
  };
  const Shape out_shape = {is[0], out_h, out_w, is[3]};
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const uint64_t total = static_cast<uint64_t>(ElementCount(out_shape));
  Push p = Common(pl.value(out), kTfLiteActNone, total);
  p.U(is[1]).U(is[2]).U(is[3]).U(out_h).U(out_w).F(scale(is[1], out_h)).F(scale(is[2], out_w));
  p.U(half ? 1 : 0).U(align ? 1 : 0).U(op);
  return EmitDispatch(pl, ShaderId::kResize, out, {in}, &p, total);
}

Status PlanPad(Planner& pl, const TfLiteNode* node) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  const std::vector<int64_t> pads = ReadInts(pl.tensor(node->inputs->data[1]));
  if (pads.size() != 2 * is.size()) return Fail("paddings do not match the input's rank");
  float value = 0.0f;
  if (node->inputs->size > 2 && node->inputs->data[2] >= 0) {
    TS_ASSIGN_OR_RETURN(std::vector<float> v, TensorAsFloat(pl.tensor(node->inputs->data[2])));
    value = v[0];
  }
  Shape out_shape = is;
  for (size_t d = 0; d < is.size(); ++d) out_shape[d] += static_cast<int>(pads[2 * d] + pads[2 * d + 1]);
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  CopyRegion fill;
  fill.dims = out_shape;
  fill.src_stride.assign(out_shape.size(), 0);
  fill.dst_stride = Strides(out_shape);
  TS_RETURN_IF_ERROR(EmitCopy(pl, -1, out, fill, kTfLiteActNone, /*fill=*/true, value));
  CopyRegion inner;
  inner.dims = is;
  inner.src_stride = Strides(is);
  inner.dst_stride = Strides(out_shape);
  for (size_t d = 0; d < is.size(); ++d) inner.dst_offset += pads[2 * d] * inner.dst_stride[d];
  return EmitCopy(pl, in, out, inner, kTfLiteActNone);
}

Status PlanReduce(Planner& pl, const TfLiteNode* node, uint32_t kind) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  std::vector<int> axes;
  if (!ReductionAxes(pl.tensor(node->inputs->data[1]), static_cast<int>(is.size()), &axes)) {
    return Fail("axis out of range");
  }
  const bool keep_dims = ParamsOf<TfLiteReducerParams>(node).keep_dims;
  Shape out_shape;
  for (size_t d = 0; d < is.size(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int>(d)) != axes.end();
    if (!reduced)
      out_shape.push_back(is[d]);
    else if (keep_dims)
      out_shape.push_back(1);
  }
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  // Runs of consecutive axes, one dispatch each.
  std::vector<std::pair<int, int>> runs;  // [first, last]
  for (int a : axes) {
    if (!runs.empty() && runs.back().second == a - 1) {
      runs.back().second = a;
    } else {
      runs.emplace_back(a, a);
    }
  }
  const uint32_t op = kind == 0 || kind == 1 ? 0 : (kind == 2 ? 1 : (kind == 3 ? 2 : 3));
  if (runs.empty()) return PlanCopyAll(pl, in, out);
  Shape current = is;
  int source = in;
  for (size_t r = 0; r < runs.size(); ++r) {
    const int first = runs[r].first, last = runs[r].second;
    const int64_t outer = shape_util::ProductOfDims(current, 0, first);
    const int64_t reduce = shape_util::ProductOfDims(current, first, last + 1);
    const int64_t inner = shape_util::ProductOfDims(current, last + 1, static_cast<int>(current.size()));
    Shape next = current;
    for (int d = first; d <= last; ++d) next[d] = 1;
    const bool final_pass = r + 1 == runs.size();
    const int target = final_pass ? out : pl.Temporary(next);
    const uint64_t total = static_cast<uint64_t>(outer * inner);
    Push p = Common(pl.value(target), kTfLiteActNone, total);
    p.U(static_cast<uint32_t>(reduce))
        .U(static_cast<uint32_t>(inner))
        .U(op)
        .F(kind == 0 ? static_cast<float>(reduce) : 1.0f);
    EmitDispatch(pl, ShaderId::kReduce, target, {source}, &p, total);
    current = next;
    source = target;
  }
  return Status::Ok();
}

Status PlanStridedSlice(Planner& pl, const TfLiteNode* node) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  Slicing s;
  std::string why;
  if (!StridedSlicing(pl.context(), node, is, &s, &why)) return Fail(why);
  Shape out_shape;
  for (size_t d = 0; d < is.size(); ++d) {
    if (!s.shrink[d]) out_shape.push_back(s.count[d]);
  }
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const std::vector<int64_t> in_strides = Strides(is);
  CopyRegion r;
  r.dims = s.count;
  r.dst_stride = Strides(s.count);
  for (size_t d = 0; d < is.size(); ++d) {
    r.src_offset += static_cast<int64_t>(s.start[d]) * in_strides[d];
    r.src_stride.push_back(static_cast<int64_t>(s.stride[d]) * in_strides[d]);
  }
  return EmitCopy(pl, in, out, r, kTfLiteActNone);
}

Status PlanSlice(Planner& pl, const TfLiteNode* node) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  const std::vector<int64_t> begin = ReadInts(pl.tensor(node->inputs->data[1]));
  const std::vector<int64_t> size = ReadInts(pl.tensor(node->inputs->data[2]));
  if (begin.size() != is.size() || size.size() != is.size()) return Fail("begin/size length");
  Shape out_shape;
  for (size_t d = 0; d < is.size(); ++d) {
    const int64_t n = size[d] == -1 ? is[d] - begin[d] : size[d];
    if (begin[d] < 0 || n <= 0 || begin[d] + n > is[d]) return Fail("slice out of range");
    out_shape.push_back(static_cast<int>(n));
  }
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const std::vector<int64_t> in_strides = Strides(is);
  CopyRegion r;
  r.dims = out_shape;
  r.src_stride = in_strides;
  r.dst_stride = Strides(out_shape);
  for (size_t d = 0; d < is.size(); ++d) r.src_offset += begin[d] * in_strides[d];
  return EmitCopy(pl, in, out, r, kTfLiteActNone);
}

Status PlanTranspose(Planner& pl, const TfLiteNode* node) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  const std::vector<int64_t> perm = ReadInts(pl.tensor(node->inputs->data[1]));
  if (perm.size() != is.size()) return Fail("perm length");
  Shape out_shape;
  for (int64_t p : perm) out_shape.push_back(is[p]);
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const std::vector<int64_t> in_strides = Strides(is);
  CopyRegion r;
  r.dims = out_shape;
  r.dst_stride = Strides(out_shape);
  for (int64_t p : perm) r.src_stride.push_back(in_strides[p]);
  return EmitCopy(pl, in, out, r, kTfLiteActNone);
}

Status PlanDepthSpace(Planner& pl, const TfLiteNode* node, bool to_space) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  const int b = to_space ? ParamsOf<TfLiteDepthToSpaceParams>(node).block_size
                         : ParamsOf<TfLiteSpaceToDepthParams>(node).block_size;
  // The space side [N, H*b, W*b, C] and the depth side [N, H, W, b*b*C], viewed as 6-D
  // [N, H, b_y, W, b_x, C] for the copy.
  const int n = is[0];
  int h, w, c;
  if (to_space) {
    h = is[1], w = is[2], c = is[3] / (b * b);
  } else {
    h = is[1] / b, w = is[2] / b, c = is[3];
  }
  const Shape space = {n, h * b, w * b, c};
  const Shape depth = {n, h, w, b * b * c};
  const int out = pl.OutputValue(node->outputs->data[0], to_space ? space : depth);
  // Strides of the 6-D view over each layout.
  const std::vector<int64_t> space_strides = {
      int64_t{h} * b * w * b * c, int64_t{b} * w * b * c, int64_t{w} * b * c, int64_t{b} * c, c, 1};
  const std::vector<int64_t> depth_strides = {
      int64_t{h} * w * b * b * c, int64_t{w} * b * b * c, int64_t{b} * c, int64_t{b} * b * c, c, 1};
  CopyRegion r;
  r.dims = {n, h, b, w, b, c};
  r.src_stride = to_space ? depth_strides : space_strides;
  r.dst_stride = to_space ? space_strides : depth_strides;
  return EmitCopy(pl, in, out, r, kTfLiteActNone);
}

Status PlanTransposeConv(Planner& pl, const TfLiteNode* node) {
  TS_ASSIGN_OR_RETURN(int filter, pl.InputValue(node->inputs->data[1]));
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[2]));
  TS_ASSIGN_OR_RETURN(int bias, OptionalInputValue(pl, node, 3));
  const TfLiteTransposeConvParams& params = ParamsOf<TfLiteTransposeConvParams>(node);
  const std::vector<int64_t> os = ReadInts(pl.tensor(node->inputs->data[0]));
  const Shape is = pl.shape(in);
  const Shape fs = pl.shape(filter);
  if (os.size() != 4 || is.size() != 4 || fs.size() != 4 || fs[3] != is[3] || os[3] != fs[0] || os[0] != is[0]) {
    return Fail("shapes do not fit");
  }
  const Shape out_shape = {static_cast<int>(os[0]), static_cast<int>(os[1]), static_cast<int>(os[2]),
                           static_cast<int>(os[3])};
  int unused_h, unused_w;
  const TfLitePaddingValues pad =
      nn::ComputePaddingHeightWidth(params.stride_height, params.stride_width, 1, 1, out_shape[1], out_shape[2], fs[1],
                                    fs[2], params.padding, &unused_h, &unused_w);
  const int out = pl.OutputValue(node->outputs->data[0], out_shape);
  const uint64_t total = static_cast<uint64_t>(ElementCount(out_shape));
  Push p = Common(pl.value(out), params.activation, total);
  p.U(is[1]).U(is[2]).U(is[3]).U(out_shape[1]).U(out_shape[2]).U(out_shape[3]).U(fs[1]).U(fs[2]);
  p.U(params.stride_height).U(params.stride_width).I(pad.height).I(pad.width).U(bias >= 0 ? 1 : 0);
  return EmitDispatch(pl, ShaderId::kTransposeConv, out, {in, filter, bias}, &p, total);
}

Status PlanDequantize(Planner& pl, const TfLiteNode* node) {
  const int in_tensor = node->inputs->data[0];
  const TfLiteTensor& t = pl.tensor(in_tensor);
  if (IsConstant(t)) {
    TS_ASSIGN_OR_RETURN(std::vector<float> data, TensorAsFloat(t));
    pl.ConstantOutput(node->outputs->data[0], std::move(data));
    return Status::Ok();
  }
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(in_tensor));
  // The device already holds real values; the output is the same numbers off the grid.
  pl.AliasOutput(node->outputs->data[0], in, pl.shape(in));
  return Status::Ok();
}

// TFLite's basic LSTM cell: concat_temp = [input, prev_activation]; activation_temp (the gates) =
// concat_temp x weights^T + biases; then the new state and the activation from the gates.
Status PlanLstmBasic(Planner& pl, const TfLiteNode* node) {
  TS_ASSIGN_OR_RETURN(int input, pl.InputValue(node->inputs->data[0]));
  TS_ASSIGN_OR_RETURN(int prev_activation, pl.InputValue(node->inputs->data[1]));
  TS_ASSIGN_OR_RETURN(int weights, pl.InputValue(node->inputs->data[2]));
  TS_ASSIGN_OR_RETURN(int biases, pl.InputValue(node->inputs->data[3]));
  TS_ASSIGN_OR_RETURN(int prev_state, pl.InputValue(node->inputs->data[4]));
  const Shape is = pl.shape(input), ps = pl.shape(prev_activation);
  if (is.size() != 2 || ps.size() != 2 || ps[0] != is[0]) return Fail("input shapes");
  const int batch = is[0], input_depth = is[1], depth = ps[1], total = input_depth + depth;
  if (pl.shape(weights) != Shape{4 * depth, total} || ElementCount(pl.shape(biases)) != 4 * depth ||
      pl.shape(prev_state) != Shape{batch, depth}) {
    return Fail("weights, biases or state do not fit");
  }
  const int activation = pl.OutputValue(node->outputs->data[0], {batch, depth});
  const int state = pl.OutputValue(node->outputs->data[1], {batch, depth});
  const int concat = pl.OutputValue(node->outputs->data[2], {batch, total});
  const int gates = pl.OutputValue(node->outputs->data[3], {batch, 4 * depth});
  const std::vector<int64_t> concat_strides = Strides({batch, total});
  CopyRegion left;
  left.dims = {batch, input_depth};
  left.src_stride = Strides(left.dims);
  left.dst_stride = concat_strides;
  TS_RETURN_IF_ERROR(EmitCopy(pl, input, concat, left, kTfLiteActNone));
  CopyRegion right;
  right.dims = {batch, depth};
  right.src_stride = Strides(right.dims);
  right.dst_stride = concat_strides;
  right.dst_offset = input_depth;
  TS_RETURN_IF_ERROR(EmitCopy(pl, prev_activation, concat, right, kTfLiteActNone));
  {
    const uint64_t total_items = static_cast<uint64_t>(batch) * 4 * depth;
    Push p = Common(pl.value(gates), kTfLiteActNone, total_items);
    p.U(total).U(4 * depth).U(1);
    EmitDispatch(pl, ShaderId::kFullyConnected, gates, {concat, weights, biases}, &p, total_items);
  }
  for (uint32_t op : {0u, 1u}) {
    const int out = op == 0 ? state : activation;
    const uint64_t items = static_cast<uint64_t>(batch) * depth;
    Push p = Common(pl.value(out), kTfLiteActNone, items);
    p.U(depth).U(op);
    EmitDispatch(pl, ShaderId::kLstm, out, {gates, op == 0 ? prev_state : state}, &p, items);
  }
  return Status::Ok();
}

Status PlanQuantize(Planner& pl, const TfLiteNode* node) {
  TS_ASSIGN_OR_RETURN(int in, pl.InputValue(node->inputs->data[0]));
  const int out = pl.OutputValue(node->outputs->data[0], pl.shape(in));
  return PlanCopyAll(pl, in, out);
}

const GroupOps* OpsOf(Group group) {
  static const GroupOps kGroupOps[] = {
      {Group::kBinary, CheckBinary,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanBinary(pl, node, e->code, e->op); }},
      {Group::kUnary, CheckUnary,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanUnary(pl, node, e->code, e->op); }},
      {Group::kConv2d, CheckConv2d,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanConv(pl, node, false); }},
      {Group::kDepthwise, CheckDepthwise,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanConv(pl, node, true); }},
      {Group::kFullyConnected, CheckFullyConnected,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanFullyConnected(pl, node); }},
      {Group::kPool, CheckPool,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanPool(pl, node, e->op); }},
      {Group::kSoftmax, CheckSoftmax,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanSoftmax(pl, node, e->op); }},
      {Group::kConcat, CheckConcat,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanConcat(pl, node); }},
      {Group::kReshape, CheckReshape,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanReshape(pl, node, e->op); }},
      {Group::kResize, CheckResize,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanResize(pl, node, e->op); }},
      {Group::kPad, CheckPad, [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanPad(pl, node); }},
      {Group::kReduce, CheckReduce,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanReduce(pl, node, e->op); }},
      {Group::kStridedSlice, CheckStridedSlice,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanStridedSlice(pl, node); }},
      {Group::kSlice, CheckSlice,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanSlice(pl, node); }},
      {Group::kTranspose, CheckTranspose,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanTranspose(pl, node); }},
      {Group::kDepthToSpace, CheckDepthSpace,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanDepthSpace(pl, node, true); }},
      {Group::kSpaceToDepth, CheckDepthSpace,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanDepthSpace(pl, node, false); }},
      {Group::kTransposeConv, CheckTransposeConv,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanTransposeConv(pl, node); }},
      {Group::kDequantize, CheckDequantize,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanDequantize(pl, node); }},
      {Group::kQuantize, CheckQuantize,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanQuantize(pl, node); }},
      {Group::kLstmBasic, CheckLstmBasic,
       [](Planner& pl, const TfLiteNode* node, const OpEntry* e) { return PlanLstmBasic(pl, node); }},
  };
  for (const GroupOps& ops : kGroupOps) {
    if (ops.group == group) return &ops;
  }
  return nullptr;
}

}  // namespace

// ---- Public ---------------------------------------------------------------------------------------

bool IsNodeSupported(TfLiteContext* context, const TfLiteNode* node, const TfLiteRegistration* registration,
                     const OpSettings& settings, std::string* why) {
  std::string reason;
  const bool ok = SupportedImpl(context, node, registration, settings, &reason);
  if (why != nullptr) *why = reason;
  return ok;
}

const std::vector<int>& SupportedBuiltinCodes() {
  static const std::vector<int>* const codes = [] {
    auto* v = new std::vector<int>;
    for (const OpEntry& e : OpTable()) v->push_back(e.code);
    return v;
  }();
  return *codes;
}

bool ActivationGrid(const TfLiteTensor& tensor, QuantGrid* grid) {
  if (!IsQuantizedType(tensor.type)) return false;
  const TfLiteAffineQuantization* q = AffineQuantization(&tensor);
  if (q == nullptr) return false;
  grid->scale = q->scale->data[0];
  grid->zero_point = q->zero_point != nullptr && q->zero_point->size > 0 ? q->zero_point->data[0] : 0;
  switch (tensor.type) {
    case kTfLiteUInt8:
      grid->q_min = 0, grid->q_max = 255;
      break;
    case kTfLiteInt8:
      grid->q_min = -128, grid->q_max = 127;
      break;
    default:
      grid->q_min = -32768, grid->q_max = 32767;
      break;
  }
  return true;
}

StatusOr<std::vector<float>> TensorAsFloat(const TfLiteTensor& t) {
  const int64_t n = ElementCount(ShapeOf(&t));
  std::vector<float> out(static_cast<size_t>(n));
  if (t.data.raw == nullptr && n > 0)
    return ExecutionError(std::string("tensor '") + (t.name ? t.name : "") + "' has no data");
  switch (t.type) {
    case kTfLiteFloat32:
      std::memcpy(out.data(), t.data.f, static_cast<size_t>(n) * 4);
      return out;
    case kTfLiteFloat16:
      for (int64_t i = 0; i < n; ++i) out[i] = float16::HalfToFloat(t.data.f16[i].data);
      return out;
    default:
      break;
  }
  const TfLiteAffineQuantization* q = AffineQuantization(&t);
  if (q == nullptr) {
    return ExecutionError(std::string("tensor '") + (t.name ? t.name : "") + "' (" + TfLiteTypeGetName(t.type) +
                          ") has no scale");
  }
  // Channel of element i along the quantized dimension (per-tensor: channel 0).
  const Shape dims = ShapeOf(&t);
  int64_t inner = 1;
  int channels = 1;
  if (q->scale->size > 1) {
    const int dim = q->quantized_dimension;
    for (size_t d = dim + 1; d < dims.size(); ++d) inner *= dims[d];
    channels = dims[dim];
  }
  auto channel_of = [&](int64_t i) { return channels == 1 ? 0 : static_cast<int>((i / inner) % channels); };
  auto scale_of = [&](int c) { return q->scale->data[q->scale->size == 1 ? 0 : c]; };
  auto zero_of = [&](int c) {
    if (q->zero_point == nullptr || q->zero_point->size == 0) return 0;
    return q->zero_point->data[q->zero_point->size == 1 ? 0 : c];
  };
  for (int64_t i = 0; i < n; ++i) {
    const int c = channel_of(i);
    int64_t v;
    switch (t.type) {
      case kTfLiteUInt8:
        v = t.data.uint8[i];
        break;
      case kTfLiteInt8:
        v = t.data.int8[i];
        break;
      case kTfLiteInt16:
        v = t.data.i16[i];
        break;
      case kTfLiteInt32:
        v = t.data.i32[i];
        break;
      case kTfLiteInt64:
        v = t.data.i64[i];
        break;
      default:
        return ExecutionError(std::string("tensor '") + (t.name ? t.name : "") + "' is " + TfLiteTypeGetName(t.type));
    }
    out[i] = static_cast<float>(static_cast<double>(v - zero_of(c)) * scale_of(c));
  }
  return out;
}

// Shapes a plan may hold: at most kMaxRank dimensions, none negative, fewer than 2^31 elements (the
// shaders index with 32 bits). Inputs resized at run time, or damaged models, can break what the support
// check saw in the file. Empty tensors are allowed (a dynamic shape not known yet plans as empty and is
// planned again once known); their dispatches have no work items.
static Status CheckPlannedShape(const Shape& shape, const std::string& what) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) return Fail(what + " has rank " + std::to_string(shape.size()));
  int64_t n = 1;
  for (int d : shape) {
    if (d < 0) return Fail(what + " has shape " + ShapeString(shape));
    n *= d;
    if (n >= (int64_t{1} << 31)) return Fail(what + " has shape " + ShapeString(shape) + " (too many elements)");
  }
  return Status::Ok();
}

StatusOr<int> Planner::InputValue(int tensor) {
  auto it = plan_->tensor_values.find(tensor);
  if (it != plan_->tensor_values.end()) return it->second;
  const TfLiteTensor& t = context_->tensors[tensor];
  TS_RETURN_IF_ERROR(CheckPlannedShape(ShapeOf(&t), "input tensor " + std::to_string(tensor)));
  Value v;
  v.tensor = tensor;
  v.shape = ShapeOf(&t);
  if (IsConstant(t)) {
    v.kind = Value::Kind::kConstant;
    auto cached = constants_->find(tensor);
    if (cached == constants_->end()) {
      TS_ASSIGN_OR_RETURN(std::vector<float> data, TensorAsFloat(t));
      cached = constants_->emplace(tensor, std::make_unique<std::vector<float>>(std::move(data))).first;
    }
    v.constant = cached->second.get();
  } else {
    v.kind = Value::Kind::kInput;
    QuantGrid g;
    if (ActivationGrid(t, &g)) {
      v.q_scale = g.scale;
      v.q_lo = static_cast<float>(g.q_min - g.zero_point);
      v.q_hi = static_cast<float>(g.q_max - g.zero_point);
    }
  }
  plan_->values.push_back(std::move(v));
  const int id = static_cast<int>(plan_->values.size()) - 1;
  plan_->tensor_values[tensor] = id;
  return id;
}

int Planner::OutputValue(int tensor, const std::vector<int>& shape) {
  Value v;
  v.kind = Value::Kind::kInternal;
  v.tensor = tensor;
  v.shape = shape;
  v.is_output = partition_outputs_.count(tensor) != 0;
  QuantGrid g;
  if (ActivationGrid(context_->tensors[tensor], &g)) {
    v.q_scale = g.scale;
    v.q_lo = static_cast<float>(g.q_min - g.zero_point);
    v.q_hi = static_cast<float>(g.q_max - g.zero_point);
  }
  plan_->values.push_back(std::move(v));
  const int id = static_cast<int>(plan_->values.size()) - 1;
  plan_->tensor_values[tensor] = id;
  return id;
}

int Planner::ConstantOutput(int tensor, std::vector<float> data) {
  auto cached = constants_->find(tensor);
  if (cached == constants_->end()) {
    cached = constants_->emplace(tensor, std::make_unique<std::vector<float>>(std::move(data))).first;
  }
  Value v;
  v.kind = Value::Kind::kConstant;
  v.tensor = tensor;
  v.shape = ShapeOf(&context_->tensors[tensor]);
  v.is_output = partition_outputs_.count(tensor) != 0;
  v.constant = cached->second.get();
  plan_->values.push_back(std::move(v));
  const int id = static_cast<int>(plan_->values.size()) - 1;
  plan_->tensor_values[tensor] = id;
  return id;
}

int Planner::AliasOutput(int tensor, int source, const std::vector<int>& shape) {
  const int id = OutputValue(tensor, shape);
  Value& v = plan_->values[id];
  v.alias_of = source;
  // The alias carries the source's numbers as they are: no grid of its own to round to.
  v.q_scale = plan_->values[source].q_scale;
  v.q_lo = plan_->values[source].q_lo;
  v.q_hi = plan_->values[source].q_hi;
  return id;
}

int Planner::Temporary(const std::vector<int>& shape) {
  Value v;
  v.kind = Value::Kind::kTemporary;
  v.shape = shape;
  plan_->values.push_back(std::move(v));
  return static_cast<int>(plan_->values.size()) - 1;
}

void Planner::Emit(Dispatch dispatch) {
  dispatch.node_index = node_index_;
  dispatch.op_name = op_name_;
  plan_->dispatches.push_back(std::move(dispatch));
}

Status Planner::PlanNode(int node_index, const TfLiteNode* node, const TfLiteRegistration* registration) {
  node_index_ = node_index;
  op_name_ = tflite::GetOpNameByRegistration(*registration);
  const OpEntry* entry = FindOp(registration->builtin_code);
  Status status;
  if (entry == nullptr) {
    status = Fail("op not supported");
  } else {
    const GroupOps* ops = OpsOf(entry->group);
    status = ops != nullptr ? ops->plan(*this, node, entry) : Fail("op not supported");
  }
  for (int k = 0; status.ok() && k < node->outputs->size; ++k) {
    auto it = plan_->tensor_values.find(node->outputs->data[k]);
    if (it != plan_->tensor_values.end()) {
      status =
          CheckPlannedShape(plan_->values[it->second].shape, "output tensor " + std::to_string(node->outputs->data[k]));
    }
  }
  return status.WithContext("node " + std::to_string(node_index) + " (" + op_name_ + ")");
}

}  // namespace gpu
}  // namespace touchstone
