#include "evaluation/kernel_usage.h"

#include <map>

#include "runtime/c/builtin_op_data.h"
#include "runtime/kernels/optimized/reference_paths.h"

namespace touchstone {
namespace {

std::string TypeName(TfLiteType type) {
  std::string name = TfLiteTypeGetName(type);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// Reasons any op's optimized kernel leaves a node to the reference kernel, whatever its type: it
// plans at Prepare, so an output sized only at Invoke runs the reference; an empty one computes
// nothing.
std::string GeneralReferenceReason(Subgraph* subgraph, int node_index) {
  const TfLiteIntArray* outputs = subgraph->node(node_index).outputs;
  if (outputs == nullptr) return "";
  for (int k = 0; k < outputs->size; ++k) {
    if (outputs->data[k] < 0) continue;
    const TfLiteTensor* output = subgraph->tensor(outputs->data[k]);
    if (output->allocation_type == kTfLiteDynamic) {
      return "a dynamic output, sized at every Invoke (the optimized kernels plan at Prepare)";
    }
    if (output->dims != nullptr) {
      int64_t elements = 1;
      for (int d = 0; d < output->dims->size; ++d) elements *= output->dims->data[d];
      if (elements == 0) return "an empty output: nothing to compute";
    }
  }
  return "";
}

}  // namespace

std::string DescribeNodeConfiguration(Subgraph* subgraph, int node_index) {
  const TfLiteNode& node = subgraph->node(node_index);
  const std::string& op = subgraph->op_name(node_index);
  std::string text = op;
  const TfLiteIntArray* inputs = node.inputs;
  if (inputs != nullptr && inputs->size > 0 && inputs->data[0] >= 0) {
    const TfLiteType first = subgraph->tensor(inputs->data[0])->type;
    text += " " + TypeName(first);
    // Weights of another type (hybrid, 16x8): the second input when it is a constant.
    if (inputs->size > 1 && inputs->data[1] >= 0) {
      const TfLiteTensor* second = subgraph->tensor(inputs->data[1]);
      if (second->allocation_type == kTfLiteMmapRo && second->type != first) text += "/" + TypeName(second->type);
    }
  }
  if (op == "DEPTHWISE_CONV_2D" && node.builtin_data != nullptr) {
    const auto* params = static_cast<const TfLiteDepthwiseConvParams*>(node.builtin_data);
    text += " multiplier " + std::to_string(params->depth_multiplier);
  }
  return text;
}

KernelUsage KernelUsageOf(Interpreter* interpreter) {
  KernelUsage usage;
  const bool optimized_set = interpreter->options().kernel_set == KernelSet::kOptimized;
  for (size_t s = 0; s < interpreter->subgraphs_size(); ++s) {
    Subgraph* subgraph = interpreter->subgraph(static_cast<int>(s));
    for (int node_index : subgraph->execution_plan()) {
      NodeKernel n;
      n.subgraph = static_cast<int>(s);
      n.node = node_index;
      n.op = subgraph->op_name(node_index);
      n.kernel = subgraph->node_kernel(node_index);
      n.configuration = DescribeNodeConfiguration(subgraph, node_index);
      if (!subgraph->node_kernel_known(node_index) && subgraph->node(node_index).delegate == nullptr) {
        n.kernel = "at_invoke";
        ++usage.at_invoke;
      } else if (n.kernel == "optimized") {
        ++usage.optimized;
      } else if (n.kernel == "prepare") {
        ++usage.prepare;
      } else if (n.kernel == "reference") {
        ++usage.reference;
        if (optimized_set) {
          const TfLiteIntArray* inputs = subgraph->node(node_index).inputs;
          const std::string type = inputs != nullptr && inputs->size > 0 && inputs->data[0] >= 0
                                       ? TypeName(subgraph->tensor(inputs->data[0])->type)
                                       : "";
          const optimized::ReferencePath* path = optimized::FindReferencePath(n.op, type);
          const std::string general = GeneralReferenceReason(subgraph, node_index);
          if (!general.empty()) {
            n.reference_reason = general;
          } else if (path != nullptr) {
            n.reference_reason = path->why;
          } else {
            ++usage.reference_unlisted;
          }
        }
      } else {
        ++usage.delegated;
      }
      usage.nodes.push_back(n);
    }
  }
  return usage;
}

namespace {

// " (SIN float32, ADD int16 x3)": the configurations of the nodes on `kernel`, each once, in plan
// order, with a count where several share one; empty when none.
std::string ConfigurationList(const KernelUsage& usage, const std::string& kernel) {
  std::vector<std::string> order;
  std::map<std::string, int> counts;
  for (const NodeKernel& n : usage.nodes) {
    if (n.kernel != kernel) continue;
    if (counts[n.configuration]++ == 0) order.push_back(n.configuration);
  }
  if (order.empty()) return "";
  std::string text = " (";
  for (size_t i = 0; i < order.size(); ++i) {
    text += (i ? ", " : "") + order[i];
    if (counts[order[i]] > 1) text += " x" + std::to_string(counts[order[i]]);
  }
  return text + ")";
}

}  // namespace

std::string FormatKernelUsage(const KernelUsage& usage) {
  std::string text = "Kernels: " + std::to_string(usage.optimized) + " optimized, " + std::to_string(usage.reference) +
                     " reference" + ConfigurationList(usage, "reference") + ", " + std::to_string(usage.delegated) +
                     " delegated";
  if (usage.prepare > 0) {
    text += ", " + std::to_string(usage.prepare) + " computed at Prepare" + ConfigurationList(usage, "prepare");
  }
  if (usage.at_invoke > 0) text += ", " + std::to_string(usage.at_invoke) + " chosen at the first Invoke";
  return text;
}

}  // namespace touchstone
