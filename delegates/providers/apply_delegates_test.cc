// Applying delegates in order: success lines, CPU fallback on a failing delegate (the graph as if it
// had never been tried), --require_full_delegation.
#include "delegates/providers/apply_delegates.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "delegates/sample/sample_delegate.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

// in -> ADD(c) -> MUL(c) -> SUB(c) -> out: the sample delegate takes ADD and SUB (two partitions).
// With all_supported, MUL is an ADD too and the whole graph is one partition.
std::shared_ptr<const Model> MakeModel(bool all_supported) {
  ModelBuilder b;
  const int in = b.AddTensor(kTfLiteFloat32, {1, 3}, "in");
  const int c = b.AddConstTensor<float>(kTfLiteFloat32, {1, 3}, {0.5f, -2.0f, 3.0f}, "c");
  const int t0 = b.AddTensor(kTfLiteFloat32, {1, 3}, "t0");
  const int t1 = b.AddTensor(kTfLiteFloat32, {1, 3}, "t1");
  const int out = b.AddTensor(kTfLiteFloat32, {1, 3}, "out");
  b.AddOperator(kTfLiteBuiltinAdd, {in, c}, {t0}, fb::BuiltinOptions::AddOptions,
                fb::CreateAddOptions(b.fbb()).Union());
  if (all_supported) {
    b.AddOperator(kTfLiteBuiltinAdd, {t0, c}, {t1}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(b.fbb()).Union());
  } else {
    b.AddOperator(kTfLiteBuiltinMul, {t0, c}, {t1}, fb::BuiltinOptions::MulOptions,
                  fb::CreateMulOptions(b.fbb()).Union());
  }
  b.AddOperator(kTfLiteBuiltinSub, {t1, c}, {out}, fb::BuiltinOptions::SubOptions,
                fb::CreateSubOptions(b.fbb()).Union());
  b.SetInputs({in});
  b.SetOutputs({out});
  StatusOr<std::shared_ptr<const Model>> model = Model::FromBuffer(b.Finish(), "test_model");
  EXPECT_TRUE(model.ok());
  return model.value();
}

ProvidedDelegate Sample(const std::string& name, const SampleDelegateOptions& options) {
  ProvidedDelegate d;
  d.provider = name;
  d.delegate = TfLiteDelegatePtr(TfLiteSampleDelegateCreate(&options), TfLiteSampleDelegateDelete);
  return d;
}

class ApplyTest : public ::testing::Test {
 protected:
  void SetUp() override { model_ = MakeModel(false); }

  InterpreterFactory Factory() {
    return [this]() -> StatusOr<std::unique_ptr<Interpreter>> {
      ++made_;
      return Interpreter::Create(model_, InterpreterOptions());
    };
  }
  StatusOr<std::unique_ptr<Interpreter>> Build(bool require_full = false) {
    ApplyDelegatesOptions options;
    options.require_full_delegation = require_full;
    ::testing::internal::CaptureStderr();
    auto result = BuildInterpreterWithDelegates(Factory(), delegates_, options, &outcomes_);
    log_ = ::testing::internal::GetCapturedStderr();
    return result;
  }
  static std::vector<float> Run(Interpreter* interpreter) {
    const float in[] = {1.0f, 2.0f, -3.0f};
    std::memcpy(interpreter->input_tensor(0)->data.raw, in, sizeof(in));
    Status s = interpreter->Invoke();
    EXPECT_TRUE(s.ok()) << s.message();
    const float* out = reinterpret_cast<const float*>(interpreter->output_tensor(0)->data.raw);
    return std::vector<float>(out, out + 3);
  }
  std::vector<float> CpuResult() {
    auto cpu = Interpreter::Create(model_, InterpreterOptions());
    EXPECT_TRUE(cpu.value()->AllocateTensors().ok());
    return Run(cpu.value().get());
  }

  std::shared_ptr<const Model> model_;
  std::vector<ProvidedDelegate> delegates_;  // outlive the interpreters made in the tests
  std::vector<DelegateOutcome> outcomes_;
  std::string log_;
  int made_ = 0;
};

TEST_F(ApplyTest, NoDelegates) {
  auto interpreter = Build();
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  EXPECT_TRUE(outcomes_.empty());
  EXPECT_TRUE(interpreter.value()->primary()->tensors_allocated());
  EXPECT_EQ(Run(interpreter.value().get()), CpuResult());
}

