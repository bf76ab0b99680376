// Every optimized kernel against the reference kernel on the same one-op models (built with
// OpTest, run through the real loader and interpreter): for each microkernel set this CPU runs
// (AVX-512, AVX+FMA, SSE2, NEON, scalar) and with 1 and 4 threads. Float outputs must agree within
// 1e-5 of the output's largest magnitude (accumulation order only); pooling, ADD, MUL and
// RESIZE_BILINEAR (on x86-64), the quantized kernels, and every configuration that falls back to
// the reference kernel (int16, broadcasts), exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/q16_kernels.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/op_resolver.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;
using Act = fb::ActivationFunctionType;

// Serves the optimized kernels for their ops and the reference kernels for the rest, whatever
// op_resolver.cc's table says, so these tests exercise the optimized code directly.
// The optimized kernel set as the runtime resolves it (runtime/op_resolver.cc's one table).
class OptimizedTestResolver : public BuiltinOpResolver {
 public:
  OptimizedTestResolver() : BuiltinOpResolver(KernelSet::kOptimized) {}
};

std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}

template <typename T>
std::vector<T> RandomInts(size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> values(n);
  for (T& v : values) v = static_cast<T>(dist(rng));
  return values;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

int64_t Count(const std::vector<int>& shape) {
  int64_t n = 1;
  for (int d : shape) n *= d;
  return n;
}

struct RunResult {
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<std::vector<int>> shapes;
  std::vector<TfLiteType> types;
};

void SetInputs(Interpreter* interpreter, const std::vector<std::vector<uint8_t>>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    TfLiteTensor* t = interpreter->input_tensor(i);
    ASSERT_EQ(t->bytes, inputs[i].size()) << "input " << i;
    std::memcpy(t->data.raw, inputs[i].data(), inputs[i].size());
  }
}

RunResult Collect(Interpreter* interpreter) {
  RunResult result;
  for (size_t i = 0; i < interpreter->outputs().size(); ++i) {
    const TfLiteTensor* t = interpreter->output_tensor(i);
    result.outputs.emplace_back(t->data.uint8, t->data.uint8 + t->bytes);
    result.shapes.emplace_back(t->dims->data, t->dims->data + t->dims->size);
    result.types.push_back(t->type);
  }
  return result;
}

// Compares the optimized run with the reference one.
void ExpectAgree(const RunResult& reference, const RunResult& optimized, bool exact,
                 const std::string& label) {
  ASSERT_EQ(reference.outputs.size(), optimized.outputs.size()) << label;
  for (size_t o = 0; o < reference.outputs.size(); ++o) {
    ASSERT_EQ(reference.shapes[o], optimized.shapes[o]) << label << " output " << o;
    ASSERT_EQ(reference.outputs[o].size(), optimized.outputs[o].size()) << label;
    if (exact || reference.types[o] != kTfLiteFloat32) {
      EXPECT_TRUE(reference.outputs[o] == optimized.outputs[o])
          << label << " output " << o << " differs from the reference";
      continue;
    }
    const size_t n = reference.outputs[o].size() / sizeof(float);
    const float* ref = reinterpret_cast<const float*>(reference.outputs[o].data());
    const float* opt = reinterpret_cast<const float*>(optimized.outputs[o].data());
    float largest = 0.f;
    for (size_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(ref[i]));
    const float tolerance = 1e-5f * largest;
    int reported = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool ok = std::fabs(ref[i] - opt[i]) <= tolerance || (std::isnan(ref[i]) && std::isnan(opt[i]));
      if (!ok && reported++ < 5) {
        ADD_FAILURE() << label << " output " << o << " element " << i << ": reference " << ref[i]
                      << ", optimized " << opt[i] << " (tolerance " << tolerance << ")";
      }
    }
  }
}

// One op model: built with OpTest, inputs given as bytes. Check() runs it with the reference
// kernels and then with the optimized ones for every microkernel set and 1 and 4 threads.
class OpCase {
 public:
  OpTest& test() { return test_; }

  int AddFloatInput(const std::vector<int>& shape, uint32_t seed, float lo = -1.f, float hi = 1.f) {
    inputs_.push_back(Bytes(RandomFloats(Count(shape), seed, lo, hi)));
    return test_.AddInput(kTfLiteFloat32, shape);
  }
  int AddInputBytes(TfLiteType type, const std::vector<int>& shape, std::vector<uint8_t> bytes) {
    inputs_.push_back(std::move(bytes));
    return test_.AddInput(type, shape);
  }
  int AddFloatConst(const std::vector<int>& shape, uint32_t seed, float lo = -1.f, float hi = 1.f) {
    return test_.AddConst<float>(kTfLiteFloat32, shape, RandomFloats(Count(shape), seed, lo, hi));
  }
  int AddFloatOutput() { return test_.AddOutput(kTfLiteFloat32); }

  // Called after every optimized run with that run's interpreter and thread count.
  using Inspect = std::function<void(Interpreter* interpreter, int threads, const std::string& label)>;
  void set_inspect(Inspect inspect) { inspect_ = std::move(inspect); }
  void set_preserve_all_tensors(bool preserve) { preserve_all_tensors_ = preserve; }

  // `expected_registration`: the optimized registration node 0 must run.
  // Check() then also requires node 0's own optimized path (Subgraph::node_kernel), not the reference
  // Eval an optimized kernel falls back to.
  void RequireOptimizedPath() { require_optimized_path_ = true; }

  void Check(const TfLiteRegistration* expected_registration, bool exact = false) {
    const Status built = test_.Build();
    ASSERT_TRUE(built.ok()) << built.message();
    SetInputs(test_.interpreter(), inputs_);
    // Two runs, as the optimized interpreters make below: an op with state (variable tensors)
    // continues from the first run's in the second.
    RunResult reference[2];
    for (RunResult& result : reference) {
      const Status ran = test_.Invoke();
      ASSERT_TRUE(ran.ok()) << ran.message();
      result = Collect(test_.interpreter());
    }

    // The loaded model, shared without ownership (test_ keeps it alive).
    std::shared_ptr<const Model> model(std::shared_ptr<const Model>(), &test_.interpreter()->model());
    OptimizedTestResolver resolver;
    const std::vector<std::string> sets = optimized::AvailableKernelSets();
    for (const std::string& set : sets) {
      ASSERT_TRUE(optimized::SelectKernelSet(set));
      for (int threads : {1, 4}) {
        const std::string label = set + ", " + std::to_string(threads) + " threads";
        InterpreterOptions options;
        options.kernel_set = KernelSet::kOptimized;
        options.num_threads = threads;
        options.preserve_all_tensors = preserve_all_tensors_;
        StatusOr<std::unique_ptr<Interpreter>> created = Interpreter::Create(model, options, &resolver);
        ASSERT_TRUE(created.ok()) << created.status().message();
        Interpreter* interpreter = created.value().get();
        ASSERT_EQ(interpreter->primary()->registration(0).invoke, expected_registration->invoke)
            << "node 0 does not run the optimized kernel";
        const Status allocated = interpreter->AllocateTensors();
        ASSERT_TRUE(allocated.ok()) << label << ": " << allocated.message();
        if (require_optimized_path_) {
          ASSERT_EQ(interpreter->primary()->node_kernel(0), "optimized")
              << label << ": the optimized kernel ran the reference Eval for this node";
        }
        SetInputs(interpreter, inputs_);
        for (int run = 0; run < 2; ++run) {  // the second run reuses packed weights and buffers
          const Status invoked = interpreter->Invoke();
          ASSERT_TRUE(invoked.ok()) << label << ": " << invoked.message();
          ExpectAgree(reference[run], Collect(interpreter), exact, label + ", run " + std::to_string(run));
          if (inspect_) inspect_(interpreter, threads, label);
        }
      }
    }
    optimized::SelectKernelSet(sets.front());
  }

 private:
  bool require_optimized_path_ = false;
  OpTest test_{KernelSet::kReference};
  std::vector<std::vector<uint8_t>> inputs_;
  Inspect inspect_;
  bool preserve_all_tensors_ = false;
};

// ---- CONV_2D

struct Conv {
  std::vector<int> input;  // NHWC
  int out_channels;
  int kernel_h, kernel_w;
  fb::Padding padding = fb::Padding::SAME;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  Act activation = Act::NONE;
  int groups = 1;
  bool filter_is_input = false;  // weights as a graph input (packed at every Invoke)
};

void CheckConv(const Conv& c, uint32_t seed = 1) {
  OpCase op;
  const int input = op.AddFloatInput(c.input, seed);
  const std::vector<int> filter_shape = {c.out_channels, c.kernel_h, c.kernel_w,
                                         c.input[3] / c.groups};
  const int filter = c.filter_is_input ? op.AddFloatInput(filter_shape, seed + 1)
                                       : op.AddFloatConst(filter_shape, seed + 1);
  const int bias = op.AddFloatConst({c.out_channels}, seed + 2);
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {output},
                  fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), c.padding, c.stride_w, c.stride_h,
                                          c.activation, c.dilation_w, c.dilation_h)
                      .Union());
  op.Check(optimized::Register_CONV_2D());
}

TEST(OptimizedConv2dTest, PointwiseManyChannels) { CheckConv({{1, 7, 9, 37}, 29, 1, 1}); }
TEST(OptimizedConv2dTest, PointwiseValidStrideTwo) {
  CheckConv({{2, 9, 8, 16}, 24, 1, 1, fb::Padding::VALID, 2, 2});
}
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
  const int filter = op.test().AddConst<uint8_t>(kTfLiteUInt8, {4, 3, 3, 3},
                                                 RandomInts<uint8_t>(108, 2, 0, 255));
  op.test().builder().SetQuantization(filter, {0.02f}, {120});
  const int bias = op.test().AddConst<int32_t>(kTfLiteInt32, {4}, RandomInts<int32_t>(4, 3, -500, 500));
  op.test().builder().SetQuantization(bias, {0.05f * 0.02f}, {0});
  const int output = op.test().AddOutput(kTfLiteUInt8);
  op.test().builder().SetQuantization(output, {0.2f}, {100});
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {output},
                  fb::BuiltinOptions::Conv2DOptions,
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

struct Depthwise {
  std::vector<int> input;
  int multiplier;
  int kernel_h, kernel_w;
  fb::Padding padding = fb::Padding::SAME;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  Act activation = Act::NONE;
  bool bias = true;
};

