// The optimized uint8, int8 and hybrid CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED kernels
// (quantized.h) against the reference, byte for byte (OpCase, optimized_ops_test_util.h).
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

// ---- Quantized CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (uint8, int8 per-tensor and
// per-channel): byte-identical to the reference on every kernel set (AVX-512 VNNI, AVX2, scalar:
// the float sets "avx512", "avx_fma" and "sse2"/"scalar" select them) and thread count.

TEST(OptimizedQuantizedTest, EveryIsaPathIsExercised) {
  std::vector<std::string> names;
  for (const std::string& set : optimized::AvailableKernelSets()) {
    ASSERT_TRUE(optimized::SelectKernelSet(set));
    names.push_back(optimized::QuantKernelsFor(optimized::Kernels()).name);
  }
  optimized::SelectKernelSet(optimized::AvailableKernelSets().front());
  EXPECT_EQ(names.back(), "scalar");
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512f")) {
    EXPECT_NE(std::find(names.begin(), names.end(), "avx512vnni"), names.end());
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_NE(std::find(names.begin(), names.end(), "avx2"), names.end());
  }
#endif
}

// Quantization of one case: input, weights (one scale per output channel when per_channel) and
// output scales and zero points.
struct Quant {
  float input_scale = 0.05f;
  int input_zero_point = 0;
  float weights_scale = 0.02f;
  int weights_zero_point = 0;
  float output_scale = 0.2f;
  int output_zero_point = 0;
  bool per_channel = false;
  // The bias's values are drawn from [-bias_range, bias_range].
  int bias_range = 3000;
};

Quant Uint8Quant(int input_zp = 128, int weights_zp = 120, int output_zp = 100) {
  Quant q;
  q.input_zero_point = input_zp;
  q.weights_zero_point = weights_zp;
  q.output_zero_point = output_zp;
  return q;
}
Quant Int8Quant(int input_zp = -3, int output_zp = 5, bool per_channel = false) {
  Quant q;
  q.input_zero_point = input_zp;
  q.output_zero_point = output_zp;
  q.per_channel = per_channel;
  return q;
}

int AddQuantInput(OpCase& op, TfLiteType type, const std::vector<int>& shape, uint32_t seed, const Quant& q) {
  const int index = op.AddInputBytes(type, shape, RandomQuantBytes(type, Count(shape), seed));
  op.test().builder().SetQuantization(index, {q.input_scale}, {q.input_zero_point});
  return index;
}

// Weights [channels, ...] (quantized dimension `dimension`), and a matching int32 bias.
std::vector<float> WeightScales(const Quant& q, int channels) {
  if (!q.per_channel) return {q.weights_scale};
  std::vector<float> scales(channels);
  // Scales spread over three orders of magnitude, so the multipliers' shifts differ.
  for (int c = 0; c < channels; ++c) scales[c] = q.weights_scale * std::pow(10.f, (c % 7) / 2.f - 1.5f);
  return scales;
}

int AddQuantWeights(OpCase& op, TfLiteType type, const std::vector<int>& shape, int dimension, uint32_t seed,
                    const Quant& q) {
  const size_t n = Count(shape);
  const int index = type == kTfLiteUInt8
                        ? op.test().AddConst<uint8_t>(type, shape, RandomInts<uint8_t>(n, seed, 0, 255))
                        : op.test().AddConst<int8_t>(type, shape, RandomInts<int8_t>(n, seed, -128, 127));
  const std::vector<float> scales = WeightScales(q, shape[dimension]);
  op.test().builder().SetQuantization(index, scales, std::vector<int64_t>(scales.size(), q.weights_zero_point),
                                      dimension);
  return index;
}

int AddQuantBias(OpCase& op, int channels, uint32_t seed, const Quant& q) {
  const int index = op.test().AddConst<int32_t>(kTfLiteInt32, {channels},
                                                RandomInts<int32_t>(channels, seed, -q.bias_range, q.bias_range));
  std::vector<float> scales = WeightScales(q, channels);
  for (float& s : scales) s *= q.input_scale;
  op.test().builder().SetQuantization(index, scales, std::vector<int64_t>(scales.size(), 0));
  return index;
}

