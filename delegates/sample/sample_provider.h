// The "SAMPLE" delegate provider: --use_sample_delegate applies the sample delegate in-process, with the
// common --max_delegated_partitions and --min_nodes_per_partition.
#ifndef TOUCHSTONE_DELEGATES_SAMPLE_SAMPLE_PROVIDER_H_
#define TOUCHSTONE_DELEGATES_SAMPLE_SAMPLE_PROVIDER_H_

#include "delegates/providers/delegate_provider.h"

namespace touchstone {

DelegateProvider SampleDelegateProvider();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_SAMPLE_SAMPLE_PROVIDER_H_
