// Loader refusals on hand-made broken files: each must give a one-line error naming the defect.
#include "runtime/model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/c/builtin_ops.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

// A model with one subgraph and one tensor whose fields the test chooses.
std::vector<uint8_t> OneTensorModel(std::vector<int> shape, uint32_t buffer, int num_buffers, int opcode_index = -1,
                                    int input_index = 0, uint32_t version = 3) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (int i = 0; i < num_buffers; ++i) buffers.push_back(fb::CreateBuffer(fbb));
  auto tensor = fb::CreateTensor(fbb, fbb.CreateVector(shape), fb::TensorType::FLOAT32, buffer, fbb.CreateString("t"));
  std::vector<flatbuffers::Offset<fb::Operator>> ops;
  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
  if (opcode_index >= 0) {
    codes.push_back(fb::CreateOperatorCode(fbb, 0, 0, 1, fb::BuiltinOperator::ADD));
    std::vector<int32_t> ins = {input_index, 0};
    std::vector<int32_t> outs = {0};
    ops.push_back(
        fb::CreateOperator(fbb, static_cast<uint32_t>(opcode_index), fbb.CreateVector(ins), fbb.CreateVector(outs)));
  }
  std::vector<int32_t> io = {0};
  auto subgraph = fb::CreateSubGraph(fbb, fbb.CreateVector(std::vector<flatbuffers::Offset<fb::Tensor>>{tensor}),
                                     fbb.CreateVector(io), fbb.CreateVector(io), fbb.CreateVector(ops));
  auto model = fb::CreateModel(fbb, version, fbb.CreateVector(codes),
                               fbb.CreateVector(std::vector<flatbuffers::Offset<fb::SubGraph>>{subgraph}),
                               fbb.CreateString("test"), fbb.CreateVector(buffers));
  fbb.Finish(model, fb::ModelIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

std::string LoadError(std::vector<uint8_t> bytes) {
  auto model = Model::FromBuffer(std::move(bytes), "broken.tflite");
  if (model.ok()) return "";
  EXPECT_EQ(model.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(model.status().message().find('\n'), std::string::npos);
  EXPECT_EQ(model.status().message().rfind("broken.tflite: ", 0), 0u) << model.status().message();
  return model.status().message();
}

TEST(ModelTest, AcceptsAWellFormedModel) { EXPECT_EQ(LoadError(OneTensorModel({1, 2}, 0, 1)), ""); }

TEST(ModelTest, RefusesTruncatedAndForeignFiles) {
  std::vector<uint8_t> good = OneTensorModel({1, 2}, 0, 1);
  EXPECT_NE(LoadError({1, 2, 3}).find("file is 3 bytes"), std::string::npos);
  std::vector<uint8_t> truncated(good.begin(), good.begin() + good.size() / 2);
  EXPECT_NE(LoadError(truncated), "");
  std::vector<uint8_t> wrong_id = good;
  wrong_id[4] = 'X';
  EXPECT_NE(LoadError(wrong_id).find("identifier"), std::string::npos);
}

TEST(ModelTest, RefusesOutOfRangeIndices) {
  EXPECT_NE(LoadError(OneTensorModel({1, 2}, 7, 1)).find("refers to buffer 7"), std::string::npos);
  EXPECT_NE(LoadError(OneTensorModel({1, 2}, 0, 1, /*opcode_index=*/3)).find("opcode index 3"), std::string::npos);
  EXPECT_NE(LoadError(OneTensorModel({1, 2}, 0, 1, 0, /*input_index=*/9)).find("refers to tensor 9"),
            std::string::npos);
}

TEST(ModelTest, RefusesBadShapesAndVersions) {
  EXPECT_NE(LoadError(OneTensorModel({1, -3}, 0, 1)).find("negative dimension"), std::string::npos);
  EXPECT_NE(LoadError(OneTensorModel({1 << 30, 1 << 30, 1 << 30}, 0, 1)).find("overflows"), std::string::npos);
  EXPECT_NE(LoadError(OneTensorModel({1}, 0, 1, -1, 0, /*version=*/2)).find("schema version 2"), std::string::npos);
}

// Found by model_fuzzer: int8 weights with zero point 16777216 overflowed FULLY_CONNECTED's int32 sums.
TEST(ModelTest, RefusesZeroPointsOutsideTheTypesRange) {
  auto with_zero_point = [](TfLiteType type, int64_t zero_point) {
    ModelBuilder b;
    const int in = b.AddTensor(type, {1, 2}, "x");
    b.SetQuantization(in, {0.5f}, {zero_point});
    b.SetInputs({in});
    b.SetOutputs({in});
    return b.Finish();
  };
  EXPECT_EQ(LoadError(with_zero_point(kTfLiteInt8, -128)), "");
  EXPECT_EQ(LoadError(with_zero_point(kTfLiteUInt8, 255)), "");
  EXPECT_NE(LoadError(with_zero_point(kTfLiteInt8, 16777216))
                .find("'x' has zero point 16777216 outside INT8's range [-128, 127]"),
            std::string::npos);
  EXPECT_NE(LoadError(with_zero_point(kTfLiteUInt8, -1)).find("zero point -1 outside UINT8's range [0, 255]"),
            std::string::npos);
  EXPECT_NE(LoadError(with_zero_point(kTfLiteInt32, int64_t{1} << 40)).find("outside INT32's range"),
            std::string::npos);
  // Each end of each range, and one past it (the check works on v - low modulo 2^64).
  const struct {
    TfLiteType type;
    int64_t low, high;
  } ranges[] = {{kTfLiteUInt8, 0, 255},
                {kTfLiteInt8, -128, 127},
                {kTfLiteInt16, -32768, 32767},
                {kTfLiteInt32, INT32_MIN, INT32_MAX},
                {kTfLiteFloat32, INT32_MIN, INT32_MAX}};
  for (const auto& r : ranges) {
    SCOPED_TRACE(TfLiteTypeGetName(r.type));
    EXPECT_EQ(LoadError(with_zero_point(r.type, r.low)), "");
    EXPECT_EQ(LoadError(with_zero_point(r.type, r.high)), "");
    EXPECT_NE(LoadError(with_zero_point(r.type, r.low - 1)).find("zero point " + std::to_string(r.low - 1)),
              std::string::npos);
    EXPECT_NE(LoadError(with_zero_point(r.type, r.high + 1)).find("zero point " + std::to_string(r.high + 1)),
              std::string::npos);
  }
  EXPECT_NE(LoadError(with_zero_point(kTfLiteInt8, INT64_MIN)).find("outside INT8's range"), std::string::npos);
  EXPECT_NE(LoadError(with_zero_point(kTfLiteInt8, INT64_MAX)).find("outside INT8's range"), std::string::npos);
}

// ReleasePages unmaps only whole pages inside the mapped file, and nothing of a model kept in memory
// or of a range outside the file.
TEST(ModelTest, ReleasesOnlyWholePagesOfTheMappedFile) {
  std::vector<uint8_t> bytes = OneTensorModel({1, 2}, 0, 1);
  bytes.resize(bytes.size() + 5 * 4096, 0x5a);  // bytes after the flatbuffer: the verifier ignores them
  const std::string path = ::testing::TempDir() + "/release_pages.tflite";
  FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  ASSERT_EQ(std::fclose(file), 0);
  auto mapped = Model::FromFile(path);
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  const Model& model = *mapped.value();
  const uint8_t* data = model.file_data();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // The range from byte 1 to the end: every page but the first (and a partial last one).
  const size_t released = model.ReleasePages(data + 1, bytes.size() - 1);
  EXPECT_EQ(released, (bytes.size() / page - 1) * page);
  EXPECT_EQ(std::memcmp(data, bytes.data(), bytes.size()), 0);    // the same bytes, mapped again
  EXPECT_EQ(model.ReleasePages(data + 1, page - 2), 0u);          // within one page
  EXPECT_EQ(model.ReleasePages(data + bytes.size(), page), 0u);   // past the file
  EXPECT_EQ(model.ReleasePages(bytes.data(), bytes.size()), 0u);  // not the file's memory
  auto in_memory = Model::FromBuffer(bytes, "in_memory.tflite");
  ASSERT_TRUE(in_memory.ok());
  EXPECT_EQ(in_memory.value()->ReleasePages(in_memory.value()->file_data(), bytes.size()), 0u);
  std::remove(path.c_str());
}

TEST(ModelTest, RefusesMissingFile) {
  auto model = Model::FromFile("/nonexistent/model.tflite");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(model.status().message().find("/nonexistent/model.tflite"), std::string::npos);
}

}  // namespace
}  // namespace touchstone