int AddQuantOutput(OpCase& op, TfLiteType type, const Quant& q) {
  const int index = op.test().AddOutput(type);
  op.test().builder().SetQuantization(index, {q.output_scale}, {q.output_zero_point});
  return index;
}

// Runs the case and checks the quantized path took it (or, where `fast` is false, that it left it
// to the reference kernel).
void CheckQuantized(OpCase& op, const TfLiteRegistration* registration, bool fast = true) {
  const int64_t before = optimized::QuantizedNodesPrepared();
  op.Check(registration, /*exact=*/true);
  const int64_t prepared = optimized::QuantizedNodesPrepared() - before;
  if (fast) {
    EXPECT_GT(prepared, 0) << "the quantized path did not take the node";
  } else {
    EXPECT_EQ(prepared, 0) << "the quantized path took a node it should leave to the reference";
  }
}

void CheckQuantConv(TfLiteType type, const Conv& c, const Quant& q, uint32_t seed = 1) {
  OpCase op;
  const int input = AddQuantInput(op, type, c.input, seed, q);
  const int filter =
      AddQuantWeights(op, type, {c.out_channels, c.kernel_h, c.kernel_w, c.input[3] / c.groups}, 0, seed + 1, q);
  const int bias = AddQuantBias(op, c.out_channels, seed + 2, q);
  const int output = AddQuantOutput(op, type, q);
  AddConvOp(op, c, {input, filter, bias}, output);
  CheckQuantized(op, optimized::Register_CONV_2D(), c.groups == 1);
}

// Every shape with uint8, int8 and int8 per-channel.
void CheckQuantConvAllTypes(const Conv& c, uint32_t seed = 1) {
  {
    SCOPED_TRACE("uint8");
    CheckQuantConv(kTfLiteUInt8, c, Uint8Quant(), seed);
  }
  {
    SCOPED_TRACE("int8");
    CheckQuantConv(kTfLiteInt8, c, Int8Quant(), seed);
  }
  {
    SCOPED_TRACE("int8 per-channel");
    CheckQuantConv(kTfLiteInt8, c, Int8Quant(-3, 5, true), seed);
  }
}

TEST(OptimizedQuantizedConvTest, SizeOne) { CheckQuantConvAllTypes({{1, 1, 1, 1}, 1, 1, 1}); }
TEST(OptimizedQuantizedConvTest, PointwiseDirectAndPacked) {
  CheckQuantConvAllTypes({{1, 7, 9, 32}, 29, 1, 1});  // rows read from the input
  CheckQuantConvAllTypes({{1, 7, 9, 37}, 24, 1, 1});  // 37 channels: packed rows
  CheckQuantConvAllTypes({{2, 8, 8, 16}, 8, 1, 1, fb::Padding::VALID, 2, 2});
}
// Few rows read from the input (yamnet's pointwise layers on 6x4 and 3x2 maps): the weights read
// once, panels outer (EvalPanelMajor), and narrow where they fit int8 (int8 weights of zero point
// 0, 256 KiB of them widened) on a set that has the layout; columns enough for every thread's chunk
// of panels.
TEST(OptimizedQuantizedConvTest, FewRowsWeightsReadOnce) {
  const int64_t narrow_before = optimized::NarrowGemmWeightsPacked();
  CheckQuantConvAllTypes({{1, 6, 4, 64}, 300, 1, 1, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6});
  CheckQuantConvAllTypes({{1, 3, 2, 256}, 520, 1, 1}, 2);  // 256 KiB of int16 weights: narrow
  CheckQuantConvAllTypes({{1, 1, 1, 36}, 257, 1, 1}, 3);
#if defined(__x86_64__)
  // The AVX2 set, which has the layout, runs under the avx_fma kernel set wherever the CPU has AVX2.
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_GT(optimized::NarrowGemmWeightsPacked(), narrow_before) << "no GEMM took the narrow weights";
  }
