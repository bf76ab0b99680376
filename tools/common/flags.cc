#include "tools/common/flags.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <memory>

#include "runtime/logging.h"

namespace touchstone {
namespace {

constexpr char kFlagFileHelp[] =
    "read flags from this file: one name = value per line, '#' or ';' starting a comment line; a flag on the "
    "command line overrides the file";
// A flag file is a few lines; anything larger is not one (and a device such as /dev/zero never ends).
constexpr off_t kMaxFlagFileBytes = 1 << 20;

bool ParseInt64(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  *out = v;
  return true;
}

std::string FormatFloat(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%g", v);
  return buffer;
}

std::string Trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours
// ("rnus" for "runs") each count one.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// Fails when `path` is not a regular file of flag-file size.
Status CheckFlagFile(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return UsageError("--" + std::string(kFlagFileFlag) + "=" + path + ": cannot read the flag file (" +
                      std::strerror(errno) + ")");
  }
  if (!S_ISREG(info.st_mode)) {
    return UsageError("--" + std::string(kFlagFileFlag) + "=" + path + ": not a file");
  }
  if (info.st_size > kMaxFlagFileBytes) {
    return UsageError("--" + std::string(kFlagFileFlag) + "=" + path + ": " + std::to_string(info.st_size) +
                      " bytes is larger than a flag file may be (1 MiB)");
  }
  return Status::Ok();
}

}  // namespace

// What one Parse gathers while CLI11 runs the flags' callbacks.
struct FlagTable::ParseState {
  std::string flag_file;  // --config's value; "" without one
  bool reading_file = false;
  // Names as the callbacks set them: the command line's in its order, then the file's (those the
  // command line does not override) in the file's order.
  std::vector<std::string> command_line, from_file;
  // How many of the command line's flags precede --config.
  size_t config_at = std::numeric_limits<size_t>::max();
  // The first error, and how many of the command line's flags were taken before it.
  Status error;
  size_t error_at = std::numeric_limits<size_t>::max();
  std::vector<std::string>* warnings = nullptr;
};

// CLI11's config-file reader for the flag file: "name = value" lines, every name checked against the
// table and every value against its flag (so a bad line is refused even when the command line overrides
// it), each error naming the file and the line. Values are taken whole (CLI11's own INI reader splits
// them at commas and spaces, which TFLite's values hold: --input_layer_shape=1,224,224,3).
class FlagTable::FlagFileFormat : public CLI::Config {
 public:
  FlagFileFormat(const FlagTable* table, ParseState* state) : table_(table), state_(state) {}

  // The tools write no flag files.
  std::string to_config(const CLI::App*, bool, bool, std::string) const override { return ""; }

  std::vector<CLI::ConfigItem> from_config(std::istream& in) const override {
    state_->reading_file = true;
    std::vector<CLI::ConfigItem> items;
    std::map<std::string, int> line_of;
    std::string line;
    int number = 0;
    auto refuse = [&](const std::string& what) {
      state_->error = UsageError(state_->flag_file + ":" + std::to_string(number) + ": " + what);
      throw CLI::ConfigError(state_->error.message());
    };
    while (std::getline(in, line)) {
      ++number;
      const std::string text = Trim(line);
      if (text.empty() || text[0] == '#' || text[0] == ';') continue;
      if (text[0] == '[') refuse("sections are not supported; write name = value lines");
      const size_t eq = text.find('=');
      if (eq == std::string::npos) refuse("expected name = value, got '" + text + "'");
      const std::string name = Trim(text.substr(0, eq));
      std::string value = Trim(text.substr(eq + 1));
      if (value.size() >= 2 && (value[0] == '"' || value[0] == '\'') && value.back() == value[0]) {
        value = value.substr(1, value.size() - 2);
      }
      if (name.rfind("--", 0) == 0) refuse("write the name without '--' (" + name.substr(2) + " = ...)");
      if (name == kFlagFileFlag) refuse("a flag file cannot name another (" + name + ")");
      const Flag* flag = table_->Find(name);
      if (flag == nullptr) refuse(table_->UnknownFlag(name));
      const auto seen = line_of.find(name);
      if (seen != line_of.end())
        refuse("--" + name + " is set twice (also on line " + std::to_string(seen->second) + ")");
      line_of[name] = number;
      const Status valid = table_->SetValue(*flag, value, /*check_only=*/true);
      if (!valid.ok()) refuse(valid.message());
      CLI::ConfigItem item;
      item.name = name;
      item.inputs = {value};
      items.push_back(std::move(item));
    }
    return items;
  }

