// The optimized MEAN, SUM, ARG_MAX, ARG_MIN, ADD and MUL kernels against the reference on every microkernel set and
// 1 and 4 threads (OpCase, optimized_ops_test_util.h).
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

// ---- MEAN and SUM

void CheckReduce(int code, const std::vector<int>& shape, const std::vector<int32_t>& axes, bool keep_dims,
                 bool optimized = true, uint32_t seed = 1) {
  OpCase op;
  if (optimized) op.RequireOptimizedPath();
  const int input = op.AddFloatInput(shape, seed, -4.f, 6.f);
  const int axis = op.test().AddConst<int32_t>(kTfLiteInt32, {static_cast<int>(axes.size())}, axes);
  const int output = op.AddFloatOutput();
  op.test().AddOp(code, {input, axis}, {output}, fb::BuiltinOptions::ReducerOptions,
                  fb::CreateReducerOptions(op.test().fbb(), keep_dims).Union());
  op.Check(code == kTfLiteBuiltinMean ? optimized::Register_MEAN() : optimized::Register_SUM());
}

TEST(OptimizedReduceTest, OneBlockOfAxes) {
  for (int code : {kTfLiteBuiltinMean, kTfLiteBuiltinSum}) {
    SCOPED_TRACE(code);
    CheckReduce(code, {1, 335, 80}, {2}, false);  // a layer norm's mean
    CheckReduce(code, {1, 335, 80}, {-1}, true);
    CheckReduce(code, {2, 7, 7, 37}, {1, 2}, true);      // spatial mean, odd channels
    CheckReduce(code, {2, 7, 7, 37}, {2, 1, 2}, false);  // unsorted, repeated
    CheckReduce(code, {9, 4, 5}, {0}, false);            // leading axis
    CheckReduce(code, {3, 4, 5}, {0, 1, 2}, false);      // everything
    CheckReduce(code, {1}, {0}, true);                   // size 1
    CheckReduce(code, {4, 1, 3}, {1}, false);            // a reduced axis of size 1 (nothing reduced)
    CheckReduce(code, {1, 335, 80}, {0, 2}, false);      // axes apart but for a dimension of size 1
    CheckReduce(code, {3, 1, 4, 5}, {0, 2}, true);
    CheckReduce(code, {64, 3001}, {1}, false);  // rows over the threads, a long tail
  }
}
TEST(OptimizedReduceTest, AxesApartRunTheReference) {
  CheckReduce(kTfLiteBuiltinMean, {2, 3, 4}, {0, 2}, false, /*optimized=*/false);
}

// A quantized MEAN on random values (int16: symmetric, zero points 0), byte for byte the reference's.
// Zero points are given as int8 ones (uint8 adds 128).
void CheckQuantMean(TfLiteType type, const std::vector<int>& shape, const std::vector<int32_t>& axes, bool keep_dims,
                    float in_scale, int in_zp, float out_scale, int out_zp, uint32_t seed = 1) {
  if (type == kTfLiteUInt8) {
    in_zp += 128;
    out_zp += 128;
  }
  OpCase op;
  op.RequireOptimizedPath();
  std::vector<uint8_t> bytes = type == kTfLiteInt16 ? Bytes(RandomInts<int16_t>(Count(shape), seed, -32768, 32767))
                                                    : RandomQuantBytes(type, Count(shape), seed);
  const int input = op.AddInputBytes(type, shape, std::move(bytes));
  op.test().builder().SetQuantization(input, {in_scale}, {in_zp});
  const int axis = op.test().AddConst<int32_t>(kTfLiteInt32, {static_cast<int>(axes.size())}, axes);
  const int output = op.test().AddOutput(type);
  op.test().builder().SetQuantization(output, {out_scale}, {out_zp});
  op.test().AddOp(kTfLiteBuiltinMean, {input, axis}, {output}, fb::BuiltinOptions::ReducerOptions,
                  fb::CreateReducerOptions(op.test().fbb(), keep_dims).Union());
  op.Check(optimized::Register_MEAN(), true);
}

