// The resize ops' node, shared by the tests of the float and quantized resize kernels
// (nn_ops_test.cc, quantized_pool_norm_resize_test.cc).
#ifndef TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RESIZE_TEST_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RESIZE_TEST_UTIL_H_

#include "runtime/c/builtin_ops.h"
#include "runtime/testing/op_test.h"

namespace touchstone {
namespace resize_test {

// A RESIZE_BILINEAR or RESIZE_NEAREST_NEIGHBOR node (`builtin_code`) from `input` and `size` to
// `output`, with its options.
inline void AddResizeOp(testing::OpTest& test, int builtin_code, int input, int size, int output, bool align_corners,
                        bool half_pixel_centers) {
  if (builtin_code == kTfLiteBuiltinResizeBilinear) {
    test.AddOp(builtin_code, {input, size}, {output}, fb::BuiltinOptions::ResizeBilinearOptions,
               fb::CreateResizeBilinearOptions(test.fbb(), align_corners, half_pixel_centers).Union());
  } else {
    test.AddOp(builtin_code, {input, size}, {output}, fb::BuiltinOptions::ResizeNearestNeighborOptions,
               fb::CreateResizeNearestNeighborOptions(test.fbb(), align_corners, half_pixel_centers).Union());
  }
}

}  // namespace resize_test
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_REFERENCE_RESIZE_TEST_UTIL_H_
