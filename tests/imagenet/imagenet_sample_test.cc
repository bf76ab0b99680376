// End to end on ../shared/data/imagenet_sample: Top-1..Top-10 must equal what TensorFlow Lite's own
// run_eval printed (expected_*.json), for every model there and for the denylist run, with both kernel
// sets in one pass (the optimized interpreter and the reference one, as --reference runs them) and with
// the pipelined and the inline preprocessing; each image's first-hit rank must equal TFLite's too.
// Beyond TFLite: the NCHW PyTorch MobileNet (1000 classes, label offset detected) and normalisation
// from the models' metadata.
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "datasets/imagenet_folder.h"
#include "datasets/model_metadata.h"
#include "evaluation/image_classification.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/model.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

std::string Printed(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::unique_ptr<Interpreter> Make(const std::shared_ptr<const Model>& model, KernelSet set) {
  InterpreterOptions options;
  options.kernel_set = set;
  auto interpreter = Interpreter::Create(model, options);
  EXPECT_TRUE(interpreter.ok()) << interpreter.status().message();
  if (!interpreter.ok()) return nullptr;
  Status allocated = interpreter.value()->AllocateTensors();
  EXPECT_TRUE(allocated.ok()) << allocated.message();
  return allocated.ok() ? std::move(interpreter.value()) : nullptr;
}

std::string BaseName(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

TEST(ImageNetSampleTest, TopKEqualsTflitesRunEval) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string sample = shared + "/data/imagenet_sample";
  std::vector<std::string> expected_files;
  DIR* dir = opendir(sample.c_str());
  ASSERT_NE(dir, nullptr);
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind("expected_", 0) == 0 && name.size() > 5 && name.substr(name.size() - 5) == ".json") {
      expected_files.push_back(name);
    }
  }
  closedir(dir);
  std::sort(expected_files.begin(), expected_files.end());
  ASSERT_FALSE(expected_files.empty());
  int ran = 0;
  for (size_t f = 0; f < expected_files.size(); ++f) {
    const std::string& file = expected_files[f];
    std::ifstream in(sample + "/" + file);
    const nlohmann::json expected = nlohmann::json::parse(in);
    const bool denylist = expected["command"].get<std::string>().find("--denylist_file_path") != std::string::npos;
    auto images = LoadImageNetSet(sample + "/images", sample + "/ground_truth_labels.txt",
                                  denylist ? sample + "/denylist.txt" : "", 0);
    ASSERT_TRUE(images.ok()) << images.status().message();
    auto labels = ReadLines(shared + "/" + expected["model_output_labels"].get<std::string>());
    ASSERT_TRUE(labels.ok());
    auto model = Model::FromFile(shared + "/" + expected["model"].get<std::string>());
    ASSERT_TRUE(model.ok()) << model.status().message();
    auto optimized = Make(model.value(), KernelSet::kOptimized);
    auto reference = Make(model.value(), KernelSet::kReference);
    ASSERT_TRUE(optimized && reference) << file;
    auto preprocessing = PreprocessingForModel(*optimized->input_tensor(0));
    ASSERT_TRUE(preprocessing.ok());
    ClassificationConfig config;
    config.preprocessing = preprocessing.value();
    config.model_labels = labels.value();
    config.keep_predictions = true;
    config.num_preprocessing_threads = f % 2 == 0 ? 2 : 0;  // pipelined and inline, alternately
    ClassificationResult result;
    const Status status = RunClassification(images.value(), config, optimized.get(), reference.get(), &result, {});
    ASSERT_TRUE(status.ok()) << file << ": " << status.message();
    for (const TopKAccumulator* topk : {&result.topk, &result.reference_topk}) {
      const char* which = topk == &result.topk ? "optimized" : "reference";
      EXPECT_EQ(topk->images(), expected["num_evaluation_runs"].get<int>()) << file;
      const std::vector<float> accuracies = topk->accuracies();
      for (int k = 1; k <= 10; ++k) {
        EXPECT_EQ(Printed(accuracies[k - 1]), expected["printed"]["Top-" + std::to_string(k)].get<std::string>())
            << file << " " << which << " Top-" << k;
      }
      EXPECT_EQ(topk->hits(), expected["topk_hits"].get<std::vector<int>>()) << file << " " << which;
    }
    // Per image (TFLite found these by running each image alone; the denylist run has no such list).
    if (!denylist && expected.contains("per_image_first_hit_rank")) {
      const nlohmann::json& ranks = expected["per_image_first_hit_rank"];
      ASSERT_EQ(result.predictions.size(), ranks.size());
      for (const ImagePrediction& p : result.predictions) {
        const nlohmann::json& rank = ranks[BaseName(p.path)];
        const int want = rank.is_null() ? 0 : rank.get<int>();
        EXPECT_EQ(p.first_hit_rank, want) << file << " " << p.path;
        EXPECT_EQ(p.reference_first_hit_rank, want) << file << " " << p.path << " (reference)";
      }
    }
    std::printf(
        "%s: Top-1 %s ... Top-10 %s (as TFLite, optimized and reference kernels, %d preprocessing threads; "
        "top-1 changed on %d images)\n",
        file.c_str(), Printed(result.topk.accuracies()[0]).c_str(), Printed(result.topk.accuracies()[9]).c_str(),
        config.num_preprocessing_threads, result.top1_changed);
    ++ran;
  }
  testing::ReportCases("imagenet_sample", ran, static_cast<int>(expected_files.size()));
}

