// Tests of the reference activation kernels (activation_ops.cc; helpers in
// elementwise_test_util.h).
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/reference/elementwise_test_util.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using namespace elementwise_test;  // NOLINT(build/namespaces): elementwise_test_util.h's helpers

// ---------------------------------------------------------------------------------------------
// Activations.

TEST(ElementwiseTest, FloatActivations) {
  const std::vector<float> x = {-3.5f, -1.0f, -0.25f, 0.0f, 0.5f, 2.0f, 7.0f};
  std::vector<double> tanh, logistic, relu, relu6, n1, zero_one, hard_swish, elu;
  for (float v : x) {
    const double d = v;
    tanh.push_back(std::tanh(d));
    logistic.push_back(1 / (1 + std::exp(-d)));
    relu.push_back(std::max(0.0, d));
    relu6.push_back(std::min(6.0, std::max(0.0, d)));
    n1.push_back(std::min(1.0, std::max(-1.0, d)));
    zero_one.push_back(std::min(1.0, std::max(0.0, d)));
    hard_swish.push_back(d * std::min(6.0, std::max(0.0, d + 3)) / 6);
    elu.push_back(d < 0 ? std::expm1(d) : d);
  }
  ExpectNear(RunFloatUnary(B::TANH, x), tanh);
  ExpectNear(RunFloatUnary(B::LOGISTIC, x), logistic);
  ExpectNear(RunFloatUnary(B::RELU, x), relu);
  ExpectNear(RunFloatUnary(B::RELU6, x), relu6);
  ExpectNear(RunFloatUnary(B::RELU_N1_TO_1, x), n1);
  ExpectNear(RunFloatUnary(B::RELU_0_TO_1, x), zero_one);
  ExpectNear(RunFloatUnary(B::HARD_SWISH, x), hard_swish);
  ExpectNear(RunFloatUnary(B::ELU, x), elu);
}

TEST(ElementwiseTest, LogisticSaturatesOnExtremeInputs) {
  ExpectNear(RunFloatUnary(B::LOGISTIC, {-100.0f, 100.0f, -20.0f}), {0.0, 1.0, 1 / (1 + std::exp(20.0))}, 1e-5, 1e-7);
}

TEST(ElementwiseTest, LeakyReluUsesAlpha) {
  auto opts = [](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::LeakyReluOptions, fb::CreateLeakyReluOptions(b, 0.1f).Union()};
  };
  EXPECT_EQ(RunFloatUnary(B::LEAKY_RELU, {-2.0f, 0.0f, 3.0f}, opts), (std::vector<float>{-0.2f, 0.0f, 3.0f}));
}

TEST(ElementwiseTest, GeluExactAndApproximate) {
  const std::vector<float> x = {-3.0f, -0.5f, 0.0f, 1.0f, 2.5f};
  std::vector<double> exact, approx;
  for (float v : x) {
    const double d = v;
    exact.push_back(0.5 * d * (1 + std::erf(d / std::sqrt(2.0))));
    approx.push_back(0.5 * d * (1 + std::tanh(std::sqrt(2 / M_PI) * (d + 0.044715 * d * d * d))));
  }
  auto gelu = [](bool approximate) {
    return [approximate](flatbuffers::FlatBufferBuilder& b) {
      return Options{fb::BuiltinOptions::GeluOptions, fb::CreateGeluOptions(b, approximate).Union()};
    };
  };
  ExpectNear(RunFloatUnary(B::GELU, x, gelu(false)), exact, 1e-5, 1e-6);
  ExpectNear(RunFloatUnary(B::GELU, x, gelu(true)), approx, 1e-5, 1e-6);
}

TEST(ElementwiseTest, PreluBroadcastsAlphaPerChannel) {
  OneOp op(B::PRELU, {{kTfLiteFloat32, {2, 3}}, {kTfLiteFloat32, {3}}}, {kTfLiteFloat32});
  ASSERT_OK(op.Build());
  op.t().SetInput<float>(0, {-1, -1, -1, 2, -2, 0});
  op.t().SetInput<float>(1, {0.5f, 0.25f, 2.0f});
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutputShape(0), (std::vector<int>{2, 3}));
  EXPECT_EQ(op.t().GetOutput<float>(0), (std::vector<float>{-0.5f, -0.25f, -2.0f, 2.0f, -0.5f, 0.0f}));

  // Alpha may not enlarge the input's shape.
  OneOp bad(B::PRELU, {{kTfLiteFloat32, {3}}, {kTfLiteFloat32, {2, 3}}}, {kTfLiteFloat32});
  EXPECT_FALSE(bad.Build().ok());
}

