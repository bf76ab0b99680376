#include "tools/common/tool_report.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(WarnIfMoreThreadsThanCpusTest, WarnsOnlyAboveTheCpus) {
  std::vector<std::string> warnings;
  WarnIfMoreThreadsThanCpus("num_threads", 1, &warnings);
  WarnIfMoreThreadsThanCpus("num_threads", -1, &warnings);  // the runtime's default
  EXPECT_TRUE(warnings.empty());
  WarnIfMoreThreadsThanCpus("num_threads", 4096, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("--num_threads=4096 is more threads than the ", 0), 0u) << warnings[0];
}

TEST(HeartbeatTest, AtMostOneLineEveryPeriod) {
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  ASSERT_NE(out, nullptr);
  Heartbeat heartbeat(out, 10.0);
  heartbeat.Beat("regular runs", 100, 1.0);    // too early
  heartbeat.Beat("regular runs", 4860, 10.0);  // due
  heartbeat.Beat("regular runs", 5000, 15.0);  // 5 s after the last
  heartbeat.Beat("regular runs", 9720, 20.5);  // due
  heartbeat.Reset();
  heartbeat.Beat("warm-up runs", 3, 2.0);  // a new loop starts the period again
  std::fclose(out);
  EXPECT_EQ(std::string(text, size), "regular runs: 4860 in 10.0 s\nregular runs: 9720 in 20.5 s\n");
  std::free(text);
}

TEST(ReadBaselineTextTest, MissingFileNamesFlagAndFile) {
  const StatusOr<std::string> missing = ReadBaselineText("/nonexistent/a.json");
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(missing.status().message(), "--baseline=/nonexistent/a.json: cannot read the file");
  const std::string path = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") + "/b.json";
  std::ofstream(path) << "{}";
  const StatusOr<std::string> read = ReadBaselineText(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.value(), "{}");
}

TEST(ReadReportTextTest, LargerThanTheLimitNamesItsSize) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") + "/c.json";
  std::ofstream(path) << "{\"a\": 1}";
  const StatusOr<std::string> large = ReadReportText(path, "c.json", 4, "any test report (4 bytes)");
  EXPECT_EQ(large.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(large.status().message(), "c.json: 8 bytes is larger than any test report (4 bytes)");
  ASSERT_TRUE(ReadReportText(path, "c.json", 8, "").ok());
}

TEST(ReadJsonReportTest, AnObjectOrAnErrorNamingTheFile) {
  const std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  std::ofstream(dir + "/report.json") << "{\"tool\": \"x\"}";
  std::ofstream(dir + "/list.json") << "[1, 2]";
  const StatusOr<nlohmann::json> report = ReadJsonReport(dir + "/report.json");
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report.value()["tool"], "x");
  EXPECT_EQ(ReadJsonReport(dir + "/list.json").status().message(), dir + "/list.json: not a JSON report");
  EXPECT_EQ(ReadJsonReport(dir + "/none.json").status().message(), dir + "/none.json: cannot read the file");
}

}  // namespace
}  // namespace touchstone
