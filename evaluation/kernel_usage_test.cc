#include "evaluation/kernel_usage.h"

#include <memory>

#include <gtest/gtest.h>

#include "delegates/sample/sample_delegate.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

// x -> ADD(x, x) -> SIN -> out, float32: ADD has an optimized kernel, SIN a reference one only.
std::shared_ptr<const Model> AddSinModel() {
  ModelBuilder b;
  const int x = b.AddTensor(kTfLiteFloat32, {1, 64}, "x");
  const int sum = b.AddTensor(kTfLiteFloat32, {1, 64}, "sum");
  const int out = b.AddTensor(kTfLiteFloat32, {1, 64}, "out");
  b.AddOperator(kTfLiteBuiltinAdd, {x, x}, {sum}, fb::BuiltinOptions::AddOptions,
                fb::CreateAddOptions(b.fbb()).Union());
  b.AddOperator(kTfLiteBuiltinSin, {sum}, {out});
  b.SetInputs({x});
  b.SetOutputs({out});
  return Model::FromBuffer(b.Finish(), "add_sin.tflite").value();
}

TEST(KernelUsageTest, OptimizedReferenceAndDelegated) {
  InterpreterOptions options;
  options.kernel_set = KernelSet::kOptimized;
  auto interpreter = Interpreter::Create(AddSinModel(), options);
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  ASSERT_TRUE(interpreter.value()->AllocateTensors().ok());
  KernelUsage usage = KernelUsageOf(interpreter.value().get());
  ASSERT_EQ(usage.nodes.size(), 2u);
  EXPECT_EQ(usage.nodes[0].kernel, "optimized");
  EXPECT_EQ(usage.nodes[0].configuration, "ADD float32");
  EXPECT_EQ(usage.nodes[1].kernel, "reference");
  EXPECT_EQ(FormatKernelUsage(usage), "Kernels: 1 optimized, 1 reference (SIN float32), 0 delegated");

  options.kernel_set = KernelSet::kReference;
  interpreter = Interpreter::Create(AddSinModel(), options);
  ASSERT_TRUE(interpreter.ok());
  ASSERT_TRUE(interpreter.value()->AllocateTensors().ok());
  EXPECT_EQ(FormatKernelUsage(KernelUsageOf(interpreter.value().get())),
            "Kernels: 0 optimized, 2 reference (ADD float32, SIN float32), 0 delegated");

  options.kernel_set = KernelSet::kOptimized;
  interpreter = Interpreter::Create(AddSinModel(), options);
  ASSERT_TRUE(interpreter.ok());
  std::unique_ptr<TfLiteDelegate, void (*)(TfLiteDelegate*)> sample(TfLiteSampleDelegateCreate(nullptr),
                                                                    TfLiteSampleDelegateDelete);
  ASSERT_TRUE(interpreter.value()->ModifyGraphWithDelegate(sample.get()).ok());
  ASSERT_TRUE(interpreter.value()->AllocateTensors().ok());
  usage = KernelUsageOf(interpreter.value().get());
  EXPECT_EQ(usage.delegated, 1);
  EXPECT_EQ(usage.nodes[0].kernel, kSampleDelegateName);
}

// x -> ADD(x, DEQUANTIZE(w)) -> out with w a float16 constant (converted once, in Prepare: what Invoke
// then does with the node is runtime/interpreter_test's), and
// y -> DEQUANTIZE -> z with y a float16 input (converted at every Invoke).
std::shared_ptr<const Model> Float16Model() {
  ModelBuilder b;
  const std::vector<uint16_t> halves(64, 0x3c00);  // 1.0
  const int w = b.AddConstTensor(kTfLiteFloat16, {1, 64}, halves.data(), halves.size() * sizeof(uint16_t), "w");
  const int w_float = b.AddTensor(kTfLiteFloat32, {1, 64}, "w_float");
  const int x = b.AddTensor(kTfLiteFloat32, {1, 64}, "x");
  const int out = b.AddTensor(kTfLiteFloat32, {1, 64}, "out");
  const int y = b.AddTensor(kTfLiteFloat16, {1, 64}, "y");
  const int z = b.AddTensor(kTfLiteFloat32, {1, 64}, "z");
  b.AddOperator(kTfLiteBuiltinDequantize, {w}, {w_float});
  b.AddOperator(kTfLiteBuiltinAdd, {x, w_float}, {out}, fb::BuiltinOptions::AddOptions,
                fb::CreateAddOptions(b.fbb()).Union());
  b.AddOperator(kTfLiteBuiltinDequantize, {y}, {z});
  b.SetInputs({x, y});
  b.SetOutputs({out, z});
  return Model::FromBuffer(b.Finish(), "float16.tflite").value();
}

TEST(KernelUsageTest, ConstantsComputedInPrepare) {
  for (const KernelSet set : {KernelSet::kOptimized, KernelSet::kReference}) {
    InterpreterOptions options;
    options.kernel_set = set;
    auto interpreter = Interpreter::Create(Float16Model(), options);
    ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
    ASSERT_TRUE(interpreter.value()->AllocateTensors().ok());
    const KernelUsage usage = KernelUsageOf(interpreter.value().get());
    ASSERT_EQ(usage.nodes.size(), 3u);
    EXPECT_EQ(usage.nodes[0].kernel, "prepare");
    EXPECT_EQ(usage.nodes[0].configuration, "DEQUANTIZE float16");
    EXPECT_EQ(usage.nodes[2].kernel, "reference");
    EXPECT_EQ(usage.prepare, 1);
    if (set == KernelSet::kOptimized) {
      EXPECT_EQ(FormatKernelUsage(usage),
                "Kernels: 1 optimized, 1 reference (DEQUANTIZE float16), 0 delegated, 1 computed at Prepare "
                "(DEQUANTIZE float16)");
    } else {
      EXPECT_EQ(FormatKernelUsage(usage),
                "Kernels: 0 optimized, 2 reference (ADD float32, DEQUANTIZE float16), 0 delegated, 1 computed at "
                "Prepare (DEQUANTIZE float16)");
    }
  }
}

}  // namespace
}  // namespace touchstone
