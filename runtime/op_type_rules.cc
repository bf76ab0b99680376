#include "runtime/op_type_rules.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <cstring>

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
//
// Parsed at compile time (kCompiled below): judging a node's types parses nothing, and a signature
// of the table that does not parse fails the build.

struct Slot {
  uint32_t types = 0;        // bit per TfLiteType, when neither a variable nor '*'
  char variable = 0;         // 'T' etc., or 0
  bool absent_only = false;  // "-"
  bool optional = false;     // '?': may be omitted
  bool repeat = false;       // "...": this position and every later one
  bool any = false;          // '*'
};

struct Domain {
  char variable = 0;
  uint32_t types = 0;  // the types the variable may take
};

// The longest signatures of the table fit; a longer one is a parse error.
constexpr int kMaxInputSlots = 8, kMaxOutputSlots = 4, kMaxDomains = 4;

struct Signature {
  Slot inputs[kMaxInputSlots] = {};
  int num_inputs = 0;
  Slot outputs[kMaxOutputSlots] = {};
  int num_outputs = 0;
  Domain domains[kMaxDomains] = {};  // variables without one take any type
  int num_domains = 0;
  const char* error = nullptr;  // why the text does not parse
};

// Every TfLiteType the table names has a value below 32.
constexpr uint32_t Bit(TfLiteType type) {
  return static_cast<int>(type) >= 0 && static_cast<int>(type) < 32 ? uint32_t{1} << static_cast<int>(type) : 0;
}

struct TypeName {
  const char* name;
  TfLiteType type;
};
constexpr TypeName kTypeNames[] = {
    {"float32", kTfLiteFloat32}, {"float16", kTfLiteFloat16}, {"float64", kTfLiteFloat64}, {"uint8", kTfLiteUInt8},
    {"int8", kTfLiteInt8},       {"int16", kTfLiteInt16},     {"uint16", kTfLiteUInt16},   {"int32", kTfLiteInt32},
    {"uint32", kTfLiteUInt32},   {"int64", kTfLiteInt64},     {"bool", kTfLiteBool},       {"string", kTfLiteString},
    {"complex64", kTfLiteComplex64}};

// A piece of a signature's text, [begin, end).
struct Span {
  const char* begin;
  const char* end;
  constexpr bool empty() const { return begin == end; }
  constexpr size_t size() const { return static_cast<size_t>(end - begin); }
};

constexpr bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }
constexpr bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

constexpr Span Strip(Span s) {
  while (!s.empty() && IsSpace(*s.begin)) ++s.begin;
  while (!s.empty() && IsSpace(s.end[-1])) --s.end;
  return s;
}

// Where `c` first is in `s`, or s.end.
constexpr const char* Find(Span s, char c) {
  const char* p = s.begin;
  while (p != s.end && *p != c) ++p;
  return p;
}

constexpr bool Equals(Span s, const char* literal) {
  const char* p = s.begin;
  for (; p != s.end; ++p, ++literal) {
    if (*literal == '\0' || *literal != *p) return false;
  }
  return *literal == '\0';
}

constexpr bool EndsWith(Span s, const char* literal) {
  size_t length = 0;
  while (literal[length] != '\0') ++length;
  return s.size() >= length && Equals(Span{s.end - length, s.end}, literal);
}

// "int8|uint8" into bits; false for a name kTypeNames lacks.
constexpr bool ParseTypeSet(Span text, uint32_t* types) {
  *types = 0;
  while (true) {
    const char* bar = Find(text, '|');
    const Span name = Strip(Span{text.begin, bar});
    bool found = false;
    for (const TypeName& entry : kTypeNames) {
      if (Equals(name, entry.name)) {
        *types |= Bit(entry.type);
        found = true;
      }
    }
    if (!found) return false;
    if (bar == text.end) return true;
    text.begin = bar + 1;
  }
}

