// The GPU delegate against the reference kernels, op by op and on small graphs, in float32
// (--gpu_precision_loss_allowed=false) and float16: the same one-op models run on the reference
// kernels and through the delegate, outputs compared relative to the largest magnitude in the
// reference output (float32 within 1e-4, float16 within 1e-2; quantized outputs within one step of
// their grid). Edge shapes: channels not a multiple of 4, size-1 dimensions, padding variants,
// broadcasting, odd strides and dilations. Also: which nodes are refused, partitions around CPU ops
// with outputs handed over through buffer handles, quantized models, profiling.
//
// Needs a Vulkan device (lavapipe on CI); without one the tests skip with a message, except under
// CI=true, where they fail.
#include "delegates/gpu/gpu_delegate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "delegates/gpu/gpu_ops.h"
#include "delegates/gpu/vulkan_context.h"
#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/tensor_util.h"
#include "runtime/testing/op_test.h"

// Under LeakSanitizer, Mesa's lavapipe driver (Debian 12) leaks small blocks allocated inside
// libvulkan_lvp.so with no frame of ours (1248 bytes in 26 objects over this binary's 26 cases); every
// Vulkan object the delegate creates has its vkDestroy*/vkFree* call. Only that library's leaks are
// suppressed, and only in this test binary.
extern "C" const char* __lsan_default_suppressions() { return "leak:libvulkan_lvp.so\n"; }

namespace touchstone {
namespace {

using testing::OpTest;
using testing::RandomFloats;
namespace fbs = touchstone::fb;

constexpr float kFloat32Tolerance = 1e-4f;
constexpr float kFloat16Tolerance = 1e-2f;

bool UnderCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// Mesa writes its shader cache under $HOME, read-only in Bazel's sandbox; give it the test's folder.
void KeepMesaQuiet() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  if (tmp != nullptr && std::getenv("MESA_SHADER_CACHE_DIR") == nullptr) setenv("MESA_SHADER_CACHE_DIR", tmp, 1);
}

// Whether Vulkan works here; prints the skip message once.
bool VulkanAvailable() {
  static const bool available = [] {
    KeepMesaQuiet();
    StatusOr<std::shared_ptr<gpu::VulkanContext>> vk = gpu::VulkanContext::Create(gpu::VulkanOptions());
    if (!vk.ok()) {
      std::cout << "skip: GPU delegate tests need Vulkan: " << vk.status().message() << std::endl;
      return false;
    }
    return true;
  }();
  return available;
}

#define REQUIRE_VULKAN()                                                                     \
  do {                                                                                       \
    if (!VulkanAvailable()) {                                                                \
      if (UnderCi()) FAIL() << "CI=true but no Vulkan device (install mesa-vulkan-drivers)"; \
      return;                                                                                \
    }                                                                                        \
  } while (0)

// One delegate per configuration for the whole test binary (they must outlive the interpreters).
TfLiteDelegate* Delegate(bool float16, bool enable_quant = true, bool profile = false) {
  static std::map<int, TfLiteDelegate*>* delegates = new std::map<int, TfLiteDelegate*>;
  const int key = (float16 ? 1 : 0) | (enable_quant ? 2 : 0) | (profile ? 4 : 0);
  auto it = delegates->find(key);
  if (it != delegates->end()) return it->second;
  GpuDelegateOptions options;
  options.precision_loss_allowed = float16;
  options.enable_quant = enable_quant;
  options.enable_op_profiling = profile;
  TfLiteDelegate* d = TfLiteGpuDelegateCreate(&options);
  (*delegates)[key] = d;
  return d;
}

// A graph to test: `build` adds inputs, constants, ops and outputs to the OpTest.
struct Spec {
  std::string name;
  std::function<void(OpTest&)> build;
  float lo = -1.0f, hi = 1.0f;  // range of random float inputs
  int partitions = 1;           // delegate kernels expected; 0: nothing delegated
  bool full = true;             // the whole graph one delegate kernel
  int quant_steps = 1;          // allowed difference of quantized outputs, in steps
};

struct Outputs {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<TfLiteType> types;
  std::vector<std::vector<int>> shapes;
  std::vector<float> scales;
};

// Random input bytes for every input of the built graph (same seed, same inputs).
std::vector<std::vector<uint8_t>> MakeInputs(Interpreter* interp, const Spec& spec) {
  std::vector<std::vector<uint8_t>> inputs;
  std::mt19937 rng(1234);
  for (size_t i = 0; i < interp->inputs().size(); ++i) {
    const TfLiteTensor* t = interp->input_tensor(i);
    std::vector<uint8_t> bytes(t->bytes);
    const size_t n = static_cast<size_t>(tflite::NumElements(t));
    if (t->type == kTfLiteFloat32) {
      std::uniform_real_distribution<float> dist(spec.lo, spec.hi);
      for (size_t k = 0; k < n; ++k) reinterpret_cast<float*>(bytes.data())[k] = dist(rng);
    } else if (t->type == kTfLiteUInt8) {
      for (size_t k = 0; k < n; ++k) bytes[k] = static_cast<uint8_t>(rng() & 0xff);
    } else if (t->type == kTfLiteInt8) {
      for (size_t k = 0; k < n; ++k) bytes[k] = static_cast<uint8_t>(rng() & 0xff);
    } else if (t->type == kTfLiteInt16) {
      for (size_t k = 0; k < n; ++k)
        reinterpret_cast<int16_t*>(bytes.data())[k] = static_cast<int16_t>(rng() % 8192) - 4096;
    }
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

// Builds and runs the graph, through `delegate` when given; checks the expected partitioning.
Outputs RunSpec(const Spec& spec, TfLiteDelegate* delegate) {
  Outputs out;
  OpTest t(KernelSet::kReference);
  spec.build(t);
  Status built = t.Build();
  EXPECT_TRUE(built.ok()) << spec.name << ": " << built.message();
  if (!built.ok()) return out;
  Interpreter* interp = t.interpreter();
  if (delegate != nullptr) {
    Status applied = interp->ModifyGraphWithDelegate(delegate);
    EXPECT_TRUE(applied.ok()) << spec.name << ": " << applied.message();
    Status allocated = interp->AllocateTensors();
    EXPECT_TRUE(allocated.ok()) << spec.name << ": " << allocated.message();
    if (!applied.ok() || !allocated.ok()) return out;
    EXPECT_EQ(interp->primary()->delegated_node_count(), spec.partitions) << spec.name;
    if (spec.partitions > 0) {
      EXPECT_EQ(interp->primary()->fully_delegated(), spec.full) << spec.name;
    }
  }
  const std::vector<std::vector<uint8_t>> inputs = MakeInputs(interp, spec);
  // Twice: the second run checks that nothing from the first leaks into it.
  for (int run = 0; run < 2; ++run) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::memcpy(interp->input_tensor(i)->data.raw, inputs[i].data(), inputs[i].size());
    }
    Status invoked = interp->Invoke();
    EXPECT_TRUE(invoked.ok()) << spec.name << ": " << invoked.message();
    if (!invoked.ok()) return out;
  }
  for (size_t o = 0; o < interp->outputs().size(); ++o) {
    const TfLiteTensor* tensor = interp->output_tensor(o);
    out.bytes.emplace_back(tensor->data.raw, tensor->data.raw + tensor->bytes);
    out.types.push_back(tensor->type);
    out.shapes.emplace_back(tensor->dims->data, tensor->dims->data + tensor->dims->size);
    out.scales.push_back(tensor->params.scale);
  }
  return out;
}

// The largest error relative to the largest magnitude of the reference (float), or in steps
// (quantized); -1 when shapes or types differ.
double Compare(const Outputs& ref, const Outputs& got, size_t o) {
  if (got.bytes.size() <= o || ref.shapes[o] != got.shapes[o] || ref.types[o] != got.types[o] ||
      ref.bytes[o].size() != got.bytes[o].size()) {
    return -1;
  }
  const size_t n = ElementCount(ref.shapes[o]);
  double worst = 0, largest = 0;
  for (size_t i = 0; i < n; ++i) {
    double a = 0, b = 0;
    switch (ref.types[o]) {
      case kTfLiteFloat32:
        a = reinterpret_cast<const float*>(ref.bytes[o].data())[i];
        b = reinterpret_cast<const float*>(got.bytes[o].data())[i];
        break;
      case kTfLiteUInt8:
        a = ref.bytes[o][i], b = got.bytes[o][i];
        break;
      case kTfLiteInt8:
        a = static_cast<int8_t>(ref.bytes[o][i]), b = static_cast<int8_t>(got.bytes[o][i]);
        break;
      case kTfLiteInt16:
        a = reinterpret_cast<const int16_t*>(ref.bytes[o].data())[i];
        b = reinterpret_cast<const int16_t*>(got.bytes[o].data())[i];
        break;
      default:
        return -1;
    }
    if (std::isnan(a) != std::isnan(b)) return 1e9;
    if (std::isnan(a)) continue;
    worst = std::max(worst, std::fabs(a - b));
    largest = std::max(largest, std::fabs(a));
  }
  if (ref.types[o] != kTfLiteFloat32) return worst;
  return largest > 0 ? worst / largest : worst;
}

// Runs `spec` on the reference kernels and through the delegate in both precisions.
void Check(const Spec& spec) {
  const Outputs ref = RunSpec(spec, nullptr);
  std::string measured;
  for (bool float16 : {false, true}) {
    const Outputs got = RunSpec(spec, Delegate(float16));
    ASSERT_EQ(got.bytes.size(), ref.bytes.size()) << spec.name;
    for (size_t o = 0; o < ref.bytes.size(); ++o) {
      const double error = Compare(ref, got, o);
      if (o == 0) {
        char figure[32];
        std::snprintf(figure, sizeof(figure), ref.types[o] == kTfLiteFloat32 ? "%.2g" : "%.0f", error);
        measured += std::string(float16 ? " float16 " : " float32 ") + figure;
      }
      ASSERT_GE(error, 0) << spec.name << ": output " << o << " differs in shape or type";
      if (ref.types[o] == kTfLiteFloat32) {
        EXPECT_LE(error, float16 ? kFloat16Tolerance : kFloat32Tolerance)
            << spec.name << (float16 ? " (float16)" : " (float32)") << ": output " << o;
      } else {
        EXPECT_LE(error, spec.quant_steps)
            << spec.name << (float16 ? " (float16)" : " (float32)") << ": output " << o << " (steps)";
      }
    }
  }
  // The figures docs/gpu.md quotes.
  std::cout << "error: " << spec.name << ":" << measured
            << (ref.types.empty() || ref.types[0] == kTfLiteFloat32 ? "" : " steps") << std::endl;
}

fbs::ActivationFunctionType Act(TfLiteFusedActivation a) {
  switch (a) {
    case kTfLiteActRelu:
      return fbs::ActivationFunctionType::RELU;
    case kTfLiteActRelu6:
      return fbs::ActivationFunctionType::RELU6;
    case kTfLiteActReluN1To1:
      return fbs::ActivationFunctionType::RELU_N1_TO_1;
    default:
      return fbs::ActivationFunctionType::NONE;
  }
}

int ConstF(OpTest& t, const std::vector<int>& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  return t.AddConst(kTfLiteFloat32, shape, RandomFloats(ElementCount(shape), seed, lo, hi));
}
int ConstI(OpTest& t, const std::vector<int>& shape, const std::vector<int32_t>& values) {
  return t.AddConst(kTfLiteInt32, shape, values);
}

// ---- Elementwise --------------------------------------------------------------------------------

Spec Binary(const std::string& name, int code, std::vector<int> a, std::vector<int> b, bool b_const = false,
            TfLiteFusedActivation act = kTfLiteActNone, float lo = -1, float hi = 1) {
  Spec s;
  s.name = name;
  s.lo = lo, s.hi = hi;
  s.build = [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, a);
    const int y = b_const ? ConstF(t, b, 7, lo, hi) : t.AddInput(kTfLiteFloat32, b);
    const int out = t.AddOutput(kTfLiteFloat32);
    switch (code) {
      case kTfLiteBuiltinAdd:
        t.AddOp(code, {x, y}, {out}, fbs::BuiltinOptions::AddOptions, fbs::CreateAddOptions(t.fbb(), Act(act)).Union());
        break;
      case kTfLiteBuiltinSub:
        t.AddOp(code, {x, y}, {out}, fbs::BuiltinOptions::SubOptions, fbs::CreateSubOptions(t.fbb(), Act(act)).Union());
        break;
      case kTfLiteBuiltinMul:
        t.AddOp(code, {x, y}, {out}, fbs::BuiltinOptions::MulOptions, fbs::CreateMulOptions(t.fbb(), Act(act)).Union());
        break;
      case kTfLiteBuiltinDiv:
        t.AddOp(code, {x, y}, {out}, fbs::BuiltinOptions::DivOptions, fbs::CreateDivOptions(t.fbb(), Act(act)).Union());
        break;
      default:
        t.AddOp(code, {x, y}, {out});
        break;
    }
  };
  return s;
}

