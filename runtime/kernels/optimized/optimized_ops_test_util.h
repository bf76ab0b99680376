// What the tests of the optimized kernels share: OpCase, which runs a one-op model with the
// reference kernels and then with the optimized ones (conv_test.cc, lstm_test.cc, ...).
//
// Every optimized kernel against the reference kernel on the same one-op models (built with
// OpTest, run through the real loader and interpreter): for each microkernel set this CPU runs
// (AVX-512, AVX+FMA, SSE2, NEON, scalar) and with 1 and 4 threads. Float outputs must agree within
// 1e-5 of the output's largest magnitude (accumulation order only); pooling, ADD, MUL and
// RESIZE_BILINEAR (on x86-64), the quantized kernels, and every configuration that falls back to
// the reference kernel (int16, broadcasts), exactly.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_OPS_TEST_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_OPS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
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
#include "runtime/kernels/optimized/q16_kernels.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/op_resolver.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace optimized_test {

using testing::OpTest;
using testing::RandomFloats;
using testing::RandomInts;
using Act = fb::ActivationFunctionType;

// Serves the optimized kernels for their ops and the reference kernels for the rest, whatever
// op_resolver.cc's table says, so these tests exercise the optimized code directly.
// The optimized kernel set as the runtime resolves it (runtime/op_resolver.cc's one table).
class OptimizedTestResolver : public BuiltinOpResolver {
 public:
  OptimizedTestResolver() : BuiltinOpResolver(KernelSet::kOptimized) {}
};

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());  // memcpy takes no null pointer
  return bytes;
}

inline int64_t Count(const std::vector<int>& shape) {
  int64_t n = 1;
  for (int d : shape) n *= d;
  return n;
}

struct RunResult {
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<std::vector<int>> shapes;
  std::vector<TfLiteType> types;
};

inline void SetInputs(Interpreter* interpreter, const std::vector<std::vector<uint8_t>>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    TfLiteTensor* t = interpreter->input_tensor(i);
    ASSERT_EQ(t->bytes, inputs[i].size()) << "input " << i;
    if (!inputs[i].empty()) std::memcpy(t->data.raw, inputs[i].data(), inputs[i].size());
  }
}

inline RunResult Collect(Interpreter* interpreter) {
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
inline void ExpectAgree(const RunResult& reference, const RunResult& optimized, bool exact, const std::string& label) {
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
        ADD_FAILURE() << label << " output " << o << " element " << i << ": reference " << ref[i] << ", optimized "
                      << opt[i] << " (tolerance " << tolerance << ")";
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

// A fusion test runs its graph twice through OpCase::Check: fused, then with every tensor kept (no
// fusion). Note() takes each run's outputs; on the second pass it expects them bit for bit equal to
// the fused pass's of the same label and run.
class FusedAgainstApart {
 public:
  void Note(bool apart, const std::string& label, const std::vector<std::vector<uint8_t>>& outputs) {
    if (!apart) {
      fused_[label].push_back(outputs);
      return;
    }
    const size_t run = compared_[label]++;
    ASSERT_LT(run, fused_[label].size()) << label;
    EXPECT_TRUE(fused_[label][run] == outputs) << label << ", run " << run << ": the fusion changed an output";
  }

 private:
  std::map<std::string, std::vector<std::vector<std::vector<uint8_t>>>> fused_;  // by label, then run
  std::map<std::string, size_t> compared_;
};

// CONV_2D's parameters.
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

// DEPTHWISE_CONV_2D's parameters.
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

// FULLY_CONNECTED's parameters.
struct FullyConnected {
  std::vector<int> input;
  int units;
  int depth;
  bool bias = true;
  bool keep_num_dims = false;
  Act activation = Act::NONE;
  bool weights_are_input = false;
};

// Add CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED with the parameters' options to op's model.
inline void AddConvOp(OpCase& op, const Conv& c, const std::vector<int>& inputs, int output) {
  op.test().AddOp(kTfLiteBuiltinConv2d, inputs, {output}, fb::BuiltinOptions::Conv2DOptions,
                  fb::CreateConv2DOptions(op.test().fbb(), c.padding, c.stride_w, c.stride_h, c.activation,
                                          c.dilation_w, c.dilation_h)
                      .Union());
}
inline void AddDepthwiseOp(OpCase& op, const Depthwise& d, const std::vector<int>& inputs, int output) {
  op.test().AddOp(kTfLiteBuiltinDepthwiseConv2d, inputs, {output}, fb::BuiltinOptions::DepthwiseConv2DOptions,
                  fb::CreateDepthwiseConv2DOptions(op.test().fbb(), d.padding, d.stride_w, d.stride_h, d.multiplier,
                                                   d.activation, d.dilation_w, d.dilation_h)
                      .Union());
}
// `asymmetric`: the hybrid kernel's asymmetric input quantization.
inline void AddFullyConnectedOp(OpCase& op, const FullyConnected& f, const std::vector<int>& inputs, int output,
                                bool asymmetric = false) {
  op.test().AddOp(
      kTfLiteBuiltinFullyConnected, inputs, {output}, fb::BuiltinOptions::FullyConnectedOptions,
      fb::CreateFullyConnectedOptions(op.test().fbb(), f.activation, fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                      f.keep_num_dims, asymmetric)
          .Union());
}

inline std::vector<uint8_t> RandomQuantBytes(TfLiteType type, size_t n, uint32_t seed) {
  return type == kTfLiteUInt8 ? RandomInts<uint8_t>(n, seed, 0, 255) : Bytes(RandomInts<int8_t>(n, seed, -128, 127));
}

}  // namespace optimized_test
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_OPS_TEST_UTIL_H_
