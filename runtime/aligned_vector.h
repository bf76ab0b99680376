// CacheAlignedVector: a std::vector whose first element starts a cache line. std::vector's own
// allocator aligns to 16 bytes (a large block from malloc starts 16 bytes into a page), so a
// 64-byte vector load from packed weights, a padded row or a tensor held outside the arena would
// straddle two cache lines every time.
#ifndef TOUCHSTONE_RUNTIME_ALIGNED_VECTOR_H_
#define TOUCHSTONE_RUNTIME_ALIGNED_VECTOR_H_

#include <cstddef>
#include <new>
#include <vector>

namespace touchstone {

constexpr size_t kCacheLineBytes = 64;

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{kCacheLineBytes};
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t count) {
    return static_cast<T*>(::operator new(count * sizeof(T), kAlignment));
  }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

template <typename T>
using CacheAlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_ALIGNED_VECTOR_H_