#endif
  (void)narrow_before;
}
TEST(OptimizedQuantizedConvTest, ThreeByThreeOddChannelsAndPadding) {
  CheckQuantConvAllTypes({{1, 5, 6, 3}, 5, 3, 3});
  CheckQuantConvAllTypes({{2, 9, 8, 3}, 16, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6});
  CheckQuantConvAllTypes({{1, 10, 7, 5}, 7, 3, 3, fb::Padding::VALID, 1, 1, 1, 1, Act::RELU});
}
TEST(OptimizedQuantizedConvTest, StridesDilationNonSquare) {
  CheckQuantConvAllTypes({{1, 15, 12, 6}, 9, 3, 3, fb::Padding::VALID, 1, 2, 2, 3});
  CheckQuantConvAllTypes({{1, 9, 11, 4}, 11, 2, 3, fb::Padding::SAME, 2, 1, 1, 2, Act::RELU_N1_TO_1});
}
TEST(OptimizedQuantizedConvTest, ManyColumnsCrossPanelsAndThreadChunks) {
  CheckQuantConvAllTypes({{1, 14, 14, 24}, 130, 1, 1, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6}, 3);
  CheckQuantConvAllTypes({{1, 3, 3, 64}, 200, 3, 3}, 4);
}
TEST(OptimizedQuantizedConvTest, ZeroPointsAtTheRangeEnds) {
  const Conv c{{1, 6, 5, 7}, 17, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU};
  for (int zp : {0, 255}) {
    SCOPED_TRACE(zp);
    CheckQuantConv(kTfLiteUInt8, c, Uint8Quant(zp, 255 - zp, zp));
    CheckQuantConv(kTfLiteUInt8, c, Uint8Quant(zp, zp, 255 - zp));
  }
  for (int zp : {-128, 127}) {
    SCOPED_TRACE(zp);
    CheckQuantConv(kTfLiteInt8, c, Int8Quant(zp, -1 - zp));
    CheckQuantConv(kTfLiteInt8, c, Int8Quant(zp, zp, true));
  }
}
TEST(OptimizedQuantizedConvTest, ExtremeScales) {
  const Conv c{{1, 5, 5, 8}, 20, 3, 3};
  for (float output_scale : {1e-9f, 1e-6f, 3e-4f, 7.f, 1e3f, 1e6f}) {
    SCOPED_TRACE(output_scale);
    // uint8 checks the bias scale against input * weights scales to 0.02 output steps, which a
    // float bias scale cannot meet at 1e-9.
    Quant u = Uint8Quant();
    u.output_scale = std::max(output_scale, 1e-6f);
    CheckQuantConv(kTfLiteUInt8, c, u);
    Quant s = Int8Quant(-3, 5, true);
    s.output_scale = output_scale;
    CheckQuantConv(kTfLiteInt8, c, s);
  }
  // Biases near the int32 limits: the accumulators wrap as the reference's do.
  Quant u = Uint8Quant();
  u.bias_range = 2147483647;
  CheckQuantConv(kTfLiteUInt8, c, u);
  Quant s = Int8Quant();
  s.bias_range = 2147483647;
  s.output_scale = 1e3f;
  CheckQuantConv(kTfLiteInt8, c, s);
}
TEST(OptimizedQuantizedConvTest, GroupsFallBackToTheReference) {
  Conv c{{1, 5, 5, 8}, 4, 3, 3};
  c.groups = 2;
  CheckQuantConv(kTfLiteInt8, c, Int8Quant());
}

void CheckQuantDepthwise(TfLiteType type, const Depthwise& d, const Quant& q, uint32_t seed = 1) {
  OpCase op;
  const int channels = d.input[3] * d.multiplier;
  const int input = AddQuantInput(op, type, d.input, seed, q);
  const int filter = AddQuantWeights(op, type, {1, d.kernel_h, d.kernel_w, channels}, 3, seed + 1, q);
  std::vector<int> inputs = {input, filter};
  if (d.bias) inputs.push_back(AddQuantBias(op, channels, seed + 2, q));
  const int output = AddQuantOutput(op, type, q);
  AddDepthwiseOp(op, d, inputs, output);
  CheckQuantized(op, optimized::Register_DEPTHWISE_CONV_2D());
}

void CheckQuantDepthwiseAllTypes(const Depthwise& d, uint32_t seed = 1) {
  {
    SCOPED_TRACE("uint8");
    CheckQuantDepthwise(kTfLiteUInt8, d, Uint8Quant(), seed);
  }
  {
    SCOPED_TRACE("int8");
    CheckQuantDepthwise(kTfLiteInt8, d, Int8Quant(), seed);
  }
  {
    SCOPED_TRACE("int8 per-channel");
    CheckQuantDepthwise(kTfLiteInt8, d, Int8Quant(-3, 5, true), seed);
  }
}

