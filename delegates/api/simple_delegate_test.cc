// The SimpleDelegate API on hand-built graphs: which nodes end up in which delegate kernel (checked
// node by node), the partition limits, the log line, failures, buffer-handle defaults, and that a
// delegated graph computes what the CPU kernels compute.
#include "delegates/api/simple_delegate.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "delegates/api/delegate_helpers.h"
#include "runtime/interpreter.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using tflite::SimpleDelegateInterface;
using tflite::SimpleDelegateKernelInterface;
using tflite::TfLiteDelegateFactory;

// How the test delegate behaves.
struct TestConfig {
  SimpleDelegateInterface::Options options;
  bool fail_initialize = false;
  bool fail_init = false;
  bool fail_prepare = false;
  bool fail_eval = false;
};

// Evaluates float ADD nodes (same shapes, no activation): enough to check results.
class AddKernel : public SimpleDelegateKernelInterface {
 public:
  explicit AddKernel(const TestConfig& config) : config_(config) {}
  TfLiteStatus Init(TfLiteContext* context, const TfLiteDelegateParams* params) override {
    if (config_.fail_init) return kTfLiteError;
    for (int node_index : tflite::TfLiteIntArrayView(params->nodes_to_replace)) {
      TfLiteNode* node = nullptr;
      TfLiteRegistration* registration = nullptr;
      TF_LITE_ENSURE_STATUS(context->GetNodeAndRegistration(context, node_index, &node, &registration));
      TF_LITE_ENSURE_EQ(context, registration->builtin_code, kTfLiteBuiltinAdd);
      ops_.push_back({node->inputs->data[0], node->inputs->data[1], node->outputs->data[0]});
    }
    return kTfLiteOk;
  }
  TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node) override {
    if (config_.fail_prepare) {
      TF_LITE_KERNEL_LOG(context, "test kernel refuses to prepare");
      return kTfLiteError;
    }
    for (const Op& op : ops_) {
      TF_LITE_ENSURE_STATUS(
          context->ResizeTensor(context, &context->tensors[op.out], TfLiteIntArrayCopy(context->tensors[op.a].dims)));
    }
    return kTfLiteOk;
  }
  TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node) override {
    if (config_.fail_eval) {
      TF_LITE_KERNEL_LOG(context, "test kernel refuses to run");
      return kTfLiteError;
    }
    for (const Op& op : ops_) {
      const float* a = tflite::GetTensorData<float>(&context->tensors[op.a]);
      const float* b = tflite::GetTensorData<float>(&context->tensors[op.b]);
      float* out = tflite::GetTensorData<float>(&context->tensors[op.out]);
      for (int64_t i = 0; i < tflite::NumElements(&context->tensors[op.out]); ++i) out[i] = a[i] + b[i];
    }
    return kTfLiteOk;
  }

 private:
  struct Op {
    int a, b, out;
  };
  TestConfig config_;
  std::vector<Op> ops_;
};

class AddDelegate : public SimpleDelegateInterface {
 public:
  explicit AddDelegate(const TestConfig& config) : config_(config) {}
  bool IsNodeSupportedByDelegate(const TfLiteRegistration* registration, const TfLiteNode* node,
                                 TfLiteContext* context) const override {
    return registration->builtin_code == kTfLiteBuiltinAdd;
  }
  TfLiteStatus Initialize(TfLiteContext* context) override {
    return config_.fail_initialize ? kTfLiteError : kTfLiteOk;
  }
  const char* Name() const override { return "TestAdd"; }
  std::unique_ptr<SimpleDelegateKernelInterface> CreateDelegateKernelInterface() override {
    return std::make_unique<AddKernel>(config_);
  }
  Options DelegateOptions() const override { return config_.options; }

 private:
  TestConfig config_;
};

// Node n of the graph is op n: ADD where kinds[n] is 'A', MUL where it is 'M', in one chain
// in -> op0 -> op1 -> ... -> out, each op taking the previous value and a constant.
class ChainTest : public ::testing::Test {
 protected:
  void BuildChain(const std::string& kinds) {
    const int in = test_.AddInput(kTfLiteFloat32, {1, 4});
    int value = in;
    for (size_t i = 0; i < kinds.size(); ++i) {
      const int c = test_.AddConst<float>(kTfLiteFloat32, {1, 4}, {0.5f, -1.0f, 2.0f, 0.25f});
      const int out = i + 1 == kinds.size() ? test_.AddOutput(kTfLiteFloat32, {1, 4})
                                            : test_.AddIntermediate(kTfLiteFloat32, {1, 4});
      if (kinds[i] == 'A') {
        test_.AddOp(kTfLiteBuiltinAdd, {value, c}, {out}, fb::BuiltinOptions::AddOptions,
                    fb::CreateAddOptions(test_.fbb()).Union());
      } else {
        test_.AddOp(kTfLiteBuiltinMul, {value, c}, {out}, fb::BuiltinOptions::MulOptions,
                    fb::CreateMulOptions(test_.fbb()).Union());
      }
      value = out;
    }
    ASSERT_TRUE(test_.Build().ok());
  }

