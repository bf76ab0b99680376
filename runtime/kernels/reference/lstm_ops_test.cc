// Reference float LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM kernels (lstm_ops.cc) run through the real
// loader and interpreter. Float expected values come from the equations worked by hand or in double
// precision (i = sigmoid(W_i x + R_i h + b_i), f, o alike, g = act(W_c x + R_c h + b_c),
// c' = f c + i g, h' = o act(c'), then projection), not from the kernel's own code. Quantized
// expected values are TensorFlow Lite's own (lstm_quantized_test.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;

// A float LSTM's parameters; an empty vector is an absent (optional) input.
struct FloatLstm {
  int n_input = 0;
  int n_cell = 0;
  int n_output = 0;
  std::vector<float> input_to_input, input_to_forget, input_to_cell, input_to_output;
  std::vector<float> recurrent_to_input, recurrent_to_forget, recurrent_to_cell, recurrent_to_output;
  std::vector<float> cell_to_input, cell_to_forget, cell_to_output;
  std::vector<float> input_gate_bias, forget_gate_bias, cell_gate_bias, output_gate_bias;
  std::vector<float> projection_weights, projection_bias;
  std::vector<float> input_layer_norm, forget_layer_norm, cell_layer_norm, output_layer_norm;
};

// 3 inputs per step, 2 cells, no peephole, projection or layer norm: used by several tests.
FloatLstm TwoCellLstm() {
  FloatLstm p;
  p.n_input = 3;
  p.n_cell = 2;
  p.n_output = 2;
  p.input_to_input = {0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f};
  p.input_to_forget = {-0.2f, 0.1f, 0.3f, 0.5f, 0.2f, -0.1f};
  p.input_to_cell = {0.3f, -0.1f, 0.2f, -0.4f, 0.3f, 0.5f};
  p.input_to_output = {0.2f, 0.4f, -0.2f, 0.1f, -0.3f, 0.2f};
  p.recurrent_to_input = {0.1f, -0.2f, 0.3f, 0.1f};
  p.recurrent_to_forget = {0.2f, 0.1f, -0.1f, 0.3f};
  p.recurrent_to_cell = {-0.3f, 0.2f, 0.1f, -0.2f};
  p.recurrent_to_output = {0.1f, 0.3f, 0.2f, -0.1f};
  p.input_gate_bias = {0.1f, -0.1f};
  p.forget_gate_bias = {1.0f, 0.5f};
  p.cell_gate_bias = {0.0f, 0.2f};
  p.output_gate_bias = {-0.1f, 0.1f};
  return p;
}

// Adds the full kernel's inputs after `input`: constants for the parameters, -1 for absent ones,
// and the two zero-initialized variable state tensors. `num_inputs` is 24 or 20.
std::vector<int> AddFullInputs(OpTest& test, int input, const FloatLstm& p, int n_batch, int num_inputs = 24) {
  auto add = [&](const std::vector<float>& values, std::vector<int> shape) {
    return values.empty() ? -1 : test.AddConst<float>(kTfLiteFloat32, shape, values);
  };
  const std::vector<int> input_weights = {p.n_cell, p.n_input};
  const std::vector<int> recurrent_weights = {p.n_cell, p.n_output};
  const std::vector<int> vector = {p.n_cell};
  std::vector<int> inputs = {
      input,
      add(p.input_to_input, input_weights),
      add(p.input_to_forget, input_weights),
      add(p.input_to_cell, input_weights),
      add(p.input_to_output, input_weights),
      add(p.recurrent_to_input, recurrent_weights),
      add(p.recurrent_to_forget, recurrent_weights),
      add(p.recurrent_to_cell, recurrent_weights),
      add(p.recurrent_to_output, recurrent_weights),
      add(p.cell_to_input, vector),
      add(p.cell_to_forget, vector),
      add(p.cell_to_output, vector),
      add(p.input_gate_bias, vector),
      add(p.forget_gate_bias, vector),
      add(p.cell_gate_bias, vector),
      add(p.output_gate_bias, vector),
      add(p.projection_weights, {p.n_output, p.n_cell}),
      add(p.projection_bias, {p.n_output}),
  };
  const int output_state = test.AddIntermediate(kTfLiteFloat32, {n_batch, p.n_output});
  const int cell_state = test.AddIntermediate(kTfLiteFloat32, {n_batch, p.n_cell});
  test.builder().SetVariable(output_state, true);
  test.builder().SetVariable(cell_state, true);
  inputs.push_back(output_state);
  inputs.push_back(cell_state);
  if (num_inputs == 24) {
    inputs.push_back(add(p.input_layer_norm, vector));
    inputs.push_back(add(p.forget_layer_norm, vector));
    inputs.push_back(add(p.cell_layer_norm, vector));
    inputs.push_back(add(p.output_layer_norm, vector));
  }
  return inputs;
}

