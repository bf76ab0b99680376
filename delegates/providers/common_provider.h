// The "common" provider: flags every delegate may read, creating no delegate itself (TFLite's default
// provider). --num_threads and --use_reference_kernels stay the tools' own flags (they configure the
// CPU interpreter); the tool passes the thread count on in ProviderParams::num_threads.
#ifndef TOUCHSTONE_DELEGATES_PROVIDERS_COMMON_PROVIDER_H_
#define TOUCHSTONE_DELEGATES_PROVIDERS_COMMON_PROVIDER_H_

#include "delegates/providers/delegate_provider.h"

namespace touchstone {

constexpr char kMaxDelegatedPartitionsFlag[] = "max_delegated_partitions";
constexpr char kMinNodesPerPartitionFlag[] = "min_nodes_per_partition";

DelegateProvider CommonDelegateProvider();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_PROVIDERS_COMMON_PROVIDER_H_
