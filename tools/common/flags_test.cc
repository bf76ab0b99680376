#include "tools/common/flags.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace {

TEST(FlagTableTest, ParsesTypesAndBareBooleans) {
  std::string graph;
  int32_t runs = 50;
  float secs = 1.0f;
  bool reference = false;
  FlagTable table;
  table.AddString("graph", &graph, "");
  table.AddInt("num_runs", &runs, "");
  table.AddFloat("min_secs", &secs, "");
  table.AddBool("use_reference_kernels", &reference, "");
  const char* argv[] = {"tool", "--graph=m.tflite", "--num_runs=3", "--min_secs=0.25", "--use_reference_kernels"};
  bool help = false;
  ASSERT_TRUE(table.Parse(5, argv, &help, nullptr).ok());
  EXPECT_EQ(graph, "m.tflite");
  EXPECT_EQ(runs, 3);
  EXPECT_FLOAT_EQ(secs, 0.25f);
  EXPECT_TRUE(reference);
}

TEST(FlagTableTest, UnknownFlagAndBadValueAreUsageErrors) {
  int32_t runs = 0;
  FlagTable table;
  table.AddInt("num_runs", &runs, "");
  bool help = false;
  const char* unknown[] = {"tool", "--num_rnus=3"};
  Status s = table.Parse(2, unknown, &help, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUsage);
  EXPECT_NE(s.message().find("--num_rnus"), std::string::npos);
  const char* bad[] = {"tool", "--num_runs=three"};
  EXPECT_EQ(table.Parse(2, bad, &help, nullptr).code(), StatusCode::kUsage);
}

TEST(FlagTableTest, IgnoredFlagsWarn) {
  FlagTable table;
  table.AddIgnored("use_nnapi", "no NNAPI on this platform");
  bool help = false;
  std::vector<std::string> warnings;
  const char* argv[] = {"tool", "--use_nnapi=true"};
  ASSERT_TRUE(table.Parse(2, argv, &help, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("use_nnapi"), std::string::npos);
}

TEST(FlagTableTest, PositionsFollowTheCommandLine) {
  bool a = false, b = false;
  std::string c;
  FlagTable table;
  table.AddGroup("Group one");
  table.AddBool("a", &a, "");
  table.AddBool("b", &b, "");
  table.AddString("c", &c, "");
  bool help = false;
  const char* argv[] = {"tool", "--b", "--c=x", "--a=false", "--b=true"};
  ASSERT_TRUE(table.Parse(5, argv, &help, nullptr).ok());
  EXPECT_EQ(table.Position("b"), 4);  // the last occurrence
  EXPECT_EQ(table.Position("c"), 2);
  EXPECT_EQ(table.Position("a"), 3);
  EXPECT_EQ(table.Position("d"), 0);
  const std::string usage = table.Usage("tool");
  EXPECT_NE(usage.find("Group one:\n  --a=false"), std::string::npos) << usage;
  const char* title[] = {"tool", "--=x"};  // a group has no name to match
  EXPECT_EQ(table.Parse(2, title, &help, nullptr).code(), StatusCode::kUsage);
}

}  // namespace
}  // namespace touchstone