void CheckDepthwise(const Depthwise& d, uint32_t seed = 1) {
  OpCase op;
  const int channels = d.input[3] * d.multiplier;
  const int input = op.AddFloatInput(d.input, seed);
  const int filter = op.AddFloatConst({1, d.kernel_h, d.kernel_w, channels}, seed + 1);
  std::vector<int> inputs = {input, filter};
  if (d.bias) inputs.push_back(op.AddFloatConst({channels}, seed + 2));
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinDepthwiseConv2d, inputs, {output},
                  fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(op.test().fbb(), d.padding, d.stride_w,
                                                   d.stride_h, d.multiplier, d.activation,
                                                   d.dilation_w, d.dilation_h)
                      .Union());
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
TEST(OptimizedDepthwiseTest, NoBias) { CheckDepthwise({{1, 5, 6, 12}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1, Act::NONE, false}); }
TEST(OptimizedDepthwiseTest, FiveByFive) { CheckDepthwise({{1, 11, 11, 40}, 1, 5, 5}); }
// The row kernel: runs of 8, 4 and single pixels, channel blocks with and without a partial one,
// edge pixels left and right of the interior, tap rows above and below the input, batches.
TEST(OptimizedDepthwiseTest, RowKernelRunsAndEdges) {
  // Channel counts that do not fill a register are taken in groups of pixels on stride 1 (1, 3,
  // 8, 24 and 40 on AVX-512; 3 on AVX; 1, 3 on SSE2): widths below, at and above a group.
  for (const int width : {1, 2, 3, 5, 8, 13, 21, 40}) {
    for (const int channels : {1, 3, 8, 17, 24, 32, 35, 40}) {
      CheckDepthwise({{2, 4, width, channels}, 1, 3, 3, fb::Padding::SAME, 1, 1, 1, 1,
                      Act::RELU6},
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
    EXPECT_GE(reinterpret_cast<uintptr_t>(scratch.part(t)) - previous_end,
              optimized::kThreadScratchGapBytes);
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
}

// ---- A 1x1 CONV_2D fused into the DEPTHWISE_CONV_2D reading its output

// The expansion and depthwise layers of an inverted-residual block: input -> 1x1 CONV_2D ->
// `expanded` channels -> DEPTHWISE_CONV_2D -> output.
struct Expansion {
  std::vector<int> input;  // NHWC of the 1x1 convolution's input
  int expanded;
  Act expansion_activation;
  Depthwise depthwise;  // its `input` is ignored; multiplier 1
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
  const int filter = e.expansion_weights_are_input
                         ? op.AddFloatInput({e.expanded, 1, 1, e.input[3]}, seed + 1)
                         : op.AddFloatConst({e.expanded, 1, 1, e.input[3]}, seed + 1);
  const int bias = op.AddFloatConst({e.expanded}, seed + 2);
  const int expanded =
      expanded_is_output ? op.AddFloatOutput() : op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {expanded},
                  fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1,
                                          e.expansion_activation)
                      .Union());
  const int dw_filter = op.AddFloatConst({1, d.kernel_h, d.kernel_w, e.expanded}, seed + 3);
  std::vector<int> dw_inputs = {expanded, dw_filter};
  if (d.bias) dw_inputs.push_back(op.AddFloatConst({e.expanded}, seed + 4));
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinDepthwiseConv2d, dw_inputs, {output},
                  fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(op.test().fbb(), d.padding, d.stride_w,
                                                   d.stride_h, 1, d.activation, d.dilation_w,
                                                   d.dilation_h)
                      .Union());
  op.set_preserve_all_tensors(preserve_all_tensors);
  op.set_inspect([&](Interpreter* interpreter, int threads, const std::string& label) {
    const bool expect_fused =
        fused == Fused::kAlways || (fused == Fused::kOneThread && threads == 1);
    EXPECT_EQ(interpreter->primary()->tensor_fused_away(expanded), expect_fused) << label;
  });
  op.Check(optimized::Register_CONV_2D());
}

TEST(OptimizedExpansionFusionTest, StrideTwoLikeHandLandmark) {
  // 33 output rows: 8 per chunk on 4 threads, 16 input rows each against 1 shared.
  CheckExpansion({{1, 66, 20, 16}, 64, Act::RELU6, {{}, 1, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6}},
                 Fused::kAlways, 1);
  CheckExpansion({{1, 65, 21, 8}, 24, Act::NONE, {{}, 1, 3, 3, fb::Padding::VALID, 2, 2}},
                 Fused::kAlways, 3);
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
  CheckExpansion({{1, 40, 1, 4}, 20, Act::NONE, {{}, 1, 3, 3, fb::Padding::SAME, 1, 2}},
                 Fused::kAlways, 13);
}
TEST(OptimizedExpansionFusionTest, SmallMapsFuseOnOneThreadOnly) {
  // Fewer than 7 output rows per thread on 4 threads: fused on one thread only.
  CheckExpansion({{1, 7, 7, 8}, 48, Act::RELU6, {{}, 1, 5, 5, fb::Padding::SAME, 1, 1, 1, 1, Act::RELU6}},
                 Fused::kOneThread, 9);
  CheckExpansion({{3, 5, 4, 3}, 16, Act::RELU, {{}, 1, 3, 3, fb::Padding::SAME, 2, 1}},
                 Fused::kOneThread, 15);
  CheckExpansion({{1, 1, 1, 1}, 1, Act::NONE, {{}, 1, 1, 1}}, Fused::kOneThread, 17);
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
  op.test().AddOp(kTfLiteBuiltinConv2d, {sum, filter, bias}, {expanded},
                  fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1).Union());
  const int dw_filter = op.AddFloatConst({1, 3, 3, 32}, 44);
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinDepthwiseConv2d, {expanded, dw_filter}, {output},
                  fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1, 1)
                      .Union());
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
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {expanded},
                  fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1).Union());
  const int dw_filter = op.AddFloatConst({1, 3, 3, 16}, 34);
  const int depthwise = op.test().AddIntermediate(kTfLiteFloat32);
  op.test().AddOp(kTfLiteBuiltinDepthwiseConv2d, {expanded, dw_filter}, {depthwise},
                  fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(op.test().fbb(), fb::Padding::SAME, 1, 1, 1)
                      .Union());
  const int sum = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinAdd, {depthwise, expanded}, {sum},
                  fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(op.test().fbb()).Union());
  op.Check(optimized::Register_CONV_2D());
}

// ---- FULLY_CONNECTED

struct FullyConnected {
  std::vector<int> input;
  int units;
  int depth;
  bool bias = true;
  bool keep_num_dims = false;
  Act activation = Act::NONE;
  bool weights_are_input = false;
};

void CheckFullyConnected(const FullyConnected& f, uint32_t seed = 1, bool exact = false) {
  OpCase op;
  const int input = op.AddFloatInput(f.input, seed);
  const int weights = f.weights_are_input ? op.AddFloatInput({f.units, f.depth}, seed + 1)
                                          : op.AddFloatConst({f.units, f.depth}, seed + 1);
  std::vector<int> inputs = {input, weights};
  if (f.bias) inputs.push_back(op.AddFloatConst({f.units}, seed + 2));
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinFullyConnected, inputs, {output},
                  fb::BuiltinOptions::FullyConnectedOptions,
                  fb::CreateFullyConnectedOptions(op.test().fbb(), f.activation,
                                                  fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                                  f.keep_num_dims)
                      .Union());
  op.RequireOptimizedPath();
  op.Check(optimized::Register_FULLY_CONNECTED(), exact);
}

// Up to 512 multiply-adds the kernel runs the reference's loops: bit-exact.
TEST(OptimizedFullyConnectedTest, TinyLayersAreExact) {
  CheckFullyConnected({{1, 16}, 16, 16, true, false, Act::RELU}, 1, /*exact=*/true);
  CheckFullyConnected({{1, 1}, 16, 1}, 2, /*exact=*/true);
  CheckFullyConnected({{2, 16}, 16, 16, false}, 3, /*exact=*/true);
  CheckFullyConnected({{4, 2, 8}, 5, 16, true, false, Act::RELU6}, 4, /*exact=*/true);
}

TEST(OptimizedFullyConnectedTest, SizeOne) { CheckFullyConnected({{1, 1}, 1, 1}); }
TEST(OptimizedFullyConnectedTest, OddSizesRelu) {
  CheckFullyConnected({{1, 37}, 29, 37, true, false, Act::RELU});
}
TEST(OptimizedFullyConnectedTest, NoBias) { CheckFullyConnected({{3, 20}, 9, 20, false}); }
TEST(OptimizedFullyConnectedTest, FlattensTheInput) { CheckFullyConnected({{4, 2, 8}, 5, 16}); }
TEST(OptimizedFullyConnectedTest, KeepNumDims) {
  CheckFullyConnected({{2, 3, 16}, 10, 16, true, true, Act::RELU6});
}
TEST(OptimizedFullyConnectedTest, WeightsAreAGraphInput) {
  FullyConnected f{{2, 33}, 17, 33};
  f.weights_are_input = true;
  CheckFullyConnected(f);
}
TEST(OptimizedFullyConnectedTest, ManyUnitsCrossThreadChunks) { CheckFullyConnected({{5, 64}, 1000, 64}); }
TEST(OptimizedFullyConnectedTest, DeepRowsCrossWeightBlocks) { CheckFullyConnected({{3, 1500}, 70, 1500}); }
TEST(OptimizedFullyConnectedTest, Int8MatchesTheReference) {
  OpCase op;
  const int input = op.AddInputBytes(kTfLiteInt8, {2, 10}, Bytes(RandomInts<int8_t>(20, 1, -128, 127)));
  op.test().builder().SetQuantization(input, {0.1f}, {3});
  const int weights = op.test().AddConst<int8_t>(kTfLiteInt8, {6, 10}, RandomInts<int8_t>(60, 2, -127, 127));
  op.test().builder().SetQuantization(weights, {0.01f}, {0});
  const int output = op.test().AddOutput(kTfLiteInt8);
  op.test().builder().SetQuantization(output, {0.05f}, {-2});
  op.test().AddOp(kTfLiteBuiltinFullyConnected, {input, weights}, {output},
                  fb::BuiltinOptions::FullyConnectedOptions,
                  fb::CreateFullyConnectedOptions(op.test().fbb()).Union());
  op.Check(optimized::Register_FULLY_CONNECTED(), /*exact=*/true);
}

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
      __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512f")) {
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

std::vector<uint8_t> RandomQuantBytes(TfLiteType type, size_t n, uint32_t seed) {
  return type == kTfLiteUInt8 ? RandomInts<uint8_t>(n, seed, 0, 255)
                              : Bytes(RandomInts<int8_t>(n, seed, -128, 127));
}

