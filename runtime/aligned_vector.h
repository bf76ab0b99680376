// CacheAlignedVector: a std::vector whose first element starts a cache line. std::vector's own
// allocator aligns to 16 bytes (a large block from malloc starts 16 bytes into a page), so a
// 64-byte vector load from packed weights, a padded row or a tensor held outside the arena would
// straddle two cache lines every time.
#ifndef TOUCHSTONE_RUNTIME_ALIGNED_VECTOR_H_
#define TOUCHSTONE_RUNTIME_ALIGNED_VECTOR_H_

#include <cstddef>
#include <memory>
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
  T* allocate(size_t count) { return static_cast<T*>(::operator new(count * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const CacheLineAllocator<U>&) const {
    return false;
  }
};

template <typename T>
using CacheAlignedVector = std::vector<T, CacheLineAllocator<T>>;

// A cache-line-aligned block of bytes that is not cleared: a large one stays untouched (its pages
// unmapped) until written, as TFLite's arena, so planning a 37 MB arena costs no page faults at
// Init. Resize keeps the block when it is large enough.
class CacheAlignedBuffer {
 public:
  void Resize(size_t bytes) {
    if (bytes > capacity_) {
      data_.reset(static_cast<unsigned char*>(::operator new(bytes, std::align_val_t(kCacheLineBytes))));
      capacity_ = bytes;
    }
    size_ = bytes;
  }
  unsigned char* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(unsigned char* p) const { ::operator delete(p, std::align_val_t(kCacheLineBytes)); }
  };
  std::unique_ptr<unsigned char, Free> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_ALIGNED_VECTOR_H_
