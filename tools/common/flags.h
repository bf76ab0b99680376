// Command-line flags in TensorFlow Lite's syntax (--name=value; booleans also as --name), declared
// once in a table from which parsing, --help and the docs all derive. An unknown flag or a bad value
// is a usage error (exit code 2), never silently ignored. CLI11 does the parsing behind the table; the
// table keeps TFLite's syntax in front of it (docs/tools.md):
// - every argument is --name=value; a boolean also --name (true); true|false|1|0 only;
// - no short options, no '--name value', no positional arguments (a tool's operands are taken out
//   before parsing, tools/common/tool_runner.h); a flag given twice keeps the last value;
// - an unknown flag's error names the nearest declared one ("did you mean --graph?");
// - a value outside the limits declared with its flag (a range, a list of choices) is refused, and
//   --help shows the limits;
// - --config=FILE reads flags from a file of "name = value" lines (CLI11's config-file support); a flag
//   on the command line overrides the file.
#ifndef TOUCHSTONE_TOOLS_COMMON_FLAGS_H_
#define TOUCHSTONE_TOOLS_COMMON_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/status.h"

namespace touchstone {

// The flag every table has: the flag file.
inline constexpr char kFlagFileFlag[] = "config";

class FlagTable {
  struct Flag;

 public:
  // What Add* returns: narrows the values the flag just added takes. --help shows the limits, and a
  // value outside them is a usage error naming the flag and the limits ("--num_runs=0: must be at
  // least 1"). Numbers only for the bounds, strings only for the choices.
  class Limits {
   public:
    // Inclusive bounds.
    Limits& AtLeast(double min);
    Limits& AtMost(double max);
    Limits& InRange(double min, double max) { return AtLeast(min).AtMost(max); }
    // An exclusive lower bound (a duration that must be positive).
    Limits& GreaterThan(double bound);
    // One value outside the bounds that is taken too: a sentinel such as -1 for "the default".
    Limits& OrExactly(double value);
    // The values a string flag takes, in the order --help and the error list them.
    Limits& OneOf(std::vector<std::string> choices);

   private:
    friend class FlagTable;
    Limits(FlagTable* table, size_t index) : table_(table), index_(index) {}
    // The flag these limits narrow; a bound on a string or choices for a number abort (the declaring
    // code's mistake).
    Flag& Target(bool choices);
    FlagTable* table_;
    size_t index_;
  };

  Limits AddString(const std::string& name, std::string* value, const std::string& help);
  Limits AddInt(const std::string& name, int32_t* value, const std::string& help);
  Limits AddInt64(const std::string& name, int64_t* value, const std::string& help);
  Limits AddFloat(const std::string& name, float* value, const std::string& help);
  void AddBool(const std::string& name, bool* value, const std::string& help);
  // Flags TFLite's tool has that cannot apply here: accepted, with a warning naming them.
  void AddIgnored(const std::string& name, const std::string& why);
  // A heading in --help before the flags added after it (e.g. one per delegate provider).
  void AddGroup(const std::string& title);

  // Parses argv[1..], then the flag file --config names; --help (or -h, --helpfull) before the first
  // error sets *help_requested. Warnings for ignored flags go to *warnings.
  Status Parse(int argc, const char* const* argv, bool* help_requested, std::vector<std::string>* warnings);
  // "--name=default  help (limits)" lines, in declaration order, then the flag file's.
  std::string Usage(const std::string& program) const;
  // Names of the flags given, in order, those the flag file set included: they stand where --config
  // stands on the command line, in the file's order (a flag the command line also gives is the command
  // line's, at its place there). --config itself is not among them.
  const std::vector<std::string>& given() const { return given_; }
  // Each flag given (once, in the order first given) and its value now, as text ("true"/"false" for
  // booleans): what a report records of the command line.
  std::vector<std::pair<std::string, std::string>> GivenValues() const;
  // 1-based position of the flag's last occurrence among those given; 0 when it was not given. Orders
  // things the command line orders, e.g. delegates.
  int Position(const std::string& name) const;

 private:
  enum class Kind { kString, kInt, kInt64, kFloat, kBool, kIgnored, kGroup };
  struct Flag {
    std::string name;
    Kind kind;
    void* value;
    std::string help;
    std::string default_text;
    // Limits (Limits above); unset or empty: none.
    std::optional<double> min, max, also;
    bool min_exclusive = false;
    std::vector<std::string> choices;
  };
  class FlagFileFormat;
  struct ParseState;

  Limits Add(Flag flag);
  // Parses `text` for `flag` and checks its limits; stores the value unless `check_only`.
  Status SetValue(const Flag& flag, const std::string& text, bool check_only = false) const;
  // The flag of that name (groups have none); null when there is none.
  const Flag* Find(const std::string& name) const;
  // "unknown flag --x; did you mean --y?" without the trailing hint.
  std::string UnknownFlag(const std::string& name) const;
  // "at least 1", "in [0, 64]", "one of none, process": what --help and the errors say; "" for none.
  static std::string LimitsText(const Flag& flag);

  std::vector<Flag> flags_;
  std::vector<std::string> given_;
};

// Prints "ERROR: <message>" on one line to stderr (runtime/logging.h's LogFailure: whatever
// --log_level says) and returns the status's exit code.
int ReportFailure(const Status& status);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_FLAGS_H_
