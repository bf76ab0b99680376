// The optimized 16-bit products, the other quantized ADD and MUL forms, QUANTIZE and DEQUANTIZE
// (quantized16.h) against the reference, byte for byte (OpCase, optimized_ops_test_util.h).
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

// ---- 16-bit products, the other quantized ADD and MUL forms, QUANTIZE and DEQUANTIZE
// (quantized16.h): byte-identical to the reference on every kernel set and thread count, and each
// case must take the path (Q16NodesPrepared) and run node 0's optimized Eval.

void CheckQ16(OpCase& op, const TfLiteRegistration* registration, bool fast = true) {
  if (fast) op.RequireOptimizedPath();
  const int64_t before = optimized::Q16NodesPrepared();
  op.Check(registration, /*exact=*/true);
  const int64_t prepared = optimized::Q16NodesPrepared() - before;
  if (fast) {
    EXPECT_GT(prepared, 0) << "the 16-bit path did not take the node";
  } else {
    EXPECT_EQ(prepared, 0) << "the 16-bit path took a node it should leave to the reference";
  }
}

TEST(OptimizedQ16Test, EveryIsaPathIsExercised) {
  std::vector<std::string> names;
  for (const std::string& set : optimized::AvailableKernelSets()) {
    ASSERT_TRUE(optimized::SelectKernelSet(set));
    names.push_back(optimized::Q16KernelsFor(optimized::Kernels()).name);
  }
  optimized::SelectKernelSet(optimized::AvailableKernelSets().front());
  EXPECT_EQ(names.back(), "scalar");
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw")) {
    EXPECT_NE(std::find(names.begin(), names.end(), "avx512vnni"), names.end());
  }
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_NE(std::find(names.begin(), names.end(), "avx2"), names.end());
  }
#endif
}

// Values of a type drawn from [lo, hi], with the first `extremes` elements at the ends of that
// range, mostly `lo` (every fifth `hi`): products of such rows mostly share a sign, so the sums
// reach their largest magnitudes.
template <typename T>
std::vector<uint8_t> QuantValues(size_t n, uint32_t seed, int lo, int hi, size_t extremes = 0) {
  std::vector<T> values = RandomInts<T>(n, seed, lo, hi);
  for (size_t i = 0; i < std::min(extremes, n); ++i) values[i] = static_cast<T>(i % 5 == 4 ? hi : lo);
  return Bytes(values);
}

struct Q16MatMul {
  std::vector<int> lhs, rhs;
  bool adj_x = false, adj_y = false;
  float lhs_scale = 0.01f, rhs_scale = 0.02f, output_scale = 0.3f;
  int lhs_zp = 0, rhs_zp = 0, output_zp = 0;  // int8 only
  bool rhs_constant = false;
  int value_range = 32767;  // |values| drawn up to this (int16)
  bool extremes = false;    // every value at an end of the range
};

void CheckQ16BatchMatMul(TfLiteType type, const Q16MatMul& m, uint32_t seed = 1) {
  OpCase op;
  const bool int16 = type == kTfLiteInt16;
  const int lo = int16 ? -std::min(m.value_range + 1, 32768) : -128;
  const int hi = int16 ? m.value_range : 127;
  auto values = [&](const std::vector<int>& shape, uint32_t s) {
    const size_t n = Count(shape);
    return int16 ? QuantValues<int16_t>(n, s, lo, hi, m.extremes ? n : 16)
                 : QuantValues<int8_t>(n, s, lo, hi, m.extremes ? n : 16);
  };
  const int a = op.AddInputBytes(type, m.lhs, values(m.lhs, seed));
  op.test().builder().SetQuantization(a, {m.lhs_scale}, {m.lhs_zp});
  int b;
  if (m.rhs_constant) {
    b = op.test().AddConst<uint8_t>(type, m.rhs, values(m.rhs, seed + 1));
  } else {
    b = op.AddInputBytes(type, m.rhs, values(m.rhs, seed + 1));
  }
  op.test().builder().SetQuantization(b, {m.rhs_scale}, {m.rhs_zp});
  const int output = op.test().AddOutput(type);
  op.test().builder().SetQuantization(output, {m.output_scale}, {m.output_zp});
  op.test().AddOp(kTfLiteBuiltinBatchMatmul, {a, b}, {output}, fb::BuiltinOptions::BatchMatMulOptions,
                  fb::CreateBatchMatMulOptions(op.test().fbb(), m.adj_x, m.adj_y).Union());
  CheckQ16(op, optimized::Register_BATCH_MATMUL());
}

