// Files that unit tests write: where (the test's temporary folder), how, and small images to decode.
#ifndef TOUCHSTONE_TESTS_COMMON_TEST_FILES_H_
#define TOUCHSTONE_TESTS_COMMON_TEST_FILES_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace touchstone {
namespace testing {

// Bazel's per-test temporary folder (TEST_TMPDIR), else /tmp.
inline std::string TestTempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

inline void WriteTestFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

inline void WriteTestFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  WriteTestFile(path, std::string(bytes.begin(), bytes.end()));
}

// A 24-bit BMP of `rgb` (height x width x 3, top row first); rows are stored bottom-up, padded to 4 bytes.
inline std::vector<uint8_t> Bmp24(int height, int width, const std::vector<uint8_t>& rgb) {
  const int row = (width * 3 + 3) / 4 * 4;
  const uint32_t size = 54 + row * height;
  std::vector<uint8_t> b(size, 0);
  auto put32 = [&](int at, uint32_t v) { std::memcpy(&b[at], &v, 4); };
  b[0] = 'B';
  b[1] = 'M';
  put32(2, size);
  put32(10, 54);  // pixels start
  put32(14, 40);  // BITMAPINFOHEADER
  put32(18, static_cast<uint32_t>(width));
  put32(22, static_cast<uint32_t>(height));
  b[26] = 1;   // planes
  b[28] = 24;  // bits per pixel
  put32(34, static_cast<uint32_t>(row * height));
  for (int y = 0; y < height; ++y) {
    uint8_t* dst = &b[54 + (height - 1 - y) * row];
    for (int x = 0; x < width; ++x) {
      const uint8_t* p = &rgb[(y * width + x) * 3];
      dst[x * 3] = p[2];  // BGR
      dst[x * 3 + 1] = p[1];
      dst[x * 3 + 2] = p[0];
    }
  }
  return b;
}

}  // namespace testing
}  // namespace touchstone

#endif  // TOUCHSTONE_TESTS_COMMON_TEST_FILES_H_