int AddQuantInput(OpCase& op, TfLiteType type, const std::vector<int>& shape, uint32_t seed,
                  const Quant& q) {
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

int AddQuantWeights(OpCase& op, TfLiteType type, const std::vector<int>& shape, int dimension,
                    uint32_t seed, const Quant& q) {
  const size_t n = Count(shape);
  const int index =
      type == kTfLiteUInt8
          ? op.test().AddConst<uint8_t>(type, shape, RandomInts<uint8_t>(n, seed, 0, 255))
          : op.test().AddConst<int8_t>(type, shape, RandomInts<int8_t>(n, seed, -128, 127));
  const std::vector<float> scales = WeightScales(q, shape[dimension]);
  op.test().builder().SetQuantization(
      index, scales, std::vector<int64_t>(scales.size(), q.weights_zero_point), dimension);
  return index;
}

int AddQuantBias(OpCase& op, int channels, uint32_t seed, const Quant& q) {
  const int index = op.test().AddConst<int32_t>(
      kTfLiteInt32, {channels}, RandomInts<int32_t>(channels, seed, -q.bias_range, q.bias_range));
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
      AddQuantWeights(op, type, {c.out_channels, c.kernel_h, c.kernel_w, c.input[3] / c.groups},
                      0, seed + 1, q);
  const int bias = AddQuantBias(op, c.out_channels, seed + 2, q);
  const int output = AddQuantOutput(op, type, q);
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {output},
                  fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), c.padding, c.stride_w, c.stride_h,
                                          c.activation, c.dilation_w, c.dilation_h)
                      .Union());
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
TEST(OptimizedQuantizedConvTest, ThreeByThreeOddChannelsAndPadding) {
  CheckQuantConvAllTypes({{1, 5, 6, 3}, 5, 3, 3});
  CheckQuantConvAllTypes({{2, 9, 8, 3}, 16, 3, 3, fb::Padding::SAME, 2, 2, 1, 1, Act::RELU6});
  CheckQuantConvAllTypes({{1, 10, 7, 5}, 7, 3, 3, fb::Padding::VALID, 1, 1, 1, 1, Act::RELU});
}
TEST(OptimizedQuantizedConvTest, StridesDilationNonSquare) {
  CheckQuantConvAllTypes({{1, 15, 12, 6}, 9, 3, 3, fb::Padding::VALID, 1, 2, 2, 3});
  CheckQuantConvAllTypes(
      {{1, 9, 11, 4}, 11, 2, 3, fb::Padding::SAME, 2, 1, 1, 2, Act::RELU_N1_TO_1});
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
  const int filter =
      AddQuantWeights(op, type, {1, d.kernel_h, d.kernel_w, channels}, 3, seed + 1, q);
  std::vector<int> inputs = {input, filter};
  if (d.bias) inputs.push_back(AddQuantBias(op, channels, seed + 2, q));
  const int output = AddQuantOutput(op, type, q);
  op.test().AddOp(kTfLiteBuiltinDepthwiseConv2d, inputs, {output},
                  fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(op.test().fbb(), d.padding, d.stride_w,
                                                   d.stride_h, d.multiplier, d.activation,
                                                   d.dilation_w, d.dilation_h)
                      .Union());
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

void CheckQuantFullyConnected(TfLiteType type, const FullyConnected& f, const Quant& q,
                              uint32_t seed = 1) {
  OpCase op;
  const int input = AddQuantInput(op, type, f.input, seed, q);
  const int weights = AddQuantWeights(op, type, {f.units, f.depth}, 0, seed + 1, q);
  std::vector<int> inputs = {input, weights};
  if (f.bias) inputs.push_back(AddQuantBias(op, f.units, seed + 2, q));
  const int output = AddQuantOutput(op, type, q);
  op.test().AddOp(kTfLiteBuiltinFullyConnected, inputs, {output},
                  fb::BuiltinOptions::FullyConnectedOptions,
                  fb::CreateFullyConnectedOptions(op.test().fbb(), f.activation,
                                                  fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                                  f.keep_num_dims)
                      .Union());
  CheckQuantized(op, optimized::Register_FULLY_CONNECTED());
}

// Hybrid FULLY_CONNECTED (float input, int8 weights with one scale): the reference's arithmetic, so
// the same floats bit for bit, symmetric and asymmetric input quantization, any activation.
void CheckHybridFullyConnected(const FullyConnected& f, bool asymmetric, uint32_t seed = 1) {
  OpCase op;
  const int input = op.AddFloatInput(f.input, seed, -3.f, 2.f);
  const int weights = op.test().AddConst<int8_t>(kTfLiteInt8, {f.units, f.depth},
                                                  RandomInts<int8_t>(static_cast<size_t>(f.units) * f.depth,
                                                                     seed + 1, -127, 127));
  op.test().builder().SetQuantization(weights, {0.0123f}, {0});
  std::vector<int> inputs = {input, weights};
  if (f.bias) inputs.push_back(op.AddFloatConst({f.units}, seed + 2));
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinFullyConnected, inputs, {output},
                  fb::BuiltinOptions::FullyConnectedOptions,
                  fb::CreateFullyConnectedOptions(op.test().fbb(), f.activation,
                                                  fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                                  f.keep_num_dims, asymmetric)
                      .Union());
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
  op.test().AddOp(kTfLiteBuiltinConv2d, {input, filter, bias}, {output}, fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), c.padding, c.stride_w, c.stride_h, c.activation,
                                          c.dilation_w, c.dilation_h)
                      .Union());
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

// ---- BATCH_MATMUL

void CheckBatchMatMul(const std::vector<int>& lhs, const std::vector<int>& rhs, bool adj_x,
                      bool adj_y, bool rhs_constant = false, uint32_t seed = 1) {
  OpCase op;
  const int a = op.AddFloatInput(lhs, seed);
  const int b = rhs_constant ? op.AddFloatConst(rhs, seed + 1) : op.AddFloatInput(rhs, seed + 1);
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinBatchMatmul, {a, b}, {output},
                  fb::BuiltinOptions::BatchMatMulOptions,
                  fb::CreateBatchMatMulOptions(op.test().fbb(), adj_x, adj_y).Union());
  op.Check(optimized::Register_BATCH_MATMUL());
}

TEST(OptimizedBatchMatMulTest, Plain) { CheckBatchMatMul({2, 3, 4}, {2, 4, 5}, false, false); }
TEST(OptimizedBatchMatMulTest, SizeOne) { CheckBatchMatMul({1, 1}, {1, 1}, false, false); }
TEST(OptimizedBatchMatMulTest, Adjoints) {
  CheckBatchMatMul({2, 4, 3}, {2, 4, 5}, true, false);
  CheckBatchMatMul({2, 3, 4}, {2, 5, 4}, false, true);
  CheckBatchMatMul({3, 7, 3}, {3, 9, 7}, true, true);
}
TEST(OptimizedBatchMatMulTest, BroadcastsBatches) {
  CheckBatchMatMul({2, 1, 3, 4}, {3, 4, 6}, false, false);
  CheckBatchMatMul({1, 3, 4}, {5, 4, 7}, false, false);
  CheckBatchMatMul({2, 3, 1, 5, 4}, {1, 3, 2, 4, 3}, false, false);
}
TEST(OptimizedBatchMatMulTest, ConstantRhs) {
  CheckBatchMatMul({4, 5, 6}, {6, 9}, false, false, true);
  CheckBatchMatMul({2, 5, 6}, {2, 9, 6}, false, true, true);
}
TEST(OptimizedBatchMatMulTest, LargeCrossesThreadChunks) {
  CheckBatchMatMul({4, 64, 96}, {4, 96, 80}, false, false);
}

// ---- MEAN and SUM

void CheckReduce(int code, const std::vector<int>& shape, const std::vector<int32_t>& axes, bool keep_dims,
                 bool optimized = true, uint32_t seed = 1) {
  OpCase op;
  if (optimized) op.RequireOptimizedPath();
  const int input = op.AddFloatInput(shape, seed, -4.f, 6.f);
  const int axis = op.test().AddConst<int32_t>(kTfLiteInt32, {static_cast<int>(axes.size())}, axes);
  const int output = op.AddFloatOutput();
  op.test().AddOp(code, {input, axis}, {output}, fb::BuiltinOptions::ReducerOptions,
                  fb::CreateReducerOptions(op.test().fbb(), keep_dims).Union());
  op.Check(code == kTfLiteBuiltinMean ? optimized::Register_MEAN() : optimized::Register_SUM());
}

TEST(OptimizedReduceTest, OneBlockOfAxes) {
  for (int code : {kTfLiteBuiltinMean, kTfLiteBuiltinSum}) {
    SCOPED_TRACE(code);
    CheckReduce(code, {1, 335, 80}, {2}, false);       // a layer norm's mean
    CheckReduce(code, {1, 335, 80}, {-1}, true);
    CheckReduce(code, {2, 7, 7, 37}, {1, 2}, true);     // spatial mean, odd channels
    CheckReduce(code, {2, 7, 7, 37}, {2, 1, 2}, false);  // unsorted, repeated
    CheckReduce(code, {9, 4, 5}, {0}, false);           // leading axis
    CheckReduce(code, {3, 4, 5}, {0, 1, 2}, false);     // everything
    CheckReduce(code, {1}, {0}, true);                  // size 1
    CheckReduce(code, {4, 1, 3}, {1}, false);           // a reduced axis of size 1 (nothing reduced)
    CheckReduce(code, {1, 335, 80}, {0, 2}, false);     // axes apart but for a dimension of size 1
    CheckReduce(code, {3, 1, 4, 5}, {0, 2}, true);
    CheckReduce(code, {64, 3001}, {1}, false);          // rows over the threads, a long tail
  }
}
TEST(OptimizedReduceTest, AxesApartRunTheReference) {
  CheckReduce(kTfLiteBuiltinMean, {2, 3, 4}, {0, 2}, false, /*optimized=*/false);
}

// ---- ADD and MUL

void CheckBinary(int code, const std::vector<int>& a_shape, const std::vector<int>& b_shape,
                 Act activation = Act::NONE, bool exact = true, uint32_t seed = 1, bool require_optimized = false) {
  OpCase op;
  if (require_optimized) op.RequireOptimizedPath();
  const int a = op.AddFloatInput(a_shape, seed, -8.f, 8.f);
  const int b = op.AddFloatInput(b_shape, seed + 1, -8.f, 8.f);
  const int output = op.AddFloatOutput();
  if (code == kTfLiteBuiltinAdd) {
    op.test().AddOp(code, {a, b}, {output}, fb::BuiltinOptions::AddOptions,
                    fb::CreateAddOptions(op.test().fbb(), activation).Union());
    op.Check(optimized::Register_ADD(), exact);
  } else {
    op.test().AddOp(code, {a, b}, {output}, fb::BuiltinOptions::MulOptions,
                    fb::CreateMulOptions(op.test().fbb(), activation).Union());
    op.Check(optimized::Register_MUL(), exact);
  }
}

