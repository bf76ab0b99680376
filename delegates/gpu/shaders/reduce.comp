#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// MEAN / SUM / REDUCE_MAX / REDUCE_MIN / REDUCE_PROD over the middle dimension of an input viewed
// as [outer, reduce, inner]: one invocation per (outer, inner). Axes that are not contiguous are
// reduced one contiguous run at a time (one dispatch each). `divisor` divides the result (MEAN).
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint reduce;
  uint inner;
  uint op;  // 0 sum, 1 max, 2 min, 3 product
  float divisor;
} p;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint in_i = i % p.inner;
  uint o = i / p.inner;
  uint base = o * p.reduce * p.inner + in_i;
  float acc = p.op == 1u ? -3.402823466e38 : (p.op == 2u ? 3.402823466e38 : (p.op == 3u ? 1.0 : 0.0));
  for (uint r = 0u; r < p.reduce; ++r) {
    float v = float(in0[base + r * p.inner]);
    if (p.op == 0u) {
      acc += v;
    } else if (p.op == 1u) {
      acc = max(acc, v);
    } else if (p.op == 2u) {
      acc = min(acc, v);
    } else {
      acc *= v;
    }
  }
  STORE(i, acc / p.divisor);
}