constexpr bool ParseSlot(Span text, Slot* slot) {
  if (text.size() > 3 && EndsWith(text, "...")) {
    slot->repeat = true;
    text.end -= 3;
  }
  if (!text.empty() && text.end[-1] == '?') {
    slot->optional = true;
    --text.end;
  }
  if (Equals(text, "-")) {
    slot->absent_only = true;
  } else if (Equals(text, "*")) {
    slot->any = true;
  } else if (text.size() == 1 && IsUpper(*text.begin)) {
    slot->variable = *text.begin;
  } else if (!ParseTypeSet(text, &slot->types)) {
    return false;
  }
  return true;
}

// One side of "inputs->outputs", comma-separated slots (none when empty).
constexpr const char* ParseSide(Span text, Slot* slots, int max_slots, int* count) {
  text = Strip(text);
  if (text.empty()) return nullptr;
  while (true) {
    const char* comma = Find(text, ',');
    if (*count == max_slots) return "more positions than a signature may have";
    if (!ParseSlot(Strip(Span{text.begin, comma}), &slots[*count])) return "an unknown type";
    ++*count;
    if (comma == text.end) break;
    text.begin = comma + 1;
  }
  for (int i = 0; i + 1 < *count; ++i) {
    if (slots[i].repeat) return "'...' before the last position";
  }
  return nullptr;
}

// "T,T->* : T=int8|int16": positions, '->', then the variables' domains after ':', ';'-separated.
constexpr Signature Parse(const char* text) {
  Signature sig;
  const char* end = text;
  while (*end != '\0') ++end;
  const char* colon = Find(Span{text, end}, ':');
  const Span body{text, colon};
  const char* arrow = body.begin;
  while (arrow != body.end && !(arrow[0] == '-' && arrow + 1 != body.end && arrow[1] == '>')) ++arrow;
  if (arrow == body.end) {
    sig.error = "no '->'";
    return sig;
  }
  sig.error = ParseSide(Span{body.begin, arrow}, sig.inputs, kMaxInputSlots, &sig.num_inputs);
  if (sig.error == nullptr) {
    sig.error = ParseSide(Span{arrow + 2, body.end}, sig.outputs, kMaxOutputSlots, &sig.num_outputs);
  }
  if (sig.error != nullptr || colon == end) return sig;
  Span domains = Strip(Span{colon + 1, end});
  while (!domains.empty()) {
    const char* semicolon = Find(domains, ';');
    const Span binding = Strip(Span{domains.begin, semicolon});
    const char* eq = Find(binding, '=');
    const Span name = Strip(Span{binding.begin, eq});
    uint32_t types = 0;
    if (eq == binding.end || name.size() != 1 || !IsUpper(*name.begin) ||
        !ParseTypeSet(Span{eq + 1, binding.end}, &types)) {
      sig.error = "a bad domain";
      return sig;
    }
    if (sig.num_domains == kMaxDomains) {
      sig.error = "more domains than a signature may have";
      return sig;
    }
    sig.domains[sig.num_domains++] = Domain{*name.begin, types};
    if (semicolon == domains.end) break;
    domains.begin = semicolon + 1;
  }
  return sig;
}

// The rules in use of an entry: up to the first unused one (as OpTypeRules::end()).
constexpr int RuleCount(const OpTypeRules& rules) {
  int count = 0;
  while (count < OpTypeRules::kMaxRules && rules.rules[count].signature != nullptr) ++count;
  return count;
}

constexpr size_t CountSignatures() {
  size_t count = 0;
  for (const RulesEntry& entry : kRulesTable) count += static_cast<size_t>(RuleCount(entry.rules));
  return count;
}

// Every signature of kRulesTable, parsed, entry after entry; `first[i]`: entry i's first.
struct CompiledRules {
  std::array<Signature, CountSignatures()> signatures{};
  std::array<uint16_t, std::size(kRulesTable)> first{};
};

constexpr CompiledRules Compile() {
  CompiledRules compiled;
  size_t next = 0;
  for (size_t i = 0; i < std::size(kRulesTable); ++i) {
    compiled.first[i] = static_cast<uint16_t>(next);
    for (int r = 0; r < RuleCount(kRulesTable[i].rules); ++r) {
      compiled.signatures[next++] = Parse(kRulesTable[i].rules.rules[r].signature);
    }
  }
  return compiled;
}

