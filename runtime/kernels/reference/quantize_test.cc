// Tests of QUANTIZE, DEQUANTIZE, DENSIFY and the sparse-tensor expansion they rely on
// (runtime/kernels/internal/sparsity.h). Expected values are worked out by hand in the comments,
// following TFLite 2.14.1's x86-64 arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/c/builtin_ops.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/internal/sparsity.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/reference/reference_ops.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;

// A one-op model: input -> op -> output, with the given quantization on each side (an empty scale
// list leaves the tensor unquantized).
struct UnaryModel {
  OpTest test;
  int input;
  int output;
  UnaryModel(int op, TfLiteType in_type, const std::vector<int>& shape, std::vector<float> in_scale,
             std::vector<int64_t> in_zp, TfLiteType out_type, std::vector<float> out_scale, std::vector<int64_t> out_zp,
             int out_axis = 0) {
    input = test.AddInput(in_type, shape);
    output = test.AddOutput(out_type, shape);
    if (!in_scale.empty()) test.builder().SetQuantization(input, in_scale, in_zp);
    if (!out_scale.empty()) test.builder().SetQuantization(output, out_scale, out_zp, out_axis);
    test.AddOp(op, {input}, {output});
  }
};

// ---------------------------------------------------------------------------------------------
// QUANTIZE: float -> integer.

TEST(QuantizeTest, FloatToInt8RoundsHalfAwayFromZeroAndClamps) {
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteFloat32, {8}, {}, {}, kTfLiteInt8, {0.5f}, {0});
  ASSERT_TRUE(m.test.Build().ok());
  // x / 0.5: 0.5 -> 1, 1.5 -> 2, -0.5 -> -1, -1.5 -> -2, 2.5 -> 3; 0.6 -> 1; 1000 and -1000 clamp.
  m.test.SetInput<float>(0, {0.25f, 0.75f, -0.25f, -0.75f, 1.25f, 0.3f, 1000.f, -1000.f});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<int8_t>(0), (std::vector<int8_t>{1, 2, -1, -2, 3, 1, 127, -128}));
}

TEST(QuantizeTest, FloatToUint8WithZeroPoint) {
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteFloat32, {1, 5}, {}, {}, kTfLiteUInt8, {0.25f}, {128});
  ASSERT_TRUE(m.test.Build().ok());
  // q = round(x / 0.25) + 128: -32 -> 0, -1 -> 124, 0.1 -> 128 (0.4 rounds to 0), 31.75 -> 255, 40 -> 255.
  m.test.SetInput<float>(0, {-32.f, -1.f, 0.1f, 31.75f, 40.f});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{0, 124, 128, 255, 255}));
  EXPECT_EQ(m.test.GetOutputShape(0), (std::vector<int>{1, 5}));
}

TEST(QuantizeTest, FloatToInt16) {
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteFloat32, {3}, {}, {}, kTfLiteInt16, {0.001f}, {0});
  ASSERT_TRUE(m.test.Build().ok());
  m.test.SetInput<float>(0, {0.5f, -0.0126f, 100.f});  // 500, -12.6 -> -13, clamp to 32767
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<int16_t>(0), (std::vector<int16_t>{500, -13, 32767}));
}

TEST(QuantizeTest, ValuesBeyondInt32BecomeInt32MinAsOnX86) {
  // TFLite converts round(x / scale) to int32 before clamping; x86 turns NaN and anything outside
  // the int32 range into INT32_MIN, so these land on the lowest value, not the highest.
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteFloat32, {3}, {}, {}, kTfLiteInt8, {1.0f}, {0});
  ASSERT_TRUE(m.test.Build().ok());
  m.test.SetInput<float>(0, {3e9f, std::numeric_limits<float>::quiet_NaN(), 2e9f});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<int8_t>(0), (std::vector<int8_t>{-128, -128, 127}));
}

TEST(QuantizeTest, PerChannelOutputUsesEachChannelsScale) {
  // Shape [2, 3] quantized along dimension 1 with scales {1, 0.5, 0.25} and zero points {0, 1, -1}.
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteFloat32, {2, 3}, {}, {}, kTfLiteInt8, {1.f, 0.5f, 0.25f}, {0, 1, -1},
               /*out_axis=*/1);
  ASSERT_TRUE(m.test.Build().ok());
  // Row 0: 2/1+0 = 2, 2/0.5+1 = 5, 2/0.25-1 = 7. Row 1: -1.5/1 -> -2, -1.5/0.5+1 = -2, 100 -> 127.
  m.test.SetInput<float>(0, {2.f, 2.f, 2.f, -1.5f, -1.5f, 100.f});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<int8_t>(0), (std::vector<int8_t>{2, 5, 7, -2, -2, 127}));
}

