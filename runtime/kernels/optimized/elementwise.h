// elementwise.cc's float ADD, for a SOFTMAX that adds its input's rows itself (SoftmaxOp's FoldAdd:
// an attention mask added just before the softmax): the ADD's Eval then does nothing, and the
// sum, often a model's largest tensor (torchaudio_conformer's 40x335x335 scores, 17 MB), is
// neither written nor read back.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ELEMENTWISE_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ELEMENTWISE_H_

#include <cstdint>

#include "runtime/c/common.h"
#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

// True when `node` is an ADD of this kernel that its last Prepare sent down the float path, with
// every run of `row_length` output elements computed by one microkernel call (the same shapes, a
// single value, or a broadcast whose innermost runs are whole rows).
bool FoldableFloatAdd(const TfLiteNode* node, const TfLiteRegistration* registration, int64_t row_length);

// The ADD node's Eval does nothing until its next Prepare (its reader computes the rows).
void MarkAddFused(TfLiteNode* node);

// For a float RELU that computes the ADD writing its input (activations.cc, ReluOp::FoldAdd): whether
// `node` is an ADD of this kernel on the float path over the same shapes or a single value (whose
// Eval writes each output element in one microkernel pass, a residual convolution's included).
bool FoldableAddForActivation(const TfLiteNode* node, const TfLiteRegistration* registration);
// The node index of the CONV_2D such an ADD computes itself (FoldResidualConv), or -1.
int FusedAddConvolution(const TfLiteNode* node);
// Its Eval into `out`, each piece then post(piece) clamped to [post_lo, post_hi] while in the cache:
// the values of the ADD's Eval and then the RELU's.
TfLiteStatus EvalFusedAdd(TfLiteContext* context, TfLiteNode* node, float* out, ClampFn post, float post_lo,
                          float post_hi);

// Whether the fused ADD's first input has the output's shape (FusedAddRow may then take its rows).
bool FusedAddFirstInputIsWhole(const TfLiteNode* node);

// Output row `row` (`row_length` elements, as given to FoldableFloatAdd) of the fused ADD `node`,
// written to `out`: the same microkernel call on the same elements as its Eval, so the same values.
// `first_input_row`: that row of the first input where the caller computed it (an attention block's
// scores; only where FusedAddFirstInputIsWhole); null: read from the input tensor.
void FusedAddRow(const TfLiteContext* context, const TfLiteNode* node, int64_t row, int64_t row_length,
                 const float* first_input_row, float* out);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_ELEMENTWISE_H_
