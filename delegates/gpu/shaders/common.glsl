// Shared by every compute shader of the GPU delegate (included after #version).
//
// Tensors are flat arrays in TFLite's own layout (NHWC, row-major). STORE_T is the storage type:
// float32, or float16 when the delegate runs in reduced precision (built with -DUSE_F16); VAL_T is
// the arithmetic type of elementwise ops (float16 arithmetic in the float16 build). Sums of many terms
// (convolutions, dense layers, pooling, reductions, softmax) accumulate in float32 in both builds.
//
// Bindings: 0 is the output; 1.. are the inputs (unused ones are bound to a dummy buffer).
// Every push-constant block starts with COMMON_PARAMS: the fused activation's range, the fake
// quantization of a quantized output (q_scale > 0: round to the output's grid and back, so values
// between ops follow the quantized model), and the number of output elements (or work items).
#extension GL_EXT_shader_16bit_storage : enable
#ifdef USE_F16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define STORE_T float16_t
#define VAL_T float16_t
#else
#define STORE_T float
#define VAL_T float
#endif

#define WORKGROUP 64
layout(local_size_x = WORKGROUP) in;

layout(std430, binding = 0) buffer Out { STORE_T out_data[]; };
layout(std430, binding = 1) readonly buffer In0 { STORE_T in0[]; };
layout(std430, binding = 2) readonly buffer In1 { STORE_T in1[]; };
layout(std430, binding = 3) readonly buffer In2 { STORE_T in2[]; };
layout(std430, binding = 4) readonly buffer In3 { STORE_T in3[]; };
layout(std430, binding = 5) readonly buffer In4 { STORE_T in4[]; };

#define COMMON_PARAMS \
  float act_min;      \
  float act_max;      \
  float q_scale;      \
  float q_lo;         \
  float q_hi;         \
  uint total;

// The invocation's work item; dispatches are 2-D when one row of workgroups is not enough.
uint WorkItem() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(WORKGROUP) +
         gl_LocalInvocationID.x;
}

// Round half away from zero, as TFLite's quantizers do.
float RoundAway(float x) { return sign(x) * floor(abs(x) + 0.5); }

// Activation clamp, then the output's quantization grid when it has one.
float Finish(float v, float act_min, float act_max, float q_scale, float q_lo, float q_hi) {
  v = min(max(v, act_min), act_max);
  if (q_scale > 0.0) v = clamp(RoundAway(v / q_scale), q_lo, q_hi) * q_scale;
  return v;
}
#define FINISH(v) Finish(v, p.act_min, p.act_max, p.q_scale, p.q_lo, p.q_hi)
#define STORE(i, v) out_data[i] = STORE_T(FINISH(float(v)))
