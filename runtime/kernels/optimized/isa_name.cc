#include "runtime/kernels/optimized/isa_name.h"

#include <string>

#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/kernels/optimized/quant_kernels.h"

namespace touchstone {

std::string OptimizedKernelsIsa() {
  const optimized::MicroKernels& set = optimized::Kernels();
  const std::string float_set = set.name;
  const std::string quant_set = optimized::QuantKernelsFor(set).name;
  // A quantized set named after the float one ("neon+dotprod" with "neon") says it all.
  if (quant_set == float_set || quant_set.rfind(float_set + "+", 0) == 0) return quant_set;
  return float_set + "+" + quant_set;
}

}  // namespace touchstone
