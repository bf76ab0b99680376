#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// AVERAGE_POOL_2D / MAX_POOL_2D / L2_POOL_2D, NHWC. Only in-bounds positions count: the average
// divides by their number, as TFLite's kernels do.
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint in_h, in_w, channels;
  uint out_h, out_w;
  uint filter_h, filter_w;
  uint stride_h, stride_w;
  int pad_top, pad_left;
  uint op;  // 0 average, 1 max, 2 L2
} p;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint c = i % p.channels;
  uint rest = i / p.channels;
  uint ox = rest % p.out_w;
  rest /= p.out_w;
  uint oy = rest % p.out_h;
  uint b = rest / p.out_h;
  int y0 = int(oy * p.stride_h) - p.pad_top;
  int x0 = int(ox * p.stride_w) - p.pad_left;
  int y_start = max(y0, 0), y_end = min(y0 + int(p.filter_h), int(p.in_h));
  int x_start = max(x0, 0), x_end = min(x0 + int(p.filter_w), int(p.in_w));
  float acc = p.op == 1u ? -3.402823466e38 : 0.0;
  float count = 0.0;
  for (int y = y_start; y < y_end; ++y) {
    for (int x = x_start; x < x_end; ++x) {
      float v = float(in0[((b * p.in_h + uint(y)) * p.in_w + uint(x)) * p.channels + c]);
      if (p.op == 1u) {
        acc = max(acc, v);
      } else if (p.op == 2u) {
        acc += v * v;
      } else {
        acc += v;
      }
      count += 1.0;
    }
  }
  if (p.op == 0u) acc /= count;
  if (p.op == 2u) acc = sqrt(acc / count);
  STORE(i, acc);
}
