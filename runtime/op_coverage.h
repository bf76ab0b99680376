// The op x type coverage table: for every builtin op the op resolver serves, the versions it
// resolves and the type combinations it runs, refuses at invoke and refuses at prepare, taken from
// BuiltinOpResolver and the type rules (op_type_rules.h) the interpreter enforces. docs/fidelity.md
// holds it as CoverageTableMarkdown() prints it; op_coverage_test checks both against the sweep.
#ifndef TOUCHSTONE_RUNTIME_OP_COVERAGE_H_
#define TOUCHSTONE_RUNTIME_OP_COVERAGE_H_

#include <string>

namespace touchstone {

// One markdown table, a row per builtin op in name order, ending with a newline.
std::string CoverageTableMarkdown();

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_OP_COVERAGE_H_
