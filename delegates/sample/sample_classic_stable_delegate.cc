// A stable delegate (TFL_TheStableDelegate) whose plugin returns a classic TfLiteDelegate (a classic
// Prepare, no opaque builder), as TFLite 2.14.1's stable XNNPACK delegate does: the sample delegate of
// the SimpleDelegate API behind the stable entry point. It tests the host's classic path through a
// stable delegate; it reads the TFLiteSettings table the way that plugin does (it must not be NULL).
#include "delegates/sample/sample_delegate.h"
#include "runtime/c/stable_delegate.h"

namespace touchstone {
namespace {

TfLiteDelegate* PluginCreate(const void* tflite_settings) {
  // TFLite's stable XNNPACK plugin reads the table without a NULL check; so does this one, to catch a
  // host that passes none.
  if (*static_cast<const int32_t*>(tflite_settings) == 0) return nullptr;  // a vtable offset is never 0
  return TfLiteSampleDelegateCreate(nullptr);
}

void PluginDestroy(TfLiteDelegate* delegate) { TfLiteSampleDelegateDelete(delegate); }

int PluginErrno(TfLiteDelegate*) { return 0; }

const TfLiteOpaqueDelegatePlugin kPlugin = {PluginCreate, PluginDestroy, PluginErrno};

}  // namespace
}  // namespace touchstone

extern "C" __attribute__((visibility("default"))) const TfLiteStableDelegate TFL_TheStableDelegate = {
    TFL_STABLE_DELEGATE_ABI_VERSION, "touchstone_sample_classic_stable_delegate", "1.0.0", &touchstone::kPlugin};