TEST(GpuDelegateOps, Binary) {
  REQUIRE_VULKAN();
  Check(Binary("add same shape", kTfLiteBuiltinAdd, {1, 4, 5, 3}, {1, 4, 5, 3}));
  Check(Binary("add broadcast channels", kTfLiteBuiltinAdd, {1, 4, 5, 3}, {3}, true));
  Check(Binary("add broadcast both", kTfLiteBuiltinAdd, {2, 1, 3}, {1, 4, 1}));
  Check(Binary("add scalar", kTfLiteBuiltinAdd, {1, 7, 5}, {}, true));
  Check(Binary("add relu6", kTfLiteBuiltinAdd, {1, 3, 3, 5}, {1, 3, 3, 5}, false, kTfLiteActRelu6, -8, 8));
  Check(Binary("add rank 6", kTfLiteBuiltinAdd, {2, 1, 3, 2, 1, 3}, {1, 2, 1, 2, 2, 1}));
  Check(Binary("sub", kTfLiteBuiltinSub, {1, 4, 5, 3}, {1, 1, 5, 1}, false, kTfLiteActRelu));
  Check(Binary("mul", kTfLiteBuiltinMul, {2, 3, 7}, {2, 3, 7}, false, kTfLiteActReluN1To1, -2, 2));
  Check(Binary("mul const", kTfLiteBuiltinMul, {1, 9}, {1, 9}, true));
  Check(Binary("div", kTfLiteBuiltinDiv, {1, 5, 3}, {3}, true, kTfLiteActNone, 0.5f, 2.0f));
  Check(Binary("maximum", kTfLiteBuiltinMaximum, {3, 5}, {1, 5}));
  Check(Binary("minimum", kTfLiteBuiltinMinimum, {3, 5}, {3, 1}));
  Check(Binary("squared difference", kTfLiteBuiltinSquaredDifference, {1, 2, 2, 7}, {1, 2, 2, 7}));
  Check(Binary("prelu", kTfLiteBuiltinPrelu, {1, 4, 4, 3}, {1, 1, 3}, true));
  Check(Binary("pow", kTfLiteBuiltinPow, {2, 6}, {2, 6}, false, kTfLiteActNone, 0.5f, 2.0f));
}

Spec Unary(const std::string& name, int code, std::vector<int> shape, float lo = -4, float hi = 4,
           fbs::BuiltinOptions type = fbs::BuiltinOptions::NONE,
           std::function<flatbuffers::Offset<void>(OpTest&)> opts = nullptr) {
  Spec s;
  s.name = name;
  s.lo = lo, s.hi = hi;
  s.build = [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, shape);
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(code, {x}, {out}, type, opts ? opts(t) : 0);
  };
  return s;
}

