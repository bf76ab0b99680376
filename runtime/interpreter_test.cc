// The interpreter's own behaviour: arena reuse, resizing, dynamic shapes re-prepared during Invoke,
// variables, and errors that name the op.
#include "runtime/interpreter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/model_builder.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;

flatbuffers::Offset<void> AddOptions(OpTest& t) { return fb::CreateAddOptions(t.fbb()).Union(); }

TEST(InterpreterTest, ChainReusesArenaMemory) {
  OpTest t;
  int x = t.AddInput(kTfLiteFloat32, {1, 256});
  for (int i = 0; i < 6; ++i) {
    const int y = i == 5 ? t.AddOutput(kTfLiteFloat32, {1, 256}) : t.AddIntermediate(kTfLiteFloat32, {1, 256});
    t.AddOp(kTfLiteBuiltinAdd, {x, x}, {y}, fb::BuiltinOptions::AddOptions, AddOptions(t));
    x = y;
  }
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, std::vector<float>(256, 1.0f));
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), std::vector<float>(256, 64.0f));
  // Seven 1 KiB tensors, but at most three live at once besides the graph input (kept to the end).
  EXPECT_LE(t.interpreter()->arena_bytes(), 4u * 1024u);
}

// A RESHAPE's output takes its input's storage (no copy), which then lives as long as the output is
// read: the ADD between must not write over it. A RESHAPE writing a graph output keeps its own.
TEST(InterpreterTest, ReshapeSharesItsInputsStorage) {
  OpTest t;
  const int x = t.AddInput(kTfLiteFloat32, {8});
  const int a = t.AddIntermediate(kTfLiteFloat32, {8});
  const int shape = t.AddConst<int32_t>(kTfLiteInt32, {2}, {2, 4});
  const int r = t.AddIntermediate(kTfLiteFloat32, {2, 4});
  const int c = t.AddIntermediate(kTfLiteFloat32, {2, 4});
  const int d = t.AddOutput(kTfLiteFloat32, {2, 4});
  const int flat_shape = t.AddConst<int32_t>(kTfLiteInt32, {1}, {8});
  const int e = t.AddOutput(kTfLiteFloat32, {8});
  t.AddOp(kTfLiteBuiltinAdd, {x, x}, {a}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  t.AddOp(kTfLiteBuiltinReshape, {a, shape}, {r});
  t.AddOp(kTfLiteBuiltinAdd, {r, r}, {c}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  t.AddOp(kTfLiteBuiltinAdd, {c, r}, {d}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  t.AddOp(kTfLiteBuiltinReshape, {d, flat_shape}, {e});
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.interpreter()->tensor(r)->data.raw, t.interpreter()->tensor(a)->data.raw);
  EXPECT_NE(t.interpreter()->tensor(c)->data.raw, t.interpreter()->tensor(a)->data.raw);
  EXPECT_NE(t.interpreter()->tensor(e)->data.raw, t.interpreter()->tensor(d)->data.raw);
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{6, 12, 18, 24, 30, 36, 42, 48}));
  EXPECT_EQ(t.GetOutput<float>(1), (std::vector<float>{6, 12, 18, 24, 30, 36, 42, 48}));
}

TEST(InterpreterTest, ResizeInputThenReallocate) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {1, 2});
  const int b = t.AddInput(kTfLiteFloat32, {1, 2});
  const int out = t.AddOutput(kTfLiteFloat32, {1, 2});
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {out}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  ASSERT_TRUE(t.Build().ok());
  ASSERT_TRUE(t.ResizeInput(0, {3, 2}).ok());
  ASSERT_TRUE(t.ResizeInput(1, {3, 2}).ok());
  EXPECT_EQ(t.Invoke().code(), StatusCode::kExecution);  // not allocated since the resize
  ASSERT_TRUE(t.AllocateTensors().ok());
  t.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  t.SetInput<float>(1, {10, 20, 30, 40, 50, 60});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{11, 22, 33, 44, 55, 66}));
}