TEST(QuantizeTest, ZeroSizeInputGivesZeroSizeOutput) {
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteFloat32, {0, 3}, {}, {}, kTfLiteInt8, {0.5f}, {0});
  ASSERT_TRUE(m.test.Build().ok());
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutputShape(0), (std::vector<int>{0, 3}));
  EXPECT_TRUE(m.test.GetOutput<int8_t>(0).empty());
}

// ---------------------------------------------------------------------------------------------
// QUANTIZE: requantization between integer types.

TEST(QuantizeTest, Int8ToUint8SameScaleShiftsBy128) {
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteInt8, {4}, {0.02f}, {5}, kTfLiteUInt8, {0.02f}, {133});
  ASSERT_TRUE(m.test.Build().ok());
  m.test.SetInput<int8_t>(0, {-128, 0, 5, 127});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{0, 128, 133, 255}));
}

TEST(QuantizeTest, Int8ToInt8ExactRatio) {
  // input_scale / output_scale = 2: q_out = 2 * (q - 1) - 3.
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteInt8, {4}, {0.5f}, {1}, kTfLiteInt8, {0.25f}, {-3});
  ASSERT_TRUE(m.test.Build().ok());
  m.test.SetInput<int8_t>(0, {10, 1, 100, -128});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<int8_t>(0), (std::vector<int8_t>{15, -3, 127, -128}));
}

TEST(QuantizeTest, RequantizeRoundsTwiceLikeTflite) {
  // Ratio 1/3: multiplier round(2/3 * 2^31) = 1431655765, shift -1, so x / 3 is computed as
  // round(round(x * 2/3) / 2), each rounding half away from zero: 1 -> round(0.5) = 1,
  // -1 -> round(-0.5) = -1, 3 -> round(2 / 2) = 1, -4 -> round(-3 / 2) = -2 (not round(-1.33)).
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteUInt8, {5}, {1.f}, {100}, kTfLiteUInt8, {3.f}, {100});
  ASSERT_TRUE(m.test.Build().ok());
  m.test.SetInput<uint8_t>(0, {101, 99, 103, 96, 100});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<uint8_t>(0), (std::vector<uint8_t>{101, 99, 101, 98, 100}));
}

TEST(QuantizeTest, Int16ToInt32) {
  // Ratio 0.001 / 0.0001 = 10.
  UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteInt16, {3}, {0.001f}, {0}, kTfLiteInt32, {0.0001f}, {0});
  ASSERT_TRUE(m.test.Build().ok());
  m.test.SetInput<int16_t>(0, {-32768, 7, 32767});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<int32_t>(0), (std::vector<int32_t>{-327680, 70, 327670}));
}

TEST(QuantizeTest, RefusesWhatTfliteRefuses) {
  {
    // int8 -> int16 is not a conversion TFLite 2.14 has.
    UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteInt8, {2}, {0.05f}, {-2}, kTfLiteInt16, {0.001f}, {0});
    EXPECT_FALSE(m.test.Build().ok());
  }
  {
    // int16 -> int16 needs zero points of 0.
    UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteInt16, {2}, {0.5f}, {3}, kTfLiteInt16, {0.5f}, {0});
    EXPECT_FALSE(m.test.Build().ok());
  }
  {
    // The output must carry quantization parameters.
    UnaryModel m(kTfLiteBuiltinQuantize, kTfLiteFloat32, {2}, {}, {}, kTfLiteInt8, {}, {});
    EXPECT_FALSE(m.test.Build().ok());
  }
}

// ---------------------------------------------------------------------------------------------
// DEQUANTIZE.

TEST(DequantizeTest, Uint8PerTensor) {
  UnaryModel m(kTfLiteBuiltinDequantize, kTfLiteUInt8, {3}, {0.5f}, {128}, kTfLiteFloat32, {}, {});
  ASSERT_TRUE(m.test.Build().ok());
  m.test.SetInput<uint8_t>(0, {0, 128, 255});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<float>(0), (std::vector<float>{-64.f, 0.f, 63.5f}));
}

TEST(DequantizeTest, Int16) {
  UnaryModel m(kTfLiteBuiltinDequantize, kTfLiteInt16, {2}, {0.25f}, {0}, kTfLiteFloat32, {}, {});
  ASSERT_TRUE(m.test.Build().ok());
  m.test.SetInput<int16_t>(0, {-32768, 3});
  ASSERT_TRUE(m.test.Invoke().ok());
  EXPECT_EQ(m.test.GetOutput<float>(0), (std::vector<float>{-8192.f, 0.75f}));
}