 private:
  const FlagTable* table_;
  ParseState* state_;
};

FlagTable::Flag& FlagTable::Limits::Target(bool choices) {
  Flag& flag = table_->flags_[index_];
  const bool number = flag.kind == Kind::kInt || flag.kind == Kind::kInt64 || flag.kind == Kind::kFloat;
  if (choices ? flag.kind != Kind::kString : !number) {
    std::fprintf(stderr, "FlagTable: --%s cannot take %s\n", flag.name.c_str(), choices ? "choices" : "bounds");
    std::abort();
  }
  return flag;
}
FlagTable::Limits& FlagTable::Limits::AtLeast(double min) {
  Target(false).min = min;
  return *this;
}
FlagTable::Limits& FlagTable::Limits::AtMost(double max) {
  Target(false).max = max;
  return *this;
}
FlagTable::Limits& FlagTable::Limits::GreaterThan(double bound) {
  Flag& flag = Target(false);
  flag.min = bound;
  flag.min_exclusive = true;
  return *this;
}
FlagTable::Limits& FlagTable::Limits::OrExactly(double value) {
  Target(false).also = value;
  return *this;
}
FlagTable::Limits& FlagTable::Limits::OneOf(std::vector<std::string> choices) {
  Target(true).choices = std::move(choices);
  return *this;
}

FlagTable::Limits FlagTable::Add(Flag flag) {
  // Two flags of one name, or one named as the flag file, is the declaring code's mistake.
  if (flag.kind != Kind::kGroup && (flag.name == kFlagFileFlag || Find(flag.name) != nullptr)) {
    std::fprintf(stderr, "FlagTable: --%s is declared twice\n", flag.name.c_str());
    std::abort();
  }
  flags_.push_back(std::move(flag));
  return Limits(this, flags_.size() - 1);
}

FlagTable::Limits FlagTable::AddString(const std::string& name, std::string* value, const std::string& help) {
  return Add({name, Kind::kString, value, help, "\"" + *value + "\""});
}
FlagTable::Limits FlagTable::AddInt(const std::string& name, int32_t* value, const std::string& help) {
  return Add({name, Kind::kInt, value, help, std::to_string(*value)});
}
FlagTable::Limits FlagTable::AddInt64(const std::string& name, int64_t* value, const std::string& help) {
  return Add({name, Kind::kInt64, value, help, std::to_string(*value)});
}
FlagTable::Limits FlagTable::AddFloat(const std::string& name, float* value, const std::string& help) {
  return Add({name, Kind::kFloat, value, help, FormatFloat(*value)});
}
void FlagTable::AddBool(const std::string& name, bool* value, const std::string& help) {
  Add({name, Kind::kBool, value, help, *value ? "true" : "false"});
}
void FlagTable::AddGroup(const std::string& title) { Add({"", Kind::kGroup, nullptr, title, ""}); }
void FlagTable::AddIgnored(const std::string& name, const std::string& why) {
  Add({name, Kind::kIgnored, nullptr, "accepted for compatibility, ignored: " + why, ""});
}

const FlagTable::Flag* FlagTable::Find(const std::string& name) const {
  for (const Flag& f : flags_) {
    if (f.kind != Kind::kGroup && f.name == name) return &f;
  }
  return nullptr;
}

std::string FlagTable::LimitsText(const Flag& flag) {
  if (!flag.choices.empty()) {
    std::string text = "one of ";
    for (size_t i = 0; i < flag.choices.size(); ++i) {
      text += (i == 0 ? "" : ", ") + (flag.choices[i].empty() ? std::string("\"\"") : flag.choices[i]);
    }
    return text;
  }
  const bool integral = flag.kind == Kind::kInt || flag.kind == Kind::kInt64;
  auto number = [integral](double v) { return integral ? std::to_string(static_cast<long long>(v)) : FormatFloat(v); };
  std::string text;
  if (flag.min.has_value() && flag.max.has_value()) {
    text = "in " + std::string(flag.min_exclusive ? "(" : "[") + number(*flag.min) + ", " + number(*flag.max) + "]";
  } else if (flag.min.has_value()) {
    text = (flag.min_exclusive ? "greater than " : "at least ") + number(*flag.min);
  } else if (flag.max.has_value()) {
    text = "at most " + number(*flag.max);
  }
  if (!text.empty() && flag.also.has_value()) text += " or " + number(*flag.also);
  return text;
}

