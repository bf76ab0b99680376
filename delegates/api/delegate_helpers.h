// The small helpers TFLite delegate code reaches for besides the SimpleDelegate API, with TFLite's
// names (context_util.h, util.h), plus the kernel helpers (kernel_util.h: GetTensorData<T>,
// NumElements, GetInputSafe, ...), the TF_LITE_ENSURE* macros (common.h) and the kTfLiteBuiltin* codes
// (builtin_ops.h). Delegate sources can include this one header.
#ifndef TOUCHSTONE_DELEGATES_API_DELEGATE_HELPERS_H_
#define TOUCHSTONE_DELEGATES_API_DELEGATE_HELPERS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "delegates/api/graph_partition_helper.h"
#include "delegates/api/simple_delegate.h"
#include "runtime/c/builtin_op_data.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/c/common.h"
#include "runtime/kernels/kernel_util.h"

namespace tflite {

// Iterates over a TfLiteIntArray without copying it (TFLite's context_util.h).
class TfLiteIntArrayView {
 public:
  explicit TfLiteIntArrayView(const TfLiteIntArray* array) : array_(array) {}
  using value_type = int;
  using const_iterator = const int*;
  const_iterator begin() const { return array_->data; }
  const_iterator end() const { return array_->data + array_->size; }
  size_t size() const { return static_cast<size_t>(array_->size); }
  int operator[](size_t i) const { return array_->data[i]; }

 private:
  const TfLiteIntArray* array_;
};

// Owning TfLiteIntArray pointers (TFLite's util.h).
struct TfLiteIntArrayDeleter {
  void operator()(TfLiteIntArray* a) const { TfLiteIntArrayFree(a); }
};
using TfLiteIntArrayUniquePtr = std::unique_ptr<TfLiteIntArray, TfLiteIntArrayDeleter>;

inline TfLiteIntArrayUniquePtr BuildTfLiteIntArray(const std::vector<int>& data) {
  TfLiteIntArray* array = TfLiteIntArrayCreate(static_cast<int>(data.size()));
  for (size_t i = 0; i < data.size(); ++i) array->data[i] = data[i];
  return TfLiteIntArrayUniquePtr(array);
}

// "ADD", "CONV_2D", ... or the custom op's name (TFLite's util.h GetOpNameByRegistration).
std::string GetOpNameByRegistration(const TfLiteRegistration& registration);

}  // namespace tflite

#endif  // TOUCHSTONE_DELEGATES_API_DELEGATE_HELPERS_H_
