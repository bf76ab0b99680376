// RunInChild and RunIsolated: exit codes pass through, a child killed by a signal or past its timeout
// becomes a FAIL line naming the delegates and the execution exit code, the flags are validated.
#include "tools/common/isolation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace touchstone {
namespace {

TEST(RunInChildTest, ExitCodePassesThrough) {
  StatusOr<ChildOutcome> outcome = RunInChild(10, []() { return 3; });
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_EQ(outcome.value().kind, ChildOutcome::Kind::kExited);
  EXPECT_EQ(outcome.value().exit_code, 3);
  EXPECT_EQ(DescribeChildFailure(outcome.value(), "SAMPLE"), "");
}

TEST(RunInChildTest, WorkRunsInAnotherProcess) {
  const pid_t parent = getpid();
  StatusOr<ChildOutcome> outcome = RunInChild(10, [parent]() { return getpid() != parent ? 0 : 1; });
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome.value().exit_code, 0);
}

// A tool started with SIGCHLD ignored would have its child reaped by itself: the status must still be seen.
TEST(RunInChildTest, ExitCodeSeenWhenSigchldIsIgnored) {
  std::signal(SIGCHLD, SIG_IGN);
  StatusOr<ChildOutcome> outcome = RunInChild(10, []() { return 3; });
  std::signal(SIGCHLD, SIG_DFL);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_EQ(outcome.value().exit_code, 3);
}

TEST(RunInChildTest, SignalIsReportedWithTheNotedDelegates) {
  StatusOr<ChildOutcome> outcome = RunInChild(10, []() {
    NoteDelegatesToParent("EXTERNAL (libx.so), XNNPACK");
    std::signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    return 0;
  });
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome.value().kind, ChildOutcome::Kind::kSignaled);
  EXPECT_EQ(outcome.value().signal, SIGSEGV);
  EXPECT_EQ(outcome.value().delegates, "EXTERNAL (libx.so), XNNPACK");
  EXPECT_EQ(DescribeChildFailure(outcome.value(), "SAMPLE"),
            "FAIL: delegates EXTERNAL (libx.so), XNNPACK: killed by signal SIGSEGV (11) (in the child process of "
            "--delegate_isolation=process)");
}

TEST(RunInChildTest, TimeoutKillsTheChildAndItsGroup) {
  const auto start = std::chrono::steady_clock::now();
  StatusOr<ChildOutcome> outcome = RunInChild(1, []() {
    if (fork() == 0) {  // a grandchild in the same group must go too
      for (;;) pause();
    }
    for (;;) pause();
    return 0;
  });
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome.value().kind, ChildOutcome::Kind::kTimedOut);
  EXPECT_EQ(outcome.value().timeout_secs, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(DescribeChildFailure(outcome.value(), "SAMPLE"),
            "FAIL: delegate SAMPLE: timed out after 1 s (--delegate_timeout_secs); the child process was killed");
}

TEST(DescribeTest, Signals) {
  EXPECT_EQ(DescribeSignal(SIGABRT), "SIGABRT (6)");
  EXPECT_EQ(DescribeSignal(SIGKILL), "SIGKILL (9)");
  EXPECT_EQ(DescribeSignal(63), "signal 63");
  ChildOutcome none;
  none.kind = ChildOutcome::Kind::kSignaled;
  none.signal = SIGBUS;
  EXPECT_EQ(DescribeChildFailure(none, ""),
            "FAIL: delegate none (CPU kernels only): killed by signal SIGBUS (7) (in the child process of "
            "--delegate_isolation=process)");
}

struct Parsed {
  IsolationFlags flags;
  FlagTable table;
  Status status;
  Parsed(std::vector<const char*> args) {
    flags.AddTo(&table);
    args.insert(args.begin(), "tool");
    bool help = false;
    status = table.Parse(static_cast<int>(args.size()), args.data(), &help, nullptr);
  }
};

TEST(IsolationFlagsTest, DefaultsLimitsAndWarning) {
  Parsed defaults({});
  ASSERT_TRUE(defaults.status.ok());
  EXPECT_FALSE(defaults.flags.process());
  EXPECT_EQ(defaults.flags.delegate_timeout_secs, 300);
  std::vector<std::string> warnings;
  defaults.flags.Warn(defaults.table, &warnings);
  EXPECT_TRUE(warnings.empty());
  const std::string usage = defaults.table.Usage("tool");
  EXPECT_NE(usage.find("--delegate_isolation=\"none\""), std::string::npos) << usage;
  EXPECT_NE(usage.find("--delegate_timeout_secs=300"), std::string::npos) << usage;
  EXPECT_NE(usage.find("(one of none, process)"), std::string::npos) << usage;
  EXPECT_NE(usage.find("(in [1, 604800])"), std::string::npos) << usage;

  Parsed bad_mode({"--delegate_isolation=thread"});
  EXPECT_EQ(bad_mode.status.code(), StatusCode::kUsage);
  EXPECT_EQ(bad_mode.status.message(), "--delegate_isolation=thread: must be one of none, process");
  Parsed bad_timeout({"--delegate_isolation=process", "--delegate_timeout_secs=0"});
  EXPECT_EQ(bad_timeout.status.message(), "--delegate_timeout_secs=0: must be in [1, 604800]");
  Parsed useless({"--delegate_timeout_secs=5"});
  useless.flags.Warn(useless.table, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("no effect"), std::string::npos);
}

TEST(RunIsolatedTest, ExitCodes) {
  Parsed none({});
  EXPECT_EQ(RunIsolated(none.flags, none.table, "", []() { return 1; }), 1);
  Parsed process({"--delegate_isolation=process", "--delegate_timeout_secs=1"});
  EXPECT_EQ(RunIsolated(process.flags, process.table, "", []() { return 5; }), 5);
  EXPECT_EQ(RunIsolated(process.flags, process.table, "SAMPLE",
                        []() {
                          std::abort();
                          return 0;
                        }),
            4);
  EXPECT_EQ(RunIsolated(process.flags, process.table, "SAMPLE",
                        []() {
                          for (;;) pause();
                          return 0;
                        }),
            4);
}

}  // namespace
}  // namespace touchstone