TEST(DequantizeTest, Float16IsExactIncludingSubnormalsAndSpecials) {
  UnaryModel m(kTfLiteBuiltinDequantize, kTfLiteFloat16, {9}, {}, {}, kTfLiteFloat32, {}, {});
  ASSERT_TRUE(m.test.Build().ok());
  // 1, -2, 65504 (largest), 2^-24 (smallest subnormal), 1023 * 2^-24 (largest subnormal),
  // +inf, -inf, -0, NaN.
  m.test.SetInput<uint16_t>(0, {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x03FF, 0x7C00, 0xFC00, 0x8000, 0x7E00});
  ASSERT_TRUE(m.test.Invoke().ok());
  const std::vector<float> out = m.test.GetOutput<float>(0);
  ASSERT_EQ(out.size(), 9u);
  EXPECT_EQ(out[0], 1.f);
  EXPECT_EQ(out[1], -2.f);
  EXPECT_EQ(out[2], 65504.f);
  EXPECT_EQ(out[3], std::ldexp(1.f, -24));
  EXPECT_EQ(out[4], std::ldexp(1023.f, -24));
  EXPECT_EQ(out[5], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[6], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[7], 0.f);
  EXPECT_TRUE(std::signbit(out[7]));
  EXPECT_TRUE(std::isnan(out[8]));
}

TEST(DequantizeTest, ConstantFloat16WeightsAreComputedOnceIntoAPersistentTensor) {
  // weights (float16 constant) -> DEQUANTIZE -> ADD with the graph input.
  OpTest test;
  const int in = test.AddInput(kTfLiteFloat32, {2});
  const int weights = test.AddConst<uint16_t>(kTfLiteFloat16, {2}, {0x3C00, 0x3800});  // 1, 0.5
  const int dequantized = test.AddIntermediate(kTfLiteFloat32, {2});
  const int out = test.AddOutput(kTfLiteFloat32, {2});
  test.AddOp(kTfLiteBuiltinDequantize, {weights}, {dequantized});
  test.AddOp(kTfLiteBuiltinAdd, {in, dequantized}, {out});
  ASSERT_TRUE(test.Build().ok());
  EXPECT_EQ(test.interpreter()->tensor(dequantized)->allocation_type, kTfLitePersistentRo);
  test.SetInput<float>(0, {10.f, 20.f});
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{11.f, 20.5f}));
  test.SetInput<float>(0, {-1.f, -2.f});
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{0.f, -1.5f}));
}

TEST(DequantizeTest, PerChannelInt8Weights) {
  // Shape [2, 2] along dimension 0: scales {0.5, 2}, zero points {0, 1}.
  OpTest test;
  const int weights = test.AddConst<int8_t>(kTfLiteInt8, {2, 2}, {2, -4, 3, 1});
  test.builder().SetQuantization(weights, {0.5f, 2.f}, {0, 1}, 0);
  const int out = test.AddOutput(kTfLiteFloat32, {2, 2});
  test.AddOp(kTfLiteBuiltinDequantize, {weights}, {out});
  ASSERT_TRUE(test.Build().ok());
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutput<float>(0), (std::vector<float>{1.f, -2.f, 4.f, 0.f}));
}

TEST(DequantizeTest, Refusals) {
  {
    UnaryModel m(kTfLiteBuiltinDequantize, kTfLiteFloat32, {2}, {}, {}, kTfLiteFloat32, {}, {});
    EXPECT_FALSE(m.test.Build().ok());
  }
  {
    // int16 input needs zero point 0.
    UnaryModel m(kTfLiteBuiltinDequantize, kTfLiteInt16, {2}, {0.5f}, {1}, kTfLiteFloat32, {}, {});
    EXPECT_FALSE(m.test.Build().ok());
  }
  {
    // Per-channel int16 is not supported by TFLite.
    OpTest test;
    const int weights = test.AddConst<int16_t>(kTfLiteInt16, {2}, {1, 2});
    test.builder().SetQuantization(weights, {0.5f, 2.f}, {0, 0}, 0);
    const int out = test.AddOutput(kTfLiteFloat32, {2});
    test.AddOp(kTfLiteBuiltinDequantize, {weights}, {out});
    EXPECT_FALSE(test.Build().ok());
  }
}

// ---------------------------------------------------------------------------------------------
// Sparse tensors: hand-made TfLiteSparsity values.