TEST(InterpreterTest, DataDependentShapeIsPreparedDuringInvoke) {
  // RESHAPE takes its shape from a graph input, so its output (and the ADD after it) is sized
  // only when Invoke has the shape's values.
  OpTest t;
  const int data = t.AddInput(kTfLiteFloat32, {6});
  const int shape = t.AddInput(kTfLiteInt32, {2});
  const int reshaped = t.AddIntermediate(kTfLiteFloat32);
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinReshape, {data, shape}, {reshaped});
  t.AddOp(kTfLiteBuiltinAdd, {reshaped, reshaped}, {out}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
  t.SetInput<int32_t>(1, {3, 2});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{3, 2}));
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  t.SetInput<int32_t>(1, {2, 3});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutputShape(0), (std::vector<int>{2, 3}));
}

TEST(InterpreterTest, UnsupportedOpIsNamed) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {1});
  const int out = t.AddOutput(kTfLiteFloat32, {1});
  t.AddOp(kTfLiteBuiltinHashtableLookup, {a}, {out});
  Status s = t.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HASHTABLE_LOOKUP"), std::string::npos) << s.message();
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
}

// TFLite 2.14.1 registers ADD up to version 5: version 6 is refused at load, naming the op and the
// version, unless allow_newer_op_versions runs it with the version 5 kernel.
TEST(InterpreterTest, UnregisteredOpVersionIsRefusedUnlessAllowed) {
  for (bool allow : {false, true}) {
    OpTest t;
    const int a = t.AddInput(kTfLiteFloat32, {2});
    const int out = t.AddOutput(kTfLiteFloat32, {2});
    t.AddOp(kTfLiteBuiltinAdd, {a, a}, {out}, fb::BuiltinOptions::AddOptions, AddOptions(t), /*version=*/6);
    t.options()->allow_newer_op_versions = allow;
    ::testing::internal::CaptureStderr();
    Status s = t.Build();
    const std::string warning = ::testing::internal::GetCapturedStderr();
    if (!allow) {
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
      EXPECT_NE(s.message().find("op 0 (ADD): version 6 of ADD is not registered in TensorFlow Lite 2.14.1, which "
                                 "runs versions 1 to 5"),
                std::string::npos)
          << s.message();
      continue;
    }
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_NE(warning.find("WARNING: ADD version 6 is newer"), std::string::npos) << warning;
    t.SetInput<float>(0, {1, 2});
    ASSERT_TRUE(t.Invoke().ok());
    EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{2, 4}));
  }
}

TEST(InterpreterTest, KernelErrorsNameTheOp) {
  OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {2, 3});
  const int b = t.AddInput(kTfLiteFloat32, {4, 5});  // cannot broadcast with [2,3]
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {out}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  Status s = t.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op 0 (ADD)"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace touchstone

