#include "tests/common/tiny_models.h"

#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

void Add(ModelBuilder* b, int a, int c, int out) {
  b->AddOperator(kTfLiteBuiltinAdd, {a, c}, {out}, fb::BuiltinOptions::AddOptions,
                 fb::CreateAddOptions(b->fbb()).Union());
}

void FullyConnected(ModelBuilder* b, int in, int weights, int bias, int out) {
  b->AddOperator(kTfLiteBuiltinFullyConnected, {in, weights, bias}, {out}, fb::BuiltinOptions::FullyConnectedOptions,
                 fb::CreateFullyConnectedOptions(b->fbb()).Union());
}

// image [1,4,4,3] and ADD(image, image): the part the sample delegate takes.
int ImageAndDouble(ModelBuilder* b, int* image) {
  *image = b->AddTensor(kTfLiteFloat32, {1, 4, 4, 3}, "image");
  const int doubled = b->AddTensor(kTfLiteFloat32, {1, 4, 4, 3}, "doubled");
  Add(b, *image, *image, doubled);
  return doubled;
}

}  // namespace

std::vector<uint8_t> MakeTinyClassifier() {
  ModelBuilder b;
  int image = 0;
  const int doubled = ImageAndDouble(&b, &image);
  const int mean = b.AddConstTensor<float>(kTfLiteFloat32, {3}, {0.5f, -0.25f, 0.125f}, "mean");
  const int centered = b.AddTensor(kTfLiteFloat32, {1, 4, 4, 3}, "centered");
  b.AddOperator(kTfLiteBuiltinSub, {doubled, mean}, {centered}, fb::BuiltinOptions::SubOptions,
                fb::CreateSubOptions(b.fbb()).Union());
  std::vector<float> weights(10 * 48), bias(10);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>((i * 37) % 17) / 17.0f - 0.5f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.01f * static_cast<float>(i);
  const int w = b.AddConstTensor<float>(kTfLiteFloat32, {10, 48}, weights, "weights");
  const int bi = b.AddConstTensor<float>(kTfLiteFloat32, {10}, bias, "bias");
  const int logits = b.AddTensor(kTfLiteFloat32, {1, 10}, "logits");
  FullyConnected(&b, centered, w, bi, logits);
  b.SetInputs({image});
  b.SetOutputs({logits});
  return b.Finish();
}

std::vector<uint8_t> MakeTinyDetector() {
  ModelBuilder b;
  int image = 0;
  const int doubled = ImageAndDouble(&b, &image);
  const int zero_weights = b.AddConstTensor<float>(kTfLiteFloat32, {1, 48}, std::vector<float>(48, 0.0f), "zero_w");
  const int zero_bias = b.AddConstTensor<float>(kTfLiteFloat32, {1}, {0.0f}, "zero_b");
  const int zero = b.AddTensor(kTfLiteFloat32, {1, 1}, "zero");
  FullyConnected(&b, doubled, zero_weights, zero_bias, zero);
  // Each output is a constant plus the zero computed from the image, so every op depends on the input.
  const int boxes_c =
      b.AddConstTensor<float>(kTfLiteFloat32, {1, 2, 4}, {0.1f, 0.1f, 0.5f, 0.5f, 0.2f, 0.3f, 0.9f, 0.8f}, "boxes_c");
  const int classes_c = b.AddConstTensor<float>(kTfLiteFloat32, {1, 2}, {0.0f, 1.0f}, "classes_c");
  const int scores_c = b.AddConstTensor<float>(kTfLiteFloat32, {1, 2}, {0.9f, 0.8f}, "scores_c");
  const int count_c = b.AddConstTensor<float>(kTfLiteFloat32, {1, 1}, {2.0f}, "count_c");
  const int boxes = b.AddTensor(kTfLiteFloat32, {1, 2, 4}, "boxes");
  const int classes = b.AddTensor(kTfLiteFloat32, {1, 2}, "classes");
  const int scores = b.AddTensor(kTfLiteFloat32, {1, 2}, "scores");
  const int count = b.AddTensor(kTfLiteFloat32, {1, 1}, "count");
  Add(&b, boxes_c, zero, boxes);
  Add(&b, classes_c, zero, classes);
  Add(&b, scores_c, zero, scores);
  Add(&b, count_c, zero, count);
  b.SetInputs({image});
  b.SetOutputs({boxes, classes, scores, count});
  return b.Finish();
}

std::vector<uint8_t> MakeReshapeClassifier() {
  ModelBuilder b;
  const int in = b.AddTensor(kTfLiteFloat32, {1, 2, 2, 3}, "image");
  const int shape = b.AddConstTensor<int32_t>(kTfLiteInt32, {2}, std::vector<int32_t>{1, 12}, "shape");
  const int out = b.AddTensor(kTfLiteFloat32, {1, 12}, "scores");
  b.AddOperator(kTfLiteBuiltinReshape, {in, shape}, {out});
  b.SetInputs({in});
  b.SetOutputs({out});
  return b.Finish();
}

}  // namespace touchstone