TEST(OptimizedBinaryTest, SameShape) {
  for (int code : {kTfLiteBuiltinAdd, kTfLiteBuiltinMul}) {
    CheckBinary(code, {2, 3, 5, 7}, {2, 3, 5, 7});
    CheckBinary(code, {1}, {1});
    CheckBinary(code, {3, 11}, {3, 11}, Act::RELU6);
    CheckBinary(code, {37}, {37}, Act::RELU_N1_TO_1);
    CheckBinary(code, {5, 9}, {5, 9}, Act::RELU);
  }
}
TEST(OptimizedBinaryTest, ScalarOperand) {
  for (int code : {kTfLiteBuiltinAdd, kTfLiteBuiltinMul}) {
    CheckBinary(code, {4, 9}, {1});
    CheckBinary(code, {1, 1}, {3, 13}, Act::RELU);
  }
}
// Any broadcast runs as rows of the same microkernel: both operands consecutive over a row, or one of
// them a single value over it; exactly the reference's results.
TEST(OptimizedBinaryTest, Broadcasts) {
  for (int code : {kTfLiteBuiltinAdd, kTfLiteBuiltinMul}) {
    SCOPED_TRACE(code);
    const auto check = [&](const std::vector<int>& a, const std::vector<int>& b, Act act = Act::NONE) {
      CheckBinary(code, a, b, act, /*exact=*/true, 1, /*require_optimized=*/true);
      CheckBinary(code, b, a, act, /*exact=*/true, 2, /*require_optimized=*/true);
    };
    check({2, 3, 1}, {1, 3, 4});
    check({5, 8}, {8}, Act::RELU6);
    check({10, 4, 33, 35}, {10, 1, 1, 35});          // an attention mask
    check({1, 335, 80}, {1, 335, 1}, Act::RELU);     // a per-row scale
    check({10, 35, 160}, {1, 1, 160});               // a per-channel bias
    check({3, 1, 5, 1, 7}, {1, 4, 1, 6, 1});         // every dimension broadcast one way or the other
    check({2, 1, 3}, {2, 5, 3});
    check({1, 1, 1, 9}, {4, 1});
    check({6, 1}, {1});
    check({1, 3000, 7}, {1, 3000, 1});               // rows split over the threads
    // Short rows one input repeats over the next dimension out: tiled (EvalTiled).
    check({8, 100, 32, 2}, {8, 100, 1, 2});          // a rotary embedding's pairs
    check({3, 7, 5}, {3, 1, 5}, Act::RELU6);
    check({2, 600, 3}, {2, 1, 3});                   // more repeats than one tile holds
    check({4, 31}, {31});                            // one group per thread chunk boundary
    check({5, 2, 9, 3}, {5, 1, 1, 3});
  }
}
TEST(OptimizedBinaryTest, LargeCrossesThreadChunks) {
  CheckBinary(kTfLiteBuiltinAdd, {100003}, {100003}, Act::RELU);
  CheckBinary(kTfLiteBuiltinMul, {7, 50001}, {7, 50001});
}
TEST(OptimizedBinaryTest, Int32FallsBackToTheReference) {
  OpCase op;
  const int a = op.AddInputBytes(kTfLiteInt32, {17}, Bytes(RandomInts<int32_t>(17, 1, -1000, 1000)));
  const int b = op.AddInputBytes(kTfLiteInt32, {17}, Bytes(RandomInts<int32_t>(17, 2, -1000, 1000)));
  const int output = op.test().AddOutput(kTfLiteInt32);
  op.test().AddOp(kTfLiteBuiltinAdd, {a, b}, {output}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(op.test().fbb()).Union());
  op.Check(optimized::Register_ADD(), true);
}

// Quantized ADD (computed on AVX-512, a table of the reference's results for every pair of input
// bytes elsewhere) on the given input bytes.
void CheckQuantAddBytes(TfLiteType type, const std::vector<int>& a_shape,
                        std::vector<uint8_t> a_bytes, const std::vector<int>& b_shape,
                        std::vector<uint8_t> b_bytes, float a_scale, int a_zp, float b_scale,
                        int b_zp, float out_scale, int out_zp, Act activation) {
  OpCase op;
  const int a = op.AddInputBytes(type, a_shape, std::move(a_bytes));
  op.test().builder().SetQuantization(a, {a_scale}, {a_zp});
  const int b = op.AddInputBytes(type, b_shape, std::move(b_bytes));
  op.test().builder().SetQuantization(b, {b_scale}, {b_zp});
  const int output = op.test().AddOutput(type);
  op.test().builder().SetQuantization(output, {out_scale}, {out_zp});
  op.test().AddOp(kTfLiteBuiltinAdd, {a, b}, {output}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(op.test().fbb(), activation).Union());
  op.Check(optimized::Register_ADD(), true);
}

// The same on random input bytes.
void CheckQuantAdd(TfLiteType type, const std::vector<int>& a_shape,
                   const std::vector<int>& b_shape, float a_scale, int a_zp, float b_scale,
                   int b_zp, float out_scale, int out_zp, Act activation = Act::NONE,
                   uint32_t seed = 1) {
  CheckQuantAddBytes(type, a_shape, RandomQuantBytes(type, Count(a_shape), seed), b_shape,
                     RandomQuantBytes(type, Count(b_shape), seed + 1), a_scale, a_zp, b_scale,
                     b_zp, out_scale, out_zp, activation);
}

TEST(OptimizedBinaryTest, QuantizedAdd) {
  CheckQuantAdd(kTfLiteUInt8, {1}, {1}, 0.1f, 128, 0.1f, 128, 0.2f, 128);
  CheckQuantAdd(kTfLiteUInt8, {1, 7, 9, 24}, {1, 7, 9, 24}, 0.03f, 120, 0.05f, 131, 0.07f, 125);
  CheckQuantAdd(kTfLiteInt8, {2, 5, 5, 17}, {2, 5, 5, 17}, 0.02f, -3, 0.11f, 7, 0.09f, -1,
                Act::RELU6);
  CheckQuantAdd(kTfLiteUInt8, {3, 33}, {3, 33}, 1e-4f, 0, 3.f, 255, 1e-3f, 255, Act::RELU);
  CheckQuantAdd(kTfLiteInt8, {3, 33}, {3, 33}, 5.f, -128, 1e-5f, 127, 100.f, -128);
  // Large enough to cross thread chunks; a broadcast takes the reference kernel.
  CheckQuantAdd(kTfLiteInt8, {1, 56, 56, 24}, {1, 56, 56, 24}, 0.02f, 4, 0.03f, -9, 0.04f, 2);
  CheckQuantAdd(kTfLiteUInt8, {2, 3, 4}, {4}, 0.02f, 4, 0.03f, 9, 0.04f, 2);
}

// Every pair of input bytes (a = i / 256, b = i % 256 over 65536 elements), so that the computed
// path (AVX-512) and the pair table agree with the reference on all of them: scales from a tenth
// to ten times each other, an output scale below the inputs' (a left shift in the output stage),
// zero points at both ends, and each activation.
void CheckQuantAddAllPairs(TfLiteType type, float a_scale, int a_zp, float b_scale, int b_zp,
                           float out_scale, int out_zp, Act activation) {
  std::vector<uint8_t> a_bytes(65536), b_bytes(65536);
  for (int i = 0; i < 65536; ++i) {
    a_bytes[i] = static_cast<uint8_t>(i / 256);
    b_bytes[i] = static_cast<uint8_t>(i % 256);
  }
  CheckQuantAddBytes(type, {256, 256}, std::move(a_bytes), {256, 256}, std::move(b_bytes), a_scale,
                     a_zp, b_scale, b_zp, out_scale, out_zp, activation);
}

TEST(OptimizedBinaryTest, QuantizedAddEveryPair) {
  CheckQuantAddAllPairs(kTfLiteUInt8, 0.0235f, 128, 0.0171f, 121, 0.0297f, 130, Act::NONE);
  CheckQuantAddAllPairs(kTfLiteInt8, 0.12f, -128, 0.012f, 127, 0.08f, -5, Act::RELU6);
  CheckQuantAddAllPairs(kTfLiteUInt8, 0.5f, 0, 0.05f, 255, 0.01f, 255, Act::RELU);
  CheckQuantAddAllPairs(kTfLiteInt8, 0.031f, 9, 0.029f, -17, 0.9f, 0, Act::RELU_N1_TO_1);
  CheckQuantAddAllPairs(kTfLiteInt8, 1e-3f, 0, 2e-3f, 3, 1e-9f, 1, Act::NONE);
  CheckQuantAddAllPairs(kTfLiteUInt8, 0.1f, 3, 0.1f, 3, 0.1f, 3, Act::NONE);
}

// ---- PAD and PADV2

void CheckPad(TfLiteType type, const std::vector<int>& shape, const std::vector<int32_t>& pads,
              bool v2 = false, uint32_t seed = 1) {
  OpCase op;
  const size_t elem = type == kTfLiteFloat32 ? 4 : 1;
  std::vector<uint8_t> bytes = RandomInts<uint8_t>(Count(shape) * elem, seed, 0, 255);
  if (type == kTfLiteFloat32) bytes = Bytes(RandomFloats(Count(shape), seed));
  const int input = op.AddInputBytes(type, shape, bytes);
  if (type != kTfLiteFloat32) op.test().builder().SetQuantization(input, {0.1f}, {7});
  const int paddings = op.test().AddConst<int32_t>(
      kTfLiteInt32, {static_cast<int>(shape.size()), 2}, pads);
  std::vector<int> inputs = {input, paddings};
  if (v2) {
    inputs.push_back(type == kTfLiteFloat32
                         ? op.test().AddConst<float>(type, {1}, {2.5f})
                         : op.test().AddConst<uint8_t>(type, {1}, {200}));
    if (type != kTfLiteFloat32) op.test().builder().SetQuantization(inputs.back(), {0.1f}, {7});
  }
  const int output = op.test().AddOutput(type);
  if (type != kTfLiteFloat32) op.test().builder().SetQuantization(output, {0.1f}, {7});
  op.test().AddOp(v2 ? kTfLiteBuiltinPadv2 : kTfLiteBuiltinPad, inputs, {output});
  op.Check(v2 ? optimized::Register_PADV2() : optimized::Register_PAD(), true);
}

TEST(OptimizedPadTest, Shapes) {
  CheckPad(kTfLiteInt8, {1, 5, 6, 3}, {0, 0, 1, 1, 1, 1, 0, 0});
  CheckPad(kTfLiteUInt8, {1, 112, 112, 16}, {0, 0, 0, 1, 0, 1, 0, 0});
  CheckPad(kTfLiteUInt8, {2, 3, 4}, {1, 0, 0, 2, 3, 1}, true);
  CheckPad(kTfLiteFloat32, {2, 3, 4, 5}, {1, 1, 0, 2, 2, 0, 1, 3});
  CheckPad(kTfLiteFloat32, {7}, {2, 5}, true);
  CheckPad(kTfLiteInt8, {1, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0});
  // Trailing dimensions without padding merge into one run per row.
  CheckPad(kTfLiteInt8, {1, 224, 224, 3}, {0, 0, 0, 1, 0, 1, 0, 0});
  CheckPad(kTfLiteUInt8, {2, 3, 4, 5}, {0, 1, 2, 0, 0, 0, 0, 0});
  CheckPad(kTfLiteFloat32, {2, 3, 4, 5}, {1, 0, 0, 0, 0, 0, 0, 0}, true);
}

