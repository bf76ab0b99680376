// The sample delegate in-process: what it claims, results equal to the reference kernels' (with
// broadcasting and fused activations), option parsing, and the injected failures.
#include "delegates/sample/sample_delegate.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using DelegatePtr = std::unique_ptr<TfLiteDelegate, void (*)(TfLiteDelegate*)>;

DelegatePtr MakeDelegate(const SampleDelegateOptions& options) {
  return DelegatePtr(TfLiteSampleDelegateCreate(&options), TfLiteSampleDelegateDelete);
}

// in0 [2,3,4], in1 [3,1]:
//   t0 = ADD(in0, in1) relu6        (broadcast)
//   t1 = SUB(t0, c[4])              (broadcast of a constant)
//   t2 = MUL(t1, c2[4])             (not the sample delegate's)
//   out = ADD(t2, in0) relu_n1_to_1
//   out2 = SUB(in1, in1)            (independent: joins the first partition)
struct Graph {
  testing::OpTest test;
  void Build() {
    auto& t = test;
    const int in0 = t.AddInput(kTfLiteFloat32, {2, 3, 4});
    const int in1 = t.AddInput(kTfLiteFloat32, {3, 1});
    const int c = t.AddConst<float>(kTfLiteFloat32, {4}, {0.5f, -0.25f, 1.5f, -2.0f});
    const int c2 = t.AddConst<float>(kTfLiteFloat32, {4}, {1.5f, 0.5f, -1.0f, 2.0f});
    const int t0 = t.AddIntermediate(kTfLiteFloat32, {2, 3, 4});
    const int t1 = t.AddIntermediate(kTfLiteFloat32, {2, 3, 4});
    const int t2 = t.AddIntermediate(kTfLiteFloat32, {2, 3, 4});
    const int out = t.AddOutput(kTfLiteFloat32);
    const int out2 = t.AddOutput(kTfLiteFloat32);
    t.AddOp(kTfLiteBuiltinAdd, {in0, in1}, {t0}, fb::BuiltinOptions::AddOptions,
            fb::CreateAddOptions(t.fbb(), fb::ActivationFunctionType::RELU6).Union());
    t.AddOp(kTfLiteBuiltinSub, {t0, c}, {t1}, fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(t.fbb()).Union());
    t.AddOp(kTfLiteBuiltinMul, {t1, c2}, {t2}, fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(t.fbb()).Union());
    t.AddOp(kTfLiteBuiltinAdd, {t2, in0}, {out}, fb::BuiltinOptions::AddOptions,
            fb::CreateAddOptions(t.fbb(), fb::ActivationFunctionType::RELU_N1_TO_1).Union());
    t.AddOp(kTfLiteBuiltinSub, {in1, in1}, {out2}, fb::BuiltinOptions::SubOptions,
            fb::CreateSubOptions(t.fbb()).Union());
    ASSERT_TRUE(t.Build().ok());
  }
  std::vector<std::vector<float>> Run() {
    Status s = test.AllocateTensors();
    EXPECT_TRUE(s.ok()) << s.message();
    std::vector<float> a(24), b(3);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) * 0.37f - 4.0f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) * 2.5f - 1.0f;
    test.SetInput<float>(0, a);
    test.SetInput<float>(1, b);
    s = test.Invoke();
    EXPECT_TRUE(s.ok()) << s.message();
    return {test.GetOutput<float>(0), test.GetOutput<float>(1)};
  }
};

TEST(SampleDelegateTest, TakesFloatAddAndSubAndMatchesTheReference) {
  Graph g;
  g.Build();
  const auto cpu = g.Run();
  DelegatePtr d = MakeDelegate(SampleDelegateOptions());
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(g.test.interpreter()->ModifyGraphWithDelegate(d.get()).ok());
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("SampleDelegate delegate: 4 nodes delegated out of 5 nodes with 2 partitions."), std::string::npos)
      << log;
  Subgraph* s = g.test.interpreter()->primary();
  // {ADD, SUB, SUB(in1,in1)} run before MUL; the last ADD after it.
  EXPECT_EQ(s->delegated_node_count(), 2);
  EXPECT_EQ(s->execution_plan().size(), 3u);
  const auto delegated = g.Run();
  EXPECT_EQ(delegated[0], cpu[0]);
  EXPECT_EQ(delegated[1], cpu[1]);
  EXPECT_EQ(g.test.GetOutputShape(0), (std::vector<int>{2, 3, 4}));
}

