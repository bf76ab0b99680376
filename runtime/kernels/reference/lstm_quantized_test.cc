// Reference integer ("8x8_16") and hybrid LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM kernels
// (lstm_ops.cc) against TensorFlow Lite's outputs (models built by recurrent_test_util.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/reference/recurrent_test_util.h"
#include "runtime/model.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using namespace recurrent_test;  // NOLINT(build/namespaces): recurrent_test_util.h's helpers

// An integer or hybrid LSTM's layout: its sizes (in the order tests list them, s{n_batch,
// max_time, n_input, n_cell, n_output}) and which optional parts it has.
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

// Runs one step on `input` and expects the int8 output.
void ExpectStep(RawModel& m, const std::vector<int8_t>& input, const std::vector<int8_t>& expected) {
  m.SetInput<int8_t>(0, input);
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutput<int8_t>(0), expected);
}

// Build must refuse the model with a message holding `text`.
void ExpectRefused(RawModel& m, const std::string& text) {
  const Status status = m.Build();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(text), std::string::npos) << status.message();
}

// The 24 inputs of an integer LSTM with pattern weights: int8 weights of scale ~0.01, int32
// biases in the products' scale, int16 peephole and layer norm weights. States and intermediates
// are added by the caller.
std::vector<int> AddIntegerParameters(RawModel& m, const QuantizedLstmSpec& s, int input, float input_scale) {
  std::vector<int> inputs(24, -1);
  inputs[0] = input;
  const bool has_input_gate = !s.cifg;
  uint32_t seed = 10;
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && !has_input_gate) continue;
    const float input_weight_scale = 0.01f + 0.002f * g;
    const float recurrent_weight_scale = 0.012f - 0.001f * g;
    inputs[1 + g] = m.AddConst(kTfLiteInt8, {s.n_cell, s.n_input},
                               Pattern<int8_t>(s.n_cell * s.n_input, -127, 127, ++seed), input_weight_scale);
    inputs[5 + g] = m.AddConst(kTfLiteInt8, {s.n_cell, s.n_output},
                               Pattern<int8_t>(s.n_cell * s.n_output, -127, 127, ++seed), recurrent_weight_scale);
    if (s.peephole && g != 2) {
      inputs[9 + g - (g == 3 ? 1 : 0)] =
          m.AddConst(kTfLiteInt16, {s.n_cell}, Pattern<int16_t>(s.n_cell, -20000, 20000, ++seed), 0.0002f);
    }
    // Biases: the products' scale without layer norm; the layer norm's output scale with it.
    inputs[12 + g] = m.AddConst(kTfLiteInt32, {s.n_cell}, Pattern<int32_t>(s.n_cell, -3000, 3000, ++seed),
                                input_scale * input_weight_scale);
    if (s.layer_norm) {
      inputs[20 + g] = m.AddConst(kTfLiteInt16, {s.n_cell}, Pattern<int16_t>(s.n_cell, 10000, 32767, ++seed), 3.0e-5f);
    }
  }
  if (s.projection) {
    inputs[16] = m.AddConst(kTfLiteInt8, {s.n_output, s.n_cell},
                            Pattern<int8_t>(s.n_output * s.n_cell, -127, 127, ++seed), 0.015f);
    inputs[17] = m.AddConst(kTfLiteInt32, {s.n_output}, Pattern<int32_t>(s.n_output, -500, 500, ++seed), 0.0001f);
  }
  return inputs;
}

// The five intermediates: the gates' layer-norm scales (unquantized float tensors without layer
// norm, as converters write them) and the hidden state's.
std::vector<int> AddIntermediates(RawModel& m, const QuantizedLstmSpec& s, float hidden_scale, int hidden_zero_point) {
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
  for (int k = 20; k <= 23; ++k) inputs[k] = m.AddConst(kTfLiteInt16, {2}, layer_norm, 1.12478047e-05f);
  const int output = m.AddOutput(kTfLiteInt8, 0.00183692167f, -128);
  std::vector<int> intermediates;
  for (int g = 0; g < 4; ++g) intermediates.push_back(m.AddTensor(kTfLiteInt16, {0}, 5.20609183e-06f));
  intermediates.push_back(m.AddTensor(kTfLiteInt8, {0}, 0.00106252462f, -128));
  m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, intermediates, fb::BuiltinOptions::LSTMOptions,
          fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH, 10.0f).Union());
  ASSERT_TRUE(m.Build().ok());
  ExpectStep(m, {88, -128}, {72, 35});
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{1, 2}));
  // A second step starts from the states the first one left.
  ExpectStep(m, {-20, 100}, {72, 35});
}

