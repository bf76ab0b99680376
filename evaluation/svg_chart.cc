#include "evaluation/svg_chart.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include <fmt/format.h>

namespace touchstone {
namespace svg {
namespace {

constexpr int kTop = 38;     // title and a line of legend
constexpr int kBottom = 46;  // x ticks and label
constexpr int kLeft = 64;    // y ticks and label
constexpr int kRight = 16;
constexpr double kLogFloorDecades = 12;  // a log axis spans at most this many decades

std::string Px(double v) { return fmt::format("{:.1f}", v); }

// A mapping of data onto pixels along one axis.
struct Scale {
  double lo = 0, hi = 1;    // data (log10 of it on a log axis)
  double from = 0, to = 1;  // pixels
  bool log = false;
  double Map(double v) const {
    double d = v;
    if (log) d = v > 0 ? std::log10(v) : lo;
    d = std::min(std::max(d, lo), hi);
    return from + (d - lo) / (hi - lo) * (to - from);
  }
};

// The data range of an axis: explicit bounds where given; a linear axis of positive data starts at 0.
Scale MakeScale(const Axis& axis, const std::vector<double>& values, double from, double to) {
  Scale s;
  s.log = axis.log;
  s.from = from;
  s.to = to;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values) {
    if (!std::isfinite(v) || (axis.log && v <= 0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!std::isnan(axis.min)) lo = axis.min;
  if (!std::isnan(axis.max)) hi = axis.max;
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = axis.log ? 1 : 0;
    hi = axis.log ? 10 : 1;
  }
  if (axis.log) {
    lo = std::floor(std::log10(lo));
    hi = std::ceil(std::log10(hi));
    if (hi <= lo) hi = lo + 1;
    lo = std::max(lo, hi - kLogFloorDecades);
  } else {
    if (std::isnan(axis.min) && lo > 0) lo = 0;
    if (hi <= lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.1);
  }
  s.lo = lo;
  s.hi = hi;
  return s;
}

// Tick values: powers of ten on a log axis, else about five steps of 1, 2 or 5 x 10^k.
std::vector<double> Ticks(const Scale& s) {
  std::vector<double> ticks;
  if (s.log) {
    const int step = std::max(1, static_cast<int>(std::ceil((s.hi - s.lo) / 6)));
    for (double e = s.lo; e <= s.hi + 1e-9; e += step) ticks.push_back(std::pow(10.0, e));
    return ticks;
  }
  const double raw = (s.hi - s.lo) / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  }
  for (double t = std::ceil(s.lo / step) * step; t <= s.hi + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::string Open(const std::string& id, const std::string& title, int width, int height) {
  std::ostringstream out;
  out << "<svg class=\"chart\" data-chart=\"" << Escape(id) << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
      << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\">"
      << "<title>" << Escape(title) << "</title>"
      << "<text class=\"chart-title\" x=\"" << width / 2 << "\" y=\"17\" text-anchor=\"middle\">" << Escape(title)
      << "</text>";
  return out.str();
}

// The x axis along the bottom of the plot area and the y axis along its left, with ticks and labels.
std::string Axes(const Scale& x, const Scale& y, const Axis& xa, const Axis& ya, int width, int height, bool x_ticks) {
  std::ostringstream out;
  const double x0 = x.from, x1 = x.to, y0 = y.from, y1 = y.to;  // y0 bottom, y1 top
  out << "<g class=\"axes\">";
  out << "<line class=\"axis\" x1=\"" << Px(x0) << "\" y1=\"" << Px(y0) << "\" x2=\"" << Px(x1) << "\" y2=\"" << Px(y0)
      << "\"/>";
  out << "<line class=\"axis\" x1=\"" << Px(x0) << "\" y1=\"" << Px(y0) << "\" x2=\"" << Px(x0) << "\" y2=\"" << Px(y1)
      << "\"/>";
  if (x_ticks) {
    for (double t : Ticks(x)) {
      const double px = x.Map(t);
      out << "<line class=\"tick\" x1=\"" << Px(px) << "\" y1=\"" << Px(y0) << "\" x2=\"" << Px(px) << "\" y2=\""
          << Px(y0 + 4) << "\"/><text class=\"tick-label\" x=\"" << Px(px) << "\" y=\"" << Px(y0 + 16)
          << "\" text-anchor=\"middle\">" << Number(t) << "</text>";
    }
  }
  for (double t : Ticks(y)) {
    const double py = y.Map(t);
    out << "<line class=\"grid\" x1=\"" << Px(x0) << "\" y1=\"" << Px(py) << "\" x2=\"" << Px(x1) << "\" y2=\""
        << Px(py) << "\"/><text class=\"tick-label\" x=\"" << Px(x0 - 6) << "\" y=\"" << Px(py + 4)
        << "\" text-anchor=\"end\">" << Number(t) << "</text>";
  }
  out << "<text class=\"axis-label\" x=\"" << Px((x0 + x1) / 2) << "\" y=\"" << height - 8
      << "\" text-anchor=\"middle\">" << Escape(xa.label) << "</text>";
  out << "<text class=\"axis-label\" transform=\"translate(14," << Px((y0 + y1) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">" << Escape(ya.label) << "</text>";
  out << "</g>";
  (void)width;
  return out.str();
}

double LegendWidth(const std::string& name) { return 18 + 6.5 * static_cast<double>(name.size()); }

// Lines the legend needs at this width (0 for one series).
int LegendLines(const std::vector<std::string>& names, int width) {
  if (names.size() < 2) return 0;
  int lines = 1;
  double x = kLeft;
  for (const std::string& n : names) {
    if (x + LegendWidth(n) > width - kRight && x > kLeft) {
      ++lines;
      x = kLeft;
    }
    x += LegendWidth(n);
  }
  return lines;
}

// Keys left to right under the title, wrapping at the chart's width.
std::string Legend(const std::vector<std::string>& names, const std::vector<std::string>& colors, int width) {
  if (names.size() < 2) return "";
  std::ostringstream out;
  out << "<g class=\"legend\">";
  double x = kLeft, y = 24;
  for (size_t i = 0; i < names.size(); ++i) {
    if (x + LegendWidth(names[i]) > width - kRight && x > kLeft) {
      x = kLeft;
      y += 14;
    }
    out << "<rect class=\"legend-key\" x=\"" << Px(x) << "\" y=\"" << Px(y) << "\" width=\"10\" height=\"10\" fill=\""
        << Escape(colors[i % colors.size()]) << "\"/><text class=\"legend-label\" x=\"" << Px(x + 13) << "\" y=\""
        << Px(y + 9) << "\">" << Escape(names[i]) << "</text>";
    x += LegendWidth(names[i]);
  }
  out << "</g>";
  return out.str();
}

// The start of a chart with axes over `xs` and `ys` and a legend of `legend_names`: grows *height by the
// legend's extra lines, sets the two scales and writes the opening and the axes.
void OpenWithAxes(const std::string& id, const std::string& title, const Axis& x, const std::vector<double>& xs,
                  const Axis& y, const std::vector<double>& ys, const std::vector<std::string>& legend_names, int width,
                  int* height, Scale* sx, Scale* sy, std::ostringstream* out) {
  const int extra_legend_lines = std::max(0, LegendLines(legend_names, width) - 1);
  *height += 14 * extra_legend_lines;
  *sx = MakeScale(x, xs, kLeft, width - kRight);
  *sy = MakeScale(y, ys, *height - kBottom, kTop + 8 + 14 * extra_legend_lines);
  *out << Open(id, title, width, *height) << Axes(*sx, *sy, x, y, width, *height, true);
}

}  // namespace

std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Number(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e4 && a < 1e7) return fmt::format("{:.4g}k", v / 1e3);
  if (a >= 1e7 || a < 1e-3) return fmt::format("{:.2g}", v);
  return fmt::format("{:.4g}", v);
}

const std::vector<std::string>& Palette() {
  static const std::vector<std::string> colors = {"#4c78a8", "#e08a1e", "#2a9d4b", "#d1495b", "#7b5ea7",
                                                  "#9c755f", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  return colors;
}

std::string LineChart(const std::string& id, const std::string& title, const std::vector<Series>& series, const Axis& x,
                      const Axis& y, int width, int height) {
  std::vector<double> xs, ys;
  for (const Series& s : series) {
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  Axis xa = x;
  if (std::isnan(xa.min) && !xa.log) {
    double lo = std::numeric_limits<double>::infinity();
    for (double v : xs) lo = std::isfinite(v) ? std::min(lo, v) : lo;
    if (std::isfinite(lo)) xa.min = lo;  // an x axis starts at the data
  }
  std::vector<std::string> legend_names;
  for (const Series& s : series) legend_names.push_back(s.name);
  std::ostringstream out;
  Scale sx, sy;
  OpenWithAxes(id, title, xa, xs, y, ys, legend_names, width, &height, &sx, &sy, &out);
  std::vector<std::string> names, colors;
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const std::string color = s.color.empty() ? Palette()[i % Palette().size()] : s.color;
    names.push_back(s.name);
    colors.push_back(color);
    out << "<g class=\"series\" data-series=\"" << Escape(s.name) << "\">";
    if (s.line && s.x.size() > 1) {
      out << "<polyline class=\"line\" fill=\"none\" stroke=\"" << Escape(color) << "\" stroke-width=\"1.6\""
          << (s.dashed ? " stroke-dasharray=\"5,3\"" : "") << " points=\"";
      for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
        if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k])) continue;
        out << Px(sx.Map(s.x[k])) << "," << Px(sy.Map(s.y[k])) << " ";
      }
      out << "\"><title>" << Escape(s.name) << "</title></polyline>";
    }
    if (s.points) {
      const double r = s.x.size() > 2000 ? 1.2 : s.x.size() > 300 ? 1.8 : 3.0;
      for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
        if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k])) continue;
        out << "<circle class=\"" << Escape(s.point_class) << "\" cx=\"" << Px(sx.Map(s.x[k])) << "\" cy=\""
            << Px(sy.Map(s.y[k])) << "\" r=\"" << r << "\" fill=\"" << Escape(color) << "\"><title>"
            << Escape(k < s.tips.size() ? s.tips[k] : s.name + ": " + Number(s.x[k]) + ", " + Number(s.y[k]))
            << "</title></circle>";
      }
    }
    out << "</g>";
  }
  out << Legend(names, colors, width) << "</svg>";
  return out.str();
}

