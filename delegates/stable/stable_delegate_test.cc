// Stable delegates: the TFLiteSettings JSON, loading our two stable builds of the sample delegate (one
// opaque, one classic behind the stable entry point) and running them, and each way loading fails.
#include "delegates/stable/stable_delegate.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "delegates/stable/tflite_settings_generated.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/c/c_api_opaque.h"
#include "runtime/interpreter.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

std::string SamplePath(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/touchstone/delegates/sample/" + name;
}

std::string SettingsFor(const std::string& so) {
  return "{ \"stable_delegate_loader_settings\": { \"delegate_path\": \"" + so + "\" } }";
}

TEST(TfliteSettingsTest, ReadsTheLoaderPathAndTflitesFieldIds) {
  StatusOr<TfliteSettings> s = ParseTfliteSettingsJson(
      "{ \"delegate\": \"XNNPACK\", \"stable_delegate_loader_settings\": { \"delegate_path\": \"/x/libd.so\" },"
      "  \"xnnpack_settings\": { \"num_threads\": 5 } }",
      "test");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s.value().delegate_path, "/x/libd.so");
  const auto* root = static_cast<const tflite::TFLiteSettings*>(s.value().table());
  EXPECT_EQ(root->delegate(), tflite::Delegate::XNNPACK);
  ASSERT_NE(root->xnnpack_settings(), nullptr);
  EXPECT_EQ(root->xnnpack_settings()->num_threads(), 5);
  // TFLite's ids (facts file, section 4): vtable offset = 4 + 2 * id.
  EXPECT_EQ(tflite::TFLiteSettings::VT_STABLE_DELEGATE_LOADER_SETTINGS, 28);
  EXPECT_EQ(tflite::TFLiteSettings::VT_XNNPACK_SETTINGS, 12);
  EXPECT_EQ(tflite::TFLiteSettings::VT_COREML_SETTINGS, 14);
  EXPECT_EQ(tflite::TFLiteSettings::VT_ARMNN_SETTINGS, 34);
  EXPECT_EQ(tflite::StableDelegateLoaderSettings::VT_DELEGATE_NAME, 6);
  EXPECT_EQ(tflite::XNNPackSettings::VT_FLAGS, 6);
}

TEST(TfliteSettingsTest, EmptyObjectIsATable) {
  StatusOr<TfliteSettings> s = ParseTfliteSettingsJson("{}", "test");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s.value().delegate_path, "");
  EXPECT_NE(s.value().table(), nullptr);
}

TEST(TfliteSettingsTest, BadJsonAndUnknownFieldsAreInputErrors) {
  for (const char* json : {"{ \"stable_delegate_loader_settings\": ", "{ \"no_such_field\": 1 }",
                           "{ \"delegate\": \"NOT_A_DELEGATE\" }"}) {
    StatusOr<TfliteSettings> s = ParseTfliteSettingsJson(json, "settings.json");
    ASSERT_FALSE(s.ok()) << json;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(s.status().message().find("settings.json: not a TFLiteSettings JSON"), std::string::npos)
        << s.status().message();
    EXPECT_EQ(s.status().message().find('\n'), std::string::npos);
  }
}

TEST(TfliteSettingsTest, UnreadableFile) {
  StatusOr<TfliteSettings> s = ReadTfliteSettingsFile("/nonexistent/settings.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.status().message().find("--stable_delegate_settings_file=/nonexistent/settings.json"), std::string::npos);
}

// ADD(a, b) -> tmp, SUB(tmp, b) -> out: both delegated, one partition.
void RunAddSub(TfLiteDelegate* delegate, bool expect_fully_delegated) {
  testing::OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {4});
  const int b = t.AddInput(kTfLiteFloat32, {4});
  const int tmp = t.AddIntermediate(kTfLiteFloat32, {4});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {tmp}, fb::BuiltinOptions::AddOptions,
          fb::CreateAddOptions(t.fbb(), fb::ActivationFunctionType::RELU).Union());
  t.AddOp(kTfLiteBuiltinSub, {tmp, b}, {out}, fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(t.fbb()).Union());
  ASSERT_TRUE(t.Build().ok());
  ::testing::internal::CaptureStderr();
  Status applied = t.interpreter()->ModifyGraphWithDelegate(delegate);
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(applied.ok()) << applied.message();
  EXPECT_EQ(t.interpreter()->primary()->fully_delegated(), expect_fully_delegated) << log;
  ASSERT_TRUE(t.AllocateTensors().ok());
  t.SetInput<float>(0, {1, 2, -3, 4});
  t.SetInput<float>(1, {0.5f, 0.25f, -1, 8});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 2, 1, 4}));
}

TEST(StableDelegateTest, OpaqueSampleLoadsAndRunsTheWholeGraph) {
  StatusOr<TfliteSettings> s = ParseTfliteSettingsJson(SettingsFor(SamplePath("libsample_stable_delegate.so")), "test");
  ASSERT_TRUE(s.ok()) << s.status().message();
  StableDelegateInfo info;
  StatusOr<TfLiteDelegatePtr> d = LoadStableDelegate(s.value(), "test", &info);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(info.abi_version, "1.0.0");
  EXPECT_EQ(info.name, "touchstone_sample_stable_delegate");
  // An opaque delegate, as TFLite tells them apart.
  EXPECT_EQ(d.value()->Prepare, nullptr);
  ASSERT_NE(d.value()->opaque_delegate_builder, nullptr);
  RunAddSub(d.value().get(), true);
}

