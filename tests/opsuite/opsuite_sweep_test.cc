// The op sweep: every case of ../shared/opsuite_sweep (one builtin op crossed with every plausible
// tensor type, fused activation, broadcast shape, axis and operator version), run with the reference
// kernels, the optimized kernels, and the optimized kernels under XNNPACK, against what TensorFlow
// Lite 2.14.1 computed or refused (docs/fidelity.md):
// - a case TFLite ran must run, with outputs compared under the op suite's rules (integers exactly,
//   float32 within the op kind's tolerance); under XNNPACK, a case whose nodes the delegate took is
//   held to the delegate's bound instead (float32 within 1e-4 of the output's largest magnitude,
//   8-bit within 1 step; docs/xnnpack.md); where TFLite computes something other than the op's
//   definition (meta.json's notes), a warning line must name the op;
// - a case TFLite refused must be refused at the same stage (load, prepare or invoke) with a one-line
//   error naming the op.
// One test per kernel set and op (Bazel's shards would split them). The TOUCHSTONE_CASES lines
// scripts/test_summary.py reads are printed when the tests end.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernel_util.h"
#include "tests/common/op_case.h"
#include "tests/common/shared_dir.h"

namespace touchstone {
namespace {

using nlohmann::json;

enum class Runner { kReference, kOptimized, kXnnpack };

const char* RunnerName(Runner runner) {
  switch (runner) {
    case Runner::kReference:
      return "reference";
    case Runner::kOptimized:
      return "optimized";
    case Runner::kXnnpack:
      return "xnnpack";
  }
  return "?";
}

// The suite each runner's counts go to (scripts/test_summary.py).
const char* SuiteName(Runner runner) {
  switch (runner) {
    case Runner::kReference:
      return "opsuite_sweep";
    case Runner::kOptimized:
      return "opsuite_sweep_optimized";
    case Runner::kXnnpack:
      return "opsuite_sweep_xnnpack";
  }
  return "?";
}

struct SuiteCount {
  int ran = 0, total = 0;
};

// Cases run per suite in this shard, printed when the shard ends.
std::map<std::string, SuiteCount>& Counts() {
  static std::map<std::string, SuiteCount> counts;
  return counts;
}

class PrintCounts : public ::testing::Environment {
 public:
  void TearDown() override {
    for (Runner runner : {Runner::kReference, Runner::kOptimized, Runner::kXnnpack}) {
      const SuiteCount& c = Counts()[SuiteName(runner)];
      testing::ReportCases(SuiteName(runner), c.ran, c.total);
    }
  }
};
::testing::Environment* const kPrintCounts = ::testing::AddGlobalTestEnvironment(new PrintCounts);

std::string SweepRoot() {
  const std::string shared = testing::SharedDir();
  return shared.empty() ? "" : shared + "/opsuite_sweep";
}

// The sweep's ops; one placeholder when ../shared is absent, so that the test still runs and skips
// (or fails under CI=true).
std::vector<std::string> SweepOps() {
  std::vector<std::string> ops;
  const std::string root = SweepRoot();
  if (!root.empty()) ops = testing::ListSubdirs(root);
  if (ops.empty()) ops.push_back("NO_SHARED_DIR");
  return ops;
}

constexpr double kXnnpackFloatBound = 1e-4;
constexpr int kXnnpackQuantizedSteps = 1;

std::string CompareXnnpackOutputs(const std::string& dir, const json& meta, Interpreter* interpreter) {
  const json& outputs = meta["outputs"];
  for (size_t k = 0; k < outputs.size() && k < interpreter->outputs().size(); ++k) {
    std::vector<uint8_t> expected;
    testing::ReadFileBytes(dir + "/" + outputs[k]["file"].get<std::string>(), &expected);
    const TfLiteTensor* got = interpreter->output_tensor(k);
    const double deviation = testing::DelegateDeviation(got->type, got->data.raw, got->bytes, expected);
    const bool quantized = got->type == kTfLiteInt8 || got->type == kTfLiteUInt8;
    const double bound = got->type == kTfLiteFloat32 ? kXnnpackFloatBound : quantized ? kXnnpackQuantizedSteps : 0.0;
    if (!(deviation <= bound)) {
      char text[96];
      std::snprintf(text, sizeof(text), "output %zu deviates by %.3g (bound %.3g)", k, deviation, bound);
      return text;
    }
  }
  return "";
}

// Cases where TFLite 2.14.1 reads past the end of an input and its output depends on what its arena
// held there (docs/fidelity.md): Touchstone computes the defined result, and only the part of the
// output TFLite computed from the input's own elements is compared.
struct UndefinedTail {
  int input;  // the input read past its end
  const char* why;
};
const std::map<std::string, UndefinedTail>& UndefinedTails() {
  static const std::map<std::string, UndefinedTail> cases = {
      {"ATAN2/float32_bcast_r4",
       {1, "TFLite reads x past its 5 elements: zeros to the next 64 bytes, then its own output"}},
  };
  return cases;
}

// The first `count` elements of output 0 against TFLite's.
std::string ComparePrefix(const std::string& dir, const json& meta, Interpreter* interpreter, int64_t count) {
  std::vector<uint8_t> expected;
  testing::ReadFileBytes(dir + "/" + meta["outputs"][0]["file"].get<std::string>(), &expected);
  const TfLiteTensor* got = interpreter->output_tensor(0);
  const size_t bytes = static_cast<size_t>(count) * tflite::TfLiteTypeGetSize(got->type);
  if (got->bytes < bytes || expected.size() < bytes || std::memcmp(got->data.raw, expected.data(), bytes) != 0) {
    return "output 0 differs in its first " + std::to_string(count) + " elements";
  }
  return "";
}

// Why the run does not agree with TFLite on this case; empty when it does.
std::string Judge(const std::string& dir, const json& meta, Runner runner, testing::OpCaseRun* run) {
  const std::string op = meta["op"].get<std::string>();
  if (meta["status"] == "refused") {
    const testing::CaseStage want = testing::CaseStageFromName(meta["refused"]["stage"].get<std::string>());
    if (run->stage == testing::CaseStage::kRan) {
      return std::string("ran; TFLite refuses at ") + testing::CaseStageName(want) + ": " +
             meta["refused"]["message"].get<std::string>().substr(0, 160);
    }
    const std::string& message = run->status.message();
    if (run->stage != want) {
      return std::string("refused at ") + testing::CaseStageName(run->stage) + ", TFLite at " +
             testing::CaseStageName(want) + ": " + message.substr(0, 200);
    }
    if (message.find(op) == std::string::npos || message.find('\n') != std::string::npos) {
      return "the refusal is not one line naming " + op + ": " + message.substr(0, 200);
    }
    return "";
  }
  if (run->stage != testing::CaseStage::kRan) {
    return std::string("refused at ") + testing::CaseStageName(run->stage) + ": " +
           run->status.message().substr(0, 200);
  }
  // Where TFLite computes something other than the op's definition (the case's notes say what),
  // Touchstone computes the same and says so in one warning line naming the op.
  if (meta["params"].contains("notes") && run->stderr_text.find("WARNING: " + op) == std::string::npos) {
    return "no warning line names " + op + " (" + meta["params"]["notes"].dump().substr(0, 80) + ")";
  }
  auto tail = UndefinedTails().find(op + "/" + meta["case"].get<std::string>());
  if (tail != UndefinedTails().end()) {
    int64_t count = 1;
    for (int d : meta["inputs"][tail->second.input]["shape"]) count *= d;
    return ComparePrefix(dir, meta, run->interpreter.get(), count);
  }
  if (runner == Runner::kXnnpack && run->delegated_nodes > 0) {
    return CompareXnnpackOutputs(dir, meta, run->interpreter.get());
  }
  return testing::CompareCaseOutputs(dir, meta, run->interpreter.get());
}

struct SweepParam {
  Runner runner;
  std::string op;
};

class OpSweepTest : public ::testing::TestWithParam<SweepParam> {};

TEST_P(OpSweepTest, MatchesTfliteOutputsAndRefusals) {
  TOUCHSTONE_REQUIRE_SHARED(shared);
  const std::string root = SweepRoot();
  const SweepParam& param = GetParam();
  ASSERT_NE(param.op, "NO_SHARED_DIR") << root << " holds no cases";
  InterpreterOptions options;
  options.kernel_set = param.runner == Runner::kReference ? KernelSet::kReference : KernelSet::kOptimized;
  options.max_tensor_bytes = uint64_t{1} << 30;
  options.max_loop_iterations = 100000;
  TfLiteDelegate* delegate = nullptr;
  if (param.runner == Runner::kXnnpack) {
    TfLiteXNNPackDelegateOptions xnnpack_options = TfLiteXNNPackDelegateOptionsDefault();
    ::testing::internal::CaptureStderr();
    delegate = TfLiteXNNPackDelegateCreate(&xnnpack_options);
    ::testing::internal::GetCapturedStderr();
    ASSERT_NE(delegate, nullptr);
  }
  std::vector<std::string> problems;
  SuiteCount& count = Counts()[SuiteName(param.runner)];
  for (const std::string& name : testing::ListSubdirs(root + "/" + param.op)) {
    const std::string dir = root + "/" + param.op + "/" + name;
    json meta;
    if (!testing::ReadCaseMeta(dir, &meta)) continue;
    ++count.total;
    testing::OpCaseRun run = testing::RunOpCase(dir, meta, options, delegate);
    const std::string why = Judge(dir, meta, param.runner, &run);
    ++count.ran;
    if (!why.empty()) problems.push_back(param.op + "/" + name + ": " + why);
  }
  if (delegate != nullptr) TfLiteXNNPackDelegateDelete(delegate);
  for (const std::string& p : problems) std::printf("  MISMATCH %s %s\n", RunnerName(param.runner), p.c_str());
  EXPECT_TRUE(problems.empty()) << problems.size() << " cases differ from TFLite with the " << RunnerName(param.runner)
                                << " kernels, first: " << problems.front();
}

std::vector<SweepParam> AllParams() {
  std::vector<SweepParam> params;
  for (Runner runner : {Runner::kReference, Runner::kOptimized, Runner::kXnnpack}) {
    for (const std::string& op : SweepOps()) params.push_back({runner, op});
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Sweep, OpSweepTest, ::testing::ValuesIn(AllParams()),
                         [](const ::testing::TestParamInfo<SweepParam>& info) {
                           return std::string(RunnerName(info.param.runner)) + "_" + info.param.op;
                         });

}  // namespace
}  // namespace touchstone