  // The execution plan in words: original nodes by index, delegate kernels as "D(i,j,...)".
  std::string Plan() {
    Subgraph* g = test_.interpreter()->primary();
    std::string text;
    for (int n : g->execution_plan()) {
      if (!text.empty()) text += " ";
      const TfLiteNode& node = g->node(n);
      if (node.delegate == nullptr) {
        text += std::to_string(n);
        continue;
      }
      const auto* params = static_cast<const TfLiteDelegateParams*>(node.builtin_data);
      text += "D(";
      for (int i = 0; i < params->nodes_to_replace->size; ++i) {
        text += (i ? "," : "") + std::to_string(params->nodes_to_replace->data[i]);
      }
      text += ")";
    }
    return text;
  }

  // Applies a TestAdd delegate; returns the status and the log line it printed.
  Status Apply(const TestConfig& config, std::string* log = nullptr) {
    delegate_ = TfLiteDelegateFactory::Create(std::make_unique<AddDelegate>(config));
    ::testing::internal::CaptureStderr();
    Status status = test_.interpreter()->ModifyGraphWithDelegate(delegate_.get());
    const std::string err = ::testing::internal::GetCapturedStderr();
    if (log != nullptr) {
      const size_t at = err.find("TestAdd delegate:");
      *log = at == std::string::npos ? "" : err.substr(at, err.find('\n', at) - at);
    }
    return status;
  }

  std::vector<float> Run() {
    EXPECT_TRUE(test_.AllocateTensors().ok());
    test_.SetInput<float>(0, {1.0f, 2.0f, 3.0f, 4.0f});
    Status s = test_.Invoke();
    EXPECT_TRUE(s.ok()) << s.message();
    return test_.GetOutput<float>(0);
  }

  testing::OpTest test_;
  tflite::TfLiteDelegateUniquePtr delegate_{nullptr, TfLiteDelegateFactory::DeleteSimpleDelegate};
};

// Partitions of "AAAMAMAA": {0,1,2} (3 nodes), {4} (1), {6,7} (2).
constexpr char kThreePartitions[] = "AAAMAMAA";

TEST_F(ChainTest, NoLimitsDelegatesEveryPartition) {
  BuildChain(kThreePartitions);
  const std::vector<float> cpu = Run();
  std::string log;
  ASSERT_TRUE(Apply(TestConfig(), &log).ok());
  EXPECT_EQ(Plan(), "D(0,1,2) 3 D(4) 5 D(6,7)");
  EXPECT_EQ(log, "TestAdd delegate: 6 nodes delegated out of 8 nodes with 3 partitions.");
  EXPECT_EQ(test_.interpreter()->primary()->delegated_node_count(), 3);
  EXPECT_FALSE(test_.interpreter()->primary()->fully_delegated());
  EXPECT_EQ(Run(), cpu);
}

TEST_F(ChainTest, MaxDelegatedPartitionsKeepsTheLargest) {
  BuildChain(kThreePartitions);
  const std::vector<float> cpu = Run();
  TestConfig config;
  config.options.max_delegated_partitions = 1;
  std::string log;
  ASSERT_TRUE(Apply(config, &log).ok());
  EXPECT_EQ(Plan(), "D(0,1,2) 3 4 5 6 7");
  EXPECT_EQ(log, "TestAdd delegate: 3 nodes delegated out of 8 nodes with 1 partitions.");
  EXPECT_EQ(Run(), cpu);
}

TEST_F(ChainTest, MaxDelegatedPartitionsTwo) {
  BuildChain(kThreePartitions);
  TestConfig config;
  config.options.max_delegated_partitions = 2;
  ASSERT_TRUE(Apply(config).ok());
  EXPECT_EQ(Plan(), "D(0,1,2) 3 4 5 D(6,7)");
}

TEST_F(ChainTest, MinNodesPerPartitionDropsSmallOnes) {
  BuildChain(kThreePartitions);
  const std::vector<float> cpu = Run();
  TestConfig config;
  config.options.min_nodes_per_partition = 2;
  std::string log;
  ASSERT_TRUE(Apply(config, &log).ok());
  EXPECT_EQ(Plan(), "D(0,1,2) 3 4 5 D(6,7)");
  EXPECT_EQ(log, "TestAdd delegate: 5 nodes delegated out of 8 nodes with 2 partitions.");
  EXPECT_EQ(Run(), cpu);
}

TEST_F(ChainTest, MinNodesAboveEveryPartitionDelegatesNothing) {
  BuildChain(kThreePartitions);
  TestConfig config;
  config.options.min_nodes_per_partition = 4;
  std::string log;
  ASSERT_TRUE(Apply(config, &log).ok());
  EXPECT_EQ(Plan(), "0 1 2 3 4 5 6 7");
  EXPECT_EQ(log, "TestAdd delegate: 0 nodes delegated out of 8 nodes with 0 partitions.");
  EXPECT_EQ(test_.interpreter()->primary()->delegated_node_count(), 0);
}