TEST(OptimizedQ16BatchMatMulTest, Int16Shapes) {
  CheckQ16BatchMatMul(kTfLiteInt16, {{1, 1}, {1, 1}});
  CheckQ16BatchMatMul(kTfLiteInt16, {{3, 5}, {5, 7}});
  // The shape of matmul_quant.tflite's second product, smaller.
  CheckQ16BatchMatMul(kTfLiteInt16, {{1, 1, 40, 256}, {1, 1, 70, 256}, false, true});
  // Depths crossing the 256-value blocks of the 64-bit sums, odd ones.
  CheckQ16BatchMatMul(kTfLiteInt16, {{2, 13, 257}, {2, 257, 33}});
  CheckQ16BatchMatMul(kTfLiteInt16, {{1, 7, 601}, {1, 9, 601}, false, true});
  CheckQ16BatchMatMul(kTfLiteInt16, {{2, 601, 7}, {2, 601, 9}, true, false});
  CheckQ16BatchMatMul(kTfLiteInt16, {{3, 31, 19}, {3, 40, 31}, true, true});
}
TEST(OptimizedQ16BatchMatMulTest, Int16BroadcastsAndConstantRhs) {
  CheckQ16BatchMatMul(kTfLiteInt16, {{2, 1, 3, 4}, {3, 4, 6}});
  CheckQ16BatchMatMul(kTfLiteInt16, {{1, 3, 4}, {5, 4, 7}});
  CheckQ16BatchMatMul(kTfLiteInt16, {{2, 3, 1, 5, 4}, {1, 3, 2, 4, 3}});
  Q16MatMul m{{4, 5, 6}, {6, 45}};
  m.rhs_constant = true;
  CheckQ16BatchMatMul(kTfLiteInt16, m);
}
TEST(OptimizedQ16BatchMatMulTest, Int16ExtremeValuesAndScales) {
  // Every value at -32768 or 32767: sums up to 1000 * 2^30, far past 32 bits.
  Q16MatMul m{{2, 9, 1000}, {2, 1000, 35}};
  m.extremes = true;
  for (float output_scale : {1e-9f, 2e-4f, 1.f, 1e3f, 1e7f}) {
    m.output_scale = output_scale;
    CheckQ16BatchMatMul(kTfLiteInt16, m);
  }
  Q16MatMul small{{1, 20, 300}, {1, 300, 40}};
  small.value_range = 3;
  small.output_scale = 1e-6f;
  CheckQ16BatchMatMul(kTfLiteInt16, small);
}
TEST(OptimizedQ16BatchMatMulTest, Int8ZeroPointsAndShapes) {
  const std::vector<std::tuple<int, int, int>> zero_points = {
      {0, 0, 0}, {-128, 127, -128}, {127, -128, 127}, {5, -3, 9}};
  for (const auto& [lhs_zp, rhs_zp, out_zp] : zero_points) {
    Q16MatMul m{{2, 17, 45}, {2, 45, 70}};
    m.lhs_zp = lhs_zp;
    m.rhs_zp = rhs_zp;
    m.output_zp = out_zp;
    CheckQ16BatchMatMul(kTfLiteInt8, m);
    m.adj_x = m.adj_y = true;
    m.lhs = {2, 45, 17};
    m.rhs = {2, 70, 45};
    CheckQ16BatchMatMul(kTfLiteInt8, m);
  }
  CheckQ16BatchMatMul(kTfLiteInt8, {{1, 1}, {1, 1}});
  Q16MatMul extreme{{1, 3, 5, 300}, {2, 1, 300, 9}};
  extreme.extremes = true;
  extreme.output_scale = 1e-5f;
  CheckQ16BatchMatMul(kTfLiteInt8, extreme);
}

// FULLY_CONNECTED and CONV_2D with int16 activations and int8 weights.
struct Q16Product {
  TfLiteType bias_type = kTfLiteInt64;  // kTfLiteNoType: none
  bool per_channel = false;
  float input_scale = 0.002f, weights_scale = 0.01f, output_scale = 0.05f;
  int weights_zp = 0;  // FULLY_CONNECTED only
  bool extremes = false;
  int64_t bias_range = 1 << 20;
};

std::vector<float> Q16WeightScales(const Q16Product& q, int channels) {
  if (!q.per_channel) return {q.weights_scale};
  std::vector<float> scales(channels);
  for (int c = 0; c < channels; ++c) scales[c] = q.weights_scale * std::pow(10.f, (c % 7) / 2.f - 1.5f);
  return scales;
}

