// The optimized float FULLY_CONNECTED and BATCH_MATMUL kernels against the reference on every
// microkernel set and 1 and 4 threads (OpCase, optimized_ops_test_util.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
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
#include "runtime/kernels/optimized/optimized_ops_test_util.h"
#include "runtime/kernels/optimized/q16_kernels.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/op_resolver.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using namespace optimized_test;  // NOLINT(build/namespaces): optimized_ops_test_util.h's helpers

// ---- FULLY_CONNECTED

void CheckFullyConnected(const FullyConnected& f, uint32_t seed = 1, bool exact = false) {
  OpCase op;
  const int input = op.AddFloatInput(f.input, seed);
  const int weights = f.weights_are_input ? op.AddFloatInput({f.units, f.depth}, seed + 1)
                                          : op.AddFloatConst({f.units, f.depth}, seed + 1);
  std::vector<int> inputs = {input, weights};
  if (f.bias) inputs.push_back(op.AddFloatConst({f.units}, seed + 2));
  const int output = op.AddFloatOutput();
  AddFullyConnectedOp(op, f, inputs, output);
  op.RequireOptimizedPath();
  op.Check(optimized::Register_FULLY_CONNECTED(), exact);
}

// Up to 512 multiply-adds the kernel runs the reference's loops: bit-exact.
TEST(OptimizedFullyConnectedTest, TinyLayersAreExact) {
  CheckFullyConnected({{1, 16}, 16, 16, true, false, Act::RELU}, 1, /*exact=*/true);
  CheckFullyConnected({{1, 1}, 16, 1}, 2, /*exact=*/true);
  CheckFullyConnected({{2, 16}, 16, 16, false}, 3, /*exact=*/true);
  CheckFullyConnected({{4, 2, 8}, 5, 16, true, false, Act::RELU6}, 4, /*exact=*/true);
  CheckFullyConnected({{3, 7}, 19, 7, true, false, Act::RELU_N1_TO_1}, 5, /*exact=*/true);  // a block's tail
  FullyConnected from_input{{2, 6}, 9, 6};  // weights read at every Invoke
  from_input.weights_are_input = true;
  CheckFullyConnected(from_input, 6, /*exact=*/true);
}

TEST(OptimizedFullyConnectedTest, SizeOne) { CheckFullyConnected({{1, 1}, 1, 1}); }
TEST(OptimizedFullyConnectedTest, OddSizesRelu) { CheckFullyConnected({{1, 37}, 29, 37, true, false, Act::RELU}); }
TEST(OptimizedFullyConnectedTest, NoBias) { CheckFullyConnected({{3, 20}, 9, 20, false}); }
TEST(OptimizedFullyConnectedTest, FlattensTheInput) { CheckFullyConnected({{4, 2, 8}, 5, 16}); }
TEST(OptimizedFullyConnectedTest, KeepNumDims) { CheckFullyConnected({{2, 3, 16}, 10, 16, true, true, Act::RELU6}); }
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
  op.test().AddOp(kTfLiteBuiltinFullyConnected, {input, weights}, {output}, fb::BuiltinOptions::FullyConnectedOptions,
                  fb::CreateFullyConnectedOptions(op.test().fbb()).Union());
  op.Check(optimized::Register_FULLY_CONNECTED(), /*exact=*/true);
}

// ---- BATCH_MATMUL