namespace touchstone {
namespace {

TEST(InterpreterTest, SignaturesRunByKeyOnTheirSubgraph) {
  // Two subgraphs: "add" doubles its input, "sub" subtracts it from itself.
  ModelBuilder b;
  for (int s = 0; s < 2; ++s) {
    if (s == 1) b.AddSubgraph("second");
    const int in = b.AddTensor(kTfLiteFloat32, {2}, "x");
    const int out = b.AddTensor(kTfLiteFloat32, {2}, "y");
    b.AddOperator(s == 0 ? kTfLiteBuiltinAdd : kTfLiteBuiltinSub, {in, in}, {out},
                  s == 0 ? fb::BuiltinOptions::AddOptions : fb::BuiltinOptions::SubOptions,
                  s == 0 ? fb::CreateAddOptions(b.fbb()).Union() : fb::CreateSubOptions(b.fbb()).Union());
    b.SetInputs({in});
    b.SetOutputs({out});
    b.AddSignature(s == 0 ? "add" : "sub", s, {{"in", in}}, {{"out", out}});
  }
  auto model = Model::FromBuffer(b.Finish(), "signatures");
  ASSERT_TRUE(model.ok()) << model.status().message();
  InterpreterOptions options;
  options.kernel_set = KernelSet::kReference;
  auto interpreter = Interpreter::Create(model.value(), options);
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  ASSERT_EQ(interpreter.value()->signatures().size(), 2u);
  auto runner = SignatureRunner::Create(interpreter.value().get(), "sub");
  ASSERT_TRUE(runner.ok());
  ASSERT_TRUE(runner.value().AllocateTensors().ok());
  float* in = reinterpret_cast<float*>(runner.value().input_tensor("in")->data.raw);
  in[0] = 3.0f;
  in[1] = -1.0f;
  ASSERT_TRUE(runner.value().Invoke().ok());
  const float* out = reinterpret_cast<const float*>(runner.value().output_tensor("out")->data.raw);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(runner.value().input_tensor("nope"), nullptr);
  EXPECT_EQ(SignatureRunner::Create(interpreter.value().get(), "mul").status().code(), StatusCode::kUsage);
}

TEST(InterpreterTest, WhileLoopRunsAndIsBounded) {
  // cond: x < 10; body: x = x + 1 (int32 scalar). Then the same loop with a bound of 3 iterations.
  for (int64_t bound : {int64_t{1000}, int64_t{3}}) {
    ModelBuilder b;
    const int x = b.AddTensor(kTfLiteInt32, {}, "x");
    const int y = b.AddTensor(kTfLiteInt32, {}, "y");
    b.AddOperator(kTfLiteBuiltinWhile, {x}, {y}, fb::BuiltinOptions::WhileOptions,
                  fb::CreateWhileOptions(b.fbb(), 1, 2).Union());
    b.SetInputs({x});
    b.SetOutputs({y});
    b.AddSubgraph("cond");
    const int cx = b.AddTensor(kTfLiteInt32, {}, "cx");
    const int ten = b.AddConstTensor(kTfLiteInt32, {}, std::vector<int32_t>{10}, "ten");
    const int less = b.AddTensor(kTfLiteBool, {}, "less");
    b.AddOperator(kTfLiteBuiltinLess, {cx, ten}, {less});
    b.SetInputs({cx});
    b.SetOutputs({less});
    b.AddSubgraph("body");
    const int bx = b.AddTensor(kTfLiteInt32, {}, "bx");
    const int one = b.AddConstTensor(kTfLiteInt32, {}, std::vector<int32_t>{1}, "one");
    const int next = b.AddTensor(kTfLiteInt32, {}, "next");
    b.AddOperator(kTfLiteBuiltinAdd, {bx, one}, {next}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(b.fbb()).Union());
    b.SetInputs({bx});
    b.SetOutputs({next});
    auto model = Model::FromBuffer(b.Finish(), "while");
    ASSERT_TRUE(model.ok()) << model.status().message();
    InterpreterOptions options;
    options.kernel_set = KernelSet::kReference;
    options.max_loop_iterations = bound;
    auto interpreter = Interpreter::Create(model.value(), options);
    ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
    ASSERT_TRUE(interpreter.value()->AllocateTensors().ok());
    *reinterpret_cast<int32_t*>(interpreter.value()->input_tensor(0)->data.raw) = 2;
    Status s = interpreter.value()->Invoke();
    if (bound == 1000) {
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(*reinterpret_cast<int32_t*>(interpreter.value()->output_tensor(0)->data.raw), 10);
    } else {
      ASSERT_FALSE(s.ok());
      EXPECT_NE(s.message().find("WHILE loop ran 3 iterations"), std::string::npos) << s.message();
    }
  }
}

}  // namespace
}  // namespace touchstone

