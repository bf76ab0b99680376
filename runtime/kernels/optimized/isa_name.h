// The instruction-set paths the optimized kernels take on this CPU, named for reports and --help.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_NAME_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_NAME_H_

#include <string>

namespace touchstone {

// "avx512" when the float and the 8-bit kernels take the same set; "avx512+avx512vnni" when the 8-bit
// ones take another (the float set first).
std::string OptimizedKernelsIsa();

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ISA_NAME_H_
