// The XNNPACK delegate against the reference kernels: every op it takes, float32 and (where this
// XNNPACK has them) int8 and uint8, on the same models and inputs; what it leaves to the interpreter;
// static shapes; threads; float16 weights folded; the provider's default-on rule.
//
// Agreement (docs/xnnpack.md): float32 outputs within 1e-4 of the largest magnitude in the reference
// output; quantized outputs within the steps given per case (XNNPACK requantizes in float arithmetic
// where TFLite's reference uses fixed-point multipliers, so a value on a rounding boundary may land one
// step away).
#include "delegates/xnnpack/xnnpack_delegate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "delegates/xnnpack/xnnpack_provider.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/tensor_util.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;
using testing::RandomFloats;
using testing::RandomInts;
using Build = std::function<void(OpTest&)>;
using fb::ActivationFunctionType;
using fb::Padding;

// ---------------------------------------------------------------------------------------------
// Model helpers.

int QInput(OpTest& t, TfLiteType type, const std::vector<int>& shape, float scale, int zp) {
  const int i = t.AddInput(type, shape);
  t.builder().SetQuantization(i, {scale}, {zp});
  return i;
}

int QOutput(OpTest& t, TfLiteType type, const std::vector<int>& shape, float scale, int zp) {
  const int i = t.AddOutput(type, shape);
  t.builder().SetQuantization(i, {scale}, {zp});
  return i;
}

int QTemp(OpTest& t, TfLiteType type, const std::vector<int>& shape, float scale, int zp) {
  const int i = t.AddIntermediate(type, shape);
  t.builder().SetQuantization(i, {scale}, {zp});
  return i;
}

int FloatConst(OpTest& t, const std::vector<int>& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  return t.AddConst<float>(kTfLiteFloat32, shape, RandomFloats(ElementCount(shape), seed, lo, hi));
}

int Int32Const(OpTest& t, const std::vector<int>& shape, const std::vector<int32_t>& values) {
  return t.AddConst<int32_t>(kTfLiteInt32, shape, values);
}

// Quantized weights: int8 symmetric per tensor (scales.size() == 1) or per channel along `dim`.
int QWeights(OpTest& t, TfLiteType type, const std::vector<int>& shape, const std::vector<float>& scales, int zp,
             int dim, uint32_t seed) {
  int w;
  if (type == kTfLiteInt8) {
    w = t.AddConst<int8_t>(kTfLiteInt8, shape, RandomInts<int8_t>(ElementCount(shape), seed, -127, 127));
  } else {
    w = t.AddConst<uint8_t>(kTfLiteUInt8, shape, RandomInts<uint8_t>(ElementCount(shape), seed, 0, 255));
  }
  t.builder().SetQuantization(w, scales, std::vector<int64_t>(scales.size(), zp), dim);
  return w;
}

int QBias(OpTest& t, int channels, float scale, uint32_t seed) {
  const int b = t.AddConst<int32_t>(kTfLiteInt32, {channels}, RandomInts<int32_t>(channels, seed, -600, 600));
  t.builder().SetQuantization(b, {scale}, {0});
  return b;
}

// ---------------------------------------------------------------------------------------------
// Running a model with the reference kernels, and with the delegate (the rest on the reference).

struct RunResult {
  Status status;
  std::vector<const TfLiteTensor*> outputs;
  std::vector<std::vector<uint8_t>> bytes;
  int delegated = 0;  // original nodes the delegate took (from its log line)
  int partitions = 0;
  int total = 0;
  std::string log;
  std::unique_ptr<OpTest> test;
};

struct DelegateDeleter {
  void operator()(TfLiteDelegate* d) const { TfLiteXNNPackDelegateDelete(d); }
};
using XnnpackPtr = std::unique_ptr<TfLiteDelegate, DelegateDeleter>;

XnnpackPtr MakeDelegate(int threads = 1,
                        uint32_t flags = TFLITE_XNNPACK_DELEGATE_FLAG_QS8 | TFLITE_XNNPACK_DELEGATE_FLAG_QU8) {
  TfLiteXNNPackDelegateOptions options = TfLiteXNNPackDelegateOptionsDefault();
  options.num_threads = threads;
  options.flags = flags;
  ::testing::internal::CaptureStderr();
  XnnpackPtr d(TfLiteXNNPackDelegateCreate(&options));
  ::testing::internal::GetCapturedStderr();
  return d;
}

void FillInputs(OpTest* t, uint32_t seed) {
  Interpreter* interpreter = t->interpreter();
  for (size_t k = 0; k < interpreter->inputs().size(); ++k) {
    TfLiteTensor* in = interpreter->input_tensor(k);
    const size_t n = in->bytes;
    std::mt19937 rng(seed + static_cast<uint32_t>(k) * 7919u);
    if (in->type == kTfLiteFloat32) {
      std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
      for (size_t i = 0; i < n / 4; ++i) reinterpret_cast<float*>(in->data.raw)[i] = dist(rng);
    } else {
      std::uniform_int_distribution<int> dist(0, 255);
      for (size_t i = 0; i < n; ++i) in->data.raw[i] = static_cast<char>(dist(rng));
    }
  }
}

// Counts from "INFO: TfLiteXNNPackDelegate delegate: N nodes delegated out of M nodes with K partitions."
void ParseLog(RunResult* run) {
  const std::string key = "TfLiteXNNPackDelegate delegate: ";
  const size_t at = run->log.find(key);
  if (at == std::string::npos) return;
  std::sscanf(run->log.c_str() + at + key.size(), "%d nodes delegated out of %d nodes with %d partitions",
              &run->delegated, &run->total, &run->partitions);
}

RunResult RunModel(const Build& build, TfLiteDelegate* delegate, uint32_t seed = 1) {
  RunResult run;
  run.test = std::make_unique<OpTest>(KernelSet::kReference);
  build(*run.test);
  run.status = run.test->Build();
  if (!run.status.ok()) return run;
  if (delegate != nullptr) {
    ::testing::internal::CaptureStderr();
    run.status = run.test->interpreter()->ModifyGraphWithDelegate(delegate);
    run.log = ::testing::internal::GetCapturedStderr();
    ParseLog(&run);
    if (!run.status.ok()) return run;
    run.status = run.test->AllocateTensors();
    if (!run.status.ok()) return run;
  }
  FillInputs(run.test.get(), seed);
  run.status = run.test->Invoke();
  if (!run.status.ok()) return run;
  Interpreter* interpreter = run.test->interpreter();
  for (size_t k = 0; k < interpreter->outputs().size(); ++k) {
    const TfLiteTensor* out = interpreter->output_tensor(k);
    run.outputs.push_back(out);
    run.bytes.emplace_back(reinterpret_cast<const uint8_t*>(out->data.raw),
                           reinterpret_cast<const uint8_t*>(out->data.raw) + out->bytes);
  }
  return run;
}

// The largest difference between two outputs: float32 relative to the largest magnitude of `want`,
// quantized in steps; *ok says whether it is within the tolerance.
double Difference(const TfLiteTensor& t, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  if (got.size() != want.size()) return 1e30;
  if (t.type == kTfLiteFloat32) {
    const float* g = reinterpret_cast<const float*>(got.data());
    const float* w = reinterpret_cast<const float*>(want.data());
    const size_t n = got.size() / 4;
    double max_mag = 0.0, max_diff = 0.0;
    for (size_t i = 0; i < n; ++i) {
      if (std::isnan(w[i]) || std::isnan(g[i])) {
        if (std::isnan(w[i]) != std::isnan(g[i])) return 1e30;
        continue;
      }
      max_mag = std::max(max_mag, std::fabs(static_cast<double>(w[i])));
      max_diff = std::max(max_diff, std::fabs(static_cast<double>(g[i]) - w[i]));
    }
    return max_mag > 0.0 ? max_diff / max_mag : max_diff;
  }
  double steps = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const int a = t.type == kTfLiteInt8 ? static_cast<int8_t>(got[i]) : got[i];
    const int b = t.type == kTfLiteInt8 ? static_cast<int8_t>(want[i]) : want[i];
    if (t.type != kTfLiteInt8 && t.type != kTfLiteUInt8 && got[i] != want[i]) return 1e30;
    steps = std::max(steps, static_cast<double>(std::abs(a - b)));
  }
  return steps;
}

struct Expect {
  int delegated = -1;  // nodes the delegate must take (-1: all of them)
  int partitions = 1;
  int steps = 0;  // quantized outputs: the most steps apart allowed
  double float_tolerance = 1e-4;
  int threads = 1;
  uint32_t flags = TFLITE_XNNPACK_DELEGATE_FLAG_QS8 | TFLITE_XNNPACK_DELEGATE_FLAG_QU8;
};

