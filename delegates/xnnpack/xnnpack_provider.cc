#include "delegates/xnnpack/xnnpack_provider.h"

#include <string>

#include "delegates/xnnpack/xnnpack_delegate.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/logging.h"
#include "runtime/op_resolver.h"

namespace touchstone {

DelegateProvider XnnpackDelegateProvider() {
  DelegateProvider provider = XnnpackProviderDeclaration();
  provider.reduced_precision = [](const ProviderParams& params) { return params.GetBool(kXnnpackForceFp16Flag); };
  provider.create = [](const ProviderParams& params) -> StatusOr<TfLiteDelegatePtr> {
    TfLiteDelegatePtr none(nullptr, [](TfLiteDelegate*) {});
    // auto or xnnpack: the flags' declared choices (xnnpack_provider_flags.cc).
    const std::string eight_bit = params.GetString(kXnnpack8BitFlag);
    const std::string fp32 = params.GetString(kXnnpackFp32Flag);
    if (!params.GetBool(kUseXnnpackFlag)) return none;
    const bool given = params.Position(kUseXnnpackFlag) > 0;
    const bool says_kernels = params.Has(kXnnpackReferenceKernelsParam);
    const bool over_reference = says_kernels && params.GetBool(kXnnpackReferenceKernelsParam);
    // By default only over the optimized kernels, and only when the tool says which kernels it runs.
    if (!given && (!says_kernels || over_reference)) return none;
    // The two rules below leave operators to the optimized kernels, so they apply unless the tool
    // says it runs the reference kernels (inference_diff's test interpreter does not say; it runs
    // the optimized ones unless told otherwise).
    const bool rules_apply = !over_reference;
    TfLiteXNNPackDelegateOptions options = TfLiteXNNPackDelegateOptionsDefault();
    // Named, it takes int8 and uint8 operators (TFLite built with XNNPACK's qs8 and qu8 support).
    // Applied by default, it takes what stock TFLite 2.14.1's default delegate takes: float32 and int8,
    // not uint8 (TFLite's native builds leave qu8 off), so the evaluation tools' default runs of uint8
    // models compute what TFLite's run_eval computed (../shared/data/coco/README.md).
    if (!given) options.flags &= ~static_cast<uint32_t>(TFLITE_XNNPACK_DELEGATE_FLAG_QU8);
    // Where the optimized 8-bit kernels run on AVX-512 VNNI or AVX2 they beat this XNNPACK (2022, no
    // VNNI kernels) on int8 and uint8 models, and spare the delegate's Init: those operators stay on
    // them (docs/xnnpack.md, docs/performance.md).
    if (eight_bit == "auto" && rules_apply && optimized::QuantizedKernelsOutrunXnnpack()) {
      options.flags &= ~static_cast<uint32_t>(TFLITE_XNNPACK_DELEGATE_FLAG_QS8 | TFLITE_XNNPACK_DELEGATE_FLAG_QU8);
      // Named, the user expects XNNPACK to take what it can: say why 8-bit operators are not its.
      if (given) {
        LogInfo(
            "XNNPACK: int8 and uint8 operators stay on the optimized kernels (AVX-512 VNNI or AVX2); --{}=xnnpack gives "
            "them to XNNPACK.",
            kXnnpack8BitFlag);
      }
    }
    // Likewise the float32 operators the optimized kernels have a kernel for, where those run on
    // AVX-512 or AVX+FMA (faster than this XNNPACK on the float models on both); not with
    // --xnnpack_force_fp16, which asks for XNNPACK's float16 inference.
    const bool force_fp16 = params.GetBool(kXnnpackForceFp16Flag);
    XnnpackExtraOptions extra;
    if (fp32 == "auto" && !force_fp16 && rules_apply && optimized::FloatKernelsUseFma()) {
      const std::vector<int> codes = BuiltinOpResolver::OptimizedBuiltins();
      extra.declined_float_builtins.insert(codes.begin(), codes.end());
      const std::vector<int> sharing = BuiltinOpResolver::StorageSharingBuiltins();
      extra.always_declined_float_builtins.insert(sharing.begin(), sharing.end());
      // Node by node: one the optimized kernel would run through the reference kernel is XNNPACK's.
      extra.cpu_kernel_state = [](TfLiteContext* context, const TfLiteNode* node) {
        CpuBackendContext* backend = GetCpuBackendContext(context);
        return backend != nullptr && backend->cpu_kernel_state != nullptr ? backend->cpu_kernel_state(context, node)
                                                                          : -1;
      };
      if (given) {
        LogInfo(
            "XNNPACK: float32 operators with an optimized kernel stay on the optimized kernels (AVX-512 or AVX+FMA); "
            "--{}=xnnpack gives them to XNNPACK.",
            kXnnpackFp32Flag);
      }
    }
    options.num_threads = params.num_threads > 0 ? params.num_threads : 1;
    if (force_fp16) options.flags |= TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16;
    const std::string cache = params.GetString(kXnnpackWeightCacheFlag);
    if (!cache.empty()) {
      LogWarning("--{}={}: this XNNPACK (git 2022-02-16) has no weights cache; ignored", kXnnpackWeightCacheFlag,
                 cache);
    }
    std::string error;
    TfLiteDelegate* delegate = CreateXnnpackDelegate(options, &error, extra);
    if (delegate == nullptr) return ExecutionError("XNNPACK delegate: " + error);
    return TfLiteDelegatePtr(delegate, TfLiteXNNPackDelegateDelete);
  };
  return provider;
}

}  // namespace touchstone