// Owns a TfLiteSparsity built level by level.
class SparsityBuilder {
 public:
  SparsityBuilder(std::vector<int> traversal_order, std::vector<int> block_map) {
    s_ = static_cast<TfLiteSparsity*>(calloc(1, sizeof(TfLiteSparsity)));
    s_->traversal_order = IntArray(traversal_order);
    if (!block_map.empty()) s_->block_map = IntArray(block_map);
  }
  ~SparsityBuilder() { TfLiteSparsityFree(s_); }
  SparsityBuilder& Dense(int size) {
    TfLiteDimensionMetadata m{};
    m.format = kTfLiteDimDense;
    m.dense_size = size;
    return Add(m);
  }
  SparsityBuilder& Csr(std::vector<int> segments, std::vector<int> indices) {
    TfLiteDimensionMetadata m{};
    m.format = kTfLiteDimSparseCSR;
    m.array_segments = IntArray(segments);
    m.array_indices = IntArray(indices);
    return Add(m);
  }
  const TfLiteSparsity& get() const { return *s_; }
  TfLiteSparsity* release() {
    TfLiteSparsity* s = s_;
    s_ = nullptr;
    return s;
  }

 private:
  static TfLiteIntArray* IntArray(const std::vector<int>& v) {
    TfLiteIntArray* a = TfLiteIntArrayCreate(static_cast<int>(v.size()));
    for (size_t i = 0; i < v.size(); ++i) a->data[i] = v[i];
    return a;
  }
  SparsityBuilder& Add(const TfLiteDimensionMetadata& m) {
    const int n = s_->dim_metadata_size + 1;
    s_->dim_metadata =
        static_cast<TfLiteDimensionMetadata*>(realloc(s_->dim_metadata, n * sizeof(TfLiteDimensionMetadata)));
    s_->dim_metadata[n - 1] = m;
    s_->dim_metadata_size = n;
    return *this;
  }
  TfLiteSparsity* s_;
};

struct Shape {
  explicit Shape(std::vector<int> dims) : array(TfLiteIntArrayCreate(static_cast<int>(dims.size()))) {
    for (size_t i = 0; i < dims.size(); ++i) array->data[i] = dims[i];
  }
  ~Shape() { TfLiteIntArrayFree(array); }
  TfLiteIntArray* array;
};

// Expands `values` and returns the dense tensor, or fails the test with the converter's error.
template <typename T>
std::vector<T> Expand(const TfLiteSparsity& s, std::vector<int> dims, const std::vector<T>& values) {
  Shape shape(dims);
  size_t count = 1;
  for (int d : dims) count *= static_cast<size_t>(d);
  std::vector<T> dense(count, T(99));
  std::string error;
  EXPECT_TRUE(sparsity::SparseToDense(s, shape.array, sizeof(T), values.data(), values.size() * sizeof(T), dense.data(),
                                      dense.size() * sizeof(T), &error))
      << error;
  return dense;
}

std::string Refusal(const TfLiteSparsity& s, std::vector<int> dims, size_t num_values) {
  Shape shape(dims);
  std::string error;
  EXPECT_FALSE(sparsity::ValidateSparsity(s, shape.array, num_values, &error));
  return error;
}

TEST(SparsityTest, CsrMatrix) {
  // 3x4: row 0 holds columns 1 and 3, row 1 nothing, row 2 column 0.
  SparsityBuilder s({0, 1}, {});
  s.Dense(3).Csr({0, 2, 2, 3}, {1, 3, 0});
  EXPECT_EQ(Expand<float>(s.get(), {3, 4}, {1.5f, 2.5f, 3.5f}),
            (std::vector<float>{0, 1.5f, 0, 2.5f, 0, 0, 0, 0, 3.5f, 0, 0, 0}));
}

TEST(SparsityTest, ColumnMajorTraversalOfADenseTensor) {
  // Both dimensions dense, traversed columns first: values come in column-major order.
  SparsityBuilder s({1, 0}, {});
  s.Dense(3).Dense(2);
  EXPECT_EQ(Expand<int8_t>(s.get(), {2, 3}, {1, 2, 3, 4, 5, 6}), (std::vector<int8_t>{1, 3, 5, 2, 4, 6}));
}

TEST(SparsityTest, BlockSparseMatrix) {
  // TFLite's own example (testdata/sparse_tensor.bin): 4x4 in 2x2 blocks; block row 0 stores block
  // columns 0 and 1, block row 1 stores block column 1; each block's 4 values row-major.
  SparsityBuilder s({0, 1, 2, 3}, {0, 1});
  s.Dense(2).Csr({0, 2, 3}, {0, 1, 1}).Dense(2).Dense(2);
  EXPECT_EQ(Expand<int8_t>(s.get(), {4, 4}, {1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6}), (std::vector<int8_t>{1, 0, 2, 3,  //
                                                                                                        0, 4, 0, 0,  //
                                                                                                        0, 0, 5, 0,  //
                                                                                                        0, 0, 0, 6}));
}