// Runs `build` both ways and compares; prints the measured difference (docs/xnnpack.md).
void ExpectMatches(const std::string& name, const Build& build, const Expect& expect = Expect()) {
  SCOPED_TRACE(name);
  RunResult ref = RunModel(build, nullptr);
  ASSERT_TRUE(ref.status.ok()) << "reference: " << ref.status.message();
  XnnpackPtr delegate = MakeDelegate(expect.threads, expect.flags);
  ASSERT_NE(delegate, nullptr);
  RunResult got = RunModel(build, delegate.get());
  ASSERT_TRUE(got.status.ok()) << "delegated: " << got.status.message() << "\n" << got.log;
  const int want_delegated = expect.delegated >= 0 ? expect.delegated : got.total;
  EXPECT_EQ(got.delegated, want_delegated) << got.log;
  if (want_delegated > 0) {
    EXPECT_EQ(got.partitions, expect.partitions) << got.log;
  }
  ASSERT_EQ(got.bytes.size(), ref.bytes.size());
  for (size_t k = 0; k < ref.bytes.size(); ++k) {
    const TfLiteTensor& t = *ref.outputs[k];
    const double diff = Difference(t, got.bytes[k], ref.bytes[k]);
    std::printf("XNNPACK_DIFF %-40s output %zu %-7s %s %.3g\n", name.c_str(), k, TfLiteTypeGetName(t.type),
                t.type == kTfLiteFloat32 ? "rel" : "steps", diff);
    if (t.type == kTfLiteFloat32) {
      EXPECT_LE(diff, expect.float_tolerance) << "output " << k;
    } else {
      EXPECT_LE(diff, expect.steps) << "output " << k;
    }
  }
}

Expect Delegated(int nodes, int partitions = 1) {
  Expect e;
  e.delegated = nodes;
  e.partitions = partitions;
  return e;
}

Expect Steps(int steps) {
  Expect e;
  e.steps = steps;
  return e;
}

// ---------------------------------------------------------------------------------------------
// Float32 ops.

Build Conv(std::vector<int> in, std::vector<int> w, Padding padding, int stride, int dilation,
           ActivationFunctionType act, bool bias = true) {
  return [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, in);
    const int f = FloatConst(t, w, 11);
    const int b = bias ? FloatConst(t, {w[0]}, 12) : -1;
    const int y = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinConv2d, {x, f, b}, {y}, fb::BuiltinOptions::Conv2DOptions,
            fb::CreateConv2DOptions(t.fbb(), padding, stride, stride, act, dilation, dilation).Union(),
            dilation > 1 ? 2 : 1);
  };
}

TEST(XnnpackDelegateTest, FloatConvolutions) {
  ExpectMatches("conv same s1 relu6",
                Conv({1, 8, 8, 3}, {4, 3, 3, 3}, Padding::SAME, 1, 1, ActivationFunctionType::RELU6));
  ExpectMatches("conv valid s2 batch2",
                Conv({2, 9, 9, 4}, {5, 3, 3, 4}, Padding::VALID, 2, 1, ActivationFunctionType::NONE));
  ExpectMatches("conv same dilation2 relu",
                Conv({1, 10, 10, 4}, {6, 3, 3, 4}, Padding::SAME, 1, 2, ActivationFunctionType::RELU));
  ExpectMatches("conv 1x1",
                Conv({1, 5, 5, 8}, {16, 1, 1, 8}, Padding::VALID, 1, 1, ActivationFunctionType::RELU_N1_TO_1));
  ExpectMatches("conv same s2 even",
                Conv({1, 8, 8, 3}, {8, 3, 3, 3}, Padding::SAME, 2, 1, ActivationFunctionType::NONE));

  auto depthwise = [](std::vector<int> in, std::vector<int> w, Padding padding, int stride, int dilation,
                      int mult) -> Build {
    return [=](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, in);
      const int f = FloatConst(t, w, 21);
      const int b = FloatConst(t, {w[3]}, 22);
      const int y = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinDepthwiseConv2d, {x, f, b}, {y}, fb::BuiltinOptions::DepthwiseConv2DOptions,
              fb::CreateDepthwiseConv2DOptions(t.fbb(), padding, stride, stride, mult, ActivationFunctionType::RELU6,
                                               dilation, dilation)
                  .Union(),
              dilation > 1 ? 2 : 1);
    };
  };
  ExpectMatches("depthwise same s2", depthwise({1, 9, 9, 8}, {1, 3, 3, 8}, Padding::SAME, 2, 1, 1));
  ExpectMatches("depthwise valid multiplier2 dilation2",
                depthwise({1, 10, 10, 3}, {1, 3, 3, 6}, Padding::VALID, 1, 2, 2));

  auto transpose = [](std::vector<int> out, std::vector<int> w, std::vector<int> in, Padding padding, int stride,
                      bool bias) -> Build {
    return [=](OpTest& t) {
      const int shape = Int32Const(t, {4}, std::vector<int32_t>(out.begin(), out.end()));
      const int f = FloatConst(t, w, 31);
      const int x = t.AddInput(kTfLiteFloat32, in);
      const int b = bias ? FloatConst(t, {w[0]}, 32) : -1;
      const int y = t.AddOutput(kTfLiteFloat32, out);
      std::vector<int> inputs = {shape, f, x};
      if (bias) inputs.push_back(b);
      t.AddOp(kTfLiteBuiltinTransposeConv, inputs, {y}, fb::BuiltinOptions::TransposeConvOptions,
              fb::CreateTransposeConvOptions(t.fbb(), padding, stride, stride).Union(), bias ? 3 : 1);
    };
  };
  ExpectMatches("transpose conv same s2", transpose({1, 8, 8, 3}, {3, 3, 3, 4}, {1, 4, 4, 4}, Padding::SAME, 2, true));
  ExpectMatches("transpose conv same s2 odd",
                transpose({1, 7, 7, 2}, {2, 3, 3, 4}, {1, 4, 4, 4}, Padding::SAME, 2, false));
  ExpectMatches("transpose conv valid s2",
                transpose({1, 9, 9, 2}, {2, 3, 3, 4}, {1, 4, 4, 4}, Padding::VALID, 2, true));
  ExpectMatches("transpose conv valid s1",
                transpose({2, 6, 5, 3}, {3, 3, 2, 2}, {2, 4, 4, 2}, Padding::VALID, 1, true));
}

Build FullyConnected(std::vector<int> in, std::vector<int> out, int units, bool keep_num_dims, bool bias) {
  return [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, in);
    const int w = FloatConst(t, {units, 10}, 41);
    const int b = bias ? FloatConst(t, {units}, 42) : -1;
    const int y = t.AddOutput(kTfLiteFloat32, out);
    t.AddOp(kTfLiteBuiltinFullyConnected, {x, w, b}, {y}, fb::BuiltinOptions::FullyConnectedOptions,
            fb::CreateFullyConnectedOptions(t.fbb(), ActivationFunctionType::RELU,
                                            fb::FullyConnectedOptionsWeightsFormat::DEFAULT, keep_num_dims)
                .Union(),
            keep_num_dims ? 5 : 1);
  };
}

TEST(XnnpackDelegateTest, FloatFullyConnected) {
  ExpectMatches("fc 2-D", FullyConnected({3, 10}, {3, 7}, 7, false, true));
  ExpectMatches("fc flattening", FullyConnected({2, 5, 4}, {4, 7}, 7, false, false));
  ExpectMatches("fc keep_num_dims", FullyConnected({2, 3, 10}, {2, 3, 7}, 7, true, true));
}

Build Binary(int op, std::vector<int> a, std::vector<int> b, ActivationFunctionType act, bool b_const = false) {
  return [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, a);
    const int y = b_const ? FloatConst(t, b, 51, 0.5f, 2.0f) : t.AddInput(kTfLiteFloat32, b);
    const int z = t.AddOutput(kTfLiteFloat32);
    switch (op) {
      case kTfLiteBuiltinAdd:
        t.AddOp(op, {x, y}, {z}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb(), act).Union());
        break;
      case kTfLiteBuiltinSub:
        t.AddOp(op, {x, y}, {z}, fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(t.fbb(), act).Union());
        break;
      case kTfLiteBuiltinMul:
        t.AddOp(op, {x, y}, {z}, fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(t.fbb(), act).Union());
        break;
      case kTfLiteBuiltinDiv:
        t.AddOp(op, {x, y}, {z}, fb::BuiltinOptions::DivOptions, fb::CreateDivOptions(t.fbb(), act).Union());
        break;
      default:
        t.AddOp(op, {x, y}, {z});
    }
  };
}