TEST(GpuDelegateOps, Unary) {
  REQUIRE_VULKAN();
  const std::vector<int> shape = {1, 5, 3, 7};
  Check(Unary("relu", kTfLiteBuiltinRelu, shape));
  Check(Unary("relu6", kTfLiteBuiltinRelu6, shape, -8, 8));
  Check(Unary("relu_n1_to_1", kTfLiteBuiltinReluN1To1, shape));
  Check(Unary("relu_0_to_1", kTfLiteBuiltinRelu0To1, shape));
  Check(Unary("logistic", kTfLiteBuiltinLogistic, shape, -10, 10));
  Check(Unary("tanh", kTfLiteBuiltinTanh, shape, -6, 6));
  Check(Unary("hard_swish", kTfLiteBuiltinHardSwish, shape, -5, 5));
  Check(Unary("exp", kTfLiteBuiltinExp, shape, -3, 3));
  Check(Unary("abs", kTfLiteBuiltinAbs, shape));
  Check(Unary("neg", kTfLiteBuiltinNeg, {13}));
  Check(Unary("sqrt", kTfLiteBuiltinSqrt, shape, 0.01f, 9));
  Check(Unary("rsqrt", kTfLiteBuiltinRsqrt, shape, 0.1f, 9));
  Check(Unary("square", kTfLiteBuiltinSquare, shape));
  Check(Unary("log", kTfLiteBuiltinLog, shape, 0.1f, 9));
  Check(Unary("sin", kTfLiteBuiltinSin, shape));
  Check(Unary("cos", kTfLiteBuiltinCos, shape));
  Check(Unary("elu", kTfLiteBuiltinElu, shape));
  Check(Unary("floor", kTfLiteBuiltinFloor, shape));
  Check(Unary("ceil", kTfLiteBuiltinCeil, shape));
  Check(Unary("leaky_relu", kTfLiteBuiltinLeakyRelu, shape, -4, 4, fbs::BuiltinOptions::LeakyReluOptions,
              [](OpTest& t) { return fbs::CreateLeakyReluOptions(t.fbb(), 0.2f).Union(); }));
}

// ---- Convolutions -------------------------------------------------------------------------------

struct ConvCase {
  std::string name;
  std::vector<int> input;  // NHWC
  int out_c, kh, kw, stride_h, stride_w, dil_h, dil_w;
  fbs::Padding padding;
  bool bias;
  TfLiteFusedActivation act;
};

Spec Conv(const ConvCase& c) {
  Spec s;
  s.name = "conv " + c.name;
  s.build = [=](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, c.input);
    const int w = ConstF(t, {c.out_c, c.kh, c.kw, c.input[3]}, 11);
    std::vector<int> ins = {x, w};
    if (c.bias) ins.push_back(ConstF(t, {c.out_c}, 12));
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinConv2d, ins, {out}, fbs::BuiltinOptions::Conv2DOptions,
            fbs::CreateConv2DOptions(t.fbb(), c.padding, c.stride_w, c.stride_h, Act(c.act), c.dil_w, c.dil_h).Union());
  };
  return s;
}

TEST(GpuDelegateOps, Conv2d) {
  REQUIRE_VULKAN();
  const auto S = fbs::Padding::SAME, V = fbs::Padding::VALID;
  for (const ConvCase& c : std::vector<ConvCase>{
           {"3x3 same", {1, 7, 9, 5}, 6, 3, 3, 1, 1, 1, 1, S, true, kTfLiteActNone},
           {"3x3 valid stride 2", {1, 8, 9, 3}, 8, 3, 3, 2, 2, 1, 1, V, true, kTfLiteActRelu},
           {"3x3 same stride 2 odd", {2, 7, 7, 4}, 5, 3, 3, 2, 2, 1, 1, S, true, kTfLiteActRelu6},
           {"dilation 2", {1, 9, 10, 3}, 4, 3, 3, 1, 1, 2, 2, S, true, kTfLiteActNone},
           {"dilation 2x3 valid", {1, 11, 12, 2}, 3, 3, 2, 1, 1, 2, 3, V, true, kTfLiteActNone},
           {"1x1", {1, 6, 6, 16}, 24, 1, 1, 1, 1, 1, 1, S, true, kTfLiteActRelu6},
           {"1x1 one channel", {1, 4, 4, 1}, 1, 1, 1, 1, 1, 1, 1, V, true, kTfLiteActNone},
           {"5x5 larger than input", {1, 3, 3, 2}, 7, 5, 5, 1, 1, 1, 1, S, true, kTfLiteActNone},
           {"stride 3x1", {1, 10, 5, 3}, 2, 2, 2, 3, 1, 1, 1, S, true, kTfLiteActReluN1To1},
           {"deep input", {1, 4, 4, 67}, 9, 3, 3, 1, 1, 1, 1, S, true, kTfLiteActNone},
       }) {
    Check(Conv(c));
  }
}

Spec Depthwise(const std::string& name, std::vector<int> input, int multiplier, int kh, int kw, int stride, int dil,
               fbs::Padding padding, bool bias, TfLiteFusedActivation act) {
  Spec s;
  s.name = "depthwise " + name;
  s.build = [=](OpTest& t) {
    const int out_c = input[3] * multiplier;
    const int x = t.AddInput(kTfLiteFloat32, input);
    const int w = ConstF(t, {1, kh, kw, out_c}, 21);
    std::vector<int> ins = {x, w};
    if (bias) ins.push_back(ConstF(t, {out_c}, 22));
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(
        kTfLiteBuiltinDepthwiseConv2d, ins, {out}, fbs::BuiltinOptions::DepthwiseConv2DOptions,
        fbs::CreateDepthwiseConv2DOptions(t.fbb(), padding, stride, stride, multiplier, Act(act), dil, dil).Union());
  };
  return s;
}

TEST(GpuDelegateOps, DepthwiseConv2d) {
  REQUIRE_VULKAN();
  const auto S = fbs::Padding::SAME, V = fbs::Padding::VALID;
  Check(Depthwise("3x3 same", {1, 7, 8, 5}, 1, 3, 3, 1, 1, S, true, kTfLiteActRelu6));
  Check(Depthwise("3x3 stride 2", {2, 9, 9, 3}, 1, 3, 3, 2, 1, S, true, kTfLiteActNone));
  Check(Depthwise("multiplier 2 valid", {1, 6, 7, 3}, 2, 3, 3, 1, 1, V, false, kTfLiteActRelu));
  Check(Depthwise("dilation 2", {1, 10, 10, 4}, 1, 3, 3, 1, 2, S, true, kTfLiteActNone));
  Check(Depthwise("5x5 one channel", {1, 5, 6, 1}, 3, 5, 5, 2, 1, S, true, kTfLiteActNone));
}

Spec TransposeConv(const std::string& name, std::vector<int> input, std::vector<int> out_shape, int kh, int kw,
                   int stride, fbs::Padding padding, bool bias) {
  Spec s;
  s.name = "transpose_conv " + name;
  s.build = [=](OpTest& t) {
    const int shape = ConstI(t, {4}, std::vector<int32_t>(out_shape.begin(), out_shape.end()));
    const int w = ConstF(t, {out_shape[3], kh, kw, input[3]}, 31);
    const int x = t.AddInput(kTfLiteFloat32, input);
    std::vector<int> ins = {shape, w, x};
    if (bias) ins.push_back(ConstF(t, {out_shape[3]}, 32));
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinTransposeConv, ins, {out}, fbs::BuiltinOptions::TransposeConvOptions,
            fbs::CreateTransposeConvOptions(t.fbb(), padding, stride, stride).Union(), bias ? 3 : 1);
  };
  return s;
}

TEST(GpuDelegateOps, TransposeConv) {
  REQUIRE_VULKAN();
  Check(TransposeConv("stride 2 same", {1, 4, 5, 3}, {1, 8, 10, 5}, 3, 3, 2, fbs::Padding::SAME, false));
  Check(TransposeConv("stride 2 valid", {1, 3, 3, 2}, {1, 7, 7, 3}, 3, 3, 2, fbs::Padding::VALID, true));
  Check(TransposeConv("stride 1 4x4", {2, 5, 4, 6}, {2, 5, 4, 1}, 4, 4, 1, fbs::Padding::SAME, true));
}

