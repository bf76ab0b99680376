#include "runtime/op_resolver.h"

#include <algorithm>
#include <cstring>

#include "runtime/c/builtin_ops.h"
#include "runtime/control_flow.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace {

struct BuiltinEntry {
  int code;
  TfLiteRegistration* (*reference)();
  // The versions TFLite 2.14.1's BuiltinOpResolver registers (kernels/register.cc); a model naming
  // another version is refused at load, as TFLite refuses it.
  int min_version;
  int max_version;
  // KernelSet::kOptimized's kernel (runtime/kernels/optimized); null where it serves the reference
  // one. It validates as the reference kernel and runs it for what it does not specialise.
  TfLiteRegistration* (*optimized)() = nullptr;
};

// Ops implemented in runtime/ itself (they need the interpreter).
#define TS_RUNTIME_OP(code, name, max_version) \
  { code, Register_##name, 1, max_version }

// The one table of builtin ops: code, kernel, the highest version TFLite 2.14.1 registers. Every
// registered version of an op is served by the same kernel (TFLite's kernels do not depend on it
// either); what types it takes is in op_type_rules.cc.
#define TS_OP(code, name, max_version) \
  { code, reference::Register_##name, 1, max_version }
#define TS_OPT_OP(code, name, max_version) \
  { code, reference::Register_##name, 1, max_version, optimized::Register_##name }
const BuiltinEntry kBuiltinOps[] = {
    TS_OPT_OP(kTfLiteBuiltinAdd, ADD, 5),
    TS_OP(kTfLiteBuiltinSub, SUB, 5),
    TS_OPT_OP(kTfLiteBuiltinMul, MUL, 7),
    TS_OP(kTfLiteBuiltinDiv, DIV, 2),
    TS_OP(kTfLiteBuiltinSquaredDifference, SQUARED_DIFFERENCE, 2),
    TS_OP(kTfLiteBuiltinMaximum, MAXIMUM, 4),
    TS_OP(kTfLiteBuiltinMinimum, MINIMUM, 4),
    TS_OP(kTfLiteBuiltinPow, POW, 1),
    TS_OP(kTfLiteBuiltinFloorDiv, FLOOR_DIV, 3),
    TS_OP(kTfLiteBuiltinFloorMod, FLOOR_MOD, 2),
    TS_OP(kTfLiteBuiltinBitwiseXor, BITWISE_XOR, 1),
    TS_OP(kTfLiteBuiltinRightShift, RIGHT_SHIFT, 1),
    TS_OP(kTfLiteBuiltinAbs, ABS, 5),
    TS_OP(kTfLiteBuiltinNeg, NEG, 1),
    TS_OP(kTfLiteBuiltinSqrt, SQRT, 1),
    TS_OP(kTfLiteBuiltinRsqrt, RSQRT, 2),
    TS_OP(kTfLiteBuiltinSquare, SQUARE, 1),
    TS_OP(kTfLiteBuiltinExp, EXP, 2),
    TS_OP(kTfLiteBuiltinLog, LOG, 1),
    TS_OP(kTfLiteBuiltinSin, SIN, 1),
    TS_OP(kTfLiteBuiltinCos, COS, 1),
    TS_OP(kTfLiteBuiltinFloor, FLOOR, 1),
    TS_OP(kTfLiteBuiltinCeil, CEIL, 1),
    TS_OP(kTfLiteBuiltinRound, ROUND, 1),
    TS_OPT_OP(kTfLiteBuiltinTanh, TANH, 3),
    TS_OPT_OP(kTfLiteBuiltinLogistic, LOGISTIC, 3),
    TS_OPT_OP(kTfLiteBuiltinRelu, RELU, 3),
    TS_OPT_OP(kTfLiteBuiltinRelu6, RELU6, 3),
    TS_OPT_OP(kTfLiteBuiltinReluN1To1, RELU_N1_TO_1, 1),
    TS_OPT_OP(kTfLiteBuiltinRelu0To1, RELU_0_TO_1, 1),
    TS_OP(kTfLiteBuiltinLeakyRelu, LEAKY_RELU, 2),
    TS_OP(kTfLiteBuiltinPrelu, PRELU, 1),
    TS_OP(kTfLiteBuiltinHardSwish, HARD_SWISH, 1),
    TS_OP(kTfLiteBuiltinElu, ELU, 1),
    TS_OP(kTfLiteBuiltinGelu, GELU, 2),
    TS_OP(kTfLiteBuiltinCast, CAST, 5),
    TS_OP(kTfLiteBuiltinSelect, SELECT, 4),
    TS_OP(kTfLiteBuiltinSelectV2, SELECT_V2, 2),
    TS_OP(kTfLiteBuiltinLess, LESS, 3),
    TS_OP(kTfLiteBuiltinLessEqual, LESS_EQUAL, 2),
    TS_OP(kTfLiteBuiltinGreater, GREATER, 2),
    TS_OP(kTfLiteBuiltinGreaterEqual, GREATER_EQUAL, 3),
    TS_OP(kTfLiteBuiltinEqual, EQUAL, 4),
    TS_OP(kTfLiteBuiltinNotEqual, NOT_EQUAL, 3),
    TS_OP(kTfLiteBuiltinLogicalAnd, LOGICAL_AND, 1),
    TS_OP(kTfLiteBuiltinLogicalOr, LOGICAL_OR, 1),
    TS_OP(kTfLiteBuiltinLogicalNot, LOGICAL_NOT, 1),
    TS_OP(kTfLiteBuiltinReshape, RESHAPE, 1),
    TS_OP(kTfLiteBuiltinSqueeze, SQUEEZE, 2),
    TS_OP(kTfLiteBuiltinExpandDims, EXPAND_DIMS, 1),
    TS_OP(kTfLiteBuiltinShape, SHAPE, 1),
    TS_OP(kTfLiteBuiltinRank, RANK, 1),
    TS_OP(kTfLiteBuiltinTile, TILE, 3),
    TS_OPT_OP(kTfLiteBuiltinTranspose, TRANSPOSE, 6),
    TS_OP(kTfLiteBuiltinPack, PACK, 4),
    TS_OP(kTfLiteBuiltinUnpack, UNPACK, 4),
    TS_OP(kTfLiteBuiltinGather, GATHER, 6),
    TS_OP(kTfLiteBuiltinGatherNd, GATHER_ND, 4),
    TS_OP(kTfLiteBuiltinSlice, SLICE, 6),
    TS_OP(kTfLiteBuiltinStridedSlice, STRIDED_SLICE, 8),
    TS_OPT_OP(kTfLiteBuiltinConcatenation, CONCATENATION, 4),
    TS_OP(kTfLiteBuiltinSplit, SPLIT, 4),
    TS_OP(kTfLiteBuiltinSplitV, SPLIT_V, 2),
    TS_OPT_OP(kTfLiteBuiltinPad, PAD, 4),
    TS_OPT_OP(kTfLiteBuiltinPadv2, PADV2, 4),
    TS_OP(kTfLiteBuiltinMirrorPad, MIRROR_PAD, 3),
    TS_OPT_OP(kTfLiteBuiltinMean, MEAN, 3),
    TS_OPT_OP(kTfLiteBuiltinSum, SUM, 2),
    TS_OP(kTfLiteBuiltinReduceProd, REDUCE_PROD, 2),
    TS_OP(kTfLiteBuiltinReduceMax, REDUCE_MAX, 3),
    TS_OP(kTfLiteBuiltinReduceMin, REDUCE_MIN, 3),
    TS_OP(kTfLiteBuiltinReduceAny, REDUCE_ANY, 1),
    TS_OP(kTfLiteBuiltinReduceAll, REDUCE_ALL, 1),
    TS_OPT_OP(kTfLiteBuiltinArgMax, ARG_MAX, 3),
    TS_OPT_OP(kTfLiteBuiltinArgMin, ARG_MIN, 3),
    TS_OP(kTfLiteBuiltinTopkV2, TOPK_V2, 3),
    TS_OP(kTfLiteBuiltinFill, FILL, 4),
    TS_OP(kTfLiteBuiltinZerosLike, ZEROS_LIKE, 1),
    TS_OP(kTfLiteBuiltinRange, RANGE, 2),
    {kTfLiteBuiltinBroadcastTo, reference::Register_BROADCAST_TO, /*min_version=*/2, /*max_version=*/3},
    TS_OP(kTfLiteBuiltinBroadcastArgs, BROADCAST_ARGS, 1),
    TS_OP(kTfLiteBuiltinDepthToSpace, DEPTH_TO_SPACE, 2),
    TS_OP(kTfLiteBuiltinSpaceToDepth, SPACE_TO_DEPTH, 2),
    TS_OP(kTfLiteBuiltinReverseV2, REVERSE_V2, 3),
    TS_OP(kTfLiteBuiltinCumsum, CUMSUM, 1),
    TS_OPT_OP(kTfLiteBuiltinConv2d, CONV_2D, 7),
    TS_OPT_OP(kTfLiteBuiltinDepthwiseConv2d, DEPTHWISE_CONV_2D, 7),
    TS_OP(kTfLiteBuiltinTransposeConv, TRANSPOSE_CONV, 4),
    TS_OPT_OP(kTfLiteBuiltinFullyConnected, FULLY_CONNECTED, 10),
    TS_OPT_OP(kTfLiteBuiltinBatchMatmul, BATCH_MATMUL, 4),
    TS_OPT_OP(kTfLiteBuiltinAveragePool2d, AVERAGE_POOL_2D, 3),
    TS_OPT_OP(kTfLiteBuiltinMaxPool2d, MAX_POOL_2D, 3),
    TS_OP(kTfLiteBuiltinL2Pool2d, L2_POOL_2D, 1),
    TS_OPT_OP(kTfLiteBuiltinSoftmax, SOFTMAX, 3),
    TS_OP(kTfLiteBuiltinLogSoftmax, LOG_SOFTMAX, 2),
    TS_OP(kTfLiteBuiltinL2Normalization, L2_NORMALIZATION, 2),
    TS_OP(kTfLiteBuiltinLocalResponseNormalization, LOCAL_RESPONSE_NORMALIZATION, 1),
    TS_OPT_OP(kTfLiteBuiltinResizeBilinear, RESIZE_BILINEAR, 4),
    TS_OP(kTfLiteBuiltinResizeNearestNeighbor, RESIZE_NEAREST_NEIGHBOR, 4),
    TS_OPT_OP(kTfLiteBuiltinQuantize, QUANTIZE, 3),
    TS_OPT_OP(kTfLiteBuiltinDequantize, DEQUANTIZE, 5),
    TS_OP(kTfLiteBuiltinDensify, DENSIFY, 1),
    TS_OP(kTfLiteBuiltinAddN, ADD_N, 1),
    TS_OP(kTfLiteBuiltinAtan2, ATAN2, 1),
    TS_OP(kTfLiteBuiltinSign, SIGN, 2),
    TS_OP(kTfLiteBuiltinBatchToSpaceNd, BATCH_TO_SPACE_ND, 4),
    TS_OP(kTfLiteBuiltinSpaceToBatchNd, SPACE_TO_BATCH_ND, 4),
    TS_OP(kTfLiteBuiltinBucketize, BUCKETIZE, 1),
    TS_OP(kTfLiteBuiltinDynamicUpdateSlice, DYNAMIC_UPDATE_SLICE, 1),
    TS_OP(kTfLiteBuiltinEmbeddingLookup, EMBEDDING_LOOKUP, 3),
    TS_OP(kTfLiteBuiltinMatrixDiag, MATRIX_DIAG, 1),
    TS_OP(kTfLiteBuiltinMatrixSetDiag, MATRIX_SET_DIAG, 1),
    TS_OP(kTfLiteBuiltinOneHot, ONE_HOT, 1),
    TS_OP(kTfLiteBuiltinReverseSequence, REVERSE_SEQUENCE, 1),
    TS_OP(kTfLiteBuiltinScatterNd, SCATTER_ND, 1),
    TS_OP(kTfLiteBuiltinSegmentSum, SEGMENT_SUM, 1),
    TS_OP(kTfLiteBuiltinUnsortedSegmentSum, UNSORTED_SEGMENT_SUM, 1),
    TS_OP(kTfLiteBuiltinUnsortedSegmentMax, UNSORTED_SEGMENT_MAX, 1),
    TS_OP(kTfLiteBuiltinUnsortedSegmentMin, UNSORTED_SEGMENT_MIN, 1),
    TS_OP(kTfLiteBuiltinUnsortedSegmentProd, UNSORTED_SEGMENT_PROD, 1),
    TS_OP(kTfLiteBuiltinUnique, UNIQUE, 1),
    TS_OP(kTfLiteBuiltinWhere, WHERE, 2),
    TS_OPT_OP(kTfLiteBuiltinRfft2d, RFFT2D, 1),
    TS_OPT_OP(kTfLiteBuiltinComplexAbs, COMPLEX_ABS, 1),
    TS_OPT_OP(kTfLiteBuiltinLstm, LSTM, 4),
    TS_OPT_OP(kTfLiteBuiltinUnidirectionalSequenceLstm, UNIDIRECTIONAL_SEQUENCE_LSTM, 4),
    TS_OPT_OP(kTfLiteBuiltinSvdf, SVDF, 4),
    TS_RUNTIME_OP(kTfLiteBuiltinWhile, WHILE, 1),
    TS_RUNTIME_OP(kTfLiteBuiltinIf, IF, 1),
    TS_RUNTIME_OP(kTfLiteBuiltinCallOnce, CALL_ONCE, 1),
    TS_RUNTIME_OP(kTfLiteBuiltinVarHandle, VAR_HANDLE, 1),
    TS_RUNTIME_OP(kTfLiteBuiltinAssignVariable, ASSIGN_VARIABLE, 1),
    TS_RUNTIME_OP(kTfLiteBuiltinReadVariable, READ_VARIABLE, 1),
};
#undef TS_RUNTIME_OP
#undef TS_OP
#undef TS_OPT_OP

}  // namespace

BuiltinOpResolver::BuiltinOpResolver(KernelSet kernel_set) : kernel_set_(kernel_set) {
  int max_code = 0;
  for (const BuiltinEntry& entry : kBuiltinOps) max_code = std::max(max_code, entry.code);
  const size_t codes = static_cast<size_t>(max_code) + 1;
  builtins_.resize(codes);
  fetched_.reset(new std::atomic<bool>[codes]);
  for (size_t code = 0; code < codes; ++code) fetched_[code].store(false, std::memory_order_relaxed);
  entries_.assign(codes, -1);
  versions_.assign(codes, {0, 0});
  for (size_t i = 0; i < sizeof(kBuiltinOps) / sizeof(kBuiltinOps[0]); ++i) {
    const BuiltinEntry& entry = kBuiltinOps[i];
    entries_[entry.code] = static_cast<int>(i);
    versions_[entry.code] = {entry.min_version, entry.max_version};
  }
}

const BuiltinOpResolver& BuiltinOpResolver::Shared(KernelSet kernel_set) {
  if (kernel_set == KernelSet::kOptimized) {
    static const BuiltinOpResolver* const optimized = new BuiltinOpResolver(KernelSet::kOptimized);
    return *optimized;
  }
  static const BuiltinOpResolver* const reference = new BuiltinOpResolver(KernelSet::kReference);
  return *reference;
}

const TfLiteRegistration* BuiltinOpResolver::FindOp(int builtin_code, int version) const {
  if (builtin_code < 0 || static_cast<size_t>(builtin_code) >= versions_.size()) return nullptr;
  const std::pair<int, int>& range = versions_[builtin_code];
  // {0, 0}: a code no op of the table has.
  if (range.first == 0 || version < range.first || version > range.second) return nullptr;
  TfLiteRegistration* registration = &builtins_[builtin_code];
  if (!fetched_[builtin_code].load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(fetch_mutex_);
    if (!fetched_[builtin_code].load(std::memory_order_relaxed)) {
      const BuiltinEntry& entry = kBuiltinOps[entries_[builtin_code]];
      const bool optimized = kernel_set_ == KernelSet::kOptimized && entry.optimized != nullptr;
      *registration = optimized ? *entry.optimized() : *entry.reference();
      registration->builtin_code = entry.code;
      fetched_[builtin_code].store(true, std::memory_order_release);
    }
  }
  return registration;
}

namespace {

// The custom op TFLite's own resolver registers, fetched at its first lookup as the builtins are
// (fetching it in the constructor touched its code and data in every model's Init).
constexpr char kDetectionPostProcessName[] = "TFLite_Detection_PostProcess";
const TfLiteRegistration* DetectionPostProcess() {
  static const TfLiteRegistration registration = [] {
    TfLiteRegistration r = *reference::Register_DETECTION_POSTPROCESS();
    r.builtin_code = kTfLiteBuiltinCustom;
    r.custom_name = kDetectionPostProcessName;
    return r;
  }();
  return &registration;
}

}  // namespace

const TfLiteRegistration* BuiltinOpResolver::FindOp(const char* custom_name, int /*version*/) const {
  auto it = customs_.find(custom_name);
  if (it != customs_.end()) return &it->second;
  return std::strcmp(custom_name, kDetectionPostProcessName) == 0 ? DetectionPostProcess() : nullptr;
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

std::pair<int, int> BuiltinOpResolver::RegisteredVersions(int builtin_code) {
  for (const BuiltinEntry& entry : kBuiltinOps) {
    if (entry.code == builtin_code) return {entry.min_version, entry.max_version};
  }
  return {0, 0};
}

namespace {

// The builtin kernels whose output 0 is input 0's bytes unchanged.
const struct {
  int code;
  TfLiteRegistration* (*kernel)();
} kStorageSharingOps[] = {
    {kTfLiteBuiltinReshape, reference::Register_RESHAPE},
    {kTfLiteBuiltinSqueeze, reference::Register_SQUEEZE},
    {kTfLiteBuiltinExpandDims, reference::Register_EXPAND_DIMS},
};

}  // namespace

bool BuiltinOpResolver::CopiesInputUnchanged(const TfLiteRegistration& registration) {
  if (registration.invoke == nullptr) return false;
  for (const auto& op : kStorageSharingOps) {
    if (registration.invoke == op.kernel()->invoke) return true;
  }
  return false;
}

std::vector<int> BuiltinOpResolver::StorageSharingBuiltins() {
  std::vector<int> codes;
  for (const auto& op : kStorageSharingOps) codes.push_back(op.code);
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
