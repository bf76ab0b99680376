// Log lines, in TensorFlow Lite's format: one line on stderr per message, its severity as the prefix and
// nothing else (no time, no source location):
//   INFO: Created TensorFlow Lite XNNPACK delegate for CPU.
//   WARNING: skipped val/0007.JPEG: not a JPEG file
//   ERROR: XNNPACK delegate: cannot create the runtime
// (and "DEBUG: ..." for detail shown only at --log_level=debug). Every layer logs through these
// functions; messages are fmt format strings ("{}", "{:g}"). The level is process-wide: lines below it
// are not printed (the tools set it from --log_level, docs/logging.md). A tool's failure line goes
// through LogFailure, printed whatever the level.
//
// stdout is flushed before each line and stderr after it, so a terminal, or a file both streams are
// redirected to, shows the lines in the order they were written (as std::cerr, tied to std::cout, did).
// Thread-safe. The lines are written by spdlog, which only logging.cc includes.
#ifndef TOUCHSTONE_RUNTIME_LOGGING_H_
#define TOUCHSTONE_RUNTIME_LOGGING_H_

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace touchstone {

// In increasing severity; kOff prints nothing (but LogFailure's line).
enum class LogLevel { kDebug, kInfo, kWarning, kError, kOff };

// "debug", "info", "warning", "error", "off": what --log_level takes.
const char* LogLevelName(LogLevel level);
// Every level's name, least severe first.
std::vector<std::string> LogLevelNames();
// The level a name above stands for; false for any other text.
bool ParseLogLevel(std::string_view name, LogLevel* level);

// The least severe level printed; the default is kInfo, or the level the environment variable
// TOUCHSTONE_LOG_LEVEL names. SetLogLevel also sets that variable, so that a copy of this code in a
// delegate plugin loaded later (a shared library with its own copy) follows the tool's level.
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
// Whether a line of this level is printed now (to skip building an expensive message).
bool LogEnabled(LogLevel level);

// Prints "<LEVEL>: <message>" when the level is enabled. The message should be one line.
void LogLine(LogLevel level, std::string_view message);
// Prints "ERROR: <message>" whatever the level: a tool's last line, which explains its exit code.
void LogFailure(std::string_view message);

template <typename... Args>
void LogDebug(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kDebug)) LogLine(LogLevel::kDebug, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogInfo(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kInfo)) LogLine(LogLevel::kInfo, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogWarning(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kWarning)) LogLine(LogLevel::kWarning, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogError(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kError)) LogLine(LogLevel::kError, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_LOGGING_H_
