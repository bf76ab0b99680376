// The arithmetic of RFFT2D, shared by the reference kernel (one slice after another) and the
// optimized one (slices over the thread pool), so that both give the same bits.
//
// Each innermost H x W slice of the float input (cropped or zero-padded to H x W) is transformed in
// double by in-place radix-2 decimation-in-time FFTs, rows first, then the W/2 + 1 columns kept,
// and rounded to float once. TFLite computes in double with Ooura's rdft2d and rounds once too;
// the two double results differ by far less than a float ulp, so the rounded outputs agree except
// at rare ties.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_FFT_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_FFT_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/c/common.h"

namespace touchstone {
namespace fft {

constexpr double kPi = 3.14159265358979323846264338327950288;

// exp(-2 pi i k / n) for 0 <= k < n / 2, each from cos/sin directly (no recurrence, so errors do
// not accumulate) of an angle reduced to at most pi / 4, so the quarter turn is exactly -i and
// sums of integers stay exact.
inline void Twiddle(int k, int n, double* re, double* im) {
  double c, s;  // cos and sin of 2 pi k / n
  if (8 * k <= n) {
    const double angle = 2.0 * kPi * k / n;
    c = std::cos(angle);
    s = std::sin(angle);
  } else if (4 * k <= n) {
    const double rest = 2.0 * kPi * (n - 4.0 * k) / (4.0 * n);  // pi/2 - angle
    c = std::sin(rest);
    s = std::cos(rest);
  } else {
    const double beyond = 2.0 * kPi * (4.0 * k - n) / (4.0 * n);  // angle - pi/2
    c = -std::sin(beyond);
    s = std::cos(beyond);
  }
  *re = c;
  *im = -s;
}

// An in-place radix-2 FFT of one power-of-two length over interleaved (re, im) doubles.
class Fft {
 public:
  void Plan(int n) {
    if (n == n_) return;
    n_ = n;
    twiddles_.resize(n);  // n / 2 complex values
    for (int k = 0; k < n / 2; ++k) Twiddle(k, n, &twiddles_[2 * k], &twiddles_[2 * k + 1]);
    bit_reversed_.resize(n);
    int bits = 0;
    while ((1 << bits) < n) ++bits;
    for (int i = 0; i < n; ++i) {
      int r = 0;
      for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
      bit_reversed_[i] = r;
    }
    stage_re_.resize(std::max(n - 1, 0));
    stage_im_.resize(std::max(n - 1, 0));
    for (int half = 1; half < n; half *= 2) {
      const int step = n / (2 * half);
      for (int k = 0; k < half; ++k) {
        stage_re_[half - 1 + k] = twiddles_[2 * k * step];
        stage_im_[half - 1 + k] = twiddles_[2 * k * step + 1];
      }
    }
  }
  int size() const { return n_; }
  // The twiddles stage by stage, for kernels that step through a stage's butterflies in order: the
  // stage of `half` (1, 2, 4, ...) has its twiddle k (of `half`) at index half - 1 + k.
  const double* stage_re() const { return stage_re_.data(); }
  const double* stage_im() const { return stage_im_.data(); }

  // Transforms the complex values at data[0], data[stride], ..., data[(n - 1) * stride] (in
  // complex units), through `line` (2n doubles): gathered in bit-reversed order, the butterflies
  // of every stage (`stages(line)`, Stages or a vector kernel with the same arithmetic), scattered.
  template <typename StagesFn>
  void Forward(double* data, int64_t stride, double* line, const StagesFn& stages) const {
    const int n = n_;
    if (n == 1) return;  // the identity
    const int* bit_reversed = bit_reversed_.data();
    for (int i = 0; i < n; ++i) {
      const double* from = data + 2 * i * stride;
      const int to = 2 * bit_reversed[i];
      line[to] = from[0];
      line[to + 1] = from[1];
    }
    stages(line);
    for (int i = 0; i < n; ++i) {
      double* to = data + 2 * i * stride;
      to[0] = line[2 * i];
      to[1] = line[2 * i + 1];
    }
  }
  void Forward(double* data, int64_t stride, double* line) const {
    Forward(data, stride, line, [this](double* l) { Stages(l); });
  }

