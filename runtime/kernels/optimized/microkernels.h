// The vectorised inner loops of the optimized float kernels, one set per instruction set, chosen
// once per process: AVX-512F, AVX + FMA (x86-64, by __builtin_cpu_supports at run time), SSE2
// (the x86-64 baseline), NEON (aarch64, at build time), and a portable scalar set. Each set is the
// same templated source (microkernels_impl.inc) compiled for its instruction set in its own file
// (isa_*.cc); code outside those files never runs wider instructions than the CPU has.
//
// The operator code (conv_2d.cc, fully_connected.cc, ...) prepares operands in the layouts
// described here (packed weights, indirection buffers) and splits the work over the thread pool.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_MICROKERNELS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_MICROKERNELS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/aligned_vector.h"

namespace touchstone {
namespace optimized {

// Floats in one cache line, and a count of floats rounded up to whole lines.
constexpr size_t kCacheLineFloats = kCacheLineBytes / sizeof(float);
inline size_t RoundUpToLineFloats(size_t floats) {
  return (floats + kCacheLineFloats - 1) / kCacheLineFloats * kCacheLineFloats;
}

constexpr int kMaxGemmMr = 8;

// Indirect GEMM: c[r][n] = clamp(bias[n] + sum over taps t and k < kc of a(r, t)[k] * w(t, k, n)),
// for r < mr (the kernel variant) and n < nc.
// - a: row r's pointer for tap t is a[r * a_row_stride + t]; each points at kc floats. A pointer
//   equal to `zero` (a buffer of at least kc zeros) stands for padding and is used as is; any other
//   gets a_offset floats added (the channel offset of a convolution group).
// - w: packed weights, panels of NR columns one after another (PackGemmWeights): per panel NR bias
//   values, then for each tap t and k < kc the NR weights w(t, k, n..n+NR). Columns past the real
//   output count are zero.
// - c: row r starts at c + r * c_stride; nc columns are written (the last panel may be partial).
struct GemmArgs {
  size_t nc = 0;
  size_t kc = 0;
  size_t ks = 1;
  const float* const* a = nullptr;
  size_t a_row_stride = 1;
  size_t a_offset = 0;
  const float* zero = nullptr;
  const float* w = nullptr;
  float* c = nullptr;
  size_t c_stride = 0;
  float min = 0.f;
  float max = 0.f;
};
using GemmFn = void (*)(const GemmArgs& args);

// What the two depthwise convolution kernels (depth multiplier 1) share: `pixels` output pixels of
// `channels` channels, `taps` taps with weights w[t * channels + ch], bias[ch] (null: zeros), the
// output and its clamp.
struct DepthwiseArgs {
  size_t channels = 0;
  size_t taps = 0;
  size_t pixels = 0;
  const float* w = nullptr;
  const float* bias = nullptr;
  float* out = nullptr;
  float min = 0.f;
  float max = 0.f;
};

// Depthwise convolution through a pointer per pixel and tap:
// out[p][ch] = clamp(bias[ch] + sum over t of in[p * taps + t][ch] * w[t * channels + ch]).
// Padding taps point at `zero` (channels zeros).
struct DwConvArgs : DepthwiseArgs {
  const float* const* in = nullptr;
  size_t out_pixel_stride = 0;
};
using DwConvFn = void (*)(const DwConvArgs& args);

// Depthwise convolution of a run of output pixels of one row whose windows lie inside the input
// horizontally, read straight from the input rows: tap t of pixel x reads the `channels` floats at
// tap_in[t] + x * x_step (tap_in[t] is pixel 0's input for tap t, a row of zeros for a tap row
// outside the input), so
// out[x * channels + ch] = clamp(bias[ch] + sum over t of tap_in[t][x * x_step + ch] * w[t * channels + ch]),
// summed in tap order as DwConvArgs' kernel does. Unlike it, every input row is read in place and
// no pointer is loaded per pixel and tap.
struct DwRowArgs : DepthwiseArgs {
  const float* const* tap_in = nullptr;
  size_t x_step = 0;  // floats between the inputs of neighbouring output pixels (stride x channels)
  // Channels computed, from the first (tap_in, w, bias and out point at the first); `channels`
  // stays the distance between pixels' (and taps') values. 0: all `channels`.
  size_t channel_count = 0;
  // 3 or 5 when the taps are kernel rows of that many adjacent input pixels read with stride 1
  // (tap_in[ky * kernel_width + kx] == tap_in[ky * kernel_width] + kx * x_step and x_step ==
  // channels): the kernel then loads each input once per kernel row for all the pixels whose
  // windows hold it. 0: no such structure. The sums are the same either way.
  size_t kernel_width = 0;
};
using DwRowFn = void (*)(const DwRowArgs& args);

// A convolution with few input channels and 8 output channels (a model's first layer, where a
// GEMM over 16-float registers would leave half of each idle), over planar input rows, for one row
// of output pixels: out[x * 8 + o] = clamp(bias[o] + sum over t < taps of tap_in[t][x] *
// tap_w[t][o]) for x < pixels, the taps summed in order. tap_in[t] holds, for every output pixel,
// the input value tap t reads (rows outside the input are left out of the list); it is readable up
// to pixels rounded up to a whole register.
struct PlanarConvArgs {
  size_t pixels = 0;
  size_t taps = 0;
  const float* const* tap_in = nullptr;
  const float* const* tap_w = nullptr;  // per tap, 8 weights
  const float* bias = nullptr;          // 8, or null (zeros)
  float* out = nullptr;                 // the row's first pixel; pixels * 8 floats
  float min = 0.f;
  float max = 0.f;
};
using PlanarConvFn = void (*)(const PlanarConvArgs& args);

// Splits pixels of 3 channels into the planes of stride 2 (PlanarConvArgs' input): for e < elements
// (a multiple of 16) and k < 6, planes[k][e] = in[6 * e + k], i.e. channel k % 3 of column
// 2e + k / 3.
using PlanarSplit3x2Fn = void (*)(const float* in, size_t elements, float* const* planes);

// Pooling of one output pixel over `count` input pixels (window clipped to the input):
// max: out[ch] = clamp(max over i of in[i][ch]); average: clamp((sum over i in order) / count).
using PoolFn = void (*)(size_t channels, size_t count, const float* const* in, float* out, float min, float max);

// out[i] = clamp(a[i] op b[i]) for i < n; with b_scalar, b[0] for every i.
using BinaryFn = void (*)(size_t n, const float* a, const float* b, bool b_scalar, float* out, float min, float max);

// The sum of x[0..n), in vector lanes (not the reference's order: float MEAN/SUM).
using SumFn = float (*)(size_t n, const float* x);

// One row of softmax: out[i] = exp((in[i] - max) * beta) / sum. `out` may be `in` (each element is
// read before it is written).
using SoftmaxFn = void (*)(size_t n, const float* in, float* out, float beta);

// out[i] = f(in[i]) for i < n (in == out allowed): sigmoid 1 / (1 + e^-x) and tanh, within a few
// float ulps of the exact value (tanh's relative error stays small near 0 too).
using UnaryFn = void (*)(size_t n, const float* in, float* out);

// out[i] = min(max(lo, in[i]), hi) for i < n (in == out allowed), as the reference RELU, RELU6,
// RELU_N1_TO_1 and RELU_0_TO_1 compute it (std::min(std::max(lo, x), hi)): a NaN gives lo.
using ClampFn = void (*)(size_t n, const float* in, float* out, float lo, float hi);

// Integer dot products of int8 vectors, for the hybrid (float activations, int8 weights) kernels:
// out[j] = sum over i < k of a[i] * w[j * w_stride + i], in 32 bits that wrap (the low 32 bits of the
// exact sum, as TFLite's kernels keep), for j < n.
using Int8DotsFn = void (*)(const int8_t* a, const int8_t* w, size_t k, size_t w_stride, size_t n, int32_t* out);

// One output row of a bilinear resize: for each x < width, with tl = top + x0[x] * channels,
// tr = top + x1[x] * channels and bl, br the same in `bottom`:
// out[x * channels + c] = tl[c] * (1 - dy) * (1 - dx[x]) + bl[c] * dy * (1 - dx[x])
//                       + tr[c] * (1 - dy) * dx[x] + br[c] * dy * dx[x],
// each product and sum rounded in that order (the reference expression, so results are exact).
using BilinearRowFn = void (*)(size_t channels, size_t width, const float* top, const float* bottom, const int32_t* x0,
                               const int32_t* x1, const float* dx, float dy, float* out);

// One GEMM shape: panels of nr columns, up to mr rows per call; fn[r] computes r rows (1 <= r <= mr).
struct GemmVariant {
  int mr = 1;
  int nr = 1;
  GemmFn fn[kMaxGemmMr + 1] = {};
};

struct MicroKernels {
  const char* name = "";
  int float_lanes = 1;      // floats per vector register
  GemmVariant gemm;         // two vectors wide: the general case
  GemmVariant gemm_narrow;  // one vector wide: few output columns
  DwConvFn dwconv = nullptr;
  DwRowFn dwconv_row = nullptr;
  PoolFn max_pool = nullptr;
  PoolFn avg_pool = nullptr;
  BinaryFn add = nullptr;
  BinaryFn mul = nullptr;
  SoftmaxFn softmax = nullptr;
  SumFn sum = nullptr;
  UnaryFn sigmoid = nullptr;
  UnaryFn tanh = nullptr;
  ClampFn relu = nullptr;
  Int8DotsFn int8_dots = nullptr;
  BilinearRowFn bilinear_row = nullptr;
  // Null where the set has none (only AVX-512 has one): conv_2d.cc then uses the GEMM.
  PlanarConvFn planar_conv = nullptr;
  PlanarSplit3x2Fn planar_split_3x2 = nullptr;
};

// The kernel set in use. The first call picks the widest set the CPU runs, unless the environment
// variable TOUCHSTONE_CPU_KERNELS names another available one (e.g. "sse2").
const MicroKernels& Kernels();

// Names of the sets this build and this CPU can run, widest first (always ends with "scalar").
std::vector<std::string> AvailableKernelSets();

// Switches the set in use (tests). Weights packed for one set must not be used with another, so
// call it only while no optimized kernel is prepared. False if `name` is not available.
bool SelectKernelSet(const std::string& name);

// ---- Packed weights (packing.cc).

// Packs weights for the GEMM of `n` output columns, `ks` taps of `kc` inputs each: weight (t, k) of
// column j is src[j * col_stride + t * tap_stride + k * k_stride]; bias may be null (zeros).
// Returns the packed floats (ceil(n / nr) panels).
void PackGemmWeights(size_t n, size_t ks, size_t kc, const float* src, size_t col_stride, size_t tap_stride,
                     size_t k_stride, const float* bias, int nr, CacheAlignedVector<float>* packed);

// Floats of one packed panel.
inline size_t PackedPanelSize(size_t ks, size_t kc, int nr) { return static_cast<size_t>(nr) * (1 + ks * kc); }

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_MICROKERNELS_H_
