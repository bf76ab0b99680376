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

// C[m x n] = clamp(A * B + bias) with B packed for `variant` (PackGemmWeights) and A given by row
// pointers as GemmArgs describes: row r, tap t at a[r * a_row_stride + t].
struct GemmProblem {
  const GemmVariant* variant = nullptr;
  size_t m = 0;
  size_t n = 0;
  size_t kc = 0;
  size_t ks = 1;
  const float* const* a = nullptr;
  size_t a_row_stride = 1;
  size_t a_offset = 0;
  const float* zero = nullptr;
  const float* packed = nullptr;
  float* c = nullptr;
  size_t c_stride = 0;
  float min = 0.f;
  float max = 0.f;
};

// Runs `count` problems of the same shape (m, n, kc, ks, variant) on the context's thread pool (or
// the calling thread), their tiles split over the threads together.
void RunGemm(TfLiteContext* context, const GemmProblem* problems, size_t count);
inline void RunGemm(TfLiteContext* context, const GemmProblem& problem) { RunGemm(context, &problem, 1); }

// The GEMM variant for n output columns: one vector wide when n fits in one, else two.
const GemmVariant& ChooseGemmVariant(const MicroKernels& kernels, size_t n);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_GEMM_H_
