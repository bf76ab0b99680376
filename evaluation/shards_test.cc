#include "evaluation/shards.h"

#include <cmath>

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(ShardsTest, FlagsGoTogetherAndStayInRange) {
  EXPECT_FALSE(ShardSpecFromFlags(-1, 0).value().enabled());
  EXPECT_EQ(ShardSpecFromFlags(2, 0).status().code(), StatusCode::kUsage);
  EXPECT_EQ(ShardSpecFromFlags(-1, 3).status().code(), StatusCode::kUsage);
  EXPECT_EQ(ShardSpecFromFlags(3, 3).status().code(), StatusCode::kUsage);
  EXPECT_EQ(ShardSpecFromFlags(0, -2).status().code(), StatusCode::kUsage);
  EXPECT_NE(ShardSpecFromFlags(3, 3).status().message().find("[0, 2]"), std::string::npos);
  const ShardSpec spec = ShardSpecFromFlags(0, 1).value();
  EXPECT_TRUE(spec.enabled());
}

TEST(ShardsTest, PartsAreContiguousAndCoverTheWork) {
  for (int64_t total : {0, 1, 5, 11, 50000}) {
    for (int count : {1, 3, 7, 16}) {
      int64_t next = 0;
      for (int index = 0; index < count; ++index) {
        const ShardInfo part = ShardPart(ShardSpecFromFlags(index, count).value(), total, "images");
        EXPECT_EQ(part.first, next);
        EXPECT_GE(part.end, part.first);
        EXPECT_LE(part.end - part.first, total / count + 1);
        next = part.end;
      }
      EXPECT_EQ(next, total);
    }
  }
  const ShardInfo whole = ShardPart(ShardSpec(), 11, "images");
  EXPECT_FALSE(whole.present());
  EXPECT_EQ(whole.end, 11);
  // 11 images over 3 shards: [0, 3), [3, 7), [7, 11).
  EXPECT_EQ(ShardPart(ShardSpecFromFlags(1, 3).value(), 11, "images").first, 3);
  EXPECT_EQ(ShardPart(ShardSpecFromFlags(1, 3).value(), 11, "images").end, 7);
}

// A shard report of `count`, with latencies of its own.
ShardReport Shard(int index, int count, int64_t total, const std::vector<int64_t>& latencies_us) {
  ReportEnvelope e = NewEnvelope("imagenet_eval", 2);
  e.touchstone_version = "v1";
  e.model = {"m.tflite", 10, std::string(64, 'a')};
  e.config.settings = {{"images", std::to_string(total)}};
  e.shard = ShardPart(ShardSpecFromFlags(index, count).value(), total, "images");
  nlohmann::ordered_json j = EnvelopeJson(e);
  LatencyStats stats;
  for (int64_t v : latencies_us) stats.Add(v);
  j["latency"] = {{"inference", ShardLatencyJson(stats, true)}};
  ShardReport r;
  r.path = "shard" + std::to_string(index) + ".json";
  r.json = j;
  return r;
}

TEST(ShardsTest, ChecksASetOfShardReportsAndOrdersThem) {
  std::vector<ShardReport> reports = {Shard(2, 3, 11, {7}), Shard(0, 3, 11, {1, 2}), Shard(1, 3, 11, {4})};
  ASSERT_TRUE(CheckShardReports(2, &reports).ok());
  EXPECT_EQ(reports[0].path, "shard0.json");
  EXPECT_EQ(reports[2].envelope.shard.index, 2);
  const ReportEnvelope merged = MergedEnvelope(reports);
  EXPECT_FALSE(merged.shard.present());
  EXPECT_EQ(merged.merged.shards, 3);
  EXPECT_EQ(merged.merged.total, 11);
  StatusOr<LatencyStats> latency = MergedLatency(reports, "/latency/inference");
  ASSERT_TRUE(latency.ok()) << latency.status().message();
  EXPECT_EQ(latency.value().count(), 4);
  EXPECT_EQ(latency.value().samples_us(), (std::vector<int64_t>{1, 2, 4, 7}));
  EXPECT_EQ(latency.value().kept()[3].run, 3);

  // Missing, twice, another count, another configuration, not a shard, another tool.
  auto error_of = [](std::vector<ShardReport> set) {
    const Status s = CheckShardReports(2, &set);
    EXPECT_EQ(s.code(), s.ok() ? StatusCode::kOk : StatusCode::kInvalidInput);
    return s.message();
  };
  EXPECT_EQ(error_of({Shard(0, 3, 11, {1}), Shard(2, 3, 11, {1})}), "shard 1 of 3 is missing (given: 0, 2)");
  EXPECT_EQ(error_of({Shard(0, 2, 11, {1}), Shard(0, 2, 11, {1}), Shard(1, 2, 11, {1})}),
            "shard 0 of 2 is given twice: shard0.json and shard0.json");
  EXPECT_NE(
      error_of({Shard(0, 2, 11, {1}), Shard(1, 3, 11, {1})}).find("shard 1 of 3, but shard0.json is shard 0 of 2"),
      std::string::npos);
  ShardReport other = Shard(1, 2, 11, {1});
  other.json["configuration"]["num_threads"] = 4;
  other.json["configuration"]["settings"]["images"] = "12";
  EXPECT_EQ(error_of({Shard(0, 2, 11, {1}), other}),
            "shard1.json: the configuration differs from shard0.json's: num_threads 1 -> 4; images 11 -> 12 "
            "(shards of one run only)");
  ShardReport whole = Shard(1, 2, 11, {1});
  whole.json.erase("shard");
  EXPECT_NE(error_of({Shard(0, 2, 11, {1}), whole}).find("shard1.json: not a shard report"), std::string::npos);
  ShardReport coco = Shard(1, 2, 11, {1});
  coco.json["tool"] = "coco_eval";
  EXPECT_NE(error_of({Shard(0, 2, 11, {1}), coco}).find("a report of coco_eval"), std::string::npos);
  ShardReport stale = Shard(1, 2, 11, {1});
  stale.json["touchstone_version"] = "v0";
  EXPECT_NE(error_of({Shard(0, 2, 11, {1}), stale}).find("touchstone_version v1 -> v0"), std::string::npos);
  std::vector<ShardReport> none;
  EXPECT_EQ(CheckShardReports(2, &none).code(), StatusCode::kUsage);
}

TEST(ShardsTest, StateNumbersKeepInfinitiesAndNan) {
  double v = 0;
  for (double x : {1.5, -0.0, double(INFINITY), -double(INFINITY)}) {
    ASSERT_TRUE(ReadStateNumber(nlohmann::ordered_json::parse(StateNumber(x).dump()), &v));
    EXPECT_EQ(v, x);
  }
  ASSERT_TRUE(ReadStateNumber(nlohmann::ordered_json::parse(StateNumber(NAN).dump()), &v));
  EXPECT_TRUE(std::isnan(v));
  EXPECT_FALSE(ReadStateNumber(nlohmann::ordered_json("x"), &v));
}

TEST(ShardsTest, RefusesALatencyFigureWithoutState) {
  std::vector<ShardReport> reports = {Shard(0, 1, 3, {1})};
  ASSERT_TRUE(CheckShardReports(2, &reports).ok());
  reports[0].json["latency"]["inference"].erase("state");
  EXPECT_NE(
      MergedLatency(reports, "/latency/inference").status().message().find("shard0.json: latency/inference has no"),
      std::string::npos);
}

}  // namespace
}  // namespace touchstone
