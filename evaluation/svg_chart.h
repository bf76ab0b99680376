// Charts for the report pages (report_view), written as inline SVG: no library, nothing fetched at run
// time. Every chart is one <svg class="chart" data-chart="<id>"> holding a <title>, its axes (ticks and
// labels), a legend when it draws several series, and one element per datum whose class says what it is
// ("bar", "point", "line", "block"), each with a <title> for the mouse; a test counts them.
#ifndef TOUCHSTONE_EVALUATION_SVG_CHART_H_
#define TOUCHSTONE_EVALUATION_SVG_CHART_H_

#include <cmath>
#include <string>
#include <vector>

namespace touchstone {
namespace svg {

// Text for HTML and SVG: &, <, >, " and ' escaped.
std::string Escape(const std::string& text);
// A figure for a tick or a tip: at most four significant digits, "1.5k"-style above 10^4, exponent form
// below 10^-3 ("2e-07"), "0" for zero.
std::string Number(double value);

struct Axis {
  std::string label;
  bool log = false;  // base 10; values <= 0 are drawn at the axis' floor
  double min = NAN;  // NaN: from the data (0 for a linear axis whose data are all positive)
  double max = NAN;
};

// Points joined by a line and/or marked, in one colour.
struct Series {
  std::string name;
  std::string color;
  std::vector<double> x, y;
  bool line = true;
  bool points = true;
  std::string point_class = "point";  // e.g. "point warmup" to tell series apart in a test
  std::vector<std::string> tips;      // per point; empty: "x, y"
  bool dashed = false;
};

std::string LineChart(const std::string& id, const std::string& title, const std::vector<Series>& series, const Axis& x,
                      const Axis& y, int width = 760, int height = 320);

// Columns over [edges[i], edges[i+1]) (edges.size() == counts[s].size() + 1), one set per series,
// drawn side by side within each bin when there are several.
std::string Histogram(const std::string& id, const std::string& title, const std::vector<double>& edges,
                      const std::vector<std::vector<double>>& counts, const std::vector<std::string>& names,
                      const std::vector<std::string>& colors, const Axis& x, const Axis& y, int width = 760,
                      int height = 300);

// Horizontal bars, one row per label, top to bottom, one bar per series in each row.
struct BarRow {
  std::string label;
  std::vector<double> values;  // one per series; NaN: no bar
  std::string tip;
  std::string css_class = "bar";  // e.g. "bar delegate"
  std::string color;              // one series only: this row's colour instead of the series'
};
std::string BarChart(const std::string& id, const std::string& title, const std::vector<BarRow>& rows,
                     const std::vector<std::string>& names, const std::vector<std::string>& colors, const Axis& value,
                     int width = 760);

// Blocks on lanes against time: a lane per row, top to bottom.
struct Block {
  int lane = 0;
  double start = 0.0;
  double duration = 0.0;
  std::string label;  // written inside the block where it fits
  std::string color;
  std::string tip;
  std::string css_class = "block";  // e.g. "block delegate"
};
std::string Timeline(const std::string& id, const std::string& title, const std::vector<std::string>& lanes,
                     const std::vector<Block>& blocks, const Axis& time, int width = 960);

// Colours the pages use: series in order, and the meaning ones.
const std::vector<std::string>& Palette();
constexpr const char* kGood = "#2a9d4b";
constexpr const char* kBad = "#d1495b";
constexpr const char* kNeutral = "#4c78a8";
constexpr const char* kDelegate = "#e08a1e";

}  // namespace svg
}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_SVG_CHART_H_
