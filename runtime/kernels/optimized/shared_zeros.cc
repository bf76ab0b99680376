// SharedZeroFloats, AllocateZeroed and FreeZeroed (op_common.h): zeros from fresh anonymous pages.
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>

#include "runtime/kernels/optimized/op_common.h"

namespace touchstone {
namespace optimized {

const float* SharedZeroFloats(size_t count) {
  // Grown by mapping a larger region; earlier regions stay mapped (kernels keep pointers into them),
  // which costs address space only.
  static std::mutex mutex;
  static const float* zeros = nullptr;
  static size_t capacity = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (count > capacity || zeros == nullptr) {
    constexpr size_t kMinBytes = 64 * 1024;
    const size_t page = 4096;
    size_t bytes = std::max({count * sizeof(float), 2 * capacity * sizeof(float), kMinBytes});
    bytes = (bytes + page - 1) / page * page;
    void* region = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) throw std::bad_alloc();
    zeros = static_cast<const float*>(region);
    capacity = bytes / sizeof(float);
  }
  return zeros;
}

void* AllocateZeroed(size_t bytes, size_t* mapped_bytes) {
  if (bytes >= kZeroPagesMinBytes) {
    void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) throw std::bad_alloc();
    *mapped_bytes = bytes;
    return region;
  }
  *mapped_bytes = 0;
  void* memory = ::operator new(bytes, std::align_val_t(kCacheLineBytes));
  std::memset(memory, 0, bytes);
  return memory;
}

void FreeZeroed(void* memory, size_t mapped_bytes) {
  if (memory == nullptr) return;
  if (mapped_bytes > 0) {
    munmap(memory, mapped_bytes);
  } else {
    ::operator delete(memory, std::align_val_t(kCacheLineBytes));
  }
}

}  // namespace optimized
}  // namespace touchstone
