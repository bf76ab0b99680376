// The nodes the optimized kernel set leaves on the reference kernel on purpose, with why: ops whose
// work is a copy, bookkeeping or control flow, and small operators that stay a negligible share of
// the models that have them (docs/performance.md lists each with its share). A node on the reference
// kernel that is not covered here is a gap: tests/cli:kernel_coverage_test fails on it for every
// model in ../shared/models, and benchmark_model's report marks it.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_REFERENCE_PATHS_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_REFERENCE_PATHS_H_

#include <string>
#include <vector>

namespace touchstone {
namespace optimized {

struct ReferencePath {
  const char* op;     // "RESHAPE"
  const char* types;  // the first input's type names it covers, comma-separated ("int8,uint8"); "" any
  const char* why;    // one line
};

// The table, in op order.
const std::vector<ReferencePath>& ReferencePaths();

// The table as docs/performance.md holds it: "| op | input types | why |" rows in table order.
std::string ReferencePathsMarkdown();

// The entry covering a node of `op` whose first input is `type` ("int8"), or null.
const ReferencePath* FindReferencePath(const std::string& op, const std::string& type);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_REFERENCE_PATHS_H_
