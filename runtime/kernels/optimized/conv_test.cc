// The optimized CONV_2D and DEPTHWISE_CONV_2D float kernels, their per-thread scratch and their
// fusion, against the reference on every microkernel set and 1 and 4 threads (OpCase).
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

// ---- CONV_2D

void CheckConv(const Conv& c, uint32_t seed = 1) {
  OpCase op;
  const int input = op.AddFloatInput(c.input, seed);
  const std::vector<int> filter_shape = {c.out_channels, c.kernel_h, c.kernel_w, c.input[3] / c.groups};
  const int filter =
      c.filter_is_input ? op.AddFloatInput(filter_shape, seed + 1) : op.AddFloatConst(filter_shape, seed + 1);
  const int bias = op.AddFloatConst({c.out_channels}, seed + 2);
  const int output = op.AddFloatOutput();
  AddConvOp(op, c, {input, filter, bias}, output);
  op.Check(optimized::Register_CONV_2D());
}

TEST(OptimizedConv2dTest, PointwiseManyChannels) { CheckConv({{1, 7, 9, 37}, 29, 1, 1}); }
TEST(OptimizedConv2dTest, PointwiseValidStrideTwo) { CheckConv({{2, 9, 8, 16}, 24, 1, 1, fb::Padding::VALID, 2, 2}); }
TEST(OptimizedConv2dTest, SizeOne) { CheckConv({{1, 1, 1, 1}, 1, 1, 1}); }
TEST(OptimizedConv2dTest, ThreeByThreeSameOddChannels) { CheckConv({{1, 5, 6, 3}, 5, 3, 3}); }
TEST(OptimizedConv2dTest, ThreeByThreeSameStrideTwoBatches) {
  CheckConv({{2, 9, 8, 4}, 17, 3, 3, fb::Padding::SAME, 2, 2});
}
TEST(OptimizedConv2dTest, ValidMixedStridesAndDilation) {
  CheckConv({{1, 13, 11, 5}, 9, 3, 3, fb::Padding::VALID, 2, 1, 2, 2});
}
TEST(OptimizedConv2dTest, SameNonSquareKernelDilationRelu6) {
  CheckConv({{1, 10, 12, 6}, 33, 5, 3, fb::Padding::SAME, 1, 3, 2, 1, Act::RELU6}, 7);
}
// Few input channels and 8 outputs take the planar kernel where the kernel set has one (AVX-512):
// input split by channel and column phase, 16 output pixels per register, rows that end partway
// through a register, odd input widths, margins for padding on both sides.
TEST(OptimizedConv2dTest, PlanarFirstLayerStrideTwoSame) {
  CheckConv({{1, 40, 45, 3}, 8, 3, 3, fb::Padding::SAME, 2, 2});
}
TEST(OptimizedConv2dTest, PlanarWholeRegistersRelu6Batches) {
  CheckConv({{2, 34, 64, 3}, 8, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6});
}
TEST(OptimizedConv2dTest, PlanarStrideOneValidFiveByFiveOneChannel) {
  CheckConv({{2, 20, 37, 1}, 8, 5, 5, fb::Padding::VALID, 1, 1});
}
TEST(OptimizedConv2dTest, PlanarStrideThreeDilationFourChannels) {
  CheckConv({{1, 21, 70, 4}, 8, 3, 3, fb::Padding::SAME, 1, 3, 2, 2});
  CheckConv({{1, 12, 60, 2}, 8, 3, 2, fb::Padding::SAME, 3, 3});
}
TEST(OptimizedConv2dTest, PlanarThreeChannelsStrideOneAndOneChannelStrideTwo) {
  CheckConv({{1, 9, 33, 3}, 8, 3, 3, fb::Padding::SAME, 1, 1});
  CheckConv({{1, 10, 40, 1}, 8, 3, 3, fb::Padding::SAME, 2, 2});
}
TEST(OptimizedConv2dTest, PlanarWeightsAreAGraphInput) {
  Conv c{{1, 18, 40, 3}, 8, 3, 3, fb::Padding::SAME, 2, 2};
  c.filter_is_input = true;
  CheckConv(c);
}

