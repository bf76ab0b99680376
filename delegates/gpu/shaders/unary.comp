#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// out = f(in) elementwise; the identity (kCopy) with COMMON_PARAMS gives clamps (RELU, RELU6, ...)
// and (de)quantization between float and a quantized grid.
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint op;
  float alpha;
} p;

const uint kCopy = 0u, kLogistic = 1u, kTanh = 2u, kHardSwish = 3u, kExp = 4u, kAbs = 5u, kNeg = 6u,
           kSqrt = 7u, kRsqrt = 8u, kSquare = 9u, kLog = 10u, kSin = 11u, kCos = 12u, kElu = 13u,
           kLeakyRelu = 14u, kFloor = 15u, kCeil = 16u;

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  VAL_T x = VAL_T(in0[i]);
  float xf = float(x);
  VAL_T r;
  switch (p.op) {
    case kCopy: r = x; break;
    // Computed in float32 in both builds where float16 would lose range (exp of large values).
    case kLogistic: r = VAL_T(1.0 / (1.0 + exp(-xf))); break;
    case kTanh: r = VAL_T(tanh(clamp(xf, -10.0, 10.0))); break;  // tanh(10) rounds to 1
    case kHardSwish: r = x * min(max(x + VAL_T(3), VAL_T(0)), VAL_T(6)) / VAL_T(6); break;
    case kExp: r = VAL_T(exp(xf)); break;
    case kAbs: r = abs(x); break;
    case kNeg: r = -x; break;
    case kSqrt: r = VAL_T(sqrt(xf)); break;
    case kRsqrt: r = VAL_T(inversesqrt(xf)); break;
    case kSquare: r = x * x; break;
    case kLog: r = VAL_T(log(xf)); break;
    case kSin: r = VAL_T(sin(xf)); break;
    case kCos: r = VAL_T(cos(xf)); break;
    case kElu: r = x >= VAL_T(0) ? x : VAL_T(exp(xf) - 1.0); break;
    case kLeakyRelu: r = x >= VAL_T(0) ? x : VAL_T(xf * p.alpha); break;
    case kFloor: r = floor(x); break;
    default: r = ceil(x); break;
  }
  STORE(i, r);
}
