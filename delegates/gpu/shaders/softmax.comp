#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// SOFTMAX (op 0) and LOG_SOFTMAX (op 1) over the last dimension: one invocation per row of `depth`
// values. total = the number of rows.
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint depth;
  float beta;
  uint op;
} p;

void main() {
  uint row = WorkItem();
  if (row >= p.total) return;
  uint base = row * p.depth;
  float m = -3.402823466e38;
  for (uint c = 0u; c < p.depth; ++c) m = max(m, float(in0[base + c]));
  float sum = 0.0;
  for (uint c = 0u; c < p.depth; ++c) sum += exp((float(in0[base + c]) - m) * p.beta);
  if (p.op == 1u) {
    float log_sum = log(sum);
    for (uint c = 0u; c < p.depth; ++c) STORE(base + c, (float(in0[base + c]) - m) * p.beta - log_sum);
  } else {
    float inv = 1.0 / sum;
    for (uint c = 0u; c < p.depth; ++c) STORE(base + c, exp((float(in0[base + c]) - m) * p.beta) * inv);
  }
}