// Builds an integer LSTM (LSTM op with max_time 1, else the sequence op) from `s`.
std::vector<int> BuildIntegerLstm(RawModel& m, const QuantizedLstmSpec& s, bool sequence, bool time_major,
                                  float cell_clip, float proj_clip, int hidden_zero_point, int state_zero_point = 0) {
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
            fb::CreateUnidirectionalSequenceLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH, cell_clip, proj_clip,
                                                        time_major)
                .Union());
  } else {
    m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, intermediates, fb::BuiltinOptions::LSTMOptions,
            fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH, cell_clip, proj_clip).Union());
  }
  return inputs;
}

TEST(IntegerLstmTest, ProjectionWithClipOverTwoSteps) {
  QuantizedLstmSpec s{2, 1, 3, 4, 2};
  s.projection = true;
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/false, true, /*cell_clip=*/0.0f, /*proj_clip=*/0.6f,
                   /*hidden_zero_point=*/2);
  ASSERT_TRUE(m.Build().ok());
  ExpectStep(m, {100, -50, 7, -128, 127, 30}, {75, 62, 75, -75});
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 2}));
  ExpectStep(m, {-90, 40, 60, 5, -70, 127}, {53, -15, -32, 27});
}

TEST(IntegerSequenceLstmTest, CifgPeepholeCellClipBatchMajor) {
  QuantizedLstmSpec s{2, 3, 3, 4, 4};
  s.cifg = true;
  s.peephole = true;
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/true, /*time_major=*/false, /*cell_clip=*/0.5f, 0.0f,
                   /*hidden_zero_point=*/0);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(0, Pattern<int8_t>(18, -128, 127, 99));
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(m.GetOutput<int8_t>(0), (std::vector<int8_t>{66,  6,   14, -54, 66,  20,  0,   -43, 41,  14,  63, -8,
                                                         -28, -64, 0,  -1,  -14, -16, -26, -27, -42, -53, -1, -6}));
}

TEST(IntegerSequenceLstmTest, LayerNormCifgTimeMajor) {
  QuantizedLstmSpec s{1, 4, 2, 4, 4};
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
  QuantizedLstmSpec s{2, 1, 3, 4, 4};
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/false, true, 0.0f, 0.0f, /*hidden_zero_point=*/-3,
                   /*state_zero_point=*/-3);
  ASSERT_TRUE(m.Build().ok());
  ExpectStep(m, {-128, 77, 3, 90, -45, 127}, {-43, 4, -58, 3, -63, -54, 38, -65});
  ExpectStep(m, {12, -100, 64, -7, 0, 55}, {7, -25, 0, -2, -70, -74, 58, -54});
}

// TFLite 2.14.1 adds the hidden state's zero point in each row's blocks of 8 cells and subtracts
// it in the row's remainder (HiddenState); dtln_noise_suppression.tflite (128 cells) and
// lstm_quantized.bin (2 cells) show both signs. One step from zero states, without projection, the
// output is the hidden state itself, so moving the zero point from 0 to -4 moves cells 0..7 of each
// row by -4 and cells 8..11 by +4, for both ops; a warning line says so.
TEST(IntegerLstmTest, HiddenZeroPointSignsFollowTfLitesBlocksOfEight) {
  for (const bool sequence : {false, true}) {
    const QuantizedLstmSpec s{2, 1, 3, 12, 12};
    const std::vector<int8_t> input = {100, -50, 7, -128, 127, 30};
    std::vector<int8_t> outputs[2];
    for (const int zero_point : {0, -4}) {
      RawModel m;
      BuildIntegerLstm(m, s, sequence, /*time_major=*/true, 0.0f, 0.0f, zero_point);
      ::testing::internal::CaptureStderr();
      ASSERT_TRUE(m.Build().ok());
      const std::string warning = ::testing::internal::GetCapturedStderr();
      // n_cell 12 is no multiple of 8, so a nonzero zero point meets both signs, with a warning.
      const bool warned =
          warning.find("WARNING: ") != std::string::npos && warning.find("12 cells") != std::string::npos;
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
          << (sequence ? "UNIDIRECTIONAL_SEQUENCE_LSTM" : "LSTM") << ", row " << i / 12 << ", cell " << cell;
    }
  }
}

TEST(IntegerSequenceLstmTest, ZeroLengthSequenceGivesEmptyOutput) {
  QuantizedLstmSpec s{2, 0, 3, 4, 4};
  RawModel m;
  BuildIntegerLstm(m, s, /*sequence=*/true, /*time_major=*/true, 0.0f, 0.0f, 0);
  ASSERT_TRUE(m.Build().ok());
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{0, 2, 4}));
  EXPECT_TRUE(m.GetOutput<int8_t>(0).empty());
}

