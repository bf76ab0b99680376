// The per-instruction-set kernel tables (isa_*.cc). Call an x86 one only after checking that the
// CPU runs its instructions (dispatch.cc does).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_TABLES_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_TABLES_H_

#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

namespace isa_scalar {
const MicroKernels* Table();
}
#if defined(__x86_64__)
namespace isa_sse2 {
const MicroKernels* Table();
}
namespace isa_avx_fma {
const MicroKernels* Table();
}
namespace isa_avx512 {
const MicroKernels* Table();
}
#endif
#if defined(__aarch64__)
namespace isa_neon {
const MicroKernels* Table();
}
#endif

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_TABLES_H_