void AddQ16Operands(OpCase& op, const std::vector<int>& input_shape, const std::vector<int>& weights_shape,
                    const Q16Product& q, uint32_t seed, std::vector<int>* inputs) {
  const size_t n = Count(input_shape);
  const int input =
      op.AddInputBytes(kTfLiteInt16, input_shape, QuantValues<int16_t>(n, seed, -32768, 32767, q.extremes ? n : 8));
  op.test().builder().SetQuantization(input, {q.input_scale}, {0});
  const size_t w = Count(weights_shape);
  std::vector<int8_t> weight_values = RandomInts<int8_t>(w, seed + 1, -128, 127);
  if (q.extremes) {
    for (size_t i = 0; i < w; ++i) weight_values[i] = i % 7 == 6 ? 127 : -128;
  }
  const int weights = op.test().AddConst<int8_t>(kTfLiteInt8, weights_shape, weight_values);
  const std::vector<float> scales = Q16WeightScales(q, weights_shape[0]);
  op.test().builder().SetQuantization(weights, scales, std::vector<int64_t>(scales.size(), q.weights_zp), 0);
  inputs->assign({input, weights});
  if (q.bias_type == kTfLiteNoType) return;
  const int channels = weights_shape[0];
  int bias;
  if (q.bias_type == kTfLiteInt64) {
    std::mt19937_64 rng(seed + 2);
    std::uniform_int_distribution<int64_t> dist(-q.bias_range, q.bias_range);
    std::vector<int64_t> values(channels);
    for (int64_t& v : values) v = dist(rng);
    bias = op.test().AddConst<int64_t>(kTfLiteInt64, {channels}, values);
  } else {
    bias = op.test().AddConst<int32_t>(
        kTfLiteInt32, {channels},
        RandomInts<int32_t>(channels, seed + 2, -static_cast<int>(std::min<int64_t>(q.bias_range, INT32_MAX)),
                            static_cast<int>(std::min<int64_t>(q.bias_range, INT32_MAX))));
  }
  std::vector<float> bias_scales = scales;
  for (float& s : bias_scales) s *= q.input_scale;
  op.test().builder().SetQuantization(bias, bias_scales, std::vector<int64_t>(bias_scales.size(), 0));
  inputs->push_back(bias);
}

void CheckQ16FullyConnected(const FullyConnected& f, const Q16Product& q, uint32_t seed = 1) {
  OpCase op;
  std::vector<int> inputs;
  AddQ16Operands(op, f.input, {f.units, f.depth}, q, seed, &inputs);
  const int output = op.test().AddOutput(kTfLiteInt16);
  op.test().builder().SetQuantization(output, {q.output_scale}, {0});
  AddFullyConnectedOp(op, f, inputs, output);
  CheckQ16(op, optimized::Register_FULLY_CONNECTED());
}

void CheckQ16FullyConnectedAllBiases(const FullyConnected& f, Q16Product q = {}, uint32_t seed = 1) {
  for (TfLiteType bias : {kTfLiteInt64, kTfLiteInt32, kTfLiteNoType}) {
    for (bool per_channel : {false, true}) {
      SCOPED_TRACE(std::string(bias == kTfLiteNoType ? "no" : TfLiteTypeGetName(bias)) + " bias" +
                   (per_channel ? ", per channel" : ""));
      q.bias_type = bias;
      q.per_channel = per_channel;
      CheckQ16FullyConnected(f, q, seed);
    }
  }
}

