// The op suite: single-op models of ../shared/opsuite with the outputs TensorFlow Lite 2.14.1
// computed, run with the reference kernels and compared under opsuite/README.md's rules (integers
// exactly; float32 within rtol 1e-5 plus an absolute term that depends on the op's kind). Cases TFLite
// refused must be refused. Cases whose op or type Touchstone does not run yet are reported as
// "not yet" with the reason. Prints a table per op and the counts .ci/run reads.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/interpreter.h"
#include "runtime/model.h"
#include "tests/common/op_case.h"
#include "tests/common/shared_dir.h"
#include "tests/common/tensor_compare.h"

namespace touchstone {
namespace {

using nlohmann::json;

enum class Outcome { kMatch, kMismatch, kNotYet, kRefusedAsTflite, kComputedRefused, kKnownDefect };

// Cases where TFLite 2.14.1's output is wrong and Touchstone deliberately differs (docs/runtime.md).
// For these, TFLite's bytes must be a prefix of ours.
const std::map<std::string, std::string>& KnownTfliteDefects() {
  static const std::map<std::string, std::string> cases = {
      {"SLICE/float32_1d_full", "TFLite left the output at the file's shape [1]"},
      {"SLICE/float32_2d_int64_params", "TFLite left the output at the file's shape [1]"},
      {"SLICE/int16_4d", "TFLite left the output at the file's shape [1]"},
      {"SLICE/int32_4d", "TFLite left the output at the file's shape [1]"},
      {"SLICE/int8_4d", "TFLite left the output at the file's shape [1]"},
  };
  return cases;
}

// Runs a case; *detail says why it is not a match.
Outcome RunCase(const std::string& dir, const json& meta, std::string* detail) {
  const bool tflite_refused = meta["status"] == "refused";
  auto refuse = [&](const Status& status) {
    *detail = status.message();
    return tflite_refused ? Outcome::kRefusedAsTflite : Outcome::kNotYet;
  };
  auto model = Model::FromFile(dir + "/model.tflite");
  if (!model.ok()) return refuse(model.status());
  InterpreterOptions options;
  options.kernel_set = KernelSet::kReference;
  options.max_tensor_bytes = uint64_t{1} << 30;
  options.max_loop_iterations = 100000;
  auto created = Interpreter::Create(model.value(), options);
  if (!created.ok()) return refuse(created.status());
  Interpreter* interpreter = created.value().get();
  const json& inputs = meta["inputs"];
  if (inputs.size() != interpreter->inputs().size()) {
    *detail = "model has " + std::to_string(interpreter->inputs().size()) + " inputs, meta.json " +
              std::to_string(inputs.size());
    return Outcome::kMismatch;
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    Status s = interpreter->ResizeInputTensor(interpreter->inputs()[k], inputs[k]["shape"].get<std::vector<int>>());
    if (!s.ok()) return refuse(s);
  }
  Status s = interpreter->AllocateTensors();
  if (!s.ok()) return refuse(s);
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::vector<uint8_t> bytes;
    testing::ReadFileBytes(dir + "/" + inputs[k]["file"].get<std::string>(), &bytes);
    TfLiteTensor* t = interpreter->input_tensor(k);
    if (bytes.size() != t->bytes) {
      *detail = "input " + std::to_string(k) + " file has " + std::to_string(bytes.size()) + " bytes, tensor " +
                std::to_string(t->bytes);
      return Outcome::kMismatch;
    }
    if (!bytes.empty()) std::memcpy(t->data.raw, bytes.data(), bytes.size());
  }
  s = interpreter->Invoke();
  if (!s.ok()) return refuse(s);
  if (tflite_refused) {
    const std::string stage = meta["refused"]["stage"].get<std::string>();
    *detail = "computed a case TFLite refuses (" + stage + "): " + meta["refused"]["message"].dump().substr(0, 120);
    // Where TFLite crashed, a computed result is acceptable (README); where it refused, we must too.
    return stage == "crash" ? Outcome::kComputedRefused : Outcome::kMismatch;
  }
  const json& outputs = meta["outputs"];
  const std::string case_name = meta["op"].get<std::string>() + "/" + meta["case"].get<std::string>();
  auto defect = KnownTfliteDefects().find(case_name);
  if (defect != KnownTfliteDefects().end()) {
    for (size_t k = 0; k < outputs.size() && k < interpreter->outputs().size(); ++k) {
      std::vector<uint8_t> expected;
      testing::ReadFileBytes(dir + "/" + outputs[k]["file"].get<std::string>(), &expected);
      const TfLiteTensor* got = interpreter->output_tensor(k);
      if (got->bytes < expected.size() || std::memcmp(got->data.raw, expected.data(), expected.size()) != 0) {
        *detail = "output " + std::to_string(k) + " does not start with TFLite's bytes";
        return Outcome::kMismatch;
      }
    }
    *detail = "differs by design: " + defect->second;
    return Outcome::kKnownDefect;
  }
  const testing::FloatTolerance tolerance = testing::ToleranceForOp(meta["op"].get<std::string>());
  for (size_t k = 0; k < outputs.size() && k < interpreter->outputs().size(); ++k) {
    std::vector<uint8_t> expected;
    testing::ReadFileBytes(dir + "/" + outputs[k]["file"].get<std::string>(), &expected);
    const testing::CompareResult compared = testing::CompareTensor(
        interpreter->output_tensor(k), outputs[k]["shape"].get<std::vector<int>>(), expected, tolerance);
    if (!compared.match) {
      *detail = "output " + std::to_string(k) + ": " + compared.detail;
      return Outcome::kMismatch;
    }
  }
  return Outcome::kMatch;
}

TEST(OpSuiteTest, EveryCaseMatchesIsRefusedOrSaysWhyNot) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string root = shared + "/opsuite";
  struct Counts {
    int match = 0, mismatch = 0, not_yet = 0, refused = 0, computed_refused = 0, known_defect = 0;
  };
  std::map<std::string, Counts> per_op;
  int total = 0;
  std::vector<std::string> mismatches;
  for (const testing::SuiteCase& suite_case : testing::ReadSuiteCases(root)) {
    const std::string &label = suite_case.label, &dir = suite_case.dir, &op = suite_case.op;
    const json& meta = suite_case.meta;
    ++total;
    std::string detail;
    const Outcome outcome = RunCase(dir, meta, &detail);
    Counts& c = per_op[op];
    switch (outcome) {
      case Outcome::kMatch:
        c.match++;
        break;
      case Outcome::kMismatch:
        c.mismatch++;
        mismatches.push_back(label + ": " + detail);
        break;
      case Outcome::kNotYet:
        c.not_yet++;
        break;
      case Outcome::kRefusedAsTflite:
        c.refused++;
        break;
      case Outcome::kComputedRefused:
        c.computed_refused++;
        break;
      case Outcome::kKnownDefect:
        c.known_defect++;
        break;
    }
    if (outcome != Outcome::kMatch) {
      std::printf("  %-60s %s\n", label.c_str(), detail.substr(0, 200).c_str());
    }
  }
  Counts sum;
  std::printf("%-30s %6s %8s %7s %8s %9s\n", "op", "match", "mismatch", "not-yet", "refused", "computed*");
  for (const auto& entry : per_op) {
    const Counts& c = entry.second;
    std::printf("%-30s %6d %8d %7d %8d %9d\n", entry.first.c_str(), c.match, c.mismatch, c.not_yet, c.refused,
                c.computed_refused);
    sum.match += c.match;
    sum.mismatch += c.mismatch;
    sum.not_yet += c.not_yet;
    sum.refused += c.refused;
    sum.computed_refused += c.computed_refused;
    sum.known_defect += c.known_defect;
  }
  std::printf(
      "op suite: %d cases: %d match, %d mismatch, %d not yet, %d refused as TFLite, "
      "%d computed where TFLite refused (*), %d differ by design from a TFLite defect\n",
      total, sum.match, sum.mismatch, sum.not_yet, sum.refused, sum.computed_refused, sum.known_defect);
  testing::ReportCases("opsuite", total, total);
  // A wrong number is worse than none: any case that runs must agree with TFLite, and a case TFLite
  // refused (short of crashing) must be refused.
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " mismatches, first: " << mismatches.front();
  // Every op and type of the suite is implemented: nothing may be "not yet".
  EXPECT_EQ(sum.not_yet, 0) << "cases not yet supported (see the table above)";
}

}  // namespace
}  // namespace touchstone
