// Reference recurrent kernels (LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, SVDF) run through the real
// loader and interpreter. Float expected values come from the equations worked by hand or in double
// precision (i = sigmoid(W_i x + R_i h + b_i), f, o alike, g = act(W_c x + R_c h + b_c),
// c' = f c + i g, h' = o act(c'), then projection), not from the kernel's own code. Quantized
// expected values are TensorFlow Lite's own (see the section further down).
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
  std::vector<float> recurrent_to_input, recurrent_to_forget, recurrent_to_cell,
      recurrent_to_output;
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
std::vector<int> AddFullInputs(OpTest& test, int input, const FloatLstm& p, int n_batch,
                               int num_inputs = 24) {
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
               fb::ActivationFunctionType activation = fb::ActivationFunctionType::TANH,
               float cell_clip = 0.0f, float proj_clip = 0.0f) {
  test.AddOp(kTfLiteBuiltinLstm, inputs, {output}, fb::BuiltinOptions::LSTMOptions,
             fb::CreateLSTMOptions(test.fbb(), activation, cell_clip, proj_clip).Union());
}

void AddSequenceOp(OpTest& test, const std::vector<int>& inputs, int output, bool time_major,
                   float cell_clip = 0.0f) {
  test.AddOp(kTfLiteBuiltinUnidirectionalSequenceLstm, inputs, {output},
             fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions,
             fb::CreateUnidirectionalSequenceLSTMOptions(
                 test.fbb(), fb::ActivationFunctionType::TANH, cell_clip, 0.0f, time_major)
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
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {1.0f, -1.0f, 0.5f, 0.2f, 0.3f, -0.4f});
  ASSERT_TRUE(test.Invoke().ok());
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
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {1.0f, -1.0f, 0.5f, 0.2f, 0.3f, -0.4f});
  ASSERT_TRUE(test.Invoke().ok());
  ExpectNear(test.GetOutput<float>(0), {0.0845020f, -0.1173236f, -0.0153477f, 0.0019446f});
}

TEST(LstmTest, ReluActivationAppliesToCellGateAndOutput) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, TwoCellLstm(), 2), output,
            fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {1.0f, -1.0f, 0.5f, 0.2f, 0.3f, -0.4f});
  ASSERT_TRUE(test.Invoke().ok());
  ExpectNear(test.GetOutput<float>(0), {0.0928176f, 0.0f, 0.0f, 0.0019447f});
}

// TFLite's float LSTM with activation NONE leaves the cell gate's buffer unwritten; with an
// all-zero input it holds the bias alone, and the output multiplies the output gate by that buffer
// instead of the cell state: h = sigmoid(b_o) * b_c.
TEST(LstmTest, ActivationNoneFollowsTfLiteBuffers) {
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {2, 3});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, TwoCellLstm(), 2), output,
            fb::ActivationFunctionType::NONE);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f});
  ASSERT_TRUE(test.Invoke().ok());
  // sigmoid(-0.1) * 0 = 0, sigmoid(0.1) * 0.2 = 0.1049958.
  ExpectNear(test.GetOutput<float>(0), {0.0f, 0.1049958f, 0.0f, 0.1049958f});
}

TEST(LstmTest, ProjectionWithBiasAndClip) {
  FloatLstm p;
  p.n_input = 2;
  p.n_cell = 3;
  p.n_output = 2;
  p.input_to_input = {0.2f, -0.1f, 0.4f, 0.3f, -0.5f, 0.2f};
  p.input_to_forget = {0.1f, 0.6f, -0.3f, 0.2f, 0.2f, 0.2f};
  p.input_to_cell = {0.7f, -0.4f, 0.3f, 0.9f, -0.6f, 0.5f};
  p.input_to_output = {0.2f, 0.1f, 0.5f, -0.2f, 0.1f, 0.3f};
  p.recurrent_to_input = {0.1f, 0.2f, -0.2f, 0.1f, 0.3f, -0.1f};
  p.recurrent_to_forget = {0.2f, -0.3f, 0.1f, 0.1f, -0.1f, 0.2f};
  p.recurrent_to_cell = {0.4f, 0.1f, -0.3f, 0.2f, 0.2f, 0.5f};
  p.recurrent_to_output = {-0.1f, 0.2f, 0.3f, 0.1f, 0.2f, -0.2f};
  p.input_gate_bias = {0.0f, 0.1f, -0.1f};
  p.forget_gate_bias = {0.5f, 0.5f, 0.5f};
  p.cell_gate_bias = {0.1f, -0.1f, 0.2f};
  p.output_gate_bias = {0.2f, 0.0f, -0.2f};
  p.projection_weights = {2.0f, -1.5f, 3.0f, 1.0f, 2.5f, -0.5f};
  p.projection_bias = {0.05f, -0.1f};

  {
    OpTest test;
    const int input = test.AddInput(kTfLiteFloat32, {1, 2});
    const int output = test.AddOutput(kTfLiteFloat32);
    AddLstmOp(test, AddFullInputs(test, input, p, 1), output);
    ASSERT_TRUE(test.Build().ok());
    test.SetInput<float>(0, {1.5f, -2.0f});
    ASSERT_TRUE(test.Invoke().ok());
    EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 2}));
    ExpectNear(test.GetOutput<float>(0), {0.9533003f, -0.5895762f});
  }
  // proj_clip 0.7 clips the first element; the clipped output is the next step's state.
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, p, 1), output, fb::ActivationFunctionType::TANH,
            /*cell_clip=*/0.0f, /*proj_clip=*/0.7f);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {1.5f, -2.0f});
  ASSERT_TRUE(test.Invoke().ok());
  ExpectNear(test.GetOutput<float>(0), {0.7f, -0.5895762f});
  ASSERT_TRUE(test.Invoke().ok());
  ExpectNear(test.GetOutput<float>(0), {0.7f, -0.7f});
}