TEST(OptimizedQ16FullyConnectedTest, Shapes) {
  CheckQ16FullyConnectedAllBiases({{1, 1}, 1, 1});
  CheckQ16FullyConnectedAllBiases({{1, 37}, 29, 37, true, false, Act::RELU});
  CheckQ16FullyConnectedAllBiases({{4, 2, 8}, 5, 16});
  CheckQ16FullyConnectedAllBiases({{2, 3, 16}, 10, 16, true, true, Act::RELU6});
  CheckQ16FullyConnectedAllBiases({{13, 64}, 70, 64, true, false, Act::RELU_N1_TO_1});
  // Depths past one 256-value block of the 64-bit sums.
  CheckQ16FullyConnectedAllBiases({{3, 1001}, 33, 1001});
}
TEST(OptimizedQ16FullyConnectedTest, ExtremeQuantization) {
  const FullyConnected f{{5, 700}, 40, 700};
  Q16Product q;
  q.extremes = true;
  for (float output_scale : {1e-9f, 3e-5f, 1.f, 1e4f}) {
    q.output_scale = output_scale;
    q.bias_range = int64_t{1} << 40;
    CheckQ16FullyConnectedAllBiases(f, q);
  }
  // int32 biases at the ends of their range: the 32-bit sums wrap as the reference's do.
  q.output_scale = 0.5f;
  q.bias_range = INT32_MAX;
  q.bias_type = kTfLiteInt32;
  CheckQ16FullyConnected(f, q);
  // Weights with a zero point (FULLY_CONNECTED takes them), at the ends of int8.
  for (int zp : {-128, 127, 3}) {
    Q16Product z;
    z.weights_zp = zp;
    z.bias_type = kTfLiteInt64;
    CheckQ16FullyConnected({{3, 300}, 20, 300}, z);
    z.bias_type = kTfLiteInt32;
    CheckQ16FullyConnected({{3, 300}, 20, 300}, z);
  }
}

void CheckQ16Conv(const Conv& c, const Q16Product& q, uint32_t seed = 1) {
  OpCase op;
  std::vector<int> inputs;
  AddQ16Operands(op, c.input, {c.out_channels, c.kernel_h, c.kernel_w, c.input[3] / c.groups}, q, seed, &inputs);
  const int output = op.test().AddOutput(kTfLiteInt16);
  op.test().builder().SetQuantization(output, {q.output_scale}, {0});
  AddConvOp(op, c, inputs, output);
  CheckQ16(op, optimized::Register_CONV_2D(), c.groups == 1);
}

void CheckQ16ConvAllBiases(const Conv& c, Q16Product q = {}, uint32_t seed = 1) {
  for (TfLiteType bias : {kTfLiteInt64, kTfLiteInt32}) {
    for (bool per_channel : {false, true}) {
      SCOPED_TRACE(std::string(TfLiteTypeGetName(bias)) + " bias" + (per_channel ? ", per channel" : ""));
      q.bias_type = bias;
      q.per_channel = per_channel;
      CheckQ16Conv(c, q, seed);
    }
  }
}

TEST(OptimizedQ16ConvTest, Shapes) {
  CheckQ16ConvAllBiases({{1, 1, 1, 1}, 1, 1, 1});
  CheckQ16ConvAllBiases({{1, 7, 9, 37}, 29, 1, 1});
  CheckQ16ConvAllBiases({{1, 5, 6, 3}, 5, 3, 3});
  CheckQ16ConvAllBiases({{2, 9, 8, 4}, 33, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU});
  CheckQ16ConvAllBiases({{1, 13, 11, 5}, 9, 3, 3, fb::Padding::VALID, 2, 1, 2, 2, Act::RELU6});
  CheckQ16ConvAllBiases({{1, 10, 12, 6}, 40, 5, 3, fb::Padding::SAME, 1, 3, 2, 1});
  // 3x3 x 64 channels: 576 values per row, past two blocks of the 64-bit sums.
  CheckQ16ConvAllBiases({{1, 6, 6, 64}, 20, 3, 3});
}
TEST(OptimizedQ16ConvTest, ExtremeQuantizationAndGroups) {
  Q16Product q;
  q.extremes = true;
  q.bias_range = int64_t{1} << 40;
  for (float output_scale : {1e-9f, 1e-3f, 1e4f}) {
    q.output_scale = output_scale;
    CheckQ16ConvAllBiases({{1, 5, 5, 40}, 12, 3, 3}, q);
  }
  // Grouped convolutions stay on the reference.
  Q16Product g;
  CheckQ16Conv({{1, 6, 7, 6}, 4, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::NONE, 2}, g);
}

// ADD and MUL.
struct Q16Binary {
  int code = kTfLiteBuiltinAdd;
  TfLiteType type = kTfLiteInt16;
  std::vector<int> a_shape, b_shape;
  float a_scale = 0.001f, b_scale = 0.0013f, out_scale = 0.002f;
  int a_zp = 0, b_zp = 0, out_zp = 0;
  Act activation = Act::NONE;
  bool pot_scale_int16 = false;
};

std::vector<uint8_t> TypeValues(TfLiteType type, size_t n, uint32_t seed) {
  if (type == kTfLiteInt16) return QuantValues<int16_t>(n, seed, -32768, 32767, 8);
  if (type == kTfLiteInt8) return QuantValues<int8_t>(n, seed, -128, 127, 8);
  return QuantValues<uint8_t>(n, seed, 0, 255, 8);
}

