// The custom op TFLite_Detection_PostProcess run through the real loader and interpreter. Boxes are
// decoded from hand-picked anchors (with zero encodings a box is its anchor: y ± h/2, x ± w/2), and
// the expected detections are worked by hand from TensorFlow Lite 2.14.1's algorithm: candidates
// best first with ties in box order, greedy suppression above the IoU threshold, and in regular
// NMS a per-class pass whose detections are merged with a later class first on equal scores.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "flatbuffers/flexbuffers.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

using testing::OpTest;

constexpr char kOpName[] = "TFLite_Detection_PostProcess";

struct PostProcessOptions {
  int max_detections = 3;
  int max_classes_per_detection = 1;
  int detections_per_class = 1;
  bool use_regular_nms = false;
  float nms_score_threshold = 0.f;
  float nms_iou_threshold = 0.5f;
  int num_classes = 2;
  float y_scale = 10.f;
  float x_scale = 10.f;
  float h_scale = 5.f;
  float w_scale = 5.f;
};

// The options as a converter writes them: a flexbuffer map. `omitted` names a key left out;
// `edit` may add keys.
std::vector<uint8_t> EncodeOptions(const PostProcessOptions& o, const std::string& omitted = "",
                                   const std::function<void(flexbuffers::Builder&)>& edit = {}) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    auto add_int = [&](const char* key, int value) {
      if (omitted != key) fbb.Int(key, value);
    };
    auto add_float = [&](const char* key, float value) {
      if (omitted != key) fbb.Float(key, value);
    };
    add_int("max_detections", o.max_detections);
    add_int("max_classes_per_detection", o.max_classes_per_detection);
    add_int("detections_per_class", o.detections_per_class);
    if (omitted != "use_regular_nms") fbb.Bool("use_regular_nms", o.use_regular_nms);
    add_float("nms_score_threshold", o.nms_score_threshold);
    add_float("nms_iou_threshold", o.nms_iou_threshold);
    add_int("num_classes", o.num_classes);
    add_float("y_scale", o.y_scale);
    add_float("x_scale", o.x_scale);
    add_float("h_scale", o.h_scale);
    add_float("w_scale", o.w_scale);
    if (edit) edit(fbb);
  });
  fbb.Finish();
  return fbb.GetBuffer();
}

// Box encodings (input 0) and class predictions (input 1) are graph inputs; anchors are constant.
void AddPostProcess(OpTest& test, int num_boxes, int num_scores, const std::vector<float>& anchors,
                    const std::vector<uint8_t>& options, int encoding_size = 4, TfLiteType box_type = kTfLiteFloat32) {
  const int boxes = test.AddInput(box_type, {1, num_boxes, encoding_size});
  const int scores = test.AddInput(kTfLiteFloat32, {1, num_boxes, num_scores});
  const int anchor_rows = static_cast<int>(anchors.size()) / 4;
  const int anchor_tensor = test.AddConst<float>(kTfLiteFloat32, {anchor_rows, 4}, anchors);
  std::vector<int> outputs;
  for (int i = 0; i < 4; ++i) outputs.push_back(test.AddOutput(kTfLiteFloat32));
  test.builder().AddCustomOperator(kOpName, {boxes, scores, anchor_tensor}, outputs, options);
}

void ExpectFloatsNear(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-5f) << "element " << i;
  }
}

// The four outputs: boxes, classes, scores and the number of detections, of shapes [1, rows, 4],
// [1, rows], [1, rows] and [1] (rows: one per entry of `classes`).
void ExpectDetections(OpTest& test, const std::vector<float>& boxes, const std::vector<float>& classes,
                      const std::vector<float>& scores, float count) {
  const int rows = static_cast<int>(classes.size());
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, rows, 4}));
  EXPECT_EQ(test.GetOutputShape(1), (std::vector<int>{1, rows}));
  EXPECT_EQ(test.GetOutputShape(2), (std::vector<int>{1, rows}));
  EXPECT_EQ(test.GetOutputShape(3), (std::vector<int>{1}));
  ExpectFloatsNear(test.GetOutput<float>(0), boxes);
  ExpectFloatsNear(test.GetOutput<float>(1), classes);
  ExpectFloatsNear(test.GetOutput<float>(2), scores);
  ExpectFloatsNear(test.GetOutput<float>(3), {count});
}

