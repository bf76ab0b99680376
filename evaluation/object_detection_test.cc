#include "evaluation/object_detection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

struct OutputSpec {
  std::string name;
  std::vector<int> shape;
  TfLiteType type = kTfLiteFloat32;
};

// A model with no operators whose outputs are its inputs: the test writes the "detections" in.
std::unique_ptr<Interpreter> Passthrough(const std::vector<OutputSpec>& specs) {
  ModelBuilder b;
  std::vector<int> tensors;
  for (const OutputSpec& s : specs) tensors.push_back(b.AddTensor(s.type, s.shape, s.name));
  b.SetInputs(tensors);
  b.SetOutputs(tensors);
  auto model = Model::FromBuffer(b.Finish(), "passthrough");
  EXPECT_TRUE(model.ok()) << model.status().message();
  InterpreterOptions options;
  options.kernel_set = KernelSet::kReference;
  auto interpreter = Interpreter::Create(model.value(), options);
  EXPECT_TRUE(interpreter.ok()) << interpreter.status().message();
  EXPECT_TRUE(interpreter.value()->AllocateTensors().ok());
  return std::move(interpreter.value());
}

const std::vector<OutputSpec> kSsd = {{"TFLite_Detection_PostProcess", {1, 3, 4}},
                                      {"TFLite_Detection_PostProcess:1", {1, 3}},
                                      {"TFLite_Detection_PostProcess:2", {1, 3}},
                                      {"TFLite_Detection_PostProcess:3", {1}}};

TEST(ObjectDetectionTest, SsdOutputsByName) {
  auto interpreter = Passthrough(kSsd);
  auto outputs = ResolveDetectionOutputs(interpreter.get(), "");
  ASSERT_TRUE(outputs.ok()) << outputs.status().message();
  EXPECT_EQ(outputs.value().boxes, 0);
  EXPECT_EQ(outputs.value().classes, 1);
  EXPECT_EQ(outputs.value().scores, 2);
  EXPECT_EQ(outputs.value().count, 3);
  EXPECT_EQ(outputs.value().how, "names");
  // Post-processing outputs listed in another order are still found by their suffix.
  auto shuffled = Passthrough({kSsd[2], kSsd[0], kSsd[3], kSsd[1]});
  outputs = ResolveDetectionOutputs(shuffled.get(), "");
  ASSERT_TRUE(outputs.ok());
  EXPECT_EQ(outputs.value().boxes, 1);
  EXPECT_EQ(outputs.value().classes, 3);
  EXPECT_EQ(outputs.value().scores, 0);
  EXPECT_EQ(outputs.value().count, 2);
}

TEST(ObjectDetectionTest, Tf2OrderByWordsOrByFlag) {
  // TF2 detection models: scores, boxes, count, classes.
  auto named = Passthrough({{"detection_scores", {1, 3}},
                            {"detection_boxes", {1, 3, 4}},
                            {"num_detections", {1}},
                            {"detection_classes", {1, 3}}});
  auto outputs = ResolveDetectionOutputs(named.get(), "");
  ASSERT_TRUE(outputs.ok()) << outputs.status().message();
  EXPECT_EQ(outputs.value().boxes, 1);
  EXPECT_EQ(outputs.value().classes, 3);
  EXPECT_EQ(outputs.value().scores, 0);
  EXPECT_EQ(outputs.value().count, 2);

  auto anonymous = Passthrough({{"StatefulPartitionedCall:0", {1, 3}},
                                {"StatefulPartitionedCall:1", {1, 3, 4}},
                                {"StatefulPartitionedCall:2", {1}},
                                {"StatefulPartitionedCall:3", {1, 3}}});
  // Boxes and count by shape, but then classes and scores cannot be told apart: an error listing them.
  auto ambiguous = ResolveDetectionOutputs(anonymous.get(), "");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(ambiguous.status().message().find("--output_tensors"), std::string::npos);
  EXPECT_NE(ambiguous.status().message().find("1: 'StatefulPartitionedCall:1' FLOAT32 [1,3,4]"), std::string::npos)
      << ambiguous.status().message();
  // Named by the flag, by name or position.
  outputs = ResolveDetectionOutputs(anonymous.get(), "StatefulPartitionedCall:1,3,0,StatefulPartitionedCall:2");
  ASSERT_TRUE(outputs.ok()) << outputs.status().message();
  EXPECT_EQ(outputs.value().boxes, 1);
  EXPECT_EQ(outputs.value().classes, 3);
  EXPECT_EQ(outputs.value().scores, 0);
  EXPECT_EQ(outputs.value().count, 2);
  EXPECT_EQ(outputs.value().how, "flag");
  for (const char* bad : {"0,1,2", "0,1,2,3,", "0,1,2,9", "0,1,1,3", "boxes,classes,scores,count"}) {
    auto refused = ResolveDetectionOutputs(anonymous.get(), bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().code(), StatusCode::kUsage) << bad;
  }
  // Anonymous but where SSD has them: by shape.
  auto ssd_like = Passthrough({{"a", {1, 3, 4}}, {"b", {1, 3}}, {"c", {1, 3}}, {"d", {1}}});
  outputs = ResolveDetectionOutputs(ssd_like.get(), "");
  ASSERT_TRUE(outputs.ok());
  EXPECT_EQ(outputs.value().how, "shapes");
}