TEST(XnnpackDelegateTest, FloatElementwiseBinary) {
  ExpectMatches("add broadcast relu", Binary(kTfLiteBuiltinAdd, {2, 3, 4}, {4}, ActivationFunctionType::RELU));
  ExpectMatches("add constant", Binary(kTfLiteBuiltinAdd, {1, 4, 4, 3}, {3}, ActivationFunctionType::NONE, true));
  ExpectMatches("sub broadcast 4-D",
                Binary(kTfLiteBuiltinSub, {1, 4, 4, 3}, {1, 1, 1, 3}, ActivationFunctionType::RELU6));
  ExpectMatches("mul both broadcast", Binary(kTfLiteBuiltinMul, {2, 1, 4}, {3, 1}, ActivationFunctionType::NONE));
  ExpectMatches("div constant", Binary(kTfLiteBuiltinDiv, {2, 3, 4}, {4}, ActivationFunctionType::NONE, true));
  ExpectMatches("maximum", Binary(kTfLiteBuiltinMaximum, {2, 3, 4}, {2, 3, 4}, ActivationFunctionType::NONE));
  ExpectMatches("minimum broadcast", Binary(kTfLiteBuiltinMinimum, {2, 3, 4}, {1, 4}, ActivationFunctionType::NONE));
  ExpectMatches("squared difference",
                Binary(kTfLiteBuiltinSquaredDifference, {5, 6}, {5, 6}, ActivationFunctionType::NONE));
  ExpectMatches("add 6-D", Binary(kTfLiteBuiltinAdd, {1, 2, 1, 3, 2, 2}, {2, 1, 1, 2}, ActivationFunctionType::NONE));
}

Build Pool(int op, std::vector<int> in, int filter, int stride, Padding padding, ActivationFunctionType act) {
  return [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, in);
    const int y = t.AddOutput(kTfLiteFloat32);
    t.AddOp(op, {x}, {y}, fb::BuiltinOptions::Pool2DOptions,
            fb::CreatePool2DOptions(t.fbb(), padding, stride, stride, filter, filter, act).Union());
  };
}

TEST(XnnpackDelegateTest, FloatPoolingAndMean) {
  ExpectMatches("max pool same s2",
                Pool(kTfLiteBuiltinMaxPool2d, {1, 9, 9, 4}, 3, 2, Padding::SAME, ActivationFunctionType::NONE));
  ExpectMatches("max pool valid relu",
                Pool(kTfLiteBuiltinMaxPool2d, {2, 8, 8, 3}, 2, 2, Padding::VALID, ActivationFunctionType::RELU));
  ExpectMatches("avg pool valid s2",
                Pool(kTfLiteBuiltinAveragePool2d, {1, 8, 8, 4}, 2, 2, Padding::VALID, ActivationFunctionType::NONE));
  ExpectMatches("avg pool same s1 (edges)",
                Pool(kTfLiteBuiltinAveragePool2d, {1, 5, 5, 2}, 3, 1, Padding::SAME, ActivationFunctionType::RELU6));
  ExpectMatches("avg pool global",
                Pool(kTfLiteBuiltinAveragePool2d, {1, 7, 7, 8}, 7, 1, Padding::VALID, ActivationFunctionType::NONE));
  ExpectMatches("max pool 1x1",
                Pool(kTfLiteBuiltinMaxPool2d, {1, 4, 4, 3}, 1, 1, Padding::VALID, ActivationFunctionType::RELU));

  auto mean = [](std::vector<int32_t> axes, bool keep) -> Build {
    return [=](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, {2, 5, 5, 6});
      const int a = Int32Const(t, {static_cast<int>(axes.size())}, axes);
      const int y = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinMean, {x, a}, {y}, fb::BuiltinOptions::ReducerOptions,
              fb::CreateReducerOptions(t.fbb(), keep).Union());
    };
  };
  ExpectMatches("mean keep_dims", mean({1, 2}, true));
  ExpectMatches("mean reduced", mean({2, 1}, false));
  ExpectMatches("mean negative axes", mean({-3, -2}, false));
  // Other axes stay on the interpreter.
  ExpectMatches("mean over channels", mean({3}, true), Delegated(0));
}

Build Unary(int op, std::vector<int> shape, fb::BuiltinOptions type = fb::BuiltinOptions::NONE,
            std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)> options = nullptr) {
  return [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, shape);
    const int y = t.AddOutput(kTfLiteFloat32, shape);
    t.AddOp(op, {x}, {y}, type, options ? options(t.fbb()) : 0);
  };
}

TEST(XnnpackDelegateTest, FloatActivationsAndMath) {
  ExpectMatches("softmax",
                Unary(kTfLiteBuiltinSoftmax, {3, 10}, fb::BuiltinOptions::SoftmaxOptions,
                      [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateSoftmaxOptions(b, 1.0f).Union(); }));
  ExpectMatches("softmax beta 2 stays",
                Unary(kTfLiteBuiltinSoftmax, {3, 10}, fb::BuiltinOptions::SoftmaxOptions,
                      [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateSoftmaxOptions(b, 2.0f).Union(); }),
                Delegated(0));
  ExpectMatches("logistic", Unary(kTfLiteBuiltinLogistic, {2, 3, 5}));
  ExpectMatches("hard swish", Unary(kTfLiteBuiltinHardSwish, {1, 4, 4, 3}));
  ExpectMatches("elu", Unary(kTfLiteBuiltinElu, {4, 6}));
  ExpectMatches("leaky relu",
                Unary(kTfLiteBuiltinLeakyRelu, {4, 6}, fb::BuiltinOptions::LeakyReluOptions,
                      [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateLeakyReluOptions(b, 0.2f).Union(); }));
  for (int op : {kTfLiteBuiltinRelu, kTfLiteBuiltinRelu6, kTfLiteBuiltinReluN1To1, kTfLiteBuiltinRelu0To1,
                 kTfLiteBuiltinAbs, kTfLiteBuiltinCeil, kTfLiteBuiltinFloor, kTfLiteBuiltinNeg, kTfLiteBuiltinRound,
                 kTfLiteBuiltinSquare, kTfLiteBuiltinSqrt}) {
    ExpectMatches("unary op " + std::to_string(op), Unary(op, {2, 3, 7}));
  }
  auto prelu = [](std::vector<int> slope) -> Build {
    return [=](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, {1, 4, 4, 3});
      const int s = FloatConst(t, slope, 61, -0.5f, 0.5f);
      const int y = t.AddOutput(kTfLiteFloat32, {1, 4, 4, 3});
      t.AddOp(kTfLiteBuiltinPrelu, {x, s}, {y});
    };
  };
  ExpectMatches("prelu per channel", prelu({3}));
  ExpectMatches("prelu [1,1,3]", prelu({1, 1, 3}));
  ExpectMatches("prelu one slope", prelu({1}));
}

TEST(XnnpackDelegateTest, FloatShapesAndResampling) {
  ExpectMatches("pad", [](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {1, 3, 3, 2});
    const int p = Int32Const(t, {4, 2}, {0, 0, 1, 2, 2, 1, 0, 0});
    const int y = t.AddOutput(kTfLiteFloat32, {1, 6, 6, 2});
    t.AddOp(kTfLiteBuiltinPad, {x, p}, {y}, fb::BuiltinOptions::PadOptions, fb::CreatePadOptions(t.fbb()).Union());
  });
  ExpectMatches("padv2", [](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {2, 3});
    const int p = Int32Const(t, {2, 2}, {1, 0, 0, 2});
    const int v = t.AddConst<float>(kTfLiteFloat32, {}, {1.5f});
    const int y = t.AddOutput(kTfLiteFloat32, {3, 5});
    t.AddOp(kTfLiteBuiltinPadv2, {x, p, v}, {y});
  });
  ExpectMatches("reshape", [](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {1, 4, 4, 3});
    const int s = Int32Const(t, {2}, {1, 48});
    const int y = t.AddOutput(kTfLiteFloat32, {1, 48});
    t.AddOp(kTfLiteBuiltinReshape, {x, s}, {y});
  });
  ExpectMatches("squeeze", [](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {1, 1, 6});
    const int y = t.AddOutput(kTfLiteFloat32, {6});
    t.AddOp(kTfLiteBuiltinSqueeze, {x}, {y});
  });
  ExpectMatches("expand dims", [](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {6});
    const int a = Int32Const(t, {1}, {0});
    const int y = t.AddOutput(kTfLiteFloat32, {1, 6});
    t.AddOp(kTfLiteBuiltinExpandDims, {x, a}, {y});
  });
  for (int mode = 0; mode < 3; ++mode) {
    ExpectMatches("resize bilinear mode " + std::to_string(mode), [mode](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, {1, 4, 5, 3});
      const int s = Int32Const(t, {2}, {8, 9});
      const int y = t.AddOutput(kTfLiteFloat32, {1, 8, 9, 3});
      t.AddOp(kTfLiteBuiltinResizeBilinear, {x, s}, {y}, fb::BuiltinOptions::ResizeBilinearOptions,
              fb::CreateResizeBilinearOptions(t.fbb(), mode == 1, mode == 2).Union(), mode == 2 ? 3 : 1);
    });
  }
  ExpectMatches("depth to space", [](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {1, 3, 3, 8});
    const int y = t.AddOutput(kTfLiteFloat32, {1, 6, 6, 2});
    t.AddOp(kTfLiteBuiltinDepthToSpace, {x}, {y}, fb::BuiltinOptions::DepthToSpaceOptions,
            fb::CreateDepthToSpaceOptions(t.fbb(), 2).Union());
  });
}