TEST(GpuDelegateOps, FullyConnected) {
  REQUIRE_VULKAN();
  struct C {
    std::string name;
    std::vector<int> input;
    int out_c;
    bool bias, keep, const_weights;
    TfLiteFusedActivation act;
  };
  for (const C& c : std::vector<C>{{"2x10 -> 7", {2, 10}, 7, true, false, true, kTfLiteActRelu},
                                   {"1x1 -> 16 (hello_world)", {1, 1}, 16, true, false, true, kTfLiteActRelu},
                                   {"keep_num_dims", {2, 3, 10}, 5, false, true, true, kTfLiteActNone},
                                   {"flattened 4-D", {1, 2, 2, 6}, 3, true, false, true, kTfLiteActRelu6},
                                   {"weights as input", {3, 9}, 4, true, false, false, kTfLiteActNone},
                                   {"deep", {1, 1001}, 33, true, false, true, kTfLiteActNone}}) {
    Spec s;
    s.name = "fully_connected " + c.name;
    s.build = [c](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, c.input);
      const int w = c.const_weights ? ConstF(t, {c.out_c, c.input.back()}, 41)
                                    : t.AddInput(kTfLiteFloat32, {c.out_c, c.input.back()});
      std::vector<int> ins = {x, w};
      if (c.bias) ins.push_back(ConstF(t, {c.out_c}, 42));
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinFullyConnected, ins, {out}, fbs::BuiltinOptions::FullyConnectedOptions,
              fbs::CreateFullyConnectedOptions(t.fbb(), Act(c.act), fbs::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                               c.keep)
                  .Union(),
              c.keep ? 5 : 1);
    };
    Check(s);
  }
}

// ---- Pooling, softmax, reductions ---------------------------------------------------------------

TEST(GpuDelegateOps, Pool) {
  REQUIRE_VULKAN();
  struct C {
    int code;
    std::vector<int> input;
    int f, stride;
    fbs::Padding padding;
    TfLiteFusedActivation act;
  };
  for (const C& c :
       std::vector<C>{{kTfLiteBuiltinAveragePool2d, {1, 7, 7, 5}, 7, 1, fbs::Padding::VALID, kTfLiteActNone},
                      {kTfLiteBuiltinAveragePool2d, {2, 9, 8, 3}, 3, 2, fbs::Padding::SAME, kTfLiteActRelu},
                      {kTfLiteBuiltinMaxPool2d, {1, 8, 8, 6}, 2, 2, fbs::Padding::VALID, kTfLiteActNone},
                      {kTfLiteBuiltinMaxPool2d, {1, 7, 9, 3}, 3, 2, fbs::Padding::SAME, kTfLiteActRelu6},
                      {kTfLiteBuiltinL2Pool2d, {1, 6, 6, 2}, 2, 2, fbs::Padding::SAME, kTfLiteActNone},
                      {kTfLiteBuiltinAveragePool2d, {1, 1, 1, 9}, 1, 1, fbs::Padding::SAME, kTfLiteActNone}}) {
    Spec s;
    s.name = "pool " + std::to_string(c.code) + " " + std::to_string(c.f) + "/" + std::to_string(c.stride);
    s.lo = -3, s.hi = 3;
    s.build = [c](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, c.input);
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(c.code, {x}, {out}, fbs::BuiltinOptions::Pool2DOptions,
              fbs::CreatePool2DOptions(t.fbb(), c.padding, c.stride, c.stride, c.f, c.f, Act(c.act)).Union());
    };
    Check(s);
  }
}

TEST(GpuDelegateOps, Softmax) {
  REQUIRE_VULKAN();
  struct C {
    std::vector<int> shape;
    float beta;
    bool log;
  };
  for (const C& c : std::vector<C>{{{2, 10}, 1.0f, false},
                                   {{1, 1001}, 1.0f, false},
                                   {{1, 3, 4, 5}, 0.5f, false},
                                   {{3, 1}, 1.0f, false},
                                   {{2, 17}, 1.0f, true}}) {
    Spec s;
    s.name = std::string(c.log ? "log_softmax " : "softmax ") + std::to_string(c.shape.back());
    s.lo = -5, s.hi = 5;
    s.build = [c](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, c.shape);
      const int out = t.AddOutput(kTfLiteFloat32);
      if (c.log) {
        t.AddOp(kTfLiteBuiltinLogSoftmax, {x}, {out});
      } else {
        t.AddOp(kTfLiteBuiltinSoftmax, {x}, {out}, fbs::BuiltinOptions::SoftmaxOptions,
                fbs::CreateSoftmaxOptions(t.fbb(), c.beta).Union());
      }
    };
    Check(s);
  }
}

TEST(GpuDelegateOps, Reduce) {
  REQUIRE_VULKAN();
  struct C {
    int code;
    std::vector<int> shape;
    std::vector<int32_t> axes;
    bool keep;
  };
  for (const C& c : std::vector<C>{{kTfLiteBuiltinMean, {1, 7, 7, 13}, {1, 2}, true},
                                   {kTfLiteBuiltinMean, {1, 7, 7, 13}, {1, 2}, false},
                                   {kTfLiteBuiltinMean, {2, 3, 4, 5}, {0, 2}, false},
                                   {kTfLiteBuiltinMean, {2, 3, 4}, {-1}, true},
                                   {kTfLiteBuiltinSum, {3, 5, 2}, {1}, false},
                                   {kTfLiteBuiltinReduceMax, {2, 6, 3}, {0, 1, 2}, false},
                                   {kTfLiteBuiltinReduceMin, {4, 3}, {0}, true},
                                   {kTfLiteBuiltinReduceProd, {2, 3, 2}, {2}, false}}) {
    Spec s;
    s.name = "reduce " + std::to_string(c.code);
    s.lo = 0.5f, s.hi = 1.5f;
    s.build = [c](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, c.shape);
      const int axes = ConstI(t, {static_cast<int>(c.axes.size())}, c.axes);
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(c.code, {x, axes}, {out}, fbs::BuiltinOptions::ReducerOptions,
              fbs::CreateReducerOptions(t.fbb(), c.keep).Union());
    };
    Check(s);
  }
}

// ---- Data movement ------------------------------------------------------------------------------

TEST(GpuDelegateOps, Concatenation) {
  REQUIRE_VULKAN();
  struct C {
    std::vector<std::vector<int>> shapes;
    int axis;
    bool const_last;
  };
  for (const C& c : std::vector<C>{{{{1, 4, 5, 3}, {1, 4, 5, 6}}, 3, false},
                                   {{{1, 2, 3}, {1, 5, 3}, {1, 1, 3}}, 1, false},
                                   {{{2, 3}, {2, 1}}, -1, true},
                                   {{{1, 3}, {2, 3}}, 0, false}}) {
    Spec s;
    s.name = "concatenation axis " + std::to_string(c.axis);
    s.build = [c](OpTest& t) {
      std::vector<int> ins;
      for (size_t k = 0; k < c.shapes.size(); ++k) {
        ins.push_back(c.const_last && k + 1 == c.shapes.size() ? ConstF(t, c.shapes[k], 51)
                                                               : t.AddInput(kTfLiteFloat32, c.shapes[k]));
      }
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinConcatenation, ins, {out}, fbs::BuiltinOptions::ConcatenationOptions,
              fbs::CreateConcatenationOptions(t.fbb(), c.axis).Union());
    };
    Check(s);
  }
}

TEST(GpuDelegateOps, ReshapeSqueezeExpandDims) {
  REQUIRE_VULKAN();
  {
    // RESHAPE between two ops (the alias is inside the partition) and alone.
    Spec s;
    s.name = "relu reshape logistic";
    s.build = [](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, {1, 4, 6, 2});
      const int a = t.AddIntermediate(kTfLiteFloat32, {1, 4, 6, 2});
      const int b = t.AddIntermediate(kTfLiteFloat32, {4, 12});
      const int out = t.AddOutput(kTfLiteFloat32);
      const int shape = ConstI(t, {2}, {-1, 12});
      t.AddOp(kTfLiteBuiltinRelu, {x}, {a});
      t.AddOp(kTfLiteBuiltinReshape, {a, shape}, {b});
      t.AddOp(kTfLiteBuiltinLogistic, {b}, {out});
    };
    Check(s);
  }
  {
    Spec s;
    s.name = "reshape alone";
    s.build = [](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, {2, 3, 4});
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinReshape, {x, ConstI(t, {2}, {6, 4})}, {out});
    };
    Check(s);
  }
  {
    Spec s;
    s.name = "squeeze + expand_dims";
    s.build = [](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, {1, 5, 1, 3});
      const int a = t.AddIntermediate(kTfLiteFloat32, {5, 3});
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinSqueeze, {x}, {a}, fbs::BuiltinOptions::SqueezeOptions,
              fbs::CreateSqueezeOptions(t.fbb(), t.fbb().CreateVector(std::vector<int32_t>{0, 2})).Union());
      t.AddOp(kTfLiteBuiltinExpandDims, {a, ConstI(t, {1}, {-1})}, {out});
    };
    Check(s);
  }
}

