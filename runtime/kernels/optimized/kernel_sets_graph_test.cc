// The microkernel sets (which exist, how one is chosen) and a chain of optimized ops sharing the
// arena, as in a real model, against the reference (OpCase, optimized_ops_test_util.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/optimized_ops_test_util.h"
#include "runtime/kernels/optimized/q16_kernels.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/op_resolver.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using namespace optimized_test;  // NOLINT(build/namespaces): optimized_ops_test_util.h's helpers

// ---- A chain of optimized ops sharing the arena, as in a real model.

TEST(OptimizedGraphTest, ConvDepthwisePoolFullyConnectedSoftmax) {
  OpCase op;
  OpTest& t = op.test();
  const int input = op.AddFloatInput({1, 16, 16, 3}, 1);
  const int c1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinConv2d, {input, op.AddFloatConst({8, 3, 3, 3}, 2), op.AddFloatConst({8}, 3)}, {c1},
          fb::BuiltinOptions::Conv2DOptions,
          fb::CreateConv2DOptions(t.fbb(), fb::Padding::SAME, 2, 2, Act::RELU6).Union());
  const int d1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinDepthwiseConv2d, {c1, op.AddFloatConst({1, 3, 3, 8}, 4), op.AddFloatConst({8}, 5)}, {d1},
          fb::BuiltinOptions::DepthwiseConv2DOptions,
          fb::CreateDepthwiseConv2DOptions(t.fbb(), fb::Padding::SAME, 1, 1, 1, Act::RELU6).Union());
  const int s1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAdd, {c1, d1}, {s1}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union());
  const int p1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAveragePool2d, {s1}, {p1}, fb::BuiltinOptions::Pool2DOptions,
          fb::CreatePool2DOptions(t.fbb(), fb::Padding::VALID, 8, 8, 8, 8).Union());
  const int f1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinFullyConnected, {p1, op.AddFloatConst({10, 8}, 6), op.AddFloatConst({10}, 7)}, {f1},
          fb::BuiltinOptions::FullyConnectedOptions, fb::CreateFullyConnectedOptions(t.fbb()).Union());
  const int output = op.AddFloatOutput();
  t.AddOp(kTfLiteBuiltinSoftmax, {f1}, {output}, fb::BuiltinOptions::SoftmaxOptions,
          fb::CreateSoftmaxOptions(t.fbb(), 1.f).Union());
  op.Check(optimized::Register_CONV_2D());
}

// ---- The microkernel sets.

TEST(OptimizedKernelSetsTest, ScalarIsAlwaysAvailableAndUnknownNamesAreRefused) {
  const std::vector<std::string> sets = optimized::AvailableKernelSets();
  ASSERT_FALSE(sets.empty());
  EXPECT_EQ(sets.back(), "scalar");
  EXPECT_FALSE(optimized::SelectKernelSet("no-such-set"));
  EXPECT_STREQ(optimized::Kernels().name, sets.front().c_str());
}

}  // namespace
}  // namespace touchstone
