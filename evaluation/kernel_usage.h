// Which code runs each node of a model: an optimized kernel's own path, a reference kernel (also an
// optimized kernel that runs the reference Eval for a node's configuration), or a delegate. A model
// that is slow because a hot node runs on the reference kernel says so here, in benchmark_model's
// "Kernels:" line, its report and its op profile (Subgraph::node_kernel).
#ifndef TOUCHSTONE_EVALUATION_KERNEL_USAGE_H_
#define TOUCHSTONE_EVALUATION_KERNEL_USAGE_H_

#include <string>
#include <vector>

#include "runtime/interpreter.h"

namespace touchstone {

struct NodeKernel {
  int subgraph = 0;
  int node = 0;
  std::string op;  // "DEPTHWISE_CONV_2D"
  // "optimized", "reference", "prepare" (its outputs computed once in Prepare: nothing runs at
  // Invoke), the delegate's name, or "at_invoke" for a node prepared only during Invoke (after a
  // dynamic output) that has not run yet.
  std::string kernel;
  std::string configuration;  // "DEPTHWISE_CONV_2D int8 multiplier 4": op, types, what selects a kernel
  // A node of the optimized kernel set on the reference kernel: why that is by design
  // (optimized::ReferencePaths), or empty for a gap.
  std::string reference_reason;
};

struct KernelUsage {
  int optimized = 0;
  int reference = 0;
  int reference_unlisted = 0;     // of which not in optimized::ReferencePaths (optimized kernel set only)
  int delegated = 0;              // delegate kernel nodes
  int prepare = 0;                // nodes whose outputs were computed in Prepare (a constant's DEQUANTIZE)
  int at_invoke = 0;              // nodes whose kernel is chosen when they are first prepared, during Invoke
  std::vector<NodeKernel> nodes;  // every node of every subgraph's execution plan, in plan order
};

// After AllocateTensors (the kernels choose their path in Prepare); again after an Invoke for the
// nodes prepared during it.
KernelUsage KernelUsageOf(Interpreter* interpreter);

// A node's configuration as it selects a kernel: the op, its input types ("float32", or
// "float32/int8" for float activations with int8 weights), and for DEPTHWISE_CONV_2D the multiplier.
std::string DescribeNodeConfiguration(Subgraph* subgraph, int node_index);

// "Kernels: 61 optimized, 2 reference (DEPTHWISE_CONV_2D int8 multiplier 4, SOFTMAX int16), 0 delegated"
// (each reference configuration once, with a count when several nodes share it: "ADD int16 x3"),
// followed by ", 102 computed at Prepare (DEQUANTIZE float16 x102)" where nodes did their work in
// Prepare and ", 3 chosen at the first Invoke" where nodes are prepared only then.
std::string FormatKernelUsage(const KernelUsage& usage);

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_KERNEL_USAGE_H_