TEST(OptimizedConv2dTest, Activations) {
  CheckConv({{1, 6, 6, 8}, 8, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU}, 3);
  CheckConv({{1, 6, 6, 8}, 8, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU_N1_TO_1}, 4);
}
TEST(OptimizedConv2dTest, Groups) {
  CheckConv({{1, 6, 7, 6}, 4, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::NONE, 2});
  CheckConv({{1, 5, 5, 12}, 9, 1, 1, fb::Padding::VALID, 1, 1, 1, 1, Act::RELU, 3});
}
TEST(OptimizedConv2dTest, FilterIsAGraphInput) {
  Conv c{{1, 6, 6, 5}, 7, 3, 3};
  c.filter_is_input = true;
  CheckConv(c);
}
TEST(OptimizedConv2dTest, LargeCrossesThreadChunksAndWeightBlocks) {
  CheckConv({{1, 28, 28, 16}, 40, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU}, 11);
  // 3x3x200 inputs times 70 outputs: more packed weights than one cache block.
  CheckConv({{1, 9, 9, 200}, 70, 3, 3, fb::Padding::SAME}, 12);
  // Several weight blocks and few row tiles (5, then 1, 2 and 3): the rows are cut into one part
  // per thread before the blocks, unevenly.
  for (const int width : {5, 1, 2, 3}) {
    CheckConv({{1, 8, width, 288}, 128, 1, 1, fb::Padding::VALID}, 13 + width);
  }
}
TEST(OptimizedConv2dTest, Uint8MatchesTheReference) {
  OpCase op;
  const int input = op.AddInputBytes(kTfLiteUInt8, {1, 5, 5, 3}, RandomInts<uint8_t>(75, 1, 0, 255));
  op.test().builder().SetQuantization(input, {0.05f}, {128});
  const int filter = op.test().AddConst<uint8_t>(kTfLiteUInt8, {4, 3, 3, 3}, RandomInts<uint8_t>(108, 2, 0, 255));
  op.test().builder().SetQuantization(filter, {0.02f}, {120});
  const int bias = op.test().AddConst<int32_t>(kTfLiteInt32, {4}, RandomInts<int32_t>(4, 3, -500, 500));
  op.test().builder().SetQuantization(bias, {0.05f * 0.02f}, {0});
  const int output = op.test().AddOutput(kTfLiteUInt8);
  op.test().builder().SetQuantization(output, {0.2f}, {100});
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {output}, fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1).Union());
  op.Check(optimized::Register_CONV_2D(), /*exact=*/true);
}
TEST(OptimizedConv2dTest, RefusesWhatTheReferenceRefuses) {
  // No bias: the reference Prepare refuses it, so the optimized one must too.
  OpTest test(KernelSet::kReference);
  const int input = test.AddInput(kTfLiteFloat32, {1, 3, 3, 1});
  const int filter = test.AddConst<float>(kTfLiteFloat32, {1, 1, 1, 1}, {1.f});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinConv2d, {input, filter}, {output}, fb::BuiltinOptions::Conv2DOptions,
             fb::CreateConv2DOptions(test.fbb(), fb::Padding::SAME, 1, 1).Union());
  EXPECT_FALSE(test.Build().ok());
  // The same model with the optimized kernel.
  std::shared_ptr<const Model> model;
  {
    ModelBuilder builder;
    const int in = builder.AddTensor(kTfLiteFloat32, {1, 3, 3, 1}, "in");
    const int w = builder.AddConstTensor<float>(kTfLiteFloat32, {1, 1, 1, 1}, std::vector<float>{1.f});
    const int out = builder.AddTensor(kTfLiteFloat32, {}, "out");
    builder.AddOperator(kTfLiteBuiltinConv2d, {in, w}, {out}, fb::BuiltinOptions::Conv2DOptions,
                        fb::CreateConv2DOptions(builder.fbb(), fb::Padding::SAME, 1, 1).Union());
    builder.SetInputs({in});
    builder.SetOutputs({out});
    StatusOr<std::shared_ptr<const Model>> loaded = Model::FromBuffer(builder.Finish(), "refuse");
    ASSERT_TRUE(loaded.ok());
    model = loaded.value();
  }
  OptimizedTestResolver resolver;
  InterpreterOptions options;
  StatusOr<std::unique_ptr<Interpreter>> interpreter = Interpreter::Create(model, options, &resolver);
  ASSERT_TRUE(interpreter.ok());
  const Status status = interpreter.value()->AllocateTensors();
  EXPECT_FALSE(status.ok());
  // The runtime's type rules refuse it before either kernel's Prepare runs.
  EXPECT_NE(status.message().find("op 0 (CONV_2D): prepare failed"), std::string::npos) << status.message();
}

// ---- DEPTHWISE_CONV_2D

void CheckDepthwise(const Depthwise& d, uint32_t seed = 1) {
  OpCase op;
  const int channels = d.input[3] * d.multiplier;
  const int input = op.AddFloatInput(d.input, seed);
  const int filter = op.AddFloatConst({1, d.kernel_h, d.kernel_w, channels}, seed + 1);
  std::vector<int> inputs = {input, filter};
  if (d.bias) inputs.push_back(op.AddFloatConst({channels}, seed + 2));
  const int output = op.AddFloatOutput();
  AddDepthwiseOp(op, d, inputs, output);
  op.Check(optimized::Register_DEPTHWISE_CONV_2D());
}

