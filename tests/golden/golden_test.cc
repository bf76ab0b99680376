// The golden harness: every model of ../shared/golden is run with the reference kernels on the
// inputs TensorFlow Lite was given, and its outputs are compared with TFLite's (golden/README.md):
// float within 1e-5 of the output's largest magnitude, integers exactly (tier 3: one int8 step).
// Tiers 1-3 must match; tier-4 models must run (their outputs are information only). Anything that
// does not run says why ("not yet: ..."), never skipped silently.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/model.h"
#include "tests/common/shared_dir.h"
#include "tests/common/tensor_compare.h"

namespace touchstone {
namespace {

using nlohmann::json;

struct CaseResult {
  std::string folder;
  int tier = 0;
  bool matched = false;
  std::string detail;  // why not, or the worst relative error
};

int FindByName(Interpreter* interpreter, const std::vector<int>& tensors, const std::string& name) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (name == interpreter->tensor(tensors[i])->name) return static_cast<int>(i);
  }
  return -1;
}

CaseResult RunCase(const std::string& shared, const std::string& folder, int tier) {
  CaseResult result{folder, tier, false, ""};
  const std::string dir = shared + "/golden/" + folder;
  std::ifstream meta_file(dir + "/meta.json");
  if (!meta_file) {
    result.detail = "meta.json missing";
    return result;
  }
  json meta = json::parse(meta_file);
  const std::string model_dir = folder.substr(0, folder.find('/'));
  const std::string model_path = shared + "/models/" + model_dir + "/" + meta["model"].get<std::string>();

  auto model = Model::FromFile(model_path);
  if (!model.ok()) {
    result.detail = "not yet: " + model.status().message();
    return result;
  }
  InterpreterOptions options;
  options.kernel_set = KernelSet::kReference;
  options.num_threads = 1;
  auto created = Interpreter::Create(model.value(), options);
  if (!created.ok()) {
    result.detail = "not yet: " + created.status().message();
    return result;
  }
  Interpreter* interpreter = created.value().get();
  const json& inputs = meta["inputs"];
  std::vector<int> input_positions;
  for (size_t k = 0; k < inputs.size(); ++k) {
    int position = FindByName(interpreter, interpreter->inputs(), inputs[k]["name"]);
    if (position < 0) position = static_cast<int>(k);
    if (position >= static_cast<int>(interpreter->inputs().size())) {
      result.detail = "input '" + inputs[k]["name"].get<std::string>() + "' not found";
      return result;
    }
    input_positions.push_back(position);
    Status resized = interpreter->ResizeInputTensor(interpreter->inputs()[position],
                                                    inputs[k]["shape"].get<std::vector<int>>());
    if (!resized.ok()) {
      result.detail = "not yet: " + resized.message();
      return result;
    }
  }
  Status allocated = interpreter->AllocateTensors();
  if (!allocated.ok()) {
    result.detail = "not yet: " + allocated.message();
    return result;
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::vector<uint8_t> bytes;
    testing::ReadFileBytes(dir + "/" + inputs[k]["file"].get<std::string>(), &bytes);
    TfLiteTensor* t = interpreter->input_tensor(input_positions[k]);
    if (bytes.size() != t->bytes) {
      result.detail = "input " + std::to_string(k) + " has " + std::to_string(bytes.size()) +
                      " bytes, tensor needs " + std::to_string(t->bytes);
      return result;
    }
    if (!bytes.empty()) std::memcpy(t->data.raw, bytes.data(), bytes.size());
  }
  Status invoked = interpreter->Invoke();
  if (!invoked.ok()) {
    result.detail = "not yet: " + invoked.message();
    return result;
  }
  const json& outputs = meta["outputs"];
  double worst_relative = 0.0;
  testing::FloatTolerance tolerance;
  if (tier == 3) {
    tolerance.atol = 0.00390625;  // one int8 step of the dequantized output (golden/README.md)
  } else {
    tolerance.atol_of_max = 1e-5;
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    int position = FindByName(interpreter, interpreter->outputs(), outputs[k]["name"]);
    if (position < 0) position = static_cast<int>(k);
    if (position >= static_cast<int>(interpreter->outputs().size())) {
      result.detail = "output '" + outputs[k]["name"].get<std::string>() + "' not found";
      return result;
    }
    std::vector<uint8_t> expected;
    testing::ReadFileBytes(dir + "/" + outputs[k]["file"].get<std::string>(), &expected);
    const testing::CompareResult compared =
        testing::CompareTensor(interpreter->output_tensor(position),
                               outputs[k]["shape"].get<std::vector<int>>(), expected, tolerance);
    if (compared.max_magnitude > 0) {
      worst_relative = std::max(worst_relative, compared.max_abs_diff / compared.max_magnitude);
    }
    if (!compared.match) {
      result.detail = "output " + std::to_string(k) + ": " + compared.detail;
      return result;
    }
  }
  result.matched = true;
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "max rel err %.2e", worst_relative);
  result.detail = buffer;
  return result;
}

TEST(GoldenTest, EveryFolderMatchesOrSaysWhyNot) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  std::ifstream tiers_file(shared + "/golden/tiers.json");
  ASSERT_TRUE(tiers_file) << "golden/tiers.json missing";
  json tiers = json::parse(tiers_file);
  std::vector<CaseResult> results;
  for (auto it = tiers.begin(); it != tiers.end(); ++it) {
    results.push_back(RunCase(shared, it.key(), it.value()["tier"].get<int>()));
  }
  std::map<int, std::pair<int, int>> per_tier;  // tier -> (matched, total)
  std::printf("%-5s %-62s %s\n", "tier", "golden folder", "result");
  for (const CaseResult& r : results) {
    std::printf("%-5d %-62s %s%s\n", r.tier, r.folder.c_str(), r.matched ? "MATCH " : "",
                r.detail.c_str());
    per_tier[r.tier].second++;
    if (r.matched) per_tier[r.tier].first++;
    // Tiers 1-3 must match (golden/README.md); tier 4 must run, its outputs are information only.
    if (r.tier <= 3) {
      EXPECT_TRUE(r.matched) << r.folder << ": " << r.detail;
    } else {
      EXPECT_EQ(r.detail.find("not yet"), std::string::npos) << r.folder << ": " << r.detail;
    }
  }
  for (const auto& entry : per_tier) {
    std::printf("tier %d: %d of %d matched\n", entry.first, entry.second.first, entry.second.second);
  }
  testing::ReportCases("golden", static_cast<int>(results.size()), static_cast<int>(tiers.size()));
}

}  // namespace
}  // namespace touchstone
