// The optimized float and integer LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM kernels, and the integer SVDF, against the
// reference on every microkernel set and 1 and 4 threads (OpCase, optimized_ops_test_util.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/optimized_ops_test_util.h"
#include "runtime/kernels/optimized/q16_kernels.h"
#include "runtime/kernels/optimized/quant_kernels.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/op_resolver.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using namespace optimized_test;  // NOLINT(build/namespaces): optimized_ops_test_util.h's helpers

// ---- LSTM (full kernel) and UNIDIRECTIONAL_SEQUENCE_LSTM

// An LSTM's layout; the sequence op unless `sequence` is false (LSTM: one step, max_time 1).
struct Lstm {
  bool sequence = true;
  bool time_major = false;
  int max_time = 3, n_batch = 1, n_input = 5, n_cell = 4, n_output = 4;
  bool cifg = false, peephole = false, projection = false, projection_bias = true;
  bool layer_norm = false;
  bool twenty_inputs = false;  // the form without layer-norm inputs
  float cell_clip = 0.f, proj_clip = 0.f;
  Act activation = Act::TANH;
};

// A sequence LSTM of max_time steps of n_batch rows of n_input values, with n_cell cells and as many
// outputs.
Lstm SizedLstm(int max_time, int n_batch, int n_input, int n_cell) {
  Lstm l;
  l.max_time = max_time;
  l.n_batch = n_batch;
  l.n_input = n_input;
  l.n_cell = l.n_output = n_cell;
  return l;
}

std::vector<int> LstmInputShape(const Lstm& l) {
  if (!l.sequence) return {l.n_batch, l.n_input};
  return l.time_major ? std::vector<int>{l.max_time, l.n_batch, l.n_input}
                      : std::vector<int>{l.n_batch, l.max_time, l.n_input};
}

void AddLstmNode(OpCase& op, const Lstm& l, const std::vector<int>& inputs, int output) {
  if (l.sequence) {
    op.test().AddOp(kTfLiteBuiltinUnidirectionalSequenceLstm, inputs, {output},
                    fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions,
                    fb::CreateUnidirectionalSequenceLSTMOptions(op.test().fbb(), l.activation, l.cell_clip, l.proj_clip,
                                                                l.time_major)
                        .Union());
  } else {
    op.test().AddOp(kTfLiteBuiltinLstm, inputs, {output}, fb::BuiltinOptions::LSTMOptions,
                    fb::CreateLSTMOptions(op.test().fbb(), l.activation, l.cell_clip, l.proj_clip).Union());
  }
}

// A float LSTM with random weights against the reference over two runs (the second continues from
// the first's states). `fast`: the node must take the optimized path.
void CheckFloatLstm(const Lstm& l, bool fast = true, uint32_t seed = 1) {
  OpCase op;
  const int input = op.AddFloatInput(LstmInputShape(l), seed);
  auto weights = [&](int rows, int cols, bool present) {
    return present ? op.AddFloatConst({rows, cols}, ++seed, -0.6f, 0.6f) : -1;
  };
  auto vector = [&](int size, bool present) { return present ? op.AddFloatConst({size}, ++seed, -0.5f, 0.5f) : -1; };
  std::vector<int> inputs = {input};
  for (int g = 0; g < 4; ++g) inputs.push_back(weights(l.n_cell, l.n_input, g != 0 || !l.cifg));
  for (int g = 0; g < 4; ++g) inputs.push_back(weights(l.n_cell, l.n_output, g != 0 || !l.cifg));
  for (int g = 0; g < 3; ++g) inputs.push_back(vector(l.n_cell, l.peephole && (g != 0 || !l.cifg)));
  for (int g = 0; g < 4; ++g) inputs.push_back(vector(l.n_cell, g != 0 || !l.cifg));
  inputs.push_back(weights(l.n_output, l.n_cell, l.projection));
  inputs.push_back(vector(l.n_output, l.projection && l.projection_bias));
  const int output_state = op.test().AddIntermediate(kTfLiteFloat32, {l.n_batch, l.n_output});
  const int cell_state = op.test().AddIntermediate(kTfLiteFloat32, {l.n_batch, l.n_cell});
  op.test().builder().SetVariable(output_state, true);
  op.test().builder().SetVariable(cell_state, true);
  inputs.push_back(output_state);
  inputs.push_back(cell_state);
  if (!l.twenty_inputs) {
    for (int g = 0; g < 4; ++g) inputs.push_back(vector(l.n_cell, l.layer_norm && (g != 0 || !l.cifg)));
  }
  const int output = op.AddFloatOutput();
  AddLstmNode(op, l, inputs, output);
  if (fast) op.RequireOptimizedPath();
  op.Check(l.sequence ? optimized::Register_UNIDIRECTIONAL_SEQUENCE_LSTM() : optimized::Register_LSTM(),
           /*exact=*/!fast);
}