TEST(ObjectDetectionTest, ModelsThatAreNoDetectors) {
  auto classifier = Passthrough({{"scores", {1, 1001}}});
  auto refused = ResolveDetectionOutputs(classifier.get(), "");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(refused.status().message().find("the model has 1 outputs; a detector has four"), std::string::npos);
  EXPECT_NE(refused.status().message().find("0: 'scores' FLOAT32 [1,1001]"), std::string::npos);
  // Four outputs, none shaped like boxes (hand landmarks).
  auto landmarks =
      Passthrough({{"Identity", {1, 63}}, {"Identity_1", {1, 1}}, {"Identity_2", {1, 1}}, {"Identity_3", {1, 63}}});
  refused = ResolveDetectionOutputs(landmarks.get(), "");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("cannot tell the detection outputs apart"), std::string::npos);
}

TEST(ObjectDetectionTest, ReadsDetectionsUpToTheCount) {
  auto interpreter = Passthrough(kSsd);
  const float boxes[12] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.5f, 0.9f, 0.9f, 0, 0, 1, 1};
  const float classes[3] = {0, 16, 89};
  const float scores[3] = {0.9f, 0.5f, 0.1f};
  const float count[1] = {2};
  std::memcpy(interpreter->input_tensor(0)->data.raw, boxes, sizeof(boxes));
  std::memcpy(interpreter->input_tensor(1)->data.raw, classes, sizeof(classes));
  std::memcpy(interpreter->input_tensor(2)->data.raw, scores, sizeof(scores));
  std::memcpy(interpreter->input_tensor(3)->data.raw, count, sizeof(count));
  ASSERT_TRUE(interpreter->Invoke().ok());
  DetectionConfig config;
  auto read = ReadDetections(interpreter.get(), config);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read.value().size(), 2u);
  EXPECT_EQ(read.value()[0].class_id, 1);
  EXPECT_EQ(read.value()[1].class_id, 17);
  EXPECT_FLOAT_EQ(read.value()[1].ymin, 0.5f);
  EXPECT_FLOAT_EQ(read.value()[1].xmax, 0.9f);
  EXPECT_FLOAT_EQ(read.value()[1].score, 0.5f);
  // A count past the capacity is capped; a negative or NaN count reads as none.
  for (float c : {100.0f, -3.0f, std::nanf("")}) {
    std::memcpy(interpreter->input_tensor(3)->data.raw, &c, sizeof(c));
    read = ReadDetections(interpreter.get(), config);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(read.value().size(), c > 3 ? 3u : 0u);
  }
  // A class output that is no class index.
  const float huge = 1e30f;
  std::memcpy(interpreter->input_tensor(3)->data.raw, count, sizeof(count));
  std::memcpy(interpreter->input_tensor(1)->data.raw, &huge, sizeof(huge));
  EXPECT_EQ(ReadDetections(interpreter.get(), config).status().code(), StatusCode::kInvalidInput);
}

TEST(ObjectDetectionTest, WrongTypesAndSizesAreRefused) {
  auto ints = Passthrough({{"TFLite_Detection_PostProcess", {1, 3, 4}},
                           {"TFLite_Detection_PostProcess:1", {1, 3}, kTfLiteInt32},
                           {"TFLite_Detection_PostProcess:2", {1, 3}},
                           {"TFLite_Detection_PostProcess:3", {1}}});
  DetectionConfig config;
  auto read = ReadDetections(ints.get(), config);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(read.status().message().find("'TFLite_Detection_PostProcess:1' has type INT32"), std::string::npos);
  auto small = Passthrough({{"TFLite_Detection_PostProcess", {1, 2, 4}},
                            {"TFLite_Detection_PostProcess:1", {1, 3}},
                            {"TFLite_Detection_PostProcess:2", {1, 3}},
                            {"TFLite_Detection_PostProcess:3", {1}}});
  read = ReadDetections(small.get(), config);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("inconsistent sizes"), std::string::npos);
}

}  // namespace
}  // namespace touchstone
