#include "evaluation/report_envelope.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

ReportEnvelope Sample() {
  ReportEnvelope e = NewEnvelope("benchmark_model", 2);
  e.touchstone_version = "v1.2-3-gabc";
  e.model = {"m.tflite", 1234, "3fa2c1b0e9d4aaaabbbbccccdddd"};
  e.config.num_threads = 1;
  e.config.kernels = "optimized";
  ReportedDelegate xnnpack;
  xnnpack.provider = "XNNPACK";
  xnnpack.applied = true;
  e.config.delegates.push_back(xnnpack);
  e.config.inputs.push_back({"x", "FLOAT32", {1, 224, 224, 3}, "random"});
  e.config.settings.emplace_back("signature", "serving_default");
  e.config.flags.emplace_back("graph", "m.tflite");
  return e;
}

TEST(ReportEnvelopeTest, RoundTripsThroughJson) {
  const ReportEnvelope e = Sample();
  const nlohmann::ordered_json j = EnvelopeJson(e);
  EXPECT_EQ(j["schema"], "touchstone.benchmark_model.report");
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["configuration"]["inputs"][0]["shape"].dump(), "[1,224,224,3]");
  EXPECT_EQ(j["start_time"].get<std::string>().size(), 20u);  // 2026-11-28T14:53:30Z
  const StatusOr<ReportEnvelope> back =
      ParseEnvelope(nlohmann::json::parse(j.dump()), "a.json", "touchstone.benchmark_model.report", 2);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(ConfigDifferences(e, back.value()).empty());
  EXPECT_EQ(back.value().touchstone_version, "v1.2-3-gabc");
  EXPECT_EQ(back.value().config.flags, e.config.flags);
}

TEST(ReportEnvelopeTest, RefusesOtherSchemasAndVersions) {
  const nlohmann::json j = nlohmann::json::parse(EnvelopeJson(Sample()).dump());
  const Status other = ParseEnvelope(j, "a.json", "touchstone.coco_eval.report", 2).status();
  EXPECT_EQ(other.code(), StatusCode::kInvalidInput);
  EXPECT_NE(other.message().find("a.json: \"schema\" is 'touchstone.benchmark_model.report'"), std::string::npos);
  const Status version = ParseEnvelope(j, "a.json", "touchstone.benchmark_model.report", 3).status();
  EXPECT_EQ(version.message(),
            "a.json: schema version 2 is not the one this build reads (3); make the baseline again with this build");
  EXPECT_EQ(ParseEnvelope(nlohmann::json::array(), "a.json", "x", 1).status().code(), StatusCode::kInvalidInput);
}

TEST(ReportEnvelopeTest, NamesEachDifferingField) {
  const ReportEnvelope baseline = Sample();
  ReportEnvelope current = Sample();
  EXPECT_TRUE(ConfigDifferences(baseline, current).empty());
  current.model.sha256 = "9b0e77a1c2f3ffff";
  current.config.num_threads = 2;
  current.config.kernels = "reference";
  current.config.delegates[0].options.emplace_back("xnnpack_force_fp16", "1");
  current.config.inputs[0].shape = {1, 160, 160, 3};
  current.config.settings[0].second = "other";
  current.config.flags.emplace_back("num_threads", "2");  // flags are recorded, not compared
  EXPECT_EQ(ConfigDifferences(baseline, current),
            (std::vector<std::string>{
                "model sha256 3fa2c1b0e9d4 -> 9b0e77a1c2f3", "num_threads 1 -> 2", "kernels optimized -> reference",
                "delegates XNNPACK -> XNNPACK (xnnpack_force_fp16=1)", "input 'x' shape [1,224,224,3] -> [1,160,160,3]",
                "signature serving_default -> other"}));
  current = Sample();
  current.config.delegates.clear();
  EXPECT_EQ(ConfigDifferences(baseline, current), (std::vector<std::string>{"delegates XNNPACK -> none"}));
}

