// host_probe: how much floating-point compute each CPU this process may run on delivers alone, and
// what each delivers while all of them run at once. On a virtual machine two vCPUs may be two cores,
// two hardware threads of one core, or share a core with another tenant for a while; a two-thread
// benchmark row means little unless "at once" stays close to "alone" (scripts/bench prints this
// next to its table, docs/performance.md).
//
// What it measures, pinned to each CPU in turn and then on every CPU at once:
// - compute: multiply-add throughput (GFLOP/s, 2 per multiply-add) of a register-only loop;
// - memory: read-modify-write bandwidth (GB/s, bytes read plus bytes written) over a buffer of
//   --buffer_mb per thread, larger than a core's L2 (activations that do not fit it, DeepLab's).
// - handoff (with two CPUs or more, between the first two): the same read-modify-write over a
//   buffer of --handoff_kb that the two CPUs take turns on, so each pass first fetches what the
//   other CPU has just written (as a thread does with the activations another thread wrote in the
//   op before), against each CPU alone on it; and the round trip of one flag between the two.
// What it does not: frequency, or anything another process does outside the measured intervals.
//
// Output, for compute then memory: "<what> cpu N alone: X <unit>" per CPU, "<what> at once: X Y ...
// <unit>", and "<what>_at_once_over_alone: R" (the mean at-once figure over the mean alone figure:
// about 1 when each CPU has a core and bandwidth of its own, about 0.5 for compute when two share one
// core). Then "handoff own cpu A: X GB/s" and the same for B (each alone on the buffer), "handoff
// between cpu A and B: Y GB/s", "handoff_between_over_own: R" (over the mean of the two) and
// "round trip between cpu A and B: N ns" (or "handoff: skipped, one cpu"). Exit code 0, 2 on a bad
// flag, 4 when a thread cannot be pinned or a buffer cannot be allocated (one ERROR line; the
// buffers are allocated before any figure is printed).
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "runtime/logging.h"
#include "tools/common/flags.h"
#include "tools/common/tool_runner.h"

namespace touchstone {
namespace {

constexpr int kAccumulators = 12;         // independent chains: enough to cover the FMA latency
constexpr int64_t kStepsPerCheck = 4096;  // loop steps between clock reads

// Each loop returns the multiply-adds done (lanes x accumulators x steps) in about `duration`.
// Every accumulator feeds a sink the caller keeps, so the compiler cannot drop the loop.
using Clock = std::chrono::steady_clock;

#if defined(__x86_64__)
__attribute__((target("avx512f"))) int64_t LoopAvx512(Clock::duration duration, float* sink) {
  __m512 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 scale = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-7f);
  const auto end = Clock::now() + duration;
  int64_t steps = 0;
  do {
    for (int64_t s = 0; s < kStepsPerCheck; ++s) {
      // Unrolled, so that the accumulators live in registers.
#pragma GCC unroll 12
      for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_fmadd_ps(acc[i], scale, add);
    }
    steps += kStepsPerCheck;
  } while (Clock::now() < end);
  float lanes[16];
  __m512 total = acc[0];
  for (int i = 1; i < kAccumulators; ++i) total = _mm512_add_ps(total, acc[i]);
  _mm512_storeu_ps(lanes, total);
  *sink = lanes[0] + lanes[15];
  return steps * kAccumulators * 16;
}

__attribute__((target("avx2,fma"))) int64_t LoopAvx2(Clock::duration duration, float* sink) {
  __m256 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 scale = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-7f);
  const auto end = Clock::now() + duration;
  int64_t steps = 0;
  do {
    for (int64_t s = 0; s < kStepsPerCheck; ++s) {
      // Unrolled, so that the accumulators live in registers.
#pragma GCC unroll 12
      for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], scale, add);
    }
    steps += kStepsPerCheck;
  } while (Clock::now() < end);
  float lanes[8];
  __m256 total = acc[0];
  for (int i = 1; i < kAccumulators; ++i) total = _mm256_add_ps(total, acc[i]);
  _mm256_storeu_ps(lanes, total);
  *sink = lanes[0] + lanes[7];
  return steps * kAccumulators * 8;
}
#endif