// ---------------------------------------------------------------------------------------------
// Quantized ops. Quantization parameters are like a converter's: activations with a zero point off
// centre, int8 weights symmetric (per channel where the op allows), int32 biases.

Build QConv(TfLiteType type, bool per_channel, bool depthwise, ActivationFunctionType act) {
  return [=](OpTest& t) {
    const bool s8 = type == kTfLiteInt8;
    const int oc = depthwise ? 8 : 6;
    const int x = QInput(t, type, {1, 9, 9, depthwise ? 8 : 3}, 0.04f, s8 ? -5 : 120);
    std::vector<float> scales = per_channel
                                    ? std::vector<float>{0.011f, 0.02f, 0.007f, 0.015f, 0.009f, 0.013f, 0.01f, 0.017f}
                                    : std::vector<float>{0.012f};
    if (per_channel) scales.resize(oc);
    const std::vector<int> wshape = depthwise ? std::vector<int>{1, 3, 3, oc} : std::vector<int>{oc, 3, 3, 3};
    const int w = QWeights(t, type, wshape, scales, s8 ? 0 : 131, depthwise ? 3 : 0, 71);
    const int b = t.AddConst<int32_t>(kTfLiteInt32, {oc}, RandomInts<int32_t>(oc, 72, -600, 600));
    std::vector<float> bias_scales;
    for (float s : scales) bias_scales.push_back(s * 0.04f);
    t.builder().SetQuantization(b, bias_scales, std::vector<int64_t>(bias_scales.size(), 0));
    const int y = QOutput(t, type, {}, 0.06f, s8 ? 3 : 110);
    if (depthwise) {
      t.AddOp(kTfLiteBuiltinDepthwiseConv2d, {x, w, b}, {y}, fb::BuiltinOptions::DepthwiseConv2DOptions,
              fb::CreateDepthwiseConv2DOptions(t.fbb(), Padding::SAME, 2, 2, 1, act).Union(), s8 ? 3 : 1);
    } else {
      t.AddOp(kTfLiteBuiltinConv2d, {x, w, b}, {y}, fb::BuiltinOptions::Conv2DOptions,
              fb::CreateConv2DOptions(t.fbb(), Padding::SAME, 1, 1, act).Union(), s8 ? 3 : 1);
    }
  };
}

TEST(XnnpackDelegateTest, QuantizedConvolutions) {
  ExpectMatches("int8 conv per-channel relu6", QConv(kTfLiteInt8, true, false, ActivationFunctionType::RELU6),
                Steps(1));
  ExpectMatches("int8 conv per-tensor", QConv(kTfLiteInt8, false, false, ActivationFunctionType::NONE), Steps(1));
  ExpectMatches("uint8 conv", QConv(kTfLiteUInt8, false, false, ActivationFunctionType::RELU), Steps(1));
  ExpectMatches("int8 depthwise per-channel", QConv(kTfLiteInt8, true, true, ActivationFunctionType::NONE), Steps(1));
  ExpectMatches("uint8 depthwise relu6", QConv(kTfLiteUInt8, false, true, ActivationFunctionType::RELU6), Steps(1));

  for (TfLiteType type : {kTfLiteInt8, kTfLiteUInt8}) {
    const bool s8 = type == kTfLiteInt8;
    ExpectMatches(
        std::string(s8 ? "int8" : "uint8") + " fully connected",
        [=](OpTest& t) {
          const int x = QInput(t, type, {3, 16}, 0.05f, s8 ? 10 : 128);
          const int w = QWeights(t, type, {5, 16}, {0.02f}, s8 ? 0 : 140, 0, 81);
          const int b = QBias(t, 5, 0.05f * 0.02f, 82);
          const int y = QOutput(t, type, {3, 5}, 0.1f, s8 ? -7 : 100);
          t.AddOp(kTfLiteBuiltinFullyConnected, {x, w, b}, {y}, fb::BuiltinOptions::FullyConnectedOptions,
                  fb::CreateFullyConnectedOptions(t.fbb(), ActivationFunctionType::RELU).Union(), s8 ? 4 : 1);
        },
        Steps(1));
    ExpectMatches(
        std::string(s8 ? "int8" : "uint8") + " transpose conv",
        [=](OpTest& t) {
          const int shape = Int32Const(t, {4}, {1, 8, 8, 3});
          const int w = QWeights(t, type, {3, 3, 3, 4}, {0.02f}, s8 ? 0 : 127, 0, 91);
          const int x = QInput(t, type, {1, 4, 4, 4}, 0.05f, s8 ? 2 : 125);
          const int y = QOutput(t, type, {1, 8, 8, 3}, 0.08f, s8 ? -1 : 131);
          t.AddOp(kTfLiteBuiltinTransposeConv, {shape, w, x}, {y}, fb::BuiltinOptions::TransposeConvOptions,
                  fb::CreateTransposeConvOptions(t.fbb(), Padding::SAME, 2, 2).Union(), s8 ? 2 : 1);
        },
        Steps(1));
  }
}

TEST(XnnpackDelegateTest, QuantizedElementwise) {
  for (TfLiteType type : {kTfLiteInt8, kTfLiteUInt8}) {
    const bool s8 = type == kTfLiteInt8;
    const std::string tag = s8 ? "int8 " : "uint8 ";
    for (int op : {kTfLiteBuiltinAdd, kTfLiteBuiltinSub, kTfLiteBuiltinMul}) {
      ExpectMatches(
          tag + "binary op " + std::to_string(op),
          [=](OpTest& t) {
            const int a = QInput(t, type, {2, 3, 4}, 0.05f, s8 ? -3 : 128);
            const int b = QInput(t, type, {4}, 0.03f, s8 ? 7 : 120);
            const int y = QOutput(t, type, {2, 3, 4}, op == kTfLiteBuiltinMul ? 0.01f : 0.08f, s8 ? 2 : 125);
            if (op == kTfLiteBuiltinAdd) {
              t.AddOp(op, {a, b}, {y}, fb::BuiltinOptions::AddOptions,
                      fb::CreateAddOptions(t.fbb(), ActivationFunctionType::RELU).Union(), 2);
            } else if (op == kTfLiteBuiltinSub) {
              t.AddOp(op, {a, b}, {y}, fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(t.fbb()).Union(), 2);
            } else {
              t.AddOp(op, {a, b}, {y}, fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(t.fbb()).Union(), 2);
            }
          },
          Steps(1));
    }
    ExpectMatches(tag + "max pool", [=](OpTest& t) {
      const int x = QInput(t, type, {1, 8, 8, 3}, 0.05f, s8 ? -3 : 128);
      const int y = QOutput(t, type, {}, 0.05f, s8 ? -3 : 128);
      t.AddOp(kTfLiteBuiltinMaxPool2d, {x}, {y}, fb::BuiltinOptions::Pool2DOptions,
              fb::CreatePool2DOptions(t.fbb(), Padding::SAME, 2, 2, 3, 3).Union(), 2);
    });
    ExpectMatches(
        tag + "global average pool",
        [=](OpTest& t) {
          const int x = QInput(t, type, {1, 7, 7, 16}, 0.05f, s8 ? -3 : 128);
          const int y = QOutput(t, type, {}, 0.05f, s8 ? -3 : 128);
          t.AddOp(kTfLiteBuiltinAveragePool2d, {x}, {y}, fb::BuiltinOptions::Pool2DOptions,
                  fb::CreatePool2DOptions(t.fbb(), Padding::VALID, 1, 1, 7, 7).Union(), 2);
        },
        Steps(1));
    ExpectMatches(
        tag + "average pool 2x2 stays",
        [=](OpTest& t) {
          const int x = QInput(t, type, {1, 8, 8, 3}, 0.05f, s8 ? -3 : 128);
          const int y = QOutput(t, type, {}, 0.05f, s8 ? -3 : 128);
          t.AddOp(kTfLiteBuiltinAveragePool2d, {x}, {y}, fb::BuiltinOptions::Pool2DOptions,
                  fb::CreatePool2DOptions(t.fbb(), Padding::VALID, 2, 2, 2, 2).Union(), 2);
        },
        Delegated(0));
    ExpectMatches(
        tag + "mean",
        [=](OpTest& t) {
          const int x = QInput(t, type, {1, 6, 6, 8}, 0.05f, s8 ? -3 : 128);
          const int a = Int32Const(t, {2}, {1, 2});
          const int y = QOutput(t, type, {1, 8}, 0.03f, s8 ? 4 : 120);
          t.AddOp(kTfLiteBuiltinMean, {x, a}, {y}, fb::BuiltinOptions::ReducerOptions,
                  fb::CreateReducerOptions(t.fbb(), false).Union(), 2);
        },
        Steps(1));
    ExpectMatches(
        tag + "logistic",
        [=](OpTest& t) {
          const int x = QInput(t, type, {2, 40}, 0.06f, s8 ? -3 : 128);
          const int y = QOutput(t, type, {2, 40}, 1.0f / 256, s8 ? -128 : 0);
          t.AddOp(kTfLiteBuiltinLogistic, {x}, {y}, fb::BuiltinOptions::NONE, 0, 2);
        },
        Steps(1));
    for (int op : {kTfLiteBuiltinRelu, kTfLiteBuiltinRelu6}) {
      ExpectMatches(tag + "relu op " + std::to_string(op), [=](OpTest& t) {
        const int x = QInput(t, type, {2, 3, 8}, 0.05f, s8 ? -3 : 128);
        const int y = QOutput(t, type, {2, 3, 8}, 0.05f, s8 ? -3 : 128);
        t.AddOp(op, {x}, {y}, fb::BuiltinOptions::NONE, 0, 2);
      });
    }
    ExpectMatches(tag + "pad", [=](OpTest& t) {
      const int x = QInput(t, type, {1, 3, 3, 2}, 0.05f, s8 ? -3 : 128);
      const int p = Int32Const(t, {4, 2}, {0, 0, 1, 1, 2, 0, 0, 0});
      const int y = QOutput(t, type, {1, 5, 5, 2}, 0.05f, s8 ? -3 : 128);
      t.AddOp(kTfLiteBuiltinPad, {x, p}, {y}, fb::BuiltinOptions::PadOptions, fb::CreatePadOptions(t.fbb()).Union(), 2);
    });
    ExpectMatches(tag + "reshape", [=](OpTest& t) {
      const int x = QInput(t, type, {1, 3, 3, 2}, 0.05f, s8 ? -3 : 128);
      const int s = Int32Const(t, {2}, {3, 6});
      const int y = QOutput(t, type, {3, 6}, 0.05f, s8 ? -3 : 128);
      t.AddOp(kTfLiteBuiltinReshape, {x, s}, {y});
    });
    ExpectMatches(
        tag + "resize bilinear",
        [=](OpTest& t) {
          const int x = QInput(t, type, {1, 4, 4, 3}, 0.05f, s8 ? -3 : 128);
          const int s = Int32Const(t, {2}, {7, 8});
          const int y = QOutput(t, type, {1, 7, 8, 3}, 0.05f, s8 ? -3 : 128);
          t.AddOp(kTfLiteBuiltinResizeBilinear, {x, s}, {y}, fb::BuiltinOptions::ResizeBilinearOptions,
                  fb::CreateResizeBilinearOptions(t.fbb(), false, true).Union(), 3);
        },
        Steps(1));
    ExpectMatches(
        tag + "quantize and dequantize",
        [=](OpTest& t) {
          const int x = t.AddInput(kTfLiteFloat32, {2, 20});
          const int q = QTemp(t, type, {2, 20}, 0.02f, s8 ? 5 : 130);
          const int y = t.AddOutput(kTfLiteFloat32, {2, 20});
          const int y2 = QOutput(t, type, {2, 20}, 0.02f, s8 ? 5 : 130);
          t.AddOp(kTfLiteBuiltinQuantize, {x}, {q});
          t.AddOp(kTfLiteBuiltinDequantize, {q}, {y}, fb::BuiltinOptions::NONE, 0, 2);
          t.AddOp(kTfLiteBuiltinRelu, {q}, {y2}, fb::BuiltinOptions::NONE, 0, 2);
        },
        Steps(1));
  }
}

