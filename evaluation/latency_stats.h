// Latency statistics as TFLite's tools print them: count, first, last (curr), min, max, mean,
// population standard deviation, and LiteRT's percentiles (element floor(N*p/100) after sorting).
#ifndef TOUCHSTONE_EVALUATION_LATENCY_STATS_H_
#define TOUCHSTONE_EVALUATION_LATENCY_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace touchstone {

class LatencyStats {
 public:
  void Add(int64_t sample_us) { samples_us_.push_back(sample_us); }
  bool empty() const { return samples_us_.empty(); }
  int64_t count() const { return static_cast<int64_t>(samples_us_.size()); }
  int64_t first_us() const { return samples_us_.front(); }
  int64_t last_us() const { return samples_us_.back(); }
  int64_t min_us() const;
  int64_t max_us() const;
  double mean_us() const;
  // Population standard deviation (TFLite's std).
  double stddev_us() const;
  // The sample at index floor(N*percent/100) of the sorted samples.
  int64_t percentile_us(double percent) const;
  bool all_same() const;
  const std::vector<int64_t>& samples_us() const { return samples_us_; }

  // "count=N first=F curr=C min=m max=M avg=A std=S p5=.. median=.. p95=.." as TFLite prints it.
  std::string ToString() const;

 private:
  std::vector<int64_t> samples_us_;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_LATENCY_STATS_H_
