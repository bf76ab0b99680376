#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// DEPTHWISE_CONV_2D, NHWC: in0 = input [N, in_h, in_w, in_c], in1 = filter [1, kernel_h, kernel_w,
// out_c] with out_c = in_c * multiplier (output channel oc reads input channel oc / multiplier),
// in2 = bias [out_c]. One invocation computes 4 neighbouring output pixels along x of one channel,
// so each filter value it loads feeds 4 accumulators. Work items: N * out_h * ceil(out_w / 4) * out_c.
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint in_h, in_w, in_c;
  uint out_h, out_w, out_c;
  uint kernel_h, kernel_w;
  uint stride_h, stride_w;
  uint dilation_h, dilation_w;
  int pad_top, pad_left;
  uint has_bias;
  uint multiplier;
} p;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint oc = i % p.out_c;
  uint rest = i / p.out_c;
  uint x_blocks = (p.out_w + 3u) / 4u;
  uint ox0 = (rest % x_blocks) * 4u;
  rest /= x_blocks;
  uint oy = rest % p.out_h;
  uint b = rest / p.out_h;
  uint ic = oc / p.multiplier;
  vec4 acc = vec4(0.0);
  for (uint ky = 0u; ky < p.kernel_h; ++ky) {
    int iy = int(oy * p.stride_h + ky * p.dilation_h) - p.pad_top;
    if (iy < 0 || iy >= int(p.in_h)) continue;
    uint row = (b * p.in_h + uint(iy)) * p.in_w;
    for (uint kx = 0u; kx < p.kernel_w; ++kx) {
      ivec4 ix = ivec4((uvec4(ox0) + uvec4(0u, 1u, 2u, 3u)) * p.stride_w + kx * p.dilation_w) - p.pad_left;
      bvec4 valid = bvec4(ix.x >= 0 && ix.x < int(p.in_w), ix.y >= 0 && ix.y < int(p.in_w),
                          ix.z >= 0 && ix.z < int(p.in_w), ix.w >= 0 && ix.w < int(p.in_w));
      uvec4 at = ((uvec4(row) + uvec4(clamp(ix, ivec4(0), ivec4(int(p.in_w) - 1)))) * p.in_c + ic);
      vec4 x = vec4(float(in0[at.x]), float(in0[at.y]), float(in0[at.z]), float(in0[at.w])) * vec4(valid);
      acc += x * float(in1[(ky * p.kernel_w + kx) * p.out_c + oc]);
    }
  }
  float bias = p.has_bias != 0u ? float(in2[oc]) : 0.0;
  for (uint j = 0u; j < 4u && ox0 + j < p.out_w; ++j) {
    STORE(((b * p.out_h + oy) * p.out_w + ox0 + j) * p.out_c + oc, acc[j] + bias);
  }
}
