#include "tools/common/flags.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "runtime/logging.h"

namespace touchstone {
namespace {

bool ParseInt64(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *out = v;
  return true;
}

std::string FormatFloat(float v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%g", v);
  return buffer;
}

}  // namespace

void FlagTable::AddString(const std::string& name, std::string* value, const std::string& help) {
  flags_.push_back({name, Kind::kString, value, help, "\"" + *value + "\""});
}
void FlagTable::AddInt(const std::string& name, int32_t* value, const std::string& help) {
  flags_.push_back({name, Kind::kInt, value, help, std::to_string(*value)});
}
void FlagTable::AddInt64(const std::string& name, int64_t* value, const std::string& help) {
  flags_.push_back({name, Kind::kInt64, value, help, std::to_string(*value)});
}
void FlagTable::AddFloat(const std::string& name, float* value, const std::string& help) {
  flags_.push_back({name, Kind::kFloat, value, help, FormatFloat(*value)});
}
void FlagTable::AddBool(const std::string& name, bool* value, const std::string& help) {
  flags_.push_back({name, Kind::kBool, value, help, *value ? "true" : "false"});
}
void FlagTable::AddGroup(const std::string& title) { flags_.push_back({"", Kind::kGroup, nullptr, title, ""}); }
void FlagTable::AddIgnored(const std::string& name, const std::string& why) {
  flags_.push_back({name, Kind::kIgnored, nullptr, "accepted for compatibility, ignored: " + why, ""});
}

Status FlagTable::SetValue(const Flag& flag, const std::string& text) {
  const std::string bad = "--" + flag.name + "=" + text + ": ";
  switch (flag.kind) {
    case Kind::kString:
      *static_cast<std::string*>(flag.value) = text;
      return Status::Ok();
    case Kind::kInt:
    case Kind::kInt64: {
      int64_t v = 0;
      if (!ParseInt64(text, &v)) return UsageError(bad + "expected an integer");
      if (flag.kind == Kind::kInt) {
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
          return UsageError(bad + "out of range for a 32-bit integer");
        }
        *static_cast<int32_t*>(flag.value) = static_cast<int32_t>(v);
      } else {
        *static_cast<int64_t*>(flag.value) = v;
      }
      return Status::Ok();
    }
    case Kind::kFloat: {
      errno = 0;
      char* end = nullptr;
      const float v = std::strtof(text.c_str(), &end);
      if (text.empty() || errno != 0 || *end != '\0' || !std::isfinite(v)) {
        return UsageError(bad + "expected a number");
      }
      *static_cast<float*>(flag.value) = v;
      return Status::Ok();
    }
    case Kind::kBool:
      if (text == "true" || text == "1") {
        *static_cast<bool*>(flag.value) = true;
      } else if (text == "false" || text == "0") {
        *static_cast<bool*>(flag.value) = false;
      } else {
        return UsageError(bad + "expected true or false");
      }
      return Status::Ok();
    case Kind::kIgnored:
    case Kind::kGroup:
      return Status::Ok();
  }
  return Status::Ok();
}

Status FlagTable::Parse(int argc, const char* const* argv, bool* help_requested, std::vector<std::string>* warnings) {
  *help_requested = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--helpfull") {
      *help_requested = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      return UsageError("unexpected argument '" + arg + "' (flags are written --name=value)");
    }
    arg = arg.substr(2);
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const Flag* flag = nullptr;
    for (const Flag& f : flags_) {
      if (f.kind != Kind::kGroup && f.name == name) flag = &f;
    }
    if (flag == nullptr) return UsageError("unknown flag --" + name + " (see --help)");
    if (eq == std::string::npos) {
      if (flag->kind != Kind::kBool && flag->kind != Kind::kIgnored) {
        return UsageError("--" + name + " needs a value (--" + name + "=...)");
      }
      TS_RETURN_IF_ERROR(SetValue(*flag, "true"));
    } else {
      TS_RETURN_IF_ERROR(SetValue(*flag, arg.substr(eq + 1)));
    }
    if (flag->kind == Kind::kIgnored && warnings != nullptr) {
      warnings->push_back("--" + name + " is not applicable here and was ignored (" +
                          flag->help.substr(flag->help.find(':') + 2) + ")");
    }
    given_.push_back(name);
  }
  return Status::Ok();
}

std::string FlagTable::Usage(const std::string& program) const {
  std::string text = "usage: " + program + " [--flag=value ...]\nFlags:\n";
  for (const Flag& f : flags_) {
    if (f.kind == Kind::kGroup) {
      text += f.help + ":\n";
      continue;
    }
    std::string left = "  --" + f.name;
    if (!f.default_text.empty()) left += "=" + f.default_text;
    if (left.size() < 44) left.resize(44, ' ');
    text += left + " " + f.help + "\n";
  }
  return text;
}

std::vector<std::pair<std::string, std::string>> FlagTable::GivenValues() const {
  std::vector<std::pair<std::string, std::string>> values;
  for (const std::string& name : given_) {
    bool seen = false;
    for (const auto& v : values) seen |= v.first == name;
    if (seen) continue;
    for (const Flag& f : flags_) {
      if (f.kind == Kind::kGroup || f.name != name) continue;
      std::string text;
      switch (f.kind) {
        case Kind::kString:
          text = *static_cast<const std::string*>(f.value);
          break;
        case Kind::kInt:
          text = std::to_string(*static_cast<const int32_t*>(f.value));
          break;
        case Kind::kInt64:
          text = std::to_string(*static_cast<const int64_t*>(f.value));
          break;
        case Kind::kFloat:
          text = FormatFloat(*static_cast<const float*>(f.value));
          break;
        case Kind::kBool:
          text = *static_cast<const bool*>(f.value) ? "true" : "false";
          break;
        case Kind::kIgnored:
          text = "(ignored)";
          break;
        case Kind::kGroup:
          break;
      }
      values.emplace_back(name, text);
    }
  }
  return values;
}

int FlagTable::Position(const std::string& name) const {
  for (size_t i = given_.size(); i > 0; --i) {
    if (given_[i - 1] == name) return static_cast<int>(i);
  }
  return 0;
}

int ReportFailure(const Status& status) {
  LogFailure(status.message());
  return status.exit_code();
}

}  // namespace touchstone