std::string Histogram(const std::string& id, const std::string& title, const std::vector<double>& edges,
                      const std::vector<std::vector<double>>& counts, const std::vector<std::string>& names,
                      const std::vector<std::string>& colors, const Axis& x, const Axis& y, int width, int height) {
  std::vector<double> ys = {0.0};
  for (const std::vector<double>& c : counts) ys.insert(ys.end(), c.begin(), c.end());
  Axis xa = x;
  if (!edges.empty()) {
    if (std::isnan(xa.min)) xa.min = edges.front();
    if (std::isnan(xa.max)) xa.max = edges.back();
  }
  std::ostringstream out;
  Scale sx, sy;
  OpenWithAxes(id, title, xa, edges, y, ys, names, width, &height, &sx, &sy, &out);
  const size_t n = std::max<size_t>(1, counts.size());
  for (size_t s = 0; s < counts.size(); ++s) {
    const std::string color = s < colors.size() ? colors[s] : Palette()[s % Palette().size()];
    out << "<g class=\"series\" data-series=\"" << Escape(s < names.size() ? names[s] : "") << "\">";
    for (size_t b = 0; b + 1 < edges.size() && b < counts[s].size(); ++b) {
      if (counts[s][b] <= 0) continue;
      const double left = sx.Map(edges[b]), right = sx.Map(edges[b + 1]);
      const double w = std::max(1.0, (right - left) / static_cast<double>(n) - (right - left > 6 ? 1 : 0));
      const double bx = left + w * static_cast<double>(s);
      const double top = sy.Map(counts[s][b]);
      out << "<rect class=\"bar\" x=\"" << Px(bx) << "\" y=\"" << Px(top) << "\" width=\"" << Px(w) << "\" height=\""
          << Px(sy.from - top) << "\" fill=\"" << Escape(color) << "\"><title>"
          << Escape((s < names.size() && counts.size() > 1 ? names[s] + ": " : "") + "[" + Number(edges[b]) + ", " +
                    Number(edges[b + 1]) + "): " + Number(counts[s][b]))
          << "</title></rect>";
    }
    out << "</g>";
  }
  std::vector<std::string> legend_colors = colors;
  if (legend_colors.empty()) legend_colors = Palette();
  out << Legend(names, legend_colors, width) << "</svg>";
  return out.str();
}