TEST(OptimizedQuantizedDepthwiseTest, SizeOne) { CheckQuantDepthwiseAllTypes({{1, 1, 1, 1}, 1, 1, 1}); }
TEST(OptimizedQuantizedDepthwiseTest, ChannelCounts) {
  for (int channels : {1, 3, 8, 16, 17, 24, 32, 33, 64, 67}) {
    SCOPED_TRACE(channels);
    CheckQuantDepthwiseAllTypes({{1, 6, 7, channels}, 1, 3, 3}, channels);
  }
}
TEST(OptimizedQuantizedDepthwiseTest, StridesDilationPaddingTaps) {
  CheckQuantDepthwiseAllTypes({{2, 9, 10, 16}, 1, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6});
  CheckQuantDepthwiseAllTypes({{1, 15, 12, 8}, 1, 3, 3, fb::Padding::VALID, 1, 2, 2, 3, Act::RELU});
  CheckQuantDepthwiseAllTypes({{1, 11, 11, 40}, 1, 5, 5});
  CheckQuantDepthwiseAllTypes({{1, 6, 5, 20}, 1, 2, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU_N1_TO_1});
  CheckQuantDepthwiseAllTypes({{1, 5, 6, 12}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::NONE, false});
  CheckQuantDepthwiseAllTypes({{1, 56, 56, 24}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6});
}
TEST(OptimizedQuantizedDepthwiseTest, ExtremeQuantization) {
  const Depthwise d{{1, 6, 6, 19}, 1, 3, 3};
  for (int zp : {0, 255}) CheckQuantDepthwise(kTfLiteUInt8, d, Uint8Quant(zp, 255 - zp, zp));
  for (int zp : {-128, 127}) CheckQuantDepthwise(kTfLiteInt8, d, Int8Quant(zp, zp, true));
  for (float output_scale : {1e-9f, 3e-4f, 1e3f, 1e6f}) {
    Quant q = Int8Quant(-3, 5, true);
    q.output_scale = output_scale;
    q.bias_range = 2147483647;
    CheckQuantDepthwise(kTfLiteInt8, d, q);
    Quant u = Uint8Quant();
    u.output_scale = std::max(output_scale, 1e-6f);
    CheckQuantDepthwise(kTfLiteUInt8, d, u);
  }
}
TEST(OptimizedQuantizedDepthwiseTest, DepthMultiplier) {
  // Any multiplier takes the quantized path (the input expanded per channel), byte for byte the
  // reference's: one input channel to 8 (micro_speech's layer) and to 128 (pc_conv's), odd counts.
  CheckQuantDepthwiseAllTypes({{1, 5, 5, 3}, 2, 3, 3});
  CheckQuantDepthwiseAllTypes({{1, 6, 4, 5}, 3, 2, 3, fb::Padding::VALID, 1, 1, 1, 1, Act::RELU_N1_TO_1});
  CheckQuantDepthwiseAllTypes({{1, 49, 40, 1}, 8, 10, 8, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU});
  CheckQuantDepthwiseAllTypes({{1, 9, 9, 1}, 128, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6});
  CheckQuantDepthwiseAllTypes({{2, 7, 6, 4}, 4, 3, 3, fb::Padding::SAME, 2, 1, 2, 1, Act::NONE, false});
}

// Above 128 KB of whole-image indirection and expansion (1 MB under 64 output channels) the kernel
// goes row by row, expanding the rows a chunk's windows read into a ring: pc_conv's 128 outputs per
// input channel over two batches, a dilated window taller than its stride, and a multiplier of 1 on
// a large image (1.15 MB of tap pointers).
TEST(OptimizedQuantizedDepthwiseTest, LargeImagesRowByRow) {
  CheckQuantDepthwiseAllTypes({{2, 64, 64, 1}, 128, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6});
  CheckQuantDepthwiseAllTypes({{2, 60, 50, 2}, 64, 5, 3, fb::Padding::SAME, 2, 1, 2, 1, Act::NONE, false});
  CheckQuantDepthwiseAllTypes({{1, 120, 120, 8}, 1, 3, 3, fb::Padding::SAME, 1, 1, 2, 2, Act::RELU});
}

