// int8 matrix-vector products on AVX2. Handed out only where the CPU has it (Int8GemvKernelsFor);
// enabled per function (target pragma).
//
// Layout: blocks of 8 rows; per block, for each pair of columns, 16 bytes (row j of the block as
// the pair w[2p], w[2p + 1] in bytes 2j and 2j + 1, zeros past the matrix), sign-extended to int16
// lanes as loaded: the weights stream at a byte each (a fully connected layer of one row is bound
// by reading them), and take the matrix's own bytes in memory. The vector's pair, widened to int16
// and broadcast, times a pair's lanes with vpmaddwd gives each row's two products summed
// (|sum| <= 2^15, exact); the sums add up in int32 lanes that wrap.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/count_dispatch.h"
#include "runtime/kernels/optimized/int8_gemv.h"
#include "runtime/kernels/optimized/isa_target.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_TARGET_BEGIN("avx2,avx")

namespace touchstone {
namespace optimized {
namespace int8_gemv_avx2 {
namespace {

constexpr const char* kName = "avx2";
constexpr size_t kRows = 8;  // rows per block

size_t Pairs(size_t depth) { return (depth + 1) / 2; }
size_t BlockBytes(size_t depth) { return Pairs(depth) * 16; }

// Row j of a block: its pairs in bytes 2j and 2j + 1 of each pair's 16 bytes.
void PackRow(const int8_t* row, size_t depth, size_t j, uint8_t* block) {
  for (size_t k = 0; k < depth; ++k) block[(k / 2) * 16 + j * 2 + k % 2] = static_cast<uint8_t>(row[k]);
}

template <int kBlocks>
inline void Blocks(const uint8_t* packed, size_t depth, const int8_t* x, size_t rows, int32_t* out) {
  const size_t pairs = Pairs(depth);
  const size_t block_bytes = BlockBytes(depth);
  __m256i acc[kBlocks];
  for (int i = 0; i < kBlocks; ++i) acc[i] = _mm256_setzero_si256();
  for (size_t p = 0; p < pairs; ++p) {
    const int16_t low = x[2 * p];
    const int16_t high = 2 * p + 1 < depth ? x[2 * p + 1] : 0;
    const __m256i xv = _mm256_set1_epi32(
        static_cast<int32_t>(static_cast<uint16_t>(low) | (static_cast<uint32_t>(static_cast<uint16_t>(high)) << 16)));
    for (int i = 0; i < kBlocks; ++i) {
      const __m256i w =
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(packed + i * block_bytes + p * 16)));
      acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(xv, w));
    }
  }
  for (int i = 0; i < kBlocks; ++i) {
    const size_t first = i * kRows;
    if (first + kRows <= rows) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + first), acc[i]);
    } else {
      int32_t lanes[kRows];
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), acc[i]);
      std::memcpy(out + first, lanes, (rows - first) * sizeof(int32_t));
    }
  }
}

}  // namespace

#include "runtime/kernels/optimized/int8_gemv_blocked.inc"

}  // namespace int8_gemv_avx2
}  // namespace optimized
}  // namespace touchstone

TS_TARGET_END

#endif  // __x86_64__
