// Numpy-style broadcasting for the reference element-wise kernels: one general loop for any rank up
// to kMaxBroadcastRank (rank 0, a scalar, included), for one to three inputs.
//
// Shapes align on their last dimension; a missing leading dimension counts as 1, and a dimension of
// 1 stretches to the other operands' size. The output shape is what
// tflite::CalculateShapeForBroadcast computes (or the shared shape when no broadcast is needed);
// the walk below reads each input through strides that are 0 along the dimensions it is stretched
// on.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_BROADCAST_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_BROADCAST_H_

#include <cstdint>

#include "runtime/c/common.h"

namespace touchstone {
namespace elementwise {

constexpr int kMaxBroadcastRank = 8;

// How to walk an output tensor while reading up to three inputs.
struct BroadcastWalk {
  int rank = 0;
  int64_t out_dims[kMaxBroadcastRank] = {};
  int64_t strides[3][kMaxBroadcastRank] = {};  // in elements, per input; 0 where broadcast
  int num_inputs = 0;
};

// Fills *walk for `out` and the inputs' shapes. Returns false when a rank exceeds kMaxBroadcastRank
// or an input's dimension can neither match nor stretch to the output's (callers check shapes in
// Prepare, so at Eval this only guards against misuse).
inline bool MakeBroadcastWalk(const TfLiteIntArray* const* inputs, int num_inputs, const TfLiteIntArray* out,
                              BroadcastWalk* walk) {
  if (out->size > kMaxBroadcastRank || num_inputs < 1 || num_inputs > 3) return false;
  walk->rank = out->size;
  walk->num_inputs = num_inputs;
  for (int d = 0; d < out->size; ++d) walk->out_dims[d] = out->data[d];
  for (int k = 0; k < num_inputs; ++k) {
    const TfLiteIntArray* in = inputs[k];
    if (in->size > out->size) return false;
    const int lead = out->size - in->size;
    int64_t stride = 1;
    for (int d = out->size - 1; d >= 0; --d) {
      const int in_d = d - lead;
      const int64_t extent = in_d >= 0 ? in->data[in_d] : 1;
      if (extent == walk->out_dims[d]) {
        walk->strides[k][d] = extent == 1 ? 0 : stride;
      } else if (extent == 1) {
        walk->strides[k][d] = 0;
      } else {
        return false;
      }
      stride *= extent;
    }
  }
  return true;
}

// Calls f(out_index, in0_index, in1_index, in2_index) for every output element in row-major order.
// Indices of inputs beyond walk.num_inputs are 0.
template <typename F>
void ForEachBroadcastIndex(const BroadcastWalk& walk, F&& f) {
  int64_t total = 1;
  for (int d = 0; d < walk.rank; ++d) total *= walk.out_dims[d];
  if (total == 0) return;
  if (walk.rank == 0) {
    f(int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0});
    return;
  }
  const int last = walk.rank - 1;
  const int64_t inner = walk.out_dims[last];
  const int64_t s0 = walk.strides[0][last];
  const int64_t s1 = walk.strides[1][last];
  const int64_t s2 = walk.strides[2][last];
  int64_t index[kMaxBroadcastRank] = {};
  int64_t base[3] = {0, 0, 0};
  int64_t out = 0;
  while (true) {
    for (int64_t i = 0; i < inner; ++i) {
      f(out + i, base[0] + i * s0, base[1] + i * s1, base[2] + i * s2);
    }
    out += inner;
    // Advance the odometer over the outer dimensions.
    int d = last - 1;
    for (; d >= 0; --d) {
      ++index[d];
      for (int k = 0; k < 3; ++k) base[k] += walk.strides[k][d];
      if (index[d] < walk.out_dims[d]) break;
      for (int k = 0; k < 3; ++k) base[k] -= walk.strides[k][d] * walk.out_dims[d];
      index[d] = 0;
    }
    if (d < 0) break;
  }
}

// out[i] = f(a[ia], b[ib]) over the broadcast of a's and b's shapes onto out's.
template <typename A, typename B, typename O, typename F>
bool BroadcastBinary(const TfLiteIntArray* a_dims, const A* a, const TfLiteIntArray* b_dims, const B* b,
                     const TfLiteIntArray* out_dims, O* out, F&& f) {
  const TfLiteIntArray* shapes[] = {a_dims, b_dims};
  BroadcastWalk walk;
  if (!MakeBroadcastWalk(shapes, 2, out_dims, &walk)) return false;
  ForEachBroadcastIndex(walk, [&](int64_t o, int64_t i, int64_t j, int64_t) { out[o] = f(a[i], b[j]); });
  return true;
}

// out[i] = f(a[ia], b[ib], c[ic]) over the broadcast of three shapes onto out's.
template <typename A, typename B, typename C, typename O, typename F>
bool BroadcastTernary(const TfLiteIntArray* a_dims, const A* a, const TfLiteIntArray* b_dims, const B* b,
                      const TfLiteIntArray* c_dims, const C* c, const TfLiteIntArray* out_dims, O* out, F&& f) {
  const TfLiteIntArray* shapes[] = {a_dims, b_dims, c_dims};
  BroadcastWalk walk;
  if (!MakeBroadcastWalk(shapes, 3, out_dims, &walk)) return false;
  ForEachBroadcastIndex(walk, [&](int64_t o, int64_t i, int64_t j, int64_t k) { out[o] = f(a[i], b[j], c[k]); });
  return true;
}

}  // namespace elementwise
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_ELEMENTWISE_BROADCAST_H_
