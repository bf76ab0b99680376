// The shape every tool's main shares, written once: parse the flag table, answer --help, check the
// flags, run the work (under the delegate isolation flags when the tool takes delegates), and turn an
// error into one "ERROR: <message>" line on stderr and its status's exit code (runtime/status.h).
// A tool's main declares its flags and calls RunTool, which adds --log_level (runtime/logging.h) to the
// table and sets the level from it before anything else is printed.
#ifndef TOUCHSTONE_TOOLS_COMMON_TOOL_RUNNER_H_
#define TOUCHSTONE_TOOLS_COMMON_TOOL_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "runtime/status.h"
#include "tools/common/delegate_flags.h"
#include "tools/common/flags.h"

namespace touchstone {

struct ToolSpec {
  // The program's name in --help's first line, "usage: <name> [--flag=value ...]".
  std::string name;
  // Replaces that first line, for a tool whose command line is more than flags (report_diff's operands).
  std::string usage_line;
  // Where the operands (arguments not starting with '-') go, in order; nullptr: the tool takes none and
  // one is a usage error.
  std::vector<std::string>* operands = nullptr;
  // After parsing, before the work: a usage error stops the tool. It may add to the parser's warnings,
  // printed as "WARNING: ..." lines once it passes.
  std::function<Status(std::vector<std::string>* warnings)> check;
  // When the tool takes delegates: the work runs under the group's isolation flags, which the group
  // checks first (docs/isolation.md).
  const DelegateFlagGroup* delegates = nullptr;
  // The work: the tool's exit code, or the error to report.
  std::function<StatusOr<int>()> run;
};

// Runs the tool `spec` describes with the flags declared in `table` (plus --log_level, added here: call
// it once per table, which must not declare --log_level itself); returns main's exit code.
int RunTool(int argc, char** argv, FlagTable* table, const ToolSpec& spec);

// Logs each warning as one "WARNING: <warning>" line on stderr (hidden by --log_level=error or off).
void PrintWarnings(const std::vector<std::string>& warnings);

}  // namespace touchstone

#endif  // TOUCHSTONE_TOOLS_COMMON_TOOL_RUNNER_H_
