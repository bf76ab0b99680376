#include "runtime/op_type_rules.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "runtime/c/builtin_ops.h"

namespace touchstone {
namespace {

constexpr TypeVerdict kRun = TypeVerdict::kRun;
constexpr TypeVerdict kPrepare = TypeVerdict::kRefuseAtPrepare;
constexpr TypeVerdict kInvoke = TypeVerdict::kRefuseAtInvoke;

// Type sets several ops share (spelled out in each signature's domain, so that a rule reads whole).
#define TS_NUMERIC "float32|uint8|int8|int16|int32|int64"
#define TS_PLAIN8 "float32|float16|uint8|int8|int16|int32|int64|bool"

// TFLite 2.14.1's type checks, from its kernels (tensorflow/lite/kernels/*.cc) and confirmed where
// ../shared/opsuite_sweep covers them. Variadic inputs or outputs use "...".
struct RulesEntry {
  int builtin_code;
  OpTypeRules rules;
};

constexpr RulesEntry kRulesTable[] = {
    // Element-wise binary arithmetic: same input types; unsupported ones fail in Eval. The output
    // type is '*' where TFLite's Prepare sets it from the inputs (as for the comparisons' bool).
    {kTfLiteBuiltinAdd, {{{"T,T->* : T=float32|int32|int64|uint8|int8|int16", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinSub, {{{"T,T->* : T=float32|int32|int64|uint8|int8|int16", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinMul, {{{"T,T->T : T=float32|int32|int64|uint8|int8|int16|complex64", kRun}, {"T,T->T", kInvoke}}}},
    {kTfLiteBuiltinDiv, {{{"T,T->* : T=float32|int32|uint8", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinSquaredDifference, {{{"T,T->* : T=float32|int32|int8", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinMaximum, {{{"T,T->* : T=" TS_NUMERIC, kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinMinimum, {{{"T,T->* : T=" TS_NUMERIC, kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinPow, {{{"T,T->* : T=float32|int32", kRun}}}},
    {kTfLiteBuiltinFloorDiv, {{{"T,T->* : T=float32|int8|int16|int32", kRun}}}},
    {kTfLiteBuiltinFloorMod, {{{"T,T->* : T=float32|int8|int16|int32|int64", kRun}}}},
    {kTfLiteBuiltinAtan2, {{{"T,T->* : T=float32|float64", kRun}}}},
    {kTfLiteBuiltinAddN, {{{"T...->T : T=float32|int32", kRun}, {"T...->T", kInvoke}}}},
    {kTfLiteBuiltinBitwiseXor, {{{"T,T->* : T=int8|uint8|int16|uint16|int32|uint32", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinRightShift, {{{"T,T->* : T=int8|uint8|int16|uint16|int32|uint32", kRun}, {"T,T->*", kInvoke}}}},
    // Comparisons: TFLite's Eval of each takes its own list (EQUAL int16 but not NOT_EQUAL).
    {kTfLiteBuiltinEqual,
     {{{"T,T->* : T=bool|float32|int16|int32|int64|uint8|int8|string", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinNotEqual, {{{"T,T->* : T=bool|float32|int32|int64|uint8|int8|string", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinGreater, {{{"T,T->* : T=float32|int32|int64|uint8|int8", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinGreaterEqual, {{{"T,T->* : T=float32|int16|int32|int64|uint8|int8", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinLess, {{{"T,T->* : T=float32|int16|int32|int64|uint8|int8", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinLessEqual, {{{"T,T->* : T=float32|int32|int64|uint8|int8", kRun}, {"T,T->*", kInvoke}}}},
    {kTfLiteBuiltinLogicalAnd, {{{"bool,bool->bool", kRun}}}},
    {kTfLiteBuiltinLogicalOr, {{{"bool,bool->bool", kRun}}}},
    {kTfLiteBuiltinLogicalNot, {{{"bool->bool", kRun}}}},
    // Element-wise unary math (unary_math_ops.cc and friends check in Prepare).
    {kTfLiteBuiltinAbs, {{{"T->T : T=float32|int8|int16|int32", kRun}}}},
    {kTfLiteBuiltinSin, {{{"float32->float32", kRun}}}},
    {kTfLiteBuiltinCos, {{{"float32->float32", kRun}}}},
    {kTfLiteBuiltinLog, {{{"float32->float32", kRun}}}},
    {kTfLiteBuiltinSqrt, {{{"float32->float32", kRun}}}},
    {kTfLiteBuiltinSquare, {{{"float32->float32", kRun}}}},
    {kTfLiteBuiltinRsqrt, {{{"T->T : T=float32|int8", kRun}}}},
    {kTfLiteBuiltinFloor, {{{"float32->float32", kRun}}}},
    {kTfLiteBuiltinCeil, {{{"float32->float32", kRun}}}},
    {kTfLiteBuiltinRound, {{{"float32->float32", kRun}}}},
    {kTfLiteBuiltinSign, {{{"T->T : T=float32|float64|int32", kRun}}}},
    {kTfLiteBuiltinNeg, {{{"T->T : T=float32|int32|int64", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinExp, {{{"T->T : T=float32|int8|int16", kRun}, {"T->T", kInvoke}}}},
    // Activations (activations.cc): Prepare takes any type, Eval refuses the others.
    {kTfLiteBuiltinRelu, {{{"T->T : T=float32|uint8|int8|int16", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinRelu6, {{{"T->T : T=float32|uint8|int8|int16", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinReluN1To1, {{{"T->T : T=float32|uint8|int8", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinRelu0To1, {{{"T->T : T=float32|uint8|int8", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinTanh, {{{"T->T : T=float32|uint8|int8|int16", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinLogistic, {{{"T->T : T=float32|uint8|int8|int16", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinLeakyRelu, {{{"T->T : T=float32|uint8|int8|int16", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinHardSwish, {{{"T->T : T=float32|uint8|int8", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinElu, {{{"T->T : T=float32|int8", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinGelu, {{{"T->T : T=float32|uint8|int8", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinPrelu, {{{"T,T->T : T=float32|uint8|int8", kRun}, {"T,T->T", kInvoke}}}},
    {kTfLiteBuiltinSoftmax,
     {{{"T->T : T=float32|uint8|int8|int16", kRun}, {"T->int16 : T=uint8|int8", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinLogSoftmax, {{{"T->T : T=float32|uint8|int8", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinL2Normalization, {{{"T->T : T=float32|uint8|int8", kRun}}}},
    {kTfLiteBuiltinLocalResponseNormalization, {{{"float32->float32", kRun}}}},
    // Conversions.
    {kTfLiteBuiltinCast, {{{"A->B : A=" TS_PLAIN8 "; B=" TS_PLAIN8, kRun}}}},
    {kTfLiteBuiltinQuantize,
     {{{"float32->uint8|int8|int16", kRun},
       {"int16->int8|int16|int32", kRun},
       {"int32->int8|int16", kRun},
       {"uint8|int8->uint8|int8", kRun}}}},
    {kTfLiteBuiltinDequantize, {{{"uint8|int8|int16|float16->float32", kRun}}}},
    // Shapes and data movement.
    {kTfLiteBuiltinReshape, {{{"T,int32?->T", kRun}}}},
    {kTfLiteBuiltinSqueeze, {{{"T->T", kRun}}}},
    {kTfLiteBuiltinExpandDims, {{{"T,A->T : A=int32|int64", kRun}}}},
    {kTfLiteBuiltinShape, {{{"*->int32|int64", kRun}}}},
    {kTfLiteBuiltinRank, {{{"*->int32", kRun}}}},
    {kTfLiteBuiltinBroadcastTo, {{{"T,S->T : S=int32|int64", kRun}}}},
    {kTfLiteBuiltinBroadcastArgs, {{{"T,T->T : T=int32|int64", kRun}}}},
    {kTfLiteBuiltinTile,
     {{{"T,M->T : T=float32|uint8|int8|int32|int64|bool|string; M=int32|int64", kRun},
       {"T,M->T : M=int32|int64", kInvoke}}}},
    {kTfLiteBuiltinTranspose,
     {{{"T,P->T : T=float32|uint8|int8|int16|int32|int64|bool; P=int32|int64", kRun},
       {"T,P->T : P=int32|int64", kInvoke}}}},
    {kTfLiteBuiltinPack, {{{"T...->T : T=" TS_NUMERIC, kRun}}}},
    {kTfLiteBuiltinUnpack, {{{"T->T... : T=float32|uint8|int8|int16|int32|bool", kRun}}}},
    {kTfLiteBuiltinConcatenation, {{{"T...->T : T=" TS_NUMERIC "|bool|uint32", kRun}}}},
    {kTfLiteBuiltinSplit, {{{"int32,T->T... : T=float32|uint8|int8|int16|int32", kRun}}}},
    {kTfLiteBuiltinSplitV, {{{"T,S,int32->T... : T=" TS_NUMERIC "; S=int32|int64", kRun}}}},
    {kTfLiteBuiltinGather, {{{"T,I->T : T=" TS_NUMERIC "|bool|string; I=int16|int32|int64", kRun}}}},
    {kTfLiteBuiltinGatherNd, {{{"T,I->T : T=" TS_NUMERIC "|string; I=int16|int32|int64", kRun}}}},
    {kTfLiteBuiltinScatterNd, {{{"I,T,I->T : I=int32|int64; T=float32|uint8|int8|int32|int64|bool", kRun}}}},
    {kTfLiteBuiltinSlice,
     {{{"T,I,I->T : T=" TS_NUMERIC "|bool|string; I=int32|int64", kRun}, {"T,I,I->T : I=int32|int64", kInvoke}}}},
    {kTfLiteBuiltinStridedSlice,
     {{{"T,I,I,I->T : T=" TS_NUMERIC "|bool|string; I=int32|int64", kRun}, {"T,I,I,I->T : I=int32|int64", kInvoke}}}},
    // PAD and PADV2 stop at rank 5 (PadKernelMaxDimensionCount).
    {kTfLiteBuiltinPad,
     {{{"T,P->T : T=" TS_NUMERIC "; P=int32|int64", kRun}, {"T,P->T : P=int32|int64", kInvoke}},
      kPrepare,
      /*max_input_rank=*/5}},
    {kTfLiteBuiltinPadv2,
     {{{"T,P,T->T : T=" TS_NUMERIC "; P=int32|int64", kRun}, {"T,P,T->T : P=int32|int64", kInvoke}},
      kPrepare,
      /*max_input_rank=*/5}},
    {kTfLiteBuiltinMirrorPad,
     {{{"T,P->T : T=" TS_NUMERIC "; P=int32|int64", kRun}, {"T,P->T : P=int32|int64", kInvoke}}}},
    {kTfLiteBuiltinDepthToSpace, {{{"T->T : T=float32|uint8|int8|int32|int64", kRun}}}},
    {kTfLiteBuiltinSpaceToDepth, {{{"T->T : T=float32|uint8|int8|int32|int64", kRun}}}},
    {kTfLiteBuiltinBatchToSpaceNd, {{{"T,int32,int32->T : T=" TS_NUMERIC, kRun}, {"T,int32,int32->T", kInvoke}}}},
    {kTfLiteBuiltinSpaceToBatchNd, {{{"T,int32,int32->T : T=" TS_NUMERIC, kRun}, {"T,int32,int32->T", kInvoke}}}},
    {kTfLiteBuiltinReverseV2, {{{"T,int32->T : T=" TS_NUMERIC "|bool", kRun}}}},
    {kTfLiteBuiltinReverseSequence, {{{"T,I->T : T=float32|uint8|int16|int32|int64; I=int32|int64", kRun}}}},
    {kTfLiteBuiltinFill,
     {{{"D,T->T : D=int32|int64; T=float32|float16|int8|int16|int32|int64|bool|string", kRun},
       {"D,T->T : D=int32|int64", kInvoke}}}},
    {kTfLiteBuiltinZerosLike, {{{"T->T : T=float32|int32|int64", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinRange, {{{"T,T,T->T : T=int32|int64|float32", kRun}}}},
    {kTfLiteBuiltinSelect, {{{"bool,T,T->T : T=" TS_NUMERIC "|bool", kRun}, {"bool,T,T->T", kInvoke}}}},
    {kTfLiteBuiltinSelectV2, {{{"bool,T,T->T : T=" TS_NUMERIC "|bool", kRun}, {"bool,T,T->T", kInvoke}}}},
    {kTfLiteBuiltinWhere, {{{"T->int64 : T=bool|float32|uint8|int8|int32|int64|uint32", kRun}}}},
    {kTfLiteBuiltinOneHot,
     {{{"I,int32,T,T->T : I=int32|int64; T=float32|uint8|int8|int32|int64|bool", kRun},
       {"I,int32,int16,int16->int16 : I=int32|int64", kInvoke}}}},
    {kTfLiteBuiltinDynamicUpdateSlice,
     {{{"T,T,I->T : T=float32|int8|int32|int64|bool; I=int32|int64", kRun}, {"T,T,I->T : I=int32|int64", kInvoke}}}},
    {kTfLiteBuiltinMatrixDiag, {{{"T->T : T=" TS_NUMERIC, kRun}}}},
    {kTfLiteBuiltinMatrixSetDiag, {{{"T,T->T : T=" TS_NUMERIC, kRun}}}},
    {kTfLiteBuiltinCumsum, {{{"T,int32->T : T=float32|int32|int64", kRun}}}},
    {kTfLiteBuiltinBucketize, {{{"T->int32 : T=float32|float64|int32|int64", kRun}}}},
    {kTfLiteBuiltinUnique,
     {{{"T->T,I : T=float32|uint8|int8|int16|int32|int64; I=int32|int64", kRun}, {"T->T,I : I=int32|int64", kInvoke}}}},
    {kTfLiteBuiltinEmbeddingLookup,
     {{{"int32,float32->float32", kRun},
       {"int32,T->float32 : T=uint8|int8", kRun},
       {"int32,T->T : T=uint8|int8", kRun},
       {"int32,*->*", kInvoke}}}},
    {kTfLiteBuiltinDensify, {{{"T->T : T=float32|float16|int8", kRun}}}},
    {kTfLiteBuiltinRfft2d, {{{"float32,int32->complex64", kRun}}}},
    {kTfLiteBuiltinComplexAbs, {{{"complex64->float32", kRun}}}},
    // Reductions: the axis is int32; float16 fails in Prepare, other unsupported types in Eval.
    {kTfLiteBuiltinMean,
     {{{"T,int32->T : T=" TS_NUMERIC, kRun}, {"float16,int32->float16", kPrepare}, {"T,int32->T", kInvoke}}}},
    {kTfLiteBuiltinSum,
     {{{"T,int32->T : T=" TS_NUMERIC, kRun}, {"float16,int32->float16", kPrepare}, {"T,int32->T", kInvoke}}}},
    {kTfLiteBuiltinReduceMax,
     {{{"T,int32->T : T=" TS_NUMERIC, kRun}, {"float16,int32->float16", kPrepare}, {"T,int32->T", kInvoke}}}},
    {kTfLiteBuiltinReduceMin,
     {{{"T,int32->T : T=" TS_NUMERIC, kRun}, {"float16,int32->float16", kPrepare}, {"T,int32->T", kInvoke}}}},
    {kTfLiteBuiltinReduceProd,
     {{{"T,int32->T : T=float32|int8|int16|int32|int64", kRun},
       {"float16,int32->float16", kPrepare},
       {"T,int32->T", kInvoke}}}},
    {kTfLiteBuiltinReduceAny, {{{"bool,int32->bool", kRun}}}},
    {kTfLiteBuiltinReduceAll, {{{"bool,int32->bool", kRun}}}},
    {kTfLiteBuiltinArgMax, {{{"T,A->O : T=float32|uint8|int8|int32|bool; A=int32|int64; O=int32|int64", kRun}}}},
    {kTfLiteBuiltinArgMin, {{{"T,A->O : T=float32|uint8|int8|int32|bool; A=int32|int64; O=int32|int64", kRun}}}},
    {kTfLiteBuiltinTopkV2, {{{"T,int32->T,int32 : T=" TS_NUMERIC, kRun}, {"T,int32->T,int32", kInvoke}}}},
    {kTfLiteBuiltinSegmentSum, {{{"T,int32->T : T=float32|int32", kRun}}}},
    {kTfLiteBuiltinUnsortedSegmentSum, {{{"T,int32,int32->T : T=float32|int32", kRun}}}},
    {kTfLiteBuiltinUnsortedSegmentMax, {{{"T,int32,int32->T : T=float32|int32", kRun}}}},
    {kTfLiteBuiltinUnsortedSegmentMin, {{{"T,int32,int32->T : T=float32|int32", kRun}}}},
    {kTfLiteBuiltinUnsortedSegmentProd, {{{"T,int32,int32->T : T=float32|int32", kRun}}}},
    // Pooling and resizing: Eval refuses the types it has no kernel for (quantized L2 pooling in
    // Prepare).
    {kTfLiteBuiltinAveragePool2d, {{{"T->T : T=float32|uint8|int8|int16", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinMaxPool2d, {{{"T->T : T=float32|uint8|int8|int16", kRun}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinL2Pool2d, {{{"float32->float32", kRun}, {"uint8|int8->*", kPrepare}, {"T->T", kInvoke}}}},
    {kTfLiteBuiltinResizeBilinear, {{{"T,int32->T : T=float32|uint8|int8|int16", kRun}, {"T,int32->T", kInvoke}}}},
    {kTfLiteBuiltinResizeNearestNeighbor,
     {{{"T,int32->T : T=float32|uint8|int8|int16", kRun}, {"T,int32->T", kInvoke}}}},
    // Convolutions and matrix products: float, hybrid (float activations, int8 weights), and
    // quantized uint8, int8 and 16x8 (int16 activations, int8 weights).
    {kTfLiteBuiltinConv2d,
     {{{"float32,float32,float32->float32", kRun},
       {"float32,int8,float32->float32", kRun},
       {"uint8,uint8,int32->uint8", kRun},
       {"int8,int8,int32->int8", kRun},
       {"int16,int8,int32|int64->int16", kRun}}}},
    {kTfLiteBuiltinDepthwiseConv2d,
     {{{"float32,float32,float32?->float32", kRun},
       {"float32,int8,float32?->float32", kRun},
       {"uint8,uint8,int32?->uint8", kRun},
       {"int8,int8,int32?->int8", kRun},
       {"int16,int8,int64?->int16", kRun}}}},
    {kTfLiteBuiltinTransposeConv,
     {{{"int32,float32,float32,float32?->float32", kRun},
       {"int32,uint8,uint8,int32?->uint8", kRun},
       {"int32,int8,int8,int32?->int8", kRun},
       {"int32,int8,int16,int64?->int16", kRun}}}},
    {kTfLiteBuiltinFullyConnected,
     {{{"float32,float32,float32?->float32", kRun},
       {"float32,uint8|int8,float32?->float32", kRun},
       {"uint8,uint8,int32?->uint8", kRun},
       {"int8,int8,int32?->int8", kRun},
       {"int16,int8,int32|int64?->int16", kRun}}}},
    {kTfLiteBuiltinBatchMatmul, {{{"T,T->T : T=float32|int8|int16", kRun}, {"float32,int8->float32", kRun}}}},
};

constexpr int MaxRulesCode() {
  int max_code = 0;
  for (const RulesEntry& entry : kRulesTable) max_code = std::max(max_code, entry.builtin_code);
  return max_code;
}

// kRulesTable's position of each builtin code's entry (-1: none), built once without allocating.
using RulesIndex = std::array<int16_t, MaxRulesCode() + 1>;
const RulesIndex& RulesByCode() {
  static const RulesIndex index = [] {
    RulesIndex built;
    built.fill(-1);
    for (size_t i = 0; i < std::size(kRulesTable); ++i) {
      int16_t& slot = built[kRulesTable[i].builtin_code];
      if (slot < 0) slot = static_cast<int16_t>(i);
    }
    return built;
  }();
  return index;
}

#undef TS_NUMERIC
#undef TS_PLAIN8

// ---- Signatures ----

struct Slot {
  bool absent_only = false;  // "-"
  bool optional = false;     // '?': may be omitted
  bool repeat = false;       // "...": this position and every later one
  char variable = 0;         // 'T' etc., or 0
  bool any = false;          // '*'
  uint64_t types = 0;        // bit per TfLiteType, when neither a variable nor '*'
};

struct Signature {
  std::vector<Slot> inputs, outputs;
  std::map<char, uint64_t> domains;  // variable -> allowed types (absent: any)
  std::string error;
};

uint64_t Bit(TfLiteType type) { return uint64_t{1} << static_cast<int>(type); }

const std::vector<std::pair<const char*, TfLiteType>>& TypeNames() {
  static const std::vector<std::pair<const char*, TfLiteType>> names = {
      {"float32", kTfLiteFloat32},    {"float16", kTfLiteFloat16}, {"float64", kTfLiteFloat64},
      {"uint8", kTfLiteUInt8},        {"int8", kTfLiteInt8},       {"int16", kTfLiteInt16},
      {"uint16", kTfLiteUInt16},      {"int32", kTfLiteInt32},     {"uint32", kTfLiteUInt32},
      {"int64", kTfLiteInt64},        {"bool", kTfLiteBool},       {"string", kTfLiteString},
      {"complex64", kTfLiteComplex64}};
  return names;
}

std::string Trim(absl::string_view s) { return std::string(absl::StripAsciiWhitespace(s)); }

// Split's pieces as views into `s` (parsing a signature allocates only the signature itself: each
// one is parsed at its first use, in a fresh process's Init).
std::vector<absl::string_view> SplitViews(absl::string_view s, char sep) {
  std::vector<absl::string_view> parts;
  for (absl::string_view part : absl::StrSplit(s, sep)) parts.push_back(absl::StripAsciiWhitespace(part));
  return parts;
}

bool ParseTypeSet(absl::string_view text, uint64_t* types) {
  *types = 0;
  for (absl::string_view name : SplitViews(text, '|')) {
    bool found = false;
    for (const auto& entry : TypeNames()) {
      if (name == entry.first) {
        *types |= Bit(entry.second);
        found = true;
      }
    }
    if (!found) return false;
  }
  return true;
}

bool ParseSlot(absl::string_view text, Slot* slot, std::string* error) {
  if (text.size() > 3 && absl::EndsWith(text, "...")) {
    slot->repeat = true;
    text.remove_suffix(3);
  }
  if (!text.empty() && text.back() == '?') {
    slot->optional = true;
    text.remove_suffix(1);
  }
  if (text == "-") {
    slot->absent_only = true;
  } else if (text == "*") {
    slot->any = true;
  } else if (text.size() == 1 && std::isupper(static_cast<unsigned char>(text[0]))) {
    slot->variable = text[0];
  } else if (!ParseTypeSet(text, &slot->types)) {
    *error = "unknown type in '" + std::string(text) + "'";
    return false;
  }
  return true;
}

Signature Parse(const char* text) {
  Signature sig;
  absl::string_view body = text, domains;
  const size_t colon = body.find(':');
  if (colon != absl::string_view::npos) {
    domains = body.substr(colon + 1);
    body = body.substr(0, colon);
  }
  const size_t arrow = body.find("->");
  if (arrow == absl::string_view::npos) {
    sig.error = std::string("no '->' in '") + text + "'";
    return sig;
  }
  for (int side = 0; side < 2; ++side) {
    const absl::string_view part =
        absl::StripAsciiWhitespace(side == 0 ? body.substr(0, arrow) : body.substr(arrow + 2));
    if (part.empty()) continue;
    std::vector<Slot>& slots = side == 0 ? sig.inputs : sig.outputs;
    for (absl::string_view token : SplitViews(part, ',')) {
      Slot slot;
      if (!ParseSlot(token, &slot, &sig.error)) return sig;
      slots.push_back(slot);
    }
    for (size_t i = 0; i + 1 < slots.size(); ++i) {
      if (slots[i].repeat) sig.error = std::string("'...' before the last position in '") + text + "'";
    }
  }
  if (!absl::StripAsciiWhitespace(domains).empty()) {
    for (absl::string_view binding : SplitViews(domains, ';')) {
      const size_t eq = binding.find('=');
      const absl::string_view name =
          eq == absl::string_view::npos ? absl::string_view() : absl::StripAsciiWhitespace(binding.substr(0, eq));
      uint64_t types = 0;
      if (name.size() != 1 || !std::isupper(static_cast<unsigned char>(name[0])) ||
          !ParseTypeSet(binding.substr(eq + 1), &types)) {
        sig.error = "bad domain '" + std::string(binding) + "' in '" + text + "'";
        return sig;
      }
      sig.domains[name[0]] = types;
    }
  }
  return sig;
}

// Parsed signatures, by the address of their text (the table's strings live for the program).
const Signature& Compiled(const char* text) {
  static std::mutex mutex;
  static std::map<const char*, Signature>* cache = new std::map<const char*, Signature>;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(text);
  if (it == cache->end()) it = cache->emplace(text, Parse(text)).first;
  return it->second;
}

// The types a signature's variables are bound to while one rule is matched (a signature has a few
// variables at most; no allocation, since nodes after a dynamic output are judged at every Invoke).
struct Bindings {
  static constexpr int kMax = 16;
  char names[kMax];
  TfLiteType types[kMax];
  int count = 0;
};

bool MatchSlot(const Slot& slot, TfLiteType type, const Signature& sig, Bindings* bound) {
  if (type == kTfLiteNoType) return slot.absent_only || slot.optional;
  if (slot.absent_only) return false;
  if (slot.any) return true;
  if (slot.variable == 0) return (slot.types & Bit(type)) != 0;
  auto domain = sig.domains.find(slot.variable);
  if (domain != sig.domains.end() && (domain->second & Bit(type)) == 0) return false;
  for (int i = 0; i < bound->count; ++i) {
    if (bound->names[i] == slot.variable) return bound->types[i] == type;
  }
  if (bound->count == Bindings::kMax) return false;  // more variables than any signature has
  bound->names[bound->count] = slot.variable;
  bound->types[bound->count] = type;
  ++bound->count;
  return true;
}

bool MatchSide(const std::vector<Slot>& slots, const std::vector<TfLiteType>& types, const Signature& sig,
               Bindings* bound) {
  size_t i = 0;
  for (size_t s = 0; s < slots.size(); ++s) {
    const Slot& slot = slots[s];
    if (slot.repeat) {
      if (i >= types.size()) return false;
      for (; i < types.size(); ++i) {
        if (!MatchSlot(slot, types[i], sig, bound)) return false;
      }
      return true;
    }
    if (i >= types.size()) {
      if (!slot.optional && !slot.absent_only) return false;
      continue;
    }
    if (!MatchSlot(slot, types[i], sig, bound)) return false;
    ++i;
  }
  return i == types.size();
}

}  // namespace

const char* TypeVerdictName(TypeVerdict verdict) {
  switch (verdict) {
    case TypeVerdict::kRun:
      return "runs";
    case TypeVerdict::kRefuseAtPrepare:
      return "refused at prepare";
    case TypeVerdict::kRefuseAtInvoke:
      return "refused at invoke";
  }
  return "?";
}

const OpTypeRules* TypeRulesFor(int builtin_code) {
  const RulesIndex& index = RulesByCode();
  if (builtin_code < 0 || builtin_code >= static_cast<int>(index.size())) return nullptr;
  return index[builtin_code] < 0 ? nullptr : &kRulesTable[index[builtin_code]].rules;
}

std::vector<int> BuiltinsWithTypeRules() {
  std::vector<int> codes;
  const RulesIndex& index = RulesByCode();
  for (size_t code = 0; code < index.size(); ++code) {
    if (index[code] >= 0) codes.push_back(static_cast<int>(code));
  }
  return codes;
}

TypeVerdict JudgeTypes(const OpTypeRules& rules, const std::vector<TfLiteType>& inputs,
                       const std::vector<TfLiteType>& outputs) {
  for (const TypeRule& rule : rules) {
    const Signature& sig = Compiled(rule.signature);
    if (!sig.error.empty()) continue;
    Bindings bound;
    if (MatchSide(sig.inputs, inputs, sig, &bound) && MatchSide(sig.outputs, outputs, sig, &bound)) {
      return rule.verdict;
    }
  }
  return rules.otherwise;
}

std::string TypeSignatureText(const std::vector<TfLiteType>& inputs, const std::vector<TfLiteType>& outputs) {
  std::string text;
  for (int side = 0; side < 2; ++side) {
    const std::vector<TfLiteType>& types = side == 0 ? inputs : outputs;
    text += side == 0 ? "(" : " -> (";
    for (size_t i = 0; i < types.size(); ++i) {
      if (i > 0) text += ", ";
      text += types[i] == kTfLiteNoType ? "-" : TfLiteTypeGetName(types[i]);
    }
    text += ")";
  }
  return text;
}

std::string CheckTypeRuleSyntax() {
  for (const RulesEntry& entry : kRulesTable) {
    for (const TypeRule& rule : entry.rules) {
      const Signature& sig = Compiled(rule.signature);
      if (!sig.error.empty()) return sig.error;
    }
  }
  return "";
}

std::vector<std::string> ExpandSignature(const char* signature) {
  std::string text = signature;
  const size_t colon = text.find(':');
  const std::string body = Trim(colon == std::string::npos ? text : text.substr(0, colon));
  const Signature& sig = Compiled(signature);
  std::vector<std::string> results = {body};
  for (const auto& domain : sig.domains) {
    std::vector<std::string> next;
    for (const std::string& partial : results) {
      for (const auto& entry : TypeNames()) {
        if ((domain.second & Bit(entry.second)) == 0) continue;
        // Replace the variable where it stands alone as a position (not inside a type name).
        std::string out;
        for (size_t i = 0; i < partial.size(); ++i) {
          const bool alone = partial[i] == domain.first &&
                             (i == 0 || !std::isalnum(static_cast<unsigned char>(partial[i - 1]))) &&
                             (i + 1 == partial.size() || !std::isalnum(static_cast<unsigned char>(partial[i + 1])));
          out += alone ? std::string(entry.first) : std::string(1, partial[i]);
        }
        next.push_back(out);
      }
    }
    results = next;
  }
  return results;
}

}  // namespace touchstone
