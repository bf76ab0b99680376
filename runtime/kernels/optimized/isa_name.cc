#include "runtime/kernels/optimized/isa_name.h"

#include "runtime/kernels/optimized/microkernels.h"
#include "runtime/kernels/optimized/quant_kernels.h"

namespace touchstone {

std::string OptimizedKernelsIsa() {
  const optimized::MicroKernels& set = optimized::Kernels();
  const std::string float_set = set.name;
  const std::string quant_set = optimized::QuantKernelsFor(set).name;
  return quant_set == float_set ? float_set : float_set + "+" + quant_set;
}

}  // namespace touchstone
