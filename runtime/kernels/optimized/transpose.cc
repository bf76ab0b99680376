// TRANSPOSE with a constant perm and output sizes known at Prepare, over the fewest dimensions that
// express it (Simplify): output rows (the last output dimension) are gathered from the input with
// that dimension's input stride, element by element (a straight copy where the last dimension stays
// last; where the input's last dimension becomes the output's second-to-last, as from NCHW to NHWC,
// a run of rows is copied one input stream at a time), rows split over the thread pool. The
// reference's Prepare validates perm and sizes the output; anything else (a perm computed at run
// time, a type that is not a plain 1- to 8-byte value) takes the reference kernel. A permutation
// moves values without arithmetic, so the output is the reference's byte for byte.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/c/common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

struct TransposeState : MoveState {
  // Input stride (in elements) of each output dimension.
  int64_t in_stride[kMaxMoveRank] = {};
};

// Rows [begin, end) of `row_length` elements: row r's coordinates over the output dimensions
// before the last, stepped like an odometer.
template <typename T>
void TransposeRows(const TransposeState& s, const T* in, T* out, int64_t begin, int64_t end) {
  const int last = s.rank - 1;
  const int64_t row_length = s.out_shape[last];
  const int64_t step = s.in_stride[last];
  int64_t coordinate[kMaxMoveRank] = {};
  int64_t rest = begin;
  int64_t offset = 0;
  for (int d = last - 1; d >= 0; --d) {
    coordinate[d] = rest % s.out_shape[d];
    rest /= s.out_shape[d];
    offset += coordinate[d] * s.in_stride[d];
  }
  T* dst = out + begin * row_length;
  // Consecutive rows read consecutive input elements when the output's second-to-last dimension is
  // the input's last (NCHW to NHWC: a row is one pixel's few channels): a run of such rows is one
  // small 2-D transpose, without stepping the odometer per row.
  const bool runs = last >= 1 && step != 1 && s.in_stride[last - 1] == 1;
  for (int64_t row = begin; row < end;) {
    int64_t rows = 1;
    if (runs) {
      rows = std::min(end - row, s.out_shape[last - 1] - coordinate[last - 1]);
      // One input stream at a time: each pass reads consecutive elements.
      for (int64_t i = 0; i < row_length; ++i) {
        const T* src = in + offset + i * step;
        T* column = dst + i;
        for (int64_t j = 0; j < rows; ++j) column[j * row_length] = src[j];
      }
      dst += rows * row_length;
    } else {
      const T* src = in + offset;
      if (step == 1) {
        std::memcpy(dst, src, static_cast<size_t>(row_length) * sizeof(T));
      } else {
        for (int64_t i = 0; i < row_length; ++i) dst[i] = src[i * step];
      }
      dst += row_length;
    }
    row += rows;
    // Step the odometer by `rows` (a run never passes the end of its dimension, so only the
    // second-to-last coordinate moves by more than one).
    for (int d = last - 1; d >= 0; --d) {
      const int64_t by = d == last - 1 ? rows : 1;
      offset += by * s.in_stride[d];
      coordinate[d] += by;
      if (coordinate[d] < s.out_shape[d]) break;
      offset -= coordinate[d] * s.in_stride[d];
      coordinate[d] = 0;
    }
  }
}

// The same permutation over fewer output dimensions: dimensions of size 1 dropped, and each
// dimension merged into the one after it where the input steps across both alike (stride = the
// inner one's stride times its size). torchaudio_conformer's [10,80,335,1] -> [10,335,1,80] then
// is [10,80,335] -> [10,335,80], one run of rows per input stream instead of a gather per element,
// and a permutation that keeps the order is one copy.
void Simplify(TransposeState* s) {
  int rank = 0;
  for (int d = 0; d < s->rank; ++d) {
    if (s->out_shape[d] == 1) continue;
    if (rank > 0 && s->in_stride[rank - 1] == s->in_stride[d] * s->out_shape[d]) {
      s->out_shape[rank - 1] *= s->out_shape[d];
      s->in_stride[rank - 1] = s->in_stride[d];
      continue;
    }
    s->out_shape[rank] = s->out_shape[d];
    s->in_stride[rank] = s->in_stride[d];
    ++rank;
  }
  if (rank == 0) {  // a single element
    s->out_shape[0] = 1;
    s->in_stride[0] = 1;
    rank = 1;
  }
  s->rank = rank;
}

struct TransposeOp {
  using State = TransposeState;
  static TfLiteRegistration* Reference() { return reference::Register_TRANSPOSE(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (node->inputs->size != 2 || node->outputs->size != 1) return kTfLiteOk;
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* perm = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    if (!PrepareMove(input, perm, 1, output, s)) return kTfLiteOk;
    int64_t in_strides[kMaxMoveRank];
    int64_t stride = 1;
    for (int d = s->rank - 1; d >= 0; --d) {
      in_strides[d] = stride;
      stride *= input->dims->data[d];
    }
    for (int d = 0; d < s->rank; ++d) {
      // The reference's Prepare has checked that perm is a permutation of 0..rank-1.
      s->in_stride[d] = in_strides[IntValue(perm, d)];
    }
    Simplify(s);
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const void* in = tflite::GetInput(context, node, 0)->data.raw_const;
    void* out = tflite::GetOutput(context, node, 0)->data.raw;
    const int last = s->rank - 1;
    const int64_t row_bytes = s->out_shape[last] * static_cast<int64_t>(s->element_bytes);
    const State& state = *s;
    ParallelChunks(context, RowsBefore(state, last), MinRowsPerChunk(row_bytes), [&](int, int64_t begin, int64_t end) {
      switch (state.element_bytes) {
        case 1:
          TransposeRows(state, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), begin, end);
          break;
        case 2:
          TransposeRows(state, static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), begin, end);
          break;
        case 4:
          TransposeRows(state, static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), begin, end);
          break;
        default:
          TransposeRows(state, static_cast<const uint64_t*>(in), static_cast<uint64_t*>(out), begin, end);
          break;
      }
    });
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_TRANSPOSE() { return OptimizedKernel<TransposeOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