TEST(OptimizedDepthwiseTest, SizeOne) { CheckDepthwise({{1, 1, 1, 1}, 1, 1, 1}); }
TEST(OptimizedDepthwiseTest, ChannelCounts) {
  for (int channels : {1, 3, 4, 8, 16, 24, 32, 37, 64, 67}) {
    SCOPED_TRACE(channels);
    CheckDepthwise({{1, 6, 7, channels}, 1, 3, 3}, channels);
  }
}
TEST(OptimizedDepthwiseTest, StrideTwoSameRelu6) {
  CheckDepthwise({{2, 9, 10, 16}, 1, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6});
}
TEST(OptimizedDepthwiseTest, ValidDilationMixedStrides) {
  CheckDepthwise({{1, 15, 12, 8}, 1, 3, 3, fb::Padding::VALID, 1, 2, 2, 3, Act::RELU});
}
TEST(OptimizedDepthwiseTest, DepthMultiplier) {
  CheckDepthwise({{1, 5, 5, 3}, 2, 3, 3});
  CheckDepthwise({{1, 6, 4, 5}, 3, 2, 3, fb::Padding::VALID, 1, 1, 1, 1, Act::RELU_N1_TO_1});
}
TEST(OptimizedDepthwiseTest, NoBias) {
  CheckDepthwise({{1, 5, 6, 12}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::NONE, false});
}
TEST(OptimizedDepthwiseTest, FiveByFive) { CheckDepthwise({{1, 11, 11, 40}, 1, 5, 5}); }
// The row kernel: runs of 8, 4 and single pixels, channel blocks with and without a partial one,
// edge pixels left and right of the interior, tap rows above and below the input, batches.
TEST(OptimizedDepthwiseTest, RowKernelRunsAndEdges) {
  // Channel counts that do not fill a register are taken in groups of pixels on stride 1 (1, 3,
  // 8, 24 and 40 on AVX-512; 3 on AVX; 1, 3 on SSE2): widths below, at and above a group.
  for (const int width : {1, 2, 3, 5, 8, 13, 21, 40}) {
    for (const int channels : {1, 3, 8, 17, 24, 32, 35, 40}) {
      CheckDepthwise({{2, 4, width, channels}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6},
                     static_cast<uint32_t>(width * 100 + channels));
      CheckDepthwise({{1, 5, width, channels}, 1, 3, 3, fb::Padding::SAME, 2, 2},
                     static_cast<uint32_t>(width * 100 + channels + 7));
    }
  }
}
TEST(OptimizedDepthwiseTest, RowKernelValidDilatedAndWide) {
  CheckDepthwise({{1, 9, 30, 16}, 1, 3, 3, fb::Padding::VALID, 2, 2});
  CheckDepthwise({{1, 9, 30, 24}, 1, 3, 3, fb::Padding::SAME, 1, 1, 2, 2, Act::RELU});
  CheckDepthwise({{1, 7, 19, 9}, 1, 1, 5, fb::Padding::SAME, 1, 3, 1, 2});
  // A window wider than the input: no interior pixel at all.
  CheckDepthwise({{1, 4, 3, 16}, 1, 5, 5, fb::Padding::SAME});
  // More taps than the row kernel keeps: the indirect kernel throughout.
  CheckDepthwise({{1, 12, 12, 16}, 1, 9, 9, fb::Padding::SAME});
}
TEST(OptimizedDepthwiseTest, PaddedRows) {
  // Short rows with many edge pixels take a ring of zero-padded input rows (stride 1): hand_landmark's
  // 5x5 windows on 7x7 and 14x14 maps, channels in whole registers, in pixel groups and partial,
  // batches, dilation, a stride across the row only, and tall maps whose rows split over 4 threads.
  CheckDepthwise({{1, 7, 7, 32}, 1, 5, 5});
  CheckDepthwise({{1, 14, 14, 48}, 1, 5, 5, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6}, 3);
  CheckDepthwise({{2, 7, 7, 24}, 1, 5, 5}, 5);
  CheckDepthwise({{2, 6, 5, 7}, 1, 5, 5, fb::Padding::SAME, 1, 1, 1, 1, Act::NONE, false}, 7);
  CheckDepthwise({{1, 9, 9, 16}, 1, 3, 3, fb::Padding::SAME, 1, 1, 2, 2}, 9);
  CheckDepthwise({{1, 7, 11, 16}, 1, 5, 5, fb::Padding::SAME, 1, 3}, 11);
  CheckDepthwise({{1, 96, 7, 16}, 1, 5, 5}, 13);
  CheckDepthwise({{3, 40, 7, 20}, 1, 5, 3, fb::Padding::SAME, 1, 1, 2, 1, Act::RELU}, 15);
  // On several threads, chunks of whole registers of channels over every row, the last one
  // partial.
  CheckDepthwise({{1, 7, 7, 40}, 1, 5, 5}, 17);
  CheckDepthwise({{2, 14, 14, 72}, 1, 5, 5, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6}, 19);
}
TEST(OptimizedDepthwiseTest, LargeCrossesThreadChunks) {
  CheckDepthwise({{1, 56, 56, 24}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6});
}

// ---- Per-thread scratch

TEST(ThreadScratchTest, PartsAreZeroedAndFarApart) {
  optimized::ThreadScratch<float> scratch;
  scratch.Assign(3, 1000);
  for (int t = 0; t < 3; ++t) {
    const float* part = scratch.part(t);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(part) % 64, 0u) << "part " << t;
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(part[i], 0.f) << "part " << t << " element " << i;
  }
  for (int t = 1; t < 3; ++t) {
    const auto previous_end = reinterpret_cast<uintptr_t>(scratch.part(t - 1) + 1000);
    EXPECT_GE(reinterpret_cast<uintptr_t>(scratch.part(t)) - previous_end, optimized::kThreadScratchGapBytes);
  }
  // Ensure keeps the parts (and what they hold) when the size is unchanged, and sizes again
  // otherwise.
  scratch.part(1)[7] = 5.f;
  scratch.Ensure(3, 1000);
  EXPECT_EQ(scratch.part(1)[7], 5.f);
  scratch.Ensure(2, 10);
  EXPECT_EQ(scratch.count(), 10u);
  EXPECT_EQ(scratch.part(1)[7], 0.f);
  // One thread needs no gap.
  scratch.Assign(1, 16);
  EXPECT_EQ(scratch.part(0)[15], 0.f);
  // Parts sized without zero-filling are zero-filled by a later Ensure of the same size.
  scratch.EnsureUnfilled(2, 64);
  scratch.part(1)[3] = 7.f;
  scratch.EnsureUnfilled(2, 64);
  EXPECT_EQ(scratch.part(1)[3], 7.f);
  scratch.Ensure(2, 64);
  EXPECT_EQ(scratch.part(1)[3], 0.f);
}

// ---- A zero PAD folded into the DEPTHWISE_CONV_2D reading its output

struct PadThenDepthwise {
  std::vector<int> input;         // NHWC of the PAD's input
  std::vector<int32_t> paddings;  // [4][2]: before and after each dimension
  Depthwise depthwise;            // its `input` is ignored
};

