// The log lines: TensorFlow Lite's prefixes byte for byte, the level's filtering, the failure line that
// no level hides, the order against stdout, and a forked child's lines.
#include "runtime/logging.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace touchstone {
namespace {

// Restores the default level after each test.
class LoggingTest : public testing::Test {
 protected:
  void TearDown() override { SetLogLevel(LogLevel::kInfo); }
};

// Every kind of line, as printed at the current level.
std::string AllLines() {
  testing::internal::CaptureStderr();
  LogDebug("detail {}", 1);
  LogInfo("Created TensorFlow Lite XNNPACK delegate for CPU.");
  LogWarning("skipped {}", "a.jpg");
  LogError("XNNPACK delegate: {}", "no runtime");
  LogFailure("--graph is required");
  return testing::internal::GetCapturedStderr();
}

TEST_F(LoggingTest, LinesCarryTfliteSeverityPrefixes) {
  EXPECT_EQ(AllLines(),
            "INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n"
            "WARNING: skipped a.jpg\n"
            "ERROR: XNNPACK delegate: no runtime\n"
            "ERROR: --graph is required\n");
}

TEST_F(LoggingTest, TheLevelHidesLessSevereLinesButNeverTheFailure) {
  SetLogLevel(LogLevel::kDebug);
  EXPECT_EQ(AllLines(),
            "DEBUG: detail 1\n"
            "INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n"
            "WARNING: skipped a.jpg\n"
            "ERROR: XNNPACK delegate: no runtime\n"
            "ERROR: --graph is required\n");
  SetLogLevel(LogLevel::kWarning);
  EXPECT_EQ(AllLines(),
            "WARNING: skipped a.jpg\n"
            "ERROR: XNNPACK delegate: no runtime\n"
            "ERROR: --graph is required\n");
  SetLogLevel(LogLevel::kError);
  EXPECT_EQ(AllLines(),
            "ERROR: XNNPACK delegate: no runtime\n"
            "ERROR: --graph is required\n");
  SetLogLevel(LogLevel::kOff);
  EXPECT_EQ(AllLines(), "ERROR: --graph is required\n");
  EXPECT_FALSE(LogEnabled(LogLevel::kError));
  EXPECT_FALSE(LogEnabled(LogLevel::kOff));
}

TEST_F(LoggingTest, MessagesArePrintedAsGiven) {
  testing::internal::CaptureStderr();
  LogLine(LogLevel::kWarning, "braces {} and percent %s stay");
  LogFailure("{0}");
  LogLine(LogLevel::kOff, "never printed");
  LogInfo("{:g} {:.3f} {:>5}|", 0.1f * 3, 2.0, 42);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "WARNING: braces {} and percent %s stay\nERROR: {0}\nINFO: 0.3 2.000    42|\n");
}

TEST_F(LoggingTest, NamesRoundTrip) {
  for (LogLevel level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarning, LogLevel::kError, LogLevel::kOff}) {
    LogLevel parsed = LogLevel::kInfo;
    ASSERT_TRUE(ParseLogLevel(LogLevelName(level), &parsed)) << LogLevelName(level);
    EXPECT_EQ(parsed, level);
  }
  EXPECT_EQ(LogLevelNames(), (std::vector<std::string>{"debug", "info", "warning", "error", "off"}));
  LogLevel unchanged = LogLevel::kWarning;
  EXPECT_FALSE(ParseLogLevel("WARNING", &unchanged));
  EXPECT_FALSE(ParseLogLevel("warn", &unchanged));
  EXPECT_FALSE(ParseLogLevel("", &unchanged));
  EXPECT_EQ(unchanged, LogLevel::kWarning);
}

// A delegate plugin's own copy of this code reads the level from the environment.
TEST_F(LoggingTest, TheLevelIsPassedOnThroughTheEnvironment) {
  SetLogLevel(LogLevel::kError);
  EXPECT_EQ(GetLogLevel(), LogLevel::kError);
  ASSERT_NE(std::getenv("TOUCHSTONE_LOG_LEVEL"), nullptr);
  EXPECT_STREQ(std::getenv("TOUCHSTONE_LOG_LEVEL"), "error");
  SetLogLevel(LogLevel::kInfo);
  EXPECT_STREQ(std::getenv("TOUCHSTONE_LOG_LEVEL"), "info");
}

// stdout and stderr redirected to one file (2>&1): what stdout buffered comes before the log line.
TEST_F(LoggingTest, StdoutIsFlushedBeforeEachLine) {
  const std::string path = testing::TempDir() + "/both_streams.txt";
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = dup(1), saved_err = dup(2);
  FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  dup2(fileno(file), 1);
  dup2(fileno(file), 2);
  std::fclose(file);
  std::setvbuf(stdout, nullptr, _IOFBF, 4096);  // as when stdout is a file or a pipe
  std::fputs("STARTING!\n", stdout);
  LogWarning("between");
  std::fputs("Loaded model\n", stdout);
  std::fflush(stdout);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "STARTING!\nWARNING: between\nLoaded model\n");
}

// Delegate isolation forks the tool; the child's lines reach the same stderr, once each.
TEST_F(LoggingTest, AForkedChildLogs) {
  SetLogLevel(LogLevel::kWarning);
  LogInfo("before the fork (hidden)");
  testing::internal::CaptureStderr();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    LogInfo("hidden in the child too");
    LogWarning("from the child");
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  LogWarning("from the parent");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "WARNING: from the child\nWARNING: from the parent\n");
}

}  // namespace
}  // namespace touchstone
