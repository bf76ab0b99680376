#include "evaluation/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace touchstone {
namespace {

// The element at `rank` of the values in sorted order (nth_element on a copy, as LiteRT does).
int64_t ValueAtRank(std::vector<int64_t> values, int64_t rank) {
  std::nth_element(values.begin(), values.begin() + rank, values.end());
  return values[static_cast<size_t>(rank)];
}

}  // namespace

// --- LatencyHistogram ------------------------------------------------------------------------------

int LatencyHistogram::BucketOf(int64_t value) {
  if (value < kSubBuckets) return value < 0 ? 0 : static_cast<int>(value);
  const int exponent = 63 - __builtin_clzll(static_cast<unsigned long long>(value));
  if (exponent > kMaxExponent) return kBuckets - 1;
  const int sub = static_cast<int>((value >> (exponent - 7)) - kSubBuckets);
  return kSubBuckets + (exponent - 7) * kSubBuckets + sub;
}

int64_t LatencyHistogram::BucketLow(int bucket) {
  if (bucket < kSubBuckets) return bucket;
  const int exponent = 7 + (bucket - kSubBuckets) / kSubBuckets;
  const int64_t sub = (bucket - kSubBuckets) % kSubBuckets;
  return (kSubBuckets + sub) << (exponent - 7);
}

int64_t LatencyHistogram::BucketHigh(int bucket) {
  if (bucket < kSubBuckets) return bucket;
  const int exponent = 7 + (bucket - kSubBuckets) / kSubBuckets;
  return BucketLow(bucket) + (int64_t{1} << (exponent - 7)) - 1;
}

void LatencyHistogram::Add(int64_t value, int64_t count) {
  if (counts_.empty()) counts_.assign(kBuckets, 0);
  counts_[static_cast<size_t>(BucketOf(value))] += count;
  count_ += count;
}

int64_t LatencyHistogram::ValueAtRank(int64_t rank) const {
  int64_t seen = 0;
  for (int b = 0; b < kBuckets && !counts_.empty(); ++b) {
    seen += counts_[static_cast<size_t>(b)];
    if (seen > rank) return BucketLow(b) + (BucketHigh(b) - BucketLow(b)) / 2;
  }
  return 0;
}

std::vector<std::pair<int, int64_t>> LatencyHistogram::NonEmptyBuckets() const {
  std::vector<std::pair<int, int64_t>> buckets;
  for (int b = 0; b < kBuckets && !counts_.empty(); ++b) {
    if (counts_[static_cast<size_t>(b)] != 0) buckets.emplace_back(b, counts_[static_cast<size_t>(b)]);
  }
  return buckets;
}

// --- LatencyStats -------------------------------------------------------------------------------

LatencyStats::LatencyStats(int64_t capacity) : capacity_(capacity) {}

LatencyStats::LatencyStats(const std::vector<int64_t>& samples_us) : capacity_(kKeepAll) {
  for (int64_t s : samples_us) Add(s);
}

void LatencyStats::Add(const LatencySample& sample) {
  if (count_ == 0) {
    first_ = sample;
    min_us_ = max_us_ = sample.us;
    min_ns_ = max_ns_ = sample.ns;
  }
  last_ = sample;
  min_us_ = std::min(min_us_, sample.us);
  max_us_ = std::max(max_us_, sample.us);
  min_ns_ = std::min(min_ns_, sample.ns);
  max_ns_ = std::max(max_ns_, sample.ns);
  sum_us_ += sample.us;
  sum_squares_us_ += static_cast<double>(sample.us) * static_cast<double>(sample.us);
  const int64_t run = count_++;
  const double delta = static_cast<double>(sample.ns) - mean_ns_;
  mean_ns_ += delta / static_cast<double>(count_);
  m2_ns_ += delta * (static_cast<double>(sample.ns) - mean_ns_);

  const KeptLatencySample kept{run, sample.us, sample.ns};
  if (capacity_ < 0 || run < capacity_) {
    kept_.push_back(kept);
    return;
  }
  if (run == capacity_) {
    // From here on the percentiles come from the histogram: it starts with every sample so far.
    for (const KeptLatencySample& k : kept_) histogram_.Add(k.ns);
  }
  histogram_.Add(sample.ns);
  // Algorithm R: sample `run` replaces a kept one with probability capacity / (run + 1).
  const uint64_t slot = static_cast<uint64_t>(
      (static_cast<unsigned __int128>(reservoir_engine_()) * static_cast<uint64_t>(run + 1)) >> 64);
  if (slot < static_cast<uint64_t>(capacity_)) kept_[slot] = kept;
}