// Runs PAD -> DEPTHWISE_CONV_2D against the reference and checks whether the PAD was folded away.
// `second_reader`: another DEPTHWISE_CONV_2D reads the padded tensor too (no folding then).
void CheckPadFolding(const PadThenDepthwise& c, bool folded, uint32_t seed, bool second_reader = false) {
  OpCase op;
  const Depthwise& d = c.depthwise;
  const int input = op.AddFloatInput(c.input, seed);
  const int paddings = op.test().AddConst<int32_t>(kTfLiteInt32, {4, 2}, c.paddings);
  const int padded = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinPad, {input, paddings}, {padded});
  const int channels = (c.input[3] + c.paddings[6] + c.paddings[7]) * d.multiplier;
  const int filter = op.AddFloatConst({1, d.kernel_h, d.kernel_w, channels}, seed + 1);
  std::vector<int> dw_inputs = {padded, filter};
  if (d.bias) dw_inputs.push_back(op.AddFloatConst({channels}, seed + 2));
  AddDepthwiseOp(op, d, dw_inputs, op.AddFloatOutput());
  if (second_reader) AddDepthwiseOp(op, d, dw_inputs, op.AddFloatOutput());
  op.set_inspect([&](Interpreter* interpreter, int, const std::string& label) {
    EXPECT_EQ(interpreter->primary()->tensor_fused_away(padded), folded) << label;
  });
  op.Check(optimized::Register_PAD());
}

TEST(OptimizedPadFoldingTest, ZeroPadsOfRowsAndColumnsFold) {
  // One pixel around, then VALID: the face detectors' pattern.
  CheckPadFolding({{1, 12, 10, 8}, {0, 0, 1, 1, 1, 1, 0, 0}, {{}, 1, 3, 3, fb::Padding::VALID, 1, 1, 1, 1, Act::RELU6}},
                  true, 31);
  // Uneven pads, a stride of 2, two batches, 20 channels (not whole registers).
  CheckPadFolding({{2, 11, 9, 20}, {0, 0, 1, 2, 0, 1, 0, 0}, {{}, 1, 3, 3, fb::Padding::VALID, 2, 2}}, true, 33);
  // The window's own SAME padding adds to the PAD's.
  CheckPadFolding({{1, 9, 9, 16}, {0, 0, 2, 2, 2, 2, 0, 0}, {{}, 1, 5, 5, fb::Padding::SAME}}, true, 35);
  // A depth multiplier of 2 (the indirect path), and no bias.
  CheckPadFolding(
      {{1, 8, 7, 4}, {0, 0, 1, 1, 1, 1, 0, 0}, {{}, 2, 3, 3, fb::Padding::VALID, 1, 1, 1, 1, Act::NONE, false}}, true,
      37);
}
TEST(OptimizedPadFoldingTest, OtherPadsStay) {
  // Channels padded too: the window cannot take that.
  CheckPadFolding({{1, 6, 6, 8}, {0, 0, 1, 1, 1, 1, 0, 2}, {{}, 1, 3, 3, fb::Padding::VALID}}, false, 39);
  // The padded tensor has a second reader.
  CheckPadFolding({{1, 6, 6, 8}, {0, 0, 1, 1, 1, 1, 0, 0}, {{}, 1, 3, 3, fb::Padding::VALID}}, false, 41,
                  /*second_reader=*/true);
}

// ---- A 1x1 CONV_2D fused into the DEPTHWISE_CONV_2D reading its output

// The expansion and depthwise layers of an inverted-residual block: input -> 1x1 CONV_2D ->
// `expanded` channels -> DEPTHWISE_CONV_2D -> output.
struct Expansion {
  std::vector<int> input;  // NHWC of the 1x1 convolution's input
  int expanded;
  Act expansion_activation;
  Depthwise depthwise;                       // its `input` is ignored; multiplier 1
  bool expansion_weights_are_input = false;  // packed at every Invoke
};

enum class Fused { kNever, kOneThread, kAlways };

// Runs the block against the reference (the output, and the expanded tensor too when
// `expanded_is_output`) and checks where the runtime fused the convolution away.
void CheckExpansion(const Expansion& e, Fused fused, uint32_t seed, bool expanded_is_output = false,
                    bool preserve_all_tensors = false) {
  OpCase op;
  const Depthwise& d = e.depthwise;
  const int input = op.AddFloatInput(e.input, seed);
  const int filter = e.expansion_weights_are_input ? op.AddFloatInput({e.expanded, 1, 1, e.input[3]}, seed + 1)
                                                   : op.AddFloatConst({e.expanded, 1, 1, e.input[3]}, seed + 1);
  const int bias = op.AddFloatConst({e.expanded}, seed + 2);
  const int expanded = expanded_is_output ? op.AddFloatOutput() : op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {expanded}, fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1, e.expansion_activation).Union());
  const int dw_filter = op.AddFloatConst({1, d.kernel_h, d.kernel_w, e.expanded}, seed + 3);
  std::vector<int> dw_inputs = {expanded, dw_filter};
  if (d.bias) dw_inputs.push_back(op.AddFloatConst({e.expanded}, seed + 4));
  const int output = op.AddFloatOutput();
  AddDepthwiseOp(op, d, dw_inputs, output);
  op.set_preserve_all_tensors(preserve_all_tensors);
  op.set_inspect([&](Interpreter* interpreter, int threads, const std::string& label) {
    const bool expect_fused = fused == Fused::kAlways || (fused == Fused::kOneThread && threads == 1);
    EXPECT_EQ(interpreter->primary()->tensor_fused_away(expanded), expect_fused) << label;
  });
  op.Check(optimized::Register_CONV_2D());
}