void AddLstmOp(OpTest& test, const std::vector<int>& inputs, int output,
               fb::ActivationFunctionType activation = fb::ActivationFunctionType::TANH, float cell_clip = 0.0f,
               float proj_clip = 0.0f) {
  test.AddOp(kTfLiteBuiltinLstm, inputs, {output}, fb::BuiltinOptions::LSTMOptions,
             fb::CreateLSTMOptions(test.fbb(), activation, cell_clip, proj_clip).Union());
}

void AddSequenceOp(OpTest& test, const std::vector<int>& inputs, int output, bool time_major, float cell_clip = 0.0f) {
  test.AddOp(kTfLiteBuiltinUnidirectionalSequenceLstm, inputs, {output},
             fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions,
             fb::CreateUnidirectionalSequenceLSTMOptions(test.fbb(), fb::ActivationFunctionType::TANH, cell_clip, 0.0f,
                                                         time_major)
                 .Union());
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 2e-6f) << "element " << i;
  }
}

TEST(LstmTest, FloatStepKeepsStateAcrossInvokes) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, TwoCellLstm(), /*n_batch=*/2), output);
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, -1.0f, 0.5f, 0.2f, 0.3f, -0.4f}).ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{2, 2}));
  ExpectNear(test.GetOutput<float>(0), {0.0845020f, -0.1173236f, -0.0153477f, 0.0019446f});
  // The same input again: the states the first step left change the result.
  ASSERT_TRUE(test.Invoke().ok());
  ExpectNear(test.GetOutput<float>(0), {0.1324690f, -0.1807927f, -0.0245914f, 0.0028619f});
}

TEST(LstmTest, TwentyInputFormWithoutLayerNorm) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, TwoCellLstm(), 2, /*num_inputs=*/20), output);
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, -1.0f, 0.5f, 0.2f, 0.3f, -0.4f}).ok());
  ExpectNear(test.GetOutput<float>(0), {0.0845020f, -0.1173236f, -0.0153477f, 0.0019446f});
}

TEST(LstmTest, ReluActivationAppliesToCellGateAndOutput) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, TwoCellLstm(), 2), output, fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, -1.0f, 0.5f, 0.2f, 0.3f, -0.4f}).ok());
  ExpectNear(test.GetOutput<float>(0), {0.0928176f, 0.0f, 0.0f, 0.0019447f});
}

// TFLite's float LSTM with activation NONE leaves the cell gate's buffer unwritten; with an
// all-zero input it holds the bias alone, and the output multiplies the output gate by that buffer
// instead of the cell state: h = sigmoid(b_o) * b_c.
TEST(LstmTest, ActivationNoneFollowsTfLiteBuffers) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, TwoCellLstm(), 2), output, fb::ActivationFunctionType::NONE);
  ASSERT_TRUE(test.BuildAndInvoke<float>({0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}).ok());
  // sigmoid(-0.1) * 0 = 0, sigmoid(0.1) * 0.2 = 0.1049958.
  ExpectNear(test.GetOutput<float>(0), {0.0f, 0.1049958f, 0.0f, 0.1049958f});
}

