#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// CONV_2D, NHWC: in0 = input [N, in_h, in_w, in_c], in1 = filter [out_c, kernel_h, kernel_w, in_c],
// in2 = bias [out_c] (when has_bias). One invocation computes a 4x8 block: 4 neighbouring output
// pixels along x times 8 neighbouring output channels, so each input value it loads feeds 8
// accumulators and each filter value 4. Padding positions contribute 0. Work items:
// N * out_h * ceil(out_w / 4) * ceil(out_c / 8).
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint in_h, in_w, in_c;
  uint out_h, out_w, out_c;
  uint kernel_h, kernel_w;
  uint stride_h, stride_w;
  uint dilation_h, dilation_w;
  int pad_top, pad_left;
  uint has_bias;
} p;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint c_blocks = (p.out_c + 7u) / 8u;
  uint x_blocks = (p.out_w + 3u) / 4u;
  uint oc0 = (i % c_blocks) * 8u;
  uint rest = i / c_blocks;
  uint ox0 = (rest % x_blocks) * 4u;
  rest /= x_blocks;
  uint oy = rest % p.out_h;
  uint b = rest / p.out_h;
  // Channels past the end read the last filter (in bounds) and are not written.
  uint filter_size = p.kernel_h * p.kernel_w * p.in_c;
  uvec4 w_base = min(uvec4(oc0) + uvec4(0u, 1u, 2u, 3u), uvec4(p.out_c - 1u)) * filter_size;
  uvec4 w_base2 = min(uvec4(oc0) + uvec4(4u, 5u, 6u, 7u), uvec4(p.out_c - 1u)) * filter_size;
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  vec4 bcc0 = vec4(0.0), bcc1 = vec4(0.0), bcc2 = vec4(0.0), bcc3 = vec4(0.0);
  for (uint ky = 0u; ky < p.kernel_h; ++ky) {
    int iy = int(oy * p.stride_h + ky * p.dilation_h) - p.pad_top;
    if (iy < 0 || iy >= int(p.in_h)) continue;
    uint row = (b * p.in_h + uint(iy)) * p.in_w;
    for (uint kx = 0u; kx < p.kernel_w; ++kx) {
      // The 4 output pixels' input positions; outside the image (or past the row) they read
      // position 0 scaled by 0.
      ivec4 ix = ivec4((uvec4(ox0) + uvec4(0u, 1u, 2u, 3u)) * p.stride_w + kx * p.dilation_w) - p.pad_left;
      bvec4 valid = bvec4(ix.x >= 0 && ix.x < int(p.in_w) && ox0 < p.out_w,
                          ix.y >= 0 && ix.y < int(p.in_w) && ox0 + 1u < p.out_w,
                          ix.z >= 0 && ix.z < int(p.in_w) && ox0 + 2u < p.out_w,
                          ix.w >= 0 && ix.w < int(p.in_w) && ox0 + 3u < p.out_w);
      if (!any(valid)) continue;
      vec4 scale = vec4(valid);
      uvec4 base = uvec4(valid) * ((uvec4(row) + uvec4(max(ix, ivec4(0)))) * p.in_c);
      uvec4 w = w_base + (ky * p.kernel_w + kx) * p.in_c;
      uvec4 w2 = w_base2 + (ky * p.kernel_w + kx) * p.in_c;
      for (uint c = 0u; c < p.in_c; ++c) {
        vec4 wv = vec4(float(in1[w.x + c]), float(in1[w.y + c]), float(in1[w.z + c]), float(in1[w.w + c]));
        vec4 x = vec4(float(in0[base.x + c]), float(in0[base.y + c]), float(in0[base.z + c]),
                      float(in0[base.w + c])) * scale;
        acc0 += x.x * wv;
        acc1 += x.y * wv;
        acc2 += x.z * wv;
        acc3 += x.w * wv;
        vec4 wv2 = vec4(float(in1[w2.x + c]), float(in1[w2.y + c]), float(in1[w2.z + c]), float(in1[w2.w + c]));
        bcc0 += x.x * wv2;
        bcc1 += x.y * wv2;
        bcc2 += x.z * wv2;
        bcc3 += x.w * wv2;
      }
    }
  }
  vec4 bias = vec4(0.0), bias2 = vec4(0.0);
  if (p.has_bias != 0u) {
    for (uint k = 0u; k < 4u && oc0 + k < p.out_c; ++k) bias[k] = float(in2[oc0 + k]);
    for (uint k = 0u; k < 4u && oc0 + 4u + k < p.out_c; ++k) bias2[k] = float(in2[oc0 + 4u + k]);
  }
  vec4 accs[4] = vec4[4](acc0 + bias, acc1 + bias, acc2 + bias, acc3 + bias);
  vec4 bccs[4] = vec4[4](bcc0 + bias2, bcc1 + bias2, bcc2 + bias2, bcc3 + bias2);
  for (uint j = 0u; j < 4u && ox0 + j < p.out_w; ++j) {
    uint out_base = ((b * p.out_h + oy) * p.out_w + ox0 + j) * p.out_c;
    for (uint k = 0u; k < 4u && oc0 + k < p.out_c; ++k) STORE(out_base + oc0 + k, accs[j][k]);
    for (uint k = 0u; k < 4u && oc0 + 4u + k < p.out_c; ++k) STORE(out_base + oc0 + 4u + k, bccs[j][k]);
  }
}