TEST(OptimizedExpansionFusionTest, StrideTwoLikeHandLandmark) {
  // 33 output rows: 8 per chunk on 4 threads, 16 input rows each against 1 shared.
  CheckExpansion({{1, 66, 20, 16}, 64, Act::RELU6, {{}, 1, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6}},
                 Fused::kAlways, 1);
  CheckExpansion({{1, 65, 21, 8}, 24, Act::NONE, {{}, 1, 3, 3, fb::Padding::VALID, 2, 2}}, Fused::kAlways, 3);
}
TEST(OptimizedExpansionFusionTest, StrideOneChannelsInPixelGroupsAndPartial) {
  // 17 rows per chunk on 4 threads against 2 shared; 40 and 37 channels do not fill registers.
  CheckExpansion({{1, 70, 9, 24}, 40, Act::RELU, {{}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6}},
                 Fused::kAlways, 5);
  CheckExpansion({{1, 68, 6, 5}, 37, Act::NONE, {{}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::NONE, false}},
                 Fused::kAlways, 7);
}
TEST(OptimizedExpansionFusionTest, BatchesDilationAndWidthOne) {
  // Chunks across the batches' rows, a dilated VALID window, one-pixel rows with a stride across.
  CheckExpansion({{2, 20, 11, 8}, 32, Act::NONE, {{}, 1, 3, 3, fb::Padding::VALID, 1, 1, 2, 2, Act::RELU}},
                 Fused::kAlways, 11);
  CheckExpansion({{1, 40, 1, 4}, 20, Act::NONE, {{}, 1, 3, 3, fb::Padding::SAME, 1, 2}}, Fused::kAlways, 13);
}
TEST(OptimizedExpansionFusionTest, SmallMapsFuseOnOneThreadOnly) {
  // Fewer than 7 output rows per thread on 4 threads: fused on one thread only.
  CheckExpansion({{1, 7, 7, 8}, 48, Act::RELU6, {{}, 1, 5, 5, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6}},
                 Fused::kOneThread, 9);
  CheckExpansion({{3, 5, 4, 3}, 16, Act::RELU, {{}, 1, 3, 3, fb::Padding::SAME, 2, 1}}, Fused::kOneThread, 15);
  CheckExpansion({{1, 1, 1, 1}, 1, Act::NONE, {{}, 1, 1, 1}}, Fused::kOneThread, 17);
}
TEST(OptimizedExpansionFusionTest, SmallMapsOnSeveralThreadsSplitChannels) {
  // Fewer than 7 output rows per thread on 4 threads, at least 64 channels per thread: chunks take
  // GEMM panels of channels over every row; 300 channels end in a partial panel, the second case
  // has two batches and a stride of 2 across the rows.
  CheckExpansion({{1, 7, 7, 24}, 300, Act::RELU6, {{}, 1, 5, 5, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6}},
                 Fused::kAlways, 25);
  CheckExpansion({{2, 9, 6, 16}, 256, Act::NONE, {{}, 1, 3, 3, fb::Padding::VALID, 2, 1}}, Fused::kAlways, 27);
}
TEST(OptimizedExpansionFusionTest, WeightsPackedAtEveryInvoke) {
  Expansion e{{1, 9, 8, 6}, 24, Act::NONE, {{}, 1, 3, 3}};
  e.expansion_weights_are_input = true;
  CheckExpansion(e, Fused::kOneThread, 19);
}
TEST(OptimizedExpansionFusionTest, NotFusedWhereTheGraphNeedsTheTensor) {
  const Expansion e{{1, 66, 20, 16}, 64, Act::RELU6, {{}, 1, 3, 3, fb::Padding::SAME, 2, 2}};
  // A graph output must be written.
  CheckExpansion(e, Fused::kNever, 21, /*expanded_is_output=*/true);
  // Every tensor readable after Invoke (inference_diff --layerwise).
  CheckExpansion(e, Fused::kNever, 23, false, /*preserve_all_tensors=*/true);
  // Windows the row kernel does not take: more taps than it keeps, a depth multiplier (below).
  CheckExpansion({{1, 12, 12, 8}, 16, Act::NONE, {{}, 1, 9, 9}}, Fused::kNever, 25);
}
TEST(OptimizedExpansionFusionTest, KeepsTheConvolutionInputUntilTheDepthwiseRuns) {
  // The convolution's input comes from an ADD. Its last reader in the plan is the convolution,
  // so without the fused read the planner would give its bytes to the depthwise output.
  OpCase op;
  const int input = op.AddFloatInput({1, 40, 12, 8}, 41);
  const int sum = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinAdd, {input, input}, {sum}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(op.test().fbb()).Union());
  const int filter = op.AddFloatConst({32, 1, 1, 8}, 42);
  const int bias = op.AddFloatConst({32}, 43);
  const int expanded = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinConv2d, {sum, filter, bias}, {expanded}, fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1).Union());
  const int dw_filter = op.AddFloatConst({1, 3, 3, 32}, 44);
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinDepthwiseConv2d, {expanded, dw_filter}, {output},
                  fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1, 1).Union());
  op.set_inspect([&](Interpreter* interpreter, int threads, const std::string& label) {
    if (threads == 1) {
      EXPECT_TRUE(interpreter->primary()->tensor_fused_away(expanded)) << label;
    }
  });
  op.Check(optimized::Register_ADD());
}

