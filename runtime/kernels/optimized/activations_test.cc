// The optimized LOGISTIC and TANH kernels against the reference on every microkernel set and 1 and
// 4 threads (OpCase, optimized_ops_test_util.h).
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

// ---- LOGISTIC and TANH

// One LOGISTIC or TANH over `shape`, input values spread over [lo, hi] (float) or the whole type
// (quantized), against the reference (exactly for the quantized types).
void CheckActivation(int code, TfLiteType type, const std::vector<int>& shape, float in_scale = 0.f,
                     int in_zero_point = 0, float out_scale = 0.f, int out_zero_point = 0, float lo = -8.f,
                     float hi = 8.f, uint32_t seed = 1) {
  OpCase op;
  const size_t n = Count(shape);
  int input = -1;
  switch (type) {
    case kTfLiteFloat32:
      input = op.AddFloatInput(shape, seed, lo, hi);
      break;
    case kTfLiteUInt8:
      input = op.AddInputBytes(type, shape, Bytes(RandomInts<uint8_t>(n, seed, 0, 255)));
      break;
    case kTfLiteInt8:
      input = op.AddInputBytes(type, shape, Bytes(RandomInts<int8_t>(n, seed, -128, 127)));
      break;
    default: {
      std::vector<int16_t> values = RandomInts<int16_t>(n, seed, -32768, 32767);
      // Both ends of the range and 0 as well.
      for (size_t i = 0; i < std::min<size_t>(n, 3); ++i) values[i] = i == 0 ? -32768 : i == 1 ? 32767 : 0;
      input = op.AddInputBytes(type, shape, Bytes(values));
    }
  }
  const int output = op.test().AddOutput(type);
  if (type != kTfLiteFloat32) {
    op.test().builder().SetQuantization(input, {in_scale}, {in_zero_point});
    op.test().builder().SetQuantization(output, {out_scale}, {out_zero_point});
  }
  op.test().AddOp(code, {input}, {output});
  op.RequireOptimizedPath();
  const bool tanh = code == kTfLiteBuiltinTanh;
  op.Check(tanh ? optimized::Register_TANH() : optimized::Register_LOGISTIC(), type != kTfLiteFloat32);
}

TEST(OptimizedActivationTest, Float) {
  for (int code : {kTfLiteBuiltinLogistic, kTfLiteBuiltinTanh}) {
    for (const std::vector<int>& shape : std::vector<std::vector<int>>{{1}, {3, 7}, {2, 5, 33}, {300, 257}}) {
      CheckActivation(code, kTfLiteFloat32, shape);
    }
    CheckActivation(code, kTfLiteFloat32, {1000}, 0.f, 0, 0.f, 0, -100.f, 100.f);
    CheckActivation(code, kTfLiteFloat32, {1000}, 0.f, 0, 0.f, 0, -1e-3f, 1e-3f);
  }
}

TEST(OptimizedActivationTest, EightBit) {
  for (TfLiteType type : {kTfLiteUInt8, kTfLiteInt8}) {
    const int out_zero_point = type == kTfLiteInt8 ? -128 : 0;
    for (const std::vector<int>& shape : std::vector<std::vector<int>>{{1}, {5, 13}, {600, 101}}) {
      // Scales that keep most of the table off its saturated ends.
      CheckActivation(kTfLiteBuiltinLogistic, type, shape, 0.03f, type == kTfLiteInt8 ? 3 : 130, 1.f / 256,
                      out_zero_point);
      CheckActivation(kTfLiteBuiltinTanh, type, shape, 0.015f, type == kTfLiteInt8 ? -7 : 120, 1.f / 128,
                      type == kTfLiteInt8 ? 0 : 128);
    }
    // Extreme input scales and zero points.
    CheckActivation(kTfLiteBuiltinLogistic, type, {77}, 1e-4f, type == kTfLiteInt8 ? 127 : 255, 1.f / 256,
                    out_zero_point);
    CheckActivation(kTfLiteBuiltinTanh, type, {77}, 10.f, type == kTfLiteInt8 ? -128 : 0, 0.003f,
                    type == kTfLiteInt8 ? 100 : 30);
  }
}

