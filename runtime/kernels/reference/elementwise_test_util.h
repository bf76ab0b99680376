// Helpers shared by the tests of the reference element-wise kernels (arithmetic_ops_test.cc,
// unary_math_ops_test.cc, activation_ops_test.cc, cast_ops_test.cc, compare_select_ops_test.cc).
// Each test runs a one-op model built in memory through the real loader and interpreter
// (runtime/testing/op_test.h).
//
// Expected values are exact where the arithmetic is exact (integers, quantized cases whose scales
// make every step exact, values that are representable) and otherwise within a few ulp of a double
// evaluation. Bit-exact agreement with TensorFlow Lite on quantized kernels is checked by the op
// suite (../shared/opsuite), whose cases these tests do not duplicate.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_ELEMENTWISE_TEST_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_ELEMENTWISE_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace elementwise_test {

using B = fb::BuiltinOperator;
using Options = std::pair<fb::BuiltinOptions, flatbuffers::Offset<void>>;
using OptionsFn = std::function<Options(flatbuffers::FlatBufferBuilder&)>;

// A graph tensor: type, shape and, when scale > 0, per-tensor quantization.
struct T {
  TfLiteType type;
  std::vector<int> shape = {};
  float scale = 0.0f;
  int64_t zero_point = 0;
};

// One operator whose inputs are all graph inputs and whose output is the graph output.
class OneOp {
 public:
  OneOp(B code, const std::vector<T>& inputs, const T& output, const OptionsFn& options = nullptr) {
    std::vector<int> ins;
    for (const T& t : inputs) ins.push_back(Add(t, /*is_input=*/true));
    const int out = Add(output, /*is_input=*/false);
    Options o{fb::BuiltinOptions::NONE, 0};
    if (options) o = options(test_.fbb());
    test_.AddOp(static_cast<int>(code), ins, {out}, o.first, o.second);
  }
  Status Build() { return test_.Build(); }
  testing::OpTest& t() { return test_; }

 private:
  int Add(const T& t, bool is_input) {
    const int id = is_input ? test_.AddInput(t.type, t.shape) : test_.AddOutput(t.type, t.shape);
    if (t.scale > 0.0f) test_.builder().SetQuantization(id, {t.scale}, {t.zero_point});
    return id;
  }
  testing::OpTest test_;
};

inline OptionsFn AddOpts(fb::ActivationFunctionType a, bool pot_scale_int16 = true) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(b, a, pot_scale_int16).Union()};
  };
}
inline OptionsFn SubOpts(fb::ActivationFunctionType a) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(b, a).Union()};
  };
}
inline OptionsFn MulOpts(fb::ActivationFunctionType a) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(b, a).Union()};
  };
}
inline OptionsFn DivOpts(fb::ActivationFunctionType a) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return Options{fb::BuiltinOptions::DivOptions, fb::CreateDivOptions(b, a).Union()};
  };
}

using fb::ActivationFunctionType;
constexpr float kFloatMax = std::numeric_limits<float>::max();

#define ASSERT_OK(expr)                   \
  do {                                    \
    const Status s_ = (expr);             \
    ASSERT_TRUE(s_.ok()) << s_.message(); \
  } while (0)

inline void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, double rel = 2e-6,
                       double abs = 1e-7) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], static_cast<float>(want[i])) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i]) + abs) << "element " << i;
    }
  }
}

// Runs a float unary op on `x` and returns the output.
inline std::vector<float> RunFloatUnary(B code, const std::vector<float>& x, const OptionsFn& options = nullptr) {
  OneOp op(code, {{kTfLiteFloat32, {static_cast<int>(x.size())}}}, {kTfLiteFloat32}, options);
  Status s = op.Build();
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  op.t().SetInput<float>(0, x);
  s = op.t().Invoke();
  EXPECT_TRUE(s.ok()) << s.message();
  return op.t().GetOutput<float>(0);
}

}  // namespace elementwise_test
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_ELEMENTWISE_TEST_UTIL_H_
