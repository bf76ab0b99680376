// Every microkernel of every set this CPU runs against plain loops written here, on random operands
// of many sizes (remainders of every vector width, padding rows, group offsets). A plain program
// (no test framework), so that it also runs under an emulator on other architectures: exit code 0
// when everything agrees.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/kernels/optimized/plain_test.h"

namespace touchstone {
namespace optimized {
namespace {

#define EXPECT(cond, ...)                           \
  do {                                              \
    if (!(cond)) {                                  \
      if (plain_test::CountFailure()) {             \
        std::fprintf(stderr, "FAILED %s: ", #cond); \
        std::fprintf(stderr, __VA_ARGS__);          \
        std::fprintf(stderr, "\n");                 \
      }                                             \
    }                                               \
  } while (0)

std::mt19937 g_rng(12345);

std::vector<float> Random(size_t n, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(g_rng);
  return v;
}

float Clamp(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

// Within `relative` of the largest magnitude of `expected`.
void ExpectClose(const std::vector<float>& expected, const std::vector<float>& actual, float relative,
                 const std::string& what) {
  float largest = 0.f;
  for (float v : expected) largest = std::max(largest, std::fabs(v));
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT(std::fabs(expected[i] - actual[i]) <= relative * largest + 1e-30f, "%s: element %zu expected %g got %g",
           what.c_str(), i, expected[i], actual[i]);
  }
}

void ExpectExact(const std::vector<float>& expected, const std::vector<float>& actual, const std::string& what) {
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT(std::memcmp(&expected[i], &actual[i], sizeof(float)) == 0, "%s: element %zu expected %.9g got %.9g",
           what.c_str(), i, expected[i], actual[i]);
  }
}

// The depthwise sums in double, clamped: out[p * out_stride + c] = clamp(bias[c] (0 without) +
// sum over taps t of input(p, t)[c] * w[t * channels + c], lo, hi).
template <typename Input>
void ExpectedDepthwise(size_t pixels, size_t channels, size_t taps, Input input, const float* w, const float* bias,
                       float lo, float hi, size_t out_stride, float* out) {
  for (size_t p = 0; p < pixels; ++p) {
    for (size_t c = 0; c < channels; ++c) {
      double sum = bias != nullptr ? bias[c] : 0.0;
      for (size_t t = 0; t < taps; ++t) sum += double(input(p, t)[c]) * w[t * channels + c];
      out[p * out_stride + c] = Clamp(static_cast<float>(sum), lo, hi);
    }
  }
}

void CheckGemm(const MicroKernels& k, const GemmVariant& variant, const std::string& name) {
  for (int rows = 1; rows <= variant.mr; ++rows) {
    for (size_t n :
         {size_t{1}, size_t(variant.nr - 1), size_t(variant.nr), size_t(variant.nr + 3), size_t(3 * variant.nr)}) {
      if (n == 0) continue;
      for (size_t kc : {size_t{1}, size_t{3}, size_t{8}, size_t{17}}) {
        for (size_t ks : {size_t{1}, size_t{4}}) {
          const size_t offset = kc;  // a group offset of one group
          const size_t stride = 2 * kc;
          // Input pixels (two groups each) and the zero row.
          std::vector<float> pixels = Random(8 * stride);
          std::vector<float> zero(kc, 0.f);
          std::vector<const float*> a(rows * ks);
          for (int r = 0; r < rows; ++r) {
            for (size_t t = 0; t < ks; ++t) {
              const size_t pick = g_rng() % 9;
              a[r * ks + t] = pick == 8 ? zero.data() : pixels.data() + pick * stride;
            }
          }
          std::vector<float> weights = Random(n * ks * kc);  // [n][ks][kc]
          std::vector<float> bias = Random(n);
          CacheAlignedVector<float> packed;
          PackGemmWeights(n, ks, kc, weights.data(), ks * kc, kc, 1, bias.data(), variant.nr, &packed);
          const size_t c_stride = n + 2;
          std::vector<float> c(rows * c_stride, 42.f), expected(rows * c_stride, 42.f);
          for (int r = 0; r < rows; ++r) {
            for (size_t j = 0; j < n; ++j) {
              double sum = bias[j];
              for (size_t t = 0; t < ks; ++t) {
                const float* in = a[r * ks + t] == zero.data() ? zero.data() : a[r * ks + t] + offset;
                for (size_t q = 0; q < kc; ++q) sum += double(in[q]) * weights[(j * ks + t) * kc + q];
              }
              expected[r * c_stride + j] = Clamp(static_cast<float>(sum), -0.5f, 0.75f);
            }
          }
          GemmArgs args;
          args.nc = n;
          args.kc = kc;
          args.ks = ks;
          args.a = a.data();
          args.a_row_stride = ks;
          args.a_offset = offset;
          args.zero = zero.data();
          args.w = packed.data();
          args.c = c.data();
          args.c_stride = c_stride;
          args.min = -0.5f;
          args.max = 0.75f;
          variant.fn[rows](args);
          ExpectClose(expected, c, 1e-5f,
                      std::string(k.name) + " " + name + " rows " + std::to_string(rows) + " n " + std::to_string(n) +
                          " kc " + std::to_string(kc) + " ks " + std::to_string(ks));
        }
      }
    }
  }
}

void CheckDwConv(const MicroKernels& k) {
  for (size_t channels = 1; channels <= 70; channels += (channels < 20 ? 1 : 7)) {
    for (size_t taps : {size_t{1}, size_t{9}}) {
      for (size_t pixels : {size_t{1}, size_t{2}, size_t{5}}) {
        for (bool with_bias : {true, false}) {
          std::vector<float> image = Random(6 * channels);
          std::vector<float> zero(channels, 0.f);
          std::vector<const float*> in(pixels * taps);
          for (auto& p : in) {
            const size_t pick = g_rng() % 7;
            p = pick == 6 ? zero.data() : image.data() + pick * channels;
          }
          std::vector<float> w = Random(taps * channels), bias = Random(channels);
          const size_t stride = channels + 1;
          std::vector<float> out(pixels * stride, 7.f), expected(pixels * stride, 7.f);
          const DwConvArgs args{
              {channels, taps, pixels, w.data(), with_bias ? bias.data() : nullptr, out.data(), -1.f, 1.f},
              in.data(),
              stride};
          ExpectedDepthwise(
              pixels, channels, taps, [&](size_t p, size_t t) { return in[p * taps + t]; }, w.data(), args.bias,
              args.min, args.max, stride, expected.data());
          k.dwconv(args);
          ExpectClose(expected, out, 1e-5f, std::string(k.name) + " dwconv channels " + std::to_string(channels));
        }
      }
    }
  }
}

// The row kernel against a double-precision sum, and its sliding form (kernel_width set) against
// its per-tap form bit for bit: both add each pixel's taps in the same order.
void CheckDwRow(const MicroKernels& k) {
  for (size_t channels : {size_t{1}, size_t{5}, size_t{16}, size_t{24}, size_t{37}}) {
    for (size_t kernel_width : {size_t{3}, size_t{5}}) {
      for (size_t kernel_rows : {size_t{1}, size_t{3}, size_t{5}}) {
        for (size_t pixels = 1; pixels <= 19; ++pixels) {
          const size_t row_floats = (pixels + kernel_width - 1) * channels;
          std::vector<float> rows = Random(kernel_rows * row_floats);
          const size_t taps = kernel_rows * kernel_width;
          std::vector<const float*> tap_in(taps);
          for (size_t ky = 0; ky < kernel_rows; ++ky) {
            for (size_t kx = 0; kx < kernel_width; ++kx) {
              tap_in[ky * kernel_width + kx] = rows.data() + ky * row_floats + kx * channels;
            }
          }
          std::vector<float> w = Random(taps * channels), bias = Random(channels);
          std::vector<float> expected(pixels * channels);
          ExpectedDepthwise(
              pixels, channels, taps, [&](size_t x, size_t t) { return tap_in[t] + x * channels; }, w.data(),
              bias.data(), -2.f, 2.f, channels, expected.data());
          DwRowArgs args{{channels, taps, pixels, w.data(), bias.data(), nullptr, -2.f, 2.f}, tap_in.data(), channels};
          std::vector<float> per_tap(pixels * channels), sliding(pixels * channels);
          args.out = per_tap.data();
          k.dwconv_row(args);
          args.kernel_width = kernel_width;
          args.out = sliding.data();
          k.dwconv_row(args);
          const std::string what = std::string(k.name) + " dwconv_row channels " + std::to_string(channels) +
                                   " kernel " + std::to_string(kernel_rows) + "x" + std::to_string(kernel_width) +
                                   " pixels " + std::to_string(pixels);
          ExpectClose(expected, per_tap, 1e-5f, what);
          ExpectExact(per_tap, sliding, what + " sliding");
        }
      }
    }
  }
}

void CheckPoolAndBinary(const MicroKernels& k) {
  for (size_t channels = 1; channels <= 70; ++channels) {
    for (size_t count : {size_t{1}, size_t{4}, size_t{9}}) {
      std::vector<float> image = Random(count * channels, -3.f, 3.f);
      std::vector<const float*> in(count);
      for (size_t i = 0; i < count; ++i) in[i] = image.data() + i * channels;
      std::vector<float> out(channels + 1, 9.f), expected_max(channels + 1, 9.f), expected_avg(channels + 1, 9.f);
      for (size_t c = 0; c < channels; ++c) {
        float m = -3.402823466e+38f, s = 0.f;
        for (size_t i = 0; i < count; ++i) {
          m = std::max(m, in[i][c]);
          s += in[i][c];
        }
        expected_max[c] = Clamp(m, 0.f, 6.f);
        expected_avg[c] = Clamp(s / static_cast<float>(count), -1.f, 2.f);
      }
      k.max_pool(channels, count, in.data(), out.data(), 0.f, 6.f);
      ExpectExact(expected_max, out, std::string(k.name) + " max_pool " + std::to_string(channels));
      k.avg_pool(channels, count, in.data(), out.data(), -1.f, 2.f);
      ExpectExact(expected_avg, out, std::string(k.name) + " avg_pool " + std::to_string(channels));
    }
  }
  for (size_t n = 1; n <= 100; ++n) {
    for (bool scalar : {false, true}) {
      std::vector<float> a = Random(n, -4.f, 4.f), b = Random(n, -4.f, 4.f);
      std::vector<float> out(n + 1, 5.f), sum(n + 1, 5.f), product(n + 1, 5.f);
      for (size_t i = 0; i < n; ++i) {
        const float y = scalar ? b[0] : b[i];
        sum[i] = Clamp(a[i] + y, -1.f, 6.f);
        product[i] = Clamp(a[i] * y, -3.402823466e+38f, 3.402823466e+38f);
      }
      k.add(n, a.data(), b.data(), scalar, out.data(), -1.f, 6.f);
      ExpectExact(sum, out, std::string(k.name) + " add " + std::to_string(n));
      k.mul(n, a.data(), b.data(), scalar, out.data(), -3.402823466e+38f, 3.402823466e+38f);
      ExpectExact(product, out, std::string(k.name) + " mul " + std::to_string(n));
    }
  }
}

void CheckSoftmax(const MicroKernels& k) {
  for (size_t n = 1; n <= 300; n += (n < 40 ? 1 : 37)) {
    for (float range : {1.f, 30.f}) {
      std::vector<float> in = Random(n, -range, range), out(n), expected(n);
      float m = in[0];
      for (float v : in) m = std::max(m, v);
      double sum = 0.0;
      for (size_t i = 0; i < n; ++i) sum += std::exp(double(in[i] - m) * 0.7);
      for (size_t i = 0; i < n; ++i) expected[i] = static_cast<float>(std::exp(double(in[i] - m) * 0.7) / sum);
      k.softmax(n, in.data(), out.data(), 0.7f);
      ExpectClose(expected, out, 2e-6f, std::string(k.name) + " softmax " + std::to_string(n));
      // In place (the folded ADD and the attention block rewrite their rows so): the same values.
      std::vector<float> in_place = in;
      k.softmax(n, in_place.data(), in_place.data(), 0.7f);
      EXPECT(in_place == out, "%s softmax in place %zu", k.name, n);
    }
  }
}

// Sigmoid and tanh against double precision, element by element relative to each value (a few
// ulps): tanh near 0 and both far into their saturation too.
void CheckSigmoidTanh(const MicroKernels& k) {
  for (size_t n = 1; n <= 70; n += (n < 35 ? 1 : 17)) {
    for (float range : {1e-4f, 1.f, 10.f, 80.f}) {
      std::vector<float> in = Random(n, -range, range), sigmoid(n), tanh(n);
      k.sigmoid(n, in.data(), sigmoid.data());
      k.tanh(n, in.data(), tanh.data());
      for (size_t i = 0; i < n; ++i) {
        const double x = in[i];
        const double expected_sigmoid = 1.0 / (1.0 + std::exp(-x));
        const double expected_tanh = std::tanh(x);
        EXPECT(std::fabs(sigmoid[i] - expected_sigmoid) <= 5e-7 * expected_sigmoid,
               "%s sigmoid(%.9g) = %.9g, expected %.9g", k.name, in[i], sigmoid[i], expected_sigmoid);
        EXPECT(std::fabs(tanh[i] - expected_tanh) <= 5e-7 * std::fabs(expected_tanh),
               "%s tanh(%.9g) = %.9g, expected %.9g", k.name, in[i], tanh[i], expected_tanh);
      }
      // In place.
      std::vector<float> inout = in;
      k.tanh(n, inout.data(), inout.data());
      ExpectExact(tanh, inout, std::string(k.name) + " tanh in place " + std::to_string(n));
    }
  }
  const std::vector<float> edges = {0.f, -0.f, 1e-30f, -1e-30f, 200.f, -200.f, INFINITY, -INFINITY};
  std::vector<float> sigmoid(edges.size()), tanh(edges.size());
  k.sigmoid(edges.size(), edges.data(), sigmoid.data());
  k.tanh(edges.size(), edges.data(), tanh.data());
  const std::vector<float> expected_tanh = {0.f, 0.f, 1e-30f, -1e-30f, 1.f, -1.f, 1.f, -1.f};
  for (size_t i = 0; i < edges.size(); ++i) {
    EXPECT(tanh[i] == expected_tanh[i], "%s tanh(%g) = %.9g", k.name, edges[i], tanh[i]);
    const double expected_sigmoid = 1.0 / (1.0 + std::exp(-double(edges[i])));
    EXPECT(std::fabs(sigmoid[i] - expected_sigmoid) <= 1e-7, "%s sigmoid(%g) = %.9g", k.name, edges[i], sigmoid[i]);
  }
  const float nan = std::nanf("");
  float nan_out = 0.f;
  k.sigmoid(1, &nan, &nan_out);
  EXPECT(std::isnan(nan_out), "%s sigmoid(NaN) = %g", k.name, nan_out);
  k.tanh(1, &nan, &nan_out);
  EXPECT(std::isnan(nan_out), "%s tanh(NaN) = %g", k.name, nan_out);
}

void CheckBilinear(const MicroKernels& k) {
  for (size_t channels = 1; channels <= 40; channels += 3) {
    const size_t in_width = 5, width = 7;
    std::vector<float> top = Random(in_width * channels), bottom = Random(in_width * channels);
    std::vector<int32_t> x0(width), x1(width);
    std::vector<float> dx = Random(width, 0.f, 1.f);
    for (size_t x = 0; x < width; ++x) {
      x0[x] = g_rng() % in_width;
      x1[x] = std::min<int32_t>(x0[x] + 1, in_width - 1);
    }
    const float dy = 0.375f;
    std::vector<float> out(width * channels), expected(width * channels);
    for (size_t x = 0; x < width; ++x) {
      for (size_t c = 0; c < channels; ++c) {
        const float tl = top[x0[x] * channels + c], tr = top[x1[x] * channels + c];
        const float bl = bottom[x0[x] * channels + c], br = bottom[x1[x] * channels + c];
        volatile float a = tl * (1 - dy);  // volatile: each rounding on its own, whatever the flags
        a = a * (1 - dx[x]);
        volatile float b = bl * dy;
        b = b * (1 - dx[x]);
        volatile float s = a + b;
        volatile float d = tr * (1 - dy);
        d = d * dx[x];
        s = s + d;
        volatile float e = br * dy;
        e = e * dx[x];
        s = s + e;
        expected[x * channels + c] = s;
      }
    }
    k.bilinear_row(channels, width, top.data(), bottom.data(), x0.data(), x1.data(), dx.data(), dy, out.data());
    ExpectExact(expected, out, std::string(k.name) + " bilinear " + std::to_string(channels));
  }
}

int Run() {
  for (const std::string& name : AvailableKernelSets()) {
    if (!SelectKernelSet(name)) {
      std::fprintf(stderr, "cannot select %s\n", name.c_str());
      return 1;
    }
    const MicroKernels& k = Kernels();
    std::printf("checking %s (gemm %dx%d, narrow %dx%d)\n", k.name, k.gemm.mr, k.gemm.nr, k.gemm_narrow.mr,
                k.gemm_narrow.nr);
    CheckGemm(k, k.gemm, "gemm");
    CheckGemm(k, k.gemm_narrow, "gemm_narrow");
    CheckDwConv(k);
    CheckDwRow(k);
    CheckPoolAndBinary(k);
    CheckSoftmax(k);
    CheckSigmoidTanh(k);
    CheckBilinear(k);
  }
  return plain_test::Finish();
}

}  // namespace
}  // namespace optimized
}  // namespace touchstone

int main() { return touchstone::optimized::Run(); }