TEST(SampleDelegateTest, LeavesOtherTypesAndActivationsAlone) {
  testing::OpTest t;
  const int a = t.AddInput(kTfLiteInt32, {4});
  const int b = t.AddInput(kTfLiteInt32, {4});
  const int f = t.AddInput(kTfLiteFloat32, {4});
  const int o1 = t.AddOutput(kTfLiteInt32);
  const int o2 = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {o1}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union());
  t.AddOp(kTfLiteBuiltinMul, {f, f}, {o2}, fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(t.fbb()).Union());
  ASSERT_TRUE(t.Build().ok());
  DelegatePtr d = MakeDelegate(SampleDelegateOptions());
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(t.interpreter()->ModifyGraphWithDelegate(d.get()).ok());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("0 nodes delegated out of 2 nodes"), std::string::npos);
  EXPECT_EQ(t.interpreter()->primary()->delegated_node_count(), 0);
}

TEST(SampleDelegateTest, PartitionOptions) {
  Graph g;
  g.Build();
  SampleDelegateOptions options;
  options.min_nodes_per_partition = 2;  // the lone ADD after MUL stays on the CPU
  DelegatePtr d = MakeDelegate(options);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(g.test.interpreter()->ModifyGraphWithDelegate(d.get()).ok());
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(g.test.interpreter()->primary()->delegated_node_count(), 1);
  EXPECT_EQ(g.test.interpreter()->primary()->execution_plan().size(), 3u);
}