TEST_F(ApplyTest, NoDelegateIsNotAFullDelegation) {
  auto interpreter = Build(/*require_full=*/true);
  ASSERT_FALSE(interpreter.ok());
  EXPECT_EQ(interpreter.status().code(), StatusCode::kExecution);
  EXPECT_NE(interpreter.status().message().find("no delegate"), std::string::npos);
}

TEST_F(ApplyTest, PartialDelegation) {
  delegates_.push_back(Sample("SAMPLE", SampleDelegateOptions()));
  auto interpreter = Build();
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  ASSERT_EQ(outcomes_.size(), 1u);
  EXPECT_TRUE(outcomes_[0].applied);
  EXPECT_EQ(outcomes_[0].delegate_kernels, 2);
  EXPECT_FALSE(outcomes_[0].fully_delegated);
  EXPECT_EQ(DescribeOutcome(outcomes_[0]),
            "Explicitly applied SAMPLE delegate, and the model graph will be partially executed by the "
            "delegate w/ 2 delegate kernels.");
  EXPECT_EQ(Run(interpreter.value().get()), CpuResult());
}

TEST_F(ApplyTest, FullDelegation) {
  model_ = MakeModel(true);
  delegates_.push_back(Sample("SAMPLE", SampleDelegateOptions()));
  auto interpreter = Build(/*require_full=*/true);
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  EXPECT_TRUE(outcomes_[0].fully_delegated);
  EXPECT_EQ(DescribeOutcome(outcomes_[0]),
            "Explicitly applied SAMPLE delegate, and the model graph will be completely executed by the delegate.");
  EXPECT_EQ(Run(interpreter.value().get()), CpuResult());
}

TEST_F(ApplyTest, PartialDelegationFailsWhenFullIsRequired) {
  delegates_.push_back(Sample("SAMPLE", SampleDelegateOptions()));
  auto interpreter = Build(/*require_full=*/true);
  ASSERT_FALSE(interpreter.ok());
  EXPECT_EQ(interpreter.status().code(), StatusCode::kExecution);
  EXPECT_NE(interpreter.status().message().find("Disallowed CPU fallback detected"), std::string::npos);
  EXPECT_NE(interpreter.status().message().find("SAMPLE"), std::string::npos);
}

TEST_F(ApplyTest, FailingDelegatesFallBackToTheCpu) {
  for (const std::string stage : {"init", "prepare"}) {
    SCOPED_TRACE(stage);
    delegates_.clear();
    SampleDelegateOptions options;
    options.error_during_init = stage == "init";
    options.error_during_prepare = stage == "prepare";
    delegates_.push_back(Sample("SAMPLE", options));
    made_ = 0;
    auto interpreter = Build();
    ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
    ASSERT_EQ(outcomes_.size(), 1u);
    EXPECT_FALSE(outcomes_[0].applied);
    EXPECT_NE(outcomes_[0].error.find("error_during_" + stage + "=true"), std::string::npos) << outcomes_[0].error;
    EXPECT_EQ(outcomes_[0].error.find('\n'), std::string::npos);
    EXPECT_EQ(DescribeOutcome(outcomes_[0]).rfind("Failed to apply SAMPLE delegate", 0), 0u);
    EXPECT_EQ(made_, 2);  // rebuilt without it
    EXPECT_EQ(interpreter.value()->primary()->delegated_node_count(), 0);
    EXPECT_EQ(Run(interpreter.value().get()), CpuResult());
  }
}

TEST_F(ApplyTest, FailureIsAnErrorWhenFullIsRequired) {
  SampleDelegateOptions options;
  options.error_during_prepare = true;
  model_ = MakeModel(true);
  delegates_.push_back(Sample("SAMPLE", options));
  auto interpreter = Build(/*require_full=*/true);
  ASSERT_FALSE(interpreter.ok());
  EXPECT_EQ(interpreter.status().code(), StatusCode::kExecution);
  EXPECT_NE(interpreter.status().message().find("the SAMPLE delegate failed"), std::string::npos)
      << interpreter.status().message();
}

