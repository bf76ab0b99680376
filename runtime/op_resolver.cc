#include "runtime/op_resolver.h"

#include <algorithm>

#include "runtime/c/builtin_ops.h"
#include "runtime/control_flow.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace {

struct BuiltinEntry {
  int code;
  TfLiteRegistration* (*reference)();
  int min_version = 1;  // TFLite registers some ops only from a later version
  // KernelSet::kOptimized's kernel (runtime/kernels/optimized); null where it serves the reference
  // one. It validates as the reference kernel and runs it for what it does not specialise.
  TfLiteRegistration* (*optimized)() = nullptr;
};

// Ops implemented in runtime/ itself (they need the interpreter).
#define TS_RUNTIME_OP(code, name) {code, Register_##name}

// The one table of builtin ops. Versions: every version of an op is served by the same kernel,
// which checks in Prepare what it supports.
#define TS_OP(code, name) {code, reference::Register_##name}
#define TS_OPT_OP(code, name) {code, reference::Register_##name, 1, optimized::Register_##name}
const BuiltinEntry kBuiltinOps[] = {
    TS_OPT_OP(kTfLiteBuiltinAdd, ADD),
    TS_OP(kTfLiteBuiltinSub, SUB),
    TS_OPT_OP(kTfLiteBuiltinMul, MUL),
    TS_OP(kTfLiteBuiltinDiv, DIV),
    TS_OP(kTfLiteBuiltinSquaredDifference, SQUARED_DIFFERENCE),
    TS_OP(kTfLiteBuiltinMaximum, MAXIMUM),
    TS_OP(kTfLiteBuiltinMinimum, MINIMUM),
    TS_OP(kTfLiteBuiltinPow, POW),
    TS_OP(kTfLiteBuiltinFloorDiv, FLOOR_DIV),
    TS_OP(kTfLiteBuiltinFloorMod, FLOOR_MOD),
    TS_OP(kTfLiteBuiltinAbs, ABS),
    TS_OP(kTfLiteBuiltinNeg, NEG),
    TS_OP(kTfLiteBuiltinSqrt, SQRT),
    TS_OP(kTfLiteBuiltinRsqrt, RSQRT),
    TS_OP(kTfLiteBuiltinSquare, SQUARE),
    TS_OP(kTfLiteBuiltinExp, EXP),
    TS_OP(kTfLiteBuiltinLog, LOG),
    TS_OP(kTfLiteBuiltinSin, SIN),
    TS_OP(kTfLiteBuiltinCos, COS),
    TS_OP(kTfLiteBuiltinFloor, FLOOR),
    TS_OP(kTfLiteBuiltinCeil, CEIL),
    TS_OP(kTfLiteBuiltinRound, ROUND),
    TS_OP(kTfLiteBuiltinTanh, TANH),
    TS_OP(kTfLiteBuiltinLogistic, LOGISTIC),
    TS_OP(kTfLiteBuiltinRelu, RELU),
    TS_OP(kTfLiteBuiltinRelu6, RELU6),
    TS_OP(kTfLiteBuiltinReluN1To1, RELU_N1_TO_1),
    TS_OP(kTfLiteBuiltinRelu0To1, RELU_0_TO_1),
    TS_OP(kTfLiteBuiltinLeakyRelu, LEAKY_RELU),
    TS_OP(kTfLiteBuiltinPrelu, PRELU),
    TS_OP(kTfLiteBuiltinHardSwish, HARD_SWISH),
    TS_OP(kTfLiteBuiltinElu, ELU),
    TS_OP(kTfLiteBuiltinGelu, GELU),
    TS_OP(kTfLiteBuiltinCast, CAST),
    TS_OP(kTfLiteBuiltinSelect, SELECT),
    TS_OP(kTfLiteBuiltinSelectV2, SELECT_V2),
    TS_OP(kTfLiteBuiltinLess, LESS),
    TS_OP(kTfLiteBuiltinLessEqual, LESS_EQUAL),
    TS_OP(kTfLiteBuiltinGreater, GREATER),
    TS_OP(kTfLiteBuiltinGreaterEqual, GREATER_EQUAL),
    TS_OP(kTfLiteBuiltinEqual, EQUAL),
    TS_OP(kTfLiteBuiltinNotEqual, NOT_EQUAL),
    TS_OP(kTfLiteBuiltinLogicalAnd, LOGICAL_AND),
    TS_OP(kTfLiteBuiltinLogicalOr, LOGICAL_OR),
    TS_OP(kTfLiteBuiltinLogicalNot, LOGICAL_NOT),
    TS_OP(kTfLiteBuiltinReshape, RESHAPE),
    TS_OP(kTfLiteBuiltinSqueeze, SQUEEZE),
    TS_OP(kTfLiteBuiltinExpandDims, EXPAND_DIMS),
    TS_OP(kTfLiteBuiltinShape, SHAPE),
    TS_OP(kTfLiteBuiltinRank, RANK),
    TS_OP(kTfLiteBuiltinTile, TILE),
    TS_OPT_OP(kTfLiteBuiltinTranspose, TRANSPOSE),
    TS_OP(kTfLiteBuiltinPack, PACK),
    TS_OP(kTfLiteBuiltinUnpack, UNPACK),
    TS_OP(kTfLiteBuiltinGather, GATHER),
    TS_OP(kTfLiteBuiltinGatherNd, GATHER_ND),
    TS_OP(kTfLiteBuiltinSlice, SLICE),
    TS_OP(kTfLiteBuiltinStridedSlice, STRIDED_SLICE),
    TS_OPT_OP(kTfLiteBuiltinConcatenation, CONCATENATION),
    TS_OP(kTfLiteBuiltinSplit, SPLIT),
    TS_OP(kTfLiteBuiltinSplitV, SPLIT_V),
    TS_OPT_OP(kTfLiteBuiltinPad, PAD),
    TS_OPT_OP(kTfLiteBuiltinPadv2, PADV2),
    TS_OP(kTfLiteBuiltinMirrorPad, MIRROR_PAD),
    TS_OP(kTfLiteBuiltinMean, MEAN),
    TS_OP(kTfLiteBuiltinSum, SUM),
    TS_OP(kTfLiteBuiltinReduceProd, REDUCE_PROD),
    TS_OP(kTfLiteBuiltinReduceMax, REDUCE_MAX),
    TS_OP(kTfLiteBuiltinReduceMin, REDUCE_MIN),
    TS_OP(kTfLiteBuiltinReduceAny, REDUCE_ANY),
    TS_OP(kTfLiteBuiltinReduceAll, REDUCE_ALL),
    TS_OP(kTfLiteBuiltinArgMax, ARG_MAX),
    TS_OP(kTfLiteBuiltinArgMin, ARG_MIN),
    TS_OP(kTfLiteBuiltinTopkV2, TOPK_V2),
    TS_OP(kTfLiteBuiltinFill, FILL),
    TS_OP(kTfLiteBuiltinZerosLike, ZEROS_LIKE),
    TS_OP(kTfLiteBuiltinRange, RANGE),
    {kTfLiteBuiltinBroadcastTo, reference::Register_BROADCAST_TO, /*min_version=*/2},
    TS_OP(kTfLiteBuiltinDepthToSpace, DEPTH_TO_SPACE),
    TS_OP(kTfLiteBuiltinSpaceToDepth, SPACE_TO_DEPTH),
    TS_OP(kTfLiteBuiltinReverseV2, REVERSE_V2),
    TS_OP(kTfLiteBuiltinCumsum, CUMSUM),
    TS_OPT_OP(kTfLiteBuiltinConv2d, CONV_2D),
    TS_OPT_OP(kTfLiteBuiltinDepthwiseConv2d, DEPTHWISE_CONV_2D),
    TS_OP(kTfLiteBuiltinTransposeConv, TRANSPOSE_CONV),
    TS_OPT_OP(kTfLiteBuiltinFullyConnected, FULLY_CONNECTED),
    TS_OPT_OP(kTfLiteBuiltinBatchMatmul, BATCH_MATMUL),
    TS_OPT_OP(kTfLiteBuiltinAveragePool2d, AVERAGE_POOL_2D),
    TS_OPT_OP(kTfLiteBuiltinMaxPool2d, MAX_POOL_2D),
    TS_OP(kTfLiteBuiltinL2Pool2d, L2_POOL_2D),
    TS_OPT_OP(kTfLiteBuiltinSoftmax, SOFTMAX),
    TS_OP(kTfLiteBuiltinLogSoftmax, LOG_SOFTMAX),
    TS_OP(kTfLiteBuiltinL2Normalization, L2_NORMALIZATION),
    TS_OP(kTfLiteBuiltinLocalResponseNormalization, LOCAL_RESPONSE_NORMALIZATION),
    TS_OPT_OP(kTfLiteBuiltinResizeBilinear, RESIZE_BILINEAR),
    TS_OP(kTfLiteBuiltinResizeNearestNeighbor, RESIZE_NEAREST_NEIGHBOR),
    TS_OP(kTfLiteBuiltinQuantize, QUANTIZE),
    TS_OP(kTfLiteBuiltinDequantize, DEQUANTIZE),
    TS_OP(kTfLiteBuiltinDensify, DENSIFY),
    TS_OP(kTfLiteBuiltinAddN, ADD_N),
    TS_OP(kTfLiteBuiltinAtan2, ATAN2),
    TS_OP(kTfLiteBuiltinSign, SIGN),
    TS_OP(kTfLiteBuiltinBatchToSpaceNd, BATCH_TO_SPACE_ND),
    TS_OP(kTfLiteBuiltinSpaceToBatchNd, SPACE_TO_BATCH_ND),
    TS_OP(kTfLiteBuiltinBucketize, BUCKETIZE),
    TS_OP(kTfLiteBuiltinDynamicUpdateSlice, DYNAMIC_UPDATE_SLICE),
    TS_OP(kTfLiteBuiltinEmbeddingLookup, EMBEDDING_LOOKUP),
    TS_OP(kTfLiteBuiltinMatrixDiag, MATRIX_DIAG),
    TS_OP(kTfLiteBuiltinMatrixSetDiag, MATRIX_SET_DIAG),
    TS_OP(kTfLiteBuiltinOneHot, ONE_HOT),
    TS_OP(kTfLiteBuiltinReverseSequence, REVERSE_SEQUENCE),
    TS_OP(kTfLiteBuiltinScatterNd, SCATTER_ND),
    TS_OP(kTfLiteBuiltinSegmentSum, SEGMENT_SUM),
    TS_OP(kTfLiteBuiltinUnsortedSegmentSum, UNSORTED_SEGMENT_SUM),
    TS_OP(kTfLiteBuiltinUnsortedSegmentMax, UNSORTED_SEGMENT_MAX),
    TS_OP(kTfLiteBuiltinUnsortedSegmentMin, UNSORTED_SEGMENT_MIN),
    TS_OP(kTfLiteBuiltinUnsortedSegmentProd, UNSORTED_SEGMENT_PROD),
    TS_OP(kTfLiteBuiltinUnique, UNIQUE),
    TS_OP(kTfLiteBuiltinWhere, WHERE),
    TS_OP(kTfLiteBuiltinRfft2d, RFFT2D),
    TS_OP(kTfLiteBuiltinComplexAbs, COMPLEX_ABS),
    TS_OP(kTfLiteBuiltinLstm, LSTM),
    TS_OP(kTfLiteBuiltinUnidirectionalSequenceLstm, UNIDIRECTIONAL_SEQUENCE_LSTM),
    TS_OP(kTfLiteBuiltinSvdf, SVDF),
    TS_RUNTIME_OP(kTfLiteBuiltinWhile, WHILE),
    TS_RUNTIME_OP(kTfLiteBuiltinIf, IF),
    TS_RUNTIME_OP(kTfLiteBuiltinCallOnce, CALL_ONCE),
    TS_RUNTIME_OP(kTfLiteBuiltinVarHandle, VAR_HANDLE),
    TS_RUNTIME_OP(kTfLiteBuiltinAssignVariable, ASSIGN_VARIABLE),
    TS_RUNTIME_OP(kTfLiteBuiltinReadVariable, READ_VARIABLE),
};
#undef TS_RUNTIME_OP
#undef TS_OP
#undef TS_OPT_OP

}  // namespace