TEST(XnnpackDelegateTest, QuantizedLeftToTheInterpreter) {
  // Per-channel fully connected weights, a RELU that rescales, and int8 with the QS8 flag off.
  ExpectMatches(
      "int8 fc per-channel",
      [](OpTest& t) {
        const int x = QInput(t, kTfLiteInt8, {2, 8}, 0.05f, 0);
        const int w = QWeights(t, kTfLiteInt8, {3, 8}, {0.01f, 0.02f, 0.03f}, 0, 0, 5);
        const int y = QOutput(t, kTfLiteInt8, {2, 3}, 0.1f, 0);
        t.AddOp(kTfLiteBuiltinFullyConnected, {x, w, -1}, {y}, fb::BuiltinOptions::FullyConnectedOptions,
                fb::CreateFullyConnectedOptions(t.fbb()).Union(), 4);
      },
      Delegated(0));
  ExpectMatches(
      "int8 relu rescaling",
      [](OpTest& t) {
        const int x = QInput(t, kTfLiteInt8, {8}, 0.05f, 0);
        const int y = QOutput(t, kTfLiteInt8, {8}, 0.02f, -128);
        t.AddOp(kTfLiteBuiltinRelu, {x}, {y}, fb::BuiltinOptions::NONE, 0, 2);
      },
      Delegated(0));
  Expect off = Delegated(0);
  off.flags = TFLITE_XNNPACK_DELEGATE_FLAG_QU8;
  ExpectMatches("int8 conv with QS8 off", QConv(kTfLiteInt8, true, false, ActivationFunctionType::NONE), off);
}

// ---------------------------------------------------------------------------------------------
// Graphs: partitions, folded float16 weights, threads, static shapes.

// conv -> max pool -> reshape -> fully connected -> softmax: one partition, the whole graph.
Build SmallNet(bool fp16_weights) {
  return [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {1, 8, 8, 3});
    int w;
    int dequantize_out = -1;
    if (fp16_weights) {
      // IEEE half values of small multiples of 1/64.
      std::vector<uint16_t> half(8 * 3 * 3 * 3);
      const std::vector<float> f = RandomFloats(half.size(), 101);
      for (size_t i = 0; i < half.size(); ++i) {
        const int q = static_cast<int>(std::lround(f[i] * 64.0f));  // |q| <= 64
        const float v = q / 64.0f;
        uint16_t h = 0;
        if (q != 0) {
          int e = 0;
          float m = std::frexp(std::fabs(v), &e);  // v = m * 2^e, m in [0.5, 1)
          const int mantissa = static_cast<int>((m * 2.0f - 1.0f) * 1024.0f);
          h = static_cast<uint16_t>(((v < 0) ? 0x8000 : 0) | ((e - 1 + 15) << 10) | mantissa);
        }
        half[i] = h;
      }
      const int w16 = t.AddConst<uint16_t>(kTfLiteFloat16, {8, 3, 3, 3}, half);
      dequantize_out = t.AddIntermediate(kTfLiteFloat32, {8, 3, 3, 3});
      t.AddOp(kTfLiteBuiltinDequantize, {w16}, {dequantize_out}, fb::BuiltinOptions::NONE, 0, 3);
      w = dequantize_out;
    } else {
      w = FloatConst(t, {8, 3, 3, 3}, 101);
    }
    const int b = FloatConst(t, {8}, 102);
    const int c = t.AddIntermediate(kTfLiteFloat32, {1, 8, 8, 8});
    t.AddOp(kTfLiteBuiltinConv2d, {x, w, b}, {c}, fb::BuiltinOptions::Conv2DOptions,
            fb::CreateConv2DOptions(t.fbb(), Padding::SAME, 1, 1, ActivationFunctionType::RELU).Union());
    const int p = t.AddIntermediate(kTfLiteFloat32, {1, 4, 4, 8});
    t.AddOp(kTfLiteBuiltinMaxPool2d, {c}, {p}, fb::BuiltinOptions::Pool2DOptions,
            fb::CreatePool2DOptions(t.fbb(), Padding::VALID, 2, 2, 2, 2).Union());
    const int shape = Int32Const(t, {2}, {1, 128});
    const int r = t.AddIntermediate(kTfLiteFloat32, {1, 128});
    t.AddOp(kTfLiteBuiltinReshape, {p, shape}, {r});
    const int fw = FloatConst(t, {10, 128}, 103, -0.2f, 0.2f);
    const int fc = t.AddIntermediate(kTfLiteFloat32, {1, 10});
    t.AddOp(kTfLiteBuiltinFullyConnected, {r, fw, -1}, {fc}, fb::BuiltinOptions::FullyConnectedOptions,
            fb::CreateFullyConnectedOptions(t.fbb()).Union());
    const int y = t.AddOutput(kTfLiteFloat32, {1, 10});
    t.AddOp(kTfLiteBuiltinSoftmax, {fc}, {y}, fb::BuiltinOptions::SoftmaxOptions,
            fb::CreateSoftmaxOptions(t.fbb(), 1.0f).Union());
  };
}

TEST(XnnpackDelegateTest, WholeGraphIsOnePartition) {
  ExpectMatches("small net", SmallNet(false), Delegated(5, 1));
  XnnpackPtr d = MakeDelegate();
  RunResult run = RunModel(SmallNet(false), d.get());
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  EXPECT_TRUE(run.test->interpreter()->primary()->fully_delegated());
  EXPECT_NE(run.log.find("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n"), std::string::npos) << run.log;
  EXPECT_STREQ(run.test->interpreter()
                   ->primary()
                   ->registration(run.test->interpreter()->primary()->execution_plan()[0])
                   .custom_name,
               kXnnpackDelegateName);
}