TEST(LstmTest, LayerNormOverThreeCells) {
  FloatLstm p;
  p.n_input = 2;
  p.n_cell = 3;
  p.n_output = 3;
  p.input_to_input = {0.2f, -0.1f, 0.4f, 0.3f, -0.5f, 0.2f};
  p.input_to_forget = {0.1f, 0.6f, -0.3f, 0.2f, 0.2f, 0.2f};
  p.input_to_cell = {0.7f, -0.4f, 0.3f, 0.9f, -0.6f, 0.5f};
  p.input_to_output = {0.2f, 0.1f, 0.5f, -0.2f, 0.1f, 0.3f};
  p.recurrent_to_input = {0.1f, 0.2f, 0.0f, -0.2f, 0.1f, 0.1f, 0.3f, -0.1f, 0.2f};
  p.recurrent_to_forget = {0.2f, -0.3f, 0.1f, 0.1f, 0.1f, -0.2f, -0.1f, 0.2f, 0.3f};
  p.recurrent_to_cell = {0.4f, 0.1f, -0.1f, -0.3f, 0.2f, 0.2f, 0.2f, 0.5f, 0.1f};
  p.recurrent_to_output = {-0.1f, 0.2f, 0.3f, 0.3f, 0.1f, -0.1f, 0.2f, -0.2f, 0.1f};
  p.input_gate_bias = {0.0f, 0.1f, -0.1f};
  p.forget_gate_bias = {0.5f, 0.5f, 0.5f};
  p.cell_gate_bias = {0.1f, -0.1f, 0.2f};
  p.output_gate_bias = {0.2f, 0.0f, -0.2f};
  p.input_layer_norm = {0.5f, 1.0f, 1.5f};
  p.forget_layer_norm = {1.0f, 0.8f, 0.6f};
  p.cell_layer_norm = {0.9f, 1.1f, 1.0f};
  p.output_layer_norm = {1.2f, 0.7f, 0.4f};
  OpTest test;
  const int input = test.AddInput(kTfLiteFloat32, {1, 2});
  const int output = test.AddOutput(kTfLiteFloat32);
  AddLstmOp(test, AddFullInputs(test, input, p, 1), output);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {0.7f, -0.3f});
  ASSERT_TRUE(test.Invoke().ok());
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
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, {1.0f, 0.5f, -0.5f, 1.5f, 2.0f, -1.0f});
  ASSERT_TRUE(test.Invoke().ok());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{3, 1, 3}));
  ExpectNear(test.GetOutput<float>(0),
             {0.1999090f, -0.0782782f, -0.0179875f, 0.2536314f, 0.0712662f, -0.0929172f, 0.2522915f,
              -0.1250951f, 0.3795920f});
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
             fb::CreateLSTMOptions(test.fbb(), fb::ActivationFunctionType::TANH, 0.0f, 0.0f,
                                   fb::LSTMKernelType::BASIC)
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

// ---- Quantized LSTMs and SVDF. The integer LSTM reads its gate scales from the operator's
// intermediate tensors, which ModelBuilder cannot write, so these models are written with the
// schema's builders directly. Their expected outputs are what TensorFlow Lite computed for the same
// models and inputs (its 2.14.1 golden run for lstm_quantized.bin's first step; its WebAssembly
// build, shared/oracle, for the rest, except where a test says otherwise): integer results are only
// specified by TFLite's rounding. The hybrid float results agree with TFLite's to ~1e-7 (the
// WebAssembly build's exp and tanh differ from glibc's in the last bit).

fb::TensorType SchemaType(TfLiteType type) {
  switch (type) {
    case kTfLiteFloat32:
      return fb::TensorType::FLOAT32;
    case kTfLiteInt32:
      return fb::TensorType::INT32;
    case kTfLiteInt16:
      return fb::TensorType::INT16;
    case kTfLiteInt8:
      return fb::TensorType::INT8;
    case kTfLiteUInt8:
      return fb::TensorType::UINT8;
    default:
      return fb::TensorType::FLOAT32;
  }
}

class RawModel {
 public:
  RawModel() { buffers_.push_back(fb::CreateBufferDirect(fbb_)); }  // buffer 0: no data

  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

  // A tensor; `scale` 0 means not quantized.
  int AddTensor(TfLiteType type, const std::vector<int>& shape, float scale = 0.0f,
                int64_t zero_point = 0, bool is_variable = false, const void* data = nullptr,
                size_t bytes = 0) {
    uint32_t buffer = 0;
    if (data != nullptr) {
      const auto* begin = static_cast<const uint8_t*>(data);
      const std::vector<uint8_t> contents(begin, begin + bytes);
      buffers_.push_back(fb::CreateBufferDirect(fbb_, &contents));
      buffer = static_cast<uint32_t>(buffers_.size() - 1);
    }
    flatbuffers::Offset<fb::QuantizationParameters> quantization = 0;
    if (scale != 0.0f) {
      const std::vector<float> scales = {scale};
      const std::vector<int64_t> zero_points = {zero_point};
      quantization =
          fb::CreateQuantizationParametersDirect(fbb_, nullptr, nullptr, &scales, &zero_points);
    }
    const std::string name = "t" + std::to_string(tensors_.size());
    tensors_.push_back(fb::CreateTensorDirect(fbb_, &shape, SchemaType(type), buffer, name.c_str(),
                                              quantization, is_variable));
    return static_cast<int>(tensors_.size() - 1);
  }
  template <typename T>
  int AddConst(TfLiteType type, const std::vector<int>& shape, const std::vector<T>& values,
               float scale = 0.0f) {
    return AddTensor(type, shape, scale, 0, false, values.data(), values.size() * sizeof(T));
  }
  int AddInput(TfLiteType type, const std::vector<int>& shape, float scale = 0.0f,
               int64_t zero_point = 0) {
    inputs_.push_back(AddTensor(type, shape, scale, zero_point));
    return inputs_.back();
  }
  int AddOutput(TfLiteType type, float scale = 0.0f, int64_t zero_point = 0) {
    outputs_.push_back(AddTensor(type, {}, scale, zero_point));
    return outputs_.back();
  }
  int AddState(TfLiteType type, const std::vector<int>& shape, float scale = 0.0f,
               int64_t zero_point = 0) {
    return AddTensor(type, shape, scale, zero_point, /*is_variable=*/true);
  }