BuiltinOpResolver::BuiltinOpResolver(KernelSet kernel_set) {
  for (const BuiltinEntry& entry : kBuiltinOps) {
    const bool optimized = kernel_set == KernelSet::kOptimized && entry.optimized != nullptr;
    TfLiteRegistration registration = optimized ? *entry.optimized() : *entry.reference();
    registration.builtin_code = entry.code;
    builtins_[entry.code] = registration;
    if (entry.min_version > 1) min_versions_[entry.code] = entry.min_version;
  }
  // Custom ops TFLite's own resolver registers.
  AddCustom("TFLite_Detection_PostProcess", reference::Register_DETECTION_POSTPROCESS());
}

const TfLiteRegistration* BuiltinOpResolver::FindOp(int builtin_code, int version) const {
  auto it = builtins_.find(builtin_code);
  if (it == builtins_.end()) return nullptr;
  auto min = min_versions_.find(builtin_code);
  if (min != min_versions_.end() && version < min->second) return nullptr;
  return &it->second;
}

const TfLiteRegistration* BuiltinOpResolver::FindOp(const char* custom_name, int /*version*/) const {
  auto it = customs_.find(custom_name);
  return it == customs_.end() ? nullptr : &it->second;
}

void BuiltinOpResolver::AddCustom(const std::string& name, const TfLiteRegistration* registration) {
  TfLiteRegistration copy = *registration;
  copy.builtin_code = kTfLiteBuiltinCustom;
  customs_[name] = copy;
  customs_[name].custom_name = customs_.find(name)->first.c_str();
}

std::vector<int> BuiltinOpResolver::SupportedBuiltins() {
  std::vector<int> codes;
  for (const BuiltinEntry& entry : kBuiltinOps) codes.push_back(entry.code);
  std::sort(codes.begin(), codes.end());
  return codes;
}

std::vector<int> BuiltinOpResolver::OptimizedBuiltins() {
  std::vector<int> codes;
  for (const BuiltinEntry& entry : kBuiltinOps) {
    if (entry.optimized != nullptr) codes.push_back(entry.code);
  }
  std::sort(codes.begin(), codes.end());
  return codes;
}

}  // namespace touchstone
