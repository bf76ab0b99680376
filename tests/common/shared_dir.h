// Where ../shared is, for tests that read real models and data. Bazel runs tests from their runfiles,
// so the path comes in as TOUCHSTONE_SHARED_DIR (scripts/test.sh passes it). Without it such tests
// skip with a message, except under CI=true, where a missing ../shared is a failure.
#ifndef TOUCHSTONE_TESTS_COMMON_SHARED_DIR_H_
#define TOUCHSTONE_TESTS_COMMON_SHARED_DIR_H_

#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace touchstone {
namespace testing {

inline bool UnderCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// The shared folder, or "" when absent.
inline std::string SharedDir() {
  const char* dir = std::getenv("TOUCHSTONE_SHARED_DIR");
  if (dir == nullptr || *dir == '\0') return "";
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return "";
  return dir;
}

inline bool ReadFileBytes(const std::string& path, std::vector<uint8_t>* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

// Appends every model file (.bin or .tflite) below `dir`, subfolders included, in directory order.
inline void ListModelFiles(const std::string& dir, std::vector<std::string>* out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      ListModelFiles(path, out);
    } else if ((name.size() > 4 && name.substr(name.size() - 4) == ".bin") ||
               (name.size() > 7 && name.substr(name.size() - 7) == ".tflite")) {
      out->push_back(path);
    }
  }
  closedir(d);
}

// Prints the line .ci/run counts: "TOUCHSTONE_CASES <suite> ran=N of=M".
inline void ReportCases(const std::string& suite, int ran, int total) {
  std::printf("TOUCHSTONE_CASES %s ran=%d of=%d\n", suite.c_str(), ran, total);
  std::fflush(stdout);
}

}  // namespace testing
}  // namespace touchstone

// Skips (or, under CI=true, fails) when ../shared is not available.
#define TOUCHSTONE_REQUIRE_SHARED(dir)                                                  \
  const std::string dir = ::touchstone::testing::SharedDir();                           \
  if (dir.empty()) {                                                                    \
    if (::touchstone::testing::UnderCi()) {                                             \
      FAIL() << "TOUCHSTONE_SHARED_DIR is not set or missing, and CI=true requires it"; \
    }                                                                                   \
    GTEST_SKIP() << "../shared not available (set TOUCHSTONE_SHARED_DIR); skipping";    \
  }

#endif  // TOUCHSTONE_TESTS_COMMON_SHARED_DIR_H_
