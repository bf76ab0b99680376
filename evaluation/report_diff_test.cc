#include "evaluation/report_diff.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

// The table's columns: widths in bytes as printf counts them, so a UTF-8 name takes its bytes' width.
TEST(ReportDiffTest, TableColumnsAreByteWide) {
  ReportDiff diff;
  diff.tool = "benchmark_model";
  diff.figures = {{"latency.regular.mean_us", 1234.5678, 1.5e-7, -1, "-100.00%", "IMPROVEMENT"},
                  {"outputs.\xc3\xa9t\xc3\xa9", 3, 3, 0, "same", "-"}};
  diff.ops = {{
                  "[t]:1",
                  "CONV_2D",
                  12.3456,
                  10.5,
              },
              {"[\xc3\xa9]:2", "\xc3\xa9TE", 1, 1.25}};
  diff.verdict = GateVerdict::kImprovement;
  EXPECT_EQ(FormatReportDiff(diff, "a.json", "b.json"),
            "report_diff: benchmark_model, baseline a.json, current b.json\n"
            "Configuration: the same\n"
            "figure                          baseline          current           change  verdict\n"
            "latency.regular.mean_us          1234.57          1.5e-07         -100.00%  IMPROVEMENT\n"
            "outputs.\xc3\xa9t\xc3\xa9                          3                3             same  -\n"
            "Per op, avg us per call (baseline, current, change), by the current run's time:\n"
            "  CONV_2D                    12.346       10.500    -14.95%  [t]:1\n"
            "  \xc3\xa9TE                        1.000        1.250    +25.00%  [\xc3\xa9]:2\n"
            "Verdict: IMPROVEMENT (exit code 0)\n");
}

// A minimal coco_eval report: the envelope and the two mAP figures.
nlohmann::json CocoReport(double ap, double map, double person_ap) {
  ReportEnvelope e{"touchstone.coco_eval.report", 2, "coco_eval"};
  e.start_time = "2026-11-28T00:00:00Z";
  nlohmann::json j = nlohmann::json::parse(EnvelopeJson(e).dump());
  j["coco"] = {{"AP", ap}, {"AR100", 0.5}};
  j["tflite"] = {{"overall_map", map}};
  j["num_detections"] = 10;
  j["latency"] = {{"inference", {{"mean_us", 1000.0}, {"count", 2}}}};
  j["per_class"] = {{{"class_id", 1}, {"name", "person"}, {"coco_ap", person_ap}, {"tflite_ap", nullptr}}};
  return j;
}

TEST(ReportDiffTest, EveryFigureWithItsChangeAndTheGate) {
  const nlohmann::json baseline = CocoReport(0.318, 0.25, 0.40);
  nlohmann::json current = CocoReport(0.312, 0.25, 0.38);
  current["latency"]["inference"]["mean_us"] = 1100.0;
  current["num_detections"] = 12;
  const StatusOr<ReportDiff> diff = DiffReports(baseline, current, ReportDiffConfig());
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  EXPECT_TRUE(diff.value().config_differences.empty());
  std::map<std::string, FigureDiff> by_path;
  for (const FigureDiff& f : diff.value().figures) by_path[f.path] = f;
  EXPECT_EQ(by_path.at("coco.AP").change, "-0.600 points");
  EXPECT_EQ(by_path.at("coco.AP").verdict, "REGRESSION");
  EXPECT_EQ(by_path.at("tflite.overall_map").change, "same");
  EXPECT_EQ(by_path.at("latency.inference.mean_us").change, "+10.00%");
  EXPECT_EQ(by_path.at("latency.inference.mean_us").verdict, "REGRESSION");  // lower is better, > 5%
  EXPECT_EQ(by_path.at("num_detections").verdict, "-");                      // no direction
  EXPECT_EQ(by_path.count("per_class[0].coco_ap"), 0u);                      // lists are not figures
  EXPECT_EQ(diff.value().verdict, GateVerdict::kRegression);
  const std::string text = FormatReportDiff(diff.value(), "a.json", "b.json");
  EXPECT_NE(text.find("Configuration: the same\n"), std::string::npos) << text;
  EXPECT_NE(text.find("dropped most: person 0.4000 -> 0.3800"), std::string::npos) << text;
  EXPECT_NE(text.find("\nVerdict: REGRESSION (exit code 1)\n"), std::string::npos) << text;
}

TEST(ReportDiffTest, RefusesTwoTools) {
  nlohmann::json other = CocoReport(0.3, 0.2, 0.1);
  other["tool"] = "imagenet_eval";
  EXPECT_EQ(DiffReports(CocoReport(0.3, 0.2, 0.1), other, ReportDiffConfig()).status().code(),
            StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace touchstone
