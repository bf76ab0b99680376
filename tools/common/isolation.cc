#include "tools/common/isolation.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "runtime/logging.h"

namespace touchstone {
namespace {

// The child's end of the note pipe; -1 outside a child of RunInChild.
int g_note_fd = -1;

// The child's process group while the parent waits, for the forwarding handler; and the terminating
// signal the parent itself received (0: none), re-raised once the child is gone.
volatile sig_atomic_t g_child_group = 0;
volatile sig_atomic_t g_forwarded = 0;

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Ctrl-C or a kill of the tool reaches the child too (it is in a group of its own, away from the
// terminal's), so no child outlives the tool.
void Forward(int signal) {
  g_forwarded = signal;
  if (g_child_group > 0) kill(-static_cast<pid_t>(g_child_group), signal);
}

void ReadNotes(int fd, std::string* buffer) {
  char chunk[512];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      buffer->append(chunk, static_cast<size_t>(n));
      if (buffer->size() > 65536) buffer->erase(0, buffer->size() - 65536);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return;  // EOF, EAGAIN or an error: nothing more now
  }
}

// The last complete line of the notes.
std::string LastNote(const std::string& buffer) {
  const size_t end = buffer.rfind('\n');
  if (end == std::string::npos) return "";
  const size_t before = end == 0 ? std::string::npos : buffer.rfind('\n', end - 1);
  const size_t start = before == std::string::npos ? 0 : before + 1;
  return buffer.substr(start, end - start);
}

}  // namespace

void IsolationFlags::AddTo(FlagTable* table) {
  table->AddGroup("Delegate isolation (docs/isolation.md)");
  table
      ->AddString("delegate_isolation", &delegate_isolation,
                  "none: run in this process; process: run in a child process, so a delegate that crashes or "
                  "hangs is reported as FAIL (exit code 4) instead of killing the tool")
      .OneOf({"none", "process"});
  table
      ->AddInt("delegate_timeout_secs", &delegate_timeout_secs,
               "with --delegate_isolation=process: kill the run after this many seconds (a week at most) and "
               "report FAIL (exit code 4)")
      .InRange(1, 604800);
}

void IsolationFlags::Warn(const FlagTable& table, std::vector<std::string>* warnings) const {
  if (!process() && table.Position("delegate_timeout_secs") > 0 && warnings != nullptr) {
    warnings->push_back("--delegate_timeout_secs has no effect without --delegate_isolation=process");
  }
}

StatusOr<ChildOutcome> RunInChild(int timeout_secs, const std::function<int()>& work) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return ExecutionError(std::string("delegate isolation: pipe: ") + std::strerror(errno));
  // An inherited SIGCHLD = SIG_IGN would reap the child by itself and hide its exit status.
  struct sigaction chld_default = {}, chld_previous;
  chld_default.sa_handler = SIG_DFL;
  sigemptyset(&chld_default.sa_mask);
  sigaction(SIGCHLD, &chld_default, &chld_previous);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    close(fds[0]);
    close(fds[1]);
    sigaction(SIGCHLD, &chld_previous, nullptr);
    return ExecutionError(std::string("delegate isolation: fork: ") + std::strerror(error));
  }
  if (child == 0) {
    close(fds[0]);
    g_note_fd = fds[1];
    setpgid(0, 0);
    // The child dies with the parent, even when the parent is killed with SIGKILL.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(ExecutionError("").exit_code());
    const int code = work();
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::exit(code);
  }
  close(fds[1]);
  setpgid(child, child);  // (also done by the child: whichever runs first)
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  g_child_group = child;
  struct sigaction forward = {}, previous[4];
  forward.sa_handler = Forward;
  sigemptyset(&forward.sa_mask);
  for (int i = 0; i < 4; ++i) sigaction(kForwardedSignals[i], &forward, &previous[i]);

  ChildOutcome outcome;
  std::string notes;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_secs);
  int status = 0;
  int lost_errno = 0;  // waitpid failing: the child's status is unknown
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) {
      lost_errno = errno;
      break;
    }
    if (timeout_secs > 0 && std::chrono::steady_clock::now() >= deadline) {
      kill(-child, SIGKILL);
      kill(child, SIGKILL);  // (should it not have its group yet)
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      outcome.kind = ChildOutcome::Kind::kTimedOut;
      outcome.timeout_secs = timeout_secs;
      break;
    }
    // Wakes for notes; otherwise checks on the child every 20 ms.
    struct pollfd p = {fds[0], POLLIN, 0};
    if (poll(&p, 1, 20) > 0) ReadNotes(fds[0], &notes);
  }
  ReadNotes(fds[0], &notes);
  close(fds[0]);
  // Whatever the child started in its group goes with it.
  kill(-child, SIGKILL);
  g_child_group = 0;
  for (int i = 0; i < 4; ++i) sigaction(kForwardedSignals[i], &previous[i], nullptr);
  sigaction(SIGCHLD, &chld_previous, nullptr);
  if (g_forwarded != 0) {
    // The tool itself was told to stop: it stops as it would have without isolation.
    const int signal = g_forwarded;
    std::signal(signal, SIG_DFL);
    raise(signal);
  }
  outcome.delegates = LastNote(notes);
  if (outcome.kind == ChildOutcome::Kind::kTimedOut) return outcome;
  if (lost_errno != 0) {
    return ExecutionError("delegate isolation: lost track of the child process " + std::to_string(child) + " (" +
                          std::strerror(lost_errno) + ")");
  }
  if (WIFSIGNALED(status)) {
    outcome.kind = ChildOutcome::Kind::kSignaled;
    outcome.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    outcome.exit_code = WEXITSTATUS(status);
  } else {
    return ExecutionError("delegate isolation: lost track of the child process " + std::to_string(child));
  }
  return outcome;
}