TEST(StableDelegateTest, ClassicDelegateBehindTheStableEntryPoint) {
  StatusOr<TfliteSettings> s =
      ParseTfliteSettingsJson(SettingsFor(SamplePath("libsample_classic_stable_delegate.so")), "test");
  ASSERT_TRUE(s.ok()) << s.status().message();
  StatusOr<TfLiteDelegatePtr> d = LoadStableDelegate(s.value(), "test", nullptr);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_NE(d.value()->Prepare, nullptr);
  RunAddSub(d.value().get(), true);
}

TEST(StableDelegateTest, OpaqueSampleLeavesUnsupportedNodesOnTheCpu) {
  StatusOr<TfliteSettings> s = ParseTfliteSettingsJson(SettingsFor(SamplePath("libsample_stable_delegate.so")), "test");
  ASSERT_TRUE(s.ok());
  StatusOr<TfLiteDelegatePtr> d = LoadStableDelegate(s.value(), "test", nullptr);
  ASSERT_TRUE(d.ok()) << d.status().message();
  testing::OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {2, 2});
  const int b = t.AddInput(kTfLiteFloat32, {2});
  const int tmp = t.AddIntermediate(kTfLiteFloat32, {2, 2});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {tmp}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union());
  t.AddOp(kTfLiteBuiltinMul, {tmp, a}, {out}, fb::BuiltinOptions::MulOptions, fb::CreateMulOptions(t.fbb()).Union());
  ASSERT_TRUE(t.Build().ok());
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(t.interpreter()->ModifyGraphWithDelegate(d.value().get()).ok());
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(t.interpreter()->primary()->delegated_node_count(), 1);
  EXPECT_FALSE(t.interpreter()->primary()->fully_delegated());
  ASSERT_TRUE(t.AllocateTensors().ok());
  t.SetInput<float>(0, {1, 2, 3, 4});
  t.SetInput<float>(1, {10, 20});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{11, 44, 39, 96}));
}

// What an opaque delegate reads of each node through the opaque API: the host's TfLiteRegistrationExternal
// (never NULL, or TFLite's opaque code would read impl_ as its Subgraph) with the builtin code and the
// model's op version.
std::vector<std::pair<int, int>> g_seen;  // (builtin code, version) per plan node
TfLiteStatus RecordingPrepare(TfLiteOpaqueContext* context, TfLiteOpaqueDelegate*, void*) {
  TfLiteIntArray* plan = nullptr;
  if (TfLiteOpaqueContextGetExecutionPlan(context, &plan) != kTfLiteOk) return kTfLiteError;
  for (int i = 0; i < plan->size; ++i) {
    TfLiteOpaqueNode* node = nullptr;
    TfLiteRegistrationExternal* reg = nullptr;
    if (TfLiteOpaqueContextGetNodeAndRegistration(context, plan->data[i], &node, &reg) != kTfLiteOk) {
      return kTfLiteError;
    }
    g_seen.emplace_back(TfLiteRegistrationExternalGetBuiltInCode(reg), TfLiteRegistrationExternalGetVersion(reg));
  }
  return kTfLiteOk;
}

TEST(OpaqueHostTest, EveryRegistrationCarriesAnExternalOneWithTheModelsVersion) {
  testing::OpTest t;
  const int a = t.AddInput(kTfLiteInt8, {4});
  const int b = t.AddInput(kTfLiteInt8, {4});
  t.builder().SetQuantization(a, {0.5f}, {0});
  t.builder().SetQuantization(b, {0.5f}, {0});
  const int out = t.AddOutput(kTfLiteInt8, {4});
  t.builder().SetQuantization(out, {1.0f}, {0});
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {out}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union(), 2);
  ASSERT_TRUE(t.Build().ok());
  TfLiteOpaqueDelegateBuilder builder{};
  builder.Prepare = RecordingPrepare;
  TfLiteOpaqueDelegate* delegate = TfLiteOpaqueDelegateCreate(&builder);
  g_seen.clear();
  Status applied = t.interpreter()->ModifyGraphWithDelegate(reinterpret_cast<TfLiteDelegate*>(delegate));
  EXPECT_TRUE(applied.ok()) << applied.message();
  EXPECT_EQ(g_seen, (std::vector<std::pair<int, int>>{{kTfLiteBuiltinAdd, 2}}));
  TfLiteOpaqueDelegateDelete(delegate);
}

TEST(StableDelegateTest, MissingPathIsAnInputError) {
  StatusOr<TfLiteDelegatePtr> d = LoadStableDelegate(ParseTfliteSettingsJson("{}", "t").value(), "s.json", nullptr);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(d.status().message().find("delegate_path is missing"), std::string::npos);
}

TEST(StableDelegateTest, ObjectThatDoesNotLoadIsAnExecutionError) {
  StatusOr<TfLiteDelegatePtr> d =
      LoadStableDelegate(ParseTfliteSettingsJson(SettingsFor("/nonexistent/lib.so"), "t").value(), "s.json", nullptr);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kExecution);
  EXPECT_NE(d.status().message().find("does not load"), std::string::npos) << d.status().message();
}

TEST(StableDelegateTest, ObjectWithoutTheSymbolIsRefused) {
  StatusOr<TfLiteDelegatePtr> d = LoadStableDelegate(
      ParseTfliteSettingsJson(SettingsFor(SamplePath("libsample_delegate_plugin.so")), "t").value(), "s.json", nullptr);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kExecution);
  EXPECT_NE(d.status().message().find("does not export TFL_TheStableDelegate"), std::string::npos)
      << d.status().message();
}

}  // namespace
}  // namespace touchstone