// Any CPU: the compiler's own vectors (NEON on arm64, SSE2 on plain x86-64).
int64_t LoopPortable(Clock::duration duration, float* sink) {
  typedef float Vec __attribute__((vector_size(16)));
  Vec acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = Vec{} + static_cast<float>(i);
  const Vec scale = Vec{} + 0.999999f, add = Vec{} + 1e-7f;
  const auto end = Clock::now() + duration;
  int64_t steps = 0;
  do {
    for (int64_t s = 0; s < kStepsPerCheck; ++s) {
      // Unrolled, so that the accumulators live in registers.
#pragma GCC unroll 12
      for (int i = 0; i < kAccumulators; ++i) acc[i] = acc[i] * scale + add;
    }
    steps += kStepsPerCheck;
  } while (Clock::now() < end);
  Vec total = acc[0];
  for (int i = 1; i < kAccumulators; ++i) total += acc[i];
  *sink = total[0] + total[3];
  return steps * kAccumulators * 4;
}

using LoopFn = int64_t (*)(Clock::duration, float*);

// One pass of the memory loops: adds one to every 8-byte word of `words` (count a multiple of 8), a
// cache line per step. A scalar add per word would cap the pass at about 16 bytes per cycle
// (about 55 GB/s on the project's host), under what the caches deliver.
typedef uint64_t LineWords __attribute__((vector_size(64), aligned(8), may_alias));
using PassFn = void (*)(uint64_t* words, size_t count);

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void AddOnePassAvx512(uint64_t* words, size_t count) {
  for (size_t i = 0; i < count; i += 8) *reinterpret_cast<LineWords*>(words + i) += 1;
}
#endif

void AddOnePassPortable(uint64_t* words, size_t count) {
  for (size_t i = 0; i < count; i += 8) *reinterpret_cast<LineWords*>(words + i) += 1;
}

PassFn g_pass = AddOnePassPortable;

// g_pass over a buffer, pass after pass, for about `duration`; returns the bytes moved (read plus
// written). The buffer is touched before the clock starts.
double MemoryLoop(std::vector<uint64_t>* buffer, Clock::duration duration) {
  uint64_t* words = buffer->data();
  const size_t count = buffer->size();
  const auto end = Clock::now() + duration;
  int64_t passes = 0;
  do {
    g_pass(words, count);
    ++passes;
  } while (Clock::now() < end);
  return 2.0 * static_cast<double>(passes) * static_cast<double>(count * sizeof(uint64_t));
}

LoopFn ChooseLoop(std::string* name) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    *name = "avx512";
    g_pass = AddOnePassAvx512;
    return LoopAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    *name = "avx2";
    return LoopAvx2;
  }
#endif
  *name = "portable";
  return LoopPortable;
}

bool PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  // sched_setaffinity on the calling thread (pid 0): pthread_setaffinity_np is glibc-only, Android lacks it.
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

// Runs work(i) on each of `cpus`, all started together (one CPU: alone), and returns each one's
// units per second divided by 1e9. Empty when a thread could not be pinned. `work` returns the units
// it did.
template <typename Work>
std::vector<double> Measure(const std::vector<int>& cpus, Work work) {
  std::vector<double> rates(cpus.size(), 0.0);
  std::atomic<int> ready{0};
  std::atomic<bool> pinned_all{true};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < cpus.size(); ++i) {
    threads.emplace_back([&, i] {
      if (!PinTo(cpus[i])) pinned_all = false;
      // Start together: each waits until every thread is pinned and spinning.
      ready.fetch_add(1);
      while (ready.load() < static_cast<int>(cpus.size())) {
      }
      const auto start = Clock::now();
      const double units = work(i);
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      rates[i] = units / seconds / 1e9;
    });
  }
  for (auto& thread : threads) thread.join();
  if (!pinned_all) return {};
  return rates;
}

std::string Join(const std::vector<double>& values) { return fmt::format("{:.1f}", fmt::join(values, " ")); }

double Mean(const std::vector<double>& values) {
  double sum = 0.0;
  for (double value : values) sum += value;
  return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
}

// One figure per CPU alone, then all at once, printed as "<what> ..." lines. False when a thread
// could not be pinned.
template <typename Work>
bool Report(const std::string& what, const std::string& unit, const std::vector<int>& cpus, Work work) {
  std::vector<double> alone;
  for (size_t i = 0; i < cpus.size(); ++i) {
    const std::vector<double> one = Measure({cpus[i]}, [&](size_t) { return work(i); });
    if (one.empty()) {
      LogFailure(fmt::format("host_probe: cannot pin a thread to cpu {}", cpus[i]));
      return false;
    }
    alone.push_back(one[0]);
  }
  const std::vector<double> together = Measure(cpus, work);
  if (together.empty()) {
    LogFailure("host_probe: cannot pin a thread to every allowed cpu");
    return false;
  }
  for (size_t i = 0; i < cpus.size(); ++i) {
    std::cout << fmt::format("{} cpu {} alone: {:.1f} {}", what, cpus[i], alone[i], unit) << std::endl;
  }
  std::cout << fmt::format("{} at once: {} {}", what, Join(together), unit) << std::endl;
  const double mean_alone = Mean(alone);
  std::cout << fmt::format("{}_at_once_over_alone: {:.2f}", what, mean_alone > 0.0 ? Mean(together) / mean_alone : 0.0)
            << std::endl;
  return true;
}

