// Every int8 matrix-vector set this CPU runs against plain sums: row counts across the sets' blocks
// (1 to 70), depths across their groups (1 to 257, and one long row), random and extreme values
// (every byte -128 or 127). A plain program (exit code 0 when everything agrees).
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernels/optimized/int8_gemv.h"
#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/kernels/optimized/plain_test.h"

namespace touchstone {
namespace optimized {
namespace {

std::mt19937 g_rng(7);

std::vector<int8_t> Random(size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(dist(g_rng));
  return v;
}

void Check(const Int8GemvKernels& k, size_t rows, size_t depth, int lo, int hi) {
  const std::vector<int8_t> matrix = Random(rows * depth, lo, hi);
  const std::vector<int8_t> x = Random(depth, lo, hi);
  std::vector<uint8_t> packed(k.packed_size(rows, depth));
  k.pack(matrix.data(), rows, depth, packed.data());
  std::vector<int32_t> out(rows + 1, 12345);
  k.gemv(packed.data(), rows, depth, x.data(), out.data());
  for (size_t r = 0; r < rows; ++r) {
    int64_t sum = 0;
    for (size_t c = 0; c < depth; ++c) sum += int64_t{matrix[r * depth + c]} * x[c];
    const int32_t expected = static_cast<int32_t>(static_cast<uint32_t>(sum));
    if (out[r] != expected) {
      plain_test::Fail("%s %zux%zu row %zu: expected %d, got %d", k.name, rows, depth, r, expected, out[r]);
    }
  }
  if (out[rows] != 12345) plain_test::Fail("%s %zux%zu wrote past the last row", k.name, rows, depth);
}

int Run() {
  std::vector<std::pair<const Int8GemvKernels*, std::string>> extra;
#if defined(__aarch64__)
  // Plain NEON too where the "neon" set takes the dot-product one.
  extra.emplace_back(int8_gemv_neon::Table(), "neon");
#endif
  plain_test::CheckEachTable<Int8GemvKernels>([]() -> const Int8GemvKernels& { return Int8GemvKernelsFor(Kernels()); },
                                              [](const Int8GemvKernels& k, const std::string&) {
                                                for (size_t rows = 1; rows <= 70; rows += (rows < 20 ? 1 : 7)) {
                                                  for (size_t depth : {1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 65, 128, 257})
                                                    Check(k, rows, depth, -128, 127);
                                                }
                                                Check(k, 128, 257, -128, -128);
                                                Check(k, 33, 100, 127, 127);
                                                Check(k, 5, 5000, -128, 127);
                                              },
                                              extra);
  return plain_test::Finish();
}

}  // namespace
}  // namespace optimized
}  // namespace touchstone

int main() { return touchstone::optimized::Run(); }
