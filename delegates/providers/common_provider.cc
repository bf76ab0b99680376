#include "delegates/providers/common_provider.h"

namespace touchstone {

DelegateProvider CommonDelegateProvider() {
  DelegateProvider provider;
  provider.name = "COMMON";
  provider.description = "partitioning limits every delegate honours";
  provider.flags = {
      ProviderFlag::Int(kMaxDelegatedPartitionsFlag, 0,
                        "delegate at most this many partitions, the largest (0: no limit)"),
      ProviderFlag::Int(kMinNodesPerPartitionFlag, 0,
                        "leave partitions with fewer nodes to the CPU kernels (0: no limit)"),
  };
  return provider;
}

}  // namespace touchstone
