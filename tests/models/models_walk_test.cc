// Every file in ../shared/models either runs (zero inputs, reference kernels) or is refused with a
// one-line message naming the file; none may crash or hang. Prints a table of what happened.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

// Runs one model; returns "ran" or the refusal message.
std::string RunModel(const std::string& path, bool* refused_cleanly) {
  *refused_cleanly = true;
  auto model = Model::FromFile(path);
  if (!model.ok()) return model.status().message();
  InterpreterOptions options;
  options.kernel_set = KernelSet::kReference;
  options.max_tensor_bytes = uint64_t{256} << 20;  // conv_huge_im2col asks for far more
  options.max_loop_iterations = 100000;
  auto interpreter = Interpreter::Create(model.value(), options);
  if (!interpreter.ok()) return interpreter.status().message();
  Status status = interpreter.value()->AllocateTensors();
  if (!status.ok()) return status.message();
  for (size_t i = 0; i < interpreter.value()->inputs().size(); ++i) {
    TfLiteTensor* t = interpreter.value()->input_tensor(i);
    if (t->data.raw != nullptr) std::memset(t->data.raw, 0, t->bytes);
  }
  status = interpreter.value()->Invoke();
  if (!status.ok()) return status.message();
  return "ran";
}

// Walks every model under `folder`; each must run or be refused with one line naming the file.
void WalkFolder(const std::string& shared, const std::string& folder, const std::string& suite) {
  std::vector<std::string> models;
  testing::ListModelFiles(shared + "/" + folder, &models);
  std::sort(models.begin(), models.end());
  ASSERT_FALSE(models.empty()) << "no models under " << folder;
  int ran = 0;
  for (const std::string& path : models) {
    bool clean = true;
    const std::string outcome = RunModel(path, &clean);
    const std::string name = path.substr(shared.size() + 1);
    std::printf("%-78s %s\n", name.c_str(), outcome.substr(0, 240).c_str());
    if (outcome == "ran") {
      ++ran;
    } else {
      EXPECT_EQ(outcome.find('\n'), std::string::npos) << "multi-line error for " << name;
      EXPECT_NE(outcome.find(path), std::string::npos) << "error does not name the file: " << outcome;
    }
  }
  std::printf("%s: %d of %zu models ran; the rest were refused with a message\n", suite.c_str(), ran, models.size());
  testing::ReportCases(suite, static_cast<int>(models.size()), static_cast<int>(models.size()));
}

TEST(ModelsWalkTest, EverySharedModelRunsOrIsRefusedCleanly) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  WalkFolder(shared, "models", "models");
}

// ../shared/hostile: damaged models. Reaching the end of this test at all means none crashed.
TEST(ModelsWalkTest, EveryHostileModelRunsOrIsRefusedCleanly) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  WalkFolder(shared, "hostile", "hostile");
}

}  // namespace
}  // namespace touchstone
