// concat.cc's CONCATENATION, for a 1x1 CONV_2D that reads its inputs instead of its output
// (ConvOp::FoldBroadcast): the CONCATENATION's Eval then does nothing.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_CONCAT_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_CONCAT_H_

#include "runtime/c/common.h"

namespace touchstone {
namespace optimized {

// True when `node` is a CONCATENATION of this kernel that its last Prepare sent down the copying
// path (no activation, nothing requantized), of two float32 inputs along the last axis.
bool FoldableChannelConcat(const TfLiteNode* node, const TfLiteRegistration* registration);

// The CONCATENATION node's Eval does nothing until its next Prepare (its reader reads the inputs).
void MarkConcatFused(TfLiteNode* node);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_CONCAT_H_
