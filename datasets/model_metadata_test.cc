#include "datasets/model_metadata.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "datasets/metadata_schema_generated.h"
#include "runtime/model.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

// Metadata with one input whose process units are `units` (NormalizationOptions given by mean/std when
// `with_normalization`).
std::vector<uint8_t> MakeMetadata(const std::vector<float>& mean, const std::vector<float>& std,
                                  bool with_normalization = true, bool with_identifier = true) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<metadata::ProcessUnit>> units;
  if (with_normalization) {
    const auto options = metadata::CreateNormalizationOptions(fbb, fbb.CreateVector(mean), fbb.CreateVector(std));
    units.push_back(
        metadata::CreateProcessUnit(fbb, metadata::ProcessUnitOptions::NormalizationOptions, options.Union()));
  }
  const auto input = metadata::CreateTensorMetadata(fbb, fbb.CreateString("image"), 0, 0, fbb.CreateVector(units));
  std::vector<flatbuffers::Offset<metadata::TensorMetadata>> inputs = {input};
  const auto subgraph = metadata::CreateSubGraphMetadata(fbb, 0, 0, fbb.CreateVector(inputs));
  std::vector<flatbuffers::Offset<metadata::SubGraphMetadata>> subgraphs = {subgraph};
  const auto root = metadata::CreateModelMetadata(fbb, fbb.CreateString("test"), 0, 0, fbb.CreateVector(subgraphs));
  if (with_identifier) {
    metadata::FinishModelMetadataBuffer(fbb, root);
  } else {
    fbb.Finish(root);
  }
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// A one-tensor .tflite (input = output, no operators) carrying `metadata` as TFLITE_METADATA.
std::vector<uint8_t> MakeModel(const std::vector<uint8_t>& metadata_bytes, const std::string& entry_name) {
  flatbuffers::FlatBufferBuilder fbb;
  const std::vector<int> shape = {1, 2, 2, 3};
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
      fb::CreateTensor(fbb, fbb.CreateVector(shape), fb::TensorType::FLOAT32, 0, fbb.CreateString("x"))};
  const std::vector<int> io = {0};
  std::vector<flatbuffers::Offset<fb::Operator>> ops;
  std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs = {fb::CreateSubGraph(
      fbb, fbb.CreateVector(tensors), fbb.CreateVector(io), fbb.CreateVector(io), fbb.CreateVector(ops))};
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {fb::CreateBuffer(fbb)};
  std::vector<flatbuffers::Offset<fb::Metadata>> entries;
  if (!metadata_bytes.empty()) {
    buffers.push_back(fb::CreateBuffer(fbb, fbb.CreateVector(metadata_bytes)));
    entries.push_back(fb::CreateMetadata(fbb, fbb.CreateString(entry_name), 1));
  }
  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
  const auto model = fb::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(subgraphs), 0,
                                     fbb.CreateVector(buffers), 0, fbb.CreateVector(entries));
  fbb.Finish(model, fb::ModelIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(ModelMetadataTest, ReadsNormalizationOptions) {
  auto read = ParseInputNormalization(MakeMetadata({123.675f, 116.28f, 103.53f}, {58.395f, 57.12f, 57.375f}), 0, "m");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read.value().mean, (std::vector<float>{123.675f, 116.28f, 103.53f}));
  EXPECT_EQ(read.value().std, (std::vector<float>{58.395f, 57.12f, 57.375f}));
  // One value stands for every channel.
  read = ParseInputNormalization(MakeMetadata({127.5f}, {127.5f}), 0, "m");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.value().mean, std::vector<float>{127.5f});
}

TEST(ModelMetadataTest, RefusesWhatCannotNormalise) {
  struct Case {
    std::vector<uint8_t> bytes;
    int input;
    std::string message;
  };
  const std::vector<Case> cases = {
      {MakeMetadata({127.5f}, {127.5f}, /*with_normalization=*/false), 0,
       "input 0 ('image') has no NormalizationOptions"},
      {MakeMetadata({127.5f}, {127.5f}), 1, "describes no input 1"},
      {MakeMetadata({127.5f}, {0.0f}), 0, "a std value is 0"},
      {MakeMetadata({1, 2}, {1, 2, 3}), 0, "has 2 mean and 3 std values"},
      {MakeMetadata({}, {1}), 0, "has 0 mean and 1 std values"},
      {MakeMetadata({127.5f}, {127.5f}, true, /*with_identifier=*/false), 0, "is not valid TFLite metadata"},
      {std::vector<uint8_t>(64, 0xff), 0, "is not valid TFLite metadata"},
      {std::vector<uint8_t>(3, 0), 0, "is not valid TFLite metadata"},
  };
  for (const Case& c : cases) {
    const auto read = ParseInputNormalization(c.bytes, c.input, "m.tflite");
    ASSERT_FALSE(read.ok()) << c.message;
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(read.status().message().find(c.message), std::string::npos) << read.status().message();
    EXPECT_EQ(read.status().message().rfind("m.tflite: TFLITE_METADATA", 0), 0u) << read.status().message();
  }
  // Every truncation of valid metadata is refused or read, never a crash.
  const std::vector<uint8_t> valid = MakeMetadata({1, 2, 3}, {4, 5, 6});
  for (size_t n = 0; n < valid.size(); ++n) {
    ParseInputNormalization(std::vector<uint8_t>(valid.begin(), valid.begin() + n), 0, "m");
  }
}

TEST(ModelMetadataTest, FindsTheEntryInAModel) {
  auto model = Model::FromBuffer(MakeModel(MakeMetadata({0.5f}, {2.0f}), kTfLiteMetadataName), "meta.tflite");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto read = ReadInputNormalization(*model.value(), 0);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read.value().std, std::vector<float>{2.0f});

  model = Model::FromBuffer(MakeModel(MakeMetadata({0.5f}, {2.0f}), "min_runtime_version"), "other.tflite");
  ASSERT_TRUE(model.ok());
  read = ReadInputNormalization(*model.value(), 0);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(), "other.tflite: the model has no TFLITE_METADATA");

  model = Model::FromBuffer(MakeModel({}, ""), "bare.tflite");
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(ReadInputNormalization(*model.value(), 0).ok());
}

TEST(ModelMetadataTest, SharedModels) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  for (const char* name : {"classification/mobilenet_v1_0.25_224_quant", "classification/mobilenet_v1_0.25_128_quant",
                           "classification/mobilenet_v2_1.0_224_quant", "segmentation/deeplabv3"}) {
    auto model = Model::FromFile(shared + "/models/" + name + ".tflite");
    ASSERT_TRUE(model.ok()) << name;
    auto read = ReadInputNormalization(*model.value(), 0);
    ASSERT_TRUE(read.ok()) << name << ": " << read.status().message();
    EXPECT_EQ(read.value().mean, std::vector<float>{127.5f}) << name;
    EXPECT_EQ(read.value().std, std::vector<float>{127.5f}) << name;
  }
  auto model = Model::FromFile(shared + "/models/classification/mobilenet_v1_0.25_224_1_default_1.tflite");
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(ReadInputNormalization(*model.value(), 0).ok());
  // yamnet has TFLite metadata but its input (audio) carries no normalisation.
  model = Model::FromFile(shared + "/models/misc/yamnet_audio_classifier_with_metadata.tflite");
  ASSERT_TRUE(model.ok());
  auto yamnet = ReadInputNormalization(*model.value(), 0);
  ASSERT_FALSE(yamnet.ok());
  EXPECT_NE(yamnet.status().message().find("has no NormalizationOptions"), std::string::npos)
      << yamnet.status().message();
}

}  // namespace
}  // namespace touchstone
