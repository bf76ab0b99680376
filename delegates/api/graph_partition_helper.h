// Which nodes a delegate gets: TFLite's GraphPartitionHelper (tensorflow/lite/delegates/utils.h), same
// names and meaning. It asks a predicate about every node of the execution plan, previews how the
// interpreter would partition the supported ones (context->PreviewDelegatePartitioning: independent
// subsets, no cycles), and picks the largest partitions.
#ifndef TOUCHSTONE_DELEGATES_API_GRAPH_PARTITION_HELPER_H_
#define TOUCHSTONE_DELEGATES_API_GRAPH_PARTITION_HELPER_H_

#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "runtime/c/common.h"

namespace tflite {
namespace delegates {

// True when the delegate supports `node`; may explain why not in *unsupported_details.
using IsNodeSupportedFn =
    std::function<bool(TfLiteContext*, TfLiteNode*, TfLiteRegistration*, std::string* unsupported_details)>;

class GraphPartitionHelper {
 public:
  GraphPartitionHelper(TfLiteContext* context, IsNodeSupportedFn is_node_supported_fn);
  // The supported nodes are given instead of asked for.
  GraphPartitionHelper(TfLiteContext* context, const std::vector<int>& supported_node_indices);
  virtual ~GraphPartitionHelper();
  GraphPartitionHelper(const GraphPartitionHelper&) = delete;
  GraphPartitionHelper& operator=(const GraphPartitionHelper&) = delete;

  // Finds the supported nodes and previews their partitions. When `unsupported_nodes_info` is given,
  // it receives "OP_NAME: details" for each unsupported kind of node. The partitions stay valid until
  // the next preview or the end of the delegate's Prepare.
  virtual TfLiteStatus Partition(std::set<std::string>* unsupported_nodes_info);

  // The `n` largest partitions (largest first; equal sizes keep plan order) among those with at
  // least `min_nodes_per_partition` nodes.
  std::vector<TfLiteDelegateParams*> GetFirstNLargestPartitions(int n = std::numeric_limits<int>::max(),
                                                                int min_nodes_per_partition = 0) const;

  // The nodes of those partitions, partition after partition.
  std::vector<int> GetNodesOfFirstNLargestPartitions(int n = std::numeric_limits<int>::max(),
                                                     int min_nodes_per_partition = 0) {
    return GetNodesOfFirstNLargestPartitionsImpl(n, min_nodes_per_partition);
  }

  int num_total_nodes() const { return num_total_nodes_; }
  int num_supported_nodes() const { return num_supported_nodes_; }
  int num_partitions() const { return static_cast<int>(partitions_.size()); }

 protected:
  virtual bool IsNodeSupported(TfLiteContext* context, TfLiteNode* node, TfLiteRegistration* registration, int node_id,
                               std::string* unsupported_details) {
    return is_node_supported_fn_(context, node, registration, unsupported_details);
  }
  virtual std::vector<int> GetNodesOfFirstNLargestPartitionsImpl(int n, int min_nodes_per_partition);

  TfLiteContext* const context_ = nullptr;
  // Previewed partitions; owned by the context.
  std::vector<TfLiteDelegateParams*> partitions_;
  // Nodes in the execution plan when Partition ran.
  int num_total_nodes_ = 0;
  int num_supported_nodes_ = 0;
  // The supported node indices (owned).
  TfLiteIntArray* supported_nodes_ = nullptr;

 private:
  TfLiteStatus PrepareSupportedNodes(std::set<std::string>* unsupported_nodes_info);

  const IsNodeSupportedFn is_node_supported_fn_;
};

}  // namespace delegates
}  // namespace tflite

#endif  // TOUCHSTONE_DELEGATES_API_GRAPH_PARTITION_HELPER_H_
