#include "evaluation/report_view.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

nlohmann::json Envelope(const std::string& tool) {
  return {{"schema", "touchstone." + tool + ".report"},
          {"schema_version", 2},
          {"tool", tool},
          {"touchstone_version", "v1"},
          {"start_time", "2026-11-28T00:00:00Z"},
          {"model", {{"path", "m.tflite"}, {"size_bytes", 10}, {"sha256", std::string(64, 'a')}}},
          {"machine", {{"cpu_model", "cpu"}, {"hostname", "<host>"}}},
          {"configuration",
           {{"num_threads", 1},
            {"kernels", "optimized"},
            {"delegates", nlohmann::json::array()},
            {"inputs", nlohmann::json::array()},
            {"settings", nlohmann::json::object()},
            {"flags", nlohmann::json::object()}}}};
}

nlohmann::json Latency(const std::vector<double>& us) {
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < us.size(); ++i) runs.push_back(i);
  return {{"count", us.size()},
          {"min_us", 1.0},
          {"max_us", 9.0},
          {"mean_us", 4.0},
          {"p99_us", 9.0},
          {"percentiles_exact", true},
          {"samples", {{"all_kept", true}, {"run_index", runs}, {"latency_us", us}}},
          {"histogram", nullptr}};
}

TEST(ReportViewTest, BenchmarkPageDrawsEveryChart) {
  nlohmann::json r = Envelope("benchmark_model");
  r["latency"] = {
      {"init_us", 100}, {"first_inference_us", 9.0}, {"warmup", Latency({9, 8})}, {"regular", Latency({1, 2, 3, 4})}};
  r["memory"] = {{"model_file_bytes", 1000}, {"arena_bytes", 2000}};
  r["op_profile"] = {
      {"runs", 4},
      {"subgraphs",
       {{{"index", 0},
         {"nodes",
          {{{"type", "CONV_2D"}, {"node_index", 0}, {"avg_us", 3.0}},
           {{"type", "XNNPACK"}, {"node_index", 1}, {"avg_us", 1.0}, {"delegate", true}}}}}}},
      {"timeline",
       {{"run", 3},
        {"events",
         {{{"type", "CONV_2D"}, {"start_us", 0}, {"duration_us", 3}, {"inside_of", -1}},
          {{"type", "XNNPACK"}, {"start_us", 3}, {"duration_us", 1}, {"delegate", true}, {"inside_of", -1}}}}}}};
  PageOptions options;
  options.report_name = "bench.json";
  StatusOr<std::string> page = ReportPage(r, options);
  ASSERT_TRUE(page.ok()) << page.status().message();
  const std::string& html = page.value();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* chart : {"latency-histogram", "run-order", "op-time", "timeline", "memory"}) {
    EXPECT_EQ(Count(html, std::string("data-chart=\"") + chart + "\""), 1) << chart;
  }
  EXPECT_EQ(Count(html, "class=\"point regular\""), 4);
  EXPECT_EQ(Count(html, "class=\"point warmup\""), 2);
  EXPECT_EQ(Count(html, "class=\"bar delegate\""), 1);
  EXPECT_EQ(Count(html, "<g class=\"block delegate\">"), 1);
  EXPECT_NE(html.find("&lt;host&gt;"), std::string::npos);  // escaped
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(ReportViewTest, OtherToolsAndErrors) {
  nlohmann::json d = Envelope("inference_diff");
  d["verdict"] = "PASS";
  d["outputs"] = {{{"index", 0},
                   {"name", "out"},
                   {"type", "float32"},
                   {"max_abs_error", 0.5},
                   {"error_histogram", {{"zero", 3}, {"log2", {-3, -1}}, {"count", {2, 5}}}}}};
  d["layerwise"] = nullptr;
  StatusOr<std::string> page = ReportPage(d, PageOptions());
  ASSERT_TRUE(page.ok());
  // -3 and -1 with the empty -2 between: three bins, two bars.
  EXPECT_EQ(Count(page.value(), "class=\"bar\""), 2);
  EXPECT_NE(page.value().find("--layerwise"), std::string::npos);

  nlohmann::json i = Envelope("imagenet_eval");
  i["topk_accuracy"] = {0.5, 0.75};
  i["per_class"] = {{{"label", "cat"}, {"images", 2}, {"top1_accuracy", 0.5}}};
  i["worst_misclassified"] = {{{"file", "nowhere.jpg"},
                               {"path", "/nowhere/nowhere.jpg"},
                               {"label", "cat"},
                               {"top1_label", "dog"},
                               {"top1_score", 0.9},
                               {"first_hit_rank", 2}}};
  page = ReportPage(i, PageOptions());
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(Count(page.value(), "class=\"point topk\""), 2);
  EXPECT_EQ(Count(page.value(), "<div class=\"missing\">"), 1);  // an image that cannot be read is a note

  nlohmann::json c = Envelope("coco_eval");
  c["coco"] = {{"AP", 0.5}};
  c["tflite"] = nullptr;
  c["pr_curves"] = {{"iou_thresholds", {0.5}}, {"recall", {0.0, 1.0}}, {"precision", {{1.0, 0.5}}}};
  c["per_class"] = {{{"name", "cat"}, {"coco_ap", 0.5}, {"tflite_ap", nullptr}}};
  c["examples"] = nlohmann::json::array();
  page = ReportPage(c, PageOptions());
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(Count(page.value(), "data-chart=\"pr-curves\""), 1);

  EXPECT_EQ(ReportPage(nlohmann::json::array(), PageOptions()).status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ReportPage(Envelope("other"), PageOptions()).status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ComparisonPage(d, i, PageOptions(), ReportDiffConfig()).status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace touchstone