  void AddOp(fb::BuiltinOperator op, const std::vector<int>& inputs,
             const std::vector<int>& outputs, const std::vector<int>& intermediates,
             fb::BuiltinOptions options_type, flatbuffers::Offset<void> options) {
    uint32_t opcode = 0;
    while (opcode < opcodes_.size() && opcodes_[opcode] != op) ++opcode;
    if (opcode == opcodes_.size()) opcodes_.push_back(op);
    operators_.push_back(
        fb::CreateOperatorDirect(fbb_, opcode, &inputs, &outputs, options_type, options, nullptr,
                                 fb::CustomOptionsFormat::FLEXBUFFERS, nullptr,
                                 intermediates.empty() ? nullptr : &intermediates));
  }

  // Serializes, loads, creates the reference interpreter and allocates tensors.
  Status Build() {
    std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
    for (fb::BuiltinOperator op : opcodes_) {
      codes.push_back(fb::CreateOperatorCode(fbb_, static_cast<int8_t>(op), 0, 1, op));
    }
    const std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs = {
        fb::CreateSubGraphDirect(fbb_, &tensors_, &inputs_, &outputs_, &operators_)};
    fbb_.Finish(fb::CreateModelDirect(fbb_, 3, &codes, &subgraphs, "recurrent_test", &buffers_),
                "TFL3");
    const std::vector<uint8_t> bytes(fbb_.GetBufferPointer(),
                                     fbb_.GetBufferPointer() + fbb_.GetSize());
    StatusOr<std::shared_ptr<const Model>> model = Model::FromBuffer(bytes, "recurrent_test");
    if (!model.ok()) return model.status();
    model_ = model.value();
    InterpreterOptions options;
    options.kernel_set = KernelSet::kReference;
    StatusOr<std::unique_ptr<Interpreter>> interpreter = Interpreter::Create(model_, options);
    if (!interpreter.ok()) return interpreter.status();
    interpreter_ = std::move(interpreter.value());
    return interpreter_->AllocateTensors();
  }

  template <typename T>
  void SetInput(int position, const std::vector<T>& values) {
    TfLiteTensor* t = interpreter_->input_tensor(position);
    ASSERT_EQ(t->bytes, values.size() * sizeof(T));
    std::memcpy(t->data.raw, values.data(), t->bytes);
  }
  Status Invoke() { return interpreter_->Invoke(); }
  template <typename T>
  std::vector<T> GetOutput(int position) {
    const TfLiteTensor* t = interpreter_->output_tensor(position);
    const T* data = reinterpret_cast<const T*>(t->data.raw);
    return std::vector<T>(data, data + t->bytes / sizeof(T));
  }
  std::vector<int> GetOutputShape(int position) {
    const TfLiteTensor* t = interpreter_->output_tensor(position);
    return std::vector<int>(t->dims->data, t->dims->data + t->dims->size);
  }

 private:
  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers_;
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors_;
  std::vector<flatbuffers::Offset<fb::Operator>> operators_;
  std::vector<fb::BuiltinOperator> opcodes_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Interpreter> interpreter_;
};

// Deterministic pseudo-random values in [lo, hi] (a linear congruential sequence), for weights.
template <typename T>
std::vector<T> Pattern(int count, int lo, int hi, uint32_t seed) {
  std::vector<T> values(count);
  uint32_t state = seed * 2654435761u + 1;
  for (T& value : values) {
    state = state * 1664525u + 1013904223u;
    value =
        static_cast<T>(lo + static_cast<int>((state >> 8) % static_cast<uint32_t>(hi - lo + 1)));
  }
  return values;
}

std::vector<float> FloatPattern(int count, float step, uint32_t seed) {
  std::vector<float> values;
  for (int v : Pattern<int>(count, -9, 9, seed)) values.push_back(v * step);
  return values;
}

// An integer or hybrid LSTM's layout: which optional parts it has and its sizes.
struct QuantizedLstmSpec {
  int n_batch = 1;
  int max_time = 1;  // the sequence op only
  int n_input = 2;
  int n_cell = 2;
  int n_output = 2;
  bool cifg = false;
  bool peephole = false;
  bool projection = false;
  bool layer_norm = false;
};