TEST(XnnpackDelegateTest, Float16WeightsAreFolded) {
  // The DEQUANTIZE of the float16 filter joins the partition: 6 nodes, one partition.
  ExpectMatches("small net fp16 weights", SmallNet(true), Delegated(6, 1));
}

// A constant's RESHAPE is computed at Prepare into a read-only tensor (kTfLitePersistentRo) before the
// delegate is asked about the graph: the delegate sees it as a computed value, and the result is the
// reference's whether the ADD reading it is delegated, the reshaped constant is also a graph output, or
// the RESHAPE reads a float16 DEQUANTIZE the delegate folds.
TEST(XnnpackDelegateTest, ReshapedConstants) {
  for (const bool also_output : {false, true}) {
    for (const bool fp16 : {false, true}) {
      SCOPED_TRACE(std::string(also_output ? "also an output" : "read by the ADD only") + (fp16 ? ", float16" : ""));
      const Build build = [=](OpTest& t) {
        const int x = t.AddInput(kTfLiteFloat32, {3, 2});
        int c;
        if (fp16) {
          // 1, -2, 0.5, 3, -0.25, 4 as IEEE halves.
          const int c16 =
              t.AddConst<uint16_t>(kTfLiteFloat16, {2, 3}, {0x3c00, 0xc000, 0x3800, 0x4200, 0xb400, 0x4400});
          c = t.AddIntermediate(kTfLiteFloat32, {2, 3});
          t.AddOp(kTfLiteBuiltinDequantize, {c16}, {c}, fb::BuiltinOptions::NONE, 0, 3);
        } else {
          c = FloatConst(t, {2, 3}, 5);
        }
        const int r = also_output ? t.AddOutput(kTfLiteFloat32, {3, 2}) : t.AddIntermediate(kTfLiteFloat32, {3, 2});
        t.AddOp(kTfLiteBuiltinReshape, {c, Int32Const(t, {2}, {3, 2})}, {r});
        const int y = t.AddOutput(kTfLiteFloat32, {3, 2});
        t.AddOp(kTfLiteBuiltinAdd, {x, r}, {y}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union());
      };
      // The delegate takes every node: [DEQUANTIZE,] RESHAPE and ADD.
      ExpectMatches("reshaped constant", build, Delegated(fp16 ? 3 : 2, 1));
    }
  }
}

TEST(XnnpackDelegateTest, UnsupportedNodesSplitThePartitions) {
  // ADD -> CONCATENATION (not in this XNNPACK) -> MUL: two partitions around the concatenation.
  ExpectMatches(
      "split by concatenation",
      [](OpTest& t) {
        const int a = t.AddInput(kTfLiteFloat32, {2, 3});
        const int b = t.AddInput(kTfLiteFloat32, {2, 3});
        const int s = t.AddIntermediate(kTfLiteFloat32, {2, 3});
        t.AddOp(kTfLiteBuiltinAdd, {a, b}, {s}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union());
        const int c = t.AddIntermediate(kTfLiteFloat32, {2, 6});
        t.AddOp(kTfLiteBuiltinConcatenation, {s, b}, {c}, fb::BuiltinOptions::ConcatenationOptions,
                fb::CreateConcatenationOptions(t.fbb(), 1).Union());
        const int y = t.AddOutput(kTfLiteFloat32, {2, 6});
        t.AddOp(kTfLiteBuiltinMul, {c, c}, {y}, fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(t.fbb()).Union());
      },
      Delegated(2, 2));
}

TEST(XnnpackDelegateTest, ResultsNobodyReadsAreNotComputed) {
  // The MUL's result is neither a graph output nor read by any node: XNNPACK would give it no memory,
  // so the delegate leaves the node out of the runtime (it takes it, and nothing observable changes).
  ExpectMatches(
      "dead node",
      [](OpTest& t) {
        const int a = t.AddInput(kTfLiteFloat32, {2, 3});
        const int b = t.AddInput(kTfLiteFloat32, {2, 3});
        const int dead = t.AddIntermediate(kTfLiteFloat32, {2, 3});
        t.AddOp(kTfLiteBuiltinMul, {a, b}, {dead}, fb::BuiltinOptions::MulOptions,
                fb::CreateMulOptions(t.fbb()).Union());
        const int y = t.AddOutput(kTfLiteFloat32, {2, 3});
        t.AddOp(kTfLiteBuiltinAdd, {a, b}, {y}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union());
      },
      Delegated(2, 1));
}

TEST(XnnpackDelegateTest, ThreadsGiveTheSameResults) {
  for (int threads : {2, 3}) {
    Expect e;
    e.threads = threads;
    ExpectMatches("conv threads " + std::to_string(threads),
                  Conv({1, 16, 16, 8}, {16, 3, 3, 8}, Padding::SAME, 1, 1, ActivationFunctionType::RELU), e);
    e.steps = 1;
    ExpectMatches("int8 conv threads " + std::to_string(threads),
                  QConv(kTfLiteInt8, true, false, ActivationFunctionType::NONE), e);
  }
}

