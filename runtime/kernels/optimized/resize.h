// resize.cc's RESIZE_BILINEAR, for a 1x1 CONV_2D that reads its output through a channel
// CONCATENATION (ConvOp::FoldBroadcast): a resize of a single pixel that writes that pixel's
// values unchanged to every output pixel (DeepLab's image-pooling branch). The RESIZE's Eval then
// does nothing.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_RESIZE_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_RESIZE_H_

#include "runtime/c/common.h"

namespace touchstone {
namespace optimized {

// True when `node` is a RESIZE_BILINEAR of this kernel that its last Prepare sent down the float
// path, from one pixel of one batch, with every sampling fraction zero: each output value is then
// the input value times 1 plus three products by 0 (the value itself where it is finite, NaN where
// it is not).
bool FoldableBroadcastResize(const TfLiteNode* node, const TfLiteRegistration* registration);

// The RESIZE_BILINEAR node's Eval does nothing until its next Prepare (its reader uses the pixel).
void MarkResizeFused(TfLiteNode* node);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_RESIZE_H_