// The 24 inputs of an integer LSTM with pattern weights: int8 weights of scale ~0.01, int32
// biases in the products' scale, int16 peephole and layer norm weights. States and intermediates
// are added by the caller.
std::vector<int> AddIntegerParameters(RawModel& m, const QuantizedLstmSpec& s, int input,
                                      float input_scale) {
  std::vector<int> inputs(24, -1);
  inputs[0] = input;
  const bool has_input_gate = !s.cifg;
  uint32_t seed = 10;
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && !has_input_gate) continue;
    const float input_weight_scale = 0.01f + 0.002f * g;
    const float recurrent_weight_scale = 0.012f - 0.001f * g;
    inputs[1 + g] =
        m.AddConst(kTfLiteInt8, {s.n_cell, s.n_input},
                   Pattern<int8_t>(s.n_cell * s.n_input, -127, 127, ++seed), input_weight_scale);
    inputs[5 + g] = m.AddConst(kTfLiteInt8, {s.n_cell, s.n_output},
                               Pattern<int8_t>(s.n_cell * s.n_output, -127, 127, ++seed),
                               recurrent_weight_scale);
    if (s.peephole && g != 2) {
      inputs[9 + g - (g == 3 ? 1 : 0)] = m.AddConst(
          kTfLiteInt16, {s.n_cell}, Pattern<int16_t>(s.n_cell, -20000, 20000, ++seed), 0.0002f);
    }
    // Biases: the products' scale without layer norm; the layer norm's output scale with it.
    inputs[12 + g] =
        m.AddConst(kTfLiteInt32, {s.n_cell}, Pattern<int32_t>(s.n_cell, -3000, 3000, ++seed),
                   input_scale * input_weight_scale);
    if (s.layer_norm) {
      inputs[20 + g] = m.AddConst(kTfLiteInt16, {s.n_cell},
                                  Pattern<int16_t>(s.n_cell, 10000, 32767, ++seed), 3.0e-5f);
    }
  }
  if (s.projection) {
    inputs[16] = m.AddConst(kTfLiteInt8, {s.n_output, s.n_cell},
                            Pattern<int8_t>(s.n_output * s.n_cell, -127, 127, ++seed), 0.015f);
    inputs[17] = m.AddConst(kTfLiteInt32, {s.n_output},
                            Pattern<int32_t>(s.n_output, -500, 500, ++seed), 0.0001f);
  }
  return inputs;
}

// The five intermediates: the gates' layer-norm scales (unquantized float tensors without layer
// norm, as converters write them) and the hidden state's.
std::vector<int> AddIntermediates(RawModel& m, const QuantizedLstmSpec& s, float hidden_scale,
                                  int hidden_zero_point) {
  std::vector<int> intermediates;
  for (int g = 0; g < 4; ++g) {
    intermediates.push_back(s.layer_norm ? m.AddTensor(kTfLiteInt16, {0}, 0.0004f + 0.0001f * g)
                                         : m.AddTensor(kTfLiteFloat32, {0}));
  }
  intermediates.push_back(m.AddTensor(kTfLiteInt8, {0}, hidden_scale, hidden_zero_point));
  return intermediates;
}

TEST(IntegerLstmTest, ReproducesTfLiteOnLstmQuantizedModel) {
  // litert_testdata/lstm_quantized.bin: layer norm, projection, cell clip 10, scales as there.
  RawModel m;
  const int input = m.AddInput(kTfLiteInt8, {1, 2}, 0.00117647066f, -128);
  const std::vector<int8_t> weights = {79, 65, -27, 127};
  const std::vector<int32_t> bias = {33553408, 27321536};
  const std::vector<int16_t> layer_norm = {32767, 26681};
  std::vector<int> inputs(24, -1);
  inputs[0] = input;
  for (int k = 1; k <= 8; ++k) inputs[k] = m.AddConst(kTfLiteInt8, {2, 2}, weights, 0.00463949377f);
  for (int k = 12; k <= 15; ++k) inputs[k] = m.AddConst(kTfLiteInt32, {2}, bias, 1.09841842e-08f);
  inputs[16] = m.AddConst(kTfLiteInt8, {2, 2}, weights, 0.00463949377f);
  inputs[17] = m.AddConst(kTfLiteInt32, {2}, std::vector<int32_t>{74764, 60878}, 4.92957633e-06f);
  inputs[18] = m.AddState(kTfLiteInt8, {1, 2}, 0.00183692167f, -128);
  inputs[19] = m.AddState(kTfLiteInt16, {1, 2}, 3.05175781e-05f);
  for (int k = 20; k <= 23; ++k)
    inputs[k] = m.AddConst(kTfLiteInt16, {2}, layer_norm, 1.12478047e-05f);
  const int output = m.AddOutput(kTfLiteInt8, 0.00183692167f, -128);
  std::vector<int> intermediates;
  for (int g = 0; g < 4; ++g)
    intermediates.push_back(m.AddTensor(kTfLiteInt16, {0}, 5.20609183e-06f));
  intermediates.push_back(m.AddTensor(kTfLiteInt8, {0}, 0.00106252462f, -128));
  m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, intermediates,
          fb::BuiltinOptions::LSTMOptions,
          fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH, 10.0f).Union());
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {88, -128});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{1, 2}));
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{72, 35}));
  // A second step starts from the states the first one left.
  m.SetInput<int8_t>(0, {-20, 100});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{72, 35}));
}

// Builds an integer LSTM (LSTM op with max_time 1, else the sequence op) from `s`.
std::vector<int> BuildIntegerLstm(RawModel& m, const QuantizedLstmSpec& s, bool sequence,
                                  bool time_major, float cell_clip, float proj_clip,
                                  int hidden_zero_point, int state_zero_point = 0) {
  const float input_scale = 0.02f;
  std::vector<int> input_shape = {s.n_batch, s.n_input};
  if (sequence) {
    input_shape = time_major ? std::vector<int>{s.max_time, s.n_batch, s.n_input}
                             : std::vector<int>{s.n_batch, s.max_time, s.n_input};
  }
  const int input = m.AddInput(kTfLiteInt8, input_shape, input_scale, 5);
  std::vector<int> inputs = AddIntegerParameters(m, s, input, input_scale);
  inputs[18] = m.AddState(kTfLiteInt8, {s.n_batch, s.n_output}, 0.008f, state_zero_point);
  inputs[19] = m.AddState(kTfLiteInt16, {s.n_batch, s.n_cell}, 1.0f / 2048);
  const int output = m.AddOutput(kTfLiteInt8, 0.008f, state_zero_point);
  const std::vector<int> intermediates = AddIntermediates(m, s, 0.007f, hidden_zero_point);
  if (sequence) {
    m.AddOp(fb::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM, inputs, {output}, intermediates,
            fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions,
            fb::CreateUnidirectionalSequenceLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH,
                                                        cell_clip, proj_clip, time_major)
                .Union());
  } else {
    m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, intermediates,
            fb::BuiltinOptions::LSTMOptions,
            fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH, cell_clip, proj_clip)
                .Union());
  }
  return inputs;
}