namespace touchstone {
namespace {

// A graph output that no operator writes (and that is no input or constant) has no value to read.
TEST(InterpreterTest, OutputWrittenByNoOperatorIsRefused) {
  OpTest t;
  const int x = t.AddInput(kTfLiteFloat32, {4});
  const int y = t.AddOutput(kTfLiteFloat32, {4});
  t.AddOutput(kTfLiteFloat32, {4}, "orphan");
  t.AddOp(kTfLiteBuiltinAdd, {x, x}, {y}, fb::BuiltinOptions::AddOptions, AddOptions(t));
  Status s = t.Build();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find("output tensor 2 'orphan' is written by no operator"), std::string::npos) << s.message();
}

TEST(InterpreterTest, PreserveAllTensorsKeepsIntermediates) {
  OpTest t;
  int x = t.AddInput(kTfLiteFloat32, {4});
  std::vector<int> chain;
  for (int i = 0; i < 4; ++i) {
    const int y = i == 3 ? t.AddOutput(kTfLiteFloat32, {4}) : t.AddIntermediate(kTfLiteFloat32, {4});
    t.AddOp(kTfLiteBuiltinAdd, {x, x}, {y}, fb::BuiltinOptions::AddOptions, AddOptions(t));
    chain.push_back(y);
    x = y;
  }
  t.options()->preserve_all_tensors = true;
  ASSERT_TRUE(t.Build().ok());
  t.SetInput<float>(0, std::vector<float>(4, 1.0f));
  ASSERT_TRUE(t.Invoke().ok());
  float expected = 1.0f;
  for (int tensor : chain) {
    expected *= 2.0f;
    EXPECT_EQ(reinterpret_cast<const float*>(t.interpreter()->tensor(tensor)->data.raw)[3], expected);
  }
}

// data[6] -> RESHAPE(shape input) -> reshaped (dynamic) -> ADD -> doubled (sized during Invoke) -> ADD -> out.
struct DynamicChain {
  OpTest test;
  int reshaped = -1, doubled = -1;
  void Build(bool release) {
    const int data = test.AddInput(kTfLiteFloat32, {6}, "data");
    const int shape = test.AddInput(kTfLiteInt32, {2}, "shape");
    reshaped = test.AddIntermediate(kTfLiteFloat32);
    doubled = test.AddIntermediate(kTfLiteFloat32);
    const int out = test.AddOutput(kTfLiteFloat32);
    test.AddOp(kTfLiteBuiltinReshape, {data, shape}, {reshaped});
    test.AddOp(kTfLiteBuiltinAdd, {reshaped, reshaped}, {doubled}, fb::BuiltinOptions::AddOptions, AddOptions(test));
    test.AddOp(kTfLiteBuiltinAdd, {doubled, doubled}, {out}, fb::BuiltinOptions::AddOptions, AddOptions(test));
    test.options()->ensure_dynamic_tensors_are_released = release;
    ASSERT_TRUE(test.Build().ok());
  }
  std::vector<float> Run(const std::vector<int32_t>& shape) {
    test.SetInput<float>(0, {1, 2, 3, 4, 5, 6});
    test.SetInput<int32_t>(1, shape);
    Status s = test.Invoke();
    EXPECT_TRUE(s.ok()) << s.message();
    return test.GetOutput<float>(0);
  }
  Interpreter* interpreter() { return test.interpreter(); }
};

TEST(InterpreterTest, ReleasesDynamicTensorsAfterTheirLastUse) {
  DynamicChain kept, released;
  kept.Build(false);
  released.Build(true);
  for (const std::vector<int32_t>& shape : {std::vector<int32_t>{2, 3}, {2, 3}, {3, 2}, {6, 1}}) {
    const std::vector<float> a = kept.Run(shape);
    EXPECT_EQ(a, released.Run(shape));
    EXPECT_EQ(a, (std::vector<float>{4, 8, 12, 16, 20, 24}));
    ASSERT_EQ(kept.interpreter()->tensor(kept.reshaped)->allocation_type, kTfLiteDynamic);
    EXPECT_NE(kept.interpreter()->tensor(kept.reshaped)->data.raw, nullptr);
    EXPECT_EQ(released.interpreter()->tensor(released.reshaped)->data.raw, nullptr);
    EXPECT_EQ(released.interpreter()->tensor(released.doubled)->data.raw, nullptr);
    // The graph output stays readable; the freed tensors no longer count.
    EXPECT_NE(released.interpreter()->output_tensor(0)->data.raw, nullptr);
    EXPECT_LT(released.interpreter()->dynamic_bytes(), kept.interpreter()->dynamic_bytes());
  }
}

}  // namespace
}  // namespace touchstone

