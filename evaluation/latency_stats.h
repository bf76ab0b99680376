// Latency statistics as TFLite's tools print them: count, first, last (curr), min, max, mean,
// population standard deviation, and LiteRT's percentiles (the element at index floor(N*p/100) of the
// samples in sorted order, which is what LiteRT's nth_element picks). Beyond TFLite: p90 and p99, the
// conventional median, and the samples themselves (the regression gate resamples them).
#ifndef TOUCHSTONE_EVALUATION_LATENCY_STATS_H_
#define TOUCHSTONE_EVALUATION_LATENCY_STATS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace touchstone {

// Every figure of a set of samples, computed once.
struct LatencySummary {
  int64_t count = 0;
  int64_t first_us = 0;
  int64_t last_us = 0;
  int64_t min_us = 0;
  int64_t max_us = 0;
  int64_t sum_us = 0;
  double mean_us = 0.0;
  double stddev_us = 0.0;  // population
  int64_t p5_us = 0, p50_us = 0, p90_us = 0, p95_us = 0, p99_us = 0;  // LiteRT's percentile rule
  double median_us = 0.0;  // conventional median: the mean of the two middle samples when N is even
};

class LatencyStats {
 public:
  LatencyStats() = default;
  explicit LatencyStats(std::vector<int64_t> samples_us) : samples_us_(std::move(samples_us)) {}

  void Add(int64_t sample_us) { samples_us_.push_back(sample_us); }
  bool empty() const { return samples_us_.empty(); }
  int64_t count() const { return static_cast<int64_t>(samples_us_.size()); }
  // first/last/min/max/percentile are 0 when there are no samples.
  int64_t first_us() const { return empty() ? 0 : samples_us_.front(); }
  int64_t last_us() const { return empty() ? 0 : samples_us_.back(); }
  int64_t min_us() const;
  int64_t max_us() const;
  int64_t sum_us() const;
  // 0 when empty.
  double mean_us() const;
  // Population standard deviation computed as TFLite does: sqrt(sum(x^2)/N - mean^2), 0 when all
  // samples are equal.
  double stddev_us() const;
  // The sample at index floor(N*percent/100) of the sorted samples (the last one for 100).
  int64_t percentile_us(double percent) const;
  // Conventional median (mean of the two middle samples for even N).
  double median_us() const;
  bool all_same() const;
  const std::vector<int64_t>& samples_us() const { return samples_us_; }
  LatencySummary Summary() const;

  // TFLite's line: "count=N first=F curr=C min=m max=M avg=A std=S p5=.. median=.. p95=..";
  // "count=N curr=C (all same) p5=.. median=.. p95=.." when every sample is equal ("count=1 curr=C ..."
  // for a single sample); "count=0" when empty. avg in the stream's default format, std truncated to an
  // integer, as TFLite prints them.
  std::string ToString() const;
  // The same without the percentiles (TFLite's Stat, used in the op profile's "Timings" line).
  std::string ToStringWithoutPercentiles() const;

 private:
  std::vector<int64_t> samples_us_;
};

// Conventional median of any values (mean of the two middle ones for an even count); 0 when empty.
double MedianOf(std::vector<double> values);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_LATENCY_STATS_H_
