// RunTool: --help wins over a bad flag after it, a failure is one ERROR line with its status's exit code, the
// check's warnings follow the parser's, operands are taken out for tools that have them, and --log_level
// filters the log lines but never the failure line.
#include "tools/common/tool_runner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/logging.h"

namespace touchstone {
namespace {

struct Tool {
  int32_t count = 1;
  FlagTable table;
  ToolSpec spec;
  Tool() {
    table.AddInt("count", &count, "how many");
    spec.name = "tool";
    spec.run = [this]() -> StatusOr<int> {
      if (count < 0) return InvalidInputError("count below zero");
      return count;
    };
  }
  int Run(std::vector<std::string> args) {
    args.insert(args.begin(), "tool");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(&a[0]);
    return RunTool(static_cast<int>(argv.size()), argv.data(), &table, spec);
  }
};

TEST(RunToolTest, HelpWinsOverABadFlagAfterIt) {
  Tool tool;
  testing::internal::CaptureStdout();
  EXPECT_EQ(tool.Run({"--help", "--no_such_flag"}), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.rfind("usage: tool [--flag=value ...]\nFlags:\n", 0), 0u) << out;
  EXPECT_NE(out.find("--count=1"), std::string::npos) << out;
}

TEST(RunToolTest, UsageLineReplacesTheFirstLine) {
  Tool tool;
  tool.spec.usage_line = "usage: tool A.json B.json [--flag=value ...]";
  testing::internal::CaptureStdout();
  EXPECT_EQ(tool.Run({"--help"}), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.rfind("usage: tool A.json B.json [--flag=value ...]\nFlags:\n", 0), 0u) << out;
}

TEST(RunToolTest, FailuresAreOneErrorLineAndTheirExitCode) {
  Tool bad_flag;
  testing::internal::CaptureStderr();
  EXPECT_EQ(bad_flag.Run({"--count=x"}), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "ERROR: --count=x: expected an integer\n");
  Tool failing;
  testing::internal::CaptureStderr();
  EXPECT_EQ(failing.Run({"--count=-1"}), 3);  // kInvalidInput
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "ERROR: count below zero\n");
  Tool operand;
  testing::internal::CaptureStderr();
  EXPECT_EQ(operand.Run({"report.json"}), 2);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("unexpected argument 'report.json'"), std::string::npos);
}

TEST(RunToolTest, CheckStopsBeforeTheWorkAndAddsWarnings) {
  // One table per run, as in a tool's main (RunTool adds --log_level to it).
  for (const bool too_many : {true, false}) {
    Tool tool;
    bool ran = false;
    tool.spec.run = [&]() -> StatusOr<int> {
      ran = true;
      return 0;
    };
    tool.spec.check = [&](std::vector<std::string>* warnings) -> Status {
      if (tool.count > 5) return UsageError("--count must be at most 5");
      if (tool.count > 3) warnings->push_back("a large count");
      return Status::Ok();
    };
    testing::internal::CaptureStderr();
    EXPECT_EQ(tool.Run({too_many ? "--count=9" : "--count=4"}), too_many ? 2 : 0);
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              too_many ? "ERROR: --count must be at most 5\n" : "WARNING: a large count\n");
    EXPECT_EQ(ran, !too_many);
  }
}

TEST(RunToolTest, EveryToolTakesLogLevel) {
  Tool tool;
  testing::internal::CaptureStdout();
  EXPECT_EQ(tool.Run({"--help"}), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("Logging (docs/logging.md):\n  --log_level=\"info\""), std::string::npos) << out;
  EXPECT_NE(out.find("(one of debug, info, warning, error, off)"), std::string::npos) << out;
}

TEST(RunToolTest, AnUnknownLogLevelIsAUsageError) {
  Tool tool;
  bool ran = false;
  tool.spec.run = [&]() -> StatusOr<int> {
    ran = true;
    return 0;
  };
  testing::internal::CaptureStderr();
  EXPECT_EQ(tool.Run({"--log_level=verbose"}), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "ERROR: --log_level=verbose: must be one of debug, info, warning, error, off\n");
  EXPECT_FALSE(ran);
}

TEST(RunToolTest, LogLevelHidesWarningsButNotTheFailure) {
  const struct {
    const char* level;
    const char* stderr_text;
  } kCases[] = {
      {"info", "WARNING: a large count\nINFO: Created TensorFlow Lite XNNPACK delegate for CPU.\nERROR: failed\n"},
      {"warning", "WARNING: a large count\nERROR: failed\n"},
      {"error", "ERROR: failed\n"},
      {"off", "ERROR: failed\n"},
  };
  for (const auto& c : kCases) {
    Tool tool;
    tool.spec.check = [&](std::vector<std::string>* warnings) -> Status {
      warnings->push_back("a large count");
      return Status::Ok();
    };
    tool.spec.run = [&]() -> StatusOr<int> {
      LogInfo("Created TensorFlow Lite XNNPACK delegate for CPU.");
      return ExecutionError("failed");
    };
    testing::internal::CaptureStderr();
    EXPECT_EQ(tool.Run({std::string("--log_level=") + c.level}), 4);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), c.stderr_text) << c.level;
  }
  SetLogLevel(LogLevel::kInfo);
}

TEST(RunToolTest, OperandsAreTakenOut) {
  Tool tool;
  std::vector<std::string> operands;
  tool.spec.operands = &operands;
  EXPECT_EQ(tool.Run({"a.json", "--count=2", "b.json"}), 2);
  EXPECT_EQ(operands, (std::vector<std::string>{"a.json", "b.json"}));
}

}  // namespace
}  // namespace touchstone
