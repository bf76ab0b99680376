// External plugins: option strings, loading the sample plugin, and each way loading can fail.
#include "delegates/external/external_delegate.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "runtime/c/builtin_ops.h"
#include "runtime/interpreter.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace {

std::string PluginPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/touchstone/delegates/sample/libsample_delegate_plugin.so";
}

TEST(ExternalDelegateOptionsTest, SplitsItemsAndKeepsColonsInValues) {
  StatusOr<ExternalDelegateOptions> o = ParseExternalDelegateOptions("a:1;b:x:y;c:;");
  ASSERT_TRUE(o.ok()) << o.status().message();
  ASSERT_EQ(o.value().size(), 3u);
  EXPECT_EQ(o.value()[0], std::make_pair(std::string("a"), std::string("1")));
  EXPECT_EQ(o.value()[1], std::make_pair(std::string("b"), std::string("x:y")));
  EXPECT_EQ(o.value()[2], std::make_pair(std::string("c"), std::string("")));
  EXPECT_TRUE(ParseExternalDelegateOptions("").ok());
  EXPECT_TRUE(ParseExternalDelegateOptions("").value().empty());
}

TEST(ExternalDelegateOptionsTest, BadItemsAreNamed) {
  for (const auto& c :
       {std::make_pair("a:1;oops;b:2", "'oops'"), std::make_pair(":1", "':1'"), std::make_pair("a:1;a:2", "'a'")}) {
    StatusOr<ExternalDelegateOptions> o = ParseExternalDelegateOptions(c.first);
    ASSERT_FALSE(o.ok()) << c.first;
    EXPECT_EQ(o.status().code(), StatusCode::kUsage);
    EXPECT_NE(o.status().message().find(c.second), std::string::npos) << o.status().message();
  }
}

TEST(ExternalDelegateTest, LoadsTheSamplePluginAndRunsIt) {
  StatusOr<TfLiteDelegatePtr> d = LoadExternalDelegate(PluginPath(), {{"min_nodes_per_partition", "1"}});
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_NE(d.value(), nullptr);
  testing::OpTest t;
  const int a = t.AddInput(kTfLiteFloat32, {4});
  const int b = t.AddInput(kTfLiteFloat32, {4});
  const int tmp = t.AddIntermediate(kTfLiteFloat32, {4});
  const int out = t.AddOutput(kTfLiteFloat32);
  t.AddOp(kTfLiteBuiltinAdd, {a, b}, {tmp}, fb::BuiltinOptions::AddOptions, fb::CreateAddOptions(t.fbb()).Union());
  t.AddOp(kTfLiteBuiltinSub, {tmp, b}, {out}, fb::BuiltinOptions::SubOptions, fb::CreateSubOptions(t.fbb()).Union());
  ASSERT_TRUE(t.Build().ok());
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(t.interpreter()->ModifyGraphWithDelegate(d.value().get()).ok());
  ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(t.interpreter()->primary()->fully_delegated());
  ASSERT_TRUE(t.AllocateTensors().ok());
  t.SetInput<float>(0, {1, 2, 3, 4});
  t.SetInput<float>(1, {0.5f, 0.25f, -1, 8});
  ASSERT_TRUE(t.Invoke().ok());
  EXPECT_EQ(t.GetOutput<float>(0), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ExternalDelegateTest, MissingFile) {
  StatusOr<TfLiteDelegatePtr> d = LoadExternalDelegate("/nonexistent/libnothing.so", {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(d.status().message().find("/nonexistent/libnothing.so: no such file"), std::string::npos)
      << d.status().message();
}

TEST(ExternalDelegateTest, NotASharedObject) {
  const std::string path =
      std::string(std::getenv("TEST_TMPDIR") != nullptr ? std::getenv("TEST_TMPDIR") : "/tmp") + "/not_a_plugin.so";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("hello", f);
  std::fclose(f);
  StatusOr<TfLiteDelegatePtr> d = LoadExternalDelegate(path, {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(d.status().message().find("cannot load"), std::string::npos) << d.status().message();
  EXPECT_EQ(d.status().message().find('\n'), std::string::npos);
}

TEST(ExternalDelegateTest, MissingSymbol) {
  StatusOr<TfLiteDelegatePtr> d = LoadExternalDelegate("libm.so.6", {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(d.status().message().find("does not export tflite_plugin_create_delegate"), std::string::npos)
      << d.status().message();
}

TEST(ExternalDelegateTest, NullDelegateCarriesThePluginsReport) {
  StatusOr<TfLiteDelegatePtr> d = LoadExternalDelegate(PluginPath(), {{"no_such_option", "1"}});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kExecution);
  EXPECT_NE(d.status().message().find("created no delegate"), std::string::npos) << d.status().message();
  EXPECT_NE(d.status().message().find("unknown option 'no_such_option'"), std::string::npos) << d.status().message();
}

TEST(ExternalDelegateTest, ProviderNeedsAPathForOptions) {
  DelegateProvider p = ExternalDelegateProvider();
  ProviderParams params = DefaultParams({p});
  StatusOr<TfLiteDelegatePtr> none = p.create(params);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none.value(), nullptr);
  params.SetString("external_delegate_options", "a:1");
  StatusOr<TfLiteDelegatePtr> d = p.create(params);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kUsage);
  params.SetString("external_delegate_path", PluginPath());
  params.SetString("external_delegate_options", "error_during_prepare:true;bad");
  d = p.create(params);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("'bad'"), std::string::npos);
}

}  // namespace
}  // namespace touchstone