std::string BarChart(const std::string& id, const std::string& title, const std::vector<BarRow>& rows,
                     const std::vector<std::string>& names, const std::vector<std::string>& colors, const Axis& value,
                     int width) {
  const size_t n = std::max<size_t>(1, names.size());
  const int row_height = n > 1 ? 8 + 9 * static_cast<int>(n) : 18;
  const int left = 240;
  const int height = kTop + 12 + row_height * static_cast<int>(rows.size()) + kBottom;
  std::vector<double> values = {0.0};
  for (const BarRow& r : rows) values.insert(values.end(), r.values.begin(), r.values.end());
  const Scale sx = MakeScale(value, values, left, width - kRight - 60);
  Scale sy;
  sy.from = height - kBottom;
  sy.to = kTop + 12;
  std::ostringstream out;
  out << Open(id, title, width, height);
  out << "<g class=\"axes\"><line class=\"axis\" x1=\"" << left << "\" y1=\"" << sy.to << "\" x2=\"" << left
      << "\" y2=\"" << Px(sy.from) << "\"/><line class=\"axis\" x1=\"" << left << "\" y1=\"" << Px(sy.from)
      << "\" x2=\"" << Px(sx.to) << "\" y2=\"" << Px(sy.from) << "\"/>";
  for (double t : Ticks(sx)) {
    const double px = sx.Map(t);
    out << "<line class=\"grid\" x1=\"" << Px(px) << "\" y1=\"" << sy.to << "\" x2=\"" << Px(px) << "\" y2=\""
        << Px(sy.from) << "\"/><text class=\"tick-label\" x=\"" << Px(px) << "\" y=\"" << Px(sy.from + 16)
        << "\" text-anchor=\"middle\">" << Number(t) << "</text>";
  }
  out << "<text class=\"axis-label\" x=\"" << Px((left + sx.to) / 2) << "\" y=\"" << height - 8
      << "\" text-anchor=\"middle\">" << Escape(value.label) << "</text></g>";
  for (size_t r = 0; r < rows.size(); ++r) {
    const BarRow& row = rows[r];
    const double y = kTop + 12 + row_height * static_cast<double>(r);
    std::string label = row.label;
    if (label.size() > 36) label = label.substr(0, 17) + "..." + label.substr(label.size() - 16);
    out << "<text class=\"bar-label\" x=\"" << left - 6 << "\" y=\"" << Px(y + row_height / 2.0 + 4)
        << "\" text-anchor=\"end\"><title>" << Escape(row.label) << "</title>" << Escape(label) << "</text>";
    for (size_t s = 0; s < row.values.size(); ++s) {
      const double v = row.values[s];
      if (!std::isfinite(v)) continue;
      const std::string color = n == 1 && !row.color.empty() ? row.color
                                : s < colors.size()          ? colors[s]
                                                             : Palette()[s % Palette().size()];
      const double h = n > 1 ? 8.0 : row_height - 4.0;
      const double by = y + 2 + (n > 1 ? 9.0 * static_cast<double>(s) : 0.0);
      const double w = std::max(0.5, sx.Map(v) - sx.Map(value.log ? std::pow(10.0, sx.lo) : 0.0));
      out << "<rect class=\"" << Escape(row.css_class) << "\" x=\"" << left << "\" y=\"" << Px(by) << "\" width=\""
          << Px(w) << "\" height=\"" << Px(h) << "\" fill=\"" << Escape(color) << "\"><title>"
          << Escape((n > 1 && s < names.size() ? names[s] + ": " : "") + row.label + ": " + Number(v) +
                    (row.tip.empty() ? "" : " (" + row.tip + ")"))
          << "</title></rect>";
      if (n == 1) {
        out << "<text class=\"bar-value\" x=\"" << Px(left + w + 4) << "\" y=\"" << Px(by + h - 3) << "\">" << Number(v)
            << "</text>";
      }
    }
  }
  out << Legend(names, colors.empty() ? Palette() : colors, width) << "</svg>";
  return out.str();
}

