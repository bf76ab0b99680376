#include "evaluation/memory_usage.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace touchstone {

MemorySnapshot ReadMemorySnapshot() {
  MemorySnapshot snapshot;
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm != nullptr) {
    unsigned long long size = 0, resident = 0;
    if (std::fscanf(statm, "%llu %llu", &size, &resident) == 2) {
      snapshot.rss_bytes = static_cast<int64_t>(resident) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
      snapshot.valid = true;
    }
    std::fclose(statm);
  }
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    snapshot.max_rss_bytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;  // kilobytes on Linux
  } else {
    snapshot.valid = false;
  }
  return snapshot;
}

void PeakRssMonitor::Sample() {
  const MemorySnapshot now = ReadMemorySnapshot();
  if (!now.valid) return;
  int64_t peak = peak_.load();
  while (now.rss_bytes > peak && !peak_.compare_exchange_weak(peak, now.rss_bytes)) {
  }
  ++samples_;
}

void PeakRssMonitor::Start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = false;
  }
  Sample();
  thread_ = std::thread([this]() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_), [this]() { return stop_; });
      if (stop_) break;
      lock.unlock();
      Sample();
      lock.lock();
    }
  });
}

void PeakRssMonitor::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  Sample();
}

}  // namespace touchstone
