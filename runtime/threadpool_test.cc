#include "runtime/threadpool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace touchstone {
namespace {

// Records the chunks a ParallelFor ran and the threads that ran them.
struct Recorder {
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::set<std::thread::id> threads;

  void Add(int64_t begin, int64_t end) {
    std::lock_guard<std::mutex> lock(mutex);
    chunks.emplace_back(begin, end);
    threads.insert(std::this_thread::get_id());
  }
};

TEST(ThreadPoolTest, OneThreadCreatesNoWorkersAndRunsOnTheCaller) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.num_threads(), 1);
  EXPECT_EQ(pool.worker_count(), 0);
  Recorder recorder;
  ParallelFor(&pool, 100, [&](int64_t b, int64_t e) { recorder.Add(b, e); });
  ASSERT_EQ(recorder.chunks.size(), 1u);
  EXPECT_EQ(recorder.chunks[0], std::make_pair(int64_t{0}, int64_t{100}));
  EXPECT_EQ(*recorder.threads.begin(), std::this_thread::get_id());
}

TEST(ThreadPoolTest, NonPositiveCountsMeanOneThread) {
  EXPECT_EQ(ThreadPool(0).num_threads(), 1);
  EXPECT_EQ(ThreadPool(-1).worker_count(), 0);
}

TEST(ThreadPoolTest, SplitsIntoContiguousNearlyEqualChunksOnePerThread) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.worker_count(), 0);  // started by the first job
  Recorder recorder;
  ParallelFor(&pool, 10, [&](int64_t b, int64_t e) { recorder.Add(b, e); });
  EXPECT_EQ(pool.worker_count(), 3);
  std::set<std::pair<int64_t, int64_t>> chunks(recorder.chunks.begin(), recorder.chunks.end());
  // Bounds at floor(chunk * 10 / 4): the longer chunks are spread out, not all first.
  const std::set<std::pair<int64_t, int64_t>> expected = {{0, 2}, {2, 5}, {5, 7}, {7, 10}};
  EXPECT_EQ(chunks, expected);
  EXPECT_LE(recorder.threads.size(), 4u);
}

TEST(ThreadPoolTest, TheCallerRunsTheFirstChunk) {
  ThreadPool pool(3);
  std::thread::id first_chunk_thread;
  ParallelFor(&pool, 3, [&](int64_t b, int64_t) {
    if (b == 0) first_chunk_thread = std::this_thread::get_id();
  });
  EXPECT_EQ(first_chunk_thread, std::this_thread::get_id());
}

TEST(ThreadPoolTest, FewerItemsThanThreadsUseFewerChunks) {
  ThreadPool pool(4);
  Recorder recorder;
  ParallelFor(&pool, 2, [&](int64_t b, int64_t e) { recorder.Add(b, e); });
  EXPECT_EQ(recorder.chunks.size(), 2u);
}

TEST(ThreadPoolTest, MaxChunksSetsTheNumberOfChunks) {
  ThreadPool pool(4);
  Recorder fewer;
  ParallelFor(
      &pool, 100, [&](int64_t b, int64_t e) { fewer.Add(b, e); }, /*max_chunks=*/2);
  EXPECT_EQ(fewer.chunks.size(), 2u);
  // More chunks than threads: all run, contiguous, on at most 4 threads.
  Recorder more;
  ParallelFor(
      &pool, 100, [&](int64_t b, int64_t e) { more.Add(b, e); }, /*max_chunks=*/16);
  std::set<std::pair<int64_t, int64_t>> chunks(more.chunks.begin(), more.chunks.end());
  ASSERT_EQ(chunks.size(), 16u);
  int64_t next = 0;
  for (const auto& chunk : chunks) {
    EXPECT_EQ(chunk.first, next);
    EXPECT_GE(chunk.second - chunk.first, 6);
    EXPECT_LE(chunk.second - chunk.first, 7);
    next = chunk.second;
  }
  EXPECT_EQ(next, 100);
  EXPECT_LE(more.threads.size(), 4u);
}

TEST(ThreadPoolTest, RunsEveryItemExactlyOnceOverManyJobs) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> hits(1000);
  for (int job = 0; job < 2000; ++job) {
    const int64_t n = 1 + job % 1000;
    ParallelFor(&pool, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
    });
  }
  int64_t total = 0;
  for (auto& h : hits) total += h.load();
  int64_t expected = 0;
  for (int job = 0; job < 2000; ++job) expected += 1 + job % 1000;
  EXPECT_EQ(total, expected);
}

// Chunk counts below, at and above the thread count, not multiples of it: each thread's range of
// chunks and the stealing between ranges still run every item exactly once per job.
TEST(ThreadPoolTest, EveryChunkRunsOnceForUnevenChunkCounts) {
  ThreadPool pool(3);
  for (int round = 0; round < 200; ++round) {
    for (int max_chunks : {2, 3, 4, 5, 7, 8, 13, 40}) {
      std::vector<std::atomic<int>> hits(97);
      ParallelFor(
          &pool, 97,
          [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
          },
          max_chunks);
      for (size_t i = 0; i < hits.size(); ++i) {
        ASSERT_EQ(hits[i].load(), 1) << "item " << i << ", " << max_chunks << " chunks";
      }
    }
  }
}