// The PyTorch-converted MobileNet v2: NCHW int8 input, 1000 outputs (no background), ImageNet's
// per-channel mean/std. With the 1001-line label file the offset is detected (-1, with a warning) and
// the predictions equal those with the 1000-line file.
TEST(ImageNetSampleTest, NchwModelWithOneThousandClasses) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string sample = shared + "/data/imagenet_sample";
  auto images = LoadImageNetSet(sample + "/images", sample + "/ground_truth_labels.txt", "", 0);
  ASSERT_TRUE(images.ok());
  auto model = Model::FromFile(shared + "/models/classification/mobilenet_v2_quantized_1x3x224x224.tflite");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto interpreter = Make(model.value(), KernelSet::kOptimized);
  ASSERT_TRUE(interpreter);
  const TfLiteTensor& input = *interpreter->input_tensor(0);
  auto preprocessing = PreprocessingForModel(input);
  ASSERT_TRUE(preprocessing.ok());
  EXPECT_TRUE(preprocessing.value().nchw);
  EXPECT_EQ(preprocessing.value().output_height, 224);
  ImageInputConfig input_config;
  input_config.preprocessing = preprocessing.value();
  ASSERT_TRUE(SetNormalization(input, {123.675f, 116.28f, 103.53f}, {58.395f, 57.12f, 57.375f}, &input_config).ok());
  EXPECT_TRUE(input_config.quantization.enabled);
  const int64_t outputs = tflite::NumElements(interpreter->output_tensor(0));
  ASSERT_EQ(outputs, 1000);

  std::vector<std::vector<int>> ranks;
  std::vector<std::vector<std::string>> top_labels;
  for (const char* label_file : {"imagenet_labels_1000_without_background.txt", "imagenet_labels_1001.txt"}) {
    auto labels = ReadLines(shared + "/data/labels/" + label_file);
    ASSERT_TRUE(labels.ok());
    std::string warning;
    auto offset = ChooseLabelOffset(outputs, labels.value().size(), std::nullopt, label_file, &warning);
    ASSERT_TRUE(offset.ok());
    EXPECT_EQ(offset.value(), labels.value().size() == 1001 ? -1 : 0) << label_file;
    EXPECT_EQ(warning.empty(), labels.value().size() == 1000) << warning;
    ClassificationConfig config;
    config.preprocessing = input_config.preprocessing;
    config.quantization = input_config.quantization;
    config.model_labels = labels.value();
    config.label_offset = offset.value();
    config.keep_predictions = true;
    ClassificationResult result;
    ASSERT_TRUE(RunClassification(images.value(), config, interpreter.get(), nullptr, &result, {}).ok());
    std::vector<int> image_ranks;
    std::vector<std::string> best;
    for (const ImagePrediction& p : result.predictions) {
      image_ranks.push_back(p.first_hit_rank);
      best.push_back(result.output_labels[p.top_indices[0]]);
    }
    ranks.push_back(image_ranks);
    top_labels.push_back(best);
    // What the images show (MANIFEST.md): the burger, the fox, Grace Hopper's uniform.
    const ImagePrediction& burger = result.predictions[0];
    std::vector<std::string> burger_top3;
    for (int i = 0; i < 3; ++i) burger_top3.push_back(result.output_labels[burger.top_indices[i]]);
    EXPECT_NE(std::find(burger_top3.begin(), burger_top3.end(), "cheeseburger"), burger_top3.end()) << label_file;
    EXPECT_EQ(best[1], "red fox") << label_file;
    EXPECT_EQ(best[2], "military uniform") << label_file;
    std::printf("NCHW %s: offset %d, Top-1 %s, Top-5 %s, Top-10 %s\n", label_file, offset.value(),
                Printed(result.topk.accuracies()[0]).c_str(), Printed(result.topk.accuracies()[4]).c_str(),
                Printed(result.topk.accuracies()[9]).c_str());
  }
  EXPECT_EQ(ranks[0], ranks[1]);
  EXPECT_EQ(top_labels[0], top_labels[1]);
}

