#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// The basic LSTM cell's gates (TFLite's LSTM with kernel_type BASIC), after the delegate computed
// gates = [input, prev_activation] x weights^T + biases ([batch, 4 * depth]: input gate, new input,
// forget gate, output gate). op 0: in0 = gates, in1 = prev_state -> the new state;
// op 1: in0 = gates, in1 = the new state -> the activation. One invocation per (batch, unit).
layout(push_constant) uniform Params {
  COMMON_PARAMS
  uint depth;
  uint op;
} p;

float Sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
float Tanh(float x) { return tanh(clamp(x, -10.0, 10.0)); }

void main() {
  uint i = WorkItem();
  if (i >= p.total) return;
  uint c = i % p.depth;
  uint g = (i / p.depth) * 4u * p.depth;
  if (p.op == 0u) {
    float input_gate = Sigmoid(float(in0[g + c]));
    float new_input = Tanh(float(in0[g + p.depth + c]));
    float forget_gate = Sigmoid(float(in0[g + 2u * p.depth + c]));
    STORE(i, input_gate * new_input + forget_gate * float(in1[i]));
  } else {
    STORE(i, Sigmoid(float(in0[g + 3u * p.depth + c])) * Tanh(float(in1[i])));
  }
}