// Two inputs and three cells with the input weights and gate biases the tests below share; the
// recurrent weights, which depend on n_output, are the test's.
FloatLstm ThreeCellLstm(int n_output) {
  FloatLstm p;
  p.n_input = 2;
  p.n_cell = 3;
  p.n_output = n_output;
  p.input_to_input = {0.2f, -0.1f, 0.4f, 0.3f, -0.5f, 0.2f};
  p.input_to_forget = {0.1f, 0.6f, -0.3f, 0.2f, 0.2f, 0.2f};
  p.input_to_cell = {0.7f, -0.4f, 0.3f, 0.9f, -0.6f, 0.5f};
  p.input_to_output = {0.2f, 0.1f, 0.5f, -0.2f, 0.1f, 0.3f};
  p.input_gate_bias = {0.0f, 0.1f, -0.1f};
  p.forget_gate_bias = {0.5f, 0.5f, 0.5f};
  p.cell_gate_bias = {0.1f, -0.1f, 0.2f};
  p.output_gate_bias = {0.2f, 0.0f, -0.2f};
  return p;
}

TEST(LstmTest, ProjectionWithBiasAndClip) {
  FloatLstm p = ThreeCellLstm(2);
  p.recurrent_to_input = {0.1f, 0.2f, -0.2f, 0.1f, 0.3f, -0.1f};
  p.recurrent_to_forget = {0.2f, -0.3f, 0.1f, 0.1f, -0.1f, 0.2f};
  p.recurrent_to_cell = {0.4f, 0.1f, -0.3f, 0.2f, 0.2f, 0.5f};
  p.recurrent_to_output = {-0.1f, 0.2f, 0.3f, 0.1f, 0.2f, -0.2f};
  p.projection_weights = {2.0f, -1.5f, 3.0f, 1.0f, 2.5f, -0.5f};
  p.projection_bias = {0.05f, -0.1f};

  {
    OpTest test;
    const int input = test.AddInput(kTfLiteFloat32, {1, 2});
    const int output = test.AddOutput(kTfLiteFloat32);
    AddLstmOp(test, AddFullInputs(test, input, p, 1), output);
    ASSERT_TRUE(test.BuildAndInvoke<float>({1.5f, -2.0f}).ok());
    EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 2}));
    ExpectNear(test.GetOutput<float>(0), {0.9533003f, -0.5895762f});
  }
  // proj_clip 0.7 clips the first element; the clipped output is the next step's state.
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, p, 1), output, fb::ActivationFunctionType::TANH,
            /*cell_clip=*/0.0f, /*proj_clip=*/0.7f);
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.5f, -2.0f}).ok());
  ExpectNear(test.GetOutput<float>(0), {0.7f, -0.5895762f});
  ASSERT_TRUE(test.Invoke().ok());
  ExpectNear(test.GetOutput<float>(0), {0.7f, -0.7f});
}

TEST(LstmTest, LayerNormOverThreeCells) {
  FloatLstm p = ThreeCellLstm(3);
  p.recurrent_to_input = {0.1f, 0.2f, 0.0f, -0.2f, 0.1f, 0.1f, 0.3f, -0.1f, 0.2f};
  p.recurrent_to_forget = {0.2f, -0.3f, 0.1f, 0.1f, 0.1f, -0.2f, -0.1f, 0.2f, 0.3f};
  p.recurrent_to_cell = {0.4f, 0.1f, -0.1f, -0.3f, 0.2f, 0.2f, 0.2f, 0.5f, 0.1f};
  p.recurrent_to_output = {-0.1f, 0.2f, 0.3f, 0.3f, 0.1f, -0.1f, 0.2f, -0.2f, 0.1f};
  p.input_layer_norm = {0.5f, 1.0f, 1.5f};
  p.forget_layer_norm = {1.0f, 0.8f, 0.6f};
  p.cell_layer_norm = {0.9f, 1.1f, 1.0f};
  p.output_layer_norm = {1.2f, 0.7f, 0.4f};
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, p, 1), output);
  ASSERT_TRUE(test.BuildAndInvoke<float>({0.7f, -0.3f}).ok());
  ExpectNear(test.GetOutput<float>(0), {0.2085711f, -0.1088585f, -0.0256269f});
  ASSERT_TRUE(test.Invoke().ok());
  ExpectNear(test.GetOutput<float>(0), {0.2493400f, -0.2105664f, -0.0464962f});
}