TEST_F(ApplyTest, AcceptedDelegatesSurviveALaterFailure) {
  SampleDelegateOptions first;
  first.max_delegated_partitions = 1;  // takes the ADD only
  SampleDelegateOptions broken;
  broken.error_during_prepare = true;
  delegates_.push_back(Sample("FIRST", first));
  delegates_.push_back(Sample("BROKEN", broken));
  delegates_.push_back(Sample("THIRD", SampleDelegateOptions()));
  auto interpreter = Build();
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  ASSERT_EQ(outcomes_.size(), 3u);
  EXPECT_TRUE(outcomes_[0].applied);
  EXPECT_EQ(outcomes_[0].delegate_kernels, 1);
  EXPECT_FALSE(outcomes_[1].applied);
  EXPECT_TRUE(outcomes_[2].applied);
  EXPECT_EQ(outcomes_[2].delegate_kernels, 1);  // the SUB the first left
  Subgraph* g = interpreter.value()->primary();
  ASSERT_EQ(g->execution_plan().size(), 3u);
  EXPECT_EQ(g->node(g->execution_plan()[0]).delegate, delegates_[0].delegate.get());
  EXPECT_EQ(g->node(g->execution_plan()[1]).delegate, nullptr);
  EXPECT_EQ(g->node(g->execution_plan()[2]).delegate, delegates_[2].delegate.get());
  EXPECT_EQ(Run(interpreter.value().get()), CpuResult());
}

TEST_F(ApplyTest, ADelegateThatTakesNothing) {
  SampleDelegateOptions none;
  none.min_nodes_per_partition = 5;
  delegates_.push_back(Sample("SAMPLE", none));
  auto interpreter = Build();
  ASSERT_TRUE(interpreter.ok());
  EXPECT_TRUE(outcomes_[0].applied);
  EXPECT_EQ(DescribeOutcome(outcomes_[0]),
            "Though SAMPLE delegate is explicitly applied, the model graph will not be executed by the delegate.");
}

// A delegate written against the plain C struct (no SimpleDelegate): it claims every ADD node with a
// kernel whose prepare fails, so applying it must fall back to the CPU kernels.
TfLiteStatus RawPrepare(TfLiteContext* context, TfLiteDelegate* delegate) {
  TfLiteIntArray* plan = nullptr;
  TF_LITE_ENSURE_STATUS(context->GetExecutionPlan(context, &plan));
  std::vector<int> adds;
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* registration = nullptr;
    TF_LITE_ENSURE_STATUS(context->GetNodeAndRegistration(context, plan->data[i], &node, &registration));
    if (registration->builtin_code == kTfLiteBuiltinAdd) adds.push_back(plan->data[i]);
  }
  TfLiteRegistration kernel{};
  kernel.custom_name = "RawDelegate";
  kernel.prepare = [](TfLiteContext* ctx, TfLiteNode*) -> TfLiteStatus {
    TF_LITE_KERNEL_LOG(ctx, "raw kernel cannot prepare");
    return kTfLiteError;
  };
  kernel.invoke = [](TfLiteContext*, TfLiteNode*) { return kTfLiteError; };
  TfLiteIntArray* nodes = TfLiteIntArrayCreate(static_cast<int>(adds.size()));
  for (size_t i = 0; i < adds.size(); ++i) nodes->data[i] = adds[i];
  const TfLiteStatus status = context->ReplaceNodeSubsetsWithDelegateKernels(context, kernel, nodes, delegate);
  TfLiteIntArrayFree(nodes);
  return status;
}

TEST_F(ApplyTest, PlainCDelegateFailingInPrepareFallsBack) {
  ProvidedDelegate raw;
  raw.provider = "RAW";
  raw.delegate = TfLiteDelegatePtr(new TfLiteDelegate(TfLiteDelegateCreate()), [](TfLiteDelegate* d) { delete d; });
  raw.delegate->Prepare = RawPrepare;
  delegates_.push_back(std::move(raw));
  delegates_.push_back(Sample("SAMPLE", SampleDelegateOptions()));
  auto interpreter = Build();
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  ASSERT_EQ(outcomes_.size(), 2u);
  EXPECT_FALSE(outcomes_[0].applied);
  EXPECT_NE(outcomes_[0].error.find("op 3 (RawDelegate): prepare failed: raw kernel cannot prepare"), std::string::npos)
      << outcomes_[0].error;
  EXPECT_TRUE(outcomes_[1].applied);
  EXPECT_EQ(outcomes_[1].delegate_kernels, 2);
  EXPECT_EQ(Run(interpreter.value().get()), CpuResult());
}

}  // namespace
}  // namespace touchstone
