#include "delegates/sample/sample_provider.h"

#include "delegates/providers/common_provider.h"
#include "delegates/sample/sample_delegate.h"

namespace touchstone {

DelegateProvider SampleDelegateProvider() {
  DelegateProvider provider = DeclareProvider(
      "SAMPLE", "Touchstone's sample delegate, float32 ADD and SUB, in-process",
      {ProviderFlag::Bool("use_sample_delegate", false, "apply the sample delegate")}, "use_sample_delegate");
  provider.create = [](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    if (!params.GetBool("use_sample_delegate")) return TfLiteDelegatePtr(nullptr, [](TfLiteDelegate*) {});
    SampleDelegateOptions options;
    options.max_delegated_partitions = params.GetInt(kMaxDelegatedPartitionsFlag);
    options.min_nodes_per_partition = params.GetInt(kMinNodesPerPartitionFlag);
    return TfLiteDelegatePtr(TfLiteSampleDelegateCreate(&options), TfLiteSampleDelegateDelete);
  };
  return provider;
}

}  // namespace touchstone
