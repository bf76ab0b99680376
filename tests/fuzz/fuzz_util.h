// Helpers for the fuzz targets: readers that take a path get the fuzz input through an in-memory file
// (memfd), so fuzzing writes nothing to disk.
#ifndef TOUCHSTONE_TESTS_FUZZ_FUZZ_UTIL_H_
#define TOUCHSTONE_TESTS_FUZZ_FUZZ_UTIL_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace touchstone {
namespace fuzz {

// One in-memory file, rewritten for every input; Path() opens it afresh (offset 0).
class MemFile {
 public:
  explicit MemFile(const char* name) {
    fd_ = memfd_create(name, 0);
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  const std::string& Write(const uint8_t* data, size_t size) {
    if (ftruncate(fd_, 0) != 0) std::abort();
    size_t done = 0;
    while (done < size) {
      const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) std::abort();
      done += static_cast<size_t>(n);
    }
    return path_;
  }
  const std::string& Path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Consumes bytes from the front of the input for parameters; what remains is the payload.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }
  // A value in [low, high].
  int Range(int low, int high) { return low + static_cast<int>(Byte() % static_cast<unsigned>(high - low + 1)); }
  float Float() {
    uint32_t bits = 0;
    for (int i = 0; i < 4; ++i) bits = (bits << 8) | Byte();
    float v;
    static_assert(sizeof(v) == sizeof(bits), "float is 32 bits");
    __builtin_memcpy(&v, &bits, sizeof(v));
    return v;
  }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace fuzz
}  // namespace touchstone

#endif  // TOUCHSTONE_TESTS_FUZZ_FUZZ_UTIL_H_