// CIFG (input gate = 1 - forget gate) with peephole weights and a cell clip that bites on the
// second and third steps.
TEST(SequenceLstmTest, CifgPeepholeCellClipTimeMajor) {
  FloatLstm p;
  p.n_input = 2;
  p.n_cell = 3;
  p.n_output = 3;
  p.input_to_forget = {0.5f, -0.3f, 0.2f, 0.8f, -0.6f, 0.1f};
  p.input_to_cell = {1.5f, 0.7f, -0.9f, 1.2f, 0.4f, -1.1f};
  p.input_to_output = {0.3f, 0.3f, -0.2f, 0.5f, 0.6f, -0.4f};
  p.recurrent_to_forget = {0.1f, 0.2f, -0.1f, 0.0f, 0.3f, 0.2f, -0.2f, 0.1f, 0.4f};
  p.recurrent_to_cell = {0.5f, -0.4f, 0.3f, 0.2f, 0.6f, -0.5f, -0.3f, 0.1f, 0.7f};
  p.recurrent_to_output = {0.2f, -0.1f, 0.1f, 0.3f, 0.2f, -0.2f, 0.1f, 0.4f, 0.3f};
  p.cell_to_forget = {0.5f, -0.5f, 0.25f};
  p.cell_to_output = {-0.3f, 0.6f, 0.2f};
  p.forget_gate_bias = {0.2f, 0.1f, -0.1f};
  p.cell_gate_bias = {0.3f, -0.2f, 0.1f};
  p.output_gate_bias = {0.0f, 0.1f, -0.2f};
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {3, 1, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddSequenceOp(test, AddFullInputs(test, input, p, 1), output, /*time_major=*/true,
                /*cell_clip=*/0.5f);
  ASSERT_TRUE(test.BuildAndInvoke<float>({1.0f, 0.5f, -0.5f, 1.5f, 2.0f, -1.0f}).ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{3, 1, 3}));
  ExpectNear(test.GetOutput<float>(0), {0.1999090f, -0.0782782f, -0.0179875f, 0.2536314f, 0.0712662f, -0.0929172f,
                                        0.2522915f, -0.1250951f, 0.3795920f});
}

// Two rows of two steps: batch-major input is {batch, time, input} and each row runs its own
// sequence; time-major input is {time, batch, input}. Both must give the same per-row results.
TEST(SequenceLstmTest, BatchMajorAndTimeMajorLayouts) {
  const std::vector<float> expected_by_row_then_time = {
      0.0845020f,  -0.1173236f, 0.0777504f,  -0.0332954f,  // row 0, t = 0 and 1
      -0.0153477f, 0.0019446f,  -0.0172911f, 0.1918573f,   // row 1
  };
  {
    OpTest test;
    const int input = test.AddInput(kTfLiteFloat32, {2, 2, 3});
    const int output = test.AddOutput(kTfLiteFloat32);
    AddSequenceOp(test, AddFullInputs(test, input, TwoCellLstm(), 2), output,
                  /*time_major=*/false);
    ASSERT_TRUE(test.Build().ok());
    test.SetInput<float>(0, {1.0f, -1.0f, 0.5f, 0.3f, 0.2f, -0.1f,    // row 0
                             0.2f, 0.3f, -0.4f, -0.6f, 0.4f, 0.9f});  // row 1
    ASSERT_TRUE(test.Invoke().ok());
    EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{2, 2, 2}));
    ExpectNear(test.GetOutput<float>(0), expected_by_row_then_time);
  }
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddSequenceOp(test, AddFullInputs(test, input, TwoCellLstm(), 2), output, /*time_major=*/true);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {1.0f, -1.0f, 0.5f, 0.2f, 0.3f, -0.4f,    // t = 0
                           0.3f, 0.2f, -0.1f, -0.6f, 0.4f, 0.9f});  // t = 1
  ASSERT_TRUE(test.Invoke().ok());
  const std::vector<float>& e = expected_by_row_then_time;
  ExpectNear(test.GetOutput<float>(0), {e[0], e[1], e[4], e[5], e[2], e[3], e[6], e[7]});
}