TEST(OptimizedReduceTest, QuantizedMeanByteForByte) {
  for (TfLiteType type : {kTfLiteUInt8, kTfLiteInt8}) {
    SCOPED_TRACE(type);
    // TFLite's spatial rule (keep_dims, axes [1, 2] or [2, 1]) and the general one for the same sums.
    CheckQuantMean(type, {1, 7, 7, 1280}, {1, 2}, true, 0.02f, 3, 0.015f, -2);  // a classifier's pooling
    CheckQuantMean(type, {2, 7, 7, 37}, {2, 1}, true, 0.1f, -5, 0.03f, 4);      // odd channels
    CheckQuantMean(type, {2, 7, 7, 37}, {1, 2}, false, 0.1f, -5, 0.03f, 4);
    CheckQuantMean(type, {2, 7, 7, 37}, {-3, -2}, true, 0.1f, -5, 0.03f, 4);
    CheckQuantMean(type, {2, 7, 7, 37}, {2, 1, 2}, true, 0.1f, -5, 0.03f, 4);  // repeated
    // Contiguous values (the row sums): a layer norm's mean, rows over the threads.
    CheckQuantMean(type, {64, 3001}, {1}, false, 0.05f, 7, 0.05f, 7);
    CheckQuantMean(type, {3, 5, 77}, {-1}, true, 0.05f, 7, 0.01f, 0);
    // Leading axes, everything, size 1, extreme scales (saturation, a left-shifted multiplier).
    CheckQuantMean(type, {9, 4, 5}, {0}, false, 0.3f, 1, 0.2f, 2);
    CheckQuantMean(type, {3, 4, 5}, {0, 1, 2}, false, 0.3f, 1, 0.2f, 2);
    CheckQuantMean(type, {1}, {0}, true, 0.3f, 1, 0.2f, 2);
    CheckQuantMean(type, {1, 3, 3, 19}, {1, 2}, true, 5.f, 100, 1e-3f, -100);
    CheckQuantMean(type, {1, 3, 3, 19}, {1, 2}, false, 1e-4f, -128, 2.f, 127);
    // Large enough to cross thread chunks.
    CheckQuantMean(type, {1, 56, 56, 144}, {1, 2}, true, 0.02f, 3, 0.015f, -2);
  }
  CheckQuantMean(kTfLiteInt16, {2, 7, 7, 37}, {1, 2}, true, 0.002f, 0, 0.0015f, 0);
  CheckQuantMean(kTfLiteInt16, {4, 999}, {1}, false, 0.002f, 0, 0.003f, 0);
}

// ---- ARG_MAX and ARG_MIN

// Values with many ties (a small range) so the first index must win, and for float the values the
// comparison treats specially: NaN (never better; a NaN first value stays), infinities, -0.
std::vector<uint8_t> ArgValues(TfLiteType type, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-3, 3);
  switch (type) {
    case kTfLiteFloat32: {
      const float special[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(), -0.f, 0.f};
      std::vector<float> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = i % 7 == 3 ? special[(i / 7) % 5] : 0.5f * small(rng);
      return Bytes(v);
    }
    case kTfLiteInt32:
      return Bytes(RandomInts<int32_t>(n, seed, -3, 3));
    case kTfLiteUInt8: {
      std::vector<uint8_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i % 5 == 0 ? 255 * (i % 2) : 120 + small(rng));
      return v;
    }
    case kTfLiteInt8: {
      std::vector<int8_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>(i % 5 == 0 ? (i % 2 ? 127 : -128) : small(rng));
      return Bytes(v);
    }
    default: {  // bool
      std::vector<uint8_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = (rng() % 4) == 0;
      return v;
    }
  }
}

