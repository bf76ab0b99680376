#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// TRANSPOSE_CONV, NHWC, as a gather: output (oy, ox) takes input (iy, ix) through filter tap
// (ky, kx) when iy * stride_h + ky - pad_top == oy (and likewise along x). in0 = input
// [N, in_h, in_w, in_c], in1 = filter [out_c, kernel_h, kernel_w, in_c], in2 = bias [out_c].
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint in_h, in_w, in_c;
  uint out_h, out_w, out_c;
  uint kernel_h, kernel_w;
  uint stride_h, stride_w;
  int pad_top, pad_left;
  uint has_bias;
} p;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint oc = i % p.out_c;
  uint rest = i / p.out_c;
  uint ox = rest % p.out_w;
  rest /= p.out_w;
  uint oy = rest % p.out_h;
  uint b = rest / p.out_h;
  float acc = 0.0;
  for (uint ky = 0u; ky < p.kernel_h; ++ky) {
    int ty = int(oy) + p.pad_top - int(ky);
    if (ty < 0 || ty % int(p.stride_h) != 0) continue;
    int iy = ty / int(p.stride_h);
    if (iy >= int(p.in_h)) continue;
    for (uint kx = 0u; kx < p.kernel_w; ++kx) {
      int tx = int(ox) + p.pad_left - int(kx);
      if (tx < 0 || tx % int(p.stride_w) != 0) continue;
      int ix = tx / int(p.stride_w);
      if (ix >= int(p.in_w)) continue;
      uint in_base = ((b * p.in_h + uint(iy)) * p.in_w + uint(ix)) * p.in_c;
      uint w_base = ((oc * p.kernel_h + ky) * p.kernel_w + kx) * p.in_c;
      for (uint c = 0u; c < p.in_c; ++c) acc += float(in0[in_base + c]) * float(in1[w_base + c]);
    }
  }
  if (p.has_bias != 0u) acc += float(in2[oc]);
  STORE(i, acc);
}
