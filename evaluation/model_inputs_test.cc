#include "evaluation/model_inputs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "runtime/c/builtin_ops.h"
#include "runtime/model.h"
#include "runtime/model_builder.h"

namespace touchstone {
namespace {

TEST(ModelInputsTest, NameValueListUnescapesDoubleColons) {
  auto parsed = ParseNameValueList("serving_default_x::0:/tmp/a.bin,y:/tmp/b.bin", "input_layer_value_files");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed.value().at("serving_default_x:0"), "/tmp/a.bin");
  EXPECT_EQ(parsed.value().at("y"), "/tmp/b.bin");
  // '::' in the path too, as TFLite unescapes both sides.
  auto path = ParseNameValueList("x::0:/data/run::1.bin", "input_layer_value_files");
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(path.value().at("x:0"), "/data/run:1.bin");
}

TEST(ModelInputsTest, NameValueListRefusesAmbiguousItems) {
  EXPECT_EQ(ParseNameValueList("a:b:c", "f").status().code(), StatusCode::kUsage);  // two delimiters
  EXPECT_EQ(ParseNameValueList("nocolon", "f").status().code(), StatusCode::kUsage);
  EXPECT_EQ(ParseNameValueList(":path", "f").status().code(), StatusCode::kUsage);  // empty name
  EXPECT_EQ(ParseNameValueList("name:", "f").status().code(), StatusCode::kUsage);  // TFLite: no delimiter
}

TEST(ModelInputsTest, ShapesAndRanges) {
  auto spec = ParseInputSpec("a,b", "1,224,224,3:1,10", "a,1,5", "");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_EQ(spec.value().layer_shapes.size(), 2u);
  EXPECT_EQ(spec.value().layer_shapes[0], (std::vector<int>{1, 224, 224, 3}));
  EXPECT_EQ(spec.value().value_ranges.at("a"), (std::pair<int, int>{1, 5}));
}

TEST(ModelInputsTest, RefusesBadItems) {
  EXPECT_EQ(ParseInputSpec("a", "1,-1", "", "").status().code(), StatusCode::kUsage);
  EXPECT_EQ(ParseInputSpec("a,b", "1,2", "", "").status().code(), StatusCode::kUsage);
  EXPECT_EQ(ParseInputSpec("", "", "a,5,1", "").status().code(), StatusCode::kUsage);
  EXPECT_EQ(ParseInputSpec("", "", "", "nocolon").status().code(), StatusCode::kUsage);
}

// A model whose inputs have every type the generator fills, each passed through a RESHAPE.
std::shared_ptr<const Model> TypedModel() {
  ModelBuilder m;
  std::vector<int> ins, outs;
  const std::vector<std::pair<TfLiteType, std::string>> specs = {{kTfLiteFloat32, "f32"}, {kTfLiteInt32, "i32"},
                                                                 {kTfLiteUInt8, "u8"},    {kTfLiteInt8, "i8"},
                                                                 {kTfLiteInt16, "i16"},   {kTfLiteBool, "b"}};
  const int new_shape = m.AddConstTensor<int32_t>(kTfLiteInt32, {2}, std::vector<int32_t>{1, 3}, "shape");
  for (const auto& spec : specs) {
    const int in = m.AddTensor(spec.first, {1, 3}, spec.second);
    const int out = m.AddTensor(spec.first, {1, 3}, spec.second + "_out");
    m.AddOperator(kTfLiteBuiltinReshape, {in, new_shape}, {out});
    ins.push_back(in);
    outs.push_back(out);
  }
  m.SetInputs(ins);
  m.SetOutputs(outs);
  auto model = Model::FromBuffer(m.Finish(), "typed.tflite");
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.value();
}

template <typename T>
std::vector<T> Values(const std::vector<uint8_t>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

TEST(ModelInputsTest, RandomInputsAreTflitesDraws) {
  auto interpreter = Interpreter::Create(TypedModel(), InterpreterOptions());
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().message();
  auto data = MakeInputData(InputSpec(), interpreter.value().get());
  ASSERT_TRUE(data.ok()) << data.status().message();
  ASSERT_EQ(data.value().size(), 6u);
  // One default-seeded mt19937 (outputs 3499211612, 581869302, 3890346734, 3586334585, 545404204,
  // 4161255391, ...) drawn through the inputs in order. Float32: -0.5 + x / 2^32.
  const std::vector<float> f = Values<float>(data.value()[0]);
  EXPECT_FLOAT_EQ(f[0], 0.31472367f);
  EXPECT_FLOAT_EQ(f[1], -0.36452299f);
  EXPECT_FLOAT_EQ(f[2], 0.40579194f);
  // int32 in [0, 99] from draws 4, 5, 6: floor(x * 100 / 2^32) = 83, 12, 96.
  EXPECT_EQ(Values<int32_t>(data.value()[1]), (std::vector<int32_t>{83, 12, 96}));
  for (uint8_t v : data.value()[2]) EXPECT_LE(v, 254);
  for (int8_t v : Values<int8_t>(data.value()[3])) {
    EXPECT_GE(v, -127);
    EXPECT_LE(v, 127);
  }
  // int16 without a range: zeros (TFLite's range for it is [0, 0]).
  EXPECT_EQ(Values<int16_t>(data.value()[4]), (std::vector<int16_t>{0, 0, 0}));
  for (uint8_t v : data.value()[5]) EXPECT_LE(v, 1);
  // Deterministic: the same again.
  auto again = MakeInputData(InputSpec(), interpreter.value().get());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), data.value());
}