std::string DescribeSignal(int signal) {
  static const struct {
    int number;
    const char* name;
  } kNames[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGILL, "SIGILL"},   {SIGFPE, "SIGFPE"},
                {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
                {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},   {SIGPIPE, "SIGPIPE"}, {SIGHUP, "SIGHUP"},
                {SIGQUIT, "SIGQUIT"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGALRM, "SIGALRM"},
                {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}};
  for (const auto& entry : kNames) {
    if (entry.number == signal) return std::string(entry.name) + " (" + std::to_string(signal) + ")";
  }
  return "signal " + std::to_string(signal);
}

std::string DescribeChildFailure(const ChildOutcome& outcome, const std::string& requested) {
  if (outcome.kind == ChildOutcome::Kind::kExited) return "";
  const std::string names = !outcome.delegates.empty() ? outcome.delegates : requested;
  const bool several = names.find(", ") != std::string::npos;
  std::string line = std::string("FAIL: ") + (several ? "delegates " : "delegate ") +
                     (names.empty() ? "none (CPU kernels only)" : names) + ": ";
  if (outcome.kind == ChildOutcome::Kind::kSignaled) {
    line += "killed by signal " + DescribeSignal(outcome.signal) +
            " (in the child process of --delegate_isolation=process)";
  } else {
    line += "timed out after " + std::to_string(outcome.timeout_secs) +
            " s (--delegate_timeout_secs); the child process was killed";
  }
  return line;
}

int RunIsolated(const IsolationFlags& flags, const FlagTable& table, const std::string& requested_delegates,
                const std::function<int()>& work) {
  std::vector<std::string> warnings;
  flags.Warn(table, &warnings);
  for (const std::string& w : warnings) LogWarning("{}", w);
  if (!flags.process()) return work();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  StatusOr<ChildOutcome> outcome = RunInChild(flags.delegate_timeout_secs, work);
  if (!outcome.ok()) return ReportFailure(outcome.status());
  if (outcome.value().kind == ChildOutcome::Kind::kExited) return outcome.value().exit_code;
  std::cerr << DescribeChildFailure(outcome.value(), requested_delegates) << std::endl;
  return ExecutionError("").exit_code();
}

void NoteDelegatesToParent(const std::string& delegates) {
  if (g_note_fd < 0) return;
  std::string line = delegates;
  for (char& c : line) {
    if (c == '\n') c = ' ';
  }
  line += '\n';
  // A short write to a pipe is atomic; a note that does not fit is simply lost.
  const ssize_t ignored = write(g_note_fd, line.data(), line.size());
  (void)ignored;
}

}  // namespace touchstone