namespace touchstone {
namespace {

class CountingObserver : public NodeObserver {
 public:
  void NodeFinished(int subgraph, int node_index, const std::string& op_name, bool delegated,
                    int64_t duration_us) override {
    calls.push_back(op_name + "@" + std::to_string(subgraph) + ":" + std::to_string(node_index));
    EXPECT_FALSE(delegated);
    EXPECT_GE(duration_us, 0);
  }
  std::vector<std::string> calls;
};

TEST(InterpreterTest, NodeObserverSeesEveryNodeInOrder) {
  testing::OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {2});
  const int mid = t.AddIntermediate(kTfLiteFloat32, {2});
  const int out = t.AddOutput(kTfLiteFloat32, {2});
  t.AddOp(kTfLiteBuiltinAdd, {a, a}, {mid}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union());
  t.AddOp(kTfLiteBuiltinRelu, {mid}, {out});
  ASSERT_TRUE(t.Build().ok());
  CountingObserver observer;
  t.interpreter()->SetNodeObserver(&observer);
  t.SetInput<float>(0, {1, -1});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(observer.calls, (std::vector<std::string>{"ADD@0:0", "RELU@0:1"}));
  t.interpreter()->SetNodeObserver(nullptr);
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(observer.calls.size(), 2u);
}

// A float16 constant's DEQUANTIZE computes its output in Prepare (kernel "prepare"). Plain Invoke
// leaves it out (its Eval would do nothing, so only the time shows it); an observed Invoke still
// runs it, so the op profile lists every node; both read the value Prepare wrote.
TEST(InterpreterTest, NodesComputedInPrepare) {
  testing::OpTest t;
  const int x = t.AddInput(kTfLiteFloat32, {2});
  const int w = t.AddConst<uint16_t>(kTfLiteFloat16, {2}, {0x3c00, 0x4000});  // 1.0, 2.0
  const int w_float = t.AddIntermediate(kTfLiteFloat32, {2});
  const int out = t.AddOutput(kTfLiteFloat32, {2});
  t.AddOp(kTfLiteBuiltinDequantize, {w}, {w_float});
  t.AddOp(kTfLiteBuiltinAdd, {x, w_float}, {out}, fb::BuiltinOptions::AddOptions,
          fb::CreateAddOptions(t.fbb()).Union());
  ASSERT_TRUE(t.Build().ok());
  EXPECT_EQ(t.interpreter()->primary()->node_kernel(0), "prepare");
  for (const bool observed : {false, true}) {
    CountingObserver observer;
    if (observed) t.interpreter()->SetNodeObserver(&observer);
    t.SetInput<float>(0, {10, 20});
    ASSERT_TRUE(t.Invoke().ok());
    const float* result = t.interpreter()->tensor(out)->data.f;
    EXPECT_EQ(result[0], 11.0f);
    EXPECT_EQ(result[1], 22.0f);
    EXPECT_EQ(observer.calls.size(), observed ? 2u : 0u);
    t.interpreter()->SetNodeObserver(nullptr);
  }
}

// A FULLY_CONNECTED's constant float weights, packed by the optimized kernel at the first Invoke: the
// whole pages they fill in the mapped file are unmapped, counted once over several Invokes; the
// outputs equal those of the same model held in memory, which keeps every byte; the weights still
// read the same through the mapping afterwards.
TEST(InterpreterTest, PackedWeightsLeaveTheMappedFile) {
  constexpr int kUnits = 64, kDepth = 256;  // 64 KiB of weights: at least 15 whole 4 KiB pages
  std::vector<float> weights(kUnits * kDepth);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i % 13) * 0.25f - 1.5f;
  ModelBuilder b;
  const int in = b.AddTensor(kTfLiteFloat32, {1, kDepth});
  const int w = b.AddConstTensor<float>(kTfLiteFloat32, {kUnits, kDepth}, weights);
  const int out = b.AddTensor(kTfLiteFloat32, {1, kUnits});
  b.AddOperator(kTfLiteBuiltinFullyConnected, {in, w, -1}, {out}, fb::BuiltinOptions::FullyConnectedOptions,
                fb::CreateFullyConnectedOptions(b.fbb()).Union());
  b.SetInputs({in});
  b.SetOutputs({out});
  const std::vector<uint8_t> bytes = b.Finish();
  const std::string path = ::testing::TempDir() + "/packed_weights.tflite";
  FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  ASSERT_EQ(std::fclose(file), 0);

