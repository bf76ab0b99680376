// Delegate isolation (docs/isolation.md): with --delegate_isolation=process a tool forks, and the child
// process owns the interpreter and the delegates and does the whole run (its stdout and stderr are the
// tool's; it writes the output files). The parent only waits. When the child dies of a signal (a
// delegate that segfaults) or runs past --delegate_timeout_secs (a delegate that hangs), the parent kills
// the child's process group, prints one line
//   FAIL: delegate EXTERNAL (libvendor.so): killed by signal SIGSEGV (11) ...
// on stderr and exits with the execution-failure code (4) instead of dying with it. Otherwise the
// child's exit code is the tool's. With --delegate_isolation=none (the default) the run happens in the
// tool's own process, as before.
#ifndef TOUCHSTONE_TOOLS_COMMON_ISOLATION_H_
#define TOUCHSTONE_TOOLS_COMMON_ISOLATION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/status.h"
#include "tools/common/flags.h"

namespace touchstone {

struct IsolationFlags {
  std::string delegate_isolation = "none";  // none | process
  int32_t delegate_timeout_secs = 300;

  // Registers both flags (with a --help heading and the values they take) in `table`, which must not
  // outlive this.
  void AddTo(FlagTable* table);
  // After parsing: a timeout given without process isolation has no effect; a warning says so.
  void Warn(const FlagTable& table, std::vector<std::string>* warnings) const;
  bool process() const { return delegate_isolation == "process"; }
};

// How an isolated child ended.
struct ChildOutcome {
  enum class Kind { kExited, kSignaled, kTimedOut };
  Kind kind = Kind::kExited;
  int exit_code = 0;      // kExited
  int signal = 0;         // kSignaled
  int timeout_secs = 0;   // kTimedOut
  std::string delegates;  // what the child said it created (NoteDelegatesToParent); may be empty
};

// Runs `work` in a forked child in a process group of its own and waits for it at most `timeout_secs`
// (0: no limit). The child exits with work()'s return value. On timeout, and after a death by signal,
// the whole group is killed with SIGKILL. Errors: the fork or pipe failing (kExecution).
StatusOr<ChildOutcome> RunInChild(int timeout_secs, const std::function<int()>& work);

// The FAIL line for a child killed by a signal or timed out ("" for one that exited), naming the
// delegates: the child's note, else `requested` (from the command line), else "none".
std::string DescribeChildFailure(const ChildOutcome& outcome, const std::string& requested);

// What a tool's main calls around its run: prints Warn's warning, then runs `work` in-process (none) or through
// RunInChild (process), printing DescribeChildFailure's line and returning the execution exit code (4) when the child
// was killed. Returns the exit code for main. Flushes stdout and stderr before forking, so nothing buffered is printed
// twice.
int RunIsolated(const IsolationFlags& flags, const FlagTable& table, const std::string& requested_delegates,
                const std::function<int()>& work);

// In a child of RunInChild: tells the parent which delegates the run created (one line, e.g.
// "EXTERNAL (libvendor.so), XNNPACK"), so a FAIL line names them. Anywhere else: nothing.
void NoteDelegatesToParent(const std::string& delegates);

// "SIGSEGV (11)"; "signal 64" for one without a name here.
std::string DescribeSignal(int signal);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_ISOLATION_H_
