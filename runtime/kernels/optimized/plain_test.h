// What the plain-program tests of the microkernel sets share (microkernels_test,
// fixed_point_kernels_test, int8_gemv_test): they use no test framework, so that they also run
// under an emulator for another architecture, and exit with 0 when every check agrees.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_PLAIN_TEST_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_PLAIN_TEST_H_

#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {
namespace plain_test {

// Failures so far.
inline int g_failures = 0;

// Counts a failure; true while few enough have been counted that this one is printed.
inline bool CountFailure() { return g_failures++ < 20; }

// Counts a failure and prints it (while few): "FAILED " and the printf-style message.
__attribute__((format(printf, 1, 2))) inline void Fail(const char* format, ...) {
  if (!CountFailure()) return;
  std::fputs("FAILED ", stderr);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
}

// The count, and the program's exit code.
inline int Finish() {
  std::printf("%d failures\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}

// check(table, microkernel set's name) once for each table (by name) that table_for() gives under
// the microkernel sets this CPU runs (SelectKernelSet), then for the `extra` ones not seen yet;
// the widest set is selected again afterwards.
template <typename Table, typename TableFor, typename Check>
void CheckEachTable(TableFor table_for, Check check,
                    const std::vector<std::pair<const Table*, std::string>>& extra = {}) {
  std::vector<std::pair<const Table*, std::string>> tables;
  for (const std::string& set : AvailableKernelSets()) {
    SelectKernelSet(set);
    tables.emplace_back(&table_for(), set);
  }
  SelectKernelSet(AvailableKernelSets().front());
  tables.insert(tables.end(), extra.begin(), extra.end());
  std::vector<std::string> checked;
  for (const auto& [table, set] : tables) {
    bool seen = false;
    for (const std::string& name : checked) seen = seen || name == table->name;
    if (seen) continue;
    checked.push_back(table->name);
    std::printf("checking %s (with the %s microkernels)\n", table->name, set.c_str());
    check(*table, set);
  }
}

}  // namespace plain_test
}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_PLAIN_TEST_H_