// ---- TRANSPOSE

void CheckTranspose(TfLiteType type, const std::vector<int>& shape, const std::vector<int>& perm,
                    TfLiteType perm_type = kTfLiteInt32, uint32_t seed = 3) {
  OpCase op;
  const int input = op.AddInputBytes(type, shape, RandomInts<uint8_t>(Count(shape) * optimized::ElementBytes(type), seed, 0, 255));
  if (type == kTfLiteInt8 || type == kTfLiteUInt8) op.test().builder().SetQuantization(input, {0.1f}, {7});
  const int rank = static_cast<int>(shape.size());
  const int perm_tensor =
      perm_type == kTfLiteInt32
          ? op.test().AddConst<int32_t>(kTfLiteInt32, {rank}, std::vector<int32_t>(perm.begin(), perm.end()))
          : op.test().AddConst<int64_t>(kTfLiteInt64, {rank}, std::vector<int64_t>(perm.begin(), perm.end()));
  const int output = op.test().AddOutput(type);
  if (type == kTfLiteInt8 || type == kTfLiteUInt8) op.test().builder().SetQuantization(output, {0.1f}, {7});
  op.test().AddOp(kTfLiteBuiltinTranspose, {input, perm_tensor}, {output});
  op.Check(optimized::Register_TRANSPOSE(), true);
}

TEST(OptimizedTransposeTest, Permutations) {
  // NCHW to NHWC, the int8 MobileNet v2's first op, large enough to cross thread chunks.
  CheckTranspose(kTfLiteInt8, {1, 3, 224, 224}, {0, 2, 3, 1});
  CheckTranspose(kTfLiteFloat32, {2, 5, 7, 3}, {0, 3, 1, 2});
  CheckTranspose(kTfLiteUInt8, {3, 4}, {1, 0});
  CheckTranspose(kTfLiteInt16, {2, 3, 4}, {2, 0, 1}, kTfLiteInt64);
  CheckTranspose(kTfLiteInt64, {4, 1, 3}, {1, 2, 0});
  // The identity (rows copied whole), a single element, size-1 dimensions, rank 1 and rank 6.
  CheckTranspose(kTfLiteFloat32, {2, 3, 5}, {0, 1, 2});
  CheckTranspose(kTfLiteUInt8, {1, 1, 1, 1}, {3, 1, 0, 2});
  CheckTranspose(kTfLiteInt8, {1, 9, 1, 7}, {3, 2, 1, 0});
  CheckTranspose(kTfLiteFloat32, {17}, {0});
  CheckTranspose(kTfLiteInt8, {2, 3, 1, 4, 2, 3}, {5, 3, 0, 4, 1, 2});
  // The last dimension stays last while the others move (memcpy rows).
  CheckTranspose(kTfLiteFloat32, {3, 4, 5, 6}, {2, 0, 1, 3});
  // Channels to the end (runs of rows that read consecutive input elements): runs that end with
  // their dimension and carry into the next, several images, and chunks that start mid-run.
  CheckTranspose(kTfLiteFloat32, {2, 3, 5, 7}, {0, 2, 3, 1});
  CheckTranspose(kTfLiteUInt8, {3, 1, 13, 17}, {0, 2, 3, 1});
  CheckTranspose(kTfLiteFloat32, {2, 4, 37, 301}, {0, 2, 3, 1});
  CheckTranspose(kTfLiteInt16, {5, 2, 9}, {2, 0, 1});
}

// ---- CONCATENATION

struct ConcatInput {
  std::vector<int> shape;
  float scale = 0.1f;  // 8-bit types only
  int zero_point = 7;
};

void CheckConcat(TfLiteType type, const std::vector<ConcatInput>& inputs, int axis,
                 Act activation = Act::NONE, uint32_t seed = 5) {
  OpCase op;
  const bool quantized = type == kTfLiteInt8 || type == kTfLiteUInt8;
  std::vector<int> tensors;
  for (const ConcatInput& in : inputs) {
    const size_t bytes = Count(in.shape) * optimized::ElementBytes(type);
    const int t = type == kTfLiteFloat32
                      ? op.AddFloatInput(in.shape, seed++, -4.f, 4.f)
                      : op.AddInputBytes(type, in.shape, RandomInts<uint8_t>(bytes, seed++, 0, 255));
    if (quantized) op.test().builder().SetQuantization(t, {in.scale}, {in.zero_point});
    tensors.push_back(t);
  }
  const int output = op.test().AddOutput(type);
  if (quantized) op.test().builder().SetQuantization(output, {0.1f}, {7});
  op.test().AddOp(kTfLiteBuiltinConcatenation, tensors, {output},
                  fb::BuiltinOptions::ConcatenationOptions,
                  fb::CreateConcatenationOptions(op.test().fbb(), axis, activation).Union());
  op.Check(optimized::Register_CONCATENATION(), true);
}

TEST(OptimizedConcatenationTest, Axes) {
  // DeepLab v3's channel concatenation, cut down: outer rows split over several chunks.
  CheckConcat(kTfLiteFloat32, {{{1, 33, 33, 64}}, {{1, 33, 33, 64}}}, 3);
  // Three inputs on a middle axis with odd sizes; the first axis (one outer row); the last axis
  // given as -1; rank 1.
  CheckConcat(kTfLiteInt8, {{{2, 3, 4, 5}}, {{2, 1, 4, 5}}, {{2, 6, 4, 5}}}, 1);
  CheckConcat(kTfLiteFloat32, {{{2, 3}}, {{1, 3}}}, 0);
  CheckConcat(kTfLiteUInt8, {{{3, 1, 7}}, {{3, 1, 2}}}, -1);
  CheckConcat(kTfLiteFloat32, {{{5}}, {{1}}, {{3}}}, 0);
  // Sizes 1 everywhere, and 2- and 8-byte elements.
  CheckConcat(kTfLiteInt8, {{{1, 1, 1, 1}}, {{1, 1, 1, 1}}}, 3);
  CheckConcat(kTfLiteInt16, {{{4, 2, 3}}, {{4, 5, 3}}}, 1);
  CheckConcat(kTfLiteInt64, {{{2, 2}}, {{2, 1}}}, 1);
}

TEST(OptimizedConcatenationTest, ReferenceCases) {
  // uint8 inputs whose quantization differs from the output's are rescaled (reference kernel). A
  // fused activation is refused, as TFLite 2.14.1 refuses it.
  CheckConcat(kTfLiteUInt8, {{{2, 4, 3}, 0.05f, 3}, {{2, 4, 5}}}, 2);
}

// ---- AVERAGE_POOL_2D and MAX_POOL_2D

struct Pool {
  std::vector<int> input;
  int filter_h, filter_w;
  int stride_h, stride_w;
  fb::Padding padding = fb::Padding::SAME;
  Act activation = Act::NONE;
};

// `type`: float32 (values in [-4, 4]), or uint8 / int8 (every stored value; the input and output
// quantization given, which moves the activation's clamp).
struct PoolQuantization {
  float input_scale = 0.1f;
  int input_zero_point = 7;
  float output_scale = 0.1f;
  int output_zero_point = 7;
};

void CheckPool(int code, const Pool& p, TfLiteType type = kTfLiteFloat32,
               const PoolQuantization& q = {}, uint32_t seed = 1) {
  OpCase op;
  int input;
  if (type == kTfLiteFloat32) {
    input = op.AddFloatInput(p.input, seed, -4.f, 4.f);
  } else {
    input = op.AddInputBytes(type, p.input, RandomInts<uint8_t>(Count(p.input), seed, 0, 255));
    op.test().builder().SetQuantization(input, {q.input_scale}, {q.input_zero_point});
  }
  const int output = op.test().AddOutput(type);
  if (type != kTfLiteFloat32) {
    op.test().builder().SetQuantization(output, {q.output_scale}, {q.output_zero_point});
  }
  op.test().AddOp(code, {input}, {output}, fb::BuiltinOptions::Pool2DOptions,
                  fb::CreatePool2DOptions(op.test().fbb(), p.padding, p.stride_w, p.stride_h,
                                          p.filter_w, p.filter_h, p.activation)
                      .Union());
  op.Check(code == kTfLiteBuiltinMaxPool2d ? optimized::Register_MAX_POOL_2D()
                                          : optimized::Register_AVERAGE_POOL_2D(),
           /*exact=*/true);
}

TEST(OptimizedPoolTest, Shapes) {
  for (TfLiteType type : {kTfLiteFloat32, kTfLiteUInt8, kTfLiteInt8}) {
    for (int code : {kTfLiteBuiltinAveragePool2d, kTfLiteBuiltinMaxPool2d}) {
      SCOPED_TRACE(std::string(TfLiteTypeGetName(type)) + " " + std::to_string(code));
      CheckPool(code, {{1, 1, 1, 1}, 1, 1, 1, 1}, type);
      CheckPool(code, {{1, 9, 9, 8}, 3, 3, 2, 2}, type);
      CheckPool(code, {{2, 7, 6, 5}, 2, 2, 2, 2, fb::Padding::VALID}, type);
      CheckPool(code, {{1, 8, 10, 37}, 3, 2, 1, 3, fb::Padding::SAME, Act::RELU6}, type);
      CheckPool(code, {{1, 7, 7, 256}, 7, 7, 1, 1, fb::Padding::VALID}, type);
      CheckPool(code, {{1, 6, 6, 3}, 4, 4, 1, 1, fb::Padding::SAME, Act::RELU}, type);
    }
  }
}

TEST(OptimizedPoolTest, QuantizedClampsAndGlobalAverage) {
  // MobileNet v2's global average (uint8, 7x7x1280), and activations whose clamp cuts into the
  // stored range: RELU6 with a fine output scale, RELU_N1_TO_1 around an extreme zero point.
  CheckPool(kTfLiteBuiltinAveragePool2d, {{1, 7, 7, 1280}, 7, 7, 1, 1, fb::Padding::VALID},
            kTfLiteUInt8, {0.023f, 0, 0.023f, 0});
  for (TfLiteType type : {kTfLiteUInt8, kTfLiteInt8}) {
    const int low = type == kTfLiteUInt8 ? 0 : -128;
    for (int code : {kTfLiteBuiltinAveragePool2d, kTfLiteBuiltinMaxPool2d}) {
      CheckPool(code, {{1, 5, 6, 19}, 3, 3, 1, 1, fb::Padding::SAME, Act::RELU6}, type,
                {0.1f, low + 40, 0.02f, low + 10});
      CheckPool(code, {{2, 4, 4, 17}, 2, 3, 2, 1, fb::Padding::SAME, Act::RELU_N1_TO_1}, type,
                {0.5f, low + 255, 0.01f, low + 255});
    }
  }
}