TEST(OptimizedFloatLstmTest, LikeTrainedLstm) { CheckFloatLstm(SizedLstm(28, 1, 28, 20)); }

TEST(OptimizedFloatLstmTest, SizeOne) {
  Lstm l = SizedLstm(1, 1, 1, 1);
  CheckFloatLstm(l);
  l.sequence = false;
  CheckFloatLstm(l);
}

TEST(OptimizedFloatLstmTest, LayoutsAndBatches) {
  for (bool time_major : {false, true}) {
    for (int batch : {1, 3, 10}) {
      Lstm l = SizedLstm(5, batch, 7, 9);
      l.time_major = time_major;
      CheckFloatLstm(l, true, batch);
    }
  }
}

TEST(OptimizedFloatLstmTest, CifgPeepholeProjectionClips) {
  for (int variant = 0; variant < 16; ++variant) {
    Lstm l = SizedLstm(4, 2, 6, 11);
    l.time_major = variant % 2 == 1;
    l.cifg = variant & 2;
    l.peephole = variant & 4;
    l.projection = variant & 8;
    if (l.projection) l.n_output = 5;
    l.projection_bias = variant % 3 != 0;
    l.cell_clip = variant % 5 == 0 ? 0.f : 0.8f;
    l.proj_clip = l.projection && variant % 3 == 1 ? 0.3f : 0.f;
    l.twenty_inputs = variant % 7 == 3;
    CheckFloatLstm(l, true, 100 + variant);
  }
}

TEST(OptimizedFloatLstmTest, LstmOpOneStep) {
  for (bool projection : {false, true}) {
    Lstm l;
    l.sequence = false;
    l.n_batch = 3;
    l.n_input = 8;
    l.n_cell = 17;
    l.n_output = projection ? 6 : 17;
    l.projection = projection;
    l.peephole = true;
    CheckFloatLstm(l);
  }
}

TEST(OptimizedFloatLstmTest, WideCellsAndLongSequencesCrossVectorsAndRuns) {
  Lstm l = SizedLstm(40, 2, 33, 67);
  l.time_major = true;
  CheckFloatLstm(l);
  // More steps than one run of precomputed input products holds.
  CheckFloatLstm(SizedLstm(300, 1, 3, 64));
}

TEST(OptimizedFloatLstmTest, LayerNorm) {
  for (int variant = 0; variant < 8; ++variant) {
    Lstm l;
    l.layer_norm = true;
    l.sequence = variant != 7;
    l.time_major = variant % 2 == 1;
    l.n_batch = 1 + variant % 3;
    l.n_input = 2 + variant;
    l.n_cell = variant == 0 ? 2 : 13;
    l.n_output = l.n_cell;
    l.cifg = variant & 2;
    l.peephole = variant & 4;
    l.projection = variant % 3 == 2;
    if (l.projection) l.n_output = 4;
    CheckFloatLstm(l, true, 200 + variant);
  }
}

TEST(OptimizedFloatLstmTest, OtherConfigurationsKeepTheReference) {
  Lstm relu;
  relu.activation = Act::RELU;
  CheckFloatLstm(relu, /*fast=*/false);
  Lstm empty;
  empty.max_time = 0;
  CheckFloatLstm(empty, /*fast=*/false);
}