// Six anchors (y, x, h, w) in three pairs; within a pair the boxes overlap with IoU 0.9 / 1.1.
const std::vector<float> kSixAnchors = {
    0.5f, 0.5f,   1.f, 1.f,  // box 0: [0, 0, 1, 1]
    0.5f, 0.6f,   1.f, 1.f,  // box 1: [0, 0.1, 1, 1.1]
    0.5f, 10.5f,  1.f, 1.f,  // box 2: [0, 10, 1, 11]
    0.5f, 10.6f,  1.f, 1.f,  // box 3: [0, 10.1, 1, 11.1]
    0.5f, 100.5f, 1.f, 1.f,  // box 4: [0, 100, 1, 101]
    0.5f, 100.6f, 1.f, 1.f,  // box 5: [0, 100.1, 1, 101.1]
};
// Per box: background, class 0, class 1.
const std::vector<float> kSixScores = {
    0.f, 0.9f,  0.8f,   //
    0.f, 0.75f, 0.72f,  //
    0.f, 0.6f,  0.5f,   //
    0.f, 0.93f, 0.95f,  //
    0.f, 0.5f,  0.4f,   //
    0.f, 0.3f,  0.2f,   //
};

// Builds the graph with `options`, feeds zero encodings (each box is its anchor) and `scores`, and
// invokes.
void RunZeroEncodings(OpTest& test, int num_boxes, int num_scores, const std::vector<float>& anchors,
                      const std::vector<uint8_t>& options, const std::vector<float>& scores) {
  AddPostProcess(test, num_boxes, num_scores, anchors, options);
  ASSERT_TRUE(test.Build().ok());
  test.SetInput<float>(0, std::vector<float>(num_boxes * 4, 0.f));
  test.SetInput<float>(1, scores);
  ASSERT_TRUE(test.Invoke().ok());
}

// The six-box graph with `options` and kSixScores.
void RunSixBoxes(OpTest& test, const PostProcessOptions& options) {
  RunZeroEncodings(test, 6, 3, kSixAnchors, EncodeOptions(options), kSixScores);
}

// Runs the six-box graph with `options` and expects these detections (ExpectDetections).
void ExpectSixBoxDetections(const PostProcessOptions& options, const std::vector<float>& boxes,
                            const std::vector<float>& classes, const std::vector<float>& scores, float count) {
  OpTest test;
  RunSixBoxes(test, options);
  ExpectDetections(test, boxes, classes, scores, count);
}

TEST(DetectionPostProcessTest, DecodesCenterSizeEncodingAgainstAnchor) {
  OpTest test;
  PostProcessOptions options;
  options.max_detections = 1;
  options.num_classes = 1;
  // Two extra (keypoint) values per box are ignored; one class and no background.
  AddPostProcess(test, 1, 1, {0.5f, 0.5f, 0.2f, 0.4f}, EncodeOptions(options), 6);
  ASSERT_TRUE(test.Build().ok());
  // ycenter = 1 / 10 * 0.2 + 0.5, xcenter = -2 / 10 * 0.4 + 0.5,
  // half_h = 0.5 * exp(5 ln 2 / 5) * 0.2, half_w = 0.5 * exp(0) * 0.4.
  test.SetInput<float>(0, {1.f, -2.f, 5.f * std::log(2.f), 0.f, 7.f, 7.f});
  test.SetInput<float>(1, {0.8f});
  ASSERT_TRUE(test.Invoke().ok());
  ExpectDetections(test, {0.32f, 0.22f, 0.72f, 0.62f}, {0.f}, {0.8f}, 1.f);
}

