// The arithmetic of the sample delegate, shared by its classic build (SimpleDelegate API) and its stable
// build (opaque API): float32 ADD or SUB with numpy broadcasting, a clamp, and an optional bias.
#ifndef TOUCHSTONE_DELEGATES_SAMPLE_ELEMENTWISE_H_
#define TOUCHSTONE_DELEGATES_SAMPLE_ELEMENTWISE_H_

#include <cstdint>
#include <vector>

namespace touchstone {

constexpr int kSampleMaxRank = 8;

// The broadcast shape of a and b (numpy rules), or false when they do not broadcast or the rank is
// above kSampleMaxRank.
bool BroadcastShape(const std::vector<int>& a, const std::vector<int>& b, std::vector<int>* out);

// out = clamp(a + b or a - b, lo, hi) (+ bias when nonzero), broadcasting a and b to out_shape.
void ComputeElementwise(bool add, float lo, float hi, float bias, const std::vector<int>& a_shape, const float* a,
                        const std::vector<int>& b_shape, const float* b, const std::vector<int>& out_shape, float* out);

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_SAMPLE_ELEMENTWISE_H_