TEST(ModelInputsTest, RangesApplyToEveryIntegerTypeIncludingInt16) {
  auto interpreter = Interpreter::Create(TypedModel(), InterpreterOptions());
  ASSERT_TRUE(interpreter.ok());
  auto spec = ParseInputSpec("", "", "i16,5,5:i32,7,7:u8,3,3:f32,2,2", "");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto data = MakeInputData(spec.value(), interpreter.value().get());
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(Values<float>(data.value()[0]), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(Values<int32_t>(data.value()[1]), (std::vector<int32_t>{7, 7, 7}));
  EXPECT_EQ(data.value()[2], (std::vector<uint8_t>{3, 3, 3}));
  EXPECT_EQ(Values<int16_t>(data.value()[4]), (std::vector<int16_t>{5, 5, 5}));
}

TEST(ModelInputsTest, FilesByTensorOrSignatureNameAndTheirErrors) {
  auto interpreter = Interpreter::Create(TypedModel(), InterpreterOptions());
  ASSERT_TRUE(interpreter.ok());
  const std::string dir = getenv("TEST_TMPDIR") != nullptr ? getenv("TEST_TMPDIR") : "/tmp";
  const std::string good = dir + "/f32.bin", bad = dir + "/short.bin";
  const float values[3] = {1.5f, -2.0f, 3.25f};
  std::ofstream(good, std::ios::binary).write(reinterpret_cast<const char*>(values), sizeof(values));
  std::ofstream(bad, std::ios::binary).write(reinterpret_cast<const char*>(values), 8);

  InputTarget target = PrimaryInputs(interpreter.value().get());
  target.aliases["x_float"] = interpreter.value()->inputs()[0];
  for (const std::string& name : {std::string("f32"), std::string("x_float")}) {
    auto spec = ParseInputSpec("", "", "", name + ":" + good);
    ASSERT_TRUE(spec.ok());
    auto data = MakeInputData(spec.value(), target);
    ASSERT_TRUE(data.ok()) << data.status().message();
    EXPECT_EQ(Values<float>(data.value()[0]), (std::vector<float>{1.5f, -2.0f, 3.25f}));
  }
  auto short_file = MakeInputData(ParseInputSpec("", "", "", "f32:" + bad).value(), target);
  EXPECT_EQ(short_file.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(short_file.status().message().find("has 8 bytes but input 'f32' needs 12"), std::string::npos)
      << short_file.status().message();
  auto missing = MakeInputData(ParseInputSpec("", "", "", "f32:" + dir + "/nope.bin").value(), target);
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidInput);
  auto unknown = MakeInputData(ParseInputSpec("", "", "", "zzz:" + good).value(), target);
  EXPECT_EQ(unknown.status().code(), StatusCode::kUsage);
  EXPECT_NE(unknown.status().message().find("no input named 'zzz'"), std::string::npos);
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

TEST(ModelInputsTest, ShapesResizeAndRankMustMatch) {
  auto interpreter = Interpreter::Create(TypedModel(), InterpreterOptions());
  ASSERT_TRUE(interpreter.ok());
  auto spec = ParseInputSpec("f32", "2,3", "", "");
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(ApplyInputShapes(spec.value(), interpreter.value().get()).ok());
  EXPECT_EQ(interpreter.value()->input_tensor(0)->dims->data[0], 2);
  auto rank = ParseInputSpec("f32", "1,3,1", "", "");
  Status status = ApplyInputShapes(rank.value(), interpreter.value().get());
  EXPECT_EQ(status.code(), StatusCode::kUsage);
  EXPECT_NE(status.message().find("has 2 dimensions"), std::string::npos) << status.message();
  auto unknown = ParseInputSpec("nope", "1,2", "", "");
  EXPECT_EQ(ApplyInputShapes(unknown.value(), interpreter.value().get()).code(), StatusCode::kUsage);
}

}  // namespace
}  // namespace touchstone