TEST(GpuDelegateOps, Resize) {
  REQUIRE_VULKAN();
  struct C {
    int code;
    std::vector<int> input;
    int h, w;
    bool align, half;
  };
  for (const C& c : std::vector<C>{{kTfLiteBuiltinResizeBilinear, {1, 5, 6, 3}, 10, 13, false, false},
                                   {kTfLiteBuiltinResizeBilinear, {1, 5, 6, 3}, 9, 11, true, false},
                                   {kTfLiteBuiltinResizeBilinear, {2, 4, 4, 5}, 7, 3, false, true},
                                   {kTfLiteBuiltinResizeBilinear, {1, 33, 33, 2}, 257, 257, true, false},
                                   {kTfLiteBuiltinResizeNearestNeighbor, {1, 5, 6, 3}, 10, 13, false, false},
                                   {kTfLiteBuiltinResizeNearestNeighbor, {1, 5, 6, 3}, 9, 4, true, false},
                                   {kTfLiteBuiltinResizeNearestNeighbor, {1, 4, 7, 2}, 7, 9, false, true}}) {
    Spec s;
    s.name = "resize " + std::to_string(c.code) + " " + std::to_string(c.h) + "x" + std::to_string(c.w) +
             (c.align ? " align" : "") + (c.half ? " half" : "");
    s.build = [c](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, c.input);
      const int size = ConstI(t, {2}, {c.h, c.w});
      const int out = t.AddOutput(kTfLiteFloat32);
      if (c.code == kTfLiteBuiltinResizeBilinear) {
        t.AddOp(c.code, {x, size}, {out}, fbs::BuiltinOptions::ResizeBilinearOptions,
                fbs::CreateResizeBilinearOptions(t.fbb(), c.align, c.half).Union(), 3);
      } else {
        t.AddOp(c.code, {x, size}, {out}, fbs::BuiltinOptions::ResizeNearestNeighborOptions,
                fbs::CreateResizeNearestNeighborOptions(t.fbb(), c.align, c.half).Union(), 3);
      }
    };
    Check(s);
  }
}

TEST(GpuDelegateOps, Pad) {
  REQUIRE_VULKAN();
  struct C {
    std::vector<int> shape;
    std::vector<int32_t> pads;
    bool v2;
  };
  for (const C& c : std::vector<C>{{{1, 3, 4, 2}, {0, 0, 1, 2, 2, 1, 0, 0}, false},
                                   {{1, 3, 4, 5}, {0, 0, 0, 1, 0, 1, 0, 3}, true},
                                   {{3, 2}, {1, 1, 0, 4}, false}}) {
    Spec s;
    s.name = std::string(c.v2 ? "padv2" : "pad");
    s.build = [c](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, c.shape);
      const int pads = ConstI(t, {static_cast<int>(c.shape.size()), 2}, c.pads);
      const int out = t.AddOutput(kTfLiteFloat32);
      if (c.v2) {
        t.AddOp(kTfLiteBuiltinPadv2, {x, pads, t.AddConst(kTfLiteFloat32, {1}, std::vector<float>{0.5f})}, {out});
      } else {
        t.AddOp(kTfLiteBuiltinPad, {x, pads}, {out});
      }
    };
    Check(s);
  }
}

TEST(GpuDelegateOps, SlicesAndTransposes) {
  REQUIRE_VULKAN();
  struct SS {
    std::vector<int> shape;
    std::vector<int32_t> begin, end, strides;
    int begin_mask, end_mask, shrink;
  };
  for (const SS& c : std::vector<SS>{{{1, 6, 7, 4}, {0, 1, 0, 1}, {1, 5, 7, 3}, {1, 1, 2, 1}, 0, 0, 0},
                                     {{2, 5, 3}, {1, -1, 0}, {2, -6, 3}, {1, -1, 1}, 0, 0, 1},
                                     {{4, 6}, {1, 0}, {0, 4}, {2, 3}, 0, 1, 0},
                                     {{3, 4, 5}, {0, 2, 1}, {3, 3, 5}, {1, 1, 1}, 1, 0, 2}}) {
    Spec s;
    s.name = "strided_slice";
    s.build = [c](OpTest& t) {
      const int n = static_cast<int>(c.begin.size());
      const int x = t.AddInput(kTfLiteFloat32, c.shape);
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinStridedSlice,
              {x, ConstI(t, {n}, c.begin), ConstI(t, {n}, c.end), ConstI(t, {n}, c.strides)}, {out},
              fbs::BuiltinOptions::StridedSliceOptions,
              fbs::CreateStridedSliceOptions(t.fbb(), c.begin_mask, c.end_mask, 0, 0, c.shrink).Union());
    };
    Check(s);
  }
  {
    Spec s;
    s.name = "slice";
    s.build = [](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, {2, 5, 6, 3});
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinSlice, {x, ConstI(t, {4}, {1, 1, 2, 0}), ConstI(t, {4}, {1, -1, 3, 2})}, {out});
    };
    Check(s);
  }
  for (const std::vector<int32_t>& perm : std::vector<std::vector<int32_t>>{{0, 3, 1, 2}, {2, 0, 1}, {1, 0}}) {
    Spec s;
    s.name = "transpose";
    s.build = [perm](OpTest& t) {
      const std::vector<int> shapes[] = {{}, {}, {5, 3}, {2, 3, 4}, {1, 3, 4, 5}};
      const int x = t.AddInput(kTfLiteFloat32, shapes[perm.size()]);
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinTranspose, {x, ConstI(t, {static_cast<int>(perm.size())}, perm)}, {out});
    };
    Check(s);
  }
  for (bool to_space : {true, false}) {
    Spec s;
    s.name = to_space ? "depth_to_space" : "space_to_depth";
    s.build = [to_space](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, to_space ? std::vector<int>{1, 3, 4, 8} : std::vector<int>{2, 6, 4, 3});
      const int out = t.AddOutput(kTfLiteFloat32);
      if (to_space) {
        t.AddOp(kTfLiteBuiltinDepthToSpace, {x}, {out}, fbs::BuiltinOptions::DepthToSpaceOptions,
                fbs::CreateDepthToSpaceOptions(t.fbb(), 2).Union());
      } else {
        t.AddOp(kTfLiteBuiltinSpaceToDepth, {x}, {out}, fbs::BuiltinOptions::SpaceToDepthOptions,
                fbs::CreateSpaceToDepthOptions(t.fbb(), 2).Union());
      }
    };
    Check(s);
  }
}

TEST(GpuDelegateOps, LstmBasicKernel) {
  REQUIRE_VULKAN();
  for (int batch : {1, 3}) {
    Spec s;
    s.name = "lstm basic batch " + std::to_string(batch);
    s.lo = -2, s.hi = 2;
    s.build = [batch](OpTest& t) {
      const int input_depth = 5, depth = 6;
      const int x = t.AddInput(kTfLiteFloat32, {batch, input_depth});
      const int prev_activation = t.AddInput(kTfLiteFloat32, {batch, depth});
      const int weights = ConstF(t, {4 * depth, input_depth + depth}, 81);
      const int biases = ConstF(t, {4 * depth}, 82);
      const int prev_state = t.AddInput(kTfLiteFloat32, {batch, depth});
      const int activation = t.AddOutput(kTfLiteFloat32);
      const int state = t.AddOutput(kTfLiteFloat32);
      const int concat = t.AddOutput(kTfLiteFloat32);
      const int gates = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinLstm, {x, prev_activation, weights, biases, prev_state}, {activation, state, concat, gates},
              fbs::BuiltinOptions::LSTMOptions,
              fbs::CreateLSTMOptions(t.fbb(), fbs::ActivationFunctionType::TANH, 0.0f, 0.0f, fbs::LSTMKernelType::BASIC)
                  .Union(),
              2);
    };
    Check(s);
  }
}