TEST(OptimizedPoolTest, LargeCrossesThreadChunks) {
  CheckPool(kTfLiteBuiltinMaxPool2d, {{1, 64, 64, 19}, 3, 3, 1, 1});
  CheckPool(kTfLiteBuiltinAveragePool2d, {{2, 33, 33, 40}, 33, 33, 1, 1, fb::Padding::VALID});
  // Chunks that start mid-row and span images (each chunk steps row and image from its first pixel).
  for (TfLiteType type : {kTfLiteFloat32, kTfLiteUInt8, kTfLiteInt8}) {
    for (int code : {kTfLiteBuiltinAveragePool2d, kTfLiteBuiltinMaxPool2d}) {
      CheckPool(code, {{3, 40, 41, 16}, 2, 2, 2, 2}, type);
    }
  }
  CheckPool(kTfLiteBuiltinAveragePool2d, {{2, 33, 33, 40}, 33, 33, 1, 1, fb::Padding::VALID},
            kTfLiteInt8);
}
TEST(OptimizedPoolTest, Int8FallsBackToTheReference) {
  for (int code : {kTfLiteBuiltinAveragePool2d, kTfLiteBuiltinMaxPool2d}) {
    OpCase op;
    const int input = op.AddInputBytes(kTfLiteInt8, {1, 5, 5, 3}, Bytes(RandomInts<int8_t>(75, 1, -128, 127)));
    op.test().builder().SetQuantization(input, {0.1f}, {0});
    const int output = op.test().AddOutput(kTfLiteInt8);
    op.test().builder().SetQuantization(output, {0.1f}, {0});
    op.test().AddOp(code, {input}, {output}, fb::BuiltinOptions::Pool2DOptions,
                    fb::CreatePool2DOptions(op.test().fbb(), fb::Padding::SAME, 2, 2, 3, 3).Union());
    op.Check(code == kTfLiteBuiltinMaxPool2d ? optimized::Register_MAX_POOL_2D()
                                            : optimized::Register_AVERAGE_POOL_2D(),
             true);
  }
}

// ---- SOFTMAX

void CheckSoftmax(const std::vector<int>& shape, float beta, float range = 4.f, uint32_t seed = 1) {
  OpCase op;
  const int input = op.AddFloatInput(shape, seed, -range, range);
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinSoftmax, {input}, {output}, fb::BuiltinOptions::SoftmaxOptions,
                  fb::CreateSoftmaxOptions(op.test().fbb(), beta).Union());
  op.Check(optimized::Register_SOFTMAX());
}

TEST(OptimizedSoftmaxTest, Shapes) {
  CheckSoftmax({1, 1001}, 1.f);
  CheckSoftmax({1, 1}, 1.f);
  CheckSoftmax({7}, 1.f);
  CheckSoftmax({3, 7}, 0.5f);
  CheckSoftmax({2, 3, 4, 37}, 2.f);
}
TEST(OptimizedSoftmaxTest, WideRangeOfLogits) { CheckSoftmax({4, 300}, 1.f, 60.f); }
TEST(OptimizedSoftmaxTest, LargeCrossesThreadChunks) { CheckSoftmax({257, 257, 21}, 1.f, 10.f); }
TEST(OptimizedSoftmaxTest, Uint8FallsBackToTheReference) {
  OpCase op;
  const int input = op.AddInputBytes(kTfLiteUInt8, {2, 10}, RandomInts<uint8_t>(20, 1, 0, 255));
  op.test().builder().SetQuantization(input, {0.1f}, {128});
  const int output = op.test().AddOutput(kTfLiteUInt8);
  op.test().builder().SetQuantization(output, {1.f / 256}, {0});
  op.test().AddOp(kTfLiteBuiltinSoftmax, {input}, {output}, fb::BuiltinOptions::SoftmaxOptions,
                  fb::CreateSoftmaxOptions(op.test().fbb(), 1.f).Union());
  op.Check(optimized::Register_SOFTMAX(), true);
}

// ---- RESIZE_BILINEAR

void CheckResize(const std::vector<int>& input_shape, int height, int width, bool align_corners,
                 bool half_pixel_centers, bool constant_size = true) {
  OpCase op;
  const int input = op.AddFloatInput(input_shape, 1, -5.f, 5.f);
  const int size = constant_size
                       ? op.test().AddConst<int32_t>(kTfLiteInt32, {2}, {height, width})
                       : op.AddInputBytes(kTfLiteInt32, {2}, Bytes(std::vector<int32_t>{height, width}));
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinResizeBilinear, {input, size}, {output},
                  fb::BuiltinOptions::ResizeBilinearOptions,
                  fb::CreateResizeBilinearOptions(op.test().fbb(), align_corners, half_pixel_centers)
                      .Union());
  // Exact where the reference rounds each multiply and add on its own (x86-64 builds do not fuse
  // them); elsewhere the compiler may contract the reference's expression.
#if defined(__x86_64__)
  op.Check(optimized::Register_RESIZE_BILINEAR(), /*exact=*/true);
#else
  op.Check(optimized::Register_RESIZE_BILINEAR());
#endif
}

TEST(OptimizedResizeBilinearTest, UpAndDown) {
  for (bool align : {false, true}) {
    CheckResize({1, 4, 5, 3}, 9, 11, align, false);
    CheckResize({2, 9, 7, 17}, 4, 3, align, false);
  }
  CheckResize({1, 4, 5, 3}, 9, 11, false, true);
  CheckResize({1, 6, 6, 40}, 13, 5, false, true);
}
TEST(OptimizedResizeBilinearTest, SizeOneAndFromOnePixel) {
  CheckResize({1, 1, 1, 1}, 1, 1, false, false);
  CheckResize({1, 1, 1, 256}, 33, 33, true, false);
  CheckResize({1, 5, 5, 7}, 1, 1, false, true);
}
TEST(OptimizedResizeBilinearTest, LargeCrossesThreadChunks) {
  CheckResize({1, 33, 33, 21}, 257, 257, true, false);
}
// uint8: the four corners weighed in float and truncated after adding 0.5; values at the ends
// (0 and 255) and channel counts around the four-channel step.
void CheckResizeUInt8(const std::vector<int>& input_shape, int height, int width, bool align_corners,
                      bool half_pixel_centers) {
  OpCase op;
  int64_t elements = 1;
  for (int d : input_shape) elements *= d;
  std::vector<uint8_t> values = RandomInts<uint8_t>(static_cast<size_t>(elements), 7, 0, 255);
  for (size_t i = 0; i < values.size(); i += 5) values[i] = (i / 5) % 2 == 0 ? 255 : 0;
  const int input = op.AddInputBytes(kTfLiteUInt8, input_shape, values);
  op.test().builder().SetQuantization(input, {0.05f}, {3});
  const int size = op.test().AddConst<int32_t>(kTfLiteInt32, {2}, {height, width});
  const int output = op.test().AddOutput(kTfLiteUInt8);
  op.test().builder().SetQuantization(output, {0.05f}, {3});
  op.test().AddOp(kTfLiteBuiltinResizeBilinear, {input, size}, {output},
                  fb::BuiltinOptions::ResizeBilinearOptions,
                  fb::CreateResizeBilinearOptions(op.test().fbb(), align_corners, half_pixel_centers)
                      .Union());
  op.RequireOptimizedPath();
  op.Check(optimized::Register_RESIZE_BILINEAR(), /*exact=*/true);
}

TEST(OptimizedResizeBilinearTest, UInt8) {
  for (bool align : {false, true}) {
    CheckResizeUInt8({1, 4, 5, 3}, 9, 11, align, false);
    CheckResizeUInt8({2, 9, 7, 17}, 4, 3, align, false);
  }
  for (int channels : {1, 4, 5, 8, 21}) CheckResizeUInt8({1, 6, 6, channels}, 13, 5, false, true);
  CheckResizeUInt8({1, 1, 1, 1}, 1, 1, false, false);
  CheckResizeUInt8({1, 2, 2, 3}, 16, 16, false, true);  // 8x half-pixel upsampling
  CheckResizeUInt8({1, 33, 33, 21}, 257, 257, true, false);
}
TEST(OptimizedResizeBilinearTest, SizeComputedAtRunTimeFallsBackToTheReference) {
  CheckResize({1, 4, 4, 2}, 7, 6, false, false, /*constant_size=*/false);
}

// ---- LSTM (full kernel) and UNIDIRECTIONAL_SEQUENCE_LSTM

// An LSTM's layout; the sequence op unless `sequence` is false (LSTM: one step, max_time 1).
struct Lstm {
  bool sequence = true;
  bool time_major = false;
  int max_time = 3, n_batch = 1, n_input = 5, n_cell = 4, n_output = 4;
  bool cifg = false, peephole = false, projection = false, projection_bias = true;
  bool layer_norm = false;
  bool twenty_inputs = false;  // the form without layer-norm inputs
  float cell_clip = 0.f, proj_clip = 0.f;
  Act activation = Act::TANH;
};

std::vector<int> LstmInputShape(const Lstm& l) {
  if (!l.sequence) return {l.n_batch, l.n_input};
  return l.time_major ? std::vector<int>{l.max_time, l.n_batch, l.n_input}
                      : std::vector<int>{l.n_batch, l.max_time, l.n_input};
}

void AddLstmNode(OpCase& op, const Lstm& l, const std::vector<int>& inputs, int output) {
  if (l.sequence) {
    op.test().AddOp(kTfLiteBuiltinUnidirectionalSequenceLstm, inputs, {output},
                    fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions,
                    fb::CreateUnidirectionalSequenceLSTMOptions(op.test().fbb(), l.activation, l.cell_clip,
                                                                l.proj_clip, l.time_major)
                        .Union());
  } else {
    op.test().AddOp(kTfLiteBuiltinLstm, inputs, {output}, fb::BuiltinOptions::LSTMOptions,
                    fb::CreateLSTMOptions(op.test().fbb(), l.activation, l.cell_clip, l.proj_clip).Union());
  }
}

// A float LSTM with random weights against the reference over two runs (the second continues from
// the first's states). `fast`: the node must take the optimized path.
void CheckFloatLstm(const Lstm& l, bool fast = true, uint32_t seed = 1) {
  OpCase op;
  const int input = op.AddFloatInput(LstmInputShape(l), seed);
  auto weights = [&](int rows, int cols, bool present) {
    return present ? op.AddFloatConst({rows, cols}, ++seed, -0.6f, 0.6f) : -1;
  };
  auto vector = [&](int size, bool present) {
    return present ? op.AddFloatConst({size}, ++seed, -0.5f, 0.5f) : -1;
  };
  std::vector<int> inputs = {input};
  for (int g = 0; g < 4; ++g) inputs.push_back(weights(l.n_cell, l.n_input, g != 0 || !l.cifg));
  for (int g = 0; g < 4; ++g) inputs.push_back(weights(l.n_cell, l.n_output, g != 0 || !l.cifg));
  for (int g = 0; g < 3; ++g) inputs.push_back(vector(l.n_cell, l.peephole && (g != 0 || !l.cifg)));
  for (int g = 0; g < 4; ++g) inputs.push_back(vector(l.n_cell, g != 0 || !l.cifg));
  inputs.push_back(weights(l.n_output, l.n_cell, l.projection));
  inputs.push_back(vector(l.n_output, l.projection && l.projection_bias));
  const int output_state = op.test().AddIntermediate(kTfLiteFloat32, {l.n_batch, l.n_output});
  const int cell_state = op.test().AddIntermediate(kTfLiteFloat32, {l.n_batch, l.n_cell});
  op.test().builder().SetVariable(output_state, true);
  op.test().builder().SetVariable(cell_state, true);
  inputs.push_back(output_state);
  inputs.push_back(cell_state);
  if (!l.twenty_inputs) {
    for (int g = 0; g < 4; ++g) inputs.push_back(vector(l.n_cell, l.layer_norm && (g != 0 || !l.cifg)));
  }
  const int output = op.AddFloatOutput();
  AddLstmNode(op, l, inputs, output);
  if (fast) op.RequireOptimizedPath();
  op.Check(l.sequence ? optimized::Register_UNIDIRECTIONAL_SEQUENCE_LSTM() : optimized::Register_LSTM(),
           /*exact=*/!fast);
}