TEST(ElementwiseTest, QuantizedReluClampsAndRescales) {
  OneOp op(B::RELU6, {{kTfLiteInt8, {5}, 0.5f, 0}}, {kTfLiteInt8, {}, 0.25f, -128});
  ASSERT_OK(op.Build());
  op.t().SetInput<int8_t>(0, {-10, 0, 3, 12, 100});  // -5, 0, 1.5, 6, 50
  ASSERT_OK(op.t().Invoke());
  EXPECT_EQ(op.t().GetOutput<int8_t>(0), (std::vector<int8_t>{-128, -128, -122, -104, -104}));
}

TEST(ElementwiseTest, QuantizedLogisticAndTanh) {
  // uint8 logistic: output scale 1/256, zero point 0; logistic(0) = 0.5 -> 128.
  OneOp lg(B::LOGISTIC, {{kTfLiteUInt8, {3}, 0.1f, 128}}, {kTfLiteUInt8, {}, 1.0f / 256, 0});
  ASSERT_OK(lg.Build());
  lg.t().SetInput<uint8_t>(0, {128, 0, 255});
  ASSERT_OK(lg.t().Invoke());
  const std::vector<uint8_t> got = lg.t().GetOutput<uint8_t>(0);
  EXPECT_EQ(got[0], 128);
  EXPECT_EQ(got[1], static_cast<uint8_t>(std::round(256 / (1 + std::exp(12.8)))));
  EXPECT_EQ(got[2], 255);  // 256 * logistic(12.7) rounds to 256 and saturates

  // Other 8-bit output scales are refused.
  OneOp bad(B::LOGISTIC, {{kTfLiteInt8, {3}, 0.1f, 0}}, {kTfLiteInt8, {}, 0.01f, 0});
  EXPECT_FALSE(bad.Build().ok());

  // int16 with the power-of-two input scale 2^-12: fixed-point functions on Q3.12.
  OneOp lg16(B::LOGISTIC, {{kTfLiteInt16, {3}, 1.0f / 4096, 0}}, {kTfLiteInt16, {}, 1.0f / 32768, 0});
  ASSERT_OK(lg16.Build());
  lg16.t().SetInput<int16_t>(0, {0, 4096, -4096});
  ASSERT_OK(lg16.t().Invoke());
  const std::vector<int16_t> l = lg16.t().GetOutput<int16_t>(0);
  EXPECT_EQ(l[0], 16384);
  EXPECT_NEAR(l[1], 32768 / (1 + std::exp(-1.0)), 8);  // 16-bit fixed point: a few steps off
  EXPECT_NEAR(l[2], 32768 / (1 + std::exp(1.0)), 8);

  OneOp th16(B::TANH, {{kTfLiteInt16, {3}, 1.0f / 4096, 0}}, {kTfLiteInt16, {}, 1.0f / 32768, 0});
  ASSERT_OK(th16.Build());
  th16.t().SetInput<int16_t>(0, {0, 4096, -8192});
  ASSERT_OK(th16.t().Invoke());
  const std::vector<int16_t> t = th16.t().GetOutput<int16_t>(0);
  EXPECT_EQ(t[0], 0);
  EXPECT_NEAR(t[1], 32768 * std::tanh(1.0), 12);
  EXPECT_NEAR(t[2], 32768 * std::tanh(-2.0), 12);

  // int16 with another scale goes through the interpolated table.
  OneOp th16b(B::TANH, {{kTfLiteInt16, {2}, 0.001f, 0}}, {kTfLiteInt16, {}, 1.0f / 32768, 0});
  ASSERT_OK(th16b.Build());
  th16b.t().SetInput<int16_t>(0, {500, -1500});
  ASSERT_OK(th16b.t().Invoke());
  const std::vector<int16_t> tb = th16b.t().GetOutput<int16_t>(0);
  EXPECT_NEAR(tb[0], 32768 * std::tanh(0.5), 4);
  EXPECT_NEAR(tb[1], 32768 * std::tanh(-1.5), 4);
}