TEST(DetectionPostProcessTest, FastNmsSuppressesOverlapsOnBestClassScore) {
  // Best scores: 3 (0.95, class 1), 0 (0.9), 1 (0.75), 2 (0.6), 4 (0.5), 5 (0.3). Box 3 removes
  // box 2, box 0 removes box 1, box 4 removes box 5.
  ExpectSixBoxDetections(PostProcessOptions{}, {0.f, 10.1f, 1.f, 11.1f, 0.f, 0.f, 1.f, 1.f, 0.f, 100.f, 1.f, 101.f},
                         {1.f, 0.f, 0.f}, {0.95f, 0.9f, 0.5f}, 3.f);
}

TEST(DetectionPostProcessTest, FastNmsReportsSeveralClassesPerBox) {
  PostProcessOptions options;
  options.max_detections = 2;
  options.max_classes_per_detection = 2;
  // Each kept box fills two rows, its classes best first.
  ExpectSixBoxDetections(options,
                         {0.f, 10.1f, 1.f, 11.1f, 0.f, 10.1f, 1.f, 11.1f,  //
                          0.f, 0.f, 1.f, 1.f, 0.f, 0.f, 1.f, 1.f},
                         {1.f, 0.f, 0.f, 1.f}, {0.95f, 0.93f, 0.9f, 0.8f}, 2.f);
}

TEST(DetectionPostProcessTest, FewerDetectionsThanMaxLeavesZeroRows) {
  PostProcessOptions options;
  options.max_detections = 5;
  options.nms_score_threshold = 0.55f;
  // Boxes 4 and 5 fall below the threshold; boxes 2 and 1 are suppressed.
  ExpectSixBoxDetections(options, {0.f, 10.1f, 1.f, 11.1f, 0.f, 0.f, 1.f, 1.f,  //
                                   0.f, 0.f,   0.f, 0.f,   0.f, 0.f, 0.f, 0.f,  //
                                   0.f, 0.f,   0.f, 0.f},
                         {1.f, 0.f, 0.f, 0.f, 0.f}, {0.95f, 0.9f, 0.f, 0.f, 0.f}, 2.f);
}

TEST(DetectionPostProcessTest, RegularNmsKeepsBestPerClass) {
  PostProcessOptions options;
  options.use_regular_nms = true;
  // One detection per class: class 0 keeps box 3 (0.93), class 1 keeps box 3 (0.95).
  ExpectSixBoxDetections(options, {0.f, 10.1f, 1.f, 11.1f, 0.f, 10.1f, 1.f, 11.1f, 0.f, 0.f, 0.f, 0.f}, {1.f, 0.f, 0.f},
                         {0.95f, 0.93f, 0.f}, 2.f);
}

TEST(DetectionPostProcessTest, RegularNmsMergesClassesAndCutsToMax) {
  PostProcessOptions options;
  options.use_regular_nms = true;
  options.detections_per_class = 2;
  // Class 0 keeps boxes 3 (0.93) and 0 (0.9); class 1 keeps 3 (0.95) and 0 (0.8); best three.
  ExpectSixBoxDetections(options, {0.f, 10.1f, 1.f, 11.1f, 0.f, 10.1f, 1.f, 11.1f, 0.f, 0.f, 1.f, 1.f}, {1.f, 0.f, 0.f},
                         {0.95f, 0.93f, 0.9f}, 3.f);
}

TEST(DetectionPostProcessTest, DetectionsPerClassDefaultsToHundred) {
  OpTest test;
  PostProcessOptions options;
  options.max_detections = 4;
  options.use_regular_nms = true;
  // Without the key every class may keep all of its boxes.
  RunZeroEncodings(test, 6, 3, kSixAnchors, EncodeOptions(options, "detections_per_class"), kSixScores);
  // Class 0 keeps 3 (0.93), 0 (0.9), 4 (0.5); class 1 keeps 3 (0.95), 0 (0.8), 4 (0.4).
  ExpectFloatsNear(test.GetOutput<float>(1), {1.f, 0.f, 0.f, 1.f});
  ExpectFloatsNear(test.GetOutput<float>(2), {0.95f, 0.93f, 0.9f, 0.8f});
  ExpectFloatsNear(test.GetOutput<float>(3), {4.f});
}

