// The optimized PAD, PADV2, TRANSPOSE and CONCATENATION kernels against the reference on every
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

// ---- PAD and PADV2

void CheckPad(TfLiteType type, const std::vector<int>& shape, const std::vector<int32_t>& pads, bool v2 = false,
              uint32_t seed = 1) {
  OpCase op;
  const size_t elem = type == kTfLiteFloat32 ? 4 : 1;
  std::vector<uint8_t> bytes = RandomInts<uint8_t>(Count(shape) * elem, seed, 0, 255);
  if (type == kTfLiteFloat32) bytes = Bytes(RandomFloats(Count(shape), seed));
  const int input = op.AddInputBytes(type, shape, bytes);
  if (type != kTfLiteFloat32) op.test().builder().SetQuantization(input, {0.1f}, {7});
  const int paddings = op.test().AddConst<int32_t>(kTfLiteInt32, {static_cast<int>(shape.size()), 2}, pads);
  std::vector<int> inputs = {input, paddings};
  if (v2) {
    inputs.push_back(type == kTfLiteFloat32 ? op.test().AddConst<float>(type, {1}, {2.5f})
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
  // Channels only (face_detection_short_range's 24 -> 28): short runs of inline moves, of every
  // length around the 16-byte move and the 256-byte switch to memcpy, and a 4-byte pad value.
  CheckPad(kTfLiteFloat32, {1, 16, 16, 24}, {0, 0, 0, 0, 0, 0, 0, 4});
  CheckPad(kTfLiteFloat32, {1, 3, 5, 3}, {0, 0, 0, 0, 0, 0, 2, 1}, true);
  for (int channels : {1, 3, 15, 16, 17, 31, 33, 63, 64, 65, 255, 256, 257}) {
    CheckPad(kTfLiteInt8, {1, 2, 3, channels}, {0, 0, 0, 0, 0, 0, channels % 5, channels % 19});
    CheckPad(kTfLiteUInt8, {1, 2, 3, channels}, {0, 0, 0, 1, 1, 0, 17, 3}, true);
  }
}

// ---- TRANSPOSE

void CheckTranspose(TfLiteType type, const std::vector<int>& shape, const std::vector<int>& perm,
                    TfLiteType perm_type = kTfLiteInt32, uint32_t seed = 3) {
  OpCase op;
  const int input =
      op.AddInputBytes(type, shape, RandomInts<uint8_t>(Count(shape) * optimized::ElementBytes(type), seed, 0, 255));
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
  // Dimensions that merge (the input steps across them alike) and size-1 dimensions between them:
  // torchaudio_conformer's channels-last moves and head splits.
  CheckTranspose(kTfLiteFloat32, {10, 80, 33, 1}, {0, 2, 3, 1});
  CheckTranspose(kTfLiteFloat32, {1, 35, 10, 3, 8}, {3, 1, 2, 0, 4});
  CheckTranspose(kTfLiteFloat32, {10, 4, 35, 20}, {2, 0, 1, 3});
  CheckTranspose(kTfLiteInt8, {4, 6, 5, 3}, {2, 3, 0, 1});
  CheckTranspose(kTfLiteInt16, {2, 1, 3, 1, 4}, {0, 3, 2, 1, 4});
}

// ---- CONCATENATION

struct ConcatInput {
  std::vector<int> shape;
  float scale = 0.1f;  // 8-bit types only
  int zero_point = 7;
};

void CheckConcat(TfLiteType type, const std::vector<ConcatInput>& inputs, int axis, Act activation = Act::NONE,
                 uint32_t seed = 5) {
  OpCase op;
  const bool quantized = type == kTfLiteInt8 || type == kTfLiteUInt8;
  std::vector<int> tensors;
  for (const ConcatInput& in : inputs) {
    const size_t bytes = Count(in.shape) * optimized::ElementBytes(type);
    const int t = type == kTfLiteFloat32 ? op.AddFloatInput(in.shape, seed++, -4.f, 4.f)
                                         : op.AddInputBytes(type, in.shape, RandomInts<uint8_t>(bytes, seed++, 0, 255));
    if (quantized) op.test().builder().SetQuantization(t, {in.scale}, {in.zero_point});
    tensors.push_back(t);
  }
  const int output = op.test().AddOutput(type);
  if (quantized) op.test().builder().SetQuantization(output, {0.1f}, {7});
  op.test().AddOp(kTfLiteBuiltinConcatenation, tensors, {output}, fb::BuiltinOptions::ConcatenationOptions,
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

}  // namespace
}  // namespace touchstone
