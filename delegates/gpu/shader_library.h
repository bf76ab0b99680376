// The delegate's compute shaders (GLSL in shaders/, compiled to SPIR-V by glslc at build time and
// embedded), each in a float32 and a float16 build.
#ifndef TOUCHSTONE_DELEGATES_GPU_SHADER_LIBRARY_H_
#define TOUCHSTONE_DELEGATES_GPU_SHADER_LIBRARY_H_

#include <cstddef>
#include <cstdint>

namespace touchstone {
namespace gpu {

enum class ShaderId : int {
  kBinary = 0,
  kUnary,
  kConv2d,
  kDepthwiseConv2d,
  kFullyConnected,
  kPool2d,
  kSoftmax,
  kReduce,
  kResize,
  kCopy,
  kTransposeConv,
  kLstm,
  kCount,
};

struct SpirvCode {
  const uint32_t* words;
  size_t size_bytes;
  const char* name;  // the shader file's name without .comp
};

SpirvCode ShaderCode(ShaderId shader, bool float16);

}  // namespace gpu
}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_GPU_SHADER_LIBRARY_H_
