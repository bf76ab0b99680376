// Touchstone's sample delegate: float32 ADD and SUB (with broadcasting and the RELU-family fused
// activations), written against the SimpleDelegate API as a vendor would write theirs. It exists to
// exercise the delegate machinery end to end: in-process (--use_sample_delegate) and as an external
// plugin (libsample_delegate_plugin.so through --external_delegate_path). Like TFLite's dummy
// delegate it can be told to fail in Init, Prepare or Eval, so the failure paths are tested too, and
// told to compute wrong results (a bias added to its outputs), so accuracy checks (inference_diff)
// are tested against a delegate known to be wrong, and told to crash or hang in Eval, so delegate
// isolation is tested against one that fails badly.
#ifndef TOUCHSTONE_DELEGATES_SAMPLE_SAMPLE_DELEGATE_H_
#define TOUCHSTONE_DELEGATES_SAMPLE_SAMPLE_DELEGATE_H_

#include <cstddef>
#include <string>

#include "runtime/c/common.h"

namespace touchstone {

struct SampleDelegateOptions {
  // Make the delegate kernels fail in Init / Prepare / Eval (failure injection for tests).
  bool error_during_init = false;
  bool error_during_prepare = false;
  bool error_during_invoke = false;
  // Fail badly in Eval, as a broken vendor delegate does: die of a segmentation fault, or never return.
  // For the delegate isolation tests (docs/isolation.md).
  bool crash_during_invoke = false;
  bool hang_during_invoke = false;
  // SimpleDelegateInterface::Options: <= 0 means no limit.
  int max_delegated_partitions = 0;
  int min_nodes_per_partition = 0;
  // Adds this bias to every element the delegate writes (after the fused activation): a deliberately
  // wrong delegate. 0: exact results.
  float perturb = 0.0f;
  // Perturbs only the op that was node `perturb_node` of the original graph; -1: every delegated op.
  int perturb_node = -1;
};

// Name() of the delegate, also the delegate kernel nodes' custom_name.
constexpr char kSampleDelegateName[] = "SampleDelegate";

// Null options mean the defaults. Free with TfLiteSampleDelegateDelete.
TfLiteDelegate* TfLiteSampleDelegateCreate(const SampleDelegateOptions* options);
void TfLiteSampleDelegateDelete(TfLiteDelegate* delegate);

// Reads plugin options (keys error_during_init, error_during_prepare, error_during_invoke,
// crash_during_invoke, hang_during_invoke: true/false/1/0; max_delegated_partitions, min_nodes_per_partition,
// perturb_node: integers; perturb: a finite number) into *options. On a bad key or value returns false with *error
// naming it.
bool ParseSampleDelegateOptions(const char* const* keys, const char* const* values, size_t num_options,
                                SampleDelegateOptions* options, std::string* error);

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_SAMPLE_SAMPLE_DELEGATE_H_