void CheckQuantFullyConnected(TfLiteType type, const FullyConnected& f, const Quant& q, uint32_t seed = 1) {
  OpCase op;
  const int input = AddQuantInput(op, type, f.input, seed, q);
  const int weights = AddQuantWeights(op, type, {f.units, f.depth}, 0, seed + 1, q);
  std::vector<int> inputs = {input, weights};
  if (f.bias) inputs.push_back(AddQuantBias(op, f.units, seed + 2, q));
  const int output = AddQuantOutput(op, type, q);
  AddFullyConnectedOp(op, f, inputs, output);
  CheckQuantized(op, optimized::Register_FULLY_CONNECTED());
}

// Hybrid FULLY_CONNECTED (float input, int8 weights with one scale): the reference's arithmetic, so
// the same floats bit for bit, symmetric and asymmetric input quantization, any activation.
void CheckHybridFullyConnected(const FullyConnected& f, bool asymmetric, uint32_t seed = 1) {
  OpCase op;
  const int input = op.AddFloatInput(f.input, seed, -3.f, 2.f);
  const int weights = op.test().AddConst<int8_t>(
      kTfLiteInt8, {f.units, f.depth}, RandomInts<int8_t>(static_cast<size_t>(f.units) * f.depth, seed + 1, -127, 127));
  op.test().builder().SetQuantization(weights, {0.0123f}, {0});
  std::vector<int> inputs = {input, weights};
  if (f.bias) inputs.push_back(op.AddFloatConst({f.units}, seed + 2));
  const int output = op.AddFloatOutput();
  AddFullyConnectedOp(op, f, inputs, output, asymmetric);
  op.RequireOptimizedPath();
  op.Check(optimized::Register_FULLY_CONNECTED(), /*exact=*/true);
}

TEST(OptimizedHybridFullyConnectedTest, ExactlyTheReference) {
  for (bool asymmetric : {false, true}) {
    SCOPED_TRACE(asymmetric);
    CheckHybridFullyConnected({{1, 1}, 1, 1}, asymmetric);
    CheckHybridFullyConnected({{1, 640}, 128, 640}, asymmetric);
    CheckHybridFullyConnected({{3, 37}, 29, 37, true, false, Act::RELU}, asymmetric);
    CheckHybridFullyConnected({{2, 20}, 9, 20, false, false, Act::TANH}, asymmetric);
    CheckHybridFullyConnected({{4, 2, 8}, 5, 16, true, false, Act::SIGN_BIT}, asymmetric);
    CheckHybridFullyConnected({{1, 1000}, 67, 1000, true, false, Act::RELU6}, asymmetric);
  }
}

// Hybrid CONV_2D (float input, int8 weights): one weights scale takes the reference's symmetric
// path, distinct channel scales its asymmetric per-channel one; both bit-exact.
void CheckHybridConv(const Conv& c, bool per_channel, uint32_t seed = 1) {
  OpCase op;
  const int input = op.AddFloatInput(c.input, seed, -3.f, 2.f);
  const int depth = c.input[3];
  const size_t filter_elements = static_cast<size_t>(c.out_channels) * c.kernel_h * c.kernel_w * depth;
  const int filter = op.test().AddConst<int8_t>(kTfLiteInt8, {c.out_channels, c.kernel_h, c.kernel_w, depth},
                                                RandomInts<int8_t>(filter_elements, seed + 1, -127, 127));
  std::vector<float> scales = {0.0123f};
  std::vector<int64_t> zero_points = {0};
  if (per_channel) {
    scales.clear();
    zero_points.assign(c.out_channels, 0);
    for (int o = 0; o < c.out_channels; ++o) scales.push_back(0.004f + 0.001f * static_cast<float>(o % 7));
  }
  op.test().builder().SetQuantization(filter, scales, zero_points, 0);
  const int bias = op.AddFloatConst({c.out_channels}, seed + 2);
  const int output = op.AddFloatOutput();
  AddConvOp(op, c, {input, filter, bias}, output);
  op.RequireOptimizedPath();
  op.Check(optimized::Register_CONV_2D(), /*exact=*/true);
}