// Three boxes far apart (no suppression).
const std::vector<float> kApartAnchors = {
    0.5f, 0.5f,  1.f, 1.f,  // [0, 0, 1, 1]
    0.5f, 10.5f, 1.f, 1.f,  // [0, 10, 1, 11]
    0.5f, 20.5f, 1.f, 1.f,  // [0, 20, 1, 21]
};

TEST(DetectionPostProcessTest, FastNmsTiesKeepBoxOrderAndFirstClass) {
  OpTest test;
  PostProcessOptions options;
  options.max_detections = 2;
  // All boxes score 0.5; box 1 scores 0.5 for both classes.
  RunZeroEncodings(test, 3, 3, kApartAnchors, EncodeOptions(options),
                   {0.f, 0.5f, 0.1f, 0.f, 0.5f, 0.5f, 0.f, 0.2f, 0.5f});
  ExpectDetections(test, {0.f, 0.f, 1.f, 1.f, 0.f, 10.f, 1.f, 11.f}, {0.f, 0.f}, {0.5f, 0.5f}, 2.f);
}

TEST(DetectionPostProcessTest, RegularNmsTiesPutLaterClassFirst) {
  OpTest test;
  PostProcessOptions options;
  options.use_regular_nms = true;
  options.detections_per_class = 2;
  options.nms_score_threshold = 0.3f;
  // Class 0: boxes 0 and 2 tie at 0.7 (box order); class 1: box 1 ties with them.
  RunZeroEncodings(test, 3, 3, kApartAnchors, EncodeOptions(options), {0.f, 0.7f, 0.f, 0.f, 0.f, 0.7f, 0.f, 0.7f, 0.f});
  ExpectDetections(test,
                   {0.f, 10.f, 1.f, 11.f, 0.f, 0.f, 1.f, 1.f,  //
                    0.f, 20.f, 1.f, 21.f},
                   {1.f, 0.f, 0.f}, {0.7f, 0.7f, 0.7f}, 3.f);
}

TEST(DetectionPostProcessTest, WithoutBackgroundClassScoresStartAtClassZero) {
  OpTest test;
  PostProcessOptions options;
  options.max_detections = 2;
  RunZeroEncodings(test, 3, 2, kApartAnchors, EncodeOptions(options), {0.1f, 0.2f, 0.9f, 0.3f, 0.4f, 0.6f});
  ExpectFloatsNear(test.GetOutput<float>(1), {0.f, 1.f});
  ExpectFloatsNear(test.GetOutput<float>(2), {0.9f, 0.6f});
}

TEST(DetectionPostProcessTest, QuantizedInputsAreDequantized) {
  OpTest test;
  PostProcessOptions options;
  options.max_detections = 2;
  options.num_classes = 1;
  ModelBuilder& b = test.builder();
  const int boxes = test.AddInput(kTfLiteUInt8, {1, 2, 4});
  b.SetQuantization(boxes, {0.5f}, {128});
  const int scores = test.AddInput(kTfLiteUInt8, {1, 2, 2});
  b.SetQuantization(scores, {1.f / 256}, {0});
  // Anchors (y, x, h, w) in steps of 0.01: (0.5, 0.5, 1, 1) and (0.5, 0.6, 1, 1).
  const int anchors = test.AddConst<uint8_t>(kTfLiteUInt8, {2, 4}, {50, 50, 100, 100, 50, 60, 100, 100});
  b.SetQuantization(anchors, {0.01f}, {0});
  std::vector<int> outputs;
  for (int i = 0; i < 4; ++i) outputs.push_back(test.AddOutput(kTfLiteFloat32));
  b.AddCustomOperator(kOpName, {boxes, scores, anchors}, outputs, EncodeOptions(options));
  ASSERT_TRUE(test.Build().ok());
  // Box 1's y encoding is (148 - 128) * 0.5 = 10: its centre moves down by 10 / 10 * h.
  test.SetInput<uint8_t>(0, {128, 128, 128, 128, 148, 128, 128, 128});
  // Scores 128 / 256 and 192 / 256 (after the background column).
  test.SetInput<uint8_t>(1, {0, 128, 0, 192});
  ASSERT_TRUE(test.Invoke().ok());
  ExpectDetections(test, {1.f, 0.1f, 2.f, 1.1f, 0.f, 0.f, 1.f, 1.f}, {0.f, 0.f}, {0.75f, 0.5f}, 2.f);
}