TEST(SampleDelegateTest, InjectedFailures) {
  for (const std::string stage : {"init", "prepare", "invoke"}) {
    SCOPED_TRACE(stage);
    Graph g;
    g.Build();
    SampleDelegateOptions options;
    options.error_during_init = stage == "init";
    options.error_during_prepare = stage == "prepare";
    options.error_during_invoke = stage == "invoke";
    DelegatePtr d = MakeDelegate(options);
    ::testing::internal::CaptureStderr();
    Status s = g.test.interpreter()->ModifyGraphWithDelegate(d.get());
    ::testing::internal::GetCapturedStderr();
    if (stage != "invoke") {
      // A kernel that fails Init or Prepare undoes the delegation: the CPU graph runs on.
      ASSERT_FALSE(s.ok());
      EXPECT_NE(s.message().find("error_during_" + stage + "=true"), std::string::npos) << s.message();
      EXPECT_EQ(g.test.interpreter()->primary()->delegated_node_count(), 0);
      EXPECT_TRUE(g.test.AllocateTensors().ok());
      continue;
    }
    ASSERT_TRUE(s.ok()) << s.message();
    s = g.test.AllocateTensors();
    ASSERT_TRUE(s.ok()) << s.message();
    s = g.test.Invoke();
    EXPECT_EQ(s.code(), StatusCode::kExecution);
    EXPECT_NE(s.message().find("(SampleDelegate): invoke failed"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("error_during_invoke=true"), std::string::npos) << s.message();
  }
}

TEST(SampleDelegateTest, PerturbAddsABiasToTheChosenOps) {
  Graph g;
  g.Build();
  const auto cpu = g.Run();
  SampleDelegateOptions options;
  options.perturb = 0.5f;
  options.perturb_node = 4;  // SUB(in1, in1): out2 becomes 0.5, out stays exact
  DelegatePtr d = MakeDelegate(options);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(g.test.interpreter()->ModifyGraphWithDelegate(d.get()).ok());
  ::testing::internal::GetCapturedStderr();
  const auto one = g.Run();
  EXPECT_EQ(one[0], cpu[0]);
  ASSERT_EQ(one[1].size(), cpu[1].size());
  for (size_t i = 0; i < one[1].size(); ++i) EXPECT_EQ(one[1][i], cpu[1][i] + 0.5f);

  Graph all;
  all.Build();
  options.perturb_node = -1;  // every delegated op: the biases add up along the chain
  DelegatePtr d2 = MakeDelegate(options);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(all.test.interpreter()->ModifyGraphWithDelegate(d2.get()).ok());
  ::testing::internal::GetCapturedStderr();
  const auto every = all.Run();
  ASSERT_EQ(every[0].size(), cpu[0].size());
  EXPECT_NE(every[0], cpu[0]);
  for (float v : every[0]) {  // RELU_N1_TO_1, then the bias
    EXPECT_GE(v, -0.5f);
    EXPECT_LE(v, 1.5f);
  }
  for (size_t i = 0; i < every[1].size(); ++i) EXPECT_EQ(every[1][i], cpu[1][i] + 0.5f);
}

// Records what the runtime forwards from the delegate's profiler events.
class RecordingObserver : public NodeObserver {
 public:
  struct Op {
    int node_index;
    std::string op_name;
    int op_index;
  };
  void NodeFinished(int, int node_index, const std::string& op_name, bool delegated, int64_t) override {
    nodes.push_back(op_name + (delegated ? "*" : "") + ":" + std::to_string(node_index));
  }
  void DelegateOpFinished(int, int node_index, const std::string& op_name, int op_index, int64_t) override {
    ops.push_back({node_index, op_name, op_index});
  }
  std::vector<std::string> nodes;
  std::vector<Op> ops;
};

TEST(SampleDelegateTest, ReportsEachOpToTheProfiler) {
  Graph g;
  g.Build();
  DelegatePtr d = MakeDelegate(SampleDelegateOptions());
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(g.test.interpreter()->ModifyGraphWithDelegate(d.get()).ok());
  ::testing::internal::GetCapturedStderr();
  Subgraph* s = g.test.interpreter()->primary();
  EXPECT_EQ(s->context()->profiler, nullptr);
  RecordingObserver observer;
  g.test.interpreter()->SetNodeObserver(&observer);
  EXPECT_NE(s->context()->profiler, nullptr);
  g.Run();
  // Plan: delegate {ADD 0, SUB 1, SUB 4}, MUL 2, delegate {ADD 3}; delegate kernels are new nodes.
  ASSERT_EQ(observer.ops.size(), 4u);
  const std::vector<int> plan = s->execution_plan();
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(observer.ops[0].op_name, "ADD");
  EXPECT_EQ(observer.ops[0].op_index, 0);
  EXPECT_EQ(observer.ops[1].op_name, "SUB");
  EXPECT_EQ(observer.ops[1].op_index, 1);
  EXPECT_EQ(observer.ops[2].op_name, "SUB");
  EXPECT_EQ(observer.ops[2].op_index, 4);
  EXPECT_EQ(observer.ops[3].op_name, "ADD");
  EXPECT_EQ(observer.ops[3].op_index, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(observer.ops[i].node_index, plan[0]);
  EXPECT_EQ(observer.ops[3].node_index, plan[2]);
  EXPECT_EQ(observer.nodes.size(), 3u);
  // Uninstalled: no profiler, nothing reported.
  g.test.interpreter()->SetNodeObserver(nullptr);
  EXPECT_EQ(s->context()->profiler, nullptr);
  g.Run();
  EXPECT_EQ(observer.ops.size(), 4u);
}

TEST(SampleDelegateTest, ParsesPluginOptions) {
  const char* keys[] = {"error_during_init", "error_during_prepare", "error_during_invoke", "max_delegated_partitions",
                        "min_nodes_per_partition"};
  const char* values[] = {"true", "0", "1", "3", "2"};
  SampleDelegateOptions options;
  std::string error;
  ASSERT_TRUE(ParseSampleDelegateOptions(keys, values, 5, &options, &error)) << error;
  EXPECT_TRUE(options.error_during_init);
  EXPECT_FALSE(options.error_during_prepare);
  EXPECT_TRUE(options.error_during_invoke);
  EXPECT_EQ(options.max_delegated_partitions, 3);
  EXPECT_EQ(options.min_nodes_per_partition, 2);

  const char* bad_key[] = {"error_during_lunch"};
  const char* yes[] = {"true"};
  EXPECT_FALSE(ParseSampleDelegateOptions(bad_key, yes, 1, &options, &error));
  EXPECT_NE(error.find("unknown option 'error_during_lunch'"), std::string::npos) << error;
  const char* key[] = {"error_during_init"};
  const char* maybe[] = {"maybe"};
  EXPECT_FALSE(ParseSampleDelegateOptions(key, maybe, 1, &options, &error));
  EXPECT_NE(error.find("'maybe'"), std::string::npos) << error;

  const char* perturb_keys[] = {"perturb", "perturb_node"};
  const char* perturb_values[] = {"0.25", "3"};
  ASSERT_TRUE(ParseSampleDelegateOptions(perturb_keys, perturb_values, 2, &options, &error)) << error;
  EXPECT_EQ(options.perturb, 0.25f);
  EXPECT_EQ(options.perturb_node, 3);
  for (const char* bad : {"nan", "inf", "1e99", "x", ""}) {
    const char* v[] = {bad};
    EXPECT_FALSE(ParseSampleDelegateOptions(perturb_keys, v, 1, &options, &error)) << bad;
  }
  const char* below[] = {"-2"};
  EXPECT_FALSE(ParseSampleDelegateOptions(perturb_keys + 1, below, 1, &options, &error));

  // Failing badly, for the isolation tests (docs/isolation.md).
  const char* bad_keys[] = {"crash_during_invoke", "hang_during_invoke"};
  const char* bad_values[] = {"true", "1"};
  SampleDelegateOptions failing;
  ASSERT_TRUE(ParseSampleDelegateOptions(bad_keys, bad_values, 2, &failing, &error)) << error;
  EXPECT_TRUE(failing.crash_during_invoke);
  EXPECT_TRUE(failing.hang_during_invoke);
  EXPECT_FALSE(SampleDelegateOptions().crash_during_invoke);
  EXPECT_FALSE(SampleDelegateOptions().hang_during_invoke);
}

}  // namespace
}  // namespace touchstone
