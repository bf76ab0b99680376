// PAD and PADV2 with constant paddings, output sizes known at Prepare: each output row (all
// dimensions but the last) is written once, the input's row copied between the two runs of the
// pad value, rows split over the thread pool. The pad value is the reference's (constant_values,
// else the zero point of an 8- or 16-bit quantized output, else zero bytes), so the output is the
// reference's byte for byte. Paddings computed at run time take the reference kernel.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/pad.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

// Writes a short run of `bytes` bytes to dst in inline 16-byte moves, the last overlapping the one
// before: src's bytes, or with kRepeat the 16 bytes at src over and over (a fill whose 16 bytes
// repeat whole elements, so that any 16-byte window of the run is the same pattern).
template <bool kRepeat>
inline void CopyShortRun(uint8_t* dst, const uint8_t* src, size_t bytes) {
  if (bytes >= 16) {
    size_t i = 0;
    for (; i + 16 <= bytes; i += 16) std::memcpy(dst + i, src + (kRepeat ? 0 : i), 16);
    if (i < bytes) std::memcpy(dst + bytes - 16, src + (kRepeat ? 0 : bytes - 16), 16);
    return;
  }
  for (size_t i = 0; i < bytes; ++i) dst[i] = src[kRepeat ? i % 16 : i];
}

struct PadState : MoveState {
  int64_t in_shape[kMaxMoveRank] = {};
  int64_t before[kMaxMoveRank] = {};
  // Rows: the dimensions before `row_dim`; each row is out_shape[row_dim] x inner elements
  // (the trailing dimensions without padding merged into one run).
  int row_dim = 0;
  int64_t inner = 1;
  bool only_rows_padded = false;     // no padding before row_dim: output row r copies input row r
  bool float_zeros = false;          // PAD of float32 values: the padding is zeros
  bool fused_into_consumer = false;  // MarkPadFused: the reader computes the padding
};