TEST(OptimizedFloatLstmTest, LikeTrainedLstm) {
  Lstm l;
  l.max_time = 28;
  l.n_input = 28;
  l.n_cell = l.n_output = 20;
  CheckFloatLstm(l);
}

TEST(OptimizedFloatLstmTest, SizeOne) {
  Lstm l;
  l.max_time = 1;
  l.n_input = l.n_cell = l.n_output = 1;
  CheckFloatLstm(l);
  l.sequence = false;
  CheckFloatLstm(l);
}

TEST(OptimizedFloatLstmTest, LayoutsAndBatches) {
  for (bool time_major : {false, true}) {
    for (int batch : {1, 3, 10}) {
      Lstm l;
      l.time_major = time_major;
      l.n_batch = batch;
      l.max_time = 5;
      l.n_input = 7;
      l.n_cell = l.n_output = 9;
      CheckFloatLstm(l, true, batch);
    }
  }
}

TEST(OptimizedFloatLstmTest, CifgPeepholeProjectionClips) {
  for (int variant = 0; variant < 16; ++variant) {
    Lstm l;
    l.time_major = variant % 2 == 1;
    l.n_batch = 2;
    l.max_time = 4;
    l.n_input = 6;
    l.n_cell = 11;
    l.n_output = 11;
    l.cifg = variant & 2;
    l.peephole = variant & 4;
    l.projection = variant & 8;
    if (l.projection) l.n_output = 5;
    l.projection_bias = variant % 3 != 0;
    l.cell_clip = variant % 5 == 0 ? 0.f : 0.8f;
    l.proj_clip = l.projection && variant % 3 == 1 ? 0.3f : 0.f;
    l.twenty_inputs = variant % 7 == 3;
    CheckFloatLstm(l, true, 100 + variant);
  }
}

TEST(OptimizedFloatLstmTest, LstmOpOneStep) {
  for (bool projection : {false, true}) {
    Lstm l;
    l.sequence = false;
    l.n_batch = 3;
    l.n_input = 8;
    l.n_cell = 17;
    l.n_output = projection ? 6 : 17;
    l.projection = projection;
    l.peephole = true;
    CheckFloatLstm(l);
  }
}

TEST(OptimizedFloatLstmTest, WideCellsAndLongSequencesCrossVectorsAndRuns) {
  Lstm l;
  l.time_major = true;
  l.max_time = 40;
  l.n_batch = 2;
  l.n_input = 33;
  l.n_cell = 67;
  l.n_output = 67;
  CheckFloatLstm(l);
  // More steps than one run of precomputed input products holds.
  Lstm long_sequence;
  long_sequence.max_time = 300;
  long_sequence.n_input = 3;
  long_sequence.n_cell = long_sequence.n_output = 64;
  CheckFloatLstm(long_sequence);
}

TEST(OptimizedFloatLstmTest, LayerNorm) {
  for (int variant = 0; variant < 8; ++variant) {
    Lstm l;
    l.layer_norm = true;
    l.sequence = variant != 7;
    l.time_major = variant % 2 == 1;
    l.n_batch = 1 + variant % 3;
    l.n_input = 2 + variant;
    l.n_cell = variant == 0 ? 2 : 13;
    l.n_output = l.n_cell;
    l.cifg = variant & 2;
    l.peephole = variant & 4;
    l.projection = variant % 3 == 2;
    if (l.projection) l.n_output = 4;
    CheckFloatLstm(l, true, 200 + variant);
  }
}

TEST(OptimizedFloatLstmTest, OtherConfigurationsKeepTheReference) {
  Lstm relu;
  relu.activation = Act::RELU;
  CheckFloatLstm(relu, /*fast=*/false);
  Lstm empty;
  empty.max_time = 0;
  CheckFloatLstm(empty, /*fast=*/false);
}

// The quantization of an integer LSTM test model.
struct LstmQuant {
  float input_scale = 0.02f;
  int input_zero_point = 5;
  float input_weight_scale = 0.01f;
  float recurrent_weight_scale = 0.012f;
  float state_scale = 0.008f;  // output state and output
  int state_zero_point = 0;
  int cell_scale_log2 = -11;
  float hidden_scale = 0.007f;
  int hidden_zero_point = 0;
  float peephole_scale = 0.0002f;
  float projection_scale = 0.015f;
  int bias_range = 3000;  // biases in [-range, range]
  float gate_scale = 0.0004f;  // the layer-norm intermediates'
};

// An integer (8x8_16) LSTM with random weights, states and input, compared byte for byte over two
// runs. `fast`: the node must take the optimized path. Returns how many distinct values the
// reference output holds (a saturated model would check little).
int CheckIntegerLstm(const Lstm& l, const LstmQuant& q, bool fast = true, uint32_t seed = 1) {
  OpCase op;
  OpTest& t = op.test();
  const std::vector<int> input_shape = LstmInputShape(l);
  const int input = op.AddInputBytes(kTfLiteInt8, input_shape,
                                     Bytes(RandomInts<int8_t>(Count(input_shape), seed, -128, 127)));
  t.builder().SetQuantization(input, {q.input_scale}, {q.input_zero_point});
  auto quantized = [&](TfLiteType type, const std::vector<int>& shape, int lo, int hi, float scale) {
    int tensor = -1;
    const size_t count = Count(shape);
    if (type == kTfLiteInt8) tensor = t.AddConst<int8_t>(type, shape, RandomInts<int8_t>(count, ++seed, lo, hi));
    if (type == kTfLiteInt16) tensor = t.AddConst<int16_t>(type, shape, RandomInts<int16_t>(count, ++seed, lo, hi));
    if (type == kTfLiteInt32) tensor = t.AddConst<int32_t>(type, shape, RandomInts<int32_t>(count, ++seed, lo, hi));
    t.builder().SetQuantization(tensor, {scale}, {0});
    return tensor;
  };
  std::vector<int> inputs(24, -1);
  inputs[0] = input;
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && l.cifg) continue;
    inputs[1 + g] = quantized(kTfLiteInt8, {l.n_cell, l.n_input}, -127, 127, q.input_weight_scale * (1 + 0.2f * g));
    inputs[5 + g] = quantized(kTfLiteInt8, {l.n_cell, l.n_output}, -127, 127, q.recurrent_weight_scale * (1 - 0.1f * g));
    if (l.peephole && g != 2) {
      inputs[g == 3 ? 11 : 9 + g] = quantized(kTfLiteInt16, {l.n_cell}, -20000, 20000, q.peephole_scale);
    }
    inputs[12 + g] = quantized(kTfLiteInt32, {l.n_cell}, -q.bias_range, q.bias_range,
                               q.input_scale * q.input_weight_scale);
    if (l.layer_norm) inputs[20 + g] = quantized(kTfLiteInt16, {l.n_cell}, 10000, 32767, 3.0e-5f);
  }
  if (l.projection) {
    inputs[16] = quantized(kTfLiteInt8, {l.n_output, l.n_cell}, -127, 127, q.projection_scale);
    if (l.projection_bias) inputs[17] = quantized(kTfLiteInt32, {l.n_output}, -500, 500, 0.0001f);
  }
  const int output_state = t.AddIntermediate(kTfLiteInt8, {l.n_batch, l.n_output});
  const int cell_state = t.AddIntermediate(kTfLiteInt16, {l.n_batch, l.n_cell});
  t.builder().SetQuantization(output_state, {q.state_scale}, {q.state_zero_point});
  t.builder().SetQuantization(cell_state, {std::ldexp(1.f, q.cell_scale_log2)}, {0});
  t.builder().SetVariable(output_state, true);
  t.builder().SetVariable(cell_state, true);
  inputs[18] = output_state;
  inputs[19] = cell_state;
  if (l.twenty_inputs) inputs.resize(20);
  const int output = t.AddOutput(kTfLiteInt8);
  t.builder().SetQuantization(output, {q.state_scale}, {q.state_zero_point});
  std::vector<int> intermediates;
  for (int g = 0; g < 4; ++g) {
    intermediates.push_back(t.AddIntermediate(l.layer_norm ? kTfLiteInt16 : kTfLiteFloat32, {0}));
    if (l.layer_norm) t.builder().SetQuantization(intermediates.back(), {q.gate_scale * (1 + 0.25f * g)}, {0});
  }
  intermediates.push_back(t.AddIntermediate(kTfLiteInt8, {0}));
  t.builder().SetQuantization(intermediates.back(), {q.hidden_scale}, {q.hidden_zero_point});
  AddLstmNode(op, l, inputs, output);
  t.builder().SetIntermediates(0, intermediates);
  if (fast) op.RequireOptimizedPath();
  op.Check(l.sequence ? optimized::Register_UNIDIRECTIONAL_SEQUENCE_LSTM() : optimized::Register_LSTM(),
           /*exact=*/true);
  const std::vector<int8_t> values = t.GetOutput<int8_t>(0);
  return static_cast<int>(std::set<int8_t>(values.begin(), values.end()).size());
}

TEST(OptimizedIntegerLstmTest, LikeTheModels) {
  // trained_lstm_int8: 28 steps of 28 inputs, 20 cells; dtln_noise_suppression: one step of 257
  // inputs, 128 cells.
  Lstm small;
  small.max_time = 28;
  small.n_input = 28;
  small.n_cell = small.n_output = 20;
  LstmQuant small_q;
  small_q.input_weight_scale = 0.002f;
  small_q.recurrent_weight_scale = 0.004f;
  EXPECT_GT(CheckIntegerLstm(small, small_q), 40);
  Lstm wide;
  wide.max_time = 1;
  wide.n_input = 257;
  wide.n_cell = wide.n_output = 128;
  LstmQuant q;
  q.hidden_zero_point = -3;
  q.input_weight_scale = 0.0006f;
  q.recurrent_weight_scale = 0.002f;
  EXPECT_GT(CheckIntegerLstm(wide, q), 40);
}

