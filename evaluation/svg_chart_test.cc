#include "evaluation/svg_chart.h"

#include <gtest/gtest.h>

namespace touchstone {
namespace svg {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgChartTest, EscapesAndNumbers) {
  EXPECT_EQ(Escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_EQ(Number(0), "0");
  EXPECT_EQ(Number(1234.5), "1234");
  EXPECT_EQ(Number(25000), "25k");
  EXPECT_EQ(Number(0.25), "0.25");
  EXPECT_EQ(Number(2e-7), "2e-07");
  EXPECT_EQ(Number(NAN), "-");
}

TEST(SvgChartTest, LineChartDrawsAPointPerDatumAndALegend) {
  Series a{"warm-up", "", {0, 1, 2}, {5, 4, 3}};
  a.point_class = "point warmup";
  Series b{"regular", "", {3, 4, 5, 6}, {1, 1, 2, NAN}};
  const std::string chart = LineChart("run-order", "Run <order>", {a, b}, {"run"}, {"us", true});
  EXPECT_EQ(chart.rfind("<svg class=\"chart\" data-chart=\"run-order\"", 0), 0u);
  EXPECT_NE(chart.find("<title>Run &lt;order&gt;</title>"), std::string::npos);
  EXPECT_EQ(Count(chart, "class=\"point warmup\""), 3);
  EXPECT_EQ(Count(chart, "class=\"point\""), 3);  // the NaN is left out
  EXPECT_EQ(Count(chart, "<polyline class=\"line\""), 2);
  EXPECT_EQ(Count(chart, "class=\"legend-key\""), 2);
  EXPECT_EQ(chart.substr(chart.size() - 6), "</svg>");
}

TEST(SvgChartTest, HistogramBarsBarChartRowsTimelineBlocks) {
  const std::string h = Histogram("h", "Latency", {0, 1, 2, 3}, {{4, 0, 2}}, {"runs"}, {}, {"us"}, {"runs"});
  EXPECT_EQ(Count(h, "class=\"bar\""), 2);  // an empty bin draws nothing
  const std::string b = BarChart("ops", "Ops", {{"CONV_2D", {3.0}, "", "bar"}, {"XNNPACK", {5.0}, "", "bar delegate"}},
                                 {"avg"}, {}, {"us"});
  EXPECT_EQ(Count(b, "class=\"bar\""), 1);
  EXPECT_EQ(Count(b, "class=\"bar delegate\""), 1);
  EXPECT_EQ(Count(b, "class=\"bar-label\""), 2);
  const std::string paired =
      BarChart("pair", "Pairs", {{"a", {1.0, 2.0}}, {"b", {NAN, 4.0}}}, {"base", "now"}, {}, {"x"});
  EXPECT_EQ(Count(paired, "class=\"bar\""), 3);
  Block conv{0, 0, 10, "CONV_2D"};
  Block del{0, 10, 30, "XNNPACK"};
  del.css_class = "block delegate";
  Block inner{1, 12, 5, "MUL"};
  const std::string t = Timeline("timeline", "One invoke", {"thread 0", "delegate ops"}, {conv, del, inner}, {"us"});
  EXPECT_EQ(Count(t, "<g class=\"block\">"), 2);
  EXPECT_EQ(Count(t, "<g class=\"block delegate\">"), 1);
  EXPECT_EQ(Count(t, "class=\"lane-label\""), 2);
}

}  // namespace
}  // namespace svg
}  // namespace touchstone
