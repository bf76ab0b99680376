// The portable quantized microkernels: plain C++, one element at a time, the output stage through
// the reference's own quantization_util functions. Every build has them; they are the fallback on
// CPUs without AVX2 and the yardstick the SIMD sets are tested against.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/optimized/quant_kernels.h"

namespace touchstone {
namespace optimized {
namespace qisa_scalar {
namespace {

// Wrapping int32 addition (the reference keeps the low 32 bits of its sums).
inline int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

inline uint8_t Output(const QuantOutputStage& s, int column, int32_t acc) {
  const int32_t v = Wrap(int64_t{acc} + s.col_term[column]);
  const int c = column & s.column_mask;  // the constants' column (0 for a layer of one scale)
  int32_t scaled = s.rounding_up
                       ? quantization_util::MultiplyByQuantizedMultiplierRoundingUp(v, s.multiplier[c], s.shift[c])
                       : quantization_util::MultiplyByQuantizedMultiplier(v, s.multiplier[c], s.shift[c]);
  scaled = quantization_util::WrappingAdd(scaled, s.output_offset);
  return static_cast<uint8_t>(std::min(std::max(scaled, s.act_min), s.act_max));
}

size_t PackedBSize(int n, size_t kp) { return static_cast<size_t>(n) * kp; }
void PackB(const uint8_t* d, int n, size_t kp, bool, uint8_t* packed) {
  std::memcpy(packed, d, static_cast<size_t>(n) * kp);
}

void RowSums(const uint8_t* a, size_t a_stride, int rows, size_t k, bool is_signed, int32_t* sums) {
  for (int r = 0; r < rows; ++r) {
    const uint8_t* row = a + r * a_stride;
    // Wrapping (unsigned) beyond 2^31: only the sum modulo 2^32 reaches the output stage.
    uint32_t sum = 0;
    for (size_t i = 0; i < k; ++i) {
      sum += static_cast<uint32_t>(is_signed ? static_cast<int32_t>(static_cast<int8_t>(row[i])) : row[i]);
    }
    sums[r] = static_cast<int32_t>(sum);
  }
}

// x is the input's type, d the other signedness.
template <typename X, typename D>
void Gemm(const QGemmArgs& g) {
  for (int r = 0; r < g.rows; ++r) {
    const X* x = reinterpret_cast<const X*>(g.a + r * g.a_stride);
    uint8_t* c = g.c + r * g.c_stride;
    for (int n = g.n_begin; n < g.n_end; ++n) {
      const D* d = reinterpret_cast<const D*>(g.packed_b + static_cast<size_t>(n) * g.kp);
      uint32_t dot = 0;
      for (size_t k = 0; k < g.kp; ++k) {
        dot += static_cast<uint32_t>(static_cast<int32_t>(x[k]) * static_cast<int32_t>(d[k]));
      }
      c[n] = Output(*g.stage, n, Wrap(int64_t{static_cast<int32_t>(dot)} + g.row_terms[r]));
    }
  }
}

size_t DwPackedSize(int channels, int taps) { return static_cast<size_t>(channels) * taps * sizeof(int16_t); }
void DwPack(const int16_t* w, int channels, int taps, uint8_t* packed) {
  std::memcpy(packed, w, DwPackedSize(channels, taps));
}

template <typename X>
void Dw(const QDwArgs& a) {
  const int16_t* w = reinterpret_cast<const int16_t*>(a.packed_w);
  for (int p = 0; p < a.pixels; ++p) {
    const uint8_t* const* in = a.in + static_cast<size_t>(p) * a.taps;
    uint8_t* out = a.out + static_cast<size_t>(p) * a.channels;
    for (int c = 0; c < a.channels; ++c) {
      uint32_t acc = 0;
      for (int t = 0; t < a.taps; ++t) {
        const int32_t x = static_cast<int32_t>(reinterpret_cast<const X*>(in[t])[c]) - a.input_zero_point;
        acc += static_cast<uint32_t>(x * w[t * a.channels + c]);
      }
      out[c] = Output(*a.stage, c, static_cast<int32_t>(acc));
    }
  }
}

}  // namespace

void LookupPairs(const uint8_t* a, const uint8_t* b, int64_t n, const uint8_t* table, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = table[(static_cast<unsigned>(a[i]) << 8) | b[i]];
}

const QuantKernels* Table() {
  static const QuantKernels table = [] {
    QuantKernels t;
    t.name = "scalar";
    t.mr = 4;
    t.panel = 1;
    t.packed_b_size = PackedBSize;
    t.pack_b = PackB;
    t.row_sums = RowSums;
    t.gemm_u8 = Gemm<uint8_t, int8_t>;
    t.gemm_s8 = Gemm<int8_t, uint8_t>;
    t.dw_packed_size = DwPackedSize;
    t.dw_pack = DwPack;
    t.dw_u8 = Dw<uint8_t>;
    t.dw_s8 = Dw<int8_t>;
    t.lookup_pairs = LookupPairs;
    return t;
  }();
  return &table;
}

}  // namespace qisa_scalar

template <int kBlock>
size_t DepthwisePairsPackedSize(int channels, int taps) {
  return static_cast<size_t>((channels + kBlock - 1) / kBlock) * (taps / 2) * kBlock * 2 * sizeof(int16_t);
}

template <int kBlock>
void PackDepthwisePairs(const int16_t* w, int channels, int taps, uint8_t* packed) {
  int16_t* out = reinterpret_cast<int16_t*>(packed);
  for (int c0 = 0; c0 < channels; c0 += kBlock) {
    for (int t = 0; t < taps; t += 2) {
      for (int half = 0; half < 2; ++half) {
        for (int i = 0; i < kBlock / 2; ++i) {
          const int ch = c0 + 8 * (i / 4) + i % 4 + 4 * half;
          *out++ = ch < channels ? w[t * channels + ch] : 0;
          *out++ = ch < channels ? w[(t + 1) * channels + ch] : 0;
        }
      }
    }
  }
}

template size_t DepthwisePairsPackedSize<16>(int, int);
template size_t DepthwisePairsPackedSize<32>(int, int);
template void PackDepthwisePairs<16>(const int16_t*, int, int, uint8_t*);
template void PackDepthwisePairs<32>(const int16_t*, int, int, uint8_t*);

#if defined(__aarch64__)
bool CpuHasDotProd() {
#if defined(__linux__)
  // HWCAP_ASIMDDP from <asm/hwcap.h>, spelled out for C libraries whose headers lack it.
  constexpr unsigned long kHwcapAsimdDp = 1ul << 20;
  static const bool has = (getauxval(AT_HWCAP) & kHwcapAsimdDp) != 0;
  return has;
#else
  return false;
#endif
}
#endif

const QuantKernels& QuantKernelsFor(const MicroKernels& set) {
#if defined(__x86_64__)
  static const bool vnni = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512vnni");
  }();
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  const char* name = set.name;
  if (std::strcmp(name, "avx512") == 0 && vnni) return *qisa_avx512::Table();
  if ((std::strcmp(name, "avx512") == 0 || std::strcmp(name, "avx_fma") == 0) && avx2) {
    return *qisa_avx2::Table();
  }
#elif defined(__aarch64__)
  if (std::strcmp(set.name, "neon") == 0) {
    return CpuHasDotProd() ? *qisa_neon_dotprod::Table() : *qisa_neon::Table();
  }
#else
  (void)set;
#endif
  return *qisa_scalar::Table();
}

}  // namespace optimized
}  // namespace touchstone
