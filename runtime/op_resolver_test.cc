// The op resolver's kernel sets: KernelSet::kOptimized serves the optimized kernels
// (runtime/kernels/optimized) where there is one, and the reference kernel everywhere else.
#include "runtime/op_resolver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/kernels/optimized/optimized_ops.h"

namespace touchstone {
namespace {

TEST(OpResolverTest, KernelSetOptimizedServesTheOptimizedKernels) {
  BuiltinOpResolver optimized_set(KernelSet::kOptimized);
  BuiltinOpResolver reference_set(KernelSet::kReference);
  const std::pair<int, TfLiteRegistration*> ops[] = {
      {kTfLiteBuiltinConv2d, optimized::Register_CONV_2D()},
      {kTfLiteBuiltinDepthwiseConv2d, optimized::Register_DEPTHWISE_CONV_2D()},
      {kTfLiteBuiltinFullyConnected, optimized::Register_FULLY_CONNECTED()},
      {kTfLiteBuiltinBatchMatmul, optimized::Register_BATCH_MATMUL()},
      {kTfLiteBuiltinAdd, optimized::Register_ADD()},
      {kTfLiteBuiltinMul, optimized::Register_MUL()},
      {kTfLiteBuiltinAveragePool2d, optimized::Register_AVERAGE_POOL_2D()},
      {kTfLiteBuiltinMaxPool2d, optimized::Register_MAX_POOL_2D()},
      {kTfLiteBuiltinSoftmax, optimized::Register_SOFTMAX()},
      {kTfLiteBuiltinResizeBilinear, optimized::Register_RESIZE_BILINEAR()},
  };
  for (const auto& op : ops) {
    ASSERT_NE(optimized_set.FindOp(op.first, 1), nullptr);
    EXPECT_EQ(optimized_set.FindOp(op.first, 1)->invoke, op.second->invoke) << op.first;
    EXPECT_NE(reference_set.FindOp(op.first, 1)->invoke, op.second->invoke) << op.first;
  }
  // Everything else is the reference kernel in both sets.
  EXPECT_EQ(optimized_set.FindOp(kTfLiteBuiltinSub, 1)->invoke, reference_set.FindOp(kTfLiteBuiltinSub, 1)->invoke);
}

// OptimizedBuiltins lists exactly the ops whose kernel differs between the two sets (the XNNPACK
// provider's --xnnpack_fp32=auto leaves these to the optimized kernels).
TEST(OpResolverTest, OptimizedBuiltinsAreTheOpsWithTheirOwnOptimizedKernel) {
  BuiltinOpResolver optimized_set(KernelSet::kOptimized);
  BuiltinOpResolver reference_set(KernelSet::kReference);
  const std::vector<int> listed = BuiltinOpResolver::OptimizedBuiltins();
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  std::vector<int> differing;
  for (int code : BuiltinOpResolver::SupportedBuiltins()) {
    const int version = BuiltinOpResolver::RegisteredVersions(code).second;
    const TfLiteRegistration* a = optimized_set.FindOp(code, version);
    const TfLiteRegistration* b = reference_set.FindOp(code, version);
    ASSERT_TRUE(a != nullptr && b != nullptr) << code;
    if (a->invoke != b->invoke) differing.push_back(code);
  }
  EXPECT_EQ(listed, differing);
  EXPECT_TRUE(std::count(listed.begin(), listed.end(), kTfLiteBuiltinConv2d) == 1);
  EXPECT_TRUE(std::count(listed.begin(), listed.end(), kTfLiteBuiltinSub) == 0);
}

// A builtin resolves at the versions TFLite 2.14.1 registers and no other: BROADCAST_TO from 2 (its
// version 1 was withdrawn), CONV_2D up to 7, ADD up to 5.
TEST(OpResolverTest, ResolvesOnlyTheVersionsTfliteRegisters) {
  BuiltinOpResolver resolver(KernelSet::kReference);
  EXPECT_EQ(resolver.FindOp(kTfLiteBuiltinBroadcastTo, 1), nullptr);
  EXPECT_NE(resolver.FindOp(kTfLiteBuiltinBroadcastTo, 3), nullptr);
  EXPECT_EQ(resolver.FindOp(kTfLiteBuiltinBroadcastTo, 4), nullptr);
  EXPECT_NE(resolver.FindOp(kTfLiteBuiltinConv2d, 7), nullptr);
  EXPECT_EQ(resolver.FindOp(kTfLiteBuiltinConv2d, 8), nullptr);
  EXPECT_EQ(resolver.FindOp(kTfLiteBuiltinAdd, 6), nullptr);
  EXPECT_EQ(BuiltinOpResolver::RegisteredVersions(kTfLiteBuiltinAdd), std::make_pair(1, 5));
  EXPECT_EQ(BuiltinOpResolver::RegisteredVersions(kTfLiteBuiltinCustom), std::make_pair(0, 0));
  for (int code : BuiltinOpResolver::SupportedBuiltins()) {
    const std::pair<int, int> versions = BuiltinOpResolver::RegisteredVersions(code);
    EXPECT_LE(1, versions.first) << code;
    EXPECT_LE(versions.first, versions.second) << code;
  }
}

}  // namespace
}  // namespace touchstone