std::string Timeline(const std::string& id, const std::string& title, const std::vector<std::string>& lanes,
                     const std::vector<Block>& blocks, const Axis& time, int width) {
  const int lane_height = 30;
  const int left = 170;
  const int height = kTop + 12 + lane_height * static_cast<int>(std::max<size_t>(1, lanes.size())) + kBottom;
  std::vector<double> ends = {0.0};
  for (const Block& b : blocks) ends.push_back(b.start + b.duration);
  Axis ta = time;
  if (std::isnan(ta.min)) ta.min = 0;
  const Scale sx = MakeScale(ta, ends, left, width - kRight);
  std::ostringstream out;
  out << Open(id, title, width, height);
  const double bottom = height - kBottom;
  out << "<g class=\"axes\"><line class=\"axis\" x1=\"" << left << "\" y1=\"" << Px(bottom) << "\" x2=\"" << Px(sx.to)
      << "\" y2=\"" << Px(bottom) << "\"/>";
  for (double t : Ticks(sx)) {
    const double px = sx.Map(t);
    out << "<line class=\"grid\" x1=\"" << Px(px) << "\" y1=\"" << kTop + 12 << "\" x2=\"" << Px(px) << "\" y2=\""
        << Px(bottom) << "\"/><text class=\"tick-label\" x=\"" << Px(px) << "\" y=\"" << Px(bottom + 16)
        << "\" text-anchor=\"middle\">" << Number(t) << "</text>";
  }
  out << "<text class=\"axis-label\" x=\"" << Px((left + sx.to) / 2) << "\" y=\"" << height - 8
      << "\" text-anchor=\"middle\">" << Escape(time.label) << "</text></g>";
  for (size_t l = 0; l < lanes.size(); ++l) {
    const double y = kTop + 12 + lane_height * static_cast<double>(l);
    out << "<text class=\"lane-label\" x=\"" << left - 6 << "\" y=\"" << Px(y + lane_height / 2.0 + 4)
        << "\" text-anchor=\"end\">" << Escape(lanes[l]) << "</text>";
  }
  for (const Block& b : blocks) {
    const double y = kTop + 12 + lane_height * static_cast<double>(b.lane) + 3;
    const double x0 = sx.Map(b.start), x1 = sx.Map(b.start + b.duration);
    const double w = std::max(1.0, x1 - x0);
    out << "<g class=\"" << Escape(b.css_class) << "\"><rect x=\"" << Px(x0) << "\" y=\"" << Px(y) << "\" width=\""
        << Px(w) << "\" height=\"" << lane_height - 6 << "\" fill=\""
        << Escape(b.color.empty() ? std::string(kNeutral) : b.color)
        << "\" stroke=\"#fff\" stroke-width=\"0.5\"><title>" << Escape(b.tip.empty() ? b.label : b.tip)
        << "</title></rect>";
    if (w > 7.0 * static_cast<double>(b.label.size()) + 6) {
      out << "<text class=\"block-label\" x=\"" << Px(x0 + 3) << "\" y=\"" << Px(y + lane_height / 2.0 + 1) << "\">"
          << Escape(b.label) << "</text>";
    }
    out << "</g>";
  }
  out << "</svg>";
  return out.str();
}

}  // namespace svg
}  // namespace touchstone