template <bool kV2>
struct PadOp {
  using State = PadState;
  static TfLiteRegistration* Reference() { return kV2 ? reference::Register_PADV2() : reference::Register_PAD(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* paddings = tflite::GetInput(context, node, 1);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->fused_into_consumer = false;
    s->float_zeros = !kV2 && input->type == kTfLiteFloat32;
    if (!PrepareMove(input, paddings, 2, output, s)) return kTfLiteOk;
    int64_t after[kMaxMoveRank] = {};
    for (int d = 0; d < s->rank; ++d) {
      s->in_shape[d] = input->dims->data[d];
      s->before[d] = IntValue(paddings, 2 * d);
      after[d] = IntValue(paddings, 2 * d + 1);
    }
    s->row_dim = s->rank - 1;
    s->inner = 1;
    while (s->row_dim > 0 && s->before[s->row_dim] == 0 && after[s->row_dim] == 0) {
      s->inner *= s->in_shape[s->row_dim];
      --s->row_dim;
    }
    s->only_rows_padded = true;
    for (int d = 0; d < s->row_dim; ++d) s->only_rows_padded = s->only_rows_padded && s->before[d] == 0 && after[d] == 0;
    s->fast = true;
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->fused_into_consumer) return kTfLiteOk;
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    const TfLiteTensor* value = node->inputs->size == 3 ? tflite::GetInput(context, node, 2) : nullptr;
    const size_t elem = s->element_bytes;
    uint8_t pattern[8] = {};
    if (value != nullptr) {
      std::memcpy(pattern, value->data.raw_const, elem);
    } else if (output->type == kTfLiteUInt8 || output->type == kTfLiteInt8) {
      pattern[0] = static_cast<uint8_t>(output->params.zero_point);
    } else if (output->type == kTfLiteInt16) {
      const int16_t zp = static_cast<int16_t>(output->params.zero_point);
      std::memcpy(pattern, &zp, sizeof(zp));
    }
    // The pad value repeated over 16 bytes (element sizes divide 16), so that a run of padding is
    // whole 16-byte stores, the last one overlapping the one before it.
    uint8_t pattern16[16];
    for (size_t i = 0; i < sizeof(pattern16); ++i) pattern16[i] = pattern[i % elem];
    const int last = s->row_dim;
    const size_t out_row_bytes = s->out_shape[last] * s->inner * elem;
    const size_t in_row_bytes = s->in_shape[last] * s->inner * elem;
    const size_t left_bytes = s->before[last] * s->inner * elem;
    const uint8_t* in = input->data.uint8;
    uint8_t* out = output->data.uint8;
    // Rows can be a few bytes each (a PAD of channels: face_detection_short_range pads 4096 rows of
    // 24 floats to 28), where calls to memcpy and memset for each row took most of the time.
    bool uniform = true;  // every byte of the value alike: memset for long runs
    for (size_t i = 1; i < elem; ++i) uniform = uniform && pattern[i] == pattern[0];
    constexpr size_t kShortRunBytes = 256;
    auto fill = [&](uint8_t* p, size_t bytes) {
      if (uniform && bytes >= kShortRunBytes) {
        std::memset(p, pattern[0], bytes);
      } else {
        CopyShortRun<true>(p, pattern16, bytes);
      }
    };
    auto copy = [&](uint8_t* p, const uint8_t* from, size_t bytes) {
      if (bytes >= kShortRunBytes) {
        std::memcpy(p, from, bytes);
      } else {
        CopyShortRun<false>(p, from, bytes);
      }
    };
    const size_t right_bytes = out_row_bytes - left_bytes - in_row_bytes;
    // An output row that holds input row `in_row`: its padding before, the row, its padding after.
    auto write_row = [&](uint8_t* dst, int64_t in_row) {
      fill(dst, left_bytes);
      copy(dst + left_bytes, in + in_row * in_row_bytes, in_row_bytes);
      fill(dst + left_bytes + in_row_bytes, right_bytes);
    };
    if (s->only_rows_padded) {
      // Output row r holds input row r (a PAD of channels only): no coordinates to step.
      ParallelChunks(context, RowsBefore(*s, last), MinRowsPerChunk(out_row_bytes), [&](int, int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) write_row(out + row * out_row_bytes, row);
      });
      return kTfLiteOk;
    }
    ParallelChunks(context, RowsBefore(*s, last), MinRowsPerChunk(out_row_bytes), [&](int, int64_t begin, int64_t end) {
      // The output coordinates of the chunk's first row (dimensions before `last`), found once and
      // then stepped row by row: rows can be a few bytes each (a PAD of channels).
      int64_t coordinate[kMaxMoveRank] = {};
      int64_t rest = begin;
      for (int d = last - 1; d >= 0; --d) {
        coordinate[d] = rest % s->out_shape[d];
        rest /= s->out_shape[d];
      }
      for (int64_t row = begin; row < end; ++row) {
        uint8_t* dst = out + row * out_row_bytes;
        // The input row this output row copies, if any.
        bool inside = true;
        int64_t in_row = 0;
        for (int d = 0; d < last; ++d) {
          const int64_t in_coordinate = coordinate[d] - s->before[d];
          inside = inside && in_coordinate >= 0 && in_coordinate < s->in_shape[d];
          in_row = in_row * s->in_shape[d] + in_coordinate;
        }
        if (!inside) {
          fill(dst, out_row_bytes);
        } else {
          write_row(dst, in_row);
        }
        for (int d = last - 1; d >= 0 && ++coordinate[d] == s->out_shape[d]; --d) coordinate[d] = 0;
      }
    });
    return kTfLiteOk;
  }
};

}  // namespace

bool FoldableZeroPadding(const TfLiteNode* node, const TfLiteRegistration* registration, ZeroPadding* padding) {
  if (registration->invoke != OptimizedKernel<PadOp<false>>::Invoke || node->inputs->size != 2) return false;
  const PadState* s = static_cast<const PadState*>(node->user_data);
  if (!s->fast || !s->float_zeros) return false;
  padding->input = node->inputs->data[0];
  padding->rank = s->rank;
  for (int d = 0; d < s->rank; ++d) {
    padding->before[d] = s->before[d];
    padding->after[d] = s->out_shape[d] - s->in_shape[d] - s->before[d];
  }
  return true;
}

void MarkPadFused(TfLiteNode* node) { static_cast<PadState*>(node->user_data)->fused_into_consumer = true; }

TfLiteRegistration* Register_PAD() { return OptimizedKernel<PadOp<false>>::Registration(); }
TfLiteRegistration* Register_PADV2() { return OptimizedKernel<PadOp<true>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