  struct Run {
    std::vector<float> output;
    size_t released_bytes = 0;
  };
  auto run = [&](std::shared_ptr<const Model> model) {
    Run result;
    InterpreterOptions options;
    options.kernel_set = KernelSet::kOptimized;
    auto interpreter = Interpreter::Create(model, options);
    EXPECT_TRUE(interpreter.ok());
    if (!interpreter.ok()) return result;
    EXPECT_TRUE(interpreter.value()->AllocateTensors().ok());
    std::vector<float> input(kDepth);
    for (int i = 0; i < kDepth; ++i) input[i] = static_cast<float>(i % 7) - 3.0f;
    std::memcpy(interpreter.value()->input_tensor(0)->data.raw, input.data(), input.size() * sizeof(float));
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(interpreter.value()->Invoke().ok());
    result.output = testing::TensorValues<float>(interpreter.value()->output_tensor(0));
    result.released_bytes = interpreter.value()->weights_released_bytes();
    return result;
  };
  auto mapped = Model::FromFile(path);
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  auto in_memory = Model::FromBuffer(bytes, "packed_weights.tflite");
  ASSERT_TRUE(in_memory.ok());
  const Run from_file = run(mapped.value());
  const Run from_memory = run(in_memory.value());
  EXPECT_GE(from_file.released_bytes, 15u * 4096u);
  EXPECT_LE(from_file.released_bytes, weights.size() * sizeof(float));
  EXPECT_EQ(from_memory.released_bytes, 0u);
  EXPECT_EQ(from_file.output, from_memory.output);
  auto check = Interpreter::Create(mapped.value(), InterpreterOptions());
  ASSERT_TRUE(check.ok());
  const TfLiteTensor* tensor = check.value()->tensor(w);
  ASSERT_EQ(tensor->bytes, weights.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(tensor->data.raw, weights.data(), tensor->bytes), 0);
  std::remove(path.c_str());
}