double LatencyStats::mean_us() const {
  if (empty()) return 0.0;
  return static_cast<double>(sum_us_) / static_cast<double>(count_);
}

double LatencyStats::stddev_us() const {
  if (empty() || all_same()) return 0.0;
  const double mean = mean_us();
  const double variance = sum_squares_us_ / static_cast<double>(count_) - mean * mean;
  return variance > 0.0 ? std::sqrt(variance) : 0.0;
}

double LatencyStats::stddev_ns() const {
  if (count_ < 2) return 0.0;
  return std::sqrt(std::max(0.0, m2_ns_ / static_cast<double>(count_)));
}

int64_t LatencyStats::RankOf(double percent) const {
  int64_t rank = static_cast<int64_t>(std::floor(static_cast<double>(count_) * percent / 100.0));
  return std::min(std::max<int64_t>(rank, 0), count_ - 1);
}

int64_t LatencyStats::percentile_us(double percent) const {
  if (empty()) return 0;
  if (all_kept()) return ValueAtRank(samples_us(), RankOf(percent));
  return std::llround(static_cast<double>(percentile_ns(percent)) / 1000.0);
}

int64_t LatencyStats::percentile_ns(double percent) const {
  if (empty()) return 0;
  const int64_t rank = RankOf(percent);
  if (all_kept()) return ValueAtRank(samples_ns(), rank);
  if (rank == 0) return min_ns_;
  if (rank == count_ - 1) return max_ns_;
  return std::min(std::max(histogram_.ValueAtRank(rank), min_ns_), max_ns_);
}

double LatencyStats::median_us() const {
  if (all_kept()) {
    const std::vector<int64_t> us = samples_us();
    return MedianOf(std::vector<double>(us.begin(), us.end()));
  }
  return median_ns() / 1000.0;
}

double LatencyStats::median_ns() const {
  if (empty()) return 0.0;
  if (all_kept()) {
    const std::vector<int64_t> ns = samples_ns();
    return MedianOf(std::vector<double>(ns.begin(), ns.end()));
  }
  auto at = [&](int64_t rank) {
    return static_cast<double>(std::min(std::max(histogram_.ValueAtRank(rank), min_ns_), max_ns_));
  };
  return (at((count_ - 1) / 2) + at(count_ / 2)) / 2.0;
}

std::vector<KeptLatencySample> LatencyStats::kept() const {
  std::vector<KeptLatencySample> kept = kept_;
  if (!all_kept()) {
    std::sort(kept.begin(), kept.end(),
              [](const KeptLatencySample& a, const KeptLatencySample& b) { return a.run < b.run; });
  }
  return kept;
}

std::vector<int64_t> LatencyStats::samples_us() const {
  std::vector<int64_t> us;
  us.reserve(kept_.size());
  for (const KeptLatencySample& k : kept()) us.push_back(k.us);
  return us;
}

std::vector<int64_t> LatencyStats::samples_ns() const {
  std::vector<int64_t> ns;
  ns.reserve(kept_.size());
  for (const KeptLatencySample& k : kept()) ns.push_back(k.ns);
  return ns;
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
  s.first_fine_us = NanosToMicros(static_cast<double>(first_ns()));
  s.last_fine_us = NanosToMicros(static_cast<double>(last_ns()));
  s.min_fine_us = NanosToMicros(static_cast<double>(min_ns()));
  s.max_fine_us = NanosToMicros(static_cast<double>(max_ns()));
  s.mean_fine_us = NanosToMicros(mean_ns());
  s.stddev_fine_us = NanosToMicros(stddev_ns());
  s.median_fine_us = NanosToMicros(median_ns());
  s.p5_fine_us = NanosToMicros(static_cast<double>(percentile_ns(5)));
  s.p50_fine_us = NanosToMicros(static_cast<double>(percentile_ns(50)));
  s.p90_fine_us = NanosToMicros(static_cast<double>(percentile_ns(90)));
  s.p95_fine_us = NanosToMicros(static_cast<double>(percentile_ns(95)));
  s.p99_fine_us = NanosToMicros(static_cast<double>(percentile_ns(99)));
  s.percentiles_exact = all_kept();
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
    out << "count=" << count() << " first=" << first_us() << " curr=" << last_us() << " min=" << min_us()
        << " max=" << max_us() << " avg=" << mean_us() << " std=" << static_cast<int64_t>(stddev_us());
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