TEST(OptimizedIntegerLstmTest, SizeOneLayoutsAndBatches) {
  Lstm one;
  one.max_time = 1;
  one.n_input = one.n_cell = one.n_output = 1;
  CheckIntegerLstm(one, {});
  one.sequence = false;
  CheckIntegerLstm(one, {});
  for (bool time_major : {false, true}) {
    for (int batch : {1, 3}) {
      Lstm l;
      l.time_major = time_major;
      l.n_batch = batch;
      l.max_time = 6;
      l.n_input = 9;
      l.n_cell = l.n_output = 11;
      CheckIntegerLstm(l, {}, true, 10 + batch);
    }
  }
}

TEST(OptimizedIntegerLstmTest, CifgPeepholeProjectionLayerNormClips) {
  for (int variant = 0; variant < 32; ++variant) {
    Lstm l;
    l.sequence = variant % 9 != 4;
    l.time_major = variant % 2 == 1;
    l.n_batch = 1 + variant % 3;
    l.max_time = 3;
    l.n_input = 5 + variant % 4;
    l.n_cell = 12 + variant % 5;
    l.n_output = l.n_cell;
    l.cifg = variant & 2;
    l.peephole = variant & 4;
    l.projection = variant & 8;
    l.layer_norm = variant & 16;
    if (l.projection) l.n_output = 4 + variant % 3;
    l.projection_bias = variant % 3 != 0;
    l.cell_clip = variant % 5 == 0 ? 0.f : 0.7f;
    l.proj_clip = l.projection && variant % 3 == 1 ? 0.25f : 0.f;
    l.twenty_inputs = !l.layer_norm && variant % 7 == 3;
    LstmQuant q;
    q.hidden_zero_point = variant % 4 == 1 ? 7 : 0;
    q.state_zero_point = variant % 6 == 5 ? -20 : 0;
    q.input_weight_scale = 0.004f;
    q.recurrent_weight_scale = 0.004f;
    q.projection_scale = 0.002f;
    EXPECT_GT(CheckIntegerLstm(l, q, true, 300 + variant), 4) << "variant " << variant;
  }
}

TEST(OptimizedIntegerLstmTest, ExtremeQuantization) {
  Lstm l;
  l.max_time = 4;
  l.n_batch = 2;
  l.n_input = 13;
  l.n_cell = 21;
  l.n_output = 21;
  l.peephole = true;
  int seed = 400;
  for (int cell_log2 : {-15, -9}) {
    for (float weight_scale : {1e-5f, 0.5f}) {
      LstmQuant q;
      q.cell_scale_log2 = cell_log2;
      q.input_weight_scale = weight_scale;
      q.recurrent_weight_scale = weight_scale * 2;
      q.input_zero_point = weight_scale > 0.1f ? -128 : 127;
      q.state_zero_point = weight_scale > 0.1f ? 127 : -128;
      q.hidden_zero_point = -128;
      q.hidden_scale = weight_scale > 0.1f ? 1e-5f : 0.3f;
      q.bias_range = 2000000000;
      q.peephole_scale = weight_scale;
      CheckIntegerLstm(l, q, true, ++seed);
    }
  }
  // Wide cell and projection scales: the hidden and output stages saturate.
  l.projection = true;
  l.n_output = 7;
  LstmQuant q;
  q.projection_scale = 2.f;
  q.hidden_scale = 1e-4f;
  q.hidden_zero_point = 100;
  CheckIntegerLstm(l, q, true, ++seed);
}

// ---- LOGISTIC and TANH

// One LOGISTIC or TANH over `shape`, input values spread over [lo, hi] (float) or the whole type
// (quantized), against the reference (exactly for the quantized types).
void CheckActivation(int code, TfLiteType type, const std::vector<int>& shape, float in_scale = 0.f,
                     int in_zero_point = 0, float out_scale = 0.f, int out_zero_point = 0,
                     float lo = -8.f, float hi = 8.f, uint32_t seed = 1) {
  OpCase op;
  const size_t n = Count(shape);
  int input = -1;
  switch (type) {
    case kTfLiteFloat32: input = op.AddFloatInput(shape, seed, lo, hi); break;
    case kTfLiteUInt8: input = op.AddInputBytes(type, shape, Bytes(RandomInts<uint8_t>(n, seed, 0, 255))); break;
    case kTfLiteInt8: input = op.AddInputBytes(type, shape, Bytes(RandomInts<int8_t>(n, seed, -128, 127))); break;
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

// ---- A chain of optimized ops sharing the arena, as in a real model.

TEST(OptimizedGraphTest, ConvDepthwisePoolFullyConnectedSoftmax) {
  OpCase op;
  OpTest& t = op.test();
  const int input = op.AddFloatInput({1, 16, 16, 3}, 1);
  const int c1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinConv2d, {input, op.AddFloatConst({8, 3, 3, 3}, 2), op.AddFloatConst({8}, 3)},
          {c1}, fb::BuiltinOptions::Conv2DOptions,
          fb::CreateConv2DOptions(t.fbb(), fb::Padding::SAME, 2, 2, Act::RELU6).Union());
  const int d1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinDepthwiseConv2d, {c1, op.AddFloatConst({1, 3, 3, 8}, 4), op.AddFloatConst({8}, 5)},
          {d1}, fb::BuiltinOptions::DepthwiseConv2DOptions,
          fb::CreateDepthwiseConv2DOptions(t.fbb(), fb::Padding::SAME, 1, 1, 1, Act::RELU6).Union());
  const int s1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAdd, {c1, d1}, {s1}, fb::BuiltinOptions::AddOptions,
          fb::CreateAddOptions(t.fbb()).Union());
  const int p1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAveragePool2d, {s1}, {p1}, fb::BuiltinOptions::Pool2DOptions,
          fb::CreatePool2DOptions(t.fbb(), fb::Padding::VALID, 8, 8, 8, 8).Union());
  const int f1 = t.AddIntermediate(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinFullyConnected, {p1, op.AddFloatConst({10, 8}, 6), op.AddFloatConst({10}, 7)},
          {f1}, fb::BuiltinOptions::FullyConnectedOptions,
          fb::CreateFullyConnectedOptions(t.fbb()).Union());
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
  const std::vector<std::tuple<int, int, int>> zero_points = {{0, 0, 0}, {-128, 127, -128}, {127, -128, 127}, {5, -3, 9}};
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
  const int input = op.AddInputBytes(kTfLiteInt16, input_shape,
                                     QuantValues<int16_t>(n, seed, -32768, 32767, q.extremes ? n : 8));
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
  op.test().AddOp(kTfLiteBuiltinFullyConnected, inputs, {output}, fb::BuiltinOptions::FullyConnectedOptions,
                  fb::CreateFullyConnectedOptions(op.test().fbb(), f.activation,
                                                  fb::FullyConnectedOptionsWeightsFormat::DEFAULT, f.keep_num_dims)
                      .Union());
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
  op.test().AddOp(kTfLiteBuiltinConv2d, inputs, {output}, fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), c.padding, c.stride_w, c.stride_h, c.activation,
                                          c.dilation_w, c.dilation_h)
                      .Union());
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
      {{3, 1029}, {3, 1029}},             // past one expanded buffer
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
    CheckQ16Binary({kTfLiteBuiltinMul, type, {3, 33}, {3, 33}, c.a_scale, c.b_scale, c.out_scale, c.a_zp, c.b_zp,
                    c.out_zp, Act::RELU});
    CheckQ16Binary({kTfLiteBuiltinMul, type, {3, 33}, {1, 33}, 5.f, 7.f, 0.01f, c.a_zp, c.b_zp, c.out_zp,
                    Act::RELU6});
  }
}
// Every pair of 8-bit inputs (a = i / 256, b = i % 256).
TEST(OptimizedQ16BinaryTest, Mul8BitEveryPair) {
  std::vector<uint8_t> a_bytes(65536), b_bytes(65536);
  for (int i = 0; i < 65536; ++i) {
    a_bytes[i] = static_cast<uint8_t>(i / 256);
    b_bytes[i] = static_cast<uint8_t>(i % 256);
  }
  CheckQ16BinaryBytes({kTfLiteBuiltinMul, kTfLiteUInt8, {256, 256}, {256, 256}, 0.0235f, 0.0171f, 0.0297f, 128, 121, 130},
                      a_bytes, b_bytes);
  CheckQ16BinaryBytes({kTfLiteBuiltinMul, kTfLiteInt8, {256, 256}, {256, 256}, 0.12f, 0.012f, 0.08f, -128, 127, -5,
                       Act::RELU6},
                      a_bytes, b_bytes);
  CheckQ16BinaryBytes({kTfLiteBuiltinMul, kTfLiteUInt8, {256, 256}, {256, 256}, 0.5f, 0.05f, 1e-3f, 0, 255, 255, Act::RELU},
                      a_bytes, b_bytes);
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
  const float specials[] = {0.f, -0.f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f, -0.49999997f,
                            127.5f, -128.5f, 255.5f, 32767.5f, -32768.5f, 2147483520.f, -2147483648.f,
                            3e9f, -3e9f, 1e30f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                            1e-40f, std::nextafter(0.5f, 0.f), std::nextafter(0.5f, 1.f)};
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
      CheckConvert(kTfLiteBuiltinQuantize, kTfLiteFloat32, ProbeFloats(1001, scale, 1), {1001}, 0.f, 0, type, scale, zp);
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
      {kTfLiteInt8, kTfLiteUInt8, 0.02f, 0.02f, -3, 125},  {kTfLiteUInt8, kTfLiteInt8, 0.02f, 0.03f, 128, 0},
      {kTfLiteInt8, kTfLiteInt8, 0.5f, 1e-4f, -128, 127},  {kTfLiteUInt8, kTfLiteUInt8, 1e-4f, 3.f, 255, 0},
      {kTfLiteInt16, kTfLiteInt16, 1e-4f, 3e-5f, 0, 0},    {kTfLiteInt16, kTfLiteInt16, 0.3f, 1e-9f, 0, 0},
      {kTfLiteInt16, kTfLiteInt8, 1e-3f, 0.05f, 0, -128},  {kTfLiteInt16, kTfLiteInt8, 1.f, 1e-3f, 0, 127},
      {kTfLiteInt16, kTfLiteInt16, 1e6f, 1e-6f, 0, 0},
      // Ratios that are powers of two: halves exactly, where the rounding of ties decides.
      {kTfLiteInt8, kTfLiteInt8, 0.25f, 1.f, 3, -2},       {kTfLiteInt16, kTfLiteInt16, 1.f, 8.f, 0, 0},
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
    CheckConvert(kTfLiteBuiltinQuantize, c.in, bytes, {static_cast<int>(n)}, c.in_scale, c.in_zp, c.out,
                 c.out_scale, c.out_zp);
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
