// The op conformance suite of delegate_qualify: single-op models built in code (runtime/model_builder.h),
// so the suite ships with the tool. Each case is one op in one type over one edge of its parameters
// (strides, padding, dilation, broadcasting, fused activations, extreme quantization parameters); a
// delegate is asked about each through partitioning, as TFLite would ask it, and runs the ones it takes
// against the reference kernels on the same seeded inputs. Types follow what TFLite 2.14.1's kernels
// take: float32, uint8, int8 and int16 where TFLite has them, and float16 through DEQUANTIZE.
#ifndef TOUCHSTONE_EVALUATION_OP_CONFORMANCE_SUITE_H_
#define TOUCHSTONE_EVALUATION_OP_CONFORMANCE_SUITE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace touchstone {

struct ConformanceCase {
  std::string op;       // "CONV_2D"
  int version = 1;      // the op version a converter writes for this type
  std::string type;     // "float32", "uint8", "int8", "int16", "float16"
  std::string variant;  // "3x3 stride 2 VALID RELU6"
  std::vector<uint8_t> model;
  // "CONV_2D/int8/3x3_stride_2_VALID_RELU6": unique in the suite, safe in a command line.
  std::string id() const;
};

// Every case, in a fixed order (by op, then type, then variant). Deterministic: the constants come from
// fixed seeds.
std::vector<ConformanceCase> BuildConformanceSuite();

}  // namespace touchstone

#endif  // TOUCHSTONE_EVALUATION_OP_CONFORMANCE_SUITE_H_
