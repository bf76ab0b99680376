// RunImageNetEval end to end on a tiny classifier and six 2x2 images written here: the report and the
// exit code, shards, the reference comparison and the baseline gate; and the option checks.
#include "evaluation/imagenet_eval_pipeline.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/common/test_files.h"
#include "tests/common/tiny_models.h"

namespace touchstone {
namespace {

using testing::Bmp24;
using testing::TestTempDir;
using testing::WriteTestFile;

// The fixture: a "classifier" whose 12 scores are its [1,2,2,3] input (RESHAPE), labels l0..l11, and
// six images, image i brightest at element 2i and labelled so.
struct Fixture {
  std::string dir;
  ImageNetEvalOptions options;
  explicit Fixture(const std::string& name) : dir(TestTempDir() + "/" + name) {
    mkdir(dir.c_str(), 0755);
    mkdir((dir + "/images").c_str(), 0755);
    WriteTestFile(dir + "/model.tflite", MakeReshapeClassifier());
    std::string model_labels, truth;
    for (int k = 0; k < 12; ++k) model_labels += "l" + std::to_string(k) + "\n";
    for (int i = 0; i < 6; ++i) {
      std::vector<uint8_t> pixels(12);
      for (int k = 0; k < 12; ++k) pixels[k] = static_cast<uint8_t>(10 + k);
      pixels[2 * i] = 250;
      WriteTestFile(dir + "/images/img_" + std::to_string(i) + ".bmp", Bmp24(2, 2, pixels));
      truth += "l" + std::to_string(2 * i) + "\n";
    }
    WriteTestFile(dir + "/labels.txt", model_labels);
    WriteTestFile(dir + "/truth.txt", truth);
    options.model_file = dir + "/model.tflite";
    options.model_output_labels = dir + "/labels.txt";
    options.ground_truth_images_path = dir + "/images";
    options.ground_truth_labels = dir + "/truth.txt";
    options.num_preprocessing_threads = 0;
  }
};

EvalHooks NoDelegates() {
  EvalHooks hooks;
  hooks.create_delegates = []() -> StatusOr<std::vector<ProvidedDelegate>> { return std::vector<ProvidedDelegate>(); };
  return hooks;
}

TEST(ImageNetEvalPipelineTest, OptionChecks) {
  ImageNetEvalOptions options;
  EXPECT_EQ(CheckImageNetEvalOptions(options).message(), "--model_file is required");
  options.model_file = "m.tflite";
  options.model_output_labels = "labels.txt";
  EXPECT_EQ(CheckImageNetEvalOptions(options).code(), StatusCode::kUsage);
  options.class_folders_path = "classes";
  EXPECT_TRUE(CheckImageNetEvalOptions(options).ok());
  options.ground_truth_labels = "truth.txt";
  EXPECT_EQ(CheckImageNetEvalOptions(options).code(), StatusCode::kUsage);
  options.ground_truth_labels = "";
  options.input_std = "1,0,1";
  EXPECT_EQ(CheckImageNetEvalOptions(options).message(), "--input_std must not be 0");
  options.input_std = "1,2";
  EXPECT_EQ(CheckImageNetEvalOptions(options).message(), "--input_std takes one value or three (per channel)");
  options.input_std = "";
  options.shard_index = 0;
  options.num_shards = 2;
  options.baseline = "base.json";
  EXPECT_EQ(CheckImageNetEvalOptions(options).code(), StatusCode::kUsage);
  EXPECT_EQ(ParseNormalizationValues("127.5", "input_mean").value(), std::vector<float>{127.5f});
  EXPECT_FALSE(ParseNormalizationValues("1,", "input_mean").ok());
}

TEST(ImageNetEvalPipelineTest, EvaluatesPrintsAndReports) {
  Fixture f("imagenet_pipeline_run");
  f.options.reference = true;
  ASSERT_TRUE(CheckImageNetEvalOptions(f.options).ok());
  ::testing::internal::CaptureStdout();
  StatusOr<ImageNetEvalOutcome> run = RunImageNetEval(f.options, "2024-01-01T00:00:00Z", "", NoDelegates());
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run.value().exit_code, 0);
  EXPECT_EQ(out.rfind("Num evaluation runs: 6\n", 0), 0u) << out;
  EXPECT_NE(out.find("Images whose top-1 changed against the reference: 0\n"), std::string::npos) << out;
  const nlohmann::json report = nlohmann::json::parse(run.value().report_json);
  EXPECT_EQ(report["num_evaluation_runs"], 6);
  EXPECT_EQ(report["details"]["label_offset"], 0);
  const double top1 = report["topk_accuracy"][0].get<double>();
  EXPECT_GE(top1, 0.0);
  EXPECT_LE(top1, report["topk_accuracy"][9].get<double>());
}

TEST(ImageNetEvalPipelineTest, ShardsEvaluateTheirPart) {
  Fixture f("imagenet_pipeline_shard");
  f.options.shard_index = 1;
  f.options.num_shards = 2;
  ::testing::internal::CaptureStdout();
  StatusOr<ImageNetEvalOutcome> run = RunImageNetEval(f.options, "", "", NoDelegates());
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_NE(out.find("Shard 1 of 2: images 3 to 6 of 6"), std::string::npos) << out;
  EXPECT_EQ(nlohmann::json::parse(run.value().report_json)["num_evaluation_runs"], 3);
}

TEST(ImageNetEvalPipelineTest, GatesAgainstItsOwnReport) {
  Fixture f("imagenet_pipeline_gate");
  ::testing::internal::CaptureStdout();
  StatusOr<ImageNetEvalOutcome> first = RunImageNetEval(f.options, "", "", NoDelegates());
  ASSERT_TRUE(first.ok()) << first.status().message();
  f.options.baseline = f.dir + "/base.json";
  StatusOr<ImageNetEvalOutcome> second = RunImageNetEval(f.options, "", first.value().report_json, NoDelegates());
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second.value().exit_code, 0) << out;
  f.options.baseline = "";
  f.options.require_same_predictions = true;
  EXPECT_EQ(RunImageNetEval(f.options, "", "", NoDelegates()).status().code(), StatusCode::kUsage);
}

TEST(ImageNetEvalPipelineTest, DelegateErrorsStopTheRun) {
  Fixture f("imagenet_pipeline_delegates");
  EvalHooks hooks;
  hooks.create_delegates = []() -> StatusOr<std::vector<ProvidedDelegate>> { return InvalidInputError("no plugin"); };
  EXPECT_EQ(RunImageNetEval(f.options, "", "", hooks).status().message(), "no plugin");
}

}  // namespace
}  // namespace touchstone