// The quantization of an integer LSTM test model.
struct LstmQuant {
  float input_scale = 0.02f;
  int input_zero_point = 5;
  float input_weight_scale = 0.01f;
  float recurrent_weight_scale = 0.012f;
  float state_scale = 0.008f;  // output state and output
  int state_zero_point = 0;
  int cell_scale_log2 = -11;
  float hidden_scale = 0.007f;
  int hidden_zero_point = 0;
  float peephole_scale = 0.0002f;
  float projection_scale = 0.015f;
  int bias_range = 3000;       // biases in [-range, range]
  float gate_scale = 0.0004f;  // the layer-norm intermediates'
};

// An integer (8x8_16) LSTM with random weights, states and input, compared byte for byte over two
// runs. `fast`: the node must take the optimized path. Returns how many distinct values the
// reference output holds (a saturated model would check little).
int CheckIntegerLstm(const Lstm& l, const LstmQuant& q, bool fast = true, uint32_t seed = 1) {
  OpCase op;
  OpTest& t = op.test();
  const std::vector<int> input_shape = LstmInputShape(l);
  const int input =
      op.AddInputBytes(kTfLiteInt8, input_shape, Bytes(RandomInts<int8_t>(Count(input_shape), seed, -128, 127)));
  t.builder().SetQuantization(input, {q.input_scale}, {q.input_zero_point});
  auto quantized = [&](TfLiteType type, const std::vector<int>& shape, int lo, int hi, float scale) {
    int tensor = -1;
    const size_t count = Count(shape);
    if (type == kTfLiteInt8) tensor = t.AddConst<int8_t>(type, shape, RandomInts<int8_t>(count, ++seed, lo, hi));
    if (type == kTfLiteInt16) tensor = t.AddConst<int16_t>(type, shape, RandomInts<int16_t>(count, ++seed, lo, hi));
    if (type == kTfLiteInt32) tensor = t.AddConst<int32_t>(type, shape, RandomInts<int32_t>(count, ++seed, lo, hi));
    t.builder().SetQuantization(tensor, {scale}, {0});
    return tensor;
  };
  std::vector<int> inputs(24, -1);
  inputs[0] = input;
  for (int g = 0; g < 4; ++g) {
    if (g == 0 && l.cifg) continue;
    inputs[1 + g] = quantized(kTfLiteInt8, {l.n_cell, l.n_input}, -127, 127, q.input_weight_scale * (1 + 0.2f * g));
    inputs[5 + g] =
        quantized(kTfLiteInt8, {l.n_cell, l.n_output}, -127, 127, q.recurrent_weight_scale * (1 - 0.1f * g));
    if (l.peephole && g != 2) {
      inputs[g == 3 ? 11 : 9 + g] = quantized(kTfLiteInt16, {l.n_cell}, -20000, 20000, q.peephole_scale);
    }
    inputs[12 + g] =
        quantized(kTfLiteInt32, {l.n_cell}, -q.bias_range, q.bias_range, q.input_scale * q.input_weight_scale);
    if (l.layer_norm) inputs[20 + g] = quantized(kTfLiteInt16, {l.n_cell}, 10000, 32767, 3.0e-5f);
  }
  if (l.projection) {
    inputs[16] = quantized(kTfLiteInt8, {l.n_output, l.n_cell}, -127, 127, q.projection_scale);
    if (l.projection_bias) inputs[17] = quantized(kTfLiteInt32, {l.n_output}, -500, 500, 0.0001f);
  }
  const int output_state = t.AddIntermediate(kTfLiteInt8, {l.n_batch, l.n_output});
  const int cell_state = t.AddIntermediate(kTfLiteInt16, {l.n_batch, l.n_cell});
  t.builder().SetQuantization(output_state, {q.state_scale}, {q.state_zero_point});
  t.builder().SetQuantization(cell_state, {std::ldexp(1.f, q.cell_scale_log2)}, {0});
  t.builder().SetVariable(output_state, true);
  t.builder().SetVariable(cell_state, true);
  inputs[18] = output_state;
  inputs[19] = cell_state;
  if (l.twenty_inputs) inputs.resize(20);
  const int output = t.AddOutput(kTfLiteInt8);
  t.builder().SetQuantization(output, {q.state_scale}, {q.state_zero_point});
  std::vector<int> intermediates;
  for (int g = 0; g < 4; ++g) {
    intermediates.push_back(t.AddIntermediate(l.layer_norm ? kTfLiteInt16 : kTfLiteFloat32, {0}));
    if (l.layer_norm) t.builder().SetQuantization(intermediates.back(), {q.gate_scale * (1 + 0.25f * g)}, {0});
  }
  intermediates.push_back(t.AddIntermediate(kTfLiteInt8, {0}));
  t.builder().SetQuantization(intermediates.back(), {q.hidden_scale}, {q.hidden_zero_point});
  AddLstmNode(op, l, inputs, output);
  t.builder().SetIntermediates(0, intermediates);
  if (fast) op.RequireOptimizedPath();
  op.Check(l.sequence ? optimized::Register_UNIDIRECTIONAL_SEQUENCE_LSTM() : optimized::Register_LSTM(),
           /*exact=*/true);
  const std::vector<int8_t> values = t.GetOutput<int8_t>(0);
  return static_cast<int>(std::set<int8_t>(values.begin(), values.end()).size());
}