// ---- Weights and quantization -------------------------------------------------------------------

TEST(GpuDelegateOps, Float16WeightsFoldedAtInit) {
  REQUIRE_VULKAN();
  Spec s;
  s.name = "dequantize float16 weights -> conv";
  s.build = [](OpTest& t) {
    const std::vector<float> w = RandomFloats(4 * 3 * 3 * 5, 61);
    std::vector<uint16_t> halves;
    for (float v : w) halves.push_back(float16::FloatToHalf(v));
    const int w16 = t.builder().AddConstTensor(kTfLiteFloat16, {4, 3, 3, 5}, halves.data(), halves.size() * 2);
    const int wf = t.AddIntermediate(kTfLiteFloat32, {4, 3, 3, 5});
    const int x = t.AddInput(kTfLiteFloat32, {1, 6, 6, 5});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinDequantize, {w16}, {wf});
    t.AddOp(kTfLiteBuiltinConv2d, {x, wf, ConstF(t, {4}, 62)}, {out}, fbs::BuiltinOptions::Conv2DOptions,
            fbs::CreateConv2DOptions(t.fbb(), fbs::Padding::SAME, 1, 1).Union());
  };
  Check(s);
}

// A quantized tensor: (q - zero_point) * scale.
int QTensor(OpTest& t, TfLiteType type, const std::vector<int>& shape, float scale, int zero_point, bool input) {
  const int id = input ? t.AddInput(type, shape) : t.AddIntermediate(type, shape);
  t.builder().SetQuantization(id, {scale}, {zero_point});
  return id;
}

TEST(GpuDelegateOps, QuantizedOps) {
  REQUIRE_VULKAN();
  {
    // uint8 convolution, per-tensor weights, int32 bias (MobileNet v1's kind).
    Spec s;
    s.name = "uint8 conv relu6";
    s.build = [](OpTest& t) {
      const int x = QTensor(t, kTfLiteUInt8, {1, 6, 6, 3}, 0.02f, 128, true);
      std::vector<uint8_t> w(8 * 3 * 3 * 3);
      std::mt19937 rng(5);
      for (uint8_t& v : w) v = static_cast<uint8_t>(rng() & 0xff);
      const int wt = t.AddConst(kTfLiteUInt8, {8, 3, 3, 3}, w);
      t.builder().SetQuantization(wt, {0.01f}, {120});
      std::vector<int32_t> b(8);
      for (int32_t& v : b) v = static_cast<int32_t>(rng() % 2000) - 1000;
      const int bt = t.AddConst(kTfLiteInt32, {8}, b);
      t.builder().SetQuantization(bt, {0.02f * 0.01f}, {0});
      const int out = t.AddOutput(kTfLiteUInt8);
      t.builder().SetQuantization(out, {0.03f}, {0});
      t.AddOp(kTfLiteBuiltinConv2d, {x, wt, bt}, {out}, fbs::BuiltinOptions::Conv2DOptions,
              fbs::CreateConv2DOptions(t.fbb(), fbs::Padding::SAME, 2, 2, fbs::ActivationFunctionType::RELU6).Union());
    };
    Check(s);
  }
  {
    // int8 depthwise with per-channel weights, then ADD and average pool, then softmax.
    Spec s;
    s.name = "int8 depthwise add pool softmax";
    s.build = [](OpTest& t) {
      const int x = QTensor(t, kTfLiteInt8, {1, 5, 5, 4}, 0.05f, -3, true);
      std::vector<int8_t> w(3 * 3 * 4);
      std::mt19937 rng(6);
      for (int8_t& v : w) v = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
      const int wt = t.AddConst(kTfLiteInt8, {1, 3, 3, 4}, w);
      t.builder().SetQuantization(wt, {0.01f, 0.02f, 0.015f, 0.005f}, {0, 0, 0, 0}, 3);
      std::vector<int32_t> b = {100, -200, 50, 0};
      const int bt = t.AddConst(kTfLiteInt32, {4}, b);
      t.builder().SetQuantization(bt, {0.05f * 0.01f, 0.05f * 0.02f, 0.05f * 0.015f, 0.05f * 0.005f}, {0, 0, 0, 0});
      const int d = QTensor(t, kTfLiteInt8, {1, 5, 5, 4}, 0.04f, 2, false);
      t.AddOp(kTfLiteBuiltinDepthwiseConv2d, {x, wt, bt}, {d}, fbs::BuiltinOptions::DepthwiseConv2DOptions,
              fbs::CreateDepthwiseConv2DOptions(t.fbb(), fbs::Padding::SAME, 1, 1, 1).Union(), 3);
      const int a = QTensor(t, kTfLiteInt8, {1, 5, 5, 4}, 0.06f, -1, false);
      t.AddOp(kTfLiteBuiltinAdd, {d, x}, {a}, fbs::BuiltinOptions::AddOptions,
              fbs::CreateAddOptions(t.fbb(), fbs::ActivationFunctionType::RELU).Union(), 2);
      const int p = QTensor(t, kTfLiteInt8, {1, 1, 1, 4}, 0.06f, -1, false);
      t.AddOp(kTfLiteBuiltinAveragePool2d, {a}, {p}, fbs::BuiltinOptions::Pool2DOptions,
              fbs::CreatePool2DOptions(t.fbb(), fbs::Padding::VALID, 1, 1, 5, 5).Union(), 2);
      const int r = QTensor(t, kTfLiteInt8, {1, 4}, 0.06f, -1, false);
      t.AddOp(kTfLiteBuiltinReshape, {p, ConstI(t, {2}, {1, 4})}, {r});
      const int out = t.AddOutput(kTfLiteInt8);
      t.builder().SetQuantization(out, {1.0f / 256}, {-128});
      t.AddOp(kTfLiteBuiltinSoftmax, {r}, {out}, fbs::BuiltinOptions::SoftmaxOptions,
              fbs::CreateSoftmaxOptions(t.fbb(), 1.0f).Union(), 2);
    };
    Check(s);
  }
  {
    // Float in, QUANTIZE, int8 FC, DEQUANTIZE, float out.
    Spec s;
    s.name = "quantize fc dequantize";
    s.build = [](OpTest& t) {
      const int x = t.AddInput(kTfLiteFloat32, {2, 6});
      const int q = QTensor(t, kTfLiteInt8, {2, 6}, 0.01f, 5, false);
      t.AddOp(kTfLiteBuiltinQuantize, {x}, {q});
      std::vector<int8_t> w(4 * 6);
      std::mt19937 rng(7);
      for (int8_t& v : w) v = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
      const int wt = t.AddConst(kTfLiteInt8, {4, 6}, w);
      t.builder().SetQuantization(wt, {0.02f}, {0});
      const int f = QTensor(t, kTfLiteInt8, {2, 4}, 0.05f, 0, false);
      t.AddOp(kTfLiteBuiltinFullyConnected, {q, wt, -1}, {f}, fbs::BuiltinOptions::FullyConnectedOptions,
              fbs::CreateFullyConnectedOptions(t.fbb()).Union(), 4);
      const int out = t.AddOutput(kTfLiteFloat32);
      t.AddOp(kTfLiteBuiltinDequantize, {f}, {out}, fbs::BuiltinOptions::NONE, 0, 2);
    };
    // The float output is k * 0.05 on both sides; one step of its grid is 0.05 / (largest output).
    const Outputs ref = RunSpec(s, nullptr);
    for (bool f16 : {false, true}) {
      const Outputs got = RunSpec(s, Delegate(f16));
      ASSERT_EQ(got.bytes.size(), 1u);
      const float* a = reinterpret_cast<const float*>(ref.bytes[0].data());
      const float* b = reinterpret_cast<const float*>(got.bytes[0].data());
      for (size_t i = 0; i < ref.bytes[0].size() / 4; ++i) EXPECT_NEAR(a[i], b[i], 0.05f * 1.01f) << i;
    }
  }
}