// --use_model_metadata: the uint8 MobileNets carry mean = std = 127.5; normalising with it and
// quantizing with the input's (1/128, 128) moves some pixels by one step, so the ranking stays close to
// TFLite's raw-pixel input.
TEST(ImageNetSampleTest, NormalisationFromModelMetadata) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string sample = shared + "/data/imagenet_sample";
  auto images = LoadImageNetSet(sample + "/images", sample + "/ground_truth_labels.txt", "", 0);
  ASSERT_TRUE(images.ok());
  auto labels = ReadLines(shared + "/data/labels/imagenet_labels_1001.txt");
  ASSERT_TRUE(labels.ok());
  auto model = Model::FromFile(shared + "/models/classification/mobilenet_v1_0.25_128_quant.tflite");
  ASSERT_TRUE(model.ok());
  auto metadata = ReadInputNormalization(*model.value(), 0);
  ASSERT_TRUE(metadata.ok()) << metadata.status().message();
  auto interpreter = Make(model.value(), KernelSet::kOptimized);
  ASSERT_TRUE(interpreter);
  std::vector<std::vector<int>> top1;
  for (bool use_metadata : {false, true}) {
    auto preprocessing = PreprocessingForModel(*interpreter->input_tensor(0));
    ASSERT_TRUE(preprocessing.ok());
    ImageInputConfig input_config;
    input_config.preprocessing = preprocessing.value();
    if (use_metadata) {
      ASSERT_TRUE(
          SetNormalization(*interpreter->input_tensor(0), metadata.value().mean, metadata.value().std, &input_config)
              .ok());
      EXPECT_TRUE(input_config.quantization.enabled);
      EXPECT_EQ(input_config.quantization.zero_point, 128);
    }
    ClassificationConfig config;
    config.preprocessing = input_config.preprocessing;
    config.quantization = input_config.quantization;
    config.model_labels = labels.value();
    config.keep_predictions = true;
    ClassificationResult result;
    ASSERT_TRUE(RunClassification(images.value(), config, interpreter.get(), nullptr, &result, {}).ok());
    std::vector<int> best;
    for (const ImagePrediction& p : result.predictions) best.push_back(p.top_indices[0]);
    top1.push_back(best);
  }
  int same = 0;
  for (size_t i = 0; i < top1[0].size(); ++i) same += top1[0][i] == top1[1][i] ? 1 : 0;
  EXPECT_GE(same, 9) << "of 11 images keep their top-1 class";
}

}  // namespace
}  // namespace touchstone