// Chunk 0 (the caller's) waits until chunk 1 has started, so chunk 1 must run on a worker.
void RunTwoChunksNeedingAWorker(ThreadPool* pool, Recorder* recorder) {
  std::atomic<bool> second_started{false};
  ParallelFor(pool, 2, [&](int64_t b, int64_t e) {
    if (b == 1) second_started.store(true);
    if (b == 0) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!second_started.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    }
    recorder->Add(b, e);
  });
}

// Workers report their chunks once per job, after running them: ParallelFor returns only when
// every chunk has finished, however the chunks fall between the threads.
TEST(ThreadPoolTest, ReturnsOnlyAfterEveryChunkHasFinished) {
  ThreadPool pool(3);
  for (int job = 0; job < 200; ++job) {
    const int chunks = 2 + job % 9;
    std::vector<std::atomic<int>> done(chunks);
    for (auto& d : done) d.store(0);
    ParallelFor(
        &pool, chunks,
        [&](int64_t b, int64_t e) {
          // Slow enough that a worker still runs its chunk when the caller is done with its own.
          if (b % 3 == 1) std::this_thread::sleep_for(std::chrono::microseconds(200));
          for (int64_t i = b; i < e; ++i) done[i].store(1, std::memory_order_release);
        },
        chunks);
    for (int i = 0; i < chunks; ++i) {
      ASSERT_EQ(done[i].load(std::memory_order_acquire), 1) << "job " << job << " chunk " << i;
    }
  }
}

TEST(ThreadPoolTest, WorkersWakeAfterSleeping) {
  ThreadPool pool(2);
  Recorder first;
  RunTwoChunksNeedingAWorker(&pool, &first);
  EXPECT_EQ(first.threads.size(), 2u);
  // Long enough for the worker to stop spinning and sleep.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Recorder second;
  RunTwoChunksNeedingAWorker(&pool, &second);
  EXPECT_EQ(second.chunks.size(), 2u);
  EXPECT_EQ(second.threads.size(), 2u);
}

TEST(ThreadPoolTest, TheCallerRunsChunksNoWorkerHasClaimed) {
  // Every chunk runs exactly once even when workers are slow to pick jobs up.
  ThreadPool pool(4);
  for (int job = 0; job < 200; ++job) {
    std::atomic<int> runs{0};
    ParallelFor(&pool, 4, [&](int64_t b, int64_t e) { runs.fetch_add(static_cast<int>(e - b)); });
    ASSERT_EQ(runs.load(), 4);
    if (job % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(ThreadPoolTest, CurrentThreadTellsConcurrentChunksApart) {
  // Each chunk notes its thread's index on entry and leaves it on exit: two chunks running at once
  // must never hold the same index, each thread keeps one index, and the caller's is 0.
  ThreadPool pool(3);
  EXPECT_EQ(pool.current_thread(), 0);
  std::mutex mutex;
  std::map<std::thread::id, int> index_of;
  std::vector<std::atomic<int>> busy(3);
  for (auto& b : busy) b.store(0);
  for (int job = 0; job < 300; ++job) {
    ParallelFor(
        &pool, 12,
        [&](int64_t b, int64_t) {
          const int index = pool.current_thread();
          ASSERT_GE(index, 0);
          ASSERT_LT(index, 3);
          EXPECT_EQ(busy[index].fetch_add(1), 0) << "two chunks at once on index " << index;
          if (b % 5 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
          {
            std::lock_guard<std::mutex> lock(mutex);
            const auto inserted = index_of.emplace(std::this_thread::get_id(), index);
            EXPECT_EQ(inserted.first->second, index) << "a thread changed its index";
          }
          busy[index].fetch_sub(1);
        },
        12);
  }
  EXPECT_EQ(index_of.at(std::this_thread::get_id()), 0);
  // Another pool's workers are that pool's; here they count as callers.
  ThreadPool other(2);
  ParallelFor(
      &other, 2, [&](int64_t, int64_t) { EXPECT_EQ(pool.current_thread(), 0); }, 2);
}

TEST(ThreadPoolTest, NestedCallsRunSeriallyInsideTheChunk) {
  ThreadPool pool(2);
  std::atomic<int> inner_chunks{0};
  ParallelFor(&pool, 2, [&](int64_t, int64_t) {
    ParallelFor(&pool, 8, [&](int64_t b, int64_t e) {
      EXPECT_EQ(b, 0);
      EXPECT_EQ(e, 8);
      inner_chunks.fetch_add(1);
    });
  });
  EXPECT_EQ(inner_chunks.load(), 2);
}

TEST(ThreadPoolTest, NoPoolRunsOnTheCaller) {
  Recorder recorder;
  ParallelFor(static_cast<TaskRunner*>(nullptr), 5, [&](int64_t b, int64_t e) { recorder.Add(b, e); });
  ASSERT_EQ(recorder.chunks.size(), 1u);
  EXPECT_EQ(recorder.chunks[0], std::make_pair(int64_t{0}, int64_t{5}));
}

TEST(ThreadPoolTest, DestroysCleanlyWhileWorkersSleepOrSpin) {
  for (int i = 0; i < 20; ++i) {
    ThreadPool pool(3);
    if (i % 2 == 0) ParallelFor(&pool, 3, [](int64_t, int64_t) {});
  }
}

}  // namespace
}  // namespace touchstone
