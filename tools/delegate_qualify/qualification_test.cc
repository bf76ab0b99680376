// delegate_qualify's work against the sample delegate: exact cases pass, a perturbed delegate fails the
// cases it takes and the failing model is localized to the perturbed node, a crashing delegate becomes
// CRASH items while the run goes on, and the report views hold what the text says.
#include "tools/delegate_qualify/qualification.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "delegates/external/external_delegate.h"
#include "delegates/stable/stable_delegate.h"

namespace touchstone {
namespace {

std::string SamplePath(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/touchstone/delegates/sample/" + name;
}

DelegateFactory Plugin(const ExternalDelegateOptions& options) {
  return [options]() -> StatusOr<std::vector<ProvidedDelegate>> {
    TS_ASSIGN_OR_RETURN(TfLiteDelegatePtr d, LoadExternalDelegate(SamplePath("libsample_delegate_plugin.so"), options));
    std::vector<ProvidedDelegate> delegates(1);
    delegates[0].provider = "EXTERNAL";
    delegates[0].delegate = std::move(d);
    return delegates;
  };
}

QualifyConfig Only(const std::string& id) {
  QualifyConfig config;
  config.only = id;
  config.latency = false;
  return config;
}

const QualifiedItem& Single(const QualificationReport& report) {
  return report.cases.empty() ? report.models.at(0) : report.cases.at(0);
}

TEST(LatencyVerdictTest, FollowsTheDelegatePerformanceBenchmarkWithAnInterval) {
  EXPECT_EQ(LatencyVerdict(0.8, 0.95, 5), "PASS");
  EXPECT_EQ(LatencyVerdict(0.98, 1.04, 5), "PASS_WITH_WARNING");
  EXPECT_EQ(LatencyVerdict(1.06, 1.2, 5), "FAIL");
  EXPECT_EQ(LatencyVerdict(1.0, 1.2, 5), "NOISY");
  EXPECT_EQ(CombineLatencyVerdicts({"PASS", "PASS_WITH_WARNING"}), "PASS_WITH_WARNING");
  EXPECT_EQ(CombineLatencyVerdicts({"NOISY", "FAIL"}), "FAIL");
  EXPECT_EQ(CombineLatencyVerdicts({"PASS", "PASS"}), "PASS");
}

TEST(QualificationTest, ExactDelegatePassesWhatItTakesAndDeclinesTheRest) {
  StatusOr<QualificationReport> r = RunQualification(Only("ADD/float32/broadcast_both"), Plugin({}), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Single(r.value()).verdict, ItemVerdict::kPass) << Single(r.value()).detail;
  EXPECT_EQ(Single(r.value()).delegated_nodes, 1);
  EXPECT_TRUE(r.value().passed);
  r = RunQualification(Only("CONV_2D/float32/3x3_stride_1_SAME"), Plugin({}), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Single(r.value()).verdict, ItemVerdict::kNotDelegated);
  EXPECT_FALSE(r.value().passed) << "nothing delegated is nothing qualified";
}

TEST(QualificationTest, StableSampleDelegatePasses) {
  DelegateFactory stable = []() -> StatusOr<std::vector<ProvidedDelegate>> {
    TS_ASSIGN_OR_RETURN(TfliteSettings s,
                        ParseTfliteSettingsJson("{\"stable_delegate_loader_settings\":{\"delegate_path\":\"" +
                                                    SamplePath("libsample_stable_delegate.so") + "\"}}",
                                                "test"));
    TS_ASSIGN_OR_RETURN(TfLiteDelegatePtr d, LoadStableDelegate(s, "test", nullptr));
    std::vector<ProvidedDelegate> delegates(1);
    delegates[0].provider = "STABLE_DELEGATE";
    delegates[0].delegate = std::move(d);
    return delegates;
  };
  StatusOr<QualificationReport> r = RunQualification(Only("SUB/float32/same_shape_RELU6"), stable, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Single(r.value()).verdict, ItemVerdict::kPass) << Single(r.value()).detail;
}

TEST(QualificationTest, PerturbedDelegateFailsWithFiguresAndTheModelIsLocalized) {
  StatusOr<QualificationReport> r =
      RunQualification(Only("ADD/float32/same_shape"), Plugin({{"perturb", "0.001"}}), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const QualifiedItem& item = Single(r.value());
  EXPECT_EQ(item.verdict, ItemVerdict::kFail);
  ASSERT_EQ(item.outputs.size(), 1u);
  EXPECT_NEAR(item.outputs[0].max_abs_error, 0.001, 1e-4);
  EXPECT_FALSE(item.outputs[0].breach.empty());
  EXPECT_NE(item.reproduce.find("--only=ADD/float32/same_shape"), std::string::npos);
  EXPECT_EQ(QualificationExitCode(r.value()), 1);

  // residual_block: CONV_2D (0), ADD (1), SUB (2), MUL (3); only the SUB is perturbed.
  r = RunQualification(Only("model:residual_block"), Plugin({{"perturb", "0.5"}, {"perturb_node", "2"}}), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const QualifiedItem& model = Single(r.value());
  EXPECT_EQ(model.verdict, ItemVerdict::kFail);
  EXPECT_EQ(model.nodes, 4);
  EXPECT_EQ(model.delegated_nodes, 2);
  EXPECT_EQ(model.divergent_node, 2) << model.localization;
  EXPECT_EQ(model.divergent_op, "SUB");
  ASSERT_EQ(model.cpu_nodes.size(), 2u);
  EXPECT_EQ(model.cpu_nodes[0].op, "CONV_2D");
  EXPECT_EQ(model.cpu_nodes[0].types, "in float32,float32,float32 -> out float32");
}

TEST(QualificationTest, CrashingDelegateFailsItsItemsAndTheRunGoesOn) {
  QualifyConfig config;
  config.conformance = false;
  config.latency = false;
  config.timeout_secs = 30;
  StatusOr<QualificationReport> r = RunQualification(config, Plugin({{"crash_during_invoke", "true"}}), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().models.size(), 2u);
  EXPECT_EQ(r.value().models[0].verdict, ItemVerdict::kNotDelegated);  // mobilenet_like: no ADD or SUB
  EXPECT_EQ(r.value().models[1].verdict, ItemVerdict::kCrash);
  EXPECT_NE(r.value().models[1].detail.find("SIGSEGV"), std::string::npos) << r.value().models[1].detail;
  EXPECT_EQ(r.value().crashes, 1);
  const std::string text = FormatQualification(r.value());
  EXPECT_NE(text.find("CRASH model:residual_block"), std::string::npos) << text;
  EXPECT_NE(text.find("Qualification: FAIL"), std::string::npos);
  const std::string html = QualificationHtml(r.value());
  EXPECT_NE(html.find("Verdict: FAIL"), std::string::npos);
  const std::string csv = QualificationCsv(r.value());
  EXPECT_NE(csv.find("model:residual_block,model,,,"), std::string::npos) << csv;
  const nlohmann::json j = nlohmann::json::parse(QualificationJson(r.value()));
  EXPECT_EQ(j["crashes"], 1);
  EXPECT_EQ(j["models"][1]["verdict"], "CRASH");
}

TEST(QualificationTest, UnknownOnlyIsAUsageError) {
  StatusOr<QualificationReport> r = RunQualification(Only("NOPE/float32/x"), Plugin({}), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
}

}  // namespace
}  // namespace touchstone