TEST(IntegerLstmTest, ProjectionWithClipOverTwoSteps) {
  QuantizedLstmSpec s;
  s.n_batch = 2;
  s.n_input = 3;
  s.n_cell = 4;
  s.n_output = 2;
  s.projection = true;
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/false, true, /*cell_clip=*/0.0f, /*proj_clip=*/0.6f,
                   /*hidden_zero_point=*/2);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {100, -50, 7, -128, 127, 30});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 2}));
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{75, 62, 75, -75}));
  m.SetInput<int8_t>(0, {-90, 40, 60, 5, -70, 127});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{53, -15, -32, 27}));
}

TEST(IntegerSequenceLstmTest, CifgPeepholeCellClipBatchMajor) {
  QuantizedLstmSpec s;
  s.n_batch = 2;
  s.max_time = 3;
  s.n_input = 3;
  s.n_cell = 4;
  s.n_output = 4;
  s.cifg = true;
  s.peephole = true;
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/true, /*time_major=*/false, /*cell_clip=*/0.5f, 0.0f,
                   /*hidden_zero_point=*/0);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, Pattern<int8_t>(18, -128, 127, 99));
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(m.GetOutput<int8_t>(0),
            (std::vector<int8_t>{66,  6,   14, -54, 66,  20,  0,   -43, 41,  14,  63, -8,
                                 -28, -64, 0,  -1,  -14, -16, -26, -27, -42, -53, -1, -6}));
}

TEST(IntegerSequenceLstmTest, LayerNormCifgTimeMajor) {
  QuantizedLstmSpec s;
  s.n_batch = 1;
  s.max_time = 4;
  s.n_input = 2;
  s.n_cell = 4;
  s.n_output = 4;
  s.cifg = true;
  s.layer_norm = true;
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/true, /*time_major=*/true, 0.0f, 0.0f,
                   /*hidden_zero_point=*/0);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {120, -7, 0, 0, -100, 64, 33, -128});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{4, 1, 4}));
  EXPECT_EQ(m.GetOutput<int8_t>(0),
            (std::vector<int8_t>{15, 4, -50, 8, -2, 18, -37, 10, -29, 0, 7, 21, 6, -7, -8, 13}));
}

// TFLite resets an int8 variable tensor to its zero point (tflite::ResetVariableTensor), so the
// output state starts at real 0 whatever its zero point; the recurrent products then subtract that
// zero point through the effective bias.
TEST(IntegerLstmTest, OutputStateStartsAtItsZeroPoint) {
  QuantizedLstmSpec s;
  s.n_batch = 2;
  s.n_input = 3;
  s.n_cell = 4;
  s.n_output = 4;
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/false, true, 0.0f, 0.0f, /*hidden_zero_point=*/-3,
                   /*state_zero_point=*/-3);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, {-128, 77, 3, 90, -45, 127});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{-43, 4, -58, 3, -63, -54, 38, -65}));
  m.SetInput<int8_t>(0, {12, -100, 64, -7, 0, 55});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{7, -25, 0, -2, -70, -74, 58, -54}));
}

// TFLite 2.14.1 adds the hidden state's zero point in each row's blocks of 8 cells and subtracts
// it in the row's remainder (HiddenState); dtln_noise_suppression.tflite (128 cells) and
// lstm_quantized.bin (2 cells) show both signs. One step from zero states, without projection, the
// output is the hidden state itself, so moving the zero point from 0 to -4 moves cells 0..7 of each
// row by -4 and cells 8..11 by +4, for both ops; a warning line says so.
TEST(IntegerLstmTest, HiddenZeroPointSignsFollowTfLitesBlocksOfEight) {
  for (const bool sequence : {false, true}) {
    QuantizedLstmSpec s;
    s.n_batch = 2;
    s.max_time = 1;
    s.n_input = 3;
    s.n_cell = 12;
    s.n_output = 12;
    const std::vector<int8_t> input = {100, -50, 7, -128, 127, 30};
    std::vector<int8_t> outputs[2];
    for (const int zero_point : {0, -4}) {
      RawModel m;
      BuildIntegerLstm(m, s, sequence, /*time_major=*/true, 0.0f, 0.0f, zero_point);
      ::testing::internal::CaptureStderr();
      ASSERT_TRUE(m.Build().ok());
      const std::string warning = ::testing::internal::GetCapturedStderr();
      // n_cell 12 is no multiple of 8, so a nonzero zero point meets both signs, with a warning.
      const bool warned = warning.find("WARNING: ") != std::string::npos &&
                          warning.find("12 cells") != std::string::npos;
      EXPECT_EQ(warned, zero_point != 0) << warning;
      m.SetInput<int8_t>(0, input);
      ASSERT_TRUE(m.Invoke().ok());
      outputs[zero_point == 0 ? 0 : 1] = m.GetOutput<int8_t>(0);
    }
    ASSERT_EQ(outputs[0].size(), 24u);
    for (int i = 0; i < 24; ++i) {
      const int cell = i % 12;
      ASSERT_TRUE(outputs[0][i] > -120 && outputs[0][i] < 120)
          << "the inputs must keep the hidden state off the int8 limits";
      EXPECT_EQ(outputs[1][i] - outputs[0][i], cell < 8 ? -4 : 4)
          << (sequence ? "UNIDIRECTIONAL_SEQUENCE_LSTM" : "LSTM") << ", row " << i / 12
          << ", cell " << cell;
    }
  }
}