void CheckBatchMatMul(const std::vector<int>& lhs, const std::vector<int>& rhs, bool adj_x, bool adj_y,
                      bool rhs_constant = false, uint32_t seed = 1) {
  OpCase op;
  const int a = op.AddFloatInput(lhs, seed);
  const int b = rhs_constant ? op.AddFloatConst(rhs, seed + 1) : op.AddFloatInput(rhs, seed + 1);
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinBatchMatmul, {a, b}, {output}, fb::BuiltinOptions::BatchMatMulOptions,
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
TEST(OptimizedBatchMatMulTest, LargeCrossesThreadChunks) { CheckBatchMatMul({4, 64, 96}, {4, 96, 80}, false, false); }

// ---- An attention block computed by its second BATCH_MATMUL

// softmax(Q K [+ mask]) V: BATCH_MATMUL, [RESHAPE to heads], [ADD mask], SOFTMAX, [RESHAPE back],
// BATCH_MATMUL.
struct Attention {
  int heads_outer, heads_inner;  // the batch matrices, as the RESHAPEs split them
  int rows, depth, keys, cols;   // Q [rows, depth], K [depth, keys], V [keys, cols]
  bool reshape = true;
  bool mask = true;
  bool keys_adjoint_constant = false;  // K given as constant [keys, depth] (adj_y)
  bool scores_are_output = false;      // a second reader of the scores: no fusion then
};

// Runs the block against the reference, checks whether it was fused, and that the fused output is
// bit for bit the nodes' apart (run with every tensor kept: no fusion).
void CheckAttention(const Attention& c, bool fused, uint32_t seed) {
  const int matrices = c.heads_outer * c.heads_inner;
  FusedAgainstApart outputs;
  for (const bool preserve : {false, true}) {
    OpCase op;
    const int q = op.AddFloatInput({matrices, c.rows, c.depth}, seed, -2.f, 2.f);
    const int k = c.keys_adjoint_constant ? op.AddFloatConst({matrices, c.keys, c.depth}, seed + 1, -2.f, 2.f)
                                          : op.AddFloatInput({matrices, c.depth, c.keys}, seed + 1, -2.f, 2.f);
    const int v = op.AddFloatInput({matrices, c.keys, c.cols}, seed + 2);
    const int scores = c.scores_are_output ? op.AddFloatOutput() : op.test().AddIntermediate(kTfLiteFloat32);
    op.test().AddOp(kTfLiteBuiltinBatchMatmul, {q, k}, {scores}, fb::BuiltinOptions::BatchMatMulOptions,
                    fb::CreateBatchMatMulOptions(op.test().fbb(), false, c.keys_adjoint_constant).Union());
    int logits = scores;
    if (c.reshape) {
      const int shape = op.test().AddConst<int32_t>(kTfLiteInt32, {4}, {c.heads_outer, c.heads_inner, c.rows, c.keys});
      logits = op.test().AddIntermediate(kTfLiteFloat32);
      op.test().AddOp(kTfLiteBuiltinReshape, {scores, shape}, {logits});
    }
    if (c.mask) {
      const std::vector<int> mask_shape =
          c.reshape ? std::vector<int>{c.heads_outer, 1, 1, c.keys} : std::vector<int>{matrices, 1, c.keys};
      const int mask = op.AddFloatConst(mask_shape, seed + 3, -6.f, 0.f);
      const int masked = op.test().AddIntermediate(kTfLiteFloat32);
      op.test().AddOp(kTfLiteBuiltinAdd, {logits, mask}, {masked}, fb::BuiltinOptions::AddOptions,
                      fb::CreateAddOptions(op.test().fbb()).Union());
      logits = masked;
    }
    int probabilities = op.test().AddIntermediate(kTfLiteFloat32);
    op.test().AddOp(kTfLiteBuiltinSoftmax, {logits}, {probabilities}, fb::BuiltinOptions::SoftmaxOptions,
                    fb::CreateSoftmaxOptions(op.test().fbb(), 0.5f).Union());
    if (c.reshape) {
      const int shape = op.test().AddConst<int32_t>(kTfLiteInt32, {3}, {matrices, c.rows, c.keys});
      const int flat = op.test().AddIntermediate(kTfLiteFloat32);
      op.test().AddOp(kTfLiteBuiltinReshape, {probabilities, shape}, {flat});
      probabilities = flat;
    }
    const int output = op.AddFloatOutput();
    op.test().AddOp(kTfLiteBuiltinBatchMatmul, {probabilities, v}, {output}, fb::BuiltinOptions::BatchMatMulOptions,
                    fb::CreateBatchMatMulOptions(op.test().fbb(), false, false).Union());
    op.set_preserve_all_tensors(preserve);
    int64_t runs_before = 0;
    op.set_inspect([&](Interpreter* interpreter, int, const std::string& label) {
      const int64_t runs = optimized::FusedAttentionRuns();
      EXPECT_EQ(runs > runs_before, fused && !preserve) << label << ", seed " << seed;
      runs_before = runs;
      outputs.Note(preserve, label, Collect(interpreter).outputs);
    });
    runs_before = optimized::FusedAttentionRuns();
    op.Check(optimized::Register_BATCH_MATMUL());
  }
}

TEST(OptimizedAttentionTest, BlocksFuse) {
  // torchaudio_conformer's block, scaled down: heads split by RESHAPEs, a mask per batch item.
  CheckAttention({2, 3, 13, 5, 37, 10}, true, 71);
  // No RESHAPEs; no mask; neither; one row; columns that fill no whole vector.
  CheckAttention({1, 4, 9, 8, 16, 20, false}, true, 73);
  CheckAttention({2, 2, 7, 3, 11, 5, true, false}, true, 75);
  CheckAttention({1, 3, 6, 4, 9, 3, false, false}, true, 77);
  CheckAttention({1, 2, 1, 3, 5, 2}, true, 79);
  // K constant and given transposed (packed at Prepare).
  CheckAttention({2, 2, 10, 6, 12, 7, true, true, true}, true, 81);
  // Rows across thread chunks.
  CheckAttention({2, 2, 70, 16, 64, 24}, true, 83);
}
TEST(OptimizedAttentionTest, ScoresReadElsewhereStayApart) {
  CheckAttention({2, 3, 13, 5, 37, 10, true, true, false, true}, false, 85);
}

}  // namespace
}  // namespace touchstone
