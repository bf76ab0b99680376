// A whole GEMM over the thread pool: the microkernel of one GemmVariant applied to tiles of rows
// and blocks of packed column panels (conv_2d.cc, fully_connected.cc).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_GEMM_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_GEMM_H_

#include <cstddef>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

// C[m x nc] = clamp(A * B + bias): a GemmArgs over all m rows and nc columns (a: every row's tap
// pointers, w: every panel of B packed for `variant` by PackGemmWeights, c: the first row of C).
struct GemmProblem : GemmArgs {
  const GemmVariant* variant = nullptr;
  size_t m = 0;
  // Optional, a residual ADD computed with the product (elementwise.cc, FoldResidualConv): each tile
  // of C, once written and still in the cache, becomes residual_add(C, residual) clamped to
  // [residual_min, residual_max], `residual` laid out as C (c_stride floats a row).
  const float* residual = nullptr;
  BinaryFn residual_add = nullptr;
  float residual_min = 0.f;
  float residual_max = 0.f;
  // Optional after the residual ADD: the tile through post(tile) clamped to [post_lo, post_hi] (the
  // RELU reading the ADD, activations.cc).
  ClampFn post = nullptr;
  float post_lo = 0.f;
  float post_hi = 0.f;
};

// The problem of a plain row-major product: m rows of k (one tap each, the pointers in a) times
// the n columns packed in w, into c (rows of n), clamped to [min, max].
inline GemmProblem MatrixProblem(const GemmVariant* variant, size_t m, size_t n, size_t k, const float* const* a,
                                 const float* w, float* c, float min, float max) {
  GemmProblem p;
  p.variant = variant;
  p.m = m;
  p.nc = n;
  p.kc = k;
  p.a = a;
  p.w = w;
  p.c = c;
  p.c_stride = n;
  p.min = min;
  p.max = max;
  return p;
}

// Runs `count` problems of the same shape (m, nc, kc, ks, variant) on the context's thread pool (or
// the calling thread), their tiles split over the threads together.
void RunGemm(TfLiteContext* context, const GemmProblem* problems, size_t count);
inline void RunGemm(TfLiteContext* context, const GemmProblem& problem) { RunGemm(context, &problem, 1); }

// The GEMM variant for n output columns: one vector wide when n fits in one, else two.
const GemmVariant& ChooseGemmVariant(const MicroKernels& kernels, size_t n);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_GEMM_H_
