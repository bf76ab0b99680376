#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// FULLY_CONNECTED: in0 = input [batches, in_c], in1 = weights [out_c, in_c], in2 = bias [out_c].
// One invocation per output element.
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint in_c;
  uint out_c;
  uint has_bias;
} p;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint o = i % p.out_c;
  uint b = i / p.out_c;
  uint x_base = b * p.in_c;
  uint w_base = o * p.in_c;
  float acc = 0.0;
  for (uint c = 0u; c < p.in_c; ++c) acc += float(in0[x_base + c]) * float(in1[w_base + c]);
  if (p.has_bias != 0u) acc += float(in2[o]);
  STORE(i, acc);
}
