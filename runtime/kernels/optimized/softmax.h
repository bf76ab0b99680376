// softmax.cc's float SOFTMAX, for a BATCH_MATMUL that computes it on its own left-hand rows (an
// attention block: scores, softmax, weighted sum; BatchMatMulOp::PrepareAttention): the SOFTMAX's
// Eval then does nothing.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_SOFTMAX_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_SOFTMAX_H_

#include <cstdint>

#include "runtime/c/common.h"

namespace touchstone {
namespace optimized {

struct SoftmaxRows {
  int64_t rows = 0;
  int64_t depth = 0;  // elements a row
  float beta = 1.f;
  // The ADD folded into the SOFTMAX (elementwise.h), whose first input holds the rows; null: the
  // SOFTMAX's own input holds them.
  const TfLiteNode* fused_add = nullptr;
};

// True when `node` is a SOFTMAX of this kernel that its last Prepare sent down the float path: its
// rows into `rows`.
bool FoldableSoftmax(const TfLiteNode* node, const TfLiteRegistration* registration, SoftmaxRows* rows);

// The SOFTMAX node's Eval does nothing until its next Prepare (its reader computes the rows).
void MarkSoftmaxFused(TfLiteNode* node);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_SOFTMAX_H_