TEST(IntegerSequenceLstmTest, ZeroLengthSequenceGivesEmptyOutput) {
  QuantizedLstmSpec s;
  s.n_batch = 2;
  s.max_time = 0;
  s.n_input = 3;
  s.n_cell = 4;
  s.n_output = 4;
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/true, /*time_major=*/true, 0.0f, 0.0f, 0);
  ASSERT_TRUE(m.Build().ok());
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{0, 2, 4}));
  EXPECT_TRUE(m.GetOutput<int8_t>(0).empty());
}

TEST(IntegerLstmTest, RefusesMissingIntermediates) {
  QuantizedLstmSpec s;
  RawModel m;
  const int input = m.AddInput(kTfLiteInt8, {1, 2}, 0.02f, 0);
  std::vector<int> inputs = AddIntegerParameters(m, s, input, 0.02f);
  inputs[18] = m.AddState(kTfLiteInt8, {1, 2}, 0.008f, 0);
  inputs[19] = m.AddState(kTfLiteInt16, {1, 2}, 1.0f / 2048);
  const int output = m.AddOutput(kTfLiteInt8, 0.008f, 0);
  m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, {}, fb::BuiltinOptions::LSTMOptions,
          fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH).Union());
  const Status status = m.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("intermediate"), std::string::npos) << status.message();
}

TEST(IntegerLstmTest, RefusesEightBitGateForm) {
  QuantizedLstmSpec s;
  RawModel m;
  const int input = m.AddInput(kTfLiteInt8, {1, 2}, 0.02f, 0);
  std::vector<int> inputs = AddIntegerParameters(m, s, input, 0.02f);
  inputs[18] = m.AddState(kTfLiteInt8, {1, 2}, 0.008f, 0);
  inputs[19] = m.AddState(kTfLiteInt16, {1, 2}, 1.0f / 2048);
  const int output = m.AddOutput(kTfLiteInt8, 0.008f, 0);
  std::vector<int> intermediates;
  for (int k = 0; k < 12; ++k) intermediates.push_back(m.AddTensor(kTfLiteInt8, {0}, 0.01f));
  m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, intermediates,
          fb::BuiltinOptions::LSTMOptions,
          fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH).Union());
  const Status status = m.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("12 intermediate"), std::string::npos) << status.message();
}

TEST(IntegerLstmTest, RefusesCellStateScaleThatIsNotAPowerOfTwo) {
  QuantizedLstmSpec s;
  RawModel m;
  const int input = m.AddInput(kTfLiteInt8, {1, 2}, 0.02f, 0);
  std::vector<int> inputs = AddIntegerParameters(m, s, input, 0.02f);
  inputs[18] = m.AddState(kTfLiteInt8, {1, 2}, 0.008f, 0);
  inputs[19] = m.AddState(kTfLiteInt16, {1, 2}, 0.0003f);
  const int output = m.AddOutput(kTfLiteInt8, 0.008f, 0);
  m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, AddIntermediates(m, s, 0.007f, 0),
          fb::BuiltinOptions::LSTMOptions,
          fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH).Union());
  const Status status = m.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("power of two"), std::string::npos) << status.message();
}

// A hybrid LSTM: float input, states and biases; int8 weights (peephole ones too); float layer
// norm coefficients.
std::vector<int> AddHybridParameters(RawModel& m, const QuantizedLstmSpec& s, int input) {
  std::vector<int> inputs(24, -1);
  inputs[0] = input;
  uint32_t seed = 40;
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && s.cifg) continue;
    inputs[1 + g] =
        m.AddConst(kTfLiteInt8, {s.n_cell, s.n_input},
                   Pattern<int8_t>(s.n_cell * s.n_input, -127, 127, ++seed), 0.01f + 0.002f * g);
    inputs[5 + g] =
        m.AddConst(kTfLiteInt8, {s.n_cell, s.n_output},
                   Pattern<int8_t>(s.n_cell * s.n_output, -127, 127, ++seed), 0.012f - 0.001f * g);
    if (s.peephole && g != 2) {
      inputs[9 + g - (g == 3 ? 1 : 0)] =
          m.AddConst(kTfLiteInt8, {s.n_cell}, Pattern<int8_t>(s.n_cell, -127, 127, ++seed), 0.004f);
    }
    inputs[12 + g] = m.AddConst(kTfLiteFloat32, {s.n_cell}, FloatPattern(s.n_cell, 0.05f, ++seed));
    if (s.layer_norm) {
      inputs[20 + g] = m.AddConst(kTfLiteFloat32, {s.n_cell}, FloatPattern(s.n_cell, 0.1f, ++seed));
    }
  }
  if (s.projection) {
    inputs[16] = m.AddConst(kTfLiteInt8, {s.n_output, s.n_cell},
                            Pattern<int8_t>(s.n_output * s.n_cell, -127, 127, ++seed), 0.015f);
    inputs[17] = m.AddConst(kTfLiteFloat32, {s.n_output}, FloatPattern(s.n_output, 0.02f, ++seed));
  }
  inputs[18] = m.AddState(kTfLiteFloat32, {s.n_batch, s.n_output});
  inputs[19] = m.AddState(kTfLiteFloat32, {s.n_batch, s.n_cell});
  return inputs;
}

void ExpectClose(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-6f) << "element " << i;
  }
}