void CheckArg(bool is_max, TfLiteType type, const std::vector<int>& shape, int32_t axis, TfLiteType out_type,
              uint32_t seed = 1) {
  OpCase op;
  op.RequireOptimizedPath();
  const int input = op.AddInputBytes(type, shape, ArgValues(type, Count(shape), seed));
  const int axis_tensor = op.test().AddConst<int32_t>(kTfLiteInt32, {1}, {axis});
  const int output = op.test().AddOutput(out_type);
  const fb::TensorType fb_out = out_type == kTfLiteInt64 ? fb::TensorType::INT64 : fb::TensorType::INT32;
  if (is_max) {
    op.test().AddOp(kTfLiteBuiltinArgMax, {input, axis_tensor}, {output}, fb::BuiltinOptions::ArgMaxOptions,
                    fb::CreateArgMaxOptions(op.test().fbb(), fb_out).Union());
    op.Check(optimized::Register_ARG_MAX(), true);
  } else {
    op.test().AddOp(kTfLiteBuiltinArgMin, {input, axis_tensor}, {output}, fb::BuiltinOptions::ArgMinOptions,
                    fb::CreateArgMinOptions(op.test().fbb(), fb_out).Union());
    op.Check(optimized::Register_ARG_MIN(), true);
  }
}

TEST(OptimizedArgTest, EveryTypeAndAxisByteForByte) {
  for (bool is_max : {true, false}) {
    for (TfLiteType type : {kTfLiteFloat32, kTfLiteInt32, kTfLiteUInt8, kTfLiteInt8, kTfLiteBool}) {
      SCOPED_TRACE(std::string(is_max ? "ARG_MAX " : "ARG_MIN ") + TfLiteTypeGetName(type));
      CheckArg(is_max, type, {1, 9, 11, 21}, 3, kTfLiteInt32);   // a segmentation map's classes, odd rows
      CheckArg(is_max, type, {1, 9, 11, 21}, -1, kTfLiteInt64);  // negative axis, int64 indices
      CheckArg(is_max, type, {2, 5, 7, 3}, 1, kTfLiteInt32);     // a middle axis: outputs inner apart
      CheckArg(is_max, type, {6, 5}, 0, kTfLiteInt32);           // the first axis
      CheckArg(is_max, type, {7, 1}, 1, kTfLiteInt32);           // one value per output
      CheckArg(is_max, type, {3}, 0, kTfLiteInt32);              // one output
    }
  }
  // Outputs over the threads' chunks, and a tail that is not a whole group of lanes.
  CheckArg(true, kTfLiteUInt8, {1, 129, 131, 21}, 3, kTfLiteInt32, 5);
  CheckArg(true, kTfLiteFloat32, {3, 4001, 6}, 1, kTfLiteInt32, 6);
}

// ---- ADD and MUL

void CheckBinary(int code, const std::vector<int>& a_shape, const std::vector<int>& b_shape, Act activation = Act::NONE,
                 bool exact = true, uint32_t seed = 1, bool require_optimized = false) {
  OpCase op;
  if (require_optimized) op.RequireOptimizedPath();
  const int a = op.AddFloatInput(a_shape, seed, -8.f, 8.f);
  const int b = op.AddFloatInput(b_shape, seed + 1, -8.f, 8.f);
  const int output = op.AddFloatOutput();
  if (code == kTfLiteBuiltinAdd) {
    op.test().AddOp(code, {a, b}, {output}, fb::BuiltinOptions::AddOptions,
                    fb::CreateAddOptions(op.test().fbb(), activation).Union());
    op.Check(optimized::Register_ADD(), exact);
  } else {
    op.test().AddOp(code, {a, b}, {output}, fb::BuiltinOptions::MulOptions,
                    fb::CreateMulOptions(op.test().fbb(), activation).Union());
    op.Check(optimized::Register_MUL(), exact);
  }
}