inline void CpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// MemoryLoop's passes over one buffer, taken in turn by a thread on cpu_a and one on cpu_b for
// about `duration`: every pass starts on lines the other CPU holds. Returns GB/s over the passes'
// own time (the hand-over waits between passes are not counted), or a negative value when a
// thread could not be pinned.
double HandoffRate(int cpu_a, int cpu_b, std::vector<uint64_t>* buffer, Clock::duration duration) {
  uint64_t* words = buffer->data();
  const size_t count = buffer->size();
  std::atomic<int64_t> turn{0};  // pass number; even passes are cpu_a's, odd ones cpu_b's
  std::atomic<bool> stop{false};
  std::atomic<bool> pinned_all{true};
  Clock::duration busy[2] = {Clock::duration::zero(), Clock::duration::zero()};
  int64_t passes[2] = {0, 0};
  const auto end = Clock::now() + duration;
  auto side = [&](int who) {
    if (!PinTo(who == 0 ? cpu_a : cpu_b)) {
      pinned_all = false;
      stop = true;
    }
    for (int64_t pass = who;; pass += 2) {
      while (turn.load(std::memory_order_acquire) != pass) {
        if (stop.load(std::memory_order_acquire)) return;
        CpuRelax();
      }
      const auto start = Clock::now();
      g_pass(words, count);
      const auto finish = Clock::now();
      busy[who] += finish - start;
      ++passes[who];
      // cpu_a ends the run after one of its passes, so both have made about as many.
      if (who == 0 && finish > end) {
        stop.store(true, std::memory_order_release);
        return;
      }
      turn.store(pass + 1, std::memory_order_release);
    }
  };
  std::thread other(side, 1);
  side(0);
  other.join();
  if (!pinned_all) return -1.0;
  const double seconds = std::chrono::duration<double>(busy[0] + busy[1]).count();
  const double bytes = 2.0 * static_cast<double>(passes[0] + passes[1]) * static_cast<double>(count * sizeof(uint64_t));
  return seconds > 0.0 ? bytes / seconds / 1e9 : 0.0;
}

// Nanoseconds for one flag to go from cpu_a to cpu_b and back, averaged over about `duration`;
// negative when a thread could not be pinned.
double RoundTripNs(int cpu_a, int cpu_b, Clock::duration duration) {
  std::atomic<int64_t> flag{0};  // cpu_a makes it odd, cpu_b even again
  std::atomic<bool> pinned_all{true};
  constexpr int64_t kStop = -1;
  std::thread other([&] {
    if (!PinTo(cpu_b)) pinned_all = false;
    int64_t seen = 0;
    while (true) {
      const int64_t value = flag.load(std::memory_order_acquire);
      if (value == kStop) return;
      if (value != seen && (value & 1) != 0) {
        seen = value + 1;
        flag.store(seen, std::memory_order_release);
      } else {
        CpuRelax();
      }
    }
  });
  if (!PinTo(cpu_a)) pinned_all = false;
  int64_t trips = 0;
  const auto start = Clock::now();
  const auto end = start + duration;
  Clock::time_point now = start;
  while (pinned_all.load() && now < end) {
    for (int i = 0; i < 64; ++i) {
      const int64_t sent = 2 * trips + 1;
      flag.store(sent, std::memory_order_release);
      while (flag.load(std::memory_order_acquire) != sent + 1) CpuRelax();
      ++trips;
    }
    now = Clock::now();
  }
  flag.store(kStop, std::memory_order_release);
  other.join();
  if (!pinned_all) return -1.0;
  return trips > 0 ? std::chrono::duration<double, std::nano>(now - start).count() / trips : 0.0;
}