void CheckQ16BinaryBytes(const Q16Binary& c, std::vector<uint8_t> a_bytes, std::vector<uint8_t> b_bytes,
                         bool fast = true) {
  OpCase op;
  const int a = op.AddInputBytes(c.type, c.a_shape, std::move(a_bytes));
  op.test().builder().SetQuantization(a, {c.a_scale}, {c.a_zp});
  const int b = op.AddInputBytes(c.type, c.b_shape, std::move(b_bytes));
  op.test().builder().SetQuantization(b, {c.b_scale}, {c.b_zp});
  const int output = op.test().AddOutput(c.type);
  op.test().builder().SetQuantization(output, {c.out_scale}, {c.out_zp});
  if (c.code == kTfLiteBuiltinAdd) {
    op.test().AddOp(c.code, {a, b}, {output}, fb::BuiltinOptions::AddOptions,
                    fb::CreateAddOptions(op.test().fbb(), c.activation, c.pot_scale_int16).Union());
    CheckQ16(op, optimized::Register_ADD(), fast);
  } else {
    op.test().AddOp(c.code, {a, b}, {output}, fb::BuiltinOptions::MulOptions,
                    fb::CreateMulOptions(op.test().fbb(), c.activation).Union());
    CheckQ16(op, optimized::Register_MUL(), fast);
  }
}

void CheckQ16Binary(const Q16Binary& c, uint32_t seed = 1) {
  CheckQ16BinaryBytes(c, TypeValues(c.type, Count(c.a_shape), seed), TypeValues(c.type, Count(c.b_shape), seed + 1));
}

// The same case over several broadcast patterns (the first shape is the output's).
void CheckQ16BinaryShapes(Q16Binary c) {
  const std::vector<std::pair<std::vector<int>, std::vector<int>>> shapes = {
      {{1}, {1}},
      {{8, 100, 32, 4}, {8, 100, 32, 4}},  // simple_quantized_ops.tflite's
      {{3, 1029}, {3, 1029}},              // past one expanded buffer
      {{5, 8}, {8}},
      {{7}, {2, 3, 7}},
      {{2, 3, 1}, {1, 3, 4}},
      {{4, 1, 3}, {4, 5, 1}},
      {{2, 1, 1, 1, 1, 1, 3}, {1, 2, 2, 2, 2, 1, 1}},
      {{2, 3000}, {1}},
      {{1}, {2, 3000}},
      {{3000, 1}, {3000, 2}},
      {{40000}, {40000}},  // crosses thread chunks
  };
  for (const auto& [a, b] : shapes) {
    c.a_shape = a;
    c.b_shape = b;
    SCOPED_TRACE("shapes " + ::testing::PrintToString(a) + " and " + ::testing::PrintToString(b));
    CheckQ16Binary(c);
  }
}

