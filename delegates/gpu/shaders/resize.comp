#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// RESIZE_BILINEAR (op 0) and RESIZE_NEAREST_NEIGHBOR (op 1), NHWC, with TFLite's coordinate rules
// (align_corners, half_pixel_centers). One invocation per output element.
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint in_h, in_w, channels;
  uint out_h, out_w;
  float scale_h, scale_w;
  uint half_pixel;
  uint align_corners;
  uint op;
} p;

// TFLite's ComputeInterpolationValues.
void Interpolation(uint v, float scale, uint size, out float scaled, out uint lower, out uint upper) {
  float pos = float(v);
  scaled = p.half_pixel != 0u ? (pos + 0.5) * scale - 0.5 : pos * scale;
  lower = uint(clamp(int(floor(scaled)), 0, int(size) - 1));
  upper = uint(min(int(ceil(scaled)), int(size) - 1));
}

// TFLite's GetNearestNeighbor.
uint Nearest(uint v, float scale, uint size) {
  float offset = p.half_pixel != 0u ? 0.5 : 0.0;
  float s = (float(v) + offset) * scale;
  int r = p.align_corners != 0u ? int(RoundAway(s)) : int(floor(s));
  r = min(r, int(size) - 1);
  if (p.half_pixel != 0u) r = max(r, 0);
  return uint(r);
}

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint c = i % p.channels;
  uint rest = i / p.channels;
  uint x = rest % p.out_w;
  rest /= p.out_w;
  uint y = rest % p.out_h;
  uint b = rest / p.out_h;
  uint row = b * p.in_h;
  if (p.op == 1u) {
    uint iy = Nearest(y, p.scale_h, p.in_h), ix = Nearest(x, p.scale_w, p.in_w);
    STORE(i, float(in0[((row + iy) * p.in_w + ix) * p.channels + c]));
    return;
  }
  float sy, sx;
  uint y0, y1, x0, x1;
  Interpolation(y, p.scale_h, p.in_h, sy, y0, y1);
  Interpolation(x, p.scale_w, p.in_w, sx, x0, x1);
  float dy = sy - float(y0), dx = sx - float(x0);
  float tl = float(in0[((row + y0) * p.in_w + x0) * p.channels + c]);
  float bl = float(in0[((row + y1) * p.in_w + x0) * p.channels + c]);
  float tr = float(in0[((row + y0) * p.in_w + x1) * p.channels + c]);
  float br = float(in0[((row + y1) * p.in_w + x1) * p.channels + c]);
  STORE(i, tl * (1.0 - dy) * (1.0 - dx) + bl * dy * (1.0 - dx) + tr * (1.0 - dy) * dx + br * dy * dx);
}
