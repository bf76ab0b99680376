#include "tools/common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace touchstone {
namespace {

std::atomic<int> g_temp_counter{0};

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Writes all of [data, data + size), retrying short writes.
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& contents, const std::string& flag) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string temp =
      dir + "/." + name + ".tmp." + std::to_string(getpid()) + "." + std::to_string(g_temp_counter.fetch_add(1));
  // Unnamed first (nothing to leave behind if killed); a named temporary where O_TMPFILE is missing.
  bool named = false;
  int fd = open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) {
    fd = open(temp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
    named = true;
  }
  if (fd < 0) return UsageError("--" + flag + ": cannot write " + path + " (" + std::strerror(errno) + ")");

  const char* stop = std::getenv("TOUCHSTONE_TEST_STOP_MID_WRITE");
  const bool stop_here = stop != nullptr && stop[0] != '\0' && EndsWith(path, stop);
  const size_t half = stop_here ? contents.size() / 2 : contents.size();
  bool ok = WriteAll(fd, contents.data(), half);
  if (ok && stop_here) raise(SIGSTOP);
  ok = ok && WriteAll(fd, contents.data() + half, contents.size() - half) && fsync(fd) == 0;
  if (ok && !named) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    ok = linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) == 0;
    named = ok;
  }
  int error = ok ? 0 : errno;
  if (close(fd) != 0 && ok) {
    error = errno;  // a deferred write error (e.g. on NFS) shows up at close
    ok = false;
  }
  if (!ok) {
    if (named) unlink(temp.c_str());
    return UsageError("--" + flag + ": writing " + path + " failed (" + std::strerror(error) + ")");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int rename_error = errno;
    unlink(temp.c_str());
    return UsageError("--" + flag + ": cannot replace " + path + " (" + std::strerror(rename_error) + ")");
  }
  return Status::Ok();
}

}  // namespace touchstone