TEST(SparsityTest, BlocksStoredColumnMajor) {
  // Same blocks, but each block's elements traversed column first (traversal 0, 1, 3, 2).
  SparsityBuilder s({0, 1, 3, 2}, {0, 1});
  s.Dense(1).Csr({0, 1}, {1}).Dense(2).Dense(2);
  // Block (0, 1) holds [[1, 2], [3, 4]], stored as 1, 3, 2, 4.
  EXPECT_EQ(Expand<int16_t>(s.get(), {2, 4}, {1, 3, 2, 4}), (std::vector<int16_t>{0, 0, 1, 2, 0, 0, 3, 4}));
}

TEST(SparsityTest, SparseThenDenseLevels) {
  // [2, 2, 3]: dimension 0 dense, 1 CSR, 2 dense. Slice 0 stores row 1, slice 1 stores rows 0 and 1.
  SparsityBuilder s({0, 1, 2}, {});
  s.Dense(2).Csr({0, 1, 3}, {1, 0, 1}).Dense(3);
  EXPECT_EQ(Expand<int32_t>(s.get(), {2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
            (std::vector<int32_t>{0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(SparsityTest, MalformedEncodingsAreRefused) {
  {
    SparsityBuilder s({0, 1}, {});
    s.Dense(3).Csr({0, 2, 2, 3}, {1, 4, 0});  // index 4 outside 4 columns
    EXPECT_NE(Refusal(s.get(), {3, 4}, 3).find("outside"), std::string::npos);
  }
  {
    SparsityBuilder s({0, 1}, {});
    s.Dense(3).Csr({0, 2, 3}, {1, 3, 0});  // 3 rows need 4 segment entries
    Refusal(s.get(), {3, 4}, 3);
  }
  {
    SparsityBuilder s({0, 1}, {});
    s.Dense(3).Csr({1, 2, 2, 3}, {1, 3, 0});  // segments must start at 0
    Refusal(s.get(), {3, 4}, 3);
  }
  {
    SparsityBuilder s({0, 1}, {});
    s.Dense(3).Csr({0, 3, 2, 3}, {1, 3, 0});  // decreasing segments
    Refusal(s.get(), {3, 4}, 3);
  }
  {
    SparsityBuilder s({0, 1}, {});
    s.Dense(3).Csr({0, 2, 2, 3}, {1, 3, 0});
    EXPECT_NE(Refusal(s.get(), {3, 4}, 4).find("encodes 3 values"), std::string::npos);  // value count
  }
  {
    SparsityBuilder s({0, 0}, {});  // not a permutation
    s.Dense(3).Dense(4);
    Refusal(s.get(), {3, 4}, 12);
  }
  {
    SparsityBuilder s({0, 1}, {});
    s.Dense(2).Dense(4);  // dense_size disagrees with the shape
    Refusal(s.get(), {3, 4}, 8);
  }
  {
    SparsityBuilder s({0, 2, 1, 3}, {0, 1});  // block dimension before an original one
    s.Dense(2).Dense(2).Dense(2).Dense(2);
    Refusal(s.get(), {4, 4}, 16);
  }
  {
    SparsityBuilder s({0, 1, 2, 3}, {1, 0});  // block_map out of order
    s.Dense(2).Dense(2).Dense(2).Dense(2);
    Refusal(s.get(), {4, 4}, 16);
  }
  {
    SparsityBuilder s({0, 1, 2}, {1});  // a sparse block level
    s.Dense(4).Dense(2).Csr({0, 1, 1, 1, 1, 1, 1, 1, 1}, {0});
    Refusal(s.get(), {4, 4}, 1);
  }
  {
    SparsityBuilder s({0, 1}, {});  // fewer dim_metadata entries than levels
    s.Dense(3);
    Refusal(s.get(), {3, 4}, 12);
  }
  {
    SparsityBuilder s({0, 1}, {0});  // block_map without a block level
    s.Dense(3).Dense(4);
    Refusal(s.get(), {3, 4}, 12);
  }
}

TEST(SparsityTest, SizeMismatchesAreRefusedWithoutWriting) {
  SparsityBuilder s({0, 1}, {});
  s.Dense(3).Csr({0, 2, 2, 3}, {1, 3, 0});
  Shape shape({3, 4});
  std::vector<float> values = {1, 2, 3};
  std::vector<float> dense(12, 7.f);
  std::string error;
  // Values not a whole number of elements; dense buffer of the wrong size.
  EXPECT_FALSE(sparsity::SparseToDense(s.get(), shape.array, sizeof(float), values.data(), 11, dense.data(),
                                       dense.size() * sizeof(float), &error));
  EXPECT_FALSE(sparsity::SparseToDense(s.get(), shape.array, sizeof(float), values.data(), 12, dense.data(),
                                       11 * sizeof(float), &error));
  EXPECT_EQ(dense, std::vector<float>(12, 7.f));
}

// ---------------------------------------------------------------------------------------------
// Sparse tensors: from the model file's SparsityParameters.

// Builds a serialized SparsityParameters table; `levels` says per level either a dense size or a
// CSR pair of index vectors of the given element type.
struct FbLevel {
  int dense_size = -1;  // >= 0: DENSE
  fb::SparseIndexVector type = fb::SparseIndexVector::NONE;
  std::vector<int> segments;
  std::vector<int> indices;
  int format = -1;  // overrides the format byte when >= 0
};

flatbuffers::Offset<void> IndexVector(flatbuffers::FlatBufferBuilder& fbb, fb::SparseIndexVector type,
                                      const std::vector<int>& v) {
  switch (type) {
    case fb::SparseIndexVector::Int32Vector:
      return fb::CreateInt32Vector(fbb, fbb.CreateVector(std::vector<int32_t>(v.begin(), v.end()))).Union();
    case fb::SparseIndexVector::Uint16Vector:
      return fb::CreateUint16Vector(fbb, fbb.CreateVector(std::vector<uint16_t>(v.begin(), v.end()))).Union();
    case fb::SparseIndexVector::Uint8Vector:
      return fb::CreateUint8Vector(fbb, fbb.CreateVector(std::vector<uint8_t>(v.begin(), v.end()))).Union();
    default:
      return 0;
  }
}

std::vector<uint8_t> SerializeSparsity(const std::vector<int>& order, const std::vector<int>& block_map,
                                       const std::vector<FbLevel>& levels) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::DimensionMetadata>> metadata;
  for (const FbLevel& l : levels) {
    fb::DimensionType format = l.dense_size >= 0 ? fb::DimensionType::DENSE : fb::DimensionType::SPARSE_CSR;
    if (l.format >= 0) format = static_cast<fb::DimensionType>(l.format);
    const auto segments = IndexVector(fbb, l.type, l.segments);
    const auto indices = IndexVector(fbb, l.type, l.indices);
    metadata.push_back(
        fb::CreateDimensionMetadata(fbb, format, std::max(l.dense_size, 0), l.type, segments, l.type, indices));
  }
  const auto order_vector = fbb.CreateVector(order);
  const auto map_vector = block_map.empty() ? 0 : fbb.CreateVector(block_map);
  fbb.Finish(fb::CreateSparsityParameters(fbb, order_vector, map_vector, fbb.CreateVector(metadata)));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(SparsityFromFlatbufferTest, WidensEveryIndexTypeAndExpands) {
  for (fb::SparseIndexVector type :
       {fb::SparseIndexVector::Int32Vector, fb::SparseIndexVector::Uint16Vector, fb::SparseIndexVector::Uint8Vector}) {
    FbLevel rows;
    rows.dense_size = 2;
    FbLevel columns;
    columns.type = type;
    columns.segments = {0, 2, 3};
    columns.indices = {0, 1, 1};
    FbLevel inner;
    inner.dense_size = 2;
    const std::vector<uint8_t> bytes = SerializeSparsity({0, 1, 2, 3}, {0, 1}, {rows, columns, inner, inner});
    Shape shape({4, 4});
    std::string error;
    TfLiteSparsity* s = sparsity::SparsityFromFlatbuffer(flatbuffers::GetRoot<fb::SparsityParameters>(bytes.data()),
                                                         shape.array, 1, 12, &error);
    ASSERT_NE(s, nullptr) << error;
    ASSERT_EQ(s->dim_metadata_size, 4);
    EXPECT_EQ(s->dim_metadata[1].format, kTfLiteDimSparseCSR);
    EXPECT_EQ(s->dim_metadata[1].array_indices->size, 3);
    EXPECT_EQ(s->dim_metadata[1].array_indices->data[2], 1);
    EXPECT_EQ(s->dim_metadata[3].dense_size, 2);
    EXPECT_EQ(Expand<int8_t>(*s, {4, 4}, {1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6}),
              (std::vector<int8_t>{1, 0, 2, 3, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6}));
    TfLiteSparsityFree(s);
  }
}

TEST(SparsityFromFlatbufferTest, RefusesMalformedParameters) {
  Shape shape({3, 4});
  auto convert = [&](const std::vector<uint8_t>& bytes, size_t value_bytes) {
    std::string error;
    TfLiteSparsity* s = sparsity::SparsityFromFlatbuffer(flatbuffers::GetRoot<fb::SparsityParameters>(bytes.data()),
                                                         shape.array, 4, value_bytes, &error);
    TfLiteSparsityFree(s);
    return s == nullptr && !error.empty();
  };
  FbLevel rows;
  rows.dense_size = 3;
  FbLevel columns;
  columns.type = fb::SparseIndexVector::Uint8Vector;
  columns.segments = {0, 2, 2, 3};
  columns.indices = {1, 3, 0};
  EXPECT_FALSE(convert(SerializeSparsity({0, 1}, {}, {rows, columns}), 12));  // well-formed

  EXPECT_TRUE(convert(SerializeSparsity({0, 1}, {}, {rows, columns}), 16));  // 4 values, 3 encoded
  EXPECT_TRUE(convert(SerializeSparsity({0, 1}, {}, {rows, columns}), 10));  // not whole floats
  FbLevel missing = columns;
  missing.type = fb::SparseIndexVector::NONE;  // CSR without its vectors
  EXPECT_TRUE(convert(SerializeSparsity({0, 1}, {}, {rows, missing}), 12));
  FbLevel unknown = rows;
  unknown.format = 5;
  EXPECT_TRUE(convert(SerializeSparsity({0, 1}, {}, {unknown, columns}), 12));
  FbLevel out_of_range = columns;
  out_of_range.indices = {1, 3, 200};
  EXPECT_TRUE(convert(SerializeSparsity({0, 1}, {}, {rows, out_of_range}), 12));
  EXPECT_TRUE(convert(SerializeSparsity({0, 1, 2}, {}, {rows, columns, rows}), 12));  // 3 levels, rank 2
  EXPECT_TRUE(convert(SerializeSparsity({}, {}, {}), 0));
  EXPECT_EQ(sparsity::SparsityFromFlatbuffer(nullptr, shape.array, 4, 12, nullptr), nullptr);
}

// ---------------------------------------------------------------------------------------------
// DENSIFY. Its input is a sparse constant, which ModelBuilder does not write, so these tests run
// the kernel through a minimal TfLiteContext of two tensors.

class DensifyHarness {
 public:
  DensifyHarness(TfLiteType type, const std::vector<int>& shape, TfLiteSparsity* sparsity, std::vector<uint8_t> values,
                 TfLiteAllocationType input_allocation = kTfLiteMmapRo)
      : values_(std::move(values)) {
    std::memset(tensors_, 0, sizeof(tensors_));
    TfLiteTensor& in = tensors_[0];
    in.type = type;
    in.dims = TfLiteIntArrayCreate(static_cast<int>(shape.size()));
    for (size_t i = 0; i < shape.size(); ++i) in.dims->data[i] = shape[i];
    in.allocation_type = input_allocation;
    in.data.raw = reinterpret_cast<char*>(values_.data());
    in.bytes = values_.size();
    in.sparsity = sparsity;
    TfLiteTensor& out = tensors_[1];
    out.type = type;
    out.dims = TfLiteIntArrayCreate(0);
    out.allocation_type = kTfLiteArenaRw;
    std::memset(&context_, 0, sizeof(context_));
    context_.tensors = tensors_;
    context_.tensors_size = 2;
    context_.ResizeTensor = Resize;
    context_.ReportError = Report;
    std::memset(&node_, 0, sizeof(node_));
    node_.inputs = TfLiteIntArrayCreate(1);
    node_.inputs->data[0] = 0;
    node_.outputs = TfLiteIntArrayCreate(1);
    node_.outputs->data[0] = 1;
    registration_ = reference::Register_DENSIFY();
  }
  ~DensifyHarness() {
    tensors_[0].data.raw = nullptr;  // not the tensor's to free
    TfLiteTensorFree(&tensors_[0]);
    TfLiteTensorFree(&tensors_[1]);
    TfLiteIntArrayFree(node_.inputs);
    TfLiteIntArrayFree(node_.outputs);
  }
  TfLiteStatus Run() {
    last_error().clear();
    if (registration_->prepare(&context_, &node_) != kTfLiteOk) return kTfLiteError;
    return registration_->invoke(&context_, &node_);
  }
  const TfLiteTensor& output() const { return tensors_[1]; }
  static std::string& last_error() {
    static std::string error;
    return error;
  }

 private:
  static TfLiteStatus Resize(TfLiteContext*, TfLiteTensor* tensor, TfLiteIntArray* dims) {
    const size_t bytes = static_cast<size_t>(tflite::NumElements(dims)) * tflite::TfLiteTypeGetSize(tensor->type);
    if (tensor->allocation_type == kTfLitePersistentRo || tensor->allocation_type == kTfLiteDynamic) {
      TfLiteTensorRealloc(bytes, tensor);
    }
    TfLiteIntArrayFree(tensor->dims);
    tensor->dims = dims;
    tensor->bytes = bytes;
    return kTfLiteOk;
  }
  static void Report(TfLiteContext*, const char* format, ...) {
    char buffer[512];
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, sizeof(buffer), format, args);
    va_end(args);
    last_error() += buffer;
  }
  std::vector<uint8_t> values_;
  TfLiteTensor tensors_[2];
  TfLiteContext context_;
  TfLiteNode node_;
  TfLiteRegistration* registration_;
};

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

TEST(DensifyTest, ExpandsBlockSparseInt8IntoAPersistentOutput) {
  SparsityBuilder s({0, 1, 2, 3}, {0, 1});
  s.Dense(2).Csr({0, 2, 3}, {0, 1, 1}).Dense(2).Dense(2);
  DensifyHarness h(kTfLiteInt8, {4, 4}, s.release(), Bytes<int8_t>({1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6}));
  ASSERT_EQ(h.Run(), kTfLiteOk) << DensifyHarness::last_error();
  EXPECT_EQ(h.output().allocation_type, kTfLitePersistentRo);
  ASSERT_EQ(h.output().bytes, 16u);
  const auto* out = reinterpret_cast<const int8_t*>(h.output().data.raw);
  EXPECT_EQ(std::vector<int8_t>(out, out + 16), (std::vector<int8_t>{1, 0, 2, 3, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6}));
}

TEST(DensifyTest, ExpandsCsrFloat16Weights) {
  // [2, 1, 1, 3] conv weights, the layout of face_detection_full_range_sparse: three dense levels,
  // the last CSR. Output channel 0 keeps input channel 2, channel 1 keeps channels 0 and 1.
  SparsityBuilder s({0, 1, 2, 3}, {});
  s.Dense(2).Dense(1).Dense(1).Csr({0, 1, 3}, {2, 0, 1});
  DensifyHarness h(kTfLiteFloat16, {2, 1, 1, 3}, s.release(), Bytes<uint16_t>({0x3C00, 0x4000, 0xC200}));
  ASSERT_EQ(h.Run(), kTfLiteOk) << DensifyHarness::last_error();
  const auto* out = reinterpret_cast<const uint16_t*>(h.output().data.raw);
  EXPECT_EQ(std::vector<uint16_t>(out, out + 6), (std::vector<uint16_t>{0, 0, 0x3C00, 0x4000, 0xC200, 0}));
}

TEST(DensifyTest, Refusals) {
  {
    // Not a constant.
    SparsityBuilder s({0}, {});
    s.Dense(2);
    DensifyHarness h(kTfLiteFloat32, {2}, s.release(), Bytes<float>({1, 2}), kTfLiteArenaRw);
    EXPECT_EQ(h.Run(), kTfLiteError);
  }
  {
    // A constant without sparsity.
    DensifyHarness h(kTfLiteFloat32, {2}, nullptr, Bytes<float>({1, 2}));
    EXPECT_EQ(h.Run(), kTfLiteError);
  }
  {
    // INT32 is not a type TFLite's DENSIFY handles.
    SparsityBuilder s({0}, {});
    s.Dense(2);
    DensifyHarness h(kTfLiteInt32, {2}, s.release(), Bytes<int32_t>({1, 2}));
    EXPECT_EQ(h.Run(), kTfLiteError);
  }
  {
    // One value short of what the encoding needs.
    SparsityBuilder s({0, 1}, {});
    s.Dense(2).Csr({0, 1, 3}, {2, 0, 1});
    DensifyHarness h(kTfLiteFloat32, {2, 3}, s.release(), Bytes<float>({1, 2}));
    EXPECT_EQ(h.Run(), kTfLiteError);
    EXPECT_NE(DensifyHarness::last_error().find("encodes 3 values"), std::string::npos);
  }
}

// ---------------------------------------------------------------------------------------------
// The fixed-point helpers QUANTIZE uses.

TEST(QuantizationUtilTest, MultiplierAndDoubleRounding) {
  int32_t multiplier;
  int shift;
  quantization_util::QuantizeMultiplier(1.0 / 3.0, &multiplier, &shift);
  EXPECT_EQ(multiplier, 1431655765);
  EXPECT_EQ(shift, -1);
  quantization_util::QuantizeMultiplier(100.0, &multiplier, &shift);  // 0.78125 * 2^7
  EXPECT_EQ(multiplier, 1677721600);
  EXPECT_EQ(shift, 7);
  quantization_util::QuantizeMultiplier(std::numeric_limits<double>::infinity(), &multiplier, &shift);
  EXPECT_EQ(multiplier, 0);
  EXPECT_EQ(shift, 0);
  EXPECT_EQ(quantization_util::MultiplyByQuantizedMultiplier(1, 1431655765, -1), 1);
  EXPECT_EQ(quantization_util::MultiplyByQuantizedMultiplier(-1, 1431655765, -1), -1);
  EXPECT_EQ(quantization_util::MultiplyByQuantizedMultiplier(-4, 1431655765, -1), -2);
  EXPECT_EQ(quantization_util::MultiplyByQuantizedMultiplier(3, 1677721600, 7), 300);
}

}  // namespace
}  // namespace touchstone