TEST(GpuDelegateOps, QuantizedModelsOffLeavesThemToTheCpu) {
  REQUIRE_VULKAN();
  OpTest t(KernelSet::kReference);
  const int x = QTensor(t, kTfLiteUInt8, {1, 4, 4, 2}, 0.1f, 128, true);
  const int out = t.AddOutput(kTfLiteUInt8);
  t.builder().SetQuantization(out, {0.1f}, {128});
  t.AddOp(kTfLiteBuiltinAveragePool2d, {x}, {out}, fbs::BuiltinOptions::Pool2DOptions,
          fbs::CreatePool2DOptions(t.fbb(), fbs::Padding::VALID, 2, 2, 2, 2).Union());
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.interpreter()->ModifyGraphWithDelegate(Delegate(false, /*enable_quant=*/false)).ok());
  EXPECT_EQ(t.interpreter()->primary()->delegated_node_count(), 0);
}

// ---- Graphs -------------------------------------------------------------------------------------

TEST(GpuDelegateGraph, MobileNetLikeChainIsOnePartition) {
  REQUIRE_VULKAN();
  Spec s;
  s.name = "conv dw conv pool reshape fc softmax";
  s.build = [](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {1, 16, 16, 3});
    const int c1 = t.AddIntermediate(kTfLiteFloat32, {1, 8, 8, 8});
    t.AddOp(kTfLiteBuiltinConv2d, {x, ConstF(t, {8, 3, 3, 3}, 71), ConstF(t, {8}, 72)}, {c1},
            fbs::BuiltinOptions::Conv2DOptions,
            fbs::CreateConv2DOptions(t.fbb(), fbs::Padding::SAME, 2, 2, fbs::ActivationFunctionType::RELU6).Union());
    const int d1 = t.AddIntermediate(kTfLiteFloat32, {1, 8, 8, 8});
    t.AddOp(kTfLiteBuiltinDepthwiseConv2d, {c1, ConstF(t, {1, 3, 3, 8}, 73), ConstF(t, {8}, 74)}, {d1},
            fbs::BuiltinOptions::DepthwiseConv2DOptions,
            fbs::CreateDepthwiseConv2DOptions(t.fbb(), fbs::Padding::SAME, 1, 1, 1, fbs::ActivationFunctionType::RELU6)
                .Union());
    const int c2 = t.AddIntermediate(kTfLiteFloat32, {1, 8, 8, 12});
    t.AddOp(kTfLiteBuiltinConv2d, {d1, ConstF(t, {12, 1, 1, 8}, 75), ConstF(t, {12}, 76)}, {c2},
            fbs::BuiltinOptions::Conv2DOptions, fbs::CreateConv2DOptions(t.fbb(), fbs::Padding::SAME, 1, 1).Union());
    const int add = t.AddIntermediate(kTfLiteFloat32, {1, 8, 8, 12});
    t.AddOp(kTfLiteBuiltinAdd, {c2, c2}, {add}, fbs::BuiltinOptions::AddOptions,
            fbs::CreateAddOptions(t.fbb()).Union());
    const int p = t.AddIntermediate(kTfLiteFloat32, {1, 1, 1, 12});
    t.AddOp(kTfLiteBuiltinAveragePool2d, {add}, {p}, fbs::BuiltinOptions::Pool2DOptions,
            fbs::CreatePool2DOptions(t.fbb(), fbs::Padding::VALID, 1, 1, 8, 8).Union());
    const int r = t.AddIntermediate(kTfLiteFloat32, {1, 12});
    t.AddOp(kTfLiteBuiltinReshape, {p, ConstI(t, {2}, {1, 12})}, {r});
    const int f = t.AddIntermediate(kTfLiteFloat32, {1, 10});
    t.AddOp(kTfLiteBuiltinFullyConnected, {r, ConstF(t, {10, 12}, 77), ConstF(t, {10}, 78)}, {f},
            fbs::BuiltinOptions::FullyConnectedOptions, fbs::CreateFullyConnectedOptions(t.fbb()).Union());
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinSoftmax, {f}, {out}, fbs::BuiltinOptions::SoftmaxOptions,
            fbs::CreateSoftmaxOptions(t.fbb(), 1.0f).Union());
  };
  Check(s);
}

TEST(GpuDelegateGraph, PartitionsAroundACpuOpHandOverThroughBufferHandles) {
  REQUIRE_VULKAN();
  // a = x + y (GPU); b = GELU(a) (CPU); out = a * b (GPU): a goes from partition 1 to partition 2
  // without the host, and to GELU through CopyFromBufferHandle.
  Spec s;
  s.name = "gpu cpu gpu";
  s.lo = -5, s.hi = 5;
  s.partitions = 2;
  s.full = false;
  s.build = [](OpTest& t) {
    const int x = t.AddInput(kTfLiteFloat32, {1, 3, 4, 5});
    const int y = t.AddInput(kTfLiteFloat32, {1, 3, 4, 5});
    const int a = t.AddIntermediate(kTfLiteFloat32, {1, 3, 4, 5});
    const int b = t.AddIntermediate(kTfLiteFloat32, {1, 3, 4, 5});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinAdd, {x, y}, {a}, fbs::BuiltinOptions::AddOptions, fbs::CreateAddOptions(t.fbb()).Union());
    t.AddOp(kTfLiteBuiltinGelu, {a}, {b});
    t.AddOp(kTfLiteBuiltinMul, {a, b}, {out}, fbs::BuiltinOptions::MulOptions, fbs::CreateMulOptions(t.fbb()).Union());
  };
  Check(s);
}

TEST(GpuDelegateGraph, UnsupportedNodesAreNotClaimed) {
  REQUIRE_VULKAN();
  // Grouped convolution, an int32 ADD, and ops whose shape inputs are computed stay on the CPU.
  struct C {
    std::string name;
    std::function<void(OpTest&)> build;
  };
  std::vector<C> cases = {
      {"grouped conv",
       [](OpTest& t) {
         const int x = t.AddInput(kTfLiteFloat32, {1, 4, 4, 4});
         const int out = t.AddOutput(kTfLiteFloat32);
         t.AddOp(kTfLiteBuiltinConv2d, {x, ConstF(t, {4, 1, 1, 2}, 1), ConstF(t, {4}, 2)}, {out},
                 fbs::BuiltinOptions::Conv2DOptions,
                 fbs::CreateConv2DOptions(t.fbb(), fbs::Padding::SAME, 1, 1).Union());
       }},
      {"int32 add",
       [](OpTest& t) {
         const int x = t.AddInput(kTfLiteInt32, {4});
         const int y = t.AddInput(kTfLiteInt32, {4});
         const int out = t.AddOutput(kTfLiteInt32);
         t.AddOp(kTfLiteBuiltinAdd, {x, y}, {out}, fbs::BuiltinOptions::AddOptions,
                 fbs::CreateAddOptions(t.fbb()).Union());
       }},
      {"mean over computed axes",
       [](OpTest& t) {
         const int x = t.AddInput(kTfLiteFloat32, {2, 3});
         const int axes = t.AddInput(kTfLiteInt32, {1});
         const int out = t.AddOutput(kTfLiteFloat32);
         t.AddOp(kTfLiteBuiltinMean, {x, axes}, {out}, fbs::BuiltinOptions::ReducerOptions,
                 fbs::CreateReducerOptions(t.fbb(), true).Union());
       }},
      {"resize with a computed size",
       [](OpTest& t) {
         const int x = t.AddInput(kTfLiteFloat32, {1, 2, 2, 1});
         const int size = t.AddInput(kTfLiteInt32, {2});
         const int out = t.AddOutput(kTfLiteFloat32);
         t.AddOp(kTfLiteBuiltinResizeBilinear, {x, size}, {out}, fbs::BuiltinOptions::ResizeBilinearOptions,
                 fbs::CreateResizeBilinearOptions(t.fbb()).Union());
       }},
  };
  for (const C& c : cases) {
    OpTest t(KernelSet::kReference);
    c.build(t);
    ASSERT_TRUE(t.Build().ok()) << c.name;
    ASSERT_TRUE(t.interpreter()->ModifyGraphWithDelegate(Delegate(false)).ok()) << c.name;
    EXPECT_EQ(t.interpreter()->primary()->delegated_node_count(), 0) << c.name;
  }
}

