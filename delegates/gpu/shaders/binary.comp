#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// out = a (op) b with numpy broadcasting over up to 6 dimensions: a and b are read through
// per-dimension element strides of the output's coordinates (0 along broadcast dimensions).
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint op;
  uint dims[6];
  uint stride_a[6];
  uint stride_b[6];
} p;

const uint kAdd = 0u, kSub = 1u, kMul = 2u, kDiv = 3u, kMaximum = 4u, kMinimum = 5u,
           kSquaredDifference = 6u, kPrelu = 7u, kPow = 8u;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint rest = i, ia = 0u, ib = 0u;
  for (int d = 5; d >= 0; --d) {
    uint c = rest % p.dims[d];
    rest /= p.dims[d];
    ia += c * p.stride_a[d];
    ib += c * p.stride_b[d];
  }
  VAL_T a = VAL_T(in0[ia]);
  VAL_T b = VAL_T(in1[ib]);
  VAL_T r;
  switch (p.op) {
    case kAdd: r = a + b; break;
    case kSub: r = a - b; break;
    case kMul: r = a * b; break;
    case kDiv: r = a / b; break;
    case kMaximum: r = max(a, b); break;
    case kMinimum: r = min(a, b); break;
    case kSquaredDifference: r = (a - b) * (a - b); break;
    case kPrelu: r = a >= VAL_T(0) ? a : a * b; break;
    default: r = VAL_T(pow(float(a), float(b))); break;
  }
  STORE(i, r);
}
