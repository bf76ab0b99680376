// Model-fuzzer findings that are a shared model with a few bytes changed, kept as regression cases
// without copying the model into the repository: regressions/model_mutations.txt lists
// "<path under ../shared> <byte offset> <new byte, hex> [more offset/byte pairs] # what it found".
// Each mutated model goes through the model fuzz target (load, AllocateTensors, Invoke with both
// kernel sets); the sanitizer build (--config=asan) turns any report into a failure.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/common/shared_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace touchstone {
namespace {

TEST(ModelMutationsTest, EveryListedMutationRunsOrIsRefused) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  std::ifstream list("tests/fuzz/regressions/model_mutations.txt");
  ASSERT_TRUE(list) << "tests/fuzz/regressions/model_mutations.txt is missing";
  std::string line;
  int cases = 0;
  while (std::getline(list, line)) {
    const std::string entry = line.substr(0, line.find('#'));
    std::istringstream fields(entry);
    std::string path;
    if (!(fields >> path)) continue;  // blank or comment
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(testing::ReadFileBytes(shared + "/" + path, &bytes)) << "cannot read " << path;
    std::string offset_text, byte_text;
    while (fields >> offset_text >> byte_text) {
      const size_t offset = std::stoul(offset_text);
      ASSERT_LT(offset, bytes.size()) << line;
      bytes[offset] = static_cast<uint8_t>(std::stoul(byte_text, nullptr, 16));
    }
    std::printf("mutation: %s\n", line.c_str());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++cases;
  }
  EXPECT_GT(cases, 0);
  std::printf("%d mutated models ran or were refused\n", cases);
}

}  // namespace
}  // namespace touchstone