TEST(OptimizedExpansionFusionTest, NotFusedWithASecondReader) {
  // The expanded tensor also feeds an ADD: both must see it.
  OpCase op;
  const int input = op.AddFloatInput({1, 10, 10, 8}, 31);
  const int filter = op.AddFloatConst({16, 1, 1, 8}, 32);
  const int bias = op.AddFloatConst({16}, 33);
  const int expanded = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {expanded}, fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1).Union());
  const int dw_filter = op.AddFloatConst({1, 3, 3, 16}, 34);
  const int depthwise = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinDepthwiseConv2d, {expanded, dw_filter}, {depthwise},
                  fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1, 1).Union());
  const int sum = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinAdd, {depthwise, expanded}, {sum}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(op.test().fbb()).Union());
  op.Check(optimized::Register_CONV_2D());
}

// ---- A CONV_2D computed by the ADD reading its output (a residual connection)

struct Residual {
  Conv conv;               // SAME padding: its output is the input's height and width over the stride, rounded up
  bool conv_first = true;  // the convolution's output is the ADD's input 0 (else input 1)
  Act add_activation = Act::NONE;
  // A RELU-family node reading the ADD's output (kTfLiteBuiltinRelu, ...; 0: none), which then computes
  // the ADD (ReluOp::FoldAdd) unless the ADD has another reader.
  int activation_after = 0;
};

enum class ResidualGraph {
  kPlain,
  kSecondReader,  // another ADD reads the convolution's output too
  kConvIsOutput,  // the convolution's output is a graph output
  kBroadcast,     // the other operand is one value per channel
  kMul,           // MUL instead of ADD
};

// Runs CONV_2D -> ADD(conv, other) against the reference, checks whether the ADD computed the
// convolution (its output tensor then fused away), and that every output is bit for bit the nodes'
// apart (run with every tensor kept: no fusion).
void CheckResidual(const Residual& r, ResidualGraph graph, bool fused, uint32_t seed, bool add_fused = false) {
  FusedAgainstApart outputs;
  for (const bool preserve : {false, true}) {
    OpCase op;
    const Conv& c = r.conv;
    const int input = op.AddFloatInput(c.input, seed);
    const std::vector<int> filter_shape = {c.out_channels, c.kernel_h, c.kernel_w, c.input[3] / c.groups};
    const int filter =
        c.filter_is_input ? op.AddFloatInput(filter_shape, seed + 1) : op.AddFloatConst(filter_shape, seed + 1);
    const int bias = op.AddFloatConst({c.out_channels}, seed + 2);
    const int conv_out =
        graph == ResidualGraph::kConvIsOutput ? op.AddFloatOutput() : op.test().AddIntermediate(kTfLiteFloat32);
    AddConvOp(op, c, {input, filter, bias}, conv_out);
    const std::vector<int> out_shape = {c.input[0], (c.input[1] + c.stride_h - 1) / c.stride_h,
                                        (c.input[2] + c.stride_w - 1) / c.stride_w, c.out_channels};
    const int other = graph == ResidualGraph::kBroadcast ? op.AddFloatInput({1, 1, 1, c.out_channels}, seed + 3)
                                                         : op.AddFloatInput(out_shape, seed + 3);
    const std::vector<int> operands =
        r.conv_first ? std::vector<int>{conv_out, other} : std::vector<int>{other, conv_out};
    const int output = r.activation_after != 0 ? op.test().AddIntermediate(kTfLiteFloat32) : op.AddFloatOutput();
    if (graph == ResidualGraph::kMul) {
      op.test().AddOp(kTfLiteBuiltinMul, operands, {output}, fb::BuiltinOptions::MulOptions,
                      fb::CreateMulOptions(op.test().fbb(), r.add_activation).Union());
    } else {
      op.test().AddOp(kTfLiteBuiltinAdd, operands, {output}, fb::BuiltinOptions::AddOptions,
                      fb::CreateAddOptions(op.test().fbb(), r.add_activation).Union());
    }
    if (graph == ResidualGraph::kSecondReader) {
      op.test().AddOp(kTfLiteBuiltinAdd, {conv_out, other}, {op.AddFloatOutput()}, fb::BuiltinOptions::AddOptions,
                      fb::CreateAddOptions(op.test().fbb()).Union());
    }
    if (r.activation_after != 0) {
      op.test().AddOp(r.activation_after, {output}, {op.AddFloatOutput()});
    }
    op.set_preserve_all_tensors(preserve);
    op.set_inspect([&](Interpreter* interpreter, int, const std::string& label) {
      EXPECT_EQ(interpreter->primary()->tensor_fused_away(conv_out), fused && !preserve) << label;
      EXPECT_EQ(interpreter->primary()->tensor_fused_away(output), add_fused && !preserve) << label;
      outputs.Note(preserve, label, Collect(interpreter).outputs);
    });
    op.Check(optimized::Register_CONV_2D());
  }
}

