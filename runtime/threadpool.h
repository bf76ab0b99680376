// The interpreter's thread pool: num_threads - 1 worker threads, created once, plus the calling
// thread, which always runs the first chunk of a ParallelFor. num_threads <= 1 creates no thread at
// all. Workers spin briefly after each job (ops follow each other within microseconds during
// Invoke) and then sleep on a condition variable, so an idle interpreter costs no CPU.
//
// No oversubscription: one ParallelFor runs at most num_threads chunks at once (more chunks than
// threads are taken in order by whichever thread is free), and a ParallelFor issued from inside a
// chunk (or from a second thread while one is running) runs serially on its caller instead of
// queueing more work.
#ifndef TOUCHSTONE_RUNTIME_THREADPOOL_H_
#define TOUCHSTONE_RUNTIME_THREADPOOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/kernels/cpu_backend_context.h"

namespace touchstone {

class ThreadPool : public TaskRunner {
 public:
  // Values below 1 mean 1.
  explicit ThreadPool(int num_threads);
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const override { return num_threads_; }
  void ParallelFor(int64_t n, RangeFn fn, void* state, int max_chunks = 0) override;
  int current_thread() const override;
  // Workers polling for the next job go to sleep now instead of after their polling time: another
  // thread pool (a delegate's) is about to run on these CPUs, and a worker spinning beside it takes a
  // CPU from it. The next job wakes them.
  void Park();

  // Worker threads that exist: none before the first ParallelFor that splits its work, then
  // num_threads - 1. For tests.
  int worker_count() const { return static_cast<int>(workers_.size()); }

 private:
  void StartWorkers();
  void WorkerLoop(int thread);
  void RunChunk(int chunk);
  // Claims a chunk of job `sequence` for thread `thread`: the next of its own range, else the next
  // of another thread's range; -1 when none is left or the job is no longer the current one.
  int Claim(int thread, uint64_t sequence);
  int ClaimFrom(int range, uint64_t sequence);

  const int num_threads_;
  std::vector<std::thread> workers_;

  // Each thread (the caller is thread 0) owns a contiguous range of chunks, in thread order, so
  // consecutive ops with the same split give each thread the same part of the data (on a CPU whose
  // cores do not share a cache, reading what the other core just wrote is the slow part of small
  // layers). A thread takes its own range from the front, then the others' (a late worker's
  // chunks run on whoever is free, so a busy machine degrades to running on fewer threads instead
  // of waiting). Range r's word packs (sequence << 32) | (end << 16) | next chunk.
  struct alignas(64) Range {
    std::atomic<uint64_t> word{0};
  };
  std::unique_ptr<Range[]> ranges_;

  // Cache lines are laid out by who writes them while a job runs: a line another core wrote costs
  // a round trip between the cores to read (about 250 ns on this project's 2-vCPU host, where the
  // two vCPUs can sit on different core complexes).
  // - The job, written by the caller before it publishes job_word_, then only read.
  struct alignas(64) Job {
    int64_t n = 0;
    int chunks = 0;
    RangeFn fn = nullptr;
    void* state = nullptr;
    // The caller's floating-point mode: workers run the job's chunks in it (float_mode.h).
    uint64_t float_mode = 0;
  };
  Job job_;
  // - `job_word_` packs (sequence << 16) | chunks and announces a job; `stop_` ends the workers.
  //   Workers poll this line between jobs.
  alignas(64) std::atomic<uint64_t> job_word_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> park_{false};  // Park(): stop polling, sleep
  // - The chunks that threads other than the caller have completed, over all jobs: each worker
  //   adds its count once per job, when it finds no chunk left, and the caller polls (it never
  //   writes this line, so it does not take it back from the worker).
  alignas(64) std::atomic<uint64_t> finished_{0};
  // - The caller's own: one ParallelFor at a time, and finished_ when the last job ended.
  alignas(64) std::atomic<bool> busy_{false};
  uint64_t finished_before_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
  int sleepers_ = 0;  // guarded by mutex_
};

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_THREADPOOL_H_