TEST(ReportEnvelopeTest, CheckComparableRefusesOrNotes) {
  const ReportEnvelope baseline = Sample();
  ReportEnvelope current = Sample();
  std::string note;
  EXPECT_TRUE(CheckComparable(baseline, current, "a.json", false, &note).ok());
  EXPECT_EQ(note, "");
  current.config.num_threads = 2;
  const Status refused = CheckComparable(baseline, current, "a.json", false, &note);
  EXPECT_EQ(refused.code(), StatusCode::kUsage);
  EXPECT_EQ(refused.message(),
            "--baseline=a.json: the configuration differs from this run's: num_threads 1 -> 2 "
            "(--allow_config_change compares them anyway)");
  EXPECT_TRUE(CheckComparable(baseline, current, "a.json", true, &note).ok());
  EXPECT_EQ(note, "configuration changed: num_threads 1 -> 2");
}

TEST(LatencyStatsJsonTest, FineFiguresAndSamples) {
  LatencyStats stats;
  for (int64_t ns : {381, 412, 443}) stats.Add(LatencySample{0, ns});
  const nlohmann::ordered_json j = LatencyStatsJson(stats, true);
  EXPECT_EQ(j["count"], 3);
  EXPECT_DOUBLE_EQ(j["mean_us"].get<double>(), 0.412);
  EXPECT_DOUBLE_EQ(j["min_us"].get<double>(), 0.381);
  EXPECT_EQ(j["tflite"]["avg"], 0);
  EXPECT_TRUE(j["percentiles_exact"].get<bool>());
  EXPECT_EQ(j["samples"]["run_index"].dump(), "[0,1,2]");
  EXPECT_DOUBLE_EQ(j["samples"]["latency_us"][1].get<double>(), 0.412);
  EXPECT_TRUE(j["histogram"].is_null());
  EXPECT_FALSE(LatencyStatsJson(stats, false).contains("samples"));
}

TEST(ReportEnvelopeTest, ShardAndMergedRoundTripAndAShardIsAnotherConfiguration) {
  ReportEnvelope e = Sample();
  nlohmann::json plain = nlohmann::json::parse(EnvelopeJson(e).dump());
  EXPECT_FALSE(plain.contains("shard"));
  EXPECT_FALSE(plain.contains("merged"));
  ReportEnvelope shard = e;
  shard.shard = {2, 7, "images", 3, 4, 11};
  const nlohmann::json j = nlohmann::json::parse(EnvelopeJson(shard).dump());
  EXPECT_EQ(j["shard"].dump(), R"({"count":7,"end":4,"first":3,"index":2,"total":11,"unit":"images"})");
  StatusOr<ReportEnvelope> back = ParseEnvelope(j, "s.json", "touchstone.benchmark_model.report", 2);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value().shard.index, 2);
  EXPECT_EQ(back.value().shard.first, 3);
  EXPECT_EQ(back.value().machine.governor, e.machine.governor);
  const std::vector<std::string> d = ConfigDifferences(e, back.value());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "whole run -> shard 2 of 7");
  // A merged report stands for a whole run.
  ReportEnvelope merged = e;
  merged.merged.shards = 7;
  merged.merged.unit = "images";
  merged.merged.total = 11;
  merged.merged.hostnames = {"a", "b"};
  const nlohmann::json m = nlohmann::json::parse(EnvelopeJson(merged).dump());
  EXPECT_EQ(m["merged"]["hostnames"].size(), 2u);
  back = ParseEnvelope(m, "m.json", "touchstone.benchmark_model.report", 2);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value().merged.shards, 7);
  EXPECT_TRUE(ConfigDifferences(e, back.value()).empty());
  // An impossible shard is refused.
  nlohmann::json bad = j;
  bad["shard"]["index"] = 7;
  EXPECT_FALSE(ParseEnvelope(bad, "s.json", "touchstone.benchmark_model.report", 2).ok());
}

}  // namespace
}  // namespace touchstone
