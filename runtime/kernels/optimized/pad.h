// pad.cc's kernel, for the convolutions that fold a zero PAD into their own window
// (DepthwiseOp::FoldPad): they read the PAD's input directly, and the PAD's Eval does nothing.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_PAD_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_PAD_H_

#include <cstdint>

#include "runtime/c/common.h"
#include "runtime/kernels/optimized/op_common.h"

namespace touchstone {
namespace optimized {

struct ZeroPadding {
  int input = -1;  // the PAD's input tensor
  int rank = 0;
  int64_t before[kMaxMoveRank] = {};
  int64_t after[kMaxMoveRank] = {};
};

// True when `node` is a PAD (not PADV2) of this kernel that its last Prepare sent down the optimized
// path with float32 values (padding with zeros): its input and paddings into `padding`.
bool FoldableZeroPadding(const TfLiteNode* node, const TfLiteRegistration* registration, ZeroPadding* padding);

// The PAD node's Eval does nothing until its next Prepare (its reader computes the padding).
void MarkPadFused(TfLiteNode* node);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_PAD_H_
