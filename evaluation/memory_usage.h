// Process memory as the OS reports it, for benchmark_model's memory lines: the resident set size now
// (/proc/self/statm), the resident high-water mark (getrusage's ru_maxrss, what TFLite's "Memory
// footprint delta" lines are made of on Linux), and a sampling thread that records the largest RSS it
// sees (TFLite's --report_peak_memory_footprint, measured on the current RSS instead of the
// high-water mark).
#ifndef TOUCHSTONE_EVALUATION_MEMORY_USAGE_H_
#define TOUCHSTONE_EVALUATION_MEMORY_USAGE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace touchstone {

struct MemorySnapshot {
  bool valid = false;         // false where /proc or getrusage could not be read
  int64_t rss_bytes = 0;      // resident set size now
  int64_t max_rss_bytes = 0;  // resident high-water mark since the process started (ru_maxrss)
};

MemorySnapshot ReadMemorySnapshot();

// Samples the RSS every `interval_ms` on its own thread between Start and Stop.
class PeakRssMonitor {
 public:
  explicit PeakRssMonitor(int interval_ms) : interval_ms_(interval_ms > 0 ? interval_ms : 50) {}
  ~PeakRssMonitor() { Stop(); }
  PeakRssMonitor(const PeakRssMonitor&) = delete;
  PeakRssMonitor& operator=(const PeakRssMonitor&) = delete;

  void Start();
  void Stop();
  int64_t peak_rss_bytes() const { return peak_.load(); }
  int64_t samples() const { return samples_.load(); }
  int interval_ms() const { return interval_ms_; }

 private:
  void Sample();

  const int interval_ms_;
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> samples_{0};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_MEMORY_USAGE_H_
