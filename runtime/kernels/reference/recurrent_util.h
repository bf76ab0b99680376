// Helpers shared by the reference recurrent kernels (lstm_ops.cc, svdf_ops.cc): how a node
// computes, the activation check, and the type, shape and quantization checks they report with.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RECURRENT_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RECURRENT_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/kernel_helpers.h"
#include "runtime/kernels/internal/quantization_util.h"
#include "runtime/kernels/kernel_util.h"

namespace touchstone {
namespace reference {
namespace recurrent {

using tflite::GetOptionalInputTensor;
using tflite::GetTensorData;
using tflite::NumElements;

namespace qu = quantization_util;

// How a full-kernel node computes, decided in Prepare from its tensor types.
enum class Arithmetic { kFloat, kHybrid, kInteger };

inline bool IsValidActivation(TfLiteFusedActivation activation) {
  switch (activation) {
    case kTfLiteActNone:
    case kTfLiteActRelu:
    case kTfLiteActReluN1To1:
    case kTfLiteActRelu6:
    case kTfLiteActTanh:
    case kTfLiteActSignBit:
    case kTfLiteActSigmoid:
      return true;
  }
  return false;
}

using kernel_helpers::CheckType;

// CheckType of `what` `index` (`name`), e.g. input 3 (input_to_forget_weights).
inline TfLiteStatus CheckType(TfLiteContext* context, const TfLiteTensor* tensor, const char* what, int index,
                              const char* name, TfLiteType type) {
  const std::string role = std::string(what) + " " + std::to_string(index) + " (" + name + ")";
  return CheckType(context, tensor, role.c_str(), type);
}

// The affine quantization of a tensor, or null (with a message naming `what`) when it has none.
inline const TfLiteAffineQuantization* RequireQuantization(TfLiteContext* context, const TfLiteTensor* tensor,
                                                           const std::string& what) {
  if (tensor->quantization.type == kTfLiteAffineQuantization && tensor->quantization.params != nullptr) {
    const auto* affine = static_cast<const TfLiteAffineQuantization*>(tensor->quantization.params);
    if (affine->scale != nullptr && affine->scale->size > 0 && affine->zero_point != nullptr &&
        affine->zero_point->size > 0) {
      return affine;
    }
  }
  TF_LITE_KERNEL_LOG(context, "%s must be quantized", what.c_str());
  return nullptr;
}

// Row sums of an int8 {rows, cols} matrix.
inline std::vector<int32_t> RowSums(const int8_t* matrix, int rows, int cols) {
  std::vector<int32_t> sums(rows, 0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) sums[r] += matrix[r * cols + c];
  }
  return sums;
}

}  // namespace recurrent
}  // namespace reference
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RECURRENT_UTIL_H_