// A float16 constant's DEQUANTIZE writes float32 weights in Prepare. Once every node reading them has
// packed a copy of its own (the optimized FULLY_CONNECTED, at the first Invoke), their whole pages
// are given back; later Invokes, and a resize with a second AllocateTensors (which computes them
// again), give the reference kernels' outputs. They stay when a reader keeps reading them (an ADD),
// when they are a subgraph output, and with preserve_all_tensors.
TEST(InterpreterTest, PreparedWeightsGivenBackOnceCopied) {
  constexpr int kUnits = 64, kDepth = 256;  // 64 KiB of float32 weights: at least 15 whole 4 KiB pages
  std::vector<uint16_t> half(kUnits * kDepth);
  for (size_t i = 0; i < half.size(); ++i) half[i] = float16::FloatToHalf(static_cast<float>(i % 13) * 0.25f - 1.5f);
  enum class Case { kFullyConnectedOnly, kAlsoAdd, kSubgraphOutput, kPreserveAll };
  struct Run {
    std::vector<float> values;
    size_t released_after_first_invokes = 0;
    size_t whole_pages_bytes = 0;  // of the float32 weights, where the first Invokes found them
    size_t released_after_allocate = 0;
    size_t released_bytes = 0;
  };
  auto run = [&](KernelSet kernel_set, Case c) {
    Run result;
    testing::OpTest t(kernel_set);
    t.options()->preserve_all_tensors = c == Case::kPreserveAll;
    const int in = t.AddInput(kTfLiteFloat32, {1, kDepth});
    const int w = t.AddConst<uint16_t>(kTfLiteFloat16, {kUnits, kDepth}, half);
    const int w_float = c == Case::kSubgraphOutput ? t.AddOutput(kTfLiteFloat32, {kUnits, kDepth})
                                                   : t.AddIntermediate(kTfLiteFloat32, {kUnits, kDepth});
    const int out = t.AddOutput(kTfLiteFloat32, {1, kUnits});
    t.AddOp(kTfLiteBuiltinDequantize, {w}, {w_float});
    t.AddOp(kTfLiteBuiltinFullyConnected, {in, w_float, -1}, {out}, fb::BuiltinOptions::FullyConnectedOptions,
            fb::CreateFullyConnectedOptions(t.fbb()).Union());
    int sum = -1;
    if (c == Case::kAlsoAdd) {
      sum = t.AddOutput(kTfLiteFloat32, {kUnits, kDepth});
      t.AddOp(kTfLiteBuiltinAdd, {w_float, w_float}, {sum}, fb::BuiltinOptions::AddOptions,
              fb::CreateAddOptions(t.fbb()).Union());
    }
    EXPECT_TRUE(t.Build().ok());
    for (const int batch : {1, 3}) {
      if (batch > 1) {
        EXPECT_TRUE(t.ResizeInput(0, {batch, kDepth}).ok());
        EXPECT_TRUE(t.AllocateTensors().ok());
        result.released_after_allocate = t.interpreter()->prepared_weights_released_bytes();
      }
      std::vector<float> input(static_cast<size_t>(batch) * kDepth);
      for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 7) - 3.0f;
      t.SetInput<float>(0, input);
      for (int i = 0; i < 2; ++i) {
        EXPECT_TRUE(t.Invoke().ok());
        for (const int tensor : {out, sum, c == Case::kSubgraphOutput ? w_float : -1}) {
          if (tensor < 0) continue;
          const std::vector<float> values = testing::TensorValues<float>(t.interpreter()->tensor(tensor));
          result.values.insert(result.values.end(), values.begin(), values.end());
        }
      }
      if (batch == 1) {
        result.released_after_first_invokes = t.interpreter()->prepared_weights_released_bytes();
        const TfLiteTensor* weights = t.interpreter()->tensor(w_float);
        const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
        const uintptr_t begin = reinterpret_cast<uintptr_t>(weights->data.raw);
        const uintptr_t first_page = (begin + page - 1) / page * page;
        const uintptr_t end_page = (begin + weights->bytes) / page * page;
        result.whole_pages_bytes = end_page > first_page ? end_page - first_page : 0;
      }
    }
    result.released_bytes = t.interpreter()->prepared_weights_released_bytes();
    return result;
  };
  for (const Case c : {Case::kFullyConnectedOnly, Case::kAlsoAdd, Case::kSubgraphOutput, Case::kPreserveAll}) {
    SCOPED_TRACE(static_cast<int>(c));
    const Run optimized = run(KernelSet::kOptimized, c);
    const Run reference = run(KernelSet::kReference, c);
    EXPECT_EQ(reference.released_bytes, 0u);
    if (c == Case::kFullyConnectedOnly) {
      // Every whole page of the float32 weights, counted once however often the FC ran.
      EXPECT_GE(optimized.whole_pages_bytes, 15u * 4096u);
      EXPECT_EQ(optimized.released_after_first_invokes, optimized.whole_pages_bytes);
      // AllocateTensors computes them again: resident, not counted, until the FC copies them again.
      EXPECT_EQ(optimized.released_after_allocate, 0u);
      EXPECT_LE(optimized.released_bytes, half.size() * sizeof(float));
    } else {
      EXPECT_EQ(optimized.released_after_first_invokes, 0u);
      EXPECT_EQ(optimized.released_bytes, 0u);
    }
    // The optimized FULLY_CONNECTED sums in another order: within float rounding of the reference.
    ASSERT_EQ(optimized.values.size(), reference.values.size());
    for (size_t i = 0; i < optimized.values.size(); ++i) {
      ASSERT_NEAR(optimized.values[i], reference.values[i], 1e-3f * (1.0f + std::fabs(reference.values[i]))) << i;
    }
  }
}

}  // namespace
}  // namespace touchstone