TEST(XnnpackDelegateTest, StaticShapesOnly) {
  XnnpackPtr d = MakeDelegate();
  RunResult run =
      RunModel(Conv({1, 8, 8, 3}, {4, 3, 3, 3}, Padding::SAME, 1, 1, ActivationFunctionType::NONE), d.get());
  ASSERT_TRUE(run.status.ok()) << run.status.message();
  ASSERT_EQ(run.delegated, 1);
  // Growing the input after delegation: the delegate kernel refuses in Prepare, naming the tensor.
  ASSERT_TRUE(run.test->ResizeInput(0, {1, 10, 10, 3}).ok());
  Status s = run.test->AllocateTensors();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("static shapes only"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[1,10,10,3]"), std::string::npos) << s.message();

  // A node whose tensors disagree with what the op computes is not taken at all.
  OpTest t;
  const int x = t.AddInput(kTfLiteFloat32, {1, 4, 4, 2});
  const int y = t.AddOutput(kTfLiteFloat32, {1, 4, 4, 2});
  t.AddOp(kTfLiteBuiltinRelu, {x}, {y});
  ASSERT_TRUE(t.Build().ok());
  std::string why;
  EXPECT_TRUE(XnnpackSupportsNode(t.interpreter()->primary()->context(), 0, TFLITE_XNNPACK_DELEGATE_FLAG_QS8, &why))
      << why;
  TfLiteTensor* out = t.interpreter()->tensor(y);
  out->dims->data[1] = 5;  // as if the file said so
  EXPECT_FALSE(XnnpackSupportsNode(t.interpreter()->primary()->context(), 0, TFLITE_XNNPACK_DELEGATE_FLAG_QS8, &why));
  EXPECT_NE(why.find("shape"), std::string::npos) << why;
  out->dims->data[1] = 4;
  out->allocation_type = kTfLiteDynamic;
  EXPECT_FALSE(XnnpackSupportsNode(t.interpreter()->primary()->context(), 0, TFLITE_XNNPACK_DELEGATE_FLAG_QS8, &why));
  EXPECT_NE(why.find("dynamic"), std::string::npos) << why;
  out->allocation_type = kTfLiteArenaRw;
}

TEST(XnnpackDelegateTest, ReasonsForRefusals) {
  OpTest t;
  const int x = t.AddInput(kTfLiteFloat32, {1, 6, 6, 3});
  const int w = t.AddInput(kTfLiteFloat32, {4, 3, 3, 3});  // a filter computed at run time
  const int b = FloatConst(t, {4}, 5);
  const int y = t.AddOutput(kTfLiteFloat32, {1, 6, 6, 4});
  t.AddOp(kTfLiteBuiltinConv2d, {x, w, b}, {y}, fb::BuiltinOptions::Conv2DOptions,
          fb::CreateConv2DOptions(t.fbb(), Padding::SAME, 1, 1).Union());
  const int z = t.AddOutput(kTfLiteFloat32, {1, 6, 6, 3});
  t.AddOp(kTfLiteBuiltinTanh, {x}, {z});
  ASSERT_TRUE(t.Build().ok());
  std::string why;
  EXPECT_FALSE(XnnpackSupportsNode(t.interpreter()->primary()->context(), 0, 3, &why));
  EXPECT_NE(why.find("filter is not a constant"), std::string::npos) << why;
  EXPECT_FALSE(XnnpackSupportsNode(t.interpreter()->primary()->context(), 1, 3, &why));
  EXPECT_NE(why.find("not one XNNPACK takes"), std::string::npos) << why;
}

// The per-channel checks run over all channels at once (the smallest and largest scale bound the
// requantization scales); the refusal still names the first channel that fails, whichever lane of
// the block or the tail it sits in, and every bad kind of scale is caught.
TEST(XnnpackDelegateTest, PerChannelScalesCheckedOnEveryChannel) {
  constexpr int kChannels = 11;  // one block of eight and a tail of three
  OpTest t;
  const int x = QInput(t, kTfLiteInt8, {1, 4, 4, 3}, 0.05f, 0);
  std::vector<float> scales;
  for (int c = 0; c < kChannels; ++c) scales.push_back(0.02f + 0.001f * c);
  const int w = QWeights(t, kTfLiteInt8, {kChannels, 1, 1, 3}, scales, 0, 0, 7);
  std::vector<float> bias_scales;
  for (float s : scales) bias_scales.push_back(s * 0.05f);
  const int b = t.AddConst<int32_t>(kTfLiteInt32, {kChannels}, RandomInts<int32_t>(kChannels, 8, -600, 600));
  t.builder().SetQuantization(b, bias_scales, std::vector<int64_t>(kChannels, 0));
  const int y = QOutput(t, kTfLiteInt8, {1, 4, 4, kChannels}, 0.06f, 0);
  t.AddOp(kTfLiteBuiltinConv2d, {x, w, b}, {y}, fb::BuiltinOptions::Conv2DOptions,
          fb::CreateConv2DOptions(t.fbb(), Padding::SAME, 1, 1).Union(), 3);
  ASSERT_TRUE(t.Build().ok());
  TfLiteContext* context = t.interpreter()->primary()->context();
  auto* q = static_cast<TfLiteAffineQuantization*>(t.interpreter()->tensor(w)->quantization.params);
  ASSERT_EQ(q->scale->size, kChannels);
  std::string why;
  auto refusal = [&]() -> std::string {
    if (XnnpackSupportsNode(context, 0, TFLITE_XNNPACK_DELEGATE_FLAG_QS8, &why)) return "taken";
    return why;
  };
  ASSERT_EQ(refusal(), "taken");
  const float bad_scales[] = {0.0f, -0.02f, std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()};
  for (int c : {0, 5, 7, 8, 10}) {
    for (float bad : bad_scales) {
      q->scale->data[c] = bad;
      EXPECT_NE(refusal().find("filter scale"), std::string::npos) << "channel " << c << " scale " << bad;
      q->scale->data[c] = scales[c];
    }
    q->zero_point->data[c] = 1;
    EXPECT_NE(refusal().find("non-zero zero point"), std::string::npos) << "channel " << c;
    q->zero_point->data[c] = 0;
  }
  // The first failing channel names the refusal: a zero point at 3 before a scale at 9, and back.
  q->zero_point->data[3] = 1;
  q->scale->data[9] = 0.0f;
  EXPECT_NE(refusal().find("non-zero zero point"), std::string::npos) << why;
  q->zero_point->data[3] = 0;
  q->zero_point->data[9] = 1;
  q->scale->data[3] = -1.0f;
  EXPECT_NE(refusal().find("filter scale"), std::string::npos) << why;
  q->zero_point->data[9] = 0;
  q->scale->data[9] = scales[9];
  q->scale->data[3] = scales[3];
  ASSERT_EQ(refusal(), "taken");
  // Requantization 0.05 * s / 0.06 in [2^-32, 256): channel 9 too large (333.33), channel 4 too
  // small; the message gives the first channel's value, and each alone is refused.
  q->scale->data[9] = 400.0f;
  EXPECT_NE(refusal().find("requantization scale 333.33"), std::string::npos) << why;
  q->scale->data[4] = 1e-10f;
  EXPECT_NE(refusal().find("requantization scale 0.000000"), std::string::npos) << why;
  q->scale->data[9] = scales[9];
  EXPECT_NE(refusal().find("requantization scale 0.000000"), std::string::npos) << why;
  // Just inside both ends: taken.
  q->scale->data[4] = 1e-9f;      // 8.3e-10 >= 2^-32
  q->scale->data[9] = 307.0f;     // 255.83 < 256
  EXPECT_EQ(refusal(), "taken");
}

// RESHAPE and its kin are left to the interpreter when always declined (the auto policy's: there
// they share their input's storage), whatever kernel the CPU prepared for them.
TEST(XnnpackDelegateTest, AlwaysDeclinedReshape) {
  OpTest t;
  const int x = t.AddInput(kTfLiteFloat32, {2, 6});
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {3, 4});
  const int y = t.AddOutput(kTfLiteFloat32, {3, 4});
  t.AddOp(kTfLiteBuiltinReshape, {x, shape}, {y});
  ASSERT_TRUE(t.Build().ok());
  std::string why;
  EXPECT_TRUE(XnnpackSupportsNode(t.interpreter()->primary()->context(), 0, 3, &why)) << why;
  XnnpackExtraOptions extra;
  extra.always_declined_float_builtins = {kTfLiteBuiltinReshape};
  extra.cpu_kernel_state = [](TfLiteContext*, const TfLiteNode*) { return 0; };  // the reference kernel's
  EXPECT_FALSE(XnnpackSupportsNode(t.interpreter()->primary()->context(), 0, 3, &why, extra));
  EXPECT_NE(why.find("float32 RESHAPE stays on the optimized kernels"), std::string::npos) << why;
}

TEST(XnnpackDelegateTest, ForceFp16) {
  // This XNNPACK runs float16 inference on x86 (emulated) for the ops it has in float16: results then
  // agree to float16 precision.
  Expect e;
  e.flags = TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16;
  e.float_tolerance = 2e-3;
  ExpectMatches("conv in float16", Conv({1, 8, 8, 3}, {4, 3, 3, 3}, Padding::SAME, 1, 1, ActivationFunctionType::RELU6),
                e);
  ExpectMatches("add in float16", Binary(kTfLiteBuiltinAdd, {2, 3, 4}, {4}, ActivationFunctionType::NONE), e);
  // It has no float16 SOFTMAX: the partition cannot be forced, and the delegate says so (the
  // interpreter then keeps its own kernels).
  XnnpackPtr d = MakeDelegate(1, TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16);
  RunResult run = RunModel(SmallNet(false), d.get());
  ASSERT_FALSE(run.status.ok());
  EXPECT_EQ(run.status.code(), StatusCode::kExecution);
  EXPECT_NE(run.status.message().find("cannot run the partition of 5 nodes in float16 (--xnnpack_force_fp16)"),
            std::string::npos)
      << run.status.message();
  EXPECT_EQ(run.test->interpreter()->primary()->delegated_node_count(), 0);
  EXPECT_TRUE(run.test->AllocateTensors().ok());
  EXPECT_TRUE(run.test->Invoke().ok());
}

// ---------------------------------------------------------------------------------------------
// The provider.

TEST(XnnpackProviderTest, AppliedByDefaultOnlyOverTheOptimizedKernels) {
  const DelegateProvider provider = XnnpackDelegateProvider();
  ProviderParams params = DefaultParams({provider});
  EXPECT_TRUE(params.GetBool("use_xnnpack"));
  ::testing::internal::CaptureStderr();
  // A tool that does not say which kernels it runs: nothing by default.
  StatusOr<TfLiteDelegatePtr> made = provider.create(params);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made.value(), nullptr);
  // The optimized kernels: applied.
  params.Declare(ProviderFlag::Bool(kXnnpackReferenceKernelsParam, false, "the tool's kernels"));
  made = provider.create(params);
  ASSERT_TRUE(made.ok());
  EXPECT_NE(made.value(), nullptr);
  // The reference kernels: not by default; given explicitly, yes.
  params.SetBool(kXnnpackReferenceKernelsParam, true);
  made = provider.create(params);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made.value(), nullptr);
  params.SetBool("use_xnnpack", true, 3);
  made = provider.create(params);
  ASSERT_TRUE(made.ok());
  EXPECT_NE(made.value(), nullptr);
  // --use_xnnpack=false turns it off in every case.
  params.SetBool("use_xnnpack", false, 3);
  params.SetBool(kXnnpackReferenceKernelsParam, false);
  made = provider.create(params);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made.value(), nullptr);
  // The weights cache is accepted with a warning.
  params.SetBool("use_xnnpack", true, 1);
  params.SetString("xnnpack_weight_cache_file_path", "/tmp/cache.bin", 2);
  made = provider.create(params);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(made.ok());
  EXPECT_NE(made.value(), nullptr);
  EXPECT_NE(err.find("WARNING: --xnnpack_weight_cache_file_path=/tmp/cache.bin: this XNNPACK (git 2022-02-16) has no "
                     "weights cache; ignored"),
            std::string::npos)
      << err;
  // TFLite's creation line waits until the delegate meets a graph.
  EXPECT_EQ(err.find("INFO: Created TensorFlow Lite XNNPACK delegate for CPU."), std::string::npos) << err;
}

