#include "delegates/providers/common_provider.h"

namespace touchstone {

DelegateProvider CommonDelegateProvider() {
  return DeclareProvider("COMMON", "partitioning limits every delegate honours",
                         {ProviderFlag::Int(kMaxDelegatedPartitionsFlag, 0,
                                            "delegate at most this many partitions, the largest (0: no limit)"),
                          ProviderFlag::Int(kMinNodesPerPartitionFlag, 0,
                                            "leave partitions with fewer nodes to the CPU kernels (0: no limit)")});
}

}  // namespace touchstone