TEST(OptimizedResidualFusionTest, ProjectionLikeHandLandmark) {
  // A 1x1 projection, its output the ADD's first operand; 24 channels (not whole registers).
  CheckResidual({{{1, 16, 12, 32}, 24, 1, 1}}, ResidualGraph::kPlain, true, 51);
  // The second operand, activations on both nodes, two batches, a 3x3 window (merged rows), 20
  // channels.
  Residual r{{{2, 9, 7, 12}, 20, 3, 3}, /*conv_first=*/false, Act::RELU};
  r.conv.activation = Act::RELU6;
  CheckResidual(r, ResidualGraph::kPlain, true, 53);
  // A stride of 2 and one pixel.
  CheckResidual({{{1, 11, 9, 8}, 16, 3, 3, fb::Padding::SAME, 2, 2}, true, Act::RELU_N1_TO_1}, ResidualGraph::kPlain,
                true, 55);
  CheckResidual({{{1, 1, 1, 3}, 5, 1, 1}, false}, ResidualGraph::kPlain, true, 57);
}
TEST(OptimizedResidualFusionTest, WideOutputsInSeveralWeightBlocks) {
  // 640 outputs of 64 inputs: more packed weights than one block, so tiles cover part of a row.
  CheckResidual({{{1, 6, 5, 64}, 640, 1, 1}, false}, ResidualGraph::kPlain, true, 59);
}
TEST(OptimizedResidualFusionTest, WeightsPackedAtEveryInvoke) {
  Residual r{{{1, 8, 8, 16}, 32, 1, 1}};
  r.conv.filter_is_input = true;
  CheckResidual(r, ResidualGraph::kPlain, true, 61);
}
TEST(OptimizedResidualFusionTest, ARectifierAfterComputesTheAddAndTheConvolution) {
  // BlazeFace's blocks: CONV_2D, ADD, RELU; the RELU computes both.
  Residual r{{{1, 16, 16, 24}, 24, 1, 1}, /*conv_first=*/false};
  r.activation_after = kTfLiteBuiltinRelu;
  CheckResidual(r, ResidualGraph::kPlain, true, 75, /*add_fused=*/true);
  // RELU6 after an ADD with its own activation, several weight blocks.
  Residual wide{{{1, 5, 6, 64}, 640, 1, 1}, true, Act::RELU_N1_TO_1};
  wide.activation_after = kTfLiteBuiltinRelu6;
  CheckResidual(wide, ResidualGraph::kPlain, true, 77, /*add_fused=*/true);
  // The ADD over a broadcast operand computes no convolution, and no RELU takes it.
  CheckResidual(r, ResidualGraph::kBroadcast, false, 79, /*add_fused=*/false);
  // Grouped: the RELU computes the ADD alone.
  Residual grouped{{{1, 6, 6, 16}, 16, 3, 3}};
  grouped.conv.groups = 2;
  grouped.activation_after = kTfLiteBuiltinRelu;
  CheckResidual(grouped, ResidualGraph::kPlain, false, 81, /*add_fused=*/true);
}
TEST(OptimizedResidualFusionTest, ARectifierAfterAPlainAddComputesIt) {
  // No convolution: ADD(x, one value, RELU6) then RELU_N1_TO_1; the value first, as the ADD swaps it.
  FusedAgainstApart outputs;
  for (const bool preserve : {false, true}) {
    OpCase op;
    const int value = op.AddFloatInput({1}, 87, -2.f, 2.f);
    const int x = op.AddFloatInput({2, 7, 5, 9}, 88, -3.f, 3.f);
    const int sum = op.test().AddIntermediate(kTfLiteFloat32);
    op.test().AddOp(kTfLiteBuiltinAdd, {value, x}, {sum}, fb::BuiltinOptions::AddOptions,
                    fb::CreateAddOptions(op.test().fbb(), Act::RELU6).Union());
    op.test().AddOp(kTfLiteBuiltinReluN1To1, {sum}, {op.AddFloatOutput()});
    op.set_preserve_all_tensors(preserve);
    op.set_inspect([&](Interpreter* interpreter, int, const std::string& label) {
      EXPECT_EQ(interpreter->primary()->tensor_fused_away(sum), !preserve) << label;
      outputs.Note(preserve, label, Collect(interpreter).outputs);
    });
    op.Check(optimized::Register_ADD());
  }
}
TEST(OptimizedResidualFusionTest, KeepsTheConvolutionInputUntilTheRectifierRuns) {
  // The convolution's input comes from an ADD whose last reader in the plan is the convolution:
  // without the chain's reads the planner could give its bytes to the RELU's output.
  OpCase op;
  const int input = op.AddFloatInput({1, 20, 12, 16}, 83);
  const int sum = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinAdd, {input, input}, {sum}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(op.test().fbb()).Union());
  const int filter = op.AddFloatConst({16, 1, 1, 16}, 84);
  const int bias = op.AddFloatConst({16}, 85);
  const int conv_out = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinConv2d, {sum, filter, bias}, {conv_out}, fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1).Union());
  const int residual_sum = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinAdd, {input, conv_out}, {residual_sum}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(op.test().fbb()).Union());
  op.test().AddOp(kTfLiteBuiltinRelu, {residual_sum}, {op.AddFloatOutput()});
  op.set_inspect([&](Interpreter* interpreter, int, const std::string& label) {
    EXPECT_TRUE(interpreter->primary()->tensor_fused_away(conv_out)) << label;
    EXPECT_TRUE(interpreter->primary()->tensor_fused_away(residual_sum)) << label;
  });
  op.Check(optimized::Register_ADD());
}
TEST(OptimizedResidualFusionTest, NotFusedWhereTheGraphNeedsTheTensorOrTheOpDiffers) {
  const Residual r{{{1, 10, 8, 16}, 24, 1, 1}};
  CheckResidual(r, ResidualGraph::kSecondReader, false, 63);
  CheckResidual(r, ResidualGraph::kConvIsOutput, false, 65);
  CheckResidual(r, ResidualGraph::kBroadcast, false, 67);
  CheckResidual(r, ResidualGraph::kMul, false, 69);
  // Grouped convolutions keep their own Eval.
  Residual grouped{{{1, 6, 6, 16}, 16, 3, 3}};
  grouped.conv.groups = 2;
  CheckResidual(grouped, ResidualGraph::kPlain, false, 73);
}