// Runs a quantized unary op (input and output of type `type`) on `x`.
template <typename Q>
std::vector<Q> RunQuantizedUnary(B code, TfLiteType type, float in_scale, int in_zp, float out_scale, int out_zp,
                                 const std::vector<Q>& x, const OptionsFn& options = nullptr) {
  OneOp op(code, {{type, {static_cast<int>(x.size())}, in_scale, in_zp}}, {type, {}, out_scale, out_zp}, options);
  Status s = op.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  op.t().SetInput<Q>(0, x);
  s = op.t().Invoke();
  EXPECT_TRUE(s.ok()) << s.message();
  return op.t().GetOutput<Q>(0);
}

// Anchors for the trickiest fixed-point paths: outputs TensorFlow Lite 2.14.1's built-in kernels
// produce for these inputs and quantizations (from the op suite's LOGISTIC, TANH, HARD_SWISH,
// RSQRT, EXP and GELU cases).
TEST(ElementwiseTest, MatchesTensorFlowLiteOnFixedPointPaths) {
  // int16 logistic, input scale ~2^-12 (fixed-point path) and 2^-9.68 (table path).
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::LOGISTIC, kTfLiteInt16, 0.0002441480755805969f, 0, 3.0517578125e-05f, 0,
                                       {-1287, 24196, -12491, 844}),
            (std::vector<int16_t>{13829, 32678, 1481, 18068}));
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::LOGISTIC, kTfLiteInt16, 0.001220703125f, 0, 3.0517578125e-05f, 0,
                                       {-7766, -3783, -6479}),
            (std::vector<int16_t>{2, 320, 12}));
  // int16 tanh, table path and power-of-two path.
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::TANH, kTfLiteInt16, 0.00015259254723787308f, 0, 3.0517578125e-05f, 0,
                                       {3967, -7280, 18942}),
            (std::vector<int16_t>{17722, -26357, 32567}));
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::TANH, kTfLiteInt16, 0.000244140625f, 0, 3.0517578125e-05f, 0,
                                       {-2079, -1157, 11586}),
            (std::vector<int16_t>{-15336, -9012, 32532}));
  EXPECT_EQ(RunQuantizedUnary<int8_t>(B::HARD_SWISH, kTfLiteInt8, 0.0470588244497776f, 0, 0.025098038837313652f, -112,
                                      {-110, 6, 101, 65, -33}),
            (std::vector<int8_t>{-112, -106, 77, 10, -127}));
  EXPECT_EQ(RunQuantizedUnary<int8_t>(B::RSQRT, kTfLiteInt8, 0.03921568766236305f, -128, 0.013725490309298038f, -128,
                                      {-32, 43, 7}),
            (std::vector<int8_t>{-90, -100, -96}));
  EXPECT_EQ(RunQuantizedUnary<int16_t>(B::EXP, kTfLiteInt16, 0.00012207403779029846f, 0, 0.00022888882085680962f, 0,
                                       {-22194, -8475}),
            (std::vector<int16_t>{291, 1553}));
  auto exact = [](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::GeluOptions, fb::CreateGeluOptions(b, false).Union()};
  };
  EXPECT_EQ(RunQuantizedUnary<int8_t>(B::GELU, kTfLiteInt8, 0.03921568766236305f, 0, 0.02039215713739395f, -118,
                                      {-84, -11, -16}, exact),
            (std::vector<int8_t>{-118, -125, -126}));
}

TEST(ElementwiseTest, QuantizedHardSwishTracksFloat) {
  const float in_scale = 0.05f, out_scale = 0.03f;
  OneOp op(B::HARD_SWISH, {{kTfLiteInt8, {256}, in_scale, 5}}, {kTfLiteInt8, {}, out_scale, -20});
  ASSERT_OK(op.Build());
  std::vector<int8_t> x;
  for (int v = -128; v < 128; ++v) x.push_back(static_cast<int8_t>(v));
  op.t().SetInput<int8_t>(0, x);
  ASSERT_OK(op.t().Invoke());
  const std::vector<int8_t> y = op.t().GetOutput<int8_t>(0);
  for (int i = 0; i < 256; ++i) {
    const double r = in_scale * (x[i] - 5);
    const double expect =
        std::min(127.0, std::max(-128.0, r * std::min(6.0, std::max(0.0, r + 3)) / 6 / out_scale - 20));
    EXPECT_NEAR(y[i], expect, 1.01) << "input " << int(x[i]);
  }
}

}  // namespace
}  // namespace touchstone
