// The optimized AVERAGE_POOL_2D, MAX_POOL_2D, SOFTMAX and RESIZE_BILINEAR kernels against the
// reference on every microkernel set and 1 and 4 threads (OpCase, optimized_ops_test_util.h).
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

void CheckPool(int code, const Pool& p, TfLiteType type = kTfLiteFloat32, const PoolQuantization& q = {},
               uint32_t seed = 1) {
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
  op.test().AddOp(
      code, {input}, {output}, fb::BuiltinOptions::Pool2DOptions,
      fb::CreatePool2DOptions(op.test().fbb(), p.padding, p.stride_w, p.stride_h, p.filter_w, p.filter_h, p.activation)
          .Union());
  op.Check(code == kTfLiteBuiltinMaxPool2d ? optimized::Register_MAX_POOL_2D() : optimized::Register_AVERAGE_POOL_2D(),
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
  CheckPool(kTfLiteBuiltinAveragePool2d, {{1, 7, 7, 1280}, 7, 7, 1, 1, fb::Padding::VALID}, kTfLiteUInt8,
            {0.023f, 0, 0.023f, 0});
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
  CheckPool(kTfLiteBuiltinAveragePool2d, {{2, 33, 33, 40}, 33, 33, 1, 1, fb::Padding::VALID}, kTfLiteInt8);
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
    op.Check(
        code == kTfLiteBuiltinMaxPool2d ? optimized::Register_MAX_POOL_2D() : optimized::Register_AVERAGE_POOL_2D(),
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
// An 8-bit SOFTMAX on random inputs, byte for byte the reference's.
void CheckQuantSoftmaxBytes(TfLiteType in_type, TfLiteType out_type, const std::vector<int>& shape,
                            std::vector<uint8_t> bytes, float in_scale, float beta, float out_scale, int out_zp) {
  OpCase op;
  op.RequireOptimizedPath();
  const int input = op.AddInputBytes(in_type, shape, std::move(bytes));
  op.test().builder().SetQuantization(input, {in_scale}, {in_type == kTfLiteUInt8 ? 128 : 0});
  const int output = op.test().AddOutput(out_type);
  op.test().builder().SetQuantization(output, {out_scale}, {out_zp});
  op.test().AddOp(kTfLiteBuiltinSoftmax, {input}, {output}, fb::BuiltinOptions::SoftmaxOptions,
                  fb::CreateSoftmaxOptions(op.test().fbb(), beta).Union());
  op.Check(optimized::Register_SOFTMAX(), true);
}
void CheckQuantSoftmax(TfLiteType in_type, TfLiteType out_type, const std::vector<int>& shape, float in_scale,
                       float beta, float out_scale, int out_zp, uint32_t seed = 1) {
  CheckQuantSoftmaxBytes(in_type, out_type, shape, RandomQuantBytes(in_type, Count(shape), seed), in_scale, beta,
                         out_scale, out_zp);
}

TEST(OptimizedSoftmaxTest, Quantized) {
  for (TfLiteType in : {kTfLiteUInt8, kTfLiteInt8}) {
    SCOPED_TRACE(in);
    const TfLiteType same = in;
    const int same_zp = in == kTfLiteUInt8 ? 0 : -128;
    // A classifier's scores; odd, short and one-element rows.
    CheckQuantSoftmax(in, same, {1, 1001}, 0.1f, 1.f, 1.f / 256, same_zp);
    CheckQuantSoftmax(in, same, {3, 7}, 0.05f, 1.f, 1.f / 256, same_zp);
    CheckQuantSoftmax(in, same, {5, 37}, 0.02f, 2.f, 1.f / 256, same_zp);
    CheckQuantSoftmax(in, same, {1, 1}, 0.1f, 1.f, 1.f / 256, same_zp);
    // int16 outputs: tens of thousands of steps, so many fractions near one half.
    CheckQuantSoftmax(in, kTfLiteInt16, {64, 1001}, 0.03f, 1.f, 1.f / 32768, 0);
    CheckQuantSoftmax(in, kTfLiteInt16, {9, 333}, 0.2f, 0.7f, 1.f / 65536, -32768);
    // Table entries that are denormal or 0 (exp(-5 d)), a negative beta (entries above 1) and an
    // output scale that puts the probabilities past 2^30 steps: the reference's own row.
    CheckQuantSoftmax(in, kTfLiteInt16, {4, 300}, 5.f, 1.f, 1.f / 32768, 0);
    CheckQuantSoftmax(in, kTfLiteInt16, {4, 50}, 0.1f, -0.5f, 1.f / 32768, 0);
    CheckQuantSoftmax(in, kTfLiteInt16, {4, 50}, 0.1f, 1.f, 1e-12f, 0);
    // A negative output scale, which nothing refuses: negative probabilities, rounded away from zero.
    CheckQuantSoftmax(in, kTfLiteInt16, {4, 50}, 0.1f, 1.f, -1.f / 32768, 0);
    // One maximum and values one step below it, whose entry exp(-87.41) is denormal, just under
    // FLT_MIN; over an output scale just above FLT_MIN they give outputs of 1 (0 if flushed).
    std::vector<uint8_t> row(37, 0);
    for (int c = 1; c < 37; c += 2) row[c] = 126;
    row[0] = 127;
    if (in == kTfLiteUInt8) {
      for (uint8_t& v : row) v = static_cast<uint8_t>(v + 128);
    }
    CheckQuantSoftmaxBytes(in, kTfLiteInt16, {1, 37}, row, 87.41f, 1.f, 1.18e-38f, 0);
    // Rows over the threads.
    CheckQuantSoftmax(in, same, {257, 1001}, 0.1f, 1.f, 1.f / 256, same_zp);
  }
  // uint8 outputs of another scale (the x86 rounding ignores the zero point).
  CheckQuantSoftmax(kTfLiteUInt8, kTfLiteUInt8, {6, 100}, 0.1f, 1.f, 0.003f, 10);
}

// ---- A float ADD folded into the SOFTMAX reading its output (an attention mask)

struct MaskedSoftmax {
  std::vector<int> a, b;  // the ADD's input shapes (either may be the mask)
  Act activation = Act::NONE;
  bool second_reader = false;  // another SOFTMAX reads the sum too (no folding then)
  bool sum_is_output = false;  // the sum is a graph output too (no folding then)
};

// Runs ADD -> SOFTMAX against the reference, checks whether the ADD was folded away, and that the
// folded node's output is bit for bit the two nodes' apart (run with every tensor kept: no fusion).
void CheckMaskedSoftmax(const MaskedSoftmax& c, bool folded, uint32_t seed) {
  FusedAgainstApart outputs;
  for (const bool preserve : {false, true}) {
    OpCase op;
    const int a = op.AddFloatInput(c.a, seed, -4.f, 4.f);
    const int b = op.AddFloatConst(c.b, seed + 1, -8.f, 0.f);
    const int sum = c.sum_is_output ? op.AddFloatOutput() : op.test().AddIntermediate(kTfLiteFloat32);
    op.test().AddOp(kTfLiteBuiltinAdd, {a, b}, {sum}, fb::BuiltinOptions::AddOptions,
                    fb::CreateAddOptions(op.test().fbb(), c.activation).Union());
    for (int reader = 0; reader < (c.second_reader ? 2 : 1); ++reader) {
      op.test().AddOp(kTfLiteBuiltinSoftmax, {sum}, {op.AddFloatOutput()}, fb::BuiltinOptions::SoftmaxOptions,
                      fb::CreateSoftmaxOptions(op.test().fbb(), reader == 0 ? 1.f : 0.5f).Union());
    }
    op.set_preserve_all_tensors(preserve);
    op.set_inspect([&](Interpreter* interpreter, int, const std::string& label) {
      EXPECT_EQ(interpreter->primary()->tensor_fused_away(sum), folded && !preserve) << label;
      outputs.Note(preserve, label, Collect(interpreter).outputs);
    });
    op.Check(optimized::Register_ADD());
  }
}

TEST(OptimizedSoftmaxTest, MaskAddsFold) {
  // torchaudio_conformer's shape: scores [batch, heads, rows, rows] plus a mask [batch, 1, 1, rows].
  CheckMaskedSoftmax({{2, 3, 7, 37}, {2, 1, 1, 37}}, true, 51);
  // The same shapes; a single value; the mask first; a clamp after the sum.
  CheckMaskedSoftmax({{3, 20}, {3, 20}}, true, 53);
  CheckMaskedSoftmax({{4, 9}, {1}}, true, 55);
  CheckMaskedSoftmax({{1, 37}, {5, 37}}, true, 57);
  CheckMaskedSoftmax({{1}, {4, 9}, Act::RELU}, true, 59);
  // Runs of several rows (the mask differs by head only), and one value a row.
  CheckMaskedSoftmax({{2, 3, 5, 8}, {1, 3, 5, 8}}, true, 61);
  CheckMaskedSoftmax({{4, 6, 40}, {4, 6, 1}}, true, 63);
  // Rows across thread chunks; short rows repeated over the next dimension (the ADD's tiled path).
  CheckMaskedSoftmax({{4, 8, 64, 300}, {4, 1, 1, 300}}, true, 65);
  CheckMaskedSoftmax({{2, 8, 6}, {2, 1, 6}}, true, 67);
}
TEST(OptimizedSoftmaxTest, OtherAddsStay) {
  // The sum has a second reader, or is a graph output.
  CheckMaskedSoftmax({{3, 5, 16}, {3, 1, 16}, Act::NONE, true}, false, 69);
  CheckMaskedSoftmax({{3, 5, 16}, {3, 1, 16}, Act::NONE, false, true}, false, 70);
}

// ---- RESIZE_BILINEAR

void CheckResize(const std::vector<int>& input_shape, int height, int width, bool align_corners,
                 bool half_pixel_centers, bool constant_size = true) {
  OpCase op;
  const int input = op.AddFloatInput(input_shape, 1, -5.f, 5.f);
  const int size = constant_size ? op.test().AddConst<int32_t>(kTfLiteInt32, {2}, {height, width})
                                 : op.AddInputBytes(kTfLiteInt32, {2}, Bytes(std::vector<int32_t>{height, width}));
  const int output = op.AddFloatOutput();
  op.test().AddOp(kTfLiteBuiltinResizeBilinear, {input, size}, {output}, fb::BuiltinOptions::ResizeBilinearOptions,
                  fb::CreateResizeBilinearOptions(op.test().fbb(), align_corners, half_pixel_centers).Union());
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
TEST(OptimizedResizeBilinearTest, LargeCrossesThreadChunks) { CheckResize({1, 33, 33, 21}, 257, 257, true, false); }
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
  op.test().AddOp(kTfLiteBuiltinResizeBilinear, {input, size}, {output}, fb::BuiltinOptions::ResizeBilinearOptions,
                  fb::CreateResizeBilinearOptions(op.test().fbb(), align_corners, half_pixel_centers).Union());
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

}  // namespace
}  // namespace touchstone
