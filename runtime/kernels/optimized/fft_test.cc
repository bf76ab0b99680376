// The optimized RFFT2D and COMPLEX_ABS against the reference on every microkernel set and 1 and 4
// threads (OpCase, optimized_ops_test_util.h), byte for byte.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/optimized_ops_test_util.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using namespace optimized_test;  // NOLINT(build/namespaces): optimized_ops_test_util.h's helpers

// One RFFT2D of `shape` (..., H_in, W_in) to fft_length {height, width}.
void CheckRfft2d(const std::vector<int>& shape, int height, int width, uint32_t seed = 1) {
  OpCase op;
  std::vector<float> values = RandomFloats(Count(shape), seed, -100.f, 100.f);
  if (values.size() > 2) {
    values[1] = -0.f;  // signed zeros and integers, whose sums stay exact
    values[2] = 3.f;
  }
  const int input = op.AddInputBytes(kTfLiteFloat32, shape, Bytes(values));
  const int fft_length = op.test().AddConst<int32_t>(kTfLiteInt32, {2}, {height, width});
  const int output = op.test().AddOutput(kTfLiteComplex64);
  op.test().AddOp(kTfLiteBuiltinRfft2d, {input, fft_length}, {output});
  op.RequireOptimizedPath();
  op.Check(optimized::Register_RFFT2D(), true);
}

TEST(OptimizedFftTest, Rfft2dShapes) {
  CheckRfft2d({96, 1, 512}, 1, 512);  // yamnet's spectrogram frames
  CheckRfft2d({96, 1, 400}, 1, 512);  // zero-padded rows
  CheckRfft2d({3, 5, 600}, 4, 256);   // cropped rows and columns
  CheckRfft2d({2, 3, 8, 8}, 8, 8);    // rank 4, square
  CheckRfft2d({7, 9}, 16, 4);         // one slice, padded rows
  CheckRfft2d({1, 1}, 1, 1);
  CheckRfft2d({40, 2, 2}, 2, 2);      // many slices of a few values (several per chunk)
}

// A transform whose per-thread scratch (twice the output's bytes, in double) would pass 64 MB over
// the threads stays on the reference kernel: 1024 x 2048 needs 34 MB a thread.
TEST(OptimizedFftTest, Rfft2dLargeScratchStaysOnReference) {
  OpCase op;
  const int input = op.AddInputBytes(kTfLiteFloat32, {1, 3}, Bytes(std::vector<float>{1.f, -2.f, 0.5f}));
  const int fft_length = op.test().AddConst<int32_t>(kTfLiteInt32, {2}, {1024, 2048});
  const int output = op.test().AddOutput(kTfLiteComplex64);
  op.test().AddOp(kTfLiteBuiltinRfft2d, {input, fft_length}, {output});
  op.set_inspect([](Interpreter* interpreter, int threads, const std::string& label) {
    EXPECT_EQ(interpreter->primary()->node_kernel(0), threads == 1 ? "optimized" : "reference") << label;
  });
  op.Check(optimized::Register_RFFT2D(), true);
}

TEST(OptimizedFftTest, ComplexAbs) {
  for (const std::vector<int>& shape : std::vector<std::vector<int>>{{1}, {7, 3}, {96, 257}, {5000}}) {
    const size_t n = Count(shape);
    std::vector<float> parts = RandomFloats(2 * n, static_cast<uint32_t>(n), -1e4f, 1e4f);
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Non-finite parts (hypotf: infinity wins over NaN), extremes whose squares leave float's range,
    // denormals and zeros.
    const float special[] = {inf, nan, -inf, 3e38f, -3e38f, 1e-45f, 0.f, -0.f, 1e-20f, 4.f};
    for (size_t i = 0; i < 2 * n; i += 5) parts[i] = special[(i / 5) % (sizeof(special) / sizeof(special[0]))];
    OpCase op;
    const int input = op.AddInputBytes(kTfLiteComplex64, shape, Bytes(parts));
    const int output = op.test().AddOutput(kTfLiteFloat32);
    op.test().AddOp(kTfLiteBuiltinComplexAbs, {input}, {output});
    op.RequireOptimizedPath();
    op.Check(optimized::Register_COMPLEX_ABS(), true);
  }
}

}  // namespace
}  // namespace touchstone