TEST(OptimizedBinaryTest, SameShape) {
  for (int code : {kTfLiteBuiltinAdd, kTfLiteBuiltinMul}) {
    CheckBinary(code, {2, 3, 5, 7}, {2, 3, 5, 7});
    CheckBinary(code, {1}, {1});
    CheckBinary(code, {3, 11}, {3, 11}, Act::RELU6);
    CheckBinary(code, {37}, {37}, Act::RELU_N1_TO_1);
    CheckBinary(code, {5, 9}, {5, 9}, Act::RELU);
  }
}
TEST(OptimizedBinaryTest, ScalarOperand) {
  for (int code : {kTfLiteBuiltinAdd, kTfLiteBuiltinMul}) {
    CheckBinary(code, {4, 9}, {1});
    CheckBinary(code, {1, 1}, {3, 13}, Act::RELU);
  }
}
// Any broadcast runs as rows of the same microkernel: both operands consecutive over a row, or one of
// them a single value over it; exactly the reference's results.
TEST(OptimizedBinaryTest, Broadcasts) {
  for (int code : {kTfLiteBuiltinAdd, kTfLiteBuiltinMul}) {
    SCOPED_TRACE(code);
    const auto check = [&](const std::vector<int>& a, const std::vector<int>& b, Act act = Act::NONE) {
      CheckBinary(code, a, b, act, /*exact=*/true, 1, /*require_optimized=*/true);
      CheckBinary(code, b, a, act, /*exact=*/true, 2, /*require_optimized=*/true);
    };
    check({2, 3, 1}, {1, 3, 4});
    check({5, 8}, {8}, Act::RELU6);
    check({10, 4, 33, 35}, {10, 1, 1, 35});       // an attention mask
    check({1, 335, 80}, {1, 335, 1}, Act::RELU);  // a per-row scale
    check({10, 35, 160}, {1, 1, 160});            // a per-channel bias
    check({3, 1, 5, 1, 7}, {1, 4, 1, 6, 1});      // every dimension broadcast one way or the other
    check({2, 1, 3}, {2, 5, 3});
    check({1, 1, 1, 9}, {4, 1});
    check({6, 1}, {1});
    check({1, 3000, 7}, {1, 3000, 1});  // rows split over the threads
    // Short rows one input repeats over the next dimension out: tiled (EvalTiled).
    check({8, 100, 32, 2}, {8, 100, 1, 2});  // a rotary embedding's pairs
    check({3, 7, 5}, {3, 1, 5}, Act::RELU6);
    check({2, 600, 3}, {2, 1, 3});  // more repeats than one tile holds
    check({4, 31}, {31});           // one group per thread chunk boundary
    check({5, 2, 9, 3}, {5, 1, 1, 3});
  }
}
TEST(OptimizedBinaryTest, LargeCrossesThreadChunks) {
  CheckBinary(kTfLiteBuiltinAdd, {100003}, {100003}, Act::RELU);
  CheckBinary(kTfLiteBuiltinMul, {7, 50001}, {7, 50001});
}
// A node prepared again after an input's resize chooses its path again: a tiled broadcast first,
// then the same shape on both sides, then an operand of no elements (nothing to compute, yet the
// optimized kernel's), then the broadcast again.
TEST(OptimizedBinaryTest, PreparedAgainAfterAResize) {
  OpTest test;
  const int a = test.AddInput(kTfLiteFloat32, {3, 7, 5});
  const int b = test.AddInput(kTfLiteFloat32, {3, 1, 5});
  const int output = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinAdd, {a, b}, {output}, fb::BuiltinOptions::AddOptions,
             fb::CreateAddOptions(test.fbb()).Union());
  const Status built = test.Build();
  ASSERT_TRUE(built.ok()) << built.message();
  std::shared_ptr<const Model> model(std::shared_ptr<const Model>(), &test.interpreter()->model());
  OptimizedTestResolver resolver;
  InterpreterOptions options;
  options.kernel_set = KernelSet::kOptimized;
  StatusOr<std::unique_ptr<Interpreter>> created = Interpreter::Create(model, options, &resolver);
  ASSERT_TRUE(created.ok()) << created.status().message();
  Interpreter* interpreter = created.value().get();
  const std::vector<std::vector<int>> shapes = {{3, 1, 5}, {3, 7, 5}, {0}, {3, 1, 5}};
  for (const std::vector<int>& b_shape : shapes) {
    const std::vector<int> a_shape = b_shape == std::vector<int>{0} ? std::vector<int>{0} : std::vector<int>{3, 7, 5};
    SCOPED_TRACE(b_shape.size() == 1 ? "empty" : std::to_string(b_shape[1]));
    ASSERT_TRUE(interpreter->ResizeInputTensor(interpreter->inputs()[0], a_shape).ok());
    ASSERT_TRUE(interpreter->ResizeInputTensor(interpreter->inputs()[1], b_shape).ok());
    ASSERT_TRUE(interpreter->AllocateTensors().ok());
    ASSERT_EQ(interpreter->primary()->node_kernel(0), "optimized");
    float* x = interpreter->input_tensor(0)->data.f;
    float* y = interpreter->input_tensor(1)->data.f;
    const int64_t a_count = Count(a_shape), b_count = Count(b_shape);
    for (int64_t i = 0; i < a_count; ++i) x[i] = static_cast<float>(i);
    for (int64_t i = 0; i < b_count; ++i) y[i] = 1000.f * static_cast<float>(i);
    ASSERT_TRUE(interpreter->Invoke().ok());
    const TfLiteTensor* out = interpreter->output_tensor(0);
    ASSERT_EQ(tflite::NumElements(out), a_count);
    for (int64_t i = 0; i < a_count; ++i) {
      // [d0][d1][d2]: b broadcasts over d1 when its d1 is 1.
      const int64_t d0 = i / 35, d2 = i % 5;
      const int64_t j = b_count == a_count ? i : d0 * 5 + d2;
      ASSERT_EQ(out->data.f[i], x[i] + y[j]) << "element " << i;
    }
  }
}