TEST(GpuDelegateGraph, BufferHandleHooks) {
  REQUIRE_VULKAN();
  TfLiteDelegate* d = Delegate(false);
  OpTest t(KernelSet::kReference);
  const int x = t.AddInput(kTfLiteFloat32, {2, 3});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinRelu, {x}, {out});
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.interpreter()->ModifyGraphWithDelegate(d).ok());
  ASSERT_TRUE(t.AllocateTensors().ok());
  t.SetInput(0, std::vector<float>{-1, 2, -3, 4, -5, 6});
  ASSERT_TRUE(t.Invoke().ok());
  // The output lives behind the delegate's handle; the interpreter copied it back for the caller.
  TfLiteTensor* o = t.interpreter()->output_tensor(0);
  ASSERT_NE(o->buffer_handle, kTfLiteNullBufferHandle);
  EXPECT_EQ(o->delegate, d);
  EXPECT_FALSE(o->data_is_stale);
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0, 2, 0, 4, 0, 6}));
  // CopyToBufferHandle writes host data into the device buffer; CopyFromBufferHandle reads it back.
  TfLiteContext* context = t.interpreter()->primary()->context();
  for (int i = 0; i < 6; ++i) o->data.f[i] = 10.0f + i;
  ASSERT_EQ(d->CopyToBufferHandle(context, d, o->buffer_handle, o), kTfLiteOk);
  for (int i = 0; i < 6; ++i) o->data.f[i] = 0.0f;
  ASSERT_EQ(d->CopyFromBufferHandle(context, d, o->buffer_handle, o), kTfLiteOk);
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(d->CopyFromBufferHandle(context, d, 12345, o), kTfLiteError);
  TfLiteBufferHandle handle = o->buffer_handle;
  d->FreeBufferHandle(context, d, &handle);
  EXPECT_EQ(handle, kTfLiteNullBufferHandle);
  // The next run overwrites the buffer again.
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0, 2, 0, 4, 0, 6}));
}

TEST(GpuDelegateGraph, ResizedInputsArePreparedAgain) {
  REQUIRE_VULKAN();
  OpTest t(KernelSet::kReference);
  const int x = t.AddInput(kTfLiteFloat32, {1, 4});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinLogistic, {x}, {out});
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.interpreter()->ModifyGraphWithDelegate(Delegate(false)).ok());
  ASSERT_TRUE(t.ResizeInput(0, {3, 5}).ok());
  ASSERT_TRUE(t.AllocateTensors().ok());
  std::vector<float> in(15);
  for (int i = 0; i < 15; ++i) in[i] = 0.5f * i - 3;
  t.SetInput(0, in);
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 5}));
  const std::vector<float> got = t.GetOutput<float>(0);
  for (int i = 0; i < 15; ++i) EXPECT_NEAR(got[i], 1.0f / (1.0f + std::exp(-in[i])), 1e-6f) << i;
}

// CONV_2D then TANH on a 1x8x8x4 input, handed to `d` and allocated: two dispatches.
void BuildConvTanh(OpTest& t, TfLiteDelegate* d) {
  const int x = t.AddInput(kTfLiteFloat32, {1, 8, 8, 4});
  const int a = t.AddIntermediate(kTfLiteFloat32, {1, 8, 8, 4});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinConv2d, {x, ConstF(t, {4, 3, 3, 4}, 3), ConstF(t, {4}, 4)}, {a},
          fbs::BuiltinOptions::Conv2DOptions, fbs::CreateConv2DOptions(t.fbb(), fbs::Padding::SAME, 1, 1).Union());
  t.AddOp(kTfLiteBuiltinTanh, {a}, {out});
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.interpreter()->ModifyGraphWithDelegate(d).ok());
  ASSERT_TRUE(t.AllocateTensors().ok());
}

TEST(GpuDelegateGraph, ProfileHasOneTimingPerDispatch) {
  REQUIRE_VULKAN();
  TfLiteDelegate* d = Delegate(false, true, /*profile=*/true);
  OpTest t(KernelSet::kReference);
  ASSERT_NO_FATAL_FAILURE(BuildConvTanh(t, d));
  ASSERT_TRUE(t.Invoke().ok());
  const std::vector<GpuOpTiming> profile = GpuDelegateLastProfile(d);
  ASSERT_EQ(profile.size(), 2u);
  EXPECT_EQ(profile[0].op_name, "CONV_2D");
  EXPECT_EQ(profile[1].op_name, "TANH");
  for (const GpuOpTiming& p : profile) EXPECT_GE(p.gpu_microseconds, 0.0);
  EXPECT_FALSE(GpuDelegateDeviceDescription(d).empty());
}

// Without enable_op_profiling, an installed profiler (TfLiteContext::profiler) alone turns on the
// timestamped command buffer, and each dispatch reaches the NodeObserver as a delegate op.
class DelegateOpRecorder : public NodeObserver {
 public:
  void NodeFinished(int, int, const std::string&, bool, int64_t) override {}
  void DelegateOpFinished(int, int, const std::string& op_name, int op_index, int64_t duration_us) override {
    ops.push_back(op_name + ":" + std::to_string(op_index));
    EXPECT_GE(duration_us, 0);
  }
  std::vector<std::string> ops;
};

TEST(GpuDelegateGraph, InstalledProfilerGetsOneEventPerDispatch) {
  REQUIRE_VULKAN();
  TfLiteDelegate* d = Delegate(false, true, /*profile=*/false);
  OpTest t(KernelSet::kReference);
  ASSERT_NO_FATAL_FAILURE(BuildConvTanh(t, d));
  DelegateOpRecorder recorder;
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_TRUE(GpuDelegateLastProfile(d).empty());  // not profiling: the plain command buffer
  t.interpreter()->SetNodeObserver(&recorder);
  ASSERT_TRUE(t.Invoke().ok());
  t.interpreter()->SetNodeObserver(nullptr);
  if (GpuDelegateLastProfile(d).empty()) GTEST_SKIP() << "the device has no timestamps";
  EXPECT_EQ(recorder.ops, (std::vector<std::string>{"CONV_2D:0", "TANH:1"}));
}

TEST(GpuDelegateGraph, NoVulkanFailsThePrepareInOneLine) {
  // Runs everywhere: the loader is pointed at nothing.
  setenv("TOUCHSTONE_VULKAN_LOADER", "/nonexistent/libvulkan.so.1", 1);
  GpuDelegateOptions options;
  TfLiteDelegate* d = TfLiteGpuDelegateCreate(&options);
  {  // the interpreter goes before the delegate
    OpTest t(KernelSet::kReference);
    const int x = t.AddInput(kTfLiteFloat32, {4});
    const int out = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinRelu, {x}, {out});
    EXPECT_TRUE(t.Build().ok());
    Status applied = t.interpreter()->ModifyGraphWithDelegate(d);
    unsetenv("TOUCHSTONE_VULKAN_LOADER");
    EXPECT_FALSE(applied.ok());
    EXPECT_NE(applied.message().find("no Vulkan loader"), std::string::npos) << applied.message();
    EXPECT_EQ(applied.message().find('\n'), std::string::npos);
    // The CPU graph is intact.
    EXPECT_EQ(t.interpreter()->primary()->delegated_node_count(), 0);
    EXPECT_TRUE(t.AllocateTensors().ok());
    t.SetInput(0, std::vector<float>{-1, 2, -3, 4});
    EXPECT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{0, 2, 0, 4}));
  }
  TfLiteGpuDelegateDelete(d);
}

}  // namespace
}  // namespace touchstone
