#include "delegates/api/graph_partition_helper.h"

#include <algorithm>
#include <utility>

#include "runtime/c/builtin_ops.h"

namespace tflite {
namespace delegates {

GraphPartitionHelper::GraphPartitionHelper(TfLiteContext* context, IsNodeSupportedFn is_node_supported_fn)
    : context_(context), is_node_supported_fn_(std::move(is_node_supported_fn)) {}

GraphPartitionHelper::GraphPartitionHelper(TfLiteContext* context, const std::vector<int>& supported_node_indices)
    : context_(context), num_supported_nodes_(static_cast<int>(supported_node_indices.size())) {
  supported_nodes_ = TfLiteIntArrayCreate(static_cast<int>(supported_node_indices.size()));
  for (size_t i = 0; i < supported_node_indices.size(); ++i) {
    supported_nodes_->data[i] = supported_node_indices[i];
  }
}

GraphPartitionHelper::~GraphPartitionHelper() { TfLiteIntArrayFree(supported_nodes_); }

TfLiteStatus GraphPartitionHelper::Partition(std::set<std::string>* unsupported_nodes_info) {
  partitions_.clear();
  TF_LITE_ENSURE_STATUS(PrepareSupportedNodes(unsupported_nodes_info));
  TfLiteDelegateParams* params_array = nullptr;
  int num_partitions = 0;
  if (context_->PreviewDelegatePartitioning(context_, supported_nodes_, &params_array, &num_partitions) != kTfLiteOk) {
    TF_LITE_KERNEL_LOG(context_, "Unable to preview delegate partition.");
    return kTfLiteError;
  }
  for (int i = 0; i < num_partitions; ++i) partitions_.push_back(params_array + i);
  return kTfLiteOk;
}

TfLiteStatus GraphPartitionHelper::PrepareSupportedNodes(std::set<std::string>* unsupported_nodes_info) {
  if (!is_node_supported_fn_) {
    // Built from a list of supported nodes; only the plan's size is needed.
    TfLiteIntArray* plan = nullptr;
    TF_LITE_ENSURE_STATUS(context_->GetExecutionPlan(context_, &plan));
    num_total_nodes_ = plan->size;
    return kTfLiteOk;
  }
  TfLiteIntArray* plan = nullptr;
  if (context_->GetExecutionPlan(context_, &plan) != kTfLiteOk) {
    TF_LITE_KERNEL_LOG(context_, "Unable to get graph execution plan.");
    return kTfLiteError;
  }
  num_total_nodes_ = plan->size;
  // Copy the plan: the callbacks below may not keep `plan` valid.
  const std::vector<int> plan_nodes(plan->data, plan->data + plan->size);
  TfLiteIntArrayFree(supported_nodes_);
  supported_nodes_ = TfLiteIntArrayCreate(static_cast<int>(plan_nodes.size()));
  supported_nodes_->size = 0;
  for (int node_id : plan_nodes) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* registration = nullptr;
    if (context_->GetNodeAndRegistration(context_, node_id, &node, &registration) != kTfLiteOk) {
      TF_LITE_KERNEL_LOG(context_, "Couldn't get node and registration info for op: %d", node_id);
      supported_nodes_->size = 0;
      return kTfLiteError;
    }
    std::string details;
    if (IsNodeSupported(context_, node, registration, node_id, &details)) {
      supported_nodes_->data[supported_nodes_->size++] = node_id;
    } else if (unsupported_nodes_info != nullptr) {
      std::string name;
      if (registration->custom_name != nullptr && (registration->builtin_code == kTfLiteBuiltinCustom ||
                                                   registration->builtin_code == kTfLiteBuiltinDelegate)) {
        name = registration->custom_name;
      } else {
        name = "builtin op " + std::to_string(registration->builtin_code);
      }
      unsupported_nodes_info->insert(name + ": " + details);
    }
  }
  num_supported_nodes_ = supported_nodes_->size;
  return kTfLiteOk;
}

std::vector<TfLiteDelegateParams*> GraphPartitionHelper::GetFirstNLargestPartitions(int n,
                                                                                    int min_nodes_per_partition) const {
  std::vector<TfLiteDelegateParams*> sorted = partitions_;
  // Largest first; stable, so that equal sizes keep their order in the plan.
  std::stable_sort(sorted.begin(), sorted.end(), [](TfLiteDelegateParams* a, TfLiteDelegateParams* b) {
    return a->nodes_to_replace->size > b->nodes_to_replace->size;
  });
  std::vector<TfLiteDelegateParams*> result;
  for (TfLiteDelegateParams* p : sorted) {
    if (static_cast<int>(result.size()) >= n) break;
    // Sorted by size: once one is too small, so are the rest.
    if (p->nodes_to_replace->size < min_nodes_per_partition) break;
    result.push_back(p);
  }
  return result;
}

std::vector<int> GraphPartitionHelper::GetNodesOfFirstNLargestPartitionsImpl(int n, int min_nodes_per_partition) {
  std::vector<int> nodes;
  for (const TfLiteDelegateParams* p : GetFirstNLargestPartitions(n, min_nodes_per_partition)) {
    nodes.insert(nodes.end(), p->nodes_to_replace->data, p->nodes_to_replace->data + p->nodes_to_replace->size);
  }
  return nodes;
}

}  // namespace delegates
}  // namespace tflite