TEST(OptimizedBinaryTest, Int32FallsBackToTheReference) {
  OpCase op;
  const int a = op.AddInputBytes(kTfLiteInt32, {17}, Bytes(RandomInts<int32_t>(17, 1, -1000, 1000)));
  const int b = op.AddInputBytes(kTfLiteInt32, {17}, Bytes(RandomInts<int32_t>(17, 2, -1000, 1000)));
  const int output = op.test().AddOutput(kTfLiteInt32);
  op.test().AddOp(kTfLiteBuiltinAdd, {a, b}, {output}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(op.test().fbb()).Union());
  op.Check(optimized::Register_ADD(), true);
}

// Quantized ADD (computed on AVX-512, a table of the reference's results for every pair of input
// bytes elsewhere) on the given input bytes.
void CheckQuantAddBytes(TfLiteType type, const std::vector<int>& a_shape, std::vector<uint8_t> a_bytes,
                        const std::vector<int>& b_shape, std::vector<uint8_t> b_bytes, float a_scale, int a_zp,
                        float b_scale, int b_zp, float out_scale, int out_zp, Act activation) {
  OpCase op;
  const int a = op.AddInputBytes(type, a_shape, std::move(a_bytes));
  op.test().builder().SetQuantization(a, {a_scale}, {a_zp});
  const int b = op.AddInputBytes(type, b_shape, std::move(b_bytes));
  op.test().builder().SetQuantization(b, {b_scale}, {b_zp});
  const int output = op.test().AddOutput(type);
  op.test().builder().SetQuantization(output, {out_scale}, {out_zp});
  op.test().AddOp(kTfLiteBuiltinAdd, {a, b}, {output}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(op.test().fbb(), activation).Union());
  op.Check(optimized::Register_ADD(), true);
}