TEST_F(ChainTest, BothLimitsTogether) {
  BuildChain(kThreePartitions);
  TestConfig config;
  config.options.max_delegated_partitions = 3;
  config.options.min_nodes_per_partition = 3;
  ASSERT_TRUE(Apply(config).ok());
  EXPECT_EQ(Plan(), "D(0,1,2) 3 4 5 6 7");
}

TEST_F(ChainTest, EqualSizesKeepPlanOrder) {
  // {0,1} and {3,4}: two partitions of 2; the first one wins a limit of 1.
  BuildChain("AAMAA");
  TestConfig config;
  config.options.max_delegated_partitions = 1;
  ASSERT_TRUE(Apply(config).ok());
  EXPECT_EQ(Plan(), "D(0,1) 2 3 4");
}

TEST_F(ChainTest, WholeGraphIsFullDelegation) {
  BuildChain("AAA");
  const std::vector<float> cpu = Run();
  ASSERT_TRUE(Apply(TestConfig()).ok());
  EXPECT_EQ(Plan(), "D(0,1,2)");
  EXPECT_TRUE(test_.interpreter()->primary()->fully_delegated());
  EXPECT_EQ(Run(), cpu);
}

TEST_F(ChainTest, InitializeFailureLeavesTheGraphAlone) {
  BuildChain(kThreePartitions);
  TestConfig config;
  config.fail_initialize = true;
  Status s = Apply(config);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(Plan(), "0 1 2 3 4 5 6 7");
}

TEST_F(ChainTest, KernelInitFailureUndoesTheDelegation) {
  // TFLite finds out when it allocates right after applying the delegate, and undoes it; here the
  // delegate's Prepare fails at once, with the same outcome.
  BuildChain("AAMA");
  TestConfig config;
  config.fail_init = true;
  Status s = Apply(config);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("TestAdd delegate: the kernel of node 4 failed to initialize"), std::string::npos)
      << s.message();
  EXPECT_EQ(Plan(), "0 1 2 3");
  EXPECT_EQ(Run().size(), 4u);
}

TEST_F(ChainTest, KernelPrepareAndEvalFailuresNameTheKernel) {
  BuildChain("AAA");
  TestConfig config;
  config.fail_prepare = true;
  // The runtime prepares delegate kernels while applying the delegate; a failure restores the CPU graph.
  Status s = Apply(config);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("TestAdd"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("test kernel refuses to prepare"), std::string::npos) << s.message();
  EXPECT_EQ(Plan(), "0 1 2");
  EXPECT_TRUE(test_.AllocateTensors().ok());
}

TEST_F(ChainTest, EvalFailureFailsInvoke) {
  BuildChain("AAMA");
  TestConfig config;
  config.fail_eval = true;
  ASSERT_TRUE(Apply(config).ok());
  ASSERT_TRUE(test_.AllocateTensors().ok());
  Status s = test_.Invoke();
  EXPECT_EQ(s.code(), StatusCode::kExecution);
  EXPECT_NE(s.message().find("op 4 (TestAdd)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("test kernel refuses to run"), std::string::npos) << s.message();
}

TEST(SimpleDelegateFactoryTest, FlagsAndBufferHandleDefaults) {
  EXPECT_EQ(TfLiteDelegateFactory::CreateSimpleDelegate(nullptr), nullptr);
  TfLiteDelegateFactory::DeleteSimpleDelegate(nullptr);
  TfLiteDelegate* d = TfLiteDelegateFactory::CreateSimpleDelegate(std::make_unique<AddDelegate>(TestConfig()),
                                                                  kTfLiteDelegateFlagsAllowDynamicTensors);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->flags, kTfLiteDelegateFlagsAllowDynamicTensors);
  ASSERT_NE(d->Prepare, nullptr);
  TfLiteTensor tensor{};
  // TFLite's defaults: copies fail, freeing the handle is a no-op.
  EXPECT_EQ(d->CopyFromBufferHandle(nullptr, d, 0, &tensor), kTfLiteError);
  EXPECT_EQ(d->CopyToBufferHandle(nullptr, d, 0, &tensor), kTfLiteError);
  TfLiteBufferHandle handle = 3;
  d->FreeBufferHandle(nullptr, d, &handle);
  EXPECT_EQ(handle, 3);
  TfLiteDelegateFactory::DeleteSimpleDelegate(d);
}

TEST(DelegateHelpersTest, IntArraysAndOpNames) {
  tflite::TfLiteIntArrayUniquePtr a = tflite::BuildTfLiteIntArray({4, 5, 6});
  std::vector<int> seen;
  for (int v : tflite::TfLiteIntArrayView(a.get())) seen.push_back(v);
  EXPECT_EQ(seen, (std::vector<int>{4, 5, 6}));
  TfLiteRegistration r{};
  r.builtin_code = kTfLiteBuiltinConv2d;
  EXPECT_EQ(tflite::GetOpNameByRegistration(r), "CONV_2D");
  r.builtin_code = kTfLiteBuiltinDelegate;
  r.custom_name = "TestAdd";
  EXPECT_EQ(tflite::GetOpNameByRegistration(r), "DELEGATE TestAdd");
}

}  // namespace
}  // namespace touchstone
