// Prints the op x type coverage table (runtime/op_coverage.h) that docs/fidelity.md holds.
#include <cstdio>

#include "runtime/op_coverage.h"

int main() {
  std::fputs(touchstone::CoverageTableMarkdown().c_str(), stdout);
  return 0;
}
