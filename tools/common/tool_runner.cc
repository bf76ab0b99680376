#include "tools/common/tool_runner.h"

#include <iostream>

#include "runtime/kernels/optimized/isa_name.h"
#include "runtime/logging.h"

namespace touchstone {

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) LogWarning("{}", w);
}

int RunTool(int argc, char** argv, FlagTable* table, const ToolSpec& spec) {
  // Every tool's --log_level. Its value lives as long as the process (the table keeps a pointer to it):
  // the level is the process's, not the table's.
  static std::string* const log_level = new std::string;
  *log_level = LogLevelName(LogLevel::kInfo);
  table->AddGroup("Logging (docs/logging.md)");
  table
      ->AddString("log_level", log_level,
                  "the least severe log lines printed on stderr (warning hides the INFO lines, error the WARNING "
                  "lines too; a failure's ERROR line is always printed)")
      .OneOf(LogLevelNames());
  // Operands are taken out before parsing, so the parser sees flags only.
  std::vector<const char*> flag_args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (spec.operands != nullptr && argv[i][0] != '-') {
      spec.operands->push_back(argv[i]);
    } else {
      flag_args.push_back(argv[i]);
    }
  }
  bool help = false;
  std::vector<std::string> warnings;
  Status parsed = table->Parse(static_cast<int>(flag_args.size()), flag_args.data(), &help, &warnings);
  if (help) {
    const std::string usage = table->Usage(spec.name);
    std::cout << (spec.usage_line.empty() ? usage : spec.usage_line + "\n" + usage.substr(usage.find('\n') + 1));
    // Tools that run models say which microkernels this CPU gets (the report's machine.isa).
    if (spec.delegates != nullptr) {
      std::cout << "\nOptimized kernels on this CPU: isa=" << OptimizedKernelsIsa()
                << " (TOUCHSTONE_CPU_KERNELS=scalar forces the portable ones)" << std::endl;
    }
    return 0;
  }
  if (!parsed.ok()) return ReportFailure(parsed);
  LogLevel level = LogLevel::kInfo;
  ParseLogLevel(*log_level, &level);  // (one of the names: the table checked it)
  SetLogLevel(level);
  if (spec.check) {
    Status checked = spec.check(&warnings);
    if (!checked.ok()) return ReportFailure(checked);
  }
  PrintWarnings(warnings);
  auto work = [&spec]() {
    StatusOr<int> code = spec.run();
    return code.ok() ? code.value() : ReportFailure(code.status());
  };
  return spec.delegates != nullptr ? spec.delegates->RunIsolated(*table, work) : work();
}

}  // namespace touchstone
