// int8 matrix-vector products on AVX-512 VNNI. Handed out only where the CPU has it
// (Int8GemvKernelsFor); enabled per function (target pragma).
//
// Layout: blocks of 16 rows; per block, for each group of 4 columns, 64 bytes (row j of the block
// in bytes 4j..4j+3, zeros past the matrix), then 16 int32: 128 times each row's sum. The vector's
// bytes x become u = x + 128 (x ^ 0x80, unsigned), broadcast 4 at a time, and vpdpbusd adds
// sum u * w = sum x * w + 128 * sum w to lane j; subtracting the packed term leaves the product.
// Everything wraps modulo 2^32.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/optimized/count_dispatch.h"
#include "runtime/kernels/optimized/int8_gemv.h"
#include "runtime/kernels/optimized/isa_target.h"

#if defined(__x86_64__)
#include <immintrin.h>

TS_TARGET_BEGIN("avx512f,avx512bw,avx512vnni,avx2,avx")

namespace touchstone {
namespace optimized {
namespace int8_gemv_avx512 {
namespace {

constexpr const char* kName = "avx512vnni";
constexpr size_t kRows = 16;  // rows per block

size_t Groups(size_t depth) { return (depth + 3) / 4; }
size_t BlockBytes(size_t depth) { return Groups(depth) * 64 + kRows * sizeof(int32_t); }

// Row j of a block: its bytes in lane j of each group's 64 bytes, and 128 times its sum after the
// groups.
void PackRow(const int8_t* row, size_t depth, size_t j, uint8_t* block) {
  uint32_t sum = 0;
  for (size_t k = 0; k < depth; ++k) {
    block[(k / 4) * 64 + j * 4 + k % 4] = static_cast<uint8_t>(row[k]);
    sum += static_cast<uint32_t>(int32_t{row[k]});
  }
  const int32_t term = static_cast<int32_t>(sum * 128u);
  std::memcpy(block + Groups(depth) * 64 + j * sizeof(int32_t), &term, sizeof(term));
}

// The 4 bytes of group g as u = x ^ 0x80 each (bytes past depth read as x = 0).
inline int32_t GroupOf(const int8_t* x, size_t depth, size_t g) {
  uint32_t bytes = 0;
  std::memcpy(&bytes, x + 4 * g, std::min<size_t>(4, depth - 4 * g));
  return static_cast<int32_t>(bytes ^ 0x80808080u);
}

template <int kBlocks>
inline void Blocks(const uint8_t* packed, size_t depth, const int8_t* x, size_t rows, int32_t* out) {
  const size_t groups = Groups(depth);
  const size_t full_groups = depth / 4;
  const size_t block_bytes = BlockBytes(depth);
  __m512i acc[kBlocks];
  for (int i = 0; i < kBlocks; ++i) acc[i] = _mm512_setzero_si512();
  for (size_t g = 0; g < groups; ++g) {
    int32_t group;
    if (g < full_groups) {
      std::memcpy(&group, x + 4 * g, sizeof(group));
      group ^= static_cast<int32_t>(0x80808080u);
    } else {
      group = GroupOf(x, depth, g);
    }
    const __m512i u = _mm512_set1_epi32(group);
    for (int i = 0; i < kBlocks; ++i) {
      const __m512i w = _mm512_loadu_si512(packed + i * block_bytes + g * 64);
      acc[i] = _mm512_dpbusd_epi32(acc[i], u, w);
    }
  }
  for (int i = 0; i < kBlocks; ++i) {
    const __m512i term = _mm512_loadu_si512(packed + i * block_bytes + groups * 64);
    const __m512i result = _mm512_sub_epi32(acc[i], term);
    const size_t first = i * kRows;
    if (first + kRows <= rows) {
      _mm512_storeu_si512(out + first, result);
    } else {
      const __mmask16 mask = static_cast<__mmask16>((1u << (rows - first)) - 1);
      _mm512_mask_storeu_epi32(out + first, mask, result);
    }
  }
}

}  // namespace

#include "runtime/kernels/optimized/int8_gemv_blocked.inc"

}  // namespace int8_gemv_avx512
}  // namespace optimized
}  // namespace touchstone

TS_TARGET_END

#endif  // __x86_64__