constexpr bool AllParse(const CompiledRules& compiled) {
  for (const Signature& sig : compiled.signatures) {
    if (sig.error != nullptr) return false;
  }
  return true;
}

constexpr CompiledRules kCompiled = Compile();
static_assert(AllParse(kCompiled), "a signature of kRulesTable does not parse (CheckTypeRuleSyntax says which)");

// The compiled signatures of `rules` (an entry of kRulesTable, as TypeRulesFor hands them out), or
// null for rules from elsewhere.
const Signature* CompiledSignatures(const OpTypeRules& rules) {
  const uintptr_t offset =
      reinterpret_cast<uintptr_t>(&rules) - reinterpret_cast<uintptr_t>(&kRulesTable[0].rules);
  const size_t entry = offset / sizeof(RulesEntry);
  if (entry >= std::size(kRulesTable) || &kRulesTable[entry].rules != &rules) return nullptr;
  return &kCompiled.signatures[kCompiled.first[entry]];
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
  for (int d = 0; d < sig.num_domains; ++d) {
    if (sig.domains[d].variable == slot.variable && (sig.domains[d].types & Bit(type)) == 0) return false;
  }
  for (int i = 0; i < bound->count; ++i) {
    if (bound->names[i] == slot.variable) return bound->types[i] == type;
  }
  if (bound->count == Bindings::kMax) return false;  // more variables than any signature has
  bound->names[bound->count] = slot.variable;
  bound->types[bound->count] = type;
  ++bound->count;
  return true;
}

bool MatchSide(const Slot* slots, int num_slots, const std::vector<TfLiteType>& types, const Signature& sig,
               Bindings* bound) {
  size_t i = 0;
  for (int s = 0; s < num_slots; ++s) {
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

bool Matches(const Signature& sig, const std::vector<TfLiteType>& inputs, const std::vector<TfLiteType>& outputs) {
  Bindings bound;
  return sig.error == nullptr && MatchSide(sig.inputs, sig.num_inputs, inputs, sig, &bound) &&
         MatchSide(sig.outputs, sig.num_outputs, outputs, sig, &bound);
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
  const Signature* compiled = CompiledSignatures(rules);
  for (int r = 0; r < RuleCount(rules); ++r) {
    if (compiled != nullptr ? Matches(compiled[r], inputs, outputs)
                            : Matches(Parse(rules.rules[r].signature), inputs, outputs)) {
      return rules.rules[r].verdict;
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
      const Signature sig = Parse(rule.signature);
      if (sig.error != nullptr) return std::string(sig.error) + " in '" + rule.signature + "'";
    }
  }
  return "";
}

std::vector<std::string> ExpandSignature(const char* signature) {
  const Signature sig = Parse(signature);
  const char* colon = std::strchr(signature, ':');
  const Span body = Strip(Span{signature, colon != nullptr ? colon : signature + std::strlen(signature)});
  std::vector<std::string> results = {std::string(body.begin, body.end)};
  for (int d = 0; d < sig.num_domains; ++d) {
    const Domain& domain = sig.domains[d];
    std::vector<std::string> next;
    for (const std::string& partial : results) {
      for (const TypeName& entry : kTypeNames) {
        if ((domain.types & Bit(entry.type)) == 0) continue;
        // Replace the variable where it stands alone as a position (not inside a type name).
        std::string out;
        for (size_t i = 0; i < partial.size(); ++i) {
          const bool alone = partial[i] == domain.variable &&
                             (i == 0 || !std::isalnum(static_cast<unsigned char>(partial[i - 1]))) &&
                             (i + 1 == partial.size() || !std::isalnum(static_cast<unsigned char>(partial[i + 1])));
          out += alone ? std::string(entry.name) : std::string(1, partial[i]);
        }
        next.push_back(out);
      }
    }
    results = next;
  }
  return results;
}

}  // namespace touchstone