TEST(OptimizedQ16BinaryTest, AddInt16) {
  Q16Binary c;
  CheckQ16BinaryShapes(c);
  c.activation = Act::RELU6;
  c.a_scale = 1e-4f;
  c.b_scale = 0.5f;
  c.out_scale = 3e-4f;
  CheckQ16BinaryShapes(c);
  c.activation = Act::RELU_N1_TO_1;
  c.out_scale = 1e-6f;  // a left shift in the output stage
  CheckQ16Binary({kTfLiteBuiltinAdd, kTfLiteInt16, {3, 33}, {3, 33}, 2.f, 1e-5f, 1e-6f});
  CheckQ16Binary({kTfLiteBuiltinAdd, kTfLiteInt16, {3, 33}, {33}, 1.f, 1.f, 100.f});
}
TEST(OptimizedQ16BinaryTest, AddInt16PowerOfTwoScales) {
  Q16Binary c;
  c.pot_scale_int16 = true;
  c.a_scale = 1.f / 4096;
  c.b_scale = 1.f / 32768;
  c.out_scale = 1.f / 4096;
  CheckQ16BinaryShapes(c);
  c.a_scale = 1.f / 1024;
  c.b_scale = 1.f / 1024;
  c.out_scale = 1.f / 1024;
  c.activation = Act::RELU;
  CheckQ16BinaryShapes(c);
  // Scales not all powers of two: the general path.
  c.b_scale = 0.003f;
  CheckQ16BinaryShapes(c);
}
TEST(OptimizedQ16BinaryTest, Add8BitBroadcasts) {
  for (TfLiteType type : {kTfLiteUInt8, kTfLiteInt8}) {
    Q16Binary c;
    c.type = type;
    c.a_scale = 0.02f;
    c.b_scale = 0.05f;
    c.out_scale = 0.04f;
    c.a_zp = type == kTfLiteUInt8 ? 255 : -128;
    c.b_zp = type == kTfLiteUInt8 ? 0 : 127;
    c.out_zp = type == kTfLiteUInt8 ? 128 : 5;
    c.activation = Act::RELU6;
    for (const auto& [a, b] : std::vector<std::pair<std::vector<int>, std::vector<int>>>{
             {{5, 8}, {8}}, {{2, 3, 1}, {1, 3, 4}}, {{1}, {2, 3000}}, {{3000, 1}, {3000, 2}}}) {
      c.a_shape = a;
      c.b_shape = b;
      CheckQ16Binary(c);
    }
  }
}
TEST(OptimizedQ16BinaryTest, MulEveryType) {
  for (TfLiteType type : {kTfLiteInt16, kTfLiteUInt8, kTfLiteInt8}) {
    SCOPED_TRACE(TfLiteTypeGetName(type));
    Q16Binary c;
    c.code = kTfLiteBuiltinMul;
    c.type = type;
    if (type != kTfLiteInt16) {
      c.a_scale = 0.02f;
      c.b_scale = 0.05f;
      c.out_scale = 0.04f;
      c.a_zp = type == kTfLiteUInt8 ? 3 : -7;
      c.b_zp = type == kTfLiteUInt8 ? 250 : 100;
      c.out_zp = type == kTfLiteUInt8 ? 128 : -128;
    } else {
      c.out_scale = 1e-6f;
    }
    CheckQ16BinaryShapes(c);
    c.activation = Act::RELU;
    c.out_scale = type == kTfLiteInt16 ? 1e-9f : 1e-4f;  // left shifts
    CheckQ16Binary({kTfLiteBuiltinMul,
                    type,
                    {3, 33},
                    {3, 33},
                    c.a_scale,
                    c.b_scale,
                    c.out_scale,
                    c.a_zp,
                    c.b_zp,
                    c.out_zp,
                    Act::RELU});
    CheckQ16Binary({kTfLiteBuiltinMul, type, {3, 33}, {1, 33}, 5.f, 7.f, 0.01f, c.a_zp, c.b_zp, c.out_zp, Act::RELU6});
  }
}
// Every pair of 8-bit inputs (a = i / 256, b = i % 256).
TEST(OptimizedQ16BinaryTest, Mul8BitEveryPair) {
  std::vector<uint8_t> a_bytes(65536), b_bytes(65536);
  for (int i = 0; i < 65536; ++i) {
    a_bytes[i] = static_cast<uint8_t>(i / 256);
    b_bytes[i] = static_cast<uint8_t>(i % 256);
  }
  CheckQ16BinaryBytes(
      {kTfLiteBuiltinMul, kTfLiteUInt8, {256, 256}, {256, 256}, 0.0235f, 0.0171f, 0.0297f, 128, 121, 130}, a_bytes,
      b_bytes);
  CheckQ16BinaryBytes(
      {kTfLiteBuiltinMul, kTfLiteInt8, {256, 256}, {256, 256}, 0.12f, 0.012f, 0.08f, -128, 127, -5, Act::RELU6},
      a_bytes, b_bytes);
  CheckQ16BinaryBytes(
      {kTfLiteBuiltinMul, kTfLiteUInt8, {256, 256}, {256, 256}, 0.5f, 0.05f, 1e-3f, 0, 255, 255, Act::RELU}, a_bytes,
      b_bytes);
}
TEST(OptimizedQ16BinaryTest, WhatStaysOnTheReference) {
  // int16 MUL without quantization parameters is integer multiplication: the reference's.
  {
    OpCase op;
    const int a = op.AddInputBytes(kTfLiteInt16, {5, 7}, QuantValues<int16_t>(35, 1, -300, 300));
    const int b = op.AddInputBytes(kTfLiteInt16, {5, 7}, QuantValues<int16_t>(35, 2, -300, 300));
    const int output = op.test().AddOutput(kTfLiteInt16);
    op.test().AddOp(kTfLiteBuiltinMul, {a, b}, {output}, fb::BuiltinOptions::MulOptions,
                    fb::CreateMulOptions(op.test().fbb()).Union());
    CheckQ16(op, optimized::Register_MUL(), /*fast=*/false);
  }
  // The same-shape 8-bit ADD keeps elementwise.cc's own path.
  CheckQ16BinaryBytes({kTfLiteBuiltinAdd, kTfLiteInt8, {4, 9}, {4, 9}, 0.1f, 0.2f, 0.3f},
                      TypeValues(kTfLiteInt8, 36, 1), TypeValues(kTfLiteInt8, 36, 2), /*fast=*/false);
}

