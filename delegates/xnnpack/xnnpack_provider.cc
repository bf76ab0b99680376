#include "delegates/xnnpack/xnnpack_provider.h"

#include <iostream>
#include <string>

#include "delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/kernels/optimized/optimized_ops.h"

namespace touchstone {

DelegateProvider XnnpackDelegateProvider() {
  DelegateProvider provider;
  provider.name = "XNNPACK";
  provider.description = "XNNPACK (Debian's libxnnpack, git 2022-02-16) on a pthreadpool of --num_threads threads";
  provider.flags = {
      ProviderFlag::Bool(kUseXnnpackFlag, true,
                         "apply the XNNPACK delegate (float32, int8 and uint8 ops); applied by default over the "
                         "optimized kernels (float32 ops, and int8 ones unless the CPU has AVX-512 VNNI), never by "
                         "default over --use_reference_kernels; --use_xnnpack=false turns it off"),
      ProviderFlag::Bool(kXnnpackForceFp16Flag, false,
                         "run XNNPACK's float16 inference (emulated on x86); the delegate fails where it cannot"),
      ProviderFlag::String(kXnnpackWeightCacheFlag, "",
                           "file for XNNPACK's packed weights; this XNNPACK has no weights cache, so it is "
                           "ignored with a warning"),
  };
  provider.enabling_flag = kUseXnnpackFlag;
  provider.create = [](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    TfLiteDelegatePtr none(nullptr, [](TfLiteDelegate*) {});
    if (!params.GetBool(kUseXnnpackFlag)) return none;
    const bool given = params.Position(kUseXnnpackFlag) > 0;
    if (!given) {
      // By default only over the optimized kernels, and only when the tool says which kernels it runs.
      if (!params.Has(kXnnpackReferenceKernelsParam) || params.GetBool(kXnnpackReferenceKernelsParam)) return none;
    }
    TfLiteXNNPackDelegateOptions options = TfLiteXNNPackDelegateOptionsDefault();
    // Named, it takes int8 and uint8 operators (TFLite built with XNNPACK's qs8 and qu8 support).
    // Applied by default, it takes what stock TFLite 2.14.1's default delegate takes: float32 and int8,
    // not uint8 (TFLite's native builds leave qu8 off), so the evaluation tools' default runs of uint8
    // models compute what TFLite's run_eval computed (../shared/data/coco/README.md).
    if (!given) options.flags &= ~static_cast<uint32_t>(TFLITE_XNNPACK_DELEGATE_FLAG_QU8);
    // int8 too where the optimized kernels run them on AVX-512 VNNI: this XNNPACK (2022) has no VNNI
    // kernels, and on MobileNet v2 int8 the optimized kernels are about 20% faster than it
    // (docs/performance.md). Named, the delegate takes int8 and uint8 whatever the CPU.
    if (!given && optimized::QuantizedKernelsUseVnni()) {
      options.flags &= ~static_cast<uint32_t>(TFLITE_XNNPACK_DELEGATE_FLAG_QS8);
    }
    options.num_threads = params.num_threads > 0 ? params.num_threads : 1;
    if (params.GetBool(kXnnpackForceFp16Flag)) options.flags |= TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16;
    const std::string cache = params.GetString(kXnnpackWeightCacheFlag);
    if (!cache.empty()) {
      std::cerr << "WARNING: --" << kXnnpackWeightCacheFlag << "=" << cache
                << ": this XNNPACK (git 2022-02-16) has no weights cache; ignored" << std::endl;
    }
    std::string error;
    TfLiteDelegate* delegate = CreateXnnpackDelegate(options, &error);
    if (delegate == nullptr) return ExecutionError("XNNPACK delegate: " + error);
    return TfLiteDelegatePtr(delegate, TfLiteXNNPackDelegateDelete);
  };
  return provider;
}

}  // namespace touchstone