TEST(OptimizedHybridConv2dTest, ExactlyTheReference) {
  for (bool per_channel : {false, true}) {
    SCOPED_TRACE(per_channel);
    CheckHybridConv({{1, 1, 1, 1}, 1, 1, 1}, false);
    CheckHybridConv({{1, 1, 1, 1}, 2, 1, 1}, per_channel);
    CheckHybridConv({{1, 7, 9, 37}, 29, 1, 1}, per_channel);
    CheckHybridConv({{2, 9, 8, 16}, 24, 1, 1, fb::Padding::VALID, 2, 2}, per_channel);
    CheckHybridConv({{1, 49, 10, 1}, 64, 10, 4, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU}, per_channel);
    CheckHybridConv({{2, 9, 8, 5}, 17, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6}, per_channel, 3);
    CheckHybridConv({{1, 13, 11, 5}, 9, 3, 3, fb::Padding::VALID, 2, 1, 2, 2}, per_channel, 5);
    CheckHybridConv({{1, 10, 12, 6}, 33, 5, 3, fb::Padding::SAME, 1, 3, 2, 1, Act::RELU_N1_TO_1}, per_channel, 7);
  }
}

void CheckQuantFullyConnectedAllTypes(const FullyConnected& f, uint32_t seed = 1) {
  {
    SCOPED_TRACE("uint8");
    CheckQuantFullyConnected(kTfLiteUInt8, f, Uint8Quant(), seed);
  }
  {
    SCOPED_TRACE("int8");
    CheckQuantFullyConnected(kTfLiteInt8, f, Int8Quant(), seed);
  }
  {
    SCOPED_TRACE("int8 per-channel");
    CheckQuantFullyConnected(kTfLiteInt8, f, Int8Quant(-3, 5, true), seed);
  }
  {
    SCOPED_TRACE("int8 weights with a zero point");
    Quant q = Int8Quant();
    q.weights_zero_point = 3;
    CheckQuantFullyConnected(kTfLiteInt8, f, q, seed);
  }
}

TEST(OptimizedQuantizedFullyConnectedTest, Shapes) {
  CheckQuantFullyConnectedAllTypes({{1, 1}, 1, 1});
  CheckQuantFullyConnectedAllTypes({{1, 37}, 29, 37, true, false, Act::RELU});
  CheckQuantFullyConnectedAllTypes({{3, 20}, 9, 20, false});
  CheckQuantFullyConnectedAllTypes({{4, 2, 8}, 5, 16});
  CheckQuantFullyConnectedAllTypes({{2, 3, 16}, 10, 16, true, true, Act::RELU6});
  CheckQuantFullyConnectedAllTypes({{7, 64}, 130, 64});
  CheckQuantFullyConnectedAllTypes({{1, 1280}, 1001, 1280});
}
// A few batches against many units: EvalPanelMajor, narrow weights where they fit int8 (not with
// the int8 weights' zero point 3, nor uint8's 120 over random bytes: those stay int16).
TEST(OptimizedQuantizedFullyConnectedTest, FewRowsManyUnits) {
  CheckQuantFullyConnectedAllTypes({{3, 96}, 300, 96, true, false, Act::RELU});
  Quant q = Int8Quant();
  q.weights_zero_point = 3;
  CheckQuantFullyConnected(kTfLiteInt8, {{2, 128}, 520, 128}, q, 5);
}
TEST(OptimizedQuantizedFullyConnectedTest, ExtremeQuantization) {
  const FullyConnected f{{5, 33}, 70, 33};
  for (int zp : {0, 255}) CheckQuantFullyConnected(kTfLiteUInt8, f, Uint8Quant(zp, 255 - zp, zp));
  for (int zp : {-128, 127}) CheckQuantFullyConnected(kTfLiteInt8, f, Int8Quant(zp, zp, true));
  for (float output_scale : {1e-9f, 3e-4f, 1e3f, 1e6f}) {
    // FULLY_CONNECTED checks the bias scale for int8 too.
    Quant q = Int8Quant();
    q.output_scale = std::max(output_scale, 1e-6f);
    q.bias_range = 2147483647;
    CheckQuantFullyConnected(kTfLiteInt8, f, q);
    Quant u = Uint8Quant();
    u.output_scale = std::max(output_scale, 1e-6f);
    CheckQuantFullyConnected(kTfLiteUInt8, f, u);
  }
}

}  // namespace
}  // namespace touchstone