// QUANTIZE and DEQUANTIZE.
void CheckConvert(int code, TfLiteType in_type, std::vector<uint8_t> bytes, const std::vector<int>& shape,
                  float in_scale, int in_zp, TfLiteType out_type, float out_scale, int out_zp, bool fast = true,
                  bool constant = false) {
  OpCase op;
  int input;
  if (constant) {
    input = op.test().AddConst<uint8_t>(in_type, shape, bytes);
  } else {
    input = op.AddInputBytes(in_type, shape, std::move(bytes));
  }
  if (in_type != kTfLiteFloat32) op.test().builder().SetQuantization(input, {in_scale}, {in_zp});
  const int output = op.test().AddOutput(out_type);
  if (out_type != kTfLiteFloat32) op.test().builder().SetQuantization(output, {out_scale}, {out_zp});
  op.test().AddOp(code, {input}, {output});
  CheckQ16(op, code == kTfLiteBuiltinQuantize ? optimized::Register_QUANTIZE() : optimized::Register_DEQUANTIZE(),
           fast);
}

// Floats that probe the rounding: halves, the neighbours of halves, values past the int32 range,
// NaN and infinities, then random values.
std::vector<uint8_t> ProbeFloats(size_t n, float scale, uint32_t seed) {
  std::vector<float> values = RandomFloats(n, seed, -40000.f * scale, 40000.f * scale);
  const float specials[] = {0.f,
                            -0.f,
                            0.5f,
                            -0.5f,
                            1.5f,
                            -1.5f,
                            2.5f,
                            -2.5f,
                            0.49999997f,
                            -0.49999997f,
                            127.5f,
                            -128.5f,
                            255.5f,
                            32767.5f,
                            -32768.5f,
                            2147483520.f,
                            -2147483648.f,
                            3e9f,
                            -3e9f,
                            1e30f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            1e-40f,
                            std::nextafter(0.5f, 0.f),
                            std::nextafter(0.5f, 1.f)};
  size_t i = 0;
  for (float v : specials) {
    if (i + 1 >= n) break;
    values[i++] = v * scale;
    values[i++] = v;
  }
  return Bytes(values);
}

