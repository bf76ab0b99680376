#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// Strided copy over a region of up to 6 dimensions: element c of the region goes from
// in0[src_offset + sum(c_d * src_stride_d)] to out[dst_offset + sum(c_d * dst_stride_d)]. It makes
// CONCATENATION (one dispatch per input), SLICE, STRIDED_SLICE, TRANSPOSE, DEPTH_TO_SPACE,
// SPACE_TO_DEPTH and the inside of PAD. op 1 writes `value` instead of reading (PAD's border, or
// any fill).
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint op;
  float value;
  uint src_offset;
  uint dst_offset;
  uint dims[6];
  uint src_stride[6];
  uint dst_stride[6];
} p;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint rest = i, src = p.src_offset, dst = p.dst_offset;
  for (int d = 5; d >= 0; --d) {
    uint c = rest % p.dims[d];
    rest /= p.dims[d];
    src += c * p.src_stride[d];
    dst += c * p.dst_stride[d];
  }
  STORE(dst, p.op == 1u ? p.value : float(in0[src]));
}