TEST(OptimizedActivationTest, Int16) {
  // Q3.12 (the fixed-point path), Q3.11 for TANH (doubled first), and scales that take the table
  // path; sizes across the vector widths.
  for (const std::vector<int>& shape : std::vector<std::vector<int>>{{1}, {31}, {33}, {7, 65}, {500, 131}}) {
    CheckActivation(kTfLiteBuiltinLogistic, kTfLiteInt16, shape, 1.f / 4096, 0, 1.f / 32768, 0);
    CheckActivation(kTfLiteBuiltinTanh, kTfLiteInt16, shape, 1.f / 4096, 0, 1.f / 32768, 0);
    CheckActivation(kTfLiteBuiltinTanh, kTfLiteInt16, shape, 1.f / 2048, 0, 1.f / 32768, 0);
    CheckActivation(kTfLiteBuiltinLogistic, kTfLiteInt16, shape, 0.001f, 0, 1.f / 32768, 0);
    CheckActivation(kTfLiteBuiltinTanh, kTfLiteInt16, shape, 3e-5f, 0, 1.f / 32768, 0);
  }
}

// ---- RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1

// Float values across every bound, with NaN (the reference gives the lower bound), both zeros,
// infinities and denormals, byte for byte against the reference; quantized types run the
// reference Eval (not required to take the optimized path).
TEST(OptimizedReluTest, FloatBitExact) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float special[] = {nan, -nan, inf, -inf, 0.f, -0.f, 1e-40f, -1e-40f, 1.f, -1.f, 6.f, 6.0000005f, 5.9999995f,
                           -1.0000001f, -0.99999994f, 1.0000001f, 0.99999994f};
  const std::vector<std::pair<int, const TfLiteRegistration*>> ops = {
      {kTfLiteBuiltinRelu, optimized::Register_RELU()},
      {kTfLiteBuiltinRelu6, optimized::Register_RELU6()},
      {kTfLiteBuiltinReluN1To1, optimized::Register_RELU_N1_TO_1()},
      {kTfLiteBuiltinRelu0To1, optimized::Register_RELU_0_TO_1()}};
  for (const auto& [code, registration] : ops) {
    // Sizes around the vector widths and the 4-register loop, and one over several chunks.
    for (const std::vector<int>& shape :
         std::vector<std::vector<int>>{{1}, {7}, {17}, {3, 21}, {1, 64, 64, 24}, {2, 33, 65}}) {
      const size_t n = Count(shape);
      std::vector<float> values = RandomFloats(n, static_cast<uint32_t>(n), -8.f, 8.f);
      for (size_t i = 0; i < n; i += 3) values[i] = special[(i / 3) % (sizeof(special) / sizeof(special[0]))];
      OpCase op;
      const int input = op.AddInputBytes(kTfLiteFloat32, shape, Bytes(values));
      const int output = op.test().AddOutput(kTfLiteFloat32);
      op.test().AddOp(code, {input}, {output});
      op.RequireOptimizedPath();
      op.Check(registration, true);
    }
  }
  // Eight-bit RELU keeps the reference's requantization (the reference Eval).
  OpCase op;
  const int input = op.AddInputBytes(kTfLiteInt8, {5, 7}, Bytes(RandomInts<int8_t>(35, 3, -128, 127)));
  const int output = op.test().AddOutput(kTfLiteInt8);
  op.test().builder().SetQuantization(input, {0.05f}, {-3});
  op.test().builder().SetQuantization(output, {0.04f}, {-128});
  op.test().AddOp(kTfLiteBuiltinRelu, {input}, {output});
  op.Check(optimized::Register_RELU(), true);
}

}  // namespace
}  // namespace touchstone