TEST(HybridLstmTest, PeepholeProjectionClipOverTwoSteps) {
  QuantizedLstmSpec s;
  s.n_batch = 2;
  s.n_input = 3;
  s.n_cell = 4;
  s.n_output = 3;
  s.peephole = true;
  s.projection = true;
  RawModel m;
  const int input = m.AddInput(kTfLiteFloat32, {2, 3});
  const std::vector<int> inputs = AddHybridParameters(m, s, input);
  const int output = m.AddOutput(kTfLiteFloat32);
  m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, {}, fb::BuiltinOptions::LSTMOptions,
          fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH, 0.0f, 0.4f).Union());
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {0.5f, -1.25f, 0.75f, 2.0f, 0.1f, -0.3f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 3}));
  ExpectClose(m.GetOutput<float>(0),
              {-0.21986021f, 0.3878495f, 0.15308711f, 0.032524418f, -0.4f, 0.4f});
  m.SetInput<float>(0, {-0.4f, 0.9f, 1.5f, 0.0f, -2.0f, 0.6f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectClose(m.GetOutput<float>(0), {-0.19429608f, -0.4f, 0.4f, -0.4f, 0.4f, 0.4f});
}

TEST(HybridSequenceLstmTest, AsymmetricLayerNormCifgBatchMajor) {
  QuantizedLstmSpec s;
  s.n_batch = 2;
  s.max_time = 3;
  s.n_input = 2;
  s.n_cell = 3;
  s.n_output = 3;
  s.cifg = true;
  s.layer_norm = true;
  RawModel m;
  const int input = m.AddInput(kTfLiteFloat32, {2, 3, 2});
  const std::vector<int> inputs = AddHybridParameters(m, s, input);
  const int output = m.AddOutput(kTfLiteFloat32);
  m.AddOp(fb::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM, inputs, {output}, {},
          fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions,
          fb::CreateUnidirectionalSequenceLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH,
                                                      /*cell_clip=*/0.0f, /*proj_clip=*/0.0f,
                                                      /*time_major=*/false,
                                                      /*asymmetric_quantize_inputs=*/true)
              .Union());
  ASSERT_TRUE(m.Build().ok());
  // Row 1's first step is all zeros: TFLite skips the input product there.
  m.SetInput<float>(0,
                    {0.3f, 1.7f, -0.8f, 0.2f, 0.05f, -1.1f, 0.0f, 0.0f, 0.9f, 0.4f, -0.6f, -2.5f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 3, 3}));
  ExpectClose(m.GetOutput<float>(0),
              {-0.15666927f, -0.157483f, 0.15555291f, -0.14942154f, 0.15157913f, 0.16942745f,
               0.05642111f, 0.1784008f, 0.16192688f, -0.08257879f, -0.10543186f, 0.09597045f,
               -0.20465755f, -0.28063256f, 0.15158753f, 0.010645047f, 0.124444805f, 0.13779794f});
}

// ---- SVDF.

TEST(SvdfTest, FloatRankTwoOverTwoInvocations) {
  // 2 filters of rank 2 make one unit; memory 2. Per filter the state holds the last two feature
  // activations (oldest first) and the output sums weights_time . state over both filters + bias.
  RawModel m;
  const int input = m.AddInput(kTfLiteFloat32, {2, 2});
  const int weights_feature =
      m.AddConst(kTfLiteFloat32, {2, 2}, std::vector<float>{1.0f, 2.0f, 0.5f, -1.0f});
  const int weights_time =
      m.AddConst(kTfLiteFloat32, {2, 2}, std::vector<float>{1.0f, 0.5f, 2.0f, -1.0f});
  const int bias = m.AddConst(kTfLiteFloat32, {1}, std::vector<float>{0.25f});
  const int state = m.AddState(kTfLiteFloat32, {2, 4});
  const int output = m.AddOutput(kTfLiteFloat32);
  m.AddOp(fb::BuiltinOperator::SVDF, {input, weights_feature, weights_time, bias, state}, {output},
          {}, fb::BuiltinOptions::SVDFOptions,
          fb::CreateSVDFOptions(m.fbb(), 2, fb::ActivationFunctionType::RELU).Union());
  ASSERT_TRUE(m.Build().ok());
  // Row 0: features (3, -0.5) -> 0.5*3 + (-1)(-0.5) + 0.25 = 2.25.
  // Row 1: features (-1, -0.5) -> 0.5*(-1) + (-1)(-0.5) + 0.25 = 0.25.
  m.SetInput<float>(0, {1.0f, 1.0f, -1.0f, 0.0f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 1}));
  ExpectClose(m.GetOutput<float>(0), {2.25f, 0.25f});
  // Row 0: features (0, 2), states (3, 0) and (-0.5, 2) -> 3 + (-1 - 2) + 0.25 = 0.25.
  // Row 1: features (-3, -1.5), states (-1, -3) and (-0.5, -1.5) -> (-1 - 1.5) + (-1 + 1.5) + 0.25
  // < 0 -> ReLU 0.
  m.SetInput<float>(0, {2.0f, -1.0f, -3.0f, 0.0f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectClose(m.GetOutput<float>(0), {0.25f, 0.0f});
}

// An SVDF with int8 feature weights: hybrid (float input) or integer (int8 input, int16 state and
// time weights, int32 bias).
int BuildQuantizedSvdf(RawModel& m, bool integer, bool asymmetric, int batch, int input_size,
                       int num_filters, int rank, int memory_size,
                       fb::ActivationFunctionType activation) {
  const int num_units = num_filters / rank;
  const int input = integer ? m.AddInput(kTfLiteInt8, {batch, input_size}, 0.06f, -10)
                            : m.AddInput(kTfLiteFloat32, {batch, input_size});
  const int weights_feature =
      m.AddConst(kTfLiteInt8, {num_filters, input_size},
                 Pattern<int8_t>(num_filters * input_size, -127, 127, 7), 0.009f);
  int weights_time;
  int bias;
  int state;
  int output;
  if (integer) {
    weights_time = m.AddConst(kTfLiteInt16, {num_filters, memory_size},
                              Pattern<int16_t>(num_filters * memory_size, -3000, 3000, 8), 0.0004f);
    bias = m.AddConst(kTfLiteInt32, {num_units}, Pattern<int32_t>(num_units, -4000000, 4000000, 9),
                      1.6e-6f);
    state = m.AddState(kTfLiteInt16, {batch, memory_size * num_filters}, 0.004f);
    output = m.AddOutput(kTfLiteInt8, 2.0f, -20);
  } else {
    weights_time = m.AddConst(kTfLiteInt8, {num_filters, memory_size},
                              Pattern<int8_t>(num_filters * memory_size, -127, 127, 8), 0.02f);
    bias = m.AddConst(kTfLiteFloat32, {num_units}, FloatPattern(num_units, 0.1f, 9));
    state = m.AddState(kTfLiteFloat32, {batch, memory_size * num_filters});
    output = m.AddOutput(kTfLiteFloat32);
  }
  m.AddOp(fb::BuiltinOperator::SVDF, {input, weights_feature, weights_time, bias, state}, {output},
          {}, fb::BuiltinOptions::SVDFOptions,
          fb::CreateSVDFOptions(m.fbb(), rank, activation, asymmetric).Union());
  return output;
}

TEST(SvdfTest, HybridSymmetricOverThreeInvocations) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/false, /*asymmetric=*/false, 2, 5, 6, 2, 3,
                     fb::ActivationFunctionType::NONE);
  ASSERT_TRUE(m.Build().ok());
  const std::vector<std::vector<float>> inputs = {
      FloatPattern(10, 0.3f, 1), FloatPattern(10, 0.2f, 2), std::vector<float>(10, 0.0f)};
  const std::vector<std::vector<float>> expected = {
      {3.6825004f, 1.4671998f, -2.947478f, -1.9286895f, 0.5634151f, -0.096390665f},
      {10.97069f, -4.00808f, -10.190618f, 9.466152f, -1.9944675f, -13.62035f},
      {-4.8813963f, -8.010525f, -14.220668f, -9.3674f, -4.215385f, -11.391349f}};
  for (size_t k = 0; k < inputs.size(); ++k) {
    m.SetInput<float>(0, inputs[k]);
    ASSERT_TRUE(m.Invoke().ok());
    ExpectClose(m.GetOutput<float>(0), expected[k]);
  }
}

