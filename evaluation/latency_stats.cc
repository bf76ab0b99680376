#include "evaluation/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace touchstone {

int64_t LatencyStats::min_us() const {
  return empty() ? 0 : *std::min_element(samples_us_.begin(), samples_us_.end());
}

int64_t LatencyStats::max_us() const {
  return empty() ? 0 : *std::max_element(samples_us_.begin(), samples_us_.end());
}

int64_t LatencyStats::sum_us() const {
  int64_t sum = 0;
  for (int64_t s : samples_us_) sum += s;
  return sum;
}

double LatencyStats::mean_us() const {
  if (empty()) return 0.0;
  return static_cast<double>(sum_us()) / static_cast<double>(samples_us_.size());
}

double LatencyStats::stddev_us() const {
  if (empty() || all_same()) return 0.0;
  double squares = 0.0;
  for (int64_t s : samples_us_) squares += static_cast<double>(s) * static_cast<double>(s);
  const double mean = mean_us();
  const double variance = squares / static_cast<double>(samples_us_.size()) - mean * mean;
  return variance > 0.0 ? std::sqrt(variance) : 0.0;
}

int64_t LatencyStats::percentile_us(double percent) const {
  if (empty()) return 0;
  std::vector<int64_t> values = samples_us_;
  size_t index = static_cast<size_t>(std::floor(static_cast<double>(values.size()) * percent / 100.0));
  if (index >= values.size()) index = values.size() - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index), values.end());
  return values[index];
}

double LatencyStats::median_us() const {
  std::vector<double> values(samples_us_.begin(), samples_us_.end());
  return MedianOf(std::move(values));
}

bool LatencyStats::all_same() const {
  return std::all_of(samples_us_.begin(), samples_us_.end(),
                     [&](int64_t s) { return s == samples_us_.front(); });
}

LatencySummary LatencyStats::Summary() const {
  LatencySummary s;
  s.count = count();
  if (empty()) return s;
  s.first_us = first_us();
  s.last_us = last_us();
  s.min_us = min_us();
  s.max_us = max_us();
  s.sum_us = sum_us();
  s.mean_us = mean_us();
  s.stddev_us = stddev_us();
  s.p5_us = percentile_us(5);
  s.p50_us = percentile_us(50);
  s.p90_us = percentile_us(90);
  s.p95_us = percentile_us(95);
  s.p99_us = percentile_us(99);
  s.median_us = median_us();
  return s;
}

std::string LatencyStats::ToStringWithoutPercentiles() const {
  std::ostringstream out;
  if (empty()) {
    out << "count=0";
  } else if (all_same()) {
    // TFLite prints "(all same)" only for more than one sample (and without the space; see
    // docs/benchmark_model.md).
    out << "count=" << count() << " curr=" << last_us();
    if (count() > 1) out << " (all same)";
  } else {
    out << "count=" << count() << " first=" << first_us() << " curr=" << last_us()
        << " min=" << min_us() << " max=" << max_us() << " avg=" << mean_us()
        << " std=" << static_cast<int64_t>(stddev_us());
  }
  return out.str();
}

std::string LatencyStats::ToString() const {
  if (empty()) return "count=0";
  std::ostringstream out;
  out << ToStringWithoutPercentiles() << " p5=" << percentile_us(5) << " median=" << percentile_us(50)
      << " p95=" << percentile_us(95);
  return out.str();
}

double MedianOf(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

}  // namespace touchstone
