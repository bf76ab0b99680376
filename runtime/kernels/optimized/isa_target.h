// Instruction sets enabled for one file's own functions: the build has no global -m flags, so each
// microkernel file of a wider set (isa_*.cc, quant_*.cc, q16_*.cc, ...) enables its set around its
// own code, after every header, and its functions run only where the CPU has the set (each set's
// *For / dispatch.cc checks). Everything defined between the two lines gets the set, template
// instantiations included; nothing before or after does:
//   TS_TARGET_BEGIN("avx2,avx")  ...  TS_TARGET_END
// TS_AVX512_TARGET_BEGIN / _END do the same and also silence -W(maybe-)uninitialized, which GCC 12
// reports at every use of an AVX-512 intrinsic that passes _mm512_undefined_*() as an unused merge
// operand (GCC bug 105593).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_TARGET_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_TARGET_H_

#define TS_PRAGMA(text) _Pragma(#text)

// Clang ignores GCC's target pragma (the sanitizer build uses clang-14): it pushes an attribute.
#if defined(__clang__)
#define TS_TARGET_BEGIN(features) \
  TS_PRAGMA(clang attribute push(__attribute__((target(features))), apply_to = function))
#define TS_TARGET_END TS_PRAGMA(clang attribute pop)
#define TS_AVX512_TARGET_BEGIN(features) TS_TARGET_BEGIN(features)
#define TS_AVX512_TARGET_END TS_TARGET_END
#else
#define TS_TARGET_BEGIN(features) TS_PRAGMA(GCC push_options) TS_PRAGMA(GCC target(features))
#define TS_TARGET_END TS_PRAGMA(GCC pop_options)
#define TS_AVX512_TARGET_BEGIN(features) \
  TS_TARGET_BEGIN(features)              \
  TS_PRAGMA(GCC diagnostic push)         \
  TS_PRAGMA(GCC diagnostic ignored "-Wuninitialized") TS_PRAGMA(GCC diagnostic ignored "-Wmaybe-uninitialized")
#define TS_AVX512_TARGET_END TS_PRAGMA(GCC diagnostic pop) TS_TARGET_END
#endif

// ARMv8.2 dot products (SDOT / UDOT) for one function, on an armv8-a baseline: only functions that
// run where CpuHasDotProd() (quant_kernels.h) may carry it. A target pragma around templates does
// not reach their instantiations on arm64, so each such function says so itself, naming
// armv8.2-a as arm_neon.h does for the intrinsics.
#define TS_DOTPROD __attribute__((target("arch=armv8.2-a+dotprod")))

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_TARGET_H_