TEST(SvdfTest, HybridAsymmetricRelu) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/false, /*asymmetric=*/true, 1, 4, 4, 1, 2,
                     fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<float>(0, {0.9f, 0.1f, 0.4f, 0.7f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectClose(m.GetOutput<float>(0), {0.16879255f, 0.0f, 0.0f, 1.8842247f});
  m.SetInput<float>(0, {-1.5f, 0.25f, 3.0f, -0.5f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectClose(m.GetOutput<float>(0), {0.0f, 2.5539086f, 0.0f, 3.7545419f});
}

TEST(SvdfTest, IntegerOverThreeInvocations) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/true, false, 2, 6, 8, 2, 4, fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(m.Build().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 4}));
  const std::vector<std::vector<int8_t>> expected = {{-26, -27, -26, -15, -28, -23, -30, -21},
                                                     {-19, -22, -22, -18, -25, -20, -28, -19},
                                                     {-19, -17, -23, -23, -22, -25, -19, -12}};
  for (int k = 0; k < 3; ++k) {
    m.SetInput<int8_t>(0, Pattern<int8_t>(12, -128, 127, 20 + k));
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutput<int8_t>(0), expected[k]) << "invocation " << k;
  }
}

TEST(SvdfTest, ZeroBatchGivesEmptyOutput) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/true, false, 0, 4, 4, 2, 3, fb::ActivationFunctionType::RELU);
  ASSERT_TRUE(m.Build().ok());
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{0, 2}));
}

TEST(SvdfTest, IntegerRefusesActivationOtherThanRelu) {
  RawModel m;
  BuildQuantizedSvdf(m, /*integer=*/true, false, 1, 4, 4, 1, 2, fb::ActivationFunctionType::TANH);
  const Status status = m.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("RELU"), std::string::npos) << status.message();
}

TEST(SvdfTest, RefusesStateOfTheWrongSize) {
  // As litert_testdata/svdf_quantized.bin: 6 filters with memory 7 need a state of 42 per row.
  RawModel m;
  const int input = m.AddInput(kTfLiteInt8, {1, 4}, 0.07f, -128);
  const int weights_feature =
      m.AddConst(kTfLiteInt8, {6, 4}, Pattern<int8_t>(24, -127, 127, 1), 0.00076f);
  const int weights_time =
      m.AddConst(kTfLiteInt16, {6, 7}, Pattern<int16_t>(42, -300, 300, 2), 0.000189f);
  const int bias = m.AddConst(kTfLiteInt32, {6}, Pattern<int32_t>(6, -9, 9, 3), 1e-6f);
  const int state = m.AddState(kTfLiteInt16, {1, 9}, 0.0039f);
  const int output = m.AddOutput(kTfLiteInt8, 0.157f, -128);
  m.AddOp(fb::BuiltinOperator::SVDF, {input, weights_feature, weights_time, bias, state}, {output},
          {}, fb::BuiltinOptions::SVDFOptions,
          fb::CreateSVDFOptions(m.fbb(), 1, fb::ActivationFunctionType::RELU).Union());
  const Status status = m.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("memory_size * num_filters"), std::string::npos)
      << status.message();
}

TEST(SvdfTest, RefusesZeroRank) {
  RawModel m;
  const int input = m.AddInput(kTfLiteFloat32, {1, 2});
  const int weights_feature = m.AddConst(kTfLiteFloat32, {2, 2}, std::vector<float>(4, 1.0f));
  const int weights_time = m.AddConst(kTfLiteFloat32, {2, 2}, std::vector<float>(4, 1.0f));
  const int state = m.AddState(kTfLiteFloat32, {1, 4});
  const int output = m.AddOutput(kTfLiteFloat32);
  m.AddOp(fb::BuiltinOperator::SVDF, {input, weights_feature, weights_time, -1, state}, {output},
          {}, fb::BuiltinOptions::SVDFOptions, fb::CreateSVDFOptions(m.fbb(), 0).Union());
  EXPECT_FALSE(m.Build().ok());
}

}  // namespace
}  // namespace touchstone
