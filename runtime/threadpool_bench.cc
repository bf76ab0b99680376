// What one ParallelFor costs on this machine: microseconds per call for a job of a few chunks whose
// work is tiny, so that the figure is the hand-over between the caller and the workers (publishing
// the job, claiming chunks, reporting them done). Kernels issue one such call per layer, so a model
// pays it about once per layer on two or more threads (docs/performance.md, "The runtime around the kernels").
// What it does not measure: the kernels' own scaling, or cache effects of real activations.
//
//   bazel run -c opt //runtime:threadpool_bench [-- items [threads [chunks]]]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/threadpool.h"

namespace {

void Touch(void* state, int64_t begin, int64_t end) {
  float* data = static_cast<float*>(state);
  for (int64_t i = begin; i < end; ++i) data[i] = data[i] * 0.5f + 1.f;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t items = argc > 1 ? std::atoll(argv[1]) : 16;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int chunks = argc > 3 ? std::atoi(argv[3]) : 8;
  if (items <= 0 || threads <= 0 || chunks <= 0) {
    std::fprintf(stderr, "usage: threadpool_bench [items > 0 [threads > 0 [chunks > 0]]]\n");
    return 2;
  }
  std::vector<float> data(static_cast<size_t>(items), 1.f);
  touchstone::ThreadPool pool(threads);
  constexpr int kCalls = 100000;
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int call = 0; call < kCalls; ++call) pool.ParallelFor(items, Touch, data.data(), chunks);
    const double per_call_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / kCalls;
    std::printf("items=%lld threads=%d chunks=%d: %.2f us per ParallelFor\n", static_cast<long long>(items), threads,
                chunks, per_call_us);
  }
  return 0;
}
