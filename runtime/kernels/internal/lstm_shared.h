// Input and output positions of TensorFlow Lite's LSTM ops (tensorflow/lite/kernels/lstm_shared.h):
// the full kernel of LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM share one layout; the basic LSTM kernel
// has its own. Also the order in which the float, hybrid and integer kernels walk a sequence.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_SHARED_H_
#define TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_SHARED_H_

namespace touchstone {
namespace lstm {

// Full kernel: 24 inputs, or 20 in the deprecated form without layer normalization.
namespace full {

constexpr int kNumInputs = 24;
constexpr int kNumInputsWithoutLayerNorm = 20;

// {n_batch, n_input} for LSTM; {max_time, n_batch, n_input} or {n_batch, max_time, n_input} for
// the sequence op.
constexpr int kInputTensor = 0;

// {n_cell, n_input}. The input gate's weights are absent in a CIFG LSTM (coupled input and forget
// gates: the input gate is 1 - forget gate).
constexpr int kInputToInputWeightsTensor = 1;  // optional
constexpr int kInputToForgetWeightsTensor = 2;
constexpr int kInputToCellWeightsTensor = 3;
constexpr int kInputToOutputWeightsTensor = 4;

// {n_cell, n_output}.
constexpr int kRecurrentToInputWeightsTensor = 5;  // optional
constexpr int kRecurrentToForgetWeightsTensor = 6;
constexpr int kRecurrentToCellWeightsTensor = 7;
constexpr int kRecurrentToOutputWeightsTensor = 8;

// Peephole weights, {n_cell}: diagonal matrices applied to the cell state.
constexpr int kCellToInputWeightsTensor = 9;    // optional
constexpr int kCellToForgetWeightsTensor = 10;  // optional
constexpr int kCellToOutputWeightsTensor = 11;  // optional

// {n_cell}.
constexpr int kInputGateBiasTensor = 12;  // optional (absent with CIFG)
constexpr int kForgetGateBiasTensor = 13;
constexpr int kCellGateBiasTensor = 14;
constexpr int kOutputGateBiasTensor = 15;

// {n_output, n_cell} and {n_output}.
constexpr int kProjectionWeightsTensor = 16;  // optional
constexpr int kProjectionBiasTensor = 17;     // optional

// Variable tensors the op reads and overwrites: {n_batch, n_output} and {n_batch, n_cell} (any
// shape with that many elements).
constexpr int kOutputStateTensor = 18;
constexpr int kCellStateTensor = 19;

// Layer normalization coefficients, {n_cell}.
constexpr int kInputLayerNormCoefficientsTensor = 20;   // optional
constexpr int kForgetLayerNormCoefficientsTensor = 21;  // optional
constexpr int kCellLayerNormCoefficientsTensor = 22;    // optional
constexpr int kOutputLayerNormCoefficientsTensor = 23;  // optional

constexpr int kOutputTensor = 0;

}  // namespace full

// Basic kernel (LSTM with kernel_type BASIC): one fully connected layer over [input, previous
// activation] produces all four gates.
namespace basic {

constexpr int kInputData = 0;            // {n_batch, input_depth}
constexpr int kInputPrevActivation = 1;  // {n_batch, depth}
constexpr int kInputWeights = 2;         // {4 * depth, input_depth + depth}
constexpr int kInputBiases = 3;          // {4 * depth}
constexpr int kInputPrevState = 4;       // {n_batch, depth}
constexpr int kNumInputs = 5;

constexpr int kOutputActivation = 0;      // {n_batch, depth}
constexpr int kOutputState = 1;           // {n_batch, depth}
constexpr int kOutputConcatTemp = 2;      // {n_batch, input_depth + depth}
constexpr int kOutputActivationTemp = 3;  // {n_batch, 4 * depth}
constexpr int kNumOutputs = 4;

}  // namespace basic

// Calls step(n_rows, input, output_state, cell_state, batch, output) for each step of a sequence,
// as TFLite's lstm_eval walks it (forward). Time-major input is {max_time, n_batch, n_input} and
// all rows advance together (batch -1); batch-major input is {n_batch, max_time, n_input} and each
// row `batch` runs its whole sequence before the next starts. The output has the input's layout
// with n_output in place of n_input.
template <typename In, typename State, typename Cell, typename Out, typename Step>
void ForEachSequenceStep(int max_time, int n_batch, int n_cell, int n_input, int n_output, bool time_major,
                         const In* input, State* output_state, Cell* cell_state, Out* output, Step step) {
  if (time_major) {
    for (int t = 0; t < max_time; ++t) {
      step(n_batch, input + t * n_batch * n_input, output_state, cell_state, -1, output + t * n_batch * n_output);
    }
    return;
  }
  for (int b = 0; b < n_batch; ++b) {
    for (int t = 0; t < max_time; ++t) {
      const int row = b * max_time + t;
      step(1, input + row * n_input, output_state + b * n_output, cell_state + b * n_cell, b, output + row * n_output);
    }
  }
}

}  // namespace lstm
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_INTERNAL_LSTM_SHARED_H_
