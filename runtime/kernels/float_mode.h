// The floating-point mode of the calling thread, for the optimized kernels: they flush denormal floats
// to zero (and read denormal inputs as zero) while they run, as XNNPACK does for its operators.
// Arithmetic on denormals takes microcode assists on x86, up to a hundred times slower: an attention
// layer's softmax is full of them (exp of large negatives), and the matrix product after it ran 200x
// slower on them. Results move by less than 1.2e-38, far inside the optimized kernels' tolerance (1e-5
// of the output's largest magnitude); the reference kernels never run under it and stay TFLite's bit for
// bit. The thread pool runs each job's chunks in its caller's mode (runtime/threadpool.h).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_FLOAT_MODE_H_
#define TOUCHSTONE_RUNTIME_KERNELS_FLOAT_MODE_H_

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace touchstone {

// The thread's control word: MXCSR on x86, FPCR on Arm64, 0 elsewhere.
inline uint64_t ReadFloatMode() {
#if defined(__x86_64__) || defined(__i386__)
  return _mm_getcsr();
#elif defined(__aarch64__)
  uint64_t fpcr;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
#else
  return 0;
#endif
}

inline void WriteFloatMode(uint64_t mode) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(static_cast<unsigned int>(mode));
#elif defined(__aarch64__)
  __asm__ __volatile__("msr fpcr, %0" : : "r"(mode));
#else
  (void)mode;
#endif
}

// The mode with denormals flushed: FTZ and DAZ on x86, FZ on Arm64.
inline uint64_t WithDenormalsFlushed(uint64_t mode) {
#if defined(__x86_64__) || defined(__i386__)
  return mode | 0x8040u;
#elif defined(__aarch64__)
  return mode | (uint64_t{1} << 24);
#else
  return mode;
#endif
}

// Flushes denormals on this thread for its lifetime, then restores the mode it found.
class ScopedDenormalFlush {
 public:
  ScopedDenormalFlush() : saved_(ReadFloatMode()) {
    const uint64_t flushed = WithDenormalsFlushed(saved_);
    if (flushed != saved_) WriteFloatMode(flushed);
  }
  ~ScopedDenormalFlush() {
    if (ReadFloatMode() != saved_) WriteFloatMode(saved_);
  }
  ScopedDenormalFlush(const ScopedDenormalFlush&) = delete;
  ScopedDenormalFlush& operator=(const ScopedDenormalFlush&) = delete;

 private:
  uint64_t saved_;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_FLOAT_MODE_H_