TEST(OptimizedIntegerLstmTest, LikeTheModels) {
  // trained_lstm_int8: 28 steps of 28 inputs, 20 cells; dtln_noise_suppression: one step of 257
  // inputs, 128 cells.
  const Lstm small = SizedLstm(28, 1, 28, 20);
  LstmQuant small_q;
  small_q.input_weight_scale = 0.002f;
  small_q.recurrent_weight_scale = 0.004f;
  EXPECT_GT(CheckIntegerLstm(small, small_q), 40);
  const Lstm wide = SizedLstm(1, 1, 257, 128);
  LstmQuant q;
  q.hidden_zero_point = -3;
  q.input_weight_scale = 0.0006f;
  q.recurrent_weight_scale = 0.002f;
  EXPECT_GT(CheckIntegerLstm(wide, q), 40);
}

TEST(OptimizedIntegerLstmTest, SizeOneLayoutsAndBatches) {
  Lstm one = SizedLstm(1, 1, 1, 1);
  CheckIntegerLstm(one, {});
  one.sequence = false;
  CheckIntegerLstm(one, {});
  for (bool time_major : {false, true}) {
    for (int batch : {1, 3}) {
      Lstm l = SizedLstm(6, batch, 9, 11);
      l.time_major = time_major;
      CheckIntegerLstm(l, {}, true, 10 + batch);
    }
  }
}

TEST(OptimizedIntegerLstmTest, CifgPeepholeProjectionLayerNormClips) {
  for (int variant = 0; variant < 32; ++variant) {
    Lstm l;
    l.sequence = variant % 9 != 4;
    l.time_major = variant % 2 == 1;
    l.n_batch = 1 + variant % 3;
    l.max_time = 3;
    l.n_input = 5 + variant % 4;
    l.n_cell = 12 + variant % 5;
    l.n_output = l.n_cell;
    l.cifg = variant & 2;
    l.peephole = variant & 4;
    l.projection = variant & 8;
    l.layer_norm = variant & 16;
    if (l.projection) l.n_output = 4 + variant % 3;
    l.projection_bias = variant % 3 != 0;
    l.cell_clip = variant % 5 == 0 ? 0.f : 0.7f;
    l.proj_clip = l.projection && variant % 3 == 1 ? 0.25f : 0.f;
    l.twenty_inputs = !l.layer_norm && variant % 7 == 3;
    LstmQuant q;
    q.hidden_zero_point = variant % 4 == 1 ? 7 : 0;
    q.state_zero_point = variant % 6 == 5 ? -20 : 0;
    q.input_weight_scale = 0.004f;
    q.recurrent_weight_scale = 0.004f;
    q.projection_scale = 0.002f;
    EXPECT_GT(CheckIntegerLstm(l, q, true, 300 + variant), 4) << "variant " << variant;
  }
}