Status FlagTable::SetValue(const Flag& flag, const std::string& text, bool check_only) const {
  const std::string bad = "--" + flag.name + "=" + text + ": ";
  // Within the limits: the value as a number (numbers), the text (strings).
  auto within = [&flag](double v) {
    if (flag.also.has_value() && v == *flag.also) return true;
    if (flag.min.has_value() && (flag.min_exclusive ? v <= *flag.min : v < *flag.min)) return false;
    return !(flag.max.has_value() && v > *flag.max);
  };
  auto out_of_limits = [&]() { return UsageError(bad + "must be " + LimitsText(flag)); };
  switch (flag.kind) {
    case Kind::kString:
      if (!flag.choices.empty() && std::find(flag.choices.begin(), flag.choices.end(), text) == flag.choices.end()) {
        return out_of_limits();
      }
      if (!check_only) *static_cast<std::string*>(flag.value) = text;
      return Status::Ok();
    case Kind::kInt:
    case Kind::kInt64: {
      int64_t v = 0;
      if (!ParseInt64(text, &v)) return UsageError(bad + "expected an integer");
      if (flag.kind == Kind::kInt &&
          (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())) {
        return UsageError(bad + "out of range for a 32-bit integer");
      }
      if (!within(static_cast<double>(v))) return out_of_limits();
      if (check_only) return Status::Ok();
      if (flag.kind == Kind::kInt) {
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
      if (!within(static_cast<double>(v))) return out_of_limits();
      if (!check_only) *static_cast<float*>(flag.value) = v;
      return Status::Ok();
    }
    case Kind::kBool: {
      const bool is_true = text == "true" || text == "1";
      if (!is_true && text != "false" && text != "0") return UsageError(bad + "expected true or false");
      if (!check_only) *static_cast<bool*>(flag.value) = is_true;
      return Status::Ok();
    }
    case Kind::kIgnored:
    case Kind::kGroup:
      return Status::Ok();
  }
  return Status::Ok();
}

std::string FlagTable::UnknownFlag(const std::string& name) const {
  std::string text = "unknown flag --" + name;
  if (name.empty()) return text;
  // The nearest names, when near enough to be a slip of the keyboard rather than another word.
  const size_t limit = name.size() <= 4 ? 1 : name.size() <= 8 ? 2 : 3;
  std::vector<std::string> names = {kFlagFileFlag};
  for (const Flag& f : flags_) {
    if (f.kind != Kind::kGroup) names.push_back(f.name);
  }
  size_t best = limit + 1;
  std::vector<std::string> nearest;
  for (const std::string& candidate : names) {
    const size_t d = EditDistance(name, candidate);
    if (d > best || d >= std::max(name.size(), candidate.size())) continue;
    if (d < best) nearest.clear();
    best = d;
    nearest.push_back(candidate);
  }
  if (nearest.empty() || nearest.size() > 3) return text;
  text += "; did you mean ";
  for (size_t i = 0; i < nearest.size(); ++i) text += (i == 0 ? "--" : " or --") + nearest[i];
  return text + "?";
}

Status FlagTable::Parse(int argc, const char* const* argv, bool* help_requested, std::vector<std::string>* warnings) {
  *help_requested = false;
  ParseState state;
  state.warnings = warnings;

  // TFLite's syntax, argument by argument, up to the first one it refuses: CLI11 then sees each flag as
  // "--name" followed by its value, so it takes the value whole, never the next argument.
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<std::string> args;
  size_t taken = 0;  // flags handed to CLI11 (--config not counted)
  size_t help_at = kNone;
  Status refused;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--helpfull") {
      help_at = std::min(help_at, taken);
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      refused = UsageError("unexpected argument '" + arg + "' (flags are written --name=value)");
      break;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const Flag* flag = Find(name);
    if (name == kFlagFileFlag) {
      if (eq == std::string::npos) {
        refused = UsageError("--" + name + " needs a value (--" + name + "=FILE)");
        break;
      }
      if (state.config_at != kNone) {
        refused = UsageError("--" + name + " is given twice: one flag file per run");
        break;
      }
      if (!value.empty()) refused = CheckFlagFile(value);
      if (!refused.ok()) break;
      state.flag_file = value;
      state.config_at = taken;
    } else if (flag == nullptr) {
      refused = UsageError(UnknownFlag(name) + " (see --help)");
      break;
    } else if (eq == std::string::npos) {
      if (flag->kind != Kind::kBool && flag->kind != Kind::kIgnored) {
        refused = UsageError("--" + name + " needs a value (--" + name + "=...)");
        break;
      }
      value = "true";
    }
    if (name != kFlagFileFlag) ++taken;
    args.push_back("--" + name);
    args.push_back(value);
  }

  CLI::App app;
  app.set_help_flag();
  app.allow_extras(false);
  app.config_formatter(std::make_shared<FlagFileFormat>(this, &state));
  app.set_config("--" + std::string(kFlagFileFlag));
  for (const Flag& f : flags_) {
    if (f.kind == Kind::kGroup) continue;
    const Flag* flag = &f;
    app.add_option("--" + f.name,
                   [this, flag, &state](const CLI::results_t& results) {
                     const std::string value = results.empty() ? std::string() : results.back();
                     // The file's values were checked as it was read; this is the command line's.
                     const Status set = SetValue(*flag, value);
                     if (!set.ok()) {
                       state.error = set;
                       state.error_at = state.command_line.size();
                       throw CLI::ValidationError(flag->name, set.message());
                     }
                     if (flag->kind == Kind::kIgnored && state.warnings != nullptr) {
                       state.warnings->push_back("--" + flag->name + " is not applicable here and was ignored (" +
                                                 flag->help.substr(flag->help.find(':') + 2) + ")");
                     }
                     (state.reading_file ? state.from_file : state.command_line).push_back(flag->name);
                     return true;
                   })
        ->trigger_on_parse();
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes its arguments last first
  try {
    app.parse(args);
  } catch (const CLI::FileError&) {
    if (state.error.ok()) {
      state.error =
          UsageError("--" + std::string(kFlagFileFlag) + "=" + state.flag_file + ": cannot read the flag file");
    }
  } catch (const std::exception& e) {  // CLI::Error and anything else: never past the table
    if (state.error.ok()) state.error = UsageError(e.what());
  }
  if (!state.error.ok() && state.error_at == kNone) state.error_at = taken;  // the file's: after the command line

  const size_t config_at = std::min(state.config_at, state.command_line.size());
  given_.insert(given_.end(), state.command_line.begin(), state.command_line.begin() + config_at);
  given_.insert(given_.end(), state.from_file.begin(), state.from_file.end());
  given_.insert(given_.end(), state.command_line.begin() + config_at, state.command_line.end());

  const Status& first = !state.error.ok() ? state.error : refused;
  const size_t error_at = !state.error.ok() ? state.error_at : (refused.ok() ? kNone : taken);
  *help_requested = help_at != kNone && help_at <= error_at;
  return first;
}

std::string FlagTable::Usage(const std::string& program) const {
  std::string text = "usage: " + program + " [--flag=value ...]\nFlags:\n";
  auto line = [&text](const std::string& name, const std::string& default_text, const std::string& help) {
    std::string left = "  --" + name;
    if (!default_text.empty()) left += "=" + default_text;
    if (left.size() < 44) left.resize(44, ' ');
    text += left + " " + help + "\n";
  };
  for (const Flag& f : flags_) {
    if (f.kind == Kind::kGroup) {
      text += f.help + ":\n";
      continue;
    }
    const std::string limits = LimitsText(f);
    line(f.name, f.default_text, limits.empty() ? f.help : f.help + " (" + limits + ")");
  }
  text += "Flag file (docs/tools.md):\n";
  line(kFlagFileFlag, "\"\"", kFlagFileHelp);
  return text;
}

std::vector<std::pair<std::string, std::string>> FlagTable::GivenValues() const {
  std::vector<std::pair<std::string, std::string>> values;
  for (const std::string& name : given_) {
    bool seen = false;
    for (const auto& v : values) seen |= v.first == name;
    if (seen) continue;
    const Flag* f = Find(name);
    if (f == nullptr) continue;
    std::string text;
    switch (f->kind) {
      case Kind::kString:
        text = *static_cast<const std::string*>(f->value);
        break;
      case Kind::kInt:
        text = std::to_string(*static_cast<const int32_t*>(f->value));
        break;
      case Kind::kInt64:
        text = std::to_string(*static_cast<const int64_t*>(f->value));
        break;
      case Kind::kFloat:
        text = FormatFloat(*static_cast<const float*>(f->value));
        break;
      case Kind::kBool:
        text = *static_cast<const bool*>(f->value) ? "true" : "false";
        break;
      case Kind::kIgnored:
        text = "(ignored)";
        break;
      case Kind::kGroup:
        break;
    }
    values.emplace_back(name, text);
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