// ---- A 1x1 CONV_2D over CONCATENATION(RESIZE_BILINEAR(one pixel), rest) (ConvOp::FoldBroadcast)

struct BroadcastConcat {
  std::vector<int> rest;  // NHWC of the concatenation's second input
  int pixel_channels;
  int outputs;
  Act activation = Act::NONE;
  bool align_corners = true;
  int pixel_size = 1;  // the resize input's height and width
  bool weights_are_input = false;
  bool infinite_pixel = false;  // the pixel's first channel +inf (the resize writes NaN there)
};

// Runs RESIZE_BILINEAR -> CONCATENATION -> CONV_2D against the reference, checks whether the
// convolution folded the other two away, and that its output is bit for bit the three nodes' apart
// (run with every tensor kept: no fusion).
void CheckBroadcastConcat(const BroadcastConcat& b, bool folded, uint32_t seed, bool concat_is_output = false) {
  FusedAgainstApart outputs;
  for (const bool preserve : {false, true}) {
    OpCase op;
    const std::vector<int> pixel_shape = {b.rest[0], b.pixel_size, b.pixel_size, b.pixel_channels};
    std::vector<float> pixel_values = RandomFloats(Count(pixel_shape), seed, -1.f, 1.f);
    if (b.infinite_pixel) pixel_values[0] = std::numeric_limits<float>::infinity();
    const int pixel = op.AddInputBytes(kTfLiteFloat32, pixel_shape, Bytes(pixel_values));
    const int size = op.test().AddConst<int32_t>(kTfLiteInt32, {2}, {b.rest[1], b.rest[2]});
    const int resized = op.test().AddIntermediate(kTfLiteFloat32);
    op.test().AddOp(kTfLiteBuiltinResizeBilinear, {pixel, size}, {resized}, fb::BuiltinOptions::ResizeBilinearOptions,
                    fb::CreateResizeBilinearOptions(op.test().fbb(), b.align_corners, false).Union());
    const int rest = op.AddFloatInput(b.rest, seed + 1);
    const int concat = concat_is_output ? op.AddFloatOutput() : op.test().AddIntermediate(kTfLiteFloat32);
    op.test().AddOp(kTfLiteBuiltinConcatenation, {resized, rest}, {concat}, fb::BuiltinOptions::ConcatenationOptions,
                    fb::CreateConcatenationOptions(op.test().fbb(), 3).Union());
    const std::vector<int> filter_shape = {b.outputs, 1, 1, b.pixel_channels + b.rest[3]};
    const int filter =
        b.weights_are_input ? op.AddFloatInput(filter_shape, seed + 2) : op.AddFloatConst(filter_shape, seed + 2);
    const int bias = op.AddFloatConst({b.outputs}, seed + 3);
    op.test().AddOp(kTfLiteBuiltinConv2d, {concat, filter, bias}, {op.AddFloatOutput()},
                    fb::BuiltinOptions::Conv2DOptions,
                    fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1, b.activation).Union());
    op.set_preserve_all_tensors(preserve);
    op.set_inspect([&](Interpreter* interpreter, int, const std::string& label) {
      EXPECT_EQ(interpreter->primary()->tensor_fused_away(resized), folded && !preserve) << label;
      EXPECT_EQ(interpreter->primary()->tensor_fused_away(concat), folded && !preserve) << label;
      outputs.Note(preserve, label, Collect(interpreter).outputs);
    });
    op.Check(optimized::Register_RESIZE_BILINEAR());
  }
}

TEST(OptimizedBroadcastFoldTest, FoldsLikeDeepLabsImagePooling) {
  // Two GEMM registers of outputs and a partial one; channels that fill no register evenly.
  CheckBroadcastConcat({{1, 9, 7, 20}, 12, 37, Act::RELU}, true, 51);
  // One register of outputs, more rows than a tile, a clamp.
  CheckBroadcastConcat({{1, 5, 6, 40}, 24, 16, Act::RELU6}, true, 53);
  // One channel each, one output, one pixel.
  CheckBroadcastConcat({{1, 1, 1, 1}, 1, 1}, true, 55);
  // Weights packed at every Invoke.
  BroadcastConcat input_weights{{1, 4, 4, 8}, 8, 24};
  input_weights.weights_are_input = true;
  CheckBroadcastConcat(input_weights, true, 57);
  // An infinite value: the resize's blend makes it NaN (inf * 0), and so does the fold.
  BroadcastConcat infinite{{1, 3, 4, 8}, 8, 16};
  infinite.infinite_pixel = true;
  CheckBroadcastConcat(infinite, true, 59);
}
TEST(OptimizedBroadcastFoldTest, OtherGraphsStay) {
  // Without align_corners the resize weighs the pixel by fractions: its values are not the pixel's.
  BroadcastConcat fractions{{1, 6, 6, 8}, 8, 16};
  fractions.align_corners = false;
  CheckBroadcastConcat(fractions, false, 61);
  // A resize of 2x2 pixels varies over the map.
  BroadcastConcat pixels{{1, 6, 6, 8}, 8, 16};
  pixels.pixel_size = 2;
  CheckBroadcastConcat(pixels, false, 63);
  // Two batches; the concatenation a graph output.
  CheckBroadcastConcat({{2, 5, 5, 8}, 8, 16}, false, 65);
  CheckBroadcastConcat({{1, 5, 5, 8}, 8, 16}, false, 67, /*concat_is_output=*/true);
}

}  // namespace
}  // namespace touchstone