// The same on random input bytes.
void CheckQuantAdd(TfLiteType type, const std::vector<int>& a_shape, const std::vector<int>& b_shape, float a_scale,
                   int a_zp, float b_scale, int b_zp, float out_scale, int out_zp, Act activation = Act::NONE,
                   uint32_t seed = 1) {
  CheckQuantAddBytes(type, a_shape, RandomQuantBytes(type, Count(a_shape), seed), b_shape,
                     RandomQuantBytes(type, Count(b_shape), seed + 1), a_scale, a_zp, b_scale, b_zp, out_scale, out_zp,
                     activation);
}

TEST(OptimizedBinaryTest, QuantizedAdd) {
  CheckQuantAdd(kTfLiteUInt8, {1}, {1}, 0.1f, 128, 0.1f, 128, 0.2f, 128);
  CheckQuantAdd(kTfLiteUInt8, {1, 7, 9, 24}, {1, 7, 9, 24}, 0.03f, 120, 0.05f, 131, 0.07f, 125);
  CheckQuantAdd(kTfLiteInt8, {2, 5, 5, 17}, {2, 5, 5, 17}, 0.02f, -3, 0.11f, 7, 0.09f, -1, Act::RELU6);
  CheckQuantAdd(kTfLiteUInt8, {3, 33}, {3, 33}, 1e-4f, 0, 3.f, 255, 1e-3f, 255, Act::RELU);
  CheckQuantAdd(kTfLiteInt8, {3, 33}, {3, 33}, 5.f, -128, 1e-5f, 127, 100.f, -128);
  // Large enough to cross thread chunks; a broadcast takes the reference kernel.
  CheckQuantAdd(kTfLiteInt8, {1, 56, 56, 24}, {1, 56, 56, 24}, 0.02f, 4, 0.03f, -9, 0.04f, 2);
  CheckQuantAdd(kTfLiteUInt8, {2, 3, 4}, {4}, 0.02f, 4, 0.03f, 9, 0.04f, 2);
}

// Every pair of input bytes (a = i / 256, b = i % 256 over 65536 elements), so that the computed
// path (AVX-512) and the pair table agree with the reference on all of them: scales from a tenth
// to ten times each other, an output scale below the inputs' (a left shift in the output stage),
// zero points at both ends, and each activation.
void CheckQuantAddAllPairs(TfLiteType type, float a_scale, int a_zp, float b_scale, int b_zp, float out_scale,
                           int out_zp, Act activation) {
  std::vector<uint8_t> a_bytes(65536), b_bytes(65536);
  for (int i = 0; i < 65536; ++i) {
    a_bytes[i] = static_cast<uint8_t>(i / 256);
    b_bytes[i] = static_cast<uint8_t>(i % 256);
  }
  CheckQuantAddBytes(type, {256, 256}, std::move(a_bytes), {256, 256}, std::move(b_bytes), a_scale, a_zp, b_scale, b_zp,
                     out_scale, out_zp, activation);
}

TEST(OptimizedBinaryTest, QuantizedAddEveryPair) {
  CheckQuantAddAllPairs(kTfLiteUInt8, 0.0235f, 128, 0.0171f, 121, 0.0297f, 130, Act::NONE);
  CheckQuantAddAllPairs(kTfLiteInt8, 0.12f, -128, 0.012f, 127, 0.08f, -5, Act::RELU6);
  CheckQuantAddAllPairs(kTfLiteUInt8, 0.5f, 0, 0.05f, 255, 0.01f, 255, Act::RELU);
  CheckQuantAddAllPairs(kTfLiteInt8, 0.031f, 9, 0.029f, -17, 0.9f, 0, Act::RELU_N1_TO_1);
  CheckQuantAddAllPairs(kTfLiteInt8, 1e-3f, 0, 2e-3f, 3, 1e-9f, 1, Act::NONE);
  CheckQuantAddAllPairs(kTfLiteUInt8, 0.1f, 3, 0.1f, 3, 0.1f, 3, Act::NONE);
}

}  // namespace
}  // namespace touchstone
