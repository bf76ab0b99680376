#include "evaluation/image_classification.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/model.h"
#include "runtime/model_builder.h"
#include "tests/common/test_files.h"
#include "tests/common/tiny_models.h"

namespace touchstone {
namespace {

using testing::Bmp24;
using testing::TestTempDir;
using testing::WriteTestFile;

// A "classifier" whose 12 scores are its [1,2,2,3] input's values: RESHAPE to [1,12].
std::shared_ptr<const Model> ReshapeClassifier() {
  auto model = Model::FromBuffer(MakeReshapeClassifier(), "reshape");
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.value();
}

std::unique_ptr<Interpreter> Make(const std::shared_ptr<const Model>& model, KernelSet set) {
  InterpreterOptions options;
  options.kernel_set = set;
  auto interpreter = Interpreter::Create(model, options);
  EXPECT_TRUE(interpreter.ok()) << interpreter.status().message();
  EXPECT_TRUE(interpreter.value()->AllocateTensors().ok());
  return std::move(interpreter.value());
}

// `n` 2x2 images; image i has its brightest value at element (i * 5) % 12 (the label "l<that>").
std::vector<LabelledImage> MakeImages(const std::string& tag, int n) {
  std::vector<LabelledImage> images;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> pixels(12);
    for (int k = 0; k < 12; ++k) pixels[k] = static_cast<uint8_t>(10 + k);
    const int hot = (i * 5) % 12;
    pixels[hot] = 250;
    char name[64];
    std::snprintf(name, sizeof(name), "/%s_%03d.bmp", tag.c_str(), i);
    const std::string path = TestTempDir() + name;
    WriteTestFile(path, Bmp24(2, 2, pixels));
    // Every third image is labelled with its second-best class instead (a top-2 hit).
    const int label = i % 3 == 2 ? 11 - (hot == 11 ? 1 : 0) : hot;
    images.push_back({path, "l" + std::to_string(label)});
  }
  return images;
}

ClassificationConfig ConfigFor(Interpreter* interpreter) {
  ClassificationConfig config;
  auto preprocessing = PreprocessingForModel(*interpreter->input_tensor(0));
  EXPECT_TRUE(preprocessing.ok());
  config.preprocessing = preprocessing.value();
  for (int k = 0; k < 12; ++k) config.model_labels.push_back("l" + std::to_string(k));
  config.keep_predictions = true;
  return config;
}

TEST(ImageClassificationTest, PipelinedRunsEqualTheInlineRun) {
  const auto model = ReshapeClassifier();
  auto interpreter = Make(model, KernelSet::kReference);
  const std::vector<LabelledImage> images = MakeImages("pipe", 23);
  std::vector<std::vector<int>> first;
  for (int threads : {0, 1, 2, 5}) {
    ClassificationConfig config = ConfigFor(interpreter.get());
    config.num_preprocessing_threads = threads;
    ClassificationResult result;
    int calls = 0;
    ASSERT_TRUE(RunClassification(images, config, interpreter.get(), nullptr, &result, [&](int done, int total) {
                  EXPECT_EQ(done, ++calls);
                  EXPECT_EQ(total, 23);
                }).ok());
    EXPECT_EQ(calls, 23);
    ASSERT_EQ(result.predictions.size(), 23u);
    std::vector<std::vector<int>> tops;
    for (size_t i = 0; i < images.size(); ++i) {
      EXPECT_EQ(result.predictions[i].path, images[i].path);
      EXPECT_EQ(result.predictions[i].top_indices[0], static_cast<int>((i * 5) % 12)) << i;
      tops.push_back(result.predictions[i].top_indices);
    }
    if (first.empty()) first = tops;
    EXPECT_EQ(tops, first) << threads << " threads";
    EXPECT_EQ(result.topk.images(), 23);
    // 15 or 16 images labelled with their best class, the rest with their second best.
    EXPECT_EQ(result.topk.hits()[0], 16);
    EXPECT_EQ(result.topk.hits()[1], 23);
    EXPECT_EQ(result.preprocessing_us.count(), 23);
    EXPECT_EQ(result.inference_us.count(), 23);
    EXPECT_GT(result.wall_seconds, 0.0);
  }
}

TEST(ImageClassificationTest, ReferenceRunsInTheSamePass) {
  const auto model = ReshapeClassifier();
  auto interpreter = Make(model, KernelSet::kOptimized);
  auto reference = Make(model, KernelSet::kReference);
  const std::vector<LabelledImage> images = MakeImages("ref", 7);
  ClassificationConfig config = ConfigFor(interpreter.get());
  ClassificationResult result;
  ASSERT_TRUE(RunClassification(images, config, interpreter.get(), reference.get(), &result, {}).ok());
  EXPECT_EQ(result.reference_topk.hits(), result.topk.hits());
  EXPECT_EQ(result.reference_topk.images(), 7);
  EXPECT_EQ(result.top1_changed, 0);
  EXPECT_EQ(result.reference_inference_us.count(), 7);
  for (const ImagePrediction& p : result.predictions) {
    EXPECT_EQ(p.reference_top_indices, p.top_indices);
    EXPECT_EQ(p.reference_first_hit_rank, p.first_hit_rank);
  }
}

TEST(ImageClassificationTest, CorruptImagesStopTheRunOrAreSkipped) {
  const auto model = ReshapeClassifier();
  auto interpreter = Make(model, KernelSet::kReference);
  std::vector<LabelledImage> images = MakeImages("corrupt", 6);
  WriteTestFile(images[2].path,
                std::vector<uint8_t>{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F'});  // a JPEG cut short
  images[4].path = TestTempDir() + "/no_such_image.jpg";
  for (int threads : {0, 2}) {
    ClassificationConfig config = ConfigFor(interpreter.get());
    config.num_preprocessing_threads = threads;
    ClassificationResult result;
    const Status fatal = RunClassification(images, config, interpreter.get(), nullptr, &result, {});
    ASSERT_FALSE(fatal.ok());
    EXPECT_EQ(fatal.code(), StatusCode::kInvalidInput);
    EXPECT_NE(fatal.message().find(images[2].path), std::string::npos) << fatal.message();

    config.skip_unreadable_images = true;
    ClassificationResult skipped;
    ASSERT_TRUE(RunClassification(images, config, interpreter.get(), nullptr, &skipped, {}).ok());
    EXPECT_EQ(skipped.topk.images(), 4);
    ASSERT_EQ(skipped.skipped.size(), 2u);
    EXPECT_NE(skipped.skipped[0].find(images[2].path), std::string::npos);
    EXPECT_NE(skipped.skipped[1].find("no_such_image.jpg: cannot read image"), std::string::npos);
  }
}

TEST(ImageClassificationTest, NormalisationForFloatAndQuantizedInputs) {
  RgbImage image;
  image.height = 1;
  image.width = 2;
  image.pixels = {0, 127, 128, 255, 64, 200};
  ImageInputConfig config;
  config.preprocessing.output_height = 1;
  config.preprocessing.output_width = 2;
  config.preprocessing.crop_fraction = 0.0f;

  TfLiteTensor input{};
  input.name = const_cast<char*>("image");
  input.type = kTfLiteFloat32;
  ASSERT_TRUE(SetNormalization(input, {127.5f}, {127.5f}, &config).ok());
  EXPECT_FALSE(config.quantization.enabled);
  auto tensor = ImageToTensor(image, config);
  ASSERT_TRUE(tensor.ok());
  float f[6];
  std::memcpy(f, tensor.value().data(), sizeof(f));
  // Exactly TFLite's default float preprocessing: (x - 127.5) * float(1 / 127.5).
  config.preprocessing.mean.clear();
  config.preprocessing.scale.clear();
  auto tflite = PreprocessImage(image, config.preprocessing);
  ASSERT_TRUE(tflite.ok());
  EXPECT_EQ(tensor.value(), tflite.value());
  EXPECT_EQ(f[0], -1.0f);
  EXPECT_EQ(f[3], 1.0f);

  // uint8, scale 1/128, zero point 128 (the shared MobileNets): normalise, then quantize with rounding.
  input.type = kTfLiteUInt8;
  input.params.scale = 1.0f / 128.0f;
  input.params.zero_point = 128;
  ASSERT_TRUE(SetNormalization(input, {127.5f}, {127.5f}, &config).ok());
  ASSERT_TRUE(config.quantization.enabled);
  tensor = ImageToTensor(image, config);
  ASSERT_TRUE(tensor.value().size() == 6);
  EXPECT_EQ(tensor.value(), (std::vector<uint8_t>{0, 127, 129, 255, 64, 201}));

  // int8 per-channel mean/std (ImageNet's, in pixels) and the PyTorch MobileNet's input quantization.
  input.type = kTfLiteInt8;
  input.params.scale = 0.018631f;
  input.params.zero_point = -14;
  const std::vector<float> mean = {123.675f, 116.28f, 103.53f}, std = {58.395f, 57.12f, 57.375f};
  ASSERT_TRUE(SetNormalization(input, mean, std, &config).ok());
  tensor = ImageToTensor(image, config);
  ASSERT_TRUE(tensor.ok());
  for (int i = 0; i < 6; ++i) {
    const int c = i % 3;
    const float normalised = (static_cast<float>(image.pixels[i]) - mean[c]) * (1.0f / std[c]);
    const int expected = std::max(-128, std::min(127, static_cast<int>(std::round(normalised / 0.018631f)) - 14));
    EXPECT_EQ(static_cast<int8_t>(tensor.value()[i]), expected) << i;
  }

  // NCHW: planar channels.
  config.preprocessing.nchw = true;
  auto planar = ImageToTensor(image, config);
  ASSERT_TRUE(planar.ok());
  EXPECT_EQ(planar.value()[1], tensor.value()[3]);  // channel 0 of pixel 1
  EXPECT_EQ(planar.value()[2], tensor.value()[1]);  // channel 1 of pixel 0

  // Refusals.
  EXPECT_EQ(SetNormalization(input, {1.0f}, {0.0f}, &config).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(SetNormalization(input, {1.0f, 2.0f}, {1.0f}, &config).code(), StatusCode::kInvalidInput);
  input.params.scale = 0.0f;
  const Status unquantized = SetNormalization(input, {127.5f}, {127.5f}, &config);
  EXPECT_EQ(unquantized.code(), StatusCode::kInvalidInput);
  EXPECT_NE(unquantized.message().find("'image' is INT8 without quantization parameters"), std::string::npos)
      << unquantized.message();
}

TEST(ImageClassificationTest, LabelOffsetFromTheSizes) {
  std::string warning;
  EXPECT_EQ(ChooseLabelOffset(1001, 1001, std::nullopt, "l.txt", &warning).value(), 0);
  EXPECT_TRUE(warning.empty());
  EXPECT_EQ(ChooseLabelOffset(1001, 1000, std::nullopt, "l.txt", &warning).value(), 1);
  EXPECT_NE(warning.find("reading output i as label i-1"), std::string::npos);
  EXPECT_EQ(ChooseLabelOffset(1000, 1001, std::nullopt, "l.txt", &warning).value(), -1);
  EXPECT_NE(warning.find("the model has 1000 outputs and l.txt has 1001 labels"), std::string::npos) << warning;
  EXPECT_EQ(ChooseLabelOffset(1000, 1001, 0, "l.txt", &warning).value(), 0);
  EXPECT_TRUE(warning.empty());
  auto bad = ChooseLabelOffset(1001, 90, std::nullopt, "l.txt", &warning);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(bad.status().message(), "l.txt: has 90 labels but the model has 1001 outputs");
}

TEST(ImageClassificationTest, NanScoresRankLast) {
  float values[3] = {0.5f, std::numeric_limits<float>::quiet_NaN(), 0.25f};
  TfLiteTensor output{};
  output.type = kTfLiteFloat32;
  output.name = const_cast<char*>("scores");
  output.data.raw = reinterpret_cast<char*>(values);
  TfLiteIntArray* dims = TfLiteIntArrayCreate(1);
  dims->data[0] = 3;
  output.dims = dims;
  output.bytes = sizeof(values);
  auto scores = ScoresOf(output);
  TfLiteIntArrayFree(dims);
  ASSERT_TRUE(scores.ok());
  EXPECT_EQ(TopKIndices(scores.value(), 3), (std::vector<int>{0, 2, 1}));
}

TEST(ImageClassificationTest, ImageInputShapes) {
  const auto model = ReshapeClassifier();
  auto interpreter = Make(model, KernelSet::kReference);
  auto config = PreprocessingForModel(*interpreter->input_tensor(0));
  ASSERT_TRUE(config.ok());
  EXPECT_FALSE(config.value().nchw);
  EXPECT_EQ(config.value().output_height, 2);
  // The [1,12] output is no image input.
  auto refused = PreprocessingForModel(*interpreter->output_tensor(0));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "input 'scores' has shape [1,12]; an image model needs [1,H,W,3] or [1,3,H,W]");
}

}  // namespace
}  // namespace touchstone