TEST(OptimizedIntegerLstmTest, ExtremeQuantization) {
  Lstm l = SizedLstm(4, 2, 13, 21);
  l.peephole = true;
  int seed = 400;
  for (int cell_log2 : {-15, -9}) {
    for (float weight_scale : {1e-5f, 0.5f}) {
      LstmQuant q;
      q.cell_scale_log2 = cell_log2;
      q.input_weight_scale = weight_scale;
      q.recurrent_weight_scale = weight_scale * 2;
      q.input_zero_point = weight_scale > 0.1f ? -128 : 127;
      q.state_zero_point = weight_scale > 0.1f ? 127 : -128;
      q.hidden_zero_point = -128;
      q.hidden_scale = weight_scale > 0.1f ? 1e-5f : 0.3f;
      q.bias_range = 2000000000;
      q.peephole_scale = weight_scale;
      CheckIntegerLstm(l, q, true, ++seed);
    }
  }
  // Wide cell and projection scales: the hidden and output stages saturate.
  l.projection = true;
  l.n_output = 7;
  LstmQuant q;
  q.projection_scale = 2.f;
  q.hidden_scale = 1e-4f;
  q.hidden_zero_point = 100;
  CheckIntegerLstm(l, q, true, ++seed);
}

// ---- SVDF (integer): int8 input and feature weights, int16 time weights and state, int32 bias.

void CheckIntegerSvdf(int batch, int input_size, int num_filters, int rank, int memory_size, int input_zero_point,
                      bool with_bias, uint32_t seed) {
  OpCase op;
  const int num_units = num_filters / rank;
  const int input =
      op.AddInputBytes(kTfLiteInt8, {batch, input_size},
                       Bytes(RandomInts<int8_t>(static_cast<size_t>(batch) * input_size, seed, -128, 127)));
  op.test().builder().SetQuantization(input, {0.06f}, {input_zero_point});
  const int weights_feature = op.test().AddConst<int8_t>(
      kTfLiteInt8, {num_filters, input_size},
      RandomInts<int8_t>(static_cast<size_t>(num_filters) * input_size, seed + 1, -127, 127));
  op.test().builder().SetQuantization(weights_feature, {0.009f}, {0});
  const int weights_time = op.test().AddConst<int16_t>(
      kTfLiteInt16, {num_filters, memory_size},
      RandomInts<int16_t>(static_cast<size_t>(num_filters) * memory_size, seed + 2, -3000, 3000));
  op.test().builder().SetQuantization(weights_time, {0.0004f}, {0});
  int bias = -1;
  if (with_bias) {
    bias = op.test().AddConst<int32_t>(kTfLiteInt32, {num_units},
                                       RandomInts<int32_t>(num_units, seed + 3, -4000000, 4000000));
    op.test().builder().SetQuantization(bias, {1.6e-6f}, {0});
  }
  const int state = op.test().AddIntermediate(kTfLiteInt16, {batch, memory_size * num_filters});
  op.test().builder().SetVariable(state, true);
  op.test().builder().SetQuantization(state, {0.004f}, {0});
  const int output = op.test().AddOutput(kTfLiteInt8);
  op.test().builder().SetQuantization(output, {2.0f}, {-20});
  op.test().AddOp(kTfLiteBuiltinSvdf, {input, weights_feature, weights_time, bias, state}, {output},
                  fb::BuiltinOptions::SVDFOptions,
                  fb::CreateSVDFOptions(op.test().fbb(), rank, fb::ActivationFunctionType::RELU).Union());
  op.RequireOptimizedPath();
  op.Check(optimized::Register_SVDF(), /*exact=*/true);
}

// Two runs each (the state carries over): sizes of 1, ranks 1 and 2, input zero points at both ends,
// with and without a bias, and keyword_scrambled's layers.
TEST(OptimizedSvdfTest, IntegerMatchesTheReference) {
  uint32_t seed = 1;
  CheckIntegerSvdf(1, 96, 64, 1, 8, -10, true, seed += 10);
  CheckIntegerSvdf(1, 16, 32, 1, 32, 0, true, seed += 10);
  CheckIntegerSvdf(2, 5, 6, 2, 3, -128, true, seed += 10);
  CheckIntegerSvdf(3, 33, 8, 2, 4, 127, false, seed += 10);
  CheckIntegerSvdf(1, 1, 1, 1, 1, 5, true, seed += 10);
}

}  // namespace
}  // namespace touchstone
