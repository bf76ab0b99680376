// The coco_eval pipeline on fixtures written here: the option checks, the ground truth from COCO JSON and
// from TFLite's proto, a results file scored without a model, the baseline gate, and a tiny "detector"
// whose outputs are constants, run whole and as a shard. With ../shared, the SSD's TFLite lines.
#include "evaluation/coco_eval_pipeline.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"
#include "tests/common/shared_dir.h"
#include "tests/common/test_files.h"

namespace touchstone {
namespace {

using nlohmann::json;

using testing::Bmp24;
using testing::TestTempDir;
using testing::WriteTestFile;

// A detector of a [1,2,2,3] image that always finds one object of class output 0 (category 1 with the
// default class offset) at normalised [ymin 0.2, xmin 0.1, ymax 0.6, xmax 0.4], score 0.9. Each output is
// a constant plus zeros, so it is computed on every Invoke; the names say which output is which.
std::string ConstantDetector() {
  ModelBuilder b;
  const int image = b.AddTensor(kTfLiteFloat32, {1, 2, 2, 3}, "image");
  auto add_output = [&](const std::string& name, const std::vector<int>& shape, const std::vector<float>& values) {
    const int value = b.AddConstTensor<float>(kTfLiteFloat32, shape, values, name + "_value");
    const int zeros =
        b.AddConstTensor<float>(kTfLiteFloat32, shape, std::vector<float>(values.size(), 0.0f), name + "_zeros");
    const int out = b.AddTensor(kTfLiteFloat32, shape, name);
    b.AddOperator(kTfLiteBuiltinAdd, {value, zeros}, {out}, fb::BuiltinOptions::AddOptions,
                  fb::CreateAddOptions(b.fbb()).Union());
    return out;
  };
  const int boxes = add_output("detection_boxes", {1, 1, 4}, {0.2f, 0.1f, 0.6f, 0.4f});
  const int classes = add_output("detection_classes", {1, 1}, {0.0f});
  const int scores = add_output("detection_scores", {1, 1}, {0.9f});
  const int count = add_output("num_detections", {1}, {1.0f});
  b.SetInputs({image});
  b.SetOutputs({boxes, classes, scores, count});
  const std::vector<uint8_t> model = b.Finish();
  return std::string(model.begin(), model.end());
}

// Two 100x100 images, b.bmp (id 1) and a.bmp (id 2), each with one "person" where the detector finds
// one; c.bmp (id 3) has no annotation. Results files: perfect, and one with a false positive above.
struct Fixture {
  std::string dir;
  CocoEvalOptions options;
  explicit Fixture(const std::string& name) : dir(TestTempDir() + "/" + name) {
    mkdir(dir.c_str(), 0755);
    mkdir((dir + "/images").c_str(), 0755);
    for (const char* file : {"a.bmp", "b.bmp", "c.bmp"})
      WriteTestFile(dir + "/images/" + file, Bmp24(2, 2, std::vector<uint8_t>(12, 0x80)));
    const json gt = {
        {"images",
         {{{"id", 1}, {"file_name", "b.bmp"}, {"width", 100}, {"height", 100}},
          {{"id", 2}, {"file_name", "a.bmp"}, {"width", 100}, {"height", 100}},
          {{"id", 3}, {"file_name", "c.bmp"}, {"width", 100}, {"height", 100}}}},
        {"annotations",
         {{{"id", 10}, {"image_id", 1}, {"category_id", 1}, {"bbox", {10, 20, 30, 40}}, {"area", 1200}, {"iscrowd", 0}},
          {{"id", 11},
           {"image_id", 2},
           {"category_id", 1},
           {"bbox", {10, 20, 30, 40}},
           {"area", 1200},
           {"iscrowd", 0}}}},
        {"categories", {{{"id", 1}, {"name", "person"}}, {{"id", 2}, {"name", "bicycle"}}}}};
    WriteTestFile(dir + "/gt.json", gt.dump());
    json perfect = json::array();
    for (int id : {1, 2}) {
      perfect.push_back({{"image_id", id}, {"category_id", 1}, {"bbox", {10, 20, 30, 40}}, {"score", 0.9}});
    }
    WriteTestFile(dir + "/perfect.json", perfect.dump());
    perfect.push_back({{"image_id", 1}, {"category_id", 1}, {"bbox", {60, 60, 20, 20}}, {"score", 0.95}});
    WriteTestFile(dir + "/false_positive.json", perfect.dump());
    WriteTestFile(dir + "/labels.txt", "person\nbicycle\n");
    WriteTestFile(dir + "/model.tflite", ConstantDetector());
    options.ground_truth_json = dir + "/gt.json";
    options.num_preprocessing_threads = 0;
  }
  void UseModel() {
    options.model_file = dir + "/model.tflite";
    options.model_output_labels = dir + "/labels.txt";
    options.ground_truth_images_path = dir + "/images";
  }
};

EvalHooks NoDelegates() {
  EvalHooks hooks;
  hooks.create_delegates = []() -> StatusOr<std::vector<ProvidedDelegate>> { return std::vector<ProvidedDelegate>(); };
  return hooks;
}

// Runs the pipeline with stdout captured into *out.
StatusOr<CocoEvalOutcome> RunCaptured(const CocoEvalOptions& options, const std::string& baseline_text,
                                      std::string* out, const EvalHooks& hooks = NoDelegates()) {
  ::testing::internal::CaptureStdout();
  StatusOr<CocoEvalOutcome> outcome = RunCocoEval(options, "2024-01-01T00:00:00Z", baseline_text, hooks);
  *out = ::testing::internal::GetCapturedStdout();
  return outcome;
}

TEST(CocoEvalPipelineTest, OptionChecks) {
  CocoEvalOptions o;
  EXPECT_EQ(CheckCocoEvalOptions(o).message(),
            "--ground_truth_json is required (COCO instances JSON; or TFLite's --ground_truth_proto)");
  o.ground_truth_json = "gt.json";
  EXPECT_EQ(CheckCocoEvalOptions(o).message(),
            "--model_file is required (or --detections_json to score a results file)");
  o.detections_json = "results.json";
  EXPECT_TRUE(CheckCocoEvalOptions(o).ok());
  o.metric = "all";
  EXPECT_EQ(CheckCocoEvalOptions(o).message(), "--metric=all: expected tflite, coco or both");
  o.metric = "both";
  o.write_detections = "out.json";
  EXPECT_EQ(CheckCocoEvalOptions(o).code(), StatusCode::kUsage);
  o.write_detections = "";
  o.num_shards = 2;
  o.shard_index = 0;
  EXPECT_EQ(CheckCocoEvalOptions(o).code(), StatusCode::kUsage);  // shards split a model's run
  o = CocoEvalOptions();
  o.ground_truth_proto = "gt.pb";
  o.metric = "coco";
  EXPECT_EQ(CheckCocoEvalOptions(o).code(), StatusCode::kUsage);
  o.allow_config_change = true;
  EXPECT_EQ(CheckCocoGateOptions(o).message(), "--allow_config_change needs --baseline=REPORT.json");
  o.baseline = "base.json";
  o.max_accuracy_drop_pct = -1;
  EXPECT_EQ(CheckCocoGateOptions(o).message(), "--max_accuracy_drop_pct must not be negative");
}

TEST(CocoEvalPipelineTest, GroundTruthFromJson) {
  Fixture f("coco_pipeline_json");
  StatusOr<CocoGroundTruth> truth = LoadCocoGroundTruth(f.options);
  ASSERT_TRUE(truth.ok()) << truth.status().message();
  // The annotated images in file-name order; c.bmp has no annotation.
  ASSERT_EQ(truth.value().images.size(), 2u);
  EXPECT_EQ(truth.value().images[0].file_name, "a.bmp");
  EXPECT_EQ(truth.value().images[1].id, 1);
  ASSERT_EQ(truth.value().boxes[0].size(), 1u);
  const TfliteBox& box = truth.value().boxes[0][0];
  EXPECT_FLOAT_EQ(box.ymin, 0.2f);
  EXPECT_FLOAT_EQ(box.xmin, 0.1f);
  EXPECT_FLOAT_EQ(box.ymax, 0.6f);
  EXPECT_FLOAT_EQ(box.xmax, 0.4f);
  EXPECT_EQ(box.class_id, 1);
  f.options.image_ids = "1";
  EXPECT_EQ(LoadCocoGroundTruth(f.options).value().images[0].file_name, "b.bmp");
  f.options.image_ids = "3";
  EXPECT_EQ(LoadCocoGroundTruth(f.options).status().message(),
            "--image_ids: image 3 is not an annotated image of the ground truth");
  f.options.image_ids = "";
  f.options.num_images = 1;
  EXPECT_EQ(LoadCocoGroundTruth(f.options).value().images.size(), 1u);
}

// TFLite's proto, encoded here: ObjectDetectionGroundTruth { repeated ObjectDetectionResult = 1 }.
void Varint(std::string* out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out->push_back(static_cast<char>(v | 0x80));
  out->push_back(static_cast<char>(v));
}
void Field(std::string* out, int field, const std::string& body) {
  Varint(out, static_cast<uint64_t>(field << 3 | 2));
  Varint(out, body.size());
  *out += body;
}
std::string ProtoResult(const std::string& image_name, int64_t image_id, int class_id) {
  std::string box, object, result;
  int field = 1;
  for (float v : {0.2f, 0.6f, 0.1f, 0.4f}) {  // top, bottom, left, right
    Varint(&box, static_cast<uint64_t>(field++ << 3 | 5));
    box.append(reinterpret_cast<const char*>(&v), 4);
  }
  Varint(&object, 1 << 3);
  Varint(&object, static_cast<uint64_t>(class_id));
  Field(&object, 2, box);
  Field(&result, 1, object);
  Field(&result, 2, image_name);
  Varint(&result, 3 << 3);
  Varint(&result, static_cast<uint64_t>(image_id));
  std::string truth;
  Field(&truth, 1, result);
  return truth;
}

TEST(CocoEvalPipelineTest, GroundTruthFromTfliteProto) {
  Fixture f("coco_pipeline_proto");
  // a.bmp twice (the last wins, as in run_eval); c.bmp not at all.
  WriteTestFile(f.dir + "/gt.pb", ProtoResult("a.bmp", 7, 3) + ProtoResult("b.bmp", 8, 1) + ProtoResult("a.bmp", 9, 0));
  f.options.ground_truth_json = "";
  f.options.ground_truth_proto = f.dir + "/gt.pb";
  f.options.ground_truth_images_path = f.dir + "/images";
  StatusOr<CocoGroundTruth> truth = LoadCocoGroundTruth(f.options);
  ASSERT_TRUE(truth.ok()) << truth.status().message();
  ASSERT_EQ(truth.value().images.size(), 3u);  // every file of the folder, in sorted order
  EXPECT_EQ(truth.value().images[0].file_name, "a.bmp");
  EXPECT_EQ(truth.value().images[0].id, 9);
  EXPECT_EQ(truth.value().boxes[0][0].class_id, 0);
  EXPECT_FLOAT_EQ(truth.value().boxes[0][0].ymax, 0.6f);
  EXPECT_EQ(truth.value().images[1].id, 8);
  EXPECT_TRUE(truth.value().boxes[2].empty());
  EXPECT_TRUE(truth.value().dataset.images.empty());
  f.options.num_images = 2;
  EXPECT_EQ(LoadCocoGroundTruth(f.options).value().images.size(), 2u);
}

TEST(CocoEvalPipelineTest, ScoresAResultsFileWithoutAModel) {
  Fixture f("coco_pipeline_results");
  f.options.detections_json = f.dir + "/perfect.json";
  f.options.write_detections = "";
  std::string out;
  StatusOr<CocoEvalOutcome> run = RunCaptured(f.options, "", &out);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run.value().exit_code, 0);
  EXPECT_EQ(out.find("Num evaluation runs"), std::string::npos) << out;  // no model ran
  EXPECT_NE(out.find("Average Precision [IOU Threshold=0.5]: 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("Overall mAP: 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 1.000\n"),
            std::string::npos)
      << out;
  const json report = json::parse(run.value().report_json);
  EXPECT_EQ(report["num_images"], 2);
  EXPECT_EQ(report["num_detections"], 2);
  EXPECT_EQ(report["configuration"]["kernels"], "none");
  EXPECT_EQ(report["gate"], nullptr);
  EXPECT_TRUE(run.value().detections_json.empty());
  f.options.delegate = "xnnpack";
  EXPECT_EQ(RunCaptured(f.options, "", &out).status().message(), "--delegate: no model runs with --detections_json");
}

TEST(CocoEvalPipelineTest, GatesAgainstItsOwnReport) {
  Fixture f("coco_pipeline_gate");
  f.options.detections_json = f.dir + "/perfect.json";
  std::string out;
  StatusOr<CocoEvalOutcome> first = RunCaptured(f.options, "", &out);
  ASSERT_TRUE(first.ok()) << first.status().message();
  f.options.baseline = f.dir + "/base.json";
  StatusOr<CocoEvalOutcome> same = RunCaptured(f.options, first.value().report_json, &out);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same.value().exit_code, 0) << out;
  EXPECT_NE(out.find("Gate verdict: PASS (exit code 0)\n"), std::string::npos) << out;
  // A false positive above the true detection lowers TFLite's mAP: a regression.
  f.options.detections_json = f.dir + "/false_positive.json";
  f.options.allow_config_change = true;
  StatusOr<CocoEvalOutcome> worse = RunCaptured(f.options, first.value().report_json, &out);
  ASSERT_TRUE(worse.ok()) << worse.status().message();
  EXPECT_EQ(worse.value().exit_code, 1) << out;
  EXPECT_EQ(json::parse(worse.value().report_json)["gate"]["verdict"], "REGRESSION");
  EXPECT_EQ(RunCaptured(f.options, "{", &out).status().code(), StatusCode::kInvalidInput);  // an unreadable baseline
}

TEST(CocoEvalPipelineTest, RunsADetector) {
  Fixture f("coco_pipeline_model");
  f.UseModel();
  f.options.debug_mode = true;
  f.options.write_detections = f.dir + "/detections.json";
  std::string out;
  StatusOr<CocoEvalOutcome> run = RunCaptured(f.options, "", &out);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(out.rfind("Image: a.bmp\nObject [0]\n  Score: 0.9\n  Class-ID: 1\n", 0), 0u) << out;
  EXPECT_NE(out.find("Num evaluation runs: 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("Overall mAP: 1\n"), std::string::npos) << out;
  const json report = json::parse(run.value().report_json);
  EXPECT_EQ(report["details"]["output_tensors"]["found_by"], "names");
  EXPECT_EQ(report["configuration"]["kernels"], "optimized");
  const json detections = json::parse(run.value().detections_json);
  ASSERT_EQ(detections.size(), 2u);
  EXPECT_EQ(detections[0]["image_id"], 2);  // a.bmp first
  EXPECT_EQ(detections[0]["category_id"], 1);
  // A class past the label file is refused, as TFLite's AP stage does.
  f.options.class_offset = 5;
  EXPECT_EQ(RunCaptured(f.options, "", &out).status().code(), StatusCode::kInvalidInput);
}

TEST(CocoEvalPipelineTest, ShardsAndDelegateErrors) {
  Fixture f("coco_pipeline_shard");
  f.UseModel();
  f.options.shard_index = 1;
  f.options.num_shards = 2;
  std::string out;
  StatusOr<CocoEvalOutcome> run = RunCaptured(f.options, "", &out);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(out.rfind("Shard 1 of 2: images 1 to 2 of 2", 0), 0u) << out;
  const json report = json::parse(run.value().report_json);
  EXPECT_EQ(report["num_evaluation_runs"], 1);
  EXPECT_EQ(report["detections"].size(), 1u);
  EvalHooks failing;
  failing.create_delegates = []() -> StatusOr<std::vector<ProvidedDelegate>> { return InvalidInputError("no plugin"); };
  EXPECT_EQ(RunCaptured(f.options, "", &out, failing).status().message(), "no plugin");
}

// ../shared's SSD on its 7 images with TFLite's own set-up (the binary proto): TFLite's lines exactly.
TEST(CocoEvalPipelineTest, SharedSsdPrintsTflitesLines) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string coco = shared + "/data/coco";
  std::ifstream expected_file(coco + "/expected_tflite_ssd.json");
  ASSERT_TRUE(expected_file.good()) << coco;
  const json expected = json::parse(expected_file);
  std::string expected_lines;
  for (const json& line : expected["log_lines"]) expected_lines += line.get<std::string>().substr(6) + "\n";
  CocoEvalOptions o;
  o.model_file = shared + "/models/detection/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite";
  o.model_output_labels = coco + "/labelmap_91_with_background.txt";
  o.ground_truth_images_path = coco + "/val2017";
  o.ground_truth_proto = coco + "/ground_truth_shared.pb";
  std::string out;
  ::testing::internal::CaptureStderr();  // the NOTE that the proto gives TFLite's metric only
  StatusOr<CocoEvalOutcome> run = RunCaptured(o, "", &out);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_NE(err.find("NOTE: TFLite's metric only"), std::string::npos) << err;
  std::istringstream lines(out);
  std::string line, ours;
  while (std::getline(lines, line)) {
    if (line.rfind("Num evaluation runs", 0) == 0 || line.rfind("Average Precision [", 0) == 0 ||
        line.rfind("Overall mAP", 0) == 0) {
      ours += line + "\n";
    }
  }
  EXPECT_EQ(ours, expected_lines);
}

}  // namespace
}  // namespace touchstone