TEST(SequenceLstmTest, ZeroLengthSequenceGivesEmptyOutput) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 0, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddSequenceOp(test, AddFullInputs(test, input, TwoCellLstm(), 1), output, /*time_major=*/false);
  ASSERT_TRUE(test.Build().ok());
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 0, 2}));
  EXPECT_TRUE(test.GetOutput<float>(0).empty());
}

TEST(LstmTest, BasicKernel) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 2});
  const int prev_activation = test.AddInput(kTfLiteFloat32, {1, 1});
  const int weights = test.AddConst<float>(kTfLiteFloat32, {4, 3},
                                           {0.5f, -0.2f, 0.3f, 0.8f, 0.4f, -0.6f,  //
                                            -0.1f, 0.2f, 0.9f, 0.3f, 0.3f, 0.3f});
  const int bias = test.AddConst<float>(kTfLiteFloat32, {4}, {0.1f, 0.0f, 1.0f, -0.2f});
  const int prev_state = test.AddInput(kTfLiteFloat32, {1, 1});
  const int activation = test.AddOutput(kTfLiteFloat32);
  const int state = test.AddOutput(kTfLiteFloat32);
  const int concat = test.AddOutput(kTfLiteFloat32);
  const int gates = test.AddOutput(kTfLiteFloat32);
  test.AddOp(kTfLiteBuiltinLstm, {input, prev_activation, weights, bias, prev_state},
             {activation, state, concat, gates}, fb::BuiltinOptions::LSTMOptions,
             fb::CreateLSTMOptions(test.fbb(), fb::ActivationFunctionType::TANH, 0.0f, 0.0f, fb::LSTMKernelType::BASIC)
                 .Union());
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {1.0f, -0.5f});
  test.SetInput<float>(1, {0.25f});
  test.SetInput<float>(2, {0.4f});
  ASSERT_TRUE(test.Invoke().ok());
  // gates = W [x, prev_activation] + b; state = sigmoid(g0) tanh(g1) + sigmoid(g2) prev_state;
  // activation = sigmoid(g3) tanh(state).
  ExpectNear(test.GetOutput<float>(0), {0.2657787f});
  ExpectNear(test.GetOutput<float>(1), {0.5832108f});
  ExpectNear(test.GetOutput<float>(2), {1.0f, -0.5f, 0.25f});
  ExpectNear(test.GetOutput<float>(3), {0.775f, 0.45f, 1.025f, 0.025f});
}

TEST(LstmTest, RefusesStateThatIsNotVariable) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  std::vector<int> inputs = AddFullInputs(test, input, TwoCellLstm(), 1);
  inputs[18] = test.AddInput(kTfLiteFloat32, {1, 2});
  AddLstmOp(test, inputs, output);
  const Status status = test.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("variable"), std::string::npos) << status.message();
}

TEST(LstmTest, RefusesMismatchedWeightShape) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  std::vector<int> inputs = AddFullInputs(test, input, TwoCellLstm(), 1);
  inputs[2] = test.AddConst<float>(kTfLiteFloat32, {2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  AddLstmOp(test, inputs, output);
  EXPECT_FALSE(test.Build().ok());
}

TEST(LstmTest, RefusesInputGateBiasInCifg) {
  FloatLstm p = TwoCellLstm();
  p.input_to_input.clear();
  p.recurrent_to_input.clear();
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, p, 1), output);
  EXPECT_FALSE(test.Build().ok());
}

TEST(SequenceLstmTest, RefusesTwoDimensionalInput) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddSequenceOp(test, AddFullInputs(test, input, TwoCellLstm(), 2), output, /*time_major=*/true);
  EXPECT_FALSE(test.Build().ok());
}

TEST(LstmTest, RefusesMixedWeightTypes) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  std::vector<int> inputs = AddFullInputs(test, input, TwoCellLstm(), 1);
  // Input 4 decides a hybrid LSTM; the other weights are still float.
  inputs[4] = test.AddConst<int8_t>(kTfLiteInt8, {2, 3}, {1, 2, 3, 4, 5, 6});
  AddLstmOp(test, inputs, output);
  const Status status = test.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("expected INT8"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace touchstone
