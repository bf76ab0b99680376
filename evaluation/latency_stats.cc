#include "evaluation/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace touchstone {

int64_t LatencyStats::min_us() const {
  return *std::min_element(samples_us_.begin(), samples_us_.end());
}

int64_t LatencyStats::max_us() const {
  return *std::max_element(samples_us_.begin(), samples_us_.end());
}

double LatencyStats::mean_us() const {
  if (samples_us_.empty()) return 0.0;
  double sum = 0.0;
  for (int64_t s : samples_us_) sum += static_cast<double>(s);
  return sum / static_cast<double>(samples_us_.size());
}

double LatencyStats::stddev_us() const {
  if (samples_us_.size() < 2 || all_same()) return 0.0;
  const double mean = mean_us();
  double squares = 0.0;
  for (int64_t s : samples_us_) squares += (static_cast<double>(s) - mean) * (static_cast<double>(s) - mean);
  return std::sqrt(squares / static_cast<double>(samples_us_.size()));
}

int64_t LatencyStats::percentile_us(double percent) const {
  std::vector<int64_t> sorted = samples_us_;
  std::sort(sorted.begin(), sorted.end());
  size_t index = static_cast<size_t>(std::floor(static_cast<double>(sorted.size()) * percent / 100.0));
  if (index >= sorted.size()) index = sorted.size() - 1;
  return sorted[index];
}

bool LatencyStats::all_same() const {
  return std::all_of(samples_us_.begin(), samples_us_.end(),
                     [&](int64_t s) { return s == samples_us_.front(); });
}

std::string LatencyStats::ToString() const {
  std::ostringstream out;
  if (samples_us_.empty()) {
    out << "count=0";
  } else if (all_same()) {
    out << "count=" << count() << " curr=" << last_us() << " (all same)";
  } else {
    // avg as a double in the stream's default format; std truncated to an integer, as TFLite does.
    out << "count=" << count() << " first=" << first_us() << " curr=" << last_us()
        << " min=" << min_us() << " max=" << max_us() << " avg=" << mean_us()
        << " std=" << static_cast<int64_t>(stddev_us()) << " p5=" << percentile_us(5)
        << " median=" << percentile_us(50) << " p95=" << percentile_us(95);
  }
  return out.str();
}

}  // namespace touchstone
