// Command-line flags in TensorFlow Lite's syntax (--name=value; booleans also as --name), declared
// once in a table from which parsing, --help and the docs all derive. An unknown flag or a bad value
// is a usage error (exit code 2), never silently ignored.
#ifndef TOUCHSTONE_TOOLS_COMMON_FLAGS_H_
#define TOUCHSTONE_TOOLS_COMMON_FLAGS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/status.h"

namespace touchstone {

class FlagTable {
 public:
  void AddString(const std::string& name, std::string* value, const std::string& help);
  void AddInt(const std::string& name, int32_t* value, const std::string& help);
  void AddInt64(const std::string& name, int64_t* value, const std::string& help);
  void AddFloat(const std::string& name, float* value, const std::string& help);
  void AddBool(const std::string& name, bool* value, const std::string& help);
  // Flags TFLite's tool has that cannot apply here: accepted, with a warning naming them.
  void AddIgnored(const std::string& name, const std::string& why);
  // A heading in --help before the flags added after it (e.g. one per delegate provider).
  void AddGroup(const std::string& title);

  // Parses argv[1..]; --help sets *help_requested. Warnings for ignored flags go to *warnings.
  Status Parse(int argc, const char* const* argv, bool* help_requested, std::vector<std::string>* warnings);
  // "--name=default  help" lines, in declaration order.
  std::string Usage(const std::string& program) const;
  // Names of flags given on the command line, in order.
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
  };
  Status SetValue(const Flag& flag, const std::string& text);

  std::vector<Flag> flags_;
  std::vector<std::string> given_;
};

// Prints "ERROR: <message>" on one line to stderr (runtime/logging.h's LogFailure: whatever
// --log_level says) and returns the status's exit code.
int ReportFailure(const Status& status);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_FLAGS_H_