// A default-spec integer LSTM op, its cell state at `cell_state_scale` and its intermediates those
// `add_intermediates` adds; Build must refuse it with a message holding `text`.
void ExpectIntegerLstmRefused(float cell_state_scale,
                              const std::function<std::vector<int>(RawModel&)>& add_intermediates,
                              const std::string& text) {
  const QuantizedLstmSpec s;
  RawModel m;
  const int input = m.AddInput(kTfLiteInt8, {1, 2}, 0.02f, 0);
  std::vector<int> inputs = AddIntegerParameters(m, s, input, 0.02f);
  inputs[18] = m.AddState(kTfLiteInt8, {1, 2}, 0.008f, 0);
  inputs[19] = m.AddState(kTfLiteInt16, {1, 2}, cell_state_scale);
  const int output = m.AddOutput(kTfLiteInt8, 0.008f, 0);
  m.AddOp(fb::BuiltinOperator::LSTM, inputs, {output}, add_intermediates(m), fb::BuiltinOptions::LSTMOptions,
          fb::CreateLSTMOptions(m.fbb(), fb::ActivationFunctionType::TANH).Union());
  ExpectRefused(m, text);
}

TEST(IntegerLstmTest, RefusesMissingIntermediates) {
  ExpectIntegerLstmRefused(
      1.0f / 2048, [](RawModel&) { return std::vector<int>{}; }, "intermediate");
}

TEST(IntegerLstmTest, RefusesEightBitGateForm) {
  ExpectIntegerLstmRefused(
      1.0f / 2048,
      [](RawModel& m) {
        std::vector<int> intermediates;
        for (int k = 0; k < 12; ++k) intermediates.push_back(m.AddTensor(kTfLiteInt8, {0}, 0.01f));
        return intermediates;
      },
      "12 intermediate");
}

TEST(IntegerLstmTest, RefusesCellStateScaleThatIsNotAPowerOfTwo) {
  ExpectIntegerLstmRefused(
      0.0003f, [](RawModel& m) { return AddIntermediates(m, QuantizedLstmSpec(), 0.007f, 0); }, "power of two");
}

// A hybrid LSTM: float input, states and biases; int8 weights (peephole ones too); float layer
// norm coefficients.
std::vector<int> AddHybridParameters(RawModel& m, const QuantizedLstmSpec& s, int input) {
  std::vector<int> inputs(24, -1);
  inputs[0] = input;
  uint32_t seed = 40;
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && s.cifg) continue;
    inputs[1 + g] = m.AddConst(kTfLiteInt8, {s.n_cell, s.n_input},
                               Pattern<int8_t>(s.n_cell * s.n_input, -127, 127, ++seed), 0.01f + 0.002f * g);
    inputs[5 + g] = m.AddConst(kTfLiteInt8, {s.n_cell, s.n_output},
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

TEST(HybridLstmTest, PeepholeProjectionClipOverTwoSteps) {
  QuantizedLstmSpec s{2, 1, 3, 4, 3};
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
  ExpectClose(m.GetOutput<float>(0), {-0.21986021f, 0.3878495f, 0.15308711f, 0.032524418f, -0.4f, 0.4f});
  m.SetInput<float>(0, {-0.4f, 0.9f, 1.5f, 0.0f, -2.0f, 0.6f});
  ASSERT_TRUE(m.Invoke().ok());
  ExpectClose(m.GetOutput<float>(0), {-0.19429608f, -0.4f, 0.4f, -0.4f, 0.4f, 0.4f});
}

TEST(HybridSequenceLstmTest, AsymmetricLayerNormCifgBatchMajor) {
  QuantizedLstmSpec s{2, 3, 2, 3, 3};
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
  m.SetInput<float>(0, {0.3f, 1.7f, -0.8f, 0.2f, 0.05f, -1.1f, 0.0f, 0.0f, 0.9f, 0.4f, -0.6f, -2.5f});
  ASSERT_TRUE(m.Invoke().ok());
  EXPECT_EQ(m.GetOutputShape(0), (std::vector<int>{2, 3, 3}));
  ExpectClose(m.GetOutput<float>(0),
              {-0.15666927f, -0.157483f, 0.15555291f, -0.14942154f, 0.15157913f, 0.16942745f, 0.05642111f, 0.1784008f,
               0.16192688f, -0.08257879f, -0.10543186f, 0.09597045f, -0.20465755f, -0.28063256f, 0.15158753f,
               0.010645047f, 0.124444805f, 0.13779794f});
}

}  // namespace
}  // namespace touchstone
