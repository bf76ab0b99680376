#include "evaluation/latency_stats.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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

LatencyStats::State LatencyStats::GetState() const {
  State s;
  s.capacity = capacity_;
  s.count = count_;
  s.first = first_;
  s.last = last_;
  s.min_us = min_us_;
  s.max_us = max_us_;
  s.sum_us = sum_us_;
  s.sum_squares_us = sum_squares_us_;
  s.min_ns = min_ns_;
  s.max_ns = max_ns_;
  s.mean_ns = mean_ns_;
  s.m2_ns = m2_ns_;
  s.kept = kept();
  s.histogram = histogram_.NonEmptyBuckets();
  return s;
}

LatencyStats LatencyStats::FromState(const State& s, std::string* error) {
  error->clear();
  LatencyStats stats(s.capacity == 0 ? kDefaultCapacity : s.capacity);
  if (s.count < 0 || s.capacity < kKeepAll) {
    *error = "a negative count or capacity";
    return stats;
  }
  const int64_t kept = static_cast<int64_t>(s.kept.size());
  if (kept > s.count || (s.capacity >= 0 && kept > s.capacity) || (s.count > 0 && kept == 0)) {
    *error = std::to_string(kept) + " kept samples for a count of " + std::to_string(s.count);
    return stats;
  }
  for (const KeptLatencySample& k : s.kept) {
    if (k.run < 0 || k.run >= s.count) {
      *error = "a kept sample of run " + std::to_string(k.run) + " past the count " + std::to_string(s.count);
      return stats;
    }
  }
  int64_t in_histogram = 0;
  for (const auto& b : s.histogram) {
    if (b.first < 0 || b.first >= LatencyHistogram::kBuckets || b.second <= 0) {
      *error = "a histogram bucket out of range";
      return stats;
    }
    in_histogram += b.second;
  }
  if (kept < s.count && in_histogram != s.count) {
    *error = "a histogram of " + std::to_string(in_histogram) + " samples for a count of " + std::to_string(s.count);
    return stats;
  }
  stats.count_ = s.count;
  stats.first_ = s.first;
  stats.last_ = s.last;
  stats.min_us_ = s.min_us;
  stats.max_us_ = s.max_us;
  stats.sum_us_ = s.sum_us;
  stats.sum_squares_us_ = s.sum_squares_us;
  stats.min_ns_ = s.min_ns;
  stats.max_ns_ = s.max_ns;
  stats.mean_ns_ = s.mean_ns;
  stats.m2_ns_ = s.m2_ns;
  stats.kept_ = s.kept;
  if (kept < s.count) {
    for (const auto& b : s.histogram) stats.histogram_.Add(LatencyHistogram::BucketLow(b.first), b.second);
  }
  return stats;
}

void LatencyStats::Append(const LatencyStats& later) {
  if (later.empty()) return;
  if (empty()) {
    *this = later;
    return;
  }
  const int64_t n_a = count_, n_b = later.count_;
  const int64_t n = n_a + n_b;
  // Exact figures.
  last_ = later.last_;
  min_us_ = std::min(min_us_, later.min_us_);
  max_us_ = std::max(max_us_, later.max_us_);
  min_ns_ = std::min(min_ns_, later.min_ns_);
  max_ns_ = std::max(max_ns_, later.max_ns_);
  sum_us_ += later.sum_us_;
  sum_squares_us_ += later.sum_squares_us_;
  const double delta = later.mean_ns_ - mean_ns_;
  mean_ns_ += delta * static_cast<double>(n_b) / static_cast<double>(n);
  m2_ns_ += later.m2_ns_ + delta * delta * static_cast<double>(n_a) * static_cast<double>(n_b) / static_cast<double>(n);

  std::vector<KeptLatencySample> a = kept(), b = later.kept();
  for (KeptLatencySample& k : b) k.run += n_a;
  const bool all = all_kept() && later.all_kept();
  if (all && (capacity_ < 0 || n <= capacity_)) {
    kept_ = a;
    kept_.insert(kept_.end(), b.begin(), b.end());
    count_ = n;
    return;
  }
  // The histogram of every sample: each side's own, or its kept samples when it kept every one.
  if (all_kept()) {
    for (const KeptLatencySample& k : a) histogram_.Add(k.ns);
  }
  if (later.all_kept()) {
    for (const KeptLatencySample& k : b) histogram_.Add(k.ns);
  } else {
    for (const auto& bucket : later.histogram_.NonEmptyBuckets()) {
      histogram_.Add(LatencyHistogram::BucketLow(bucket.first), bucket.second);
    }
  }
  // Kept samples: each side's share of the capacity in proportion to its count, drawn uniformly from
  // what it kept (a partial Fisher-Yates shuffle from the fixed-seed engine).
  auto draw = [&](std::vector<KeptLatencySample>* from, int64_t take) {
    take = std::min<int64_t>(take, static_cast<int64_t>(from->size()));
    for (int64_t i = 0; i < take; ++i) {
      const uint64_t span = static_cast<uint64_t>(from->size()) - static_cast<uint64_t>(i);
      const uint64_t j = static_cast<uint64_t>(i) +
                         static_cast<uint64_t>((static_cast<unsigned __int128>(reservoir_engine_()) * span) >> 64);
      std::swap((*from)[static_cast<size_t>(i)], (*from)[static_cast<size_t>(j)]);
    }
    from->resize(static_cast<size_t>(take));
  };
  const int64_t capacity = capacity_ < 0 ? n : capacity_;
  int64_t take_a = static_cast<int64_t>(
      std::llround(static_cast<double>(capacity) * static_cast<double>(n_a) / static_cast<double>(n)));
  take_a = std::min<int64_t>(take_a, static_cast<int64_t>(a.size()));
  const int64_t take_b = std::min<int64_t>(capacity - take_a, static_cast<int64_t>(b.size()));
  take_a = std::min<int64_t>(capacity - take_b, static_cast<int64_t>(a.size()));
  draw(&a, take_a);
  draw(&b, take_b);
  kept_ = a;
  kept_.insert(kept_.end(), b.begin(), b.end());
  std::sort(kept_.begin(), kept_.end(),
            [](const KeptLatencySample& x, const KeptLatencySample& y) { return x.run < y.run; });
  count_ = n;
}

std::string LatencyStats::ToStringWithoutPercentiles() const {
  if (empty()) return "count=0";
  if (all_same()) {
    // TFLite prints "(all same)" only for more than one sample (and without the space; see
    // docs/benchmark_model.md).
    return fmt::format("count={} curr={}{}", count(), last_us(), count() > 1 ? " (all same)" : "");
  }
  // The average as TFLite streams a double: six significant digits ({:g}).
  return fmt::format("count={} first={} curr={} min={} max={} avg={:g} std={}", count(), first_us(), last_us(),
                     min_us(), max_us(), mean_us(), static_cast<int64_t>(stddev_us()));
}

std::string LatencyStats::ToString() const {
  if (empty()) return "count=0";
  return fmt::format("{} p5={} median={} p95={}", ToStringWithoutPercentiles(), percentile_us(5), percentile_us(50),
                     percentile_us(95));
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