TEST(DetectionPostProcessTest, ZeroMaxDetectionsGivesEmptyOutputs) {
  OpTest test;
  PostProcessOptions options;
  options.max_detections = 0;
  RunSixBoxes(test, options);
  EXPECT_EQ(test.GetOutputShape(0), (std::vector<int>{1, 0, 4}));
  EXPECT_EQ(test.GetOutputShape(1), (std::vector<int>{1, 0}));
  ExpectFloatsNear(test.GetOutput<float>(3), {0.f});
}

// Builds the six-box graph with raw option bytes and expects Build() to refuse it, naming `what`.
void ExpectRefused(const std::vector<uint8_t>& options, const std::string& what) {
  OpTest test;
  AddPostProcess(test, 6, 3, kSixAnchors, options);
  const Status status = test.Build();
  ASSERT_FALSE(status.ok()) << what;
  EXPECT_NE(status.message().find(what), std::string::npos) << status.message();
}

TEST(DetectionPostProcessTest, RefusesBadOptions) {
  ExpectRefused({}, "custom options");
  ExpectRefused({1, 2, 3, 4, 5, 6, 7, 8}, "flexbuffer");
  ExpectRefused(
      EncodeOptions({}, "max_detections", [](flexbuffers::Builder& fbb) { fbb.String("max_detections", "3"); }),
      "max_detections");
  PostProcessOptions bad_iou;
  bad_iou.nms_iou_threshold = 0.f;
  ExpectRefused(EncodeOptions(bad_iou), "nms_iou_threshold");
  bad_iou.nms_iou_threshold = 1.5f;
  ExpectRefused(EncodeOptions(bad_iou), "nms_iou_threshold");
  PostProcessOptions bad_classes;
  bad_classes.num_classes = 4;
  ExpectRefused(EncodeOptions(bad_classes), "num_classes");
  PostProcessOptions negative;
  negative.max_detections = -1;
  ExpectRefused(EncodeOptions(negative), "max_detections");
  PostProcessOptions no_classes_per_box;
  no_classes_per_box.max_classes_per_detection = 0;
  ExpectRefused(EncodeOptions(no_classes_per_box), "max_classes_per_detection");
  PostProcessOptions regular;
  regular.use_regular_nms = true;
  regular.detections_per_class = 0;
  ExpectRefused(EncodeOptions(regular), "detections_per_class");
  PostProcessOptions zero_scale;
  zero_scale.h_scale = 0.f;
  ExpectRefused(EncodeOptions(zero_scale), "h_scale");

  ExpectRefused(EncodeOptions({}, "x_scale"), "x_scale");
}

TEST(DetectionPostProcessTest, RefusesBadInputs) {
  {
    // TFLite 2.14.1 has no int8 form of this op.
    OpTest test;
    AddPostProcess(test, 6, 3, kSixAnchors, EncodeOptions({}), 4, kTfLiteInt8);
    const Status status = test.Build();
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("INT8"), std::string::npos) << status.message();
  }
  {
    // Fewer anchors than boxes.
    OpTest test;
    AddPostProcess(test, 6, 3, std::vector<float>(kSixAnchors.begin(), kSixAnchors.end() - 4), EncodeOptions({}));
    const Status status = test.Build();
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("anchors"), std::string::npos) << status.message();
  }
  {
    // A negative anchor height inverts the decoded box, which TFLite refuses when it runs.
    OpTest test;
    std::vector<float> anchors = kSixAnchors;
    anchors[2] = -1.f;
    AddPostProcess(test, 6, 3, anchors, EncodeOptions({}));
    ASSERT_TRUE(test.Build().ok());
    test.SetInput<float>(0, std::vector<float>(24, 0.f));
    test.SetInput<float>(1, kSixScores);
    const Status status = test.Invoke();
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("box 0"), std::string::npos) << status.message();
  }
}

}  // namespace
}  // namespace touchstone