TEST(OptimizedQ16ConvertTest, QuantizeFromFloat) {
  for (TfLiteType type : {kTfLiteInt8, kTfLiteUInt8, kTfLiteInt16}) {
    SCOPED_TRACE(TfLiteTypeGetName(type));
    const int zp = type == kTfLiteUInt8 ? 128 : (type == kTfLiteInt8 ? -3 : 0);
    for (float scale : {1.f, 0.0078125f, 0.013f, 1e-6f, 3e4f}) {
      CheckConvert(kTfLiteBuiltinQuantize, kTfLiteFloat32, ProbeFloats(1001, scale, 1), {1001}, 0.f, 0, type, scale,
                   zp);
    }
    CheckConvert(kTfLiteBuiltinQuantize, kTfLiteFloat32, ProbeFloats(1, 1.f, 2), {1}, 0.f, 0, type, 0.5f, zp);
    CheckConvert(kTfLiteBuiltinQuantize, kTfLiteFloat32, ProbeFloats(50000, 0.1f, 3), {2, 25000}, 0.f, 0, type, 0.1f,
                 type == kTfLiteUInt8 ? 255 : (type == kTfLiteInt8 ? 127 : 0));
  }
}
TEST(OptimizedQ16ConvertTest, Requantize) {
  struct Case {
    TfLiteType in, out;
    float in_scale, out_scale;
    int in_zp, out_zp;
  };
  const Case cases[] = {
      {kTfLiteInt8, kTfLiteUInt8, 0.02f, 0.02f, -3, 125},
      {kTfLiteUInt8, kTfLiteInt8, 0.02f, 0.03f, 128, 0},
      {kTfLiteInt8, kTfLiteInt8, 0.5f, 1e-4f, -128, 127},
      {kTfLiteUInt8, kTfLiteUInt8, 1e-4f, 3.f, 255, 0},
      {kTfLiteInt16, kTfLiteInt16, 1e-4f, 3e-5f, 0, 0},
      {kTfLiteInt16, kTfLiteInt16, 0.3f, 1e-9f, 0, 0},
      {kTfLiteInt16, kTfLiteInt8, 1e-3f, 0.05f, 0, -128},
      {kTfLiteInt16, kTfLiteInt8, 1.f, 1e-3f, 0, 127},
      {kTfLiteInt16, kTfLiteInt16, 1e6f, 1e-6f, 0, 0},
      // Ratios that are powers of two: halves exactly, where the rounding of ties decides.
      {kTfLiteInt8, kTfLiteInt8, 0.25f, 1.f, 3, -2},
      {kTfLiteInt16, kTfLiteInt16, 1.f, 8.f, 0, 0},
      {kTfLiteInt16, kTfLiteInt8, 1.f, 512.f, 0, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(TfLiteTypeGetName(c.in)) + " -> " + TfLiteTypeGetName(c.out));
    const size_t n = c.in == kTfLiteInt16 ? 65536 : 256;
    std::vector<uint8_t> bytes;
    // Every input value, then more random ones.
    if (c.in == kTfLiteInt16) {
      std::vector<int16_t> all(n);
      for (size_t i = 0; i < n; ++i) all[i] = static_cast<int16_t>(i);
      bytes = Bytes(all);
    } else {
      bytes.resize(n);
      for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i);
    }
    CheckConvert(kTfLiteBuiltinQuantize, c.in, bytes, {static_cast<int>(n)}, c.in_scale, c.in_zp, c.out, c.out_scale,
                 c.out_zp);
  }
  // int32 on either side (keyword_scrambled.tflite ends with int16 -> int32).
  std::vector<int32_t> wide = RandomInts<int32_t>(1000, 1, INT32_MIN, INT32_MAX);
  wide[0] = INT32_MIN;
  wide[1] = INT32_MAX;
  CheckConvert(kTfLiteBuiltinQuantize, kTfLiteInt32, Bytes(wide), {1000}, 0.5f, 7, kTfLiteInt8, 1e6f, 3);
  CheckConvert(kTfLiteBuiltinQuantize, kTfLiteInt32, Bytes(wide), {1000}, 1e-3f, -9, kTfLiteInt16, 2e-3f, 0);
  CheckConvert(kTfLiteBuiltinQuantize, kTfLiteInt32, Bytes(wide), {1000}, 1.f, 0, kTfLiteInt16, 3e5f, 0);
  std::vector<int16_t> all(65536);
  for (int i = 0; i < 65536; ++i) all[i] = static_cast<int16_t>(i);
  CheckConvert(kTfLiteBuiltinQuantize, kTfLiteInt16, Bytes(all), {65536}, 1.f, 0, kTfLiteInt32, 3e-5f, 11);
  CheckConvert(kTfLiteBuiltinQuantize, kTfLiteInt16, Bytes(all), {65536}, 0.7f, 0, kTfLiteInt32, 0.25f, INT32_MAX);
}
TEST(OptimizedQ16ConvertTest, Dequantize) {
  for (TfLiteType type : {kTfLiteInt8, kTfLiteUInt8, kTfLiteInt16}) {
    SCOPED_TRACE(TfLiteTypeGetName(type));
    for (const auto& [scale, zp] : std::vector<std::pair<float, int>>{{0.1f, 0}, {1e-7f, 3}, {3e4f, -1}}) {
      const int z = type == kTfLiteInt16 ? 0 : (type == kTfLiteUInt8 ? zp + 128 : zp);
      CheckConvert(kTfLiteBuiltinDequantize, type, TypeValues(type, 40001, 1), {40001}, scale, z, kTfLiteFloat32, 0.f,
                   0);
      CheckConvert(kTfLiteBuiltinDequantize, type, TypeValues(type, 1, 2), {1}, scale, z, kTfLiteFloat32, 0.f, 0);
    }
  }
  // A constant is dequantized once by the reference Prepare.
  CheckConvert(kTfLiteBuiltinDequantize, kTfLiteInt8, TypeValues(kTfLiteInt8, 30, 3), {30}, 0.5f, 1, kTfLiteFloat32,
               0.f, 0, /*fast=*/false, /*constant=*/true);
}

}  // namespace
}  // namespace touchstone
