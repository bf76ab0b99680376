#include "runtime/threadpool.h"

#include "runtime/kernels/float_mode.h"

#include <algorithm>
#include <chrono>

namespace touchstone {
namespace {

constexpr int kMaxThreads = 1024;
constexpr int kChunkBits = 16;
constexpr uint64_t kChunkMask = (uint64_t{1} << kChunkBits) - 1;
// A range word keeps the low 32 bits of the job sequence (a worker would have to sleep through 2^32
// jobs to mistake an old job for the current one).
constexpr int kRangeSequenceShift = 2 * kChunkBits;
constexpr uint64_t kRangeSequenceMask = (uint64_t{1} << 32) - 1;
// How long a worker keeps polling for the next job before it sleeps. Ops of one Invoke follow each
// other within microseconds; between Invokes the workers go to sleep.
constexpr auto kSpinDuration = std::chrono::microseconds(300);

// True on the pool's worker threads (a ParallelFor from inside a chunk runs serially).
thread_local bool t_in_pool_chunk = false;
// On a worker thread: its pool and its index there (current_thread).
thread_local const ThreadPool* t_worker_pool = nullptr;
thread_local int t_worker_index = 0;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// [begin, end) of chunk `chunk` when n items are split into `chunks` nearly equal parts, at evenly
// spaced bounds (the longer parts spread over the threads' ranges, not all in the first ones).
inline void ChunkBounds(int64_t n, int chunks, int chunk, int64_t* begin, int64_t* end) {
  *begin = chunk * n / chunks;
  *end = (chunk + 1) * n / chunks;
}

}  // namespace

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(std::min(std::max(num_threads, 1), kMaxThreads)),
      ranges_(new Range[std::min(std::max(num_threads, 1), kMaxThreads)]) {}

void ThreadPool::StartWorkers() {
  workers_.reserve(num_threads_ - 1);
  for (int i = 1; i < num_threads_; ++i) {
    workers_.emplace_back([this, i] { WorkerLoop(i); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
    // A new job word (with no chunks) wakes spinning workers too.
    const uint64_t sequence = (job_word_.load(std::memory_order_relaxed) >> kChunkBits) + 1;
    job_word_.store(sequence << kChunkBits, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::RunChunk(int chunk) {
  int64_t begin, end;
  ChunkBounds(job_.n, job_.chunks, chunk, &begin, &end);
  if (begin < end) job_.fn(job_.state, begin, end);
}

int ThreadPool::ClaimFrom(int range, uint64_t sequence) {
  std::atomic<uint64_t>& word = ranges_[range].word;
  uint64_t value = word.load(std::memory_order_acquire);
  while (true) {
    if ((value >> kRangeSequenceShift) != (sequence & kRangeSequenceMask)) return -1;
    const int next = static_cast<int>(value & kChunkMask);
    const int end = static_cast<int>((value >> kChunkBits) & kChunkMask);
    if (next >= end) return -1;
    if (word.compare_exchange_weak(value, value + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
      return next;
    }
  }
}

int ThreadPool::Claim(int thread, uint64_t sequence) {
  for (int k = 0; k < num_threads_; ++k) {
    int range = thread + k;
    if (range >= num_threads_) range -= num_threads_;
    const int chunk = ClaimFrom(range, sequence);
    if (chunk >= 0) return chunk;
  }
  return -1;
}

void ThreadPool::ParallelFor(int64_t n, RangeFn fn, void* state, int max_chunks) {
  if (n <= 0) return;
  const int64_t wanted = max_chunks > 0 ? std::min<int64_t>(max_chunks, kChunkMask) : num_threads_;
  const int chunks = static_cast<int>(std::min<int64_t>(n, wanted));
  bool expected = false;
  if (chunks <= 1 || num_threads_ <= 1 || t_in_pool_chunk ||
      !busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
    fn(state, 0, n);
    return;
  }
  // Workers start with the first job, not with the pool: the pool is made while the model is
  // prepared, and a worker polling there would take a CPU from the preparation (on a 2-CPU
  // machine, with the benchmark's parent process on the other, Init grew by hundreds of us).
  if (workers_.empty()) StartWorkers();
  job_.n = n;
  job_.chunks = chunks;
  job_.fn = fn;
  job_.state = state;
  job_.float_mode = ReadFloatMode();
  park_.store(false, std::memory_order_relaxed);
  const uint64_t sequence = (job_word_.load(std::memory_order_relaxed) >> kChunkBits) + 1;
  for (int t = 0; t < num_threads_; ++t) {
    // Thread t's range [ceil(t * chunks / threads), ceil((t + 1) * chunks / threads)): the
    // caller's is never empty and starts at chunk 0.
    const uint64_t threads = static_cast<uint64_t>(num_threads_);
    const uint64_t begin = (static_cast<uint64_t>(t) * chunks + threads - 1) / threads;
    const uint64_t end = (static_cast<uint64_t>(t + 1) * chunks + threads - 1) / threads;
    // Chunk 0 is the caller's before the job is published (no worker can take it).
    const uint64_t next = t == 0 ? 1 : begin;
    ranges_[t].word.store(((sequence & kRangeSequenceMask) << kRangeSequenceShift) | (end << kChunkBits) | next,
                          std::memory_order_release);
  }
  job_word_.store((sequence << kChunkBits) | static_cast<uint64_t>(chunks), std::memory_order_release);
  {
    // Workers that went to sleep check the job word under the mutex, so none misses this job.
    std::lock_guard<std::mutex> lock(mutex_);
    if (sleepers_ > 0) wake_.notify_all();
  }

  t_in_pool_chunk = true;
  // Chunk 0, the rest of the caller's range, then chunks no worker has claimed yet.
  RunChunk(0);
  int own = 1;
  for (int chunk; (chunk = Claim(0, sequence)) >= 0; ++own) RunChunk(chunk);
  t_in_pool_chunk = false;

  // finished_ only grows (the caller never writes the line the workers add to).
  const uint64_t target = finished_before_ + static_cast<uint64_t>(chunks - own);
  int spins = 0;
  while (finished_.load(std::memory_order_acquire) != target) {
    if (++spins < 4096) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
  finished_before_ = target;
  busy_.store(false, std::memory_order_release);
}

int ThreadPool::current_thread() const { return t_worker_pool == this ? t_worker_index : 0; }

void ThreadPool::Park() { park_.store(true, std::memory_order_relaxed); }

void ThreadPool::WorkerLoop(int thread) {
  t_in_pool_chunk = true;
  t_worker_pool = this;
  t_worker_index = thread;
  // The word the pool starts with (workers are created before any job is published).
  uint64_t seen = 0;
  uint64_t float_mode = ReadFloatMode();
  while (true) {
    uint64_t word = job_word_.load(std::memory_order_acquire);
    if (word == seen) {
      // Poll for a while, then sleep until the word changes.
      const auto deadline = std::chrono::steady_clock::now() + kSpinDuration;
      int polls = 0;
      while ((word = job_word_.load(std::memory_order_acquire)) == seen) {
        CpuRelax();
        if (park_.load(std::memory_order_relaxed)) break;
        if ((++polls & 63) == 0 && std::chrono::steady_clock::now() > deadline) break;
      }
      if (word == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        ++sleepers_;
        wake_.wait(lock, [&] {
          word = job_word_.load(std::memory_order_acquire);
          return word != seen;
        });
        --sleepers_;
      }
    }
    seen = word;
    if (stop_.load(std::memory_order_acquire)) return;
    const uint64_t sequence = word >> kChunkBits;
    // The caller's floating-point mode (the optimized kernels flush denormals); written only when it
    // changes between jobs.
    if (job_.float_mode != float_mode) {
      float_mode = job_.float_mode;
      WriteFloatMode(float_mode);
    }
    int done = 0;
    for (int chunk; (chunk = Claim(thread, sequence)) >= 0; ++done) RunChunk(chunk);
    // One add per job: the caller polls this line, so each add costs a round trip between cores.
    if (done > 0) finished_.fetch_add(done, std::memory_order_acq_rel);
  }
}

}  // namespace touchstone