// The handoff lines (between the first two CPUs) over `buffer`. False when a thread could not be
// pinned.
bool ReportHandoff(const std::vector<int>& cpus, std::vector<uint64_t>& buffer, Clock::duration duration) {
  if (cpus.size() < 2) {
    std::cout << "handoff: skipped, one cpu" << std::endl;
    return true;
  }
  // Each of the two alone on the buffer: the rate its own cache gives (a tenant on the same core
  // shows here as a CPU slower than the other).
  std::vector<double> own;
  for (int i = 0; i < 2; ++i) {
    const std::vector<double> rate = Measure({cpus[i]}, [&](size_t) { return MemoryLoop(&buffer, duration); });
    if (rate.empty()) break;
    own.push_back(rate[0]);
  }
  const double between = own.size() == 2 ? HandoffRate(cpus[0], cpus[1], &buffer, duration) : -1.0;
  const double round_trip_ns = between >= 0.0 ? RoundTripNs(cpus[0], cpus[1], duration) : -1.0;
  if (between < 0.0 || round_trip_ns < 0.0) {
    LogFailure(fmt::format("host_probe: cannot pin threads to cpus {} and {}", cpus[0], cpus[1]));
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    std::cout << fmt::format("handoff own cpu {}: {:.1f} GB/s", cpus[i], own[i]) << std::endl;
  }
  std::cout << fmt::format("handoff between cpu {} and {}: {:.1f} GB/s", cpus[0], cpus[1], between) << std::endl;
  const double mean_own = Mean(own);
  std::cout << fmt::format("handoff_between_over_own: {:.2f}", mean_own > 0.0 ? between / mean_own : 0.0) << std::endl;
  std::cout << fmt::format("round trip between cpu {} and {}: {:.0f} ns", cpus[0], cpus[1], round_trip_ns) << std::endl;
  return true;
}

// `buffer` as `bytes` of ones; false, with one ERROR line, when the memory is not there (the only
// allocations whose size a flag sets).
bool AllocateOnes(std::vector<uint64_t>* buffer, size_t bytes, const char* what) {
  try {
    buffer->assign(bytes / sizeof(uint64_t), 1);
    return true;
  } catch (const std::exception&) {
    LogFailure(fmt::format("host_probe: cannot allocate {} KiB for the {} buffer", bytes / 1024, what));
    return false;
  }
}

// Measures and prints; the exit code.
int Probe(int32_t duration_ms, int32_t buffer_mb, int32_t handoff_kb) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    LogFailure("host_probe: cannot read this process's CPU affinity");
    return 4;
  }
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  }
  // Every buffer before any measurement: a run that cannot have them prints no figures.
  std::vector<std::vector<uint64_t>> buffers(cpus.size());
  for (auto& buffer : buffers) {
    if (!AllocateOnes(&buffer, static_cast<size_t>(buffer_mb) * 1024 * 1024, "memory")) return 4;
  }
  std::vector<uint64_t> handoff_buffer;
  if (cpus.size() >= 2 && !AllocateOnes(&handoff_buffer, static_cast<size_t>(handoff_kb) * 1024, "handoff")) {
    return 4;
  }
  std::string isa;
  const LoopFn loop = ChooseLoop(&isa);
  const auto duration = std::chrono::milliseconds(duration_ms);
  std::cout << fmt::format("compute loop: {}; {} ms per measurement; memory: {} MiB per thread", isa, duration_ms,
                           buffer_mb)
            << std::endl;
  std::vector<float> sinks(cpus.size(), 0.0f);
  const bool compute_ok = Report("compute", "GFLOP/s", cpus,
                                 [&](size_t i) { return 2.0 * static_cast<double>(loop(duration, &sinks[i])); });
  if (!compute_ok) return 4;
  volatile float keep = 0.0f;
  for (float sink : sinks) keep = keep + sink;
  const bool memory_ok = Report("memory", "GB/s", cpus, [&](size_t i) { return MemoryLoop(&buffers[i], duration); });
  if (!memory_ok) return 4;
  return ReportHandoff(cpus, handoff_buffer, duration) ? 0 : 4;
}

int Main(int argc, char** argv) {
  int32_t duration_ms = 50;
  int32_t buffer_mb = 8;
  int32_t handoff_kb = 512;
  FlagTable table;
  table.AddInt("duration_ms", &duration_ms, "length of each measurement (per CPU alone, then at once)")
      .InRange(1, 10000);
  table.AddInt("buffer_mb", &buffer_mb, "memory measurement: MiB each thread streams over").InRange(1, 1024);
  table
      .AddInt("handoff_kb", &handoff_kb, "handoff measurement: KiB the first two CPUs take turns on (activation-sized)")
      .InRange(4, 1024 * 1024);
  ToolSpec spec;
  spec.name = "host_probe";
  spec.run = [&]() -> StatusOr<int> { return Probe(duration_ms, buffer_mb, handoff_kb); };
  return RunTool(argc, argv, &table, spec);
}

}  // namespace
}  // namespace touchstone

int main(int argc, char** argv) { return touchstone::Main(argc, argv); }