// Applied by default the delegate takes float32 and int8 operators and leaves uint8 ones to the
// interpreter; named, it takes all three. With --xnnpack_8bit=auto (the default) int8 and uint8
// operators stay on the optimized kernels where those run on AVX-512 VNNI or AVX2; =xnnpack keeps the rule on
// every CPU; the flag takes no other value (its declared choices, which the flag table enforces).
TEST(XnnpackProviderTest, EightBitOperatorsStayOnVnniAndAvx2Kernels) {
  const DelegateProvider provider = XnnpackDelegateProvider();
  ProviderParams params = DefaultParams({provider});
  params.Declare(ProviderFlag::Bool(kXnnpackReferenceKernelsParam, false, "the tool's kernels"));
  const bool ours = optimized::QuantizedKernelsOutrunXnnpack();
  // Float operators follow their own rule (FloatOperatorsStayOnFmaKernels): here XNNPACK takes them.
  params.SetString("xnnpack_fp32", "xnnpack", 3);
  struct Case {
    const char* name;
    Build build;
    bool named;
    const char* eight_bit;
    int delegated;
  };
  const Build float_conv = Conv({1, 6, 6, 3}, {4, 3, 3, 3}, Padding::SAME, 1, 1, ActivationFunctionType::NONE);
  const Build uint8_conv = QConv(kTfLiteUInt8, false, false, ActivationFunctionType::RELU);
  const Build int8_conv = QConv(kTfLiteInt8, true, false, ActivationFunctionType::NONE);
  const Case cases[] = {
      {"default, float conv", float_conv, false, "auto", 1},
      {"default, uint8 conv", uint8_conv, false, "auto", 0},
      {"default, int8 conv", int8_conv, false, "auto", ours ? 0 : 1},
      {"named, float conv", float_conv, true, "auto", 1},
      {"named, uint8 conv", uint8_conv, true, "auto", ours ? 0 : 1},
      {"named, int8 conv", int8_conv, true, "auto", ours ? 0 : 1},
      {"default, int8 conv, --xnnpack_8bit=xnnpack", int8_conv, false, "xnnpack", 1},
      {"default, uint8 conv, --xnnpack_8bit=xnnpack", uint8_conv, false, "xnnpack", 0},
      {"named, uint8 conv, --xnnpack_8bit=xnnpack", uint8_conv, true, "xnnpack", 1},
      {"named, int8 conv, --xnnpack_8bit=xnnpack", int8_conv, true, "xnnpack", 1},
  };
  for (const Case& c : cases) {
    params.SetBool("use_xnnpack", true, c.named ? 1 : 0);
    params.SetString("xnnpack_8bit", c.eight_bit, 2);
    StatusOr<TfLiteDelegatePtr> made = provider.create(params);
    ASSERT_TRUE(made.ok()) << c.name;
    ASSERT_NE(made.value(), nullptr) << c.name;
    RunResult run = RunModel(c.build, made.value().get());
    ASSERT_TRUE(run.status.ok()) << c.name << ": " << run.status.message();
    EXPECT_EQ(run.delegated, c.delegated) << c.name << " (VNNI or AVX2 kernels: " << ours << ")\n" << run.log;
  }
  for (const ProviderFlag& flag : provider.flags) {
    if (flag.name == "xnnpack_8bit") {
      EXPECT_EQ(flag.choices, (std::vector<std::string>{"auto", "xnnpack"}));
    }
  }
}

// With --xnnpack_fp32=auto (the default) float32 operators that have an optimized kernel stay on the
// optimized kernels where those run on AVX-512 or AVX+FMA, named or applied by default; float32 operators only
// XNNPACK vectorises (HARD_SWISH here) are still its. =xnnpack and --xnnpack_force_fp16 give XNNPACK
// them all; the flag takes no other value (its declared choices).
TEST(XnnpackProviderTest, FloatOperatorsStayOnFmaKernels) {
  const DelegateProvider provider = XnnpackDelegateProvider();
  ProviderParams params = DefaultParams({provider});
  params.Declare(ProviderFlag::Bool(kXnnpackReferenceKernelsParam, false, "the tool's kernels"));
  const bool fma = optimized::FloatKernelsUseFma();
  struct Case {
    const char* name;
    Build build;
    bool named;
    const char* fp32;
    bool force_fp16;
    int delegated;
  };
  const Build conv = Conv({1, 6, 6, 3}, {4, 3, 3, 3}, Padding::SAME, 1, 1, ActivationFunctionType::NONE);
  const Build add = Binary(kTfLiteBuiltinAdd, {1, 4, 4, 3}, {1, 4, 4, 3}, ActivationFunctionType::NONE);
  const Build hard_swish = Unary(kTfLiteBuiltinHardSwish, {1, 4, 4, 3});
  // An int8 convolution and the DEQUANTIZE of its output: the DEQUANTIZE goes with the
  // convolution wherever XNNPACK takes int8 (one partition of 2), else both stay.
  const Build conv_dequantize = [](OpTest& t) {
    const int x = QInput(t, kTfLiteInt8, {1, 9, 9, 3}, 0.04f, -5);
    const int w = QWeights(t, kTfLiteInt8, {6, 3, 3, 3}, {0.012f}, 0, 0, 71);
    const int b = t.AddConst<int32_t>(kTfLiteInt32, {6}, RandomInts<int32_t>(6, 72, -600, 600));
    t.builder().SetQuantization(b, {0.012f * 0.04f}, {0});
    const int q = QTemp(t, kTfLiteInt8, {1, 9, 9, 6}, 0.06f, 3);
    const int y = t.AddOutput(kTfLiteFloat32, {1, 9, 9, 6});
    t.AddOp(kTfLiteBuiltinConv2d, {x, w, b}, {q}, fb::BuiltinOptions::Conv2DOptions,
            fb::CreateConv2DOptions(t.fbb(), Padding::SAME, 1, 1, ActivationFunctionType::NONE).Union(), 3);
    t.AddOp(kTfLiteBuiltinDequantize, {q}, {y}, fb::BuiltinOptions::NONE, 0, 2);
  };
  const bool int8_on_xnnpack = !optimized::QuantizedKernelsOutrunXnnpack();
  const Case cases[] = {
      {"default, int8 conv and dequantize", conv_dequantize, false, "auto", false, int8_on_xnnpack ? 2 : 0},
      {"default, float conv", conv, false, "auto", false, fma ? 0 : 1},
      {"named, float conv", conv, true, "auto", false, fma ? 0 : 1},
      {"named, float add", add, true, "auto", false, fma ? 0 : 1},
      {"default, float hard swish", hard_swish, false, "auto", false, 1},
      {"default, float conv, --xnnpack_fp32=xnnpack", conv, false, "xnnpack", false, 1},
      {"named, float add, --xnnpack_fp32=xnnpack", add, true, "xnnpack", false, 1},
      {"named, float add, --xnnpack_force_fp16", add, true, "auto", true, 1},
  };
  for (const Case& c : cases) {
    params.SetBool("use_xnnpack", true, c.named ? 1 : 0);
    params.SetString("xnnpack_fp32", c.fp32, 2);
    params.SetBool("xnnpack_force_fp16", c.force_fp16, c.force_fp16 ? 3 : 0);
    ::testing::internal::CaptureStderr();
    StatusOr<TfLiteDelegatePtr> made = provider.create(params);
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(made.ok()) << c.name;
    ASSERT_NE(made.value(), nullptr) << c.name;
    // Named, the rule says so; applied by default, it is silent.
    const bool said =
        err.find(
            "INFO: XNNPACK: float32 operators with an optimized kernel stay on the optimized "
            "kernels (AVX-512 or AVX+FMA); --xnnpack_fp32=xnnpack gives them to XNNPACK.") != std::string::npos;
    EXPECT_EQ(said, fma && c.named && !c.force_fp16 && std::string(c.fp32) == "auto") << c.name << "\n" << err;
    RunResult run = RunModel(c.build, made.value().get());
    ASSERT_TRUE(run.status.ok()) << c.name << ": " << run.status.message();
    EXPECT_EQ(run.delegated, c.delegated) << c.name << " (AVX-512 or AVX+FMA kernels: " << fma << ")\n" << run.log;
  }
  // Over the reference kernels (--use_reference_kernels --use_xnnpack) neither auto rule applies:
  // XNNPACK takes float and 8-bit operators alike.
  params.SetBool(kXnnpackReferenceKernelsParam, true);
  params.SetBool("use_xnnpack", true, 1);
  params.SetString("xnnpack_fp32", "auto", 2);
  params.SetBool("xnnpack_force_fp16", false, 0);
  for (const Build& build : {conv, QConv(kTfLiteInt8, true, false, ActivationFunctionType::NONE)}) {
    StatusOr<TfLiteDelegatePtr> made = provider.create(params);
    ASSERT_TRUE(made.ok());
    ASSERT_NE(made.value(), nullptr);
    RunResult run = RunModel(build, made.value().get());
    ASSERT_TRUE(run.status.ok()) << run.status.message();
    EXPECT_EQ(run.delegated, 1) << "over the reference kernels\n" << run.log;
  }
  for (const ProviderFlag& flag : provider.flags) {
    if (flag.name == "xnnpack_fp32") {
      EXPECT_EQ(flag.choices, (std::vector<std::string>{"auto", "xnnpack"}));
    }
  }
}

}  // namespace
}  // namespace touchstone
