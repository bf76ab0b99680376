// Latency statistics as TFLite's tools print them: count, first, last (curr), min, max, mean,
// population standard deviation, and LiteRT's percentiles (the element at index floor(N*p/100) of the
// samples in sorted order, which is what LiteRT's nth_element picks). Beyond TFLite: p90 and p99, the
// conventional median, nanosecond figures beside TFLite's whole microseconds, and a bounded summary of
// the samples themselves (the regression gate resamples it).
//
// Memory is bounded whatever the run length. Count, first, last, min, max, sum and the moments are exact
// over every sample. The samples themselves are kept up to a capacity (all of them in a short run, so
// every percentile is exact, as TFLite's); past it a uniform reservoir of `capacity` samples (Vitter's
// algorithm R, from a fixed seed: the same run keeps the same samples) stands for them, and the
// percentiles come from a log-linear histogram of every sample whose buckets are 1/128 of an octave wide
// (a percentile is then within 0.4% of the exact one).
#ifndef TOUCHSTONE_EVALUATION_LATENCY_STATS_H_
#define TOUCHSTONE_EVALUATION_LATENCY_STATS_H_

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace touchstone {

// One timed run. `us` is what TFLite records: the difference of two whole-microsecond clock readings
// (unbiased: a 0.4 us run reads 1 in 40% of the runs and 0 in the others); `ns` is the same interval in
// nanoseconds.
struct LatencySample {
  int64_t us = 0;
  int64_t ns = 0;
};

// A kept sample and its position among all the samples added (0-based).
struct KeptLatencySample {
  int64_t run = 0;
  int64_t us = 0;
  int64_t ns = 0;
};

// Counts of values in log-linear buckets: values below 128 each have their own bucket; above, each
// octave [2^e, 2^(e+1)) is split into 128 buckets of equal width. Fixed size (values beyond 2^47 land
// in the last bucket).
class LatencyHistogram {
 public:
  static constexpr int kSubBuckets = 128;
  static constexpr int kMaxExponent = 47;
  static constexpr int kBuckets = kSubBuckets + (kMaxExponent - 7 + 1) * kSubBuckets;

  static int BucketOf(int64_t value);
  // Inclusive bounds of a bucket's values.
  static int64_t BucketLow(int bucket);
  static int64_t BucketHigh(int bucket);

  void Add(int64_t value, int64_t count = 1);
  int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The middle of the bucket holding the value of 0-based rank `rank` in sorted order.
  int64_t ValueAtRank(int64_t rank) const;
  // (bucket, count) of every bucket that holds a value, in bucket order.
  std::vector<std::pair<int, int64_t>> NonEmptyBuckets() const;

 private:
  std::vector<int64_t> counts_;  // allocated on the first Add
  int64_t count_ = 0;
};

// Every figure of a set of samples, computed once. The *_us integers are TFLite's (from LatencySample::us,
// its percentile rule); the *_fine_us doubles are the same figures at nanosecond resolution.
struct LatencySummary {
  int64_t count = 0;
  int64_t first_us = 0;
  int64_t last_us = 0;
  int64_t min_us = 0;
  int64_t max_us = 0;
  int64_t sum_us = 0;
  double mean_us = 0.0;
  double stddev_us = 0.0;                                             // population
  int64_t p5_us = 0, p50_us = 0, p90_us = 0, p95_us = 0, p99_us = 0;  // LiteRT's percentile rule
  double median_us = 0.0;  // conventional median: the mean of the two middle samples when N is even

  double first_fine_us = 0.0, last_fine_us = 0.0, min_fine_us = 0.0, max_fine_us = 0.0;
  double mean_fine_us = 0.0, stddev_fine_us = 0.0, median_fine_us = 0.0;
  double p5_fine_us = 0.0, p50_fine_us = 0.0, p90_fine_us = 0.0, p95_fine_us = 0.0, p99_fine_us = 0.0;
  bool percentiles_exact = true;  // every sample was kept
};

class LatencyStats {
 public:
  // Samples kept before the reservoir takes over, by default: enough for exact percentiles in any run
  // of ordinary length, a precise bootstrap, and a report well under 1 MB.
  static constexpr int64_t kDefaultCapacity = 4096;
  // Keep every sample (unbounded memory; --report_all_latency_samples).
  static constexpr int64_t kKeepAll = -1;

  LatencyStats() : LatencyStats(kDefaultCapacity) {}
  explicit LatencyStats(int64_t capacity);
  // Samples in microseconds, all kept (tests, figures computed elsewhere).
  explicit LatencyStats(const std::vector<int64_t>& samples_us);

  // A sample in whole microseconds (ns = us * 1000).
  void Add(int64_t sample_us) { Add(LatencySample{sample_us, sample_us * 1000}); }
  void Add(const LatencySample& sample);

  bool empty() const { return count_ == 0; }
  int64_t count() const { return count_; }
  int64_t capacity() const { return capacity_; }
  // first/last/min/max/percentile are 0 when there are no samples.
  int64_t first_us() const { return first_.us; }
  int64_t last_us() const { return last_.us; }
  int64_t min_us() const { return min_us_; }
  int64_t max_us() const { return max_us_; }
  int64_t sum_us() const { return sum_us_; }
  // 0 when empty.
  double mean_us() const;
  // Population standard deviation computed as TFLite does: sqrt(sum(x^2)/N - mean^2), 0 when all
  // samples are equal.
  double stddev_us() const;
  // The sample at index floor(N*percent/100) of the sorted samples (the last one for 100); from the
  // histogram (rounded to whole microseconds) when not every sample was kept.
  int64_t percentile_us(double percent) const;
  // Conventional median (mean of the two middle samples for even N); from the histogram when not every
  // sample was kept.
  double median_us() const;
  bool all_same() const { return count_ > 0 && min_us_ == max_us_; }

  // Nanosecond figures.
  int64_t first_ns() const { return first_.ns; }
  int64_t last_ns() const { return last_.ns; }
  int64_t min_ns() const { return min_ns_; }
  int64_t max_ns() const { return max_ns_; }
  double mean_ns() const { return mean_ns_; }
  double stddev_ns() const;  // population
  int64_t percentile_ns(double percent) const;
  double median_ns() const;

  // Whether every sample added is kept (then every percentile is exact).
  bool all_kept() const { return static_cast<int64_t>(kept_.size()) == count_; }
  // The kept samples in the order they were added (all of them, or the reservoir).
  std::vector<KeptLatencySample> kept() const;
  // Their microsecond values, in the same order.
  std::vector<int64_t> samples_us() const;
  // Their nanosecond values, in the same order.
  std::vector<int64_t> samples_ns() const;
  // The nanosecond histogram of every sample; empty while every sample is kept.
  const LatencyHistogram& histogram() const { return histogram_; }
  LatencySummary Summary() const;

  // Everything these statistics hold, so that a shard report can carry them to another process and a
  // merge can go on from them (docs/cluster.md): the exact figures, the kept samples and the histogram.
  struct State {
    int64_t capacity = kDefaultCapacity;
    int64_t count = 0;
    LatencySample first, last;
    int64_t min_us = 0, max_us = 0, sum_us = 0;
    double sum_squares_us = 0.0;
    int64_t min_ns = 0, max_ns = 0;
    double mean_ns = 0.0, m2_ns = 0.0;
    std::vector<KeptLatencySample> kept;             // in the order kept() gives them
    std::vector<std::pair<int, int64_t>> histogram;  // (bucket, count); empty while every sample is kept
  };
  State GetState() const;
  // Statistics from a state; "" or what is inconsistent in it (counts, kept samples, buckets).
  static LatencyStats FromState(const State& state, std::string* error);
  // Appends `later`'s samples as if they had been added after these (their run indices follow on):
  // count, first, last, min, max and sums exact; mean and standard deviation combined exactly up to
  // floating-point rounding (Chan's pairwise update); every sample kept while both kept every sample and
  // they fit the capacity, else the histogram of every sample (exact) and a draw of `capacity` kept
  // samples in proportion to each side's count.
  void Append(const LatencyStats& later);

  // TFLite's line: "count=N first=F curr=C min=m max=M avg=A std=S p5=.. median=.. p95=..";
  // "count=N curr=C (all same) p5=.. median=.. p95=.." when every sample is equal ("count=1 curr=C ..."
  // for a single sample); "count=0" when empty. avg in the stream's default format, std truncated to an
  // integer, as TFLite prints them.
  std::string ToString() const;
  // The same without the percentiles (TFLite's Stat, used in the op profile's "Timings" line).
  std::string ToStringWithoutPercentiles() const;

 private:
  // Rank floor(N*percent/100), clamped to the last.
  int64_t RankOf(double percent) const;

  int64_t capacity_;
  int64_t count_ = 0;
  LatencySample first_, last_;
  int64_t min_us_ = 0, max_us_ = 0, sum_us_ = 0;
  double sum_squares_us_ = 0.0;  // TFLite's formula needs it
  int64_t min_ns_ = 0, max_ns_ = 0;
  double mean_ns_ = 0.0, m2_ns_ = 0.0;  // Welford's running mean and sum of squared deviations
  std::vector<KeptLatencySample> kept_;
  LatencyHistogram histogram_;
  std::mt19937_64 reservoir_engine_{0x5eed1a7e9c1ULL};
};

// Conventional median of any values (mean of the two middle ones for an even count); 0 when empty.
double MedianOf(std::vector<double> values);

// A value in microseconds from nanoseconds, with nanosecond resolution.
inline double NanosToMicros(double ns) { return ns / 1000.0; }

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_LATENCY_STATS_H_