  // One butterfly on the complex values at lo and hi with twiddle a + bi: t = (a + bi)(c + di) =
  // (ac - bd) + (ad + bc)i for hi = c + di, term for term as std::complex<double> multiplies; then
  // lo + t and lo - t.
  static void Butterfly(double a, double b, double* lo, double* hi) {
    const double c = hi[0], d = hi[1];
    const double t_re = a * c - b * d;
    const double t_im = a * d + b * c;
    const double u_re = lo[0], u_im = lo[1];
    lo[0] = u_re + t_re;
    lo[1] = u_im + t_im;
    hi[0] = u_re - t_re;
    hi[1] = u_im - t_im;
  }

  // The butterflies of every stage over `line`, in bit-reversed order.
  void Stages(double* line) const {
    // Members in locals: the build does not assume strict aliasing, so a store through `line`
    // would otherwise reload them (twice the time).
    const int n = n_;
    const double* w = twiddles_.data();
    for (int half = 1; half < n; half *= 2) {
      // The butterflies of a stage are independent: each twiddle once, over every group.
      const int step = n / (2 * half);
      for (int k = 0; k < half; ++k) {
        const double a = w[2 * k * step], b = w[2 * k * step + 1];
        for (int start = k; start < n; start += 2 * half) Butterfly(a, b, line + 2 * start, line + 2 * (start + half));
      }
    }
  }

 private:
  int n_ = 0;
  std::vector<double> twiddles_;
  std::vector<int> bit_reversed_;
  std::vector<double> stage_re_, stage_im_;
};

// The plan of an RFFT2D of fft_length {height, width} (powers of two).
class Rfft2d {
 public:
  void Plan(int height, int width) {
    rows_.Plan(width);
    cols_.Plan(height);
  }
  int height() const { return cols_.size(); }
  int width() const { return rows_.size(); }
  // Doubles of scratch one Slice call needs (for a plan of height x width).
  static uint64_t ScratchDoubles(int height, int width) {
    return 2 * (static_cast<uint64_t>(height) * static_cast<uint64_t>(width) +
                static_cast<uint64_t>(std::max(height, width)));
  }
  size_t ScratchDoubles() const { return static_cast<size_t>(ScratchDoubles(height(), width())); }

  // One slice: `in` is in_height x in_width floats, `out` height x (width / 2 + 1) complex values.
  void Slice(const float* in, int in_height, int in_width, TfLiteComplex64* out, double* scratch) const {
    Slice(in, in_height, in_width, out, scratch, [](const Fft& fft, double* line) { fft.Stages(line); });
  }
  // The same with each transform's stages run by stages_of(fft, line) (a vector kernel).
  template <typename StagesOf>
  void Slice(const float* in, int in_height, int in_width, TfLiteComplex64* out, double* scratch,
             const StagesOf& stages_of) const {
    const int height = this->height(), width = this->width();
    const int out_width = width / 2 + 1;
    const int valid_height = std::min(in_height, height);
    const int valid_width = std::min(in_width, width);
    double* grid = scratch;  // height x width complex values
    double* line = scratch + 2 * static_cast<size_t>(height) * width;
    std::fill(grid, grid + 2 * static_cast<size_t>(height) * width, 0.0);
    for (int i = 0; i < valid_height; ++i) {
      double* row = grid + 2 * static_cast<size_t>(i) * width;
      for (int j = 0; j < valid_width; ++j) row[2 * j] = in[static_cast<size_t>(i) * in_width + j];
    }
    // Rows that are all padding stay zero: transform only the rows holding data.
    const auto row_stages = [&](double* l) { stages_of(rows_, l); };
    const auto column_stages = [&](double* l) { stages_of(cols_, l); };
    for (int i = 0; i < valid_height; ++i) {
      rows_.Forward(grid + 2 * static_cast<size_t>(i) * width, 1, line, row_stages);
    }
    for (int j = 0; j < out_width; ++j) cols_.Forward(grid + 2 * j, width, line, column_stages);
    for (int i = 0; i < height; ++i) {
      const double* row = grid + 2 * static_cast<size_t>(i) * width;
      for (int j = 0; j < out_width; ++j) {
        out->re = static_cast<float>(row[2 * j]);
        out->im = static_cast<float>(row[2 * j + 1]);
        ++out;
      }
    }
  }

 private:
  Fft rows_, cols_;
};

}  // namespace fft
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_FFT_H_
