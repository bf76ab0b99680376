#include "runtime/op_type_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "runtime/builtin_options.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/op_resolver.h"

namespace touchstone {
namespace {

TEST(OpTypeRulesTest, EveryRuleParses) { EXPECT_EQ(CheckTypeRuleSyntax(), ""); }

// Every builtin the resolver serves has TFLite's type rules, except the ops whose kernels check
// their own (control flow, resource variables, the recurrent family).
TEST(OpTypeRulesTest, EverySupportedBuiltinHasRulesOrIsListedAsKernelChecked) {
  const std::set<int> kernel_checked = {kTfLiteBuiltinWhile,
                                        kTfLiteBuiltinIf,
                                        kTfLiteBuiltinCallOnce,
                                        kTfLiteBuiltinVarHandle,
                                        kTfLiteBuiltinAssignVariable,
                                        kTfLiteBuiltinReadVariable,
                                        kTfLiteBuiltinLstm,
                                        kTfLiteBuiltinUnidirectionalSequenceLstm,
                                        kTfLiteBuiltinSvdf};
  for (int code : BuiltinOpResolver::SupportedBuiltins()) {
    EXPECT_EQ(TypeRulesFor(code) != nullptr, kernel_checked.count(code) == 0) << BuiltinOperatorName(code);
  }
  for (int code : BuiltinsWithTypeRules()) {
    const std::vector<int> supported = BuiltinOpResolver::SupportedBuiltins();
    EXPECT_TRUE(std::count(supported.begin(), supported.end(), code) == 1) << BuiltinOperatorName(code);
  }
}

TypeVerdict Judge(int code, std::vector<TfLiteType> inputs, std::vector<TfLiteType> outputs) {
  return JudgeTypes(*TypeRulesFor(code), inputs, outputs);
}

TEST(OpTypeRulesTest, VariablesBindOnePositionToAnother) {
  EXPECT_EQ(Judge(kTfLiteBuiltinAdd, {kTfLiteInt16, kTfLiteInt16}, {kTfLiteInt16}), TypeVerdict::kRun);
  // Same types TFLite has no kernel for: its Eval refuses them.
  EXPECT_EQ(Judge(kTfLiteBuiltinAdd, {kTfLiteBool, kTfLiteBool}, {kTfLiteBool}), TypeVerdict::kRefuseAtInvoke);
  // Different input types: its Prepare does.
  EXPECT_EQ(Judge(kTfLiteBuiltinAdd, {kTfLiteFloat32, kTfLiteInt32}, {kTfLiteFloat32}), TypeVerdict::kRefuseAtPrepare);
  EXPECT_EQ(Judge(kTfLiteBuiltinCast, {kTfLiteFloat32}, {kTfLiteFloat16}), TypeVerdict::kRun);
}

TEST(OpTypeRulesTest, OptionalAndVariadicPositions) {
  // DEPTHWISE_CONV_2D's bias may be omitted; CONV_2D's may not (TFLite requires it).
  EXPECT_EQ(Judge(kTfLiteBuiltinDepthwiseConv2d, {kTfLiteInt8, kTfLiteInt8, kTfLiteNoType}, {kTfLiteInt8}),
            TypeVerdict::kRun);
  EXPECT_EQ(Judge(kTfLiteBuiltinConv2d, {kTfLiteInt8, kTfLiteInt8, kTfLiteNoType}, {kTfLiteInt8}),
            TypeVerdict::kRefuseAtPrepare);
  EXPECT_EQ(Judge(kTfLiteBuiltinConcatenation, {kTfLiteInt8, kTfLiteInt8, kTfLiteInt8}, {kTfLiteInt8}),
            TypeVerdict::kRun);
  EXPECT_EQ(Judge(kTfLiteBuiltinConcatenation, {kTfLiteInt8, kTfLiteInt16}, {kTfLiteInt8}),
            TypeVerdict::kRefuseAtPrepare);
  EXPECT_EQ(Judge(kTfLiteBuiltinConcatenation, {kTfLiteFloat16, kTfLiteFloat16}, {kTfLiteFloat16}),
            TypeVerdict::kRefuseAtPrepare);
  EXPECT_EQ(Judge(kTfLiteBuiltinSplit, {kTfLiteInt32, kTfLiteInt8}, {kTfLiteInt8, kTfLiteInt8, kTfLiteInt8}),
            TypeVerdict::kRun);
}

TEST(OpTypeRulesTest, SignaturesExpandOverTheirDomains) {
  EXPECT_EQ(ExpandSignature("T,T->* : T=int8|int16"), (std::vector<std::string>{"int8,int8->*", "int16,int16->*"}));
  EXPECT_EQ(ExpandSignature("T,I->T : T=int8; I=int32|int64").size(), 2u);
  EXPECT_EQ(TypeSignatureText({kTfLiteInt8, kTfLiteNoType}, {kTfLiteInt8}), "(INT8, -) -> (INT8)");
}

}  // namespace
}  // namespace touchstone
