#include "delegates/xnnpack/xnnpack_provider_flags.h"

namespace touchstone {

DelegateProvider XnnpackProviderDeclaration() {
  return DeclareProvider(
      "XNNPACK", "XNNPACK (Debian's libxnnpack, git 2022-02-16) on a pthreadpool of --num_threads threads",
      {ProviderFlag::Bool(kUseXnnpackFlag, true,
                          "apply the XNNPACK delegate (float32, int8 and uint8 ops; see --xnnpack_8bit); applied by "
                          "default over the optimized kernels (float32 and int8 ops), never by default over "
                          "--use_reference_kernels; --use_xnnpack=false turns it off"),
       ProviderFlag::Bool(kXnnpackForceFp16Flag, false,
                          "run XNNPACK's float16 inference (emulated on x86); the delegate fails where it cannot"),
       ProviderFlag::String(kXnnpack8BitFlag, "auto",
                            "auto: int8 and uint8 operators stay on the optimized kernels where those run on AVX-512 "
                            "VNNI or AVX2 (faster there than this XNNPACK); xnnpack: XNNPACK takes them on "
                            "every CPU (int8, and uint8 when --use_xnnpack is named)")
           .OneOf({"auto", "xnnpack"}),
       ProviderFlag::String(kXnnpackFp32Flag, "auto",
                            "auto: float32 operators the optimized kernels have a kernel for stay on them where those "
                            "run on AVX-512 or AVX+FMA (faster there than this XNNPACK); xnnpack: XNNPACK takes them "
                            "on every CPU (so does --xnnpack_force_fp16)")
           .OneOf({"auto", "xnnpack"}),
       ProviderFlag::String(kXnnpackWeightCacheFlag, "",
                            "file for XNNPACK's packed weights; this XNNPACK has no weights cache, so it is "
                            "ignored with a warning")},
      kUseXnnpackFlag);
}

}  // namespace touchstone
