// The "XNNPACK" delegate provider, with TFLite's flags:
//   --use_xnnpack                     apply the XNNPACK delegate (on by default with the optimized kernels)
//   --xnnpack_force_fp16              run XNNPACK's float16 inference (fails where XNNPACK cannot)
//   --xnnpack_weight_cache_file_path  accepted; this XNNPACK has no weights cache, so it warns and ignores it
//   --xnnpack_8bit                    auto: int8/uint8 operators stay on the optimized kernels where those
//                                     run on AVX-512 VNNI or AVX2; xnnpack: XNNPACK takes them whatever the CPU
//   --xnnpack_fp32                    auto: float32 operators with an optimized kernel stay on it where the
//                                     optimized kernels run on AVX-512 or AVX+FMA; xnnpack: XNNPACK takes them
// The delegate's pthreadpool gets the tool's --num_threads (ProviderParams::num_threads).
//
// Applied by default, as TFLite applies XNNPACK: when --use_xnnpack is not given, the delegate is
// applied whenever the tool says its interpreter runs the optimized kernels (the parameter
// kXnnpackReferenceKernelsParam declared and false). With the reference kernels (--use_reference_kernels),
// or from a tool that does not say which kernels it runs, nothing is applied unless --use_xnnpack is
// given. --use_xnnpack=false turns it off. Applied by default it leaves uint8 operators to the
// interpreter, as stock TFLite 2.14.1's default XNNPACK delegate does; named, it takes int8 and uint8.
// With --xnnpack_8bit=auto (the default) it takes no int8 or uint8 operator where the optimized 8-bit
// kernels run on AVX-512 VNNI or AVX2 (optimized::QuantizedKernelsOutrunXnnpack): they are faster
// there than this XNNPACK (2022), which has no VNNI kernels, on all but sub-microsecond graphs. --xnnpack_8bit=xnnpack keeps the rule above on every CPU.
// With --xnnpack_fp32=auto (the default) it likewise takes no float32 node of an op the optimized
// kernel set has a kernel of its own for (BuiltinOpResolver::OptimizedBuiltins) where those run on
// AVX-512 or AVX+FMA (optimized::FloatKernelsUseFma), unless --xnnpack_force_fp16 asks for XNNPACK's float16
// inference; it still takes the float32 ops only it vectorises (HARD_SWISH, SUB, ...).
#ifndef TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_PROVIDER_H_
#define TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_PROVIDER_H_

#include "delegates/providers/delegate_provider.h"
#include "delegates/xnnpack/xnnpack_provider_flags.h"

namespace touchstone {

DelegateProvider XnnpackDelegateProvider();

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_PROVIDER_H_
