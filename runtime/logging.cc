#include "runtime/logging.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define TS_LEAK_SANITIZER 1
#include <sanitizer/lsan_interface.h>
#endif
#endif
#ifndef TS_LEAK_SANITIZER
#define TS_LEAK_SANITIZER 0
#endif

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace touchstone {
namespace {

constexpr const char* kLevelEnvironmentVariable = "TOUCHSTONE_LOG_LEVEL";

spdlog::level::level_enum SpdlogLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarning:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kOff:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

LogLevel FromSpdlogLevel(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return LogLevel::kDebug;
    case spdlog::level::info:
      return LogLevel::kInfo;
    case spdlog::level::warn:
      return LogLevel::kWarning;
    case spdlog::level::err:
    case spdlog::level::critical:
      return LogLevel::kError;
    default:
      return LogLevel::kOff;
  }
}

// The pattern's %* flag: TensorFlow Lite's severity names (spdlog's own are lower case, "warning"
// being "warn" in its short form).
class SeverityFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    std::string_view name = "ERROR";
    if (msg.level <= spdlog::level::debug) {
      name = "DEBUG";
    } else if (msg.level == spdlog::level::info) {
      name = "INFO";
    } else if (msg.level == spdlog::level::warn) {
      name = "WARNING";
    }
    dest.append(name.data(), name.data() + name.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<SeverityFlag>(); }
};

// stderr, written a whole line at a time and flushed; stdout is flushed first, so that lines keep their
// order where both streams end up in one place.
class StderrAfterStdoutSink : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    std::fflush(stdout);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

struct Loggers {
  // Filtered by the level: every line but the failure line.
  std::shared_ptr<spdlog::logger> lines;
  // Never filtered: LogFailure's line.
  std::shared_ptr<spdlog::logger> failure;
};

LogLevel LevelFromEnvironment() {
  LogLevel level = LogLevel::kInfo;
  const char* name = std::getenv(kLevelEnvironmentVariable);
  if (name != nullptr) ParseLogLevel(name, &level);  // (an unknown name leaves the default)
  return level;
}

// Made on first use and never destroyed, so that code running at exit can still log. Not registered
// with spdlog's registry: nothing else can reach or reconfigure them. A delegate plugin carries its own
// copy of this file and is unloaded with it still allocated: LeakSanitizer is told these blocks are
// meant to live (ScopedDisabler), or every plugin test would report them.
const Loggers& GetLoggers() {
  static const Loggers* loggers = [] {
#if TS_LEAK_SANITIZER
    __lsan::ScopedDisabler intended_to_live;
#endif
    auto sink = std::make_shared<StderrAfterStdoutSink>();
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<SeverityFlag>('*').set_pattern("%*: %v");
    sink->set_formatter(std::move(formatter));
    auto* made = new Loggers{std::make_shared<spdlog::logger>("touchstone", sink),
                             std::make_shared<spdlog::logger>("touchstone-failure", sink)};
    made->lines->set_level(SpdlogLevel(LevelFromEnvironment()));
    made->failure->set_level(spdlog::level::trace);
    return made;
  }();
  return *loggers;
}

}  // namespace

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      return "off";
  }
  return "info";
}

constexpr LogLevel kLevels[] = {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarning, LogLevel::kError,
                                LogLevel::kOff};

std::vector<std::string> LogLevelNames() {
  std::vector<std::string> names;
  for (LogLevel level : kLevels) names.push_back(LogLevelName(level));
  return names;
}

bool ParseLogLevel(std::string_view name, LogLevel* level) {
  for (LogLevel candidate : kLevels) {
    if (name == LogLevelName(candidate)) {
      *level = candidate;
      return true;
    }
  }
  return false;
}

void SetLogLevel(LogLevel level) {
  GetLoggers().lines->set_level(SpdlogLevel(level));
  setenv(kLevelEnvironmentVariable, LogLevelName(level), /*overwrite=*/1);
}

LogLevel GetLogLevel() { return FromSpdlogLevel(GetLoggers().lines->level()); }

bool LogEnabled(LogLevel level) {
  return level != LogLevel::kOff && GetLoggers().lines->should_log(SpdlogLevel(level));
}

void LogLine(LogLevel level, std::string_view message) {
  if (level == LogLevel::kOff) return;
  GetLoggers().lines->log(SpdlogLevel(level), spdlog::string_view_t(message.data(), message.size()));
}

void LogFailure(std::string_view message) {
  GetLoggers().failure->log(spdlog::level::err, spdlog::string_view_t(message.data(), message.size()));
}

}  // namespace touchstone
