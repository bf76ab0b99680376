// The optimized kernels' paths for 16-bit quantized products and for the quantized element-wise
// ops the 8-bit kernels (quantized.h, elementwise.cc) do not take, on the microkernels of
// q16_kernels.h; byte-identical to the reference kernels:
//
// - FULLY_CONNECTED and CONV_2D (one group) with int16 activations and int8 weights (16x8),
//   BATCH_MATMUL with int16 or int8 operands: one GEMM over int16 values. int8 operands are
//   widened with their zero points taken off; an int16 x int16 product is split into
//   256 * (x >> 8) * y + (x & 255) * y so each half's products stay below 2^23. Where the
//   reference keeps 64-bit sums (an int64 bias, int16 BATCH_MATMUL), the sums are formed in blocks
//   of kQ16BlockPairs pairs that cannot wrap and added in int64; elsewhere the wrapping int32 sum
//   is the reference's low 32 bits.
// - ADD (int16, and uint8/int8 where elementwise.cc's same-shape path does not take it) and MUL
//   (uint8, int8, int16), broadcasts included: the shapes are reduced to runs of the innermost
//   dimensions, an operand broadcast along a run expanded into a small buffer.
// - QUANTIZE (float32 to uint8/int8/int16 per tensor, and between integer types) and DEQUANTIZE
//   (uint8/int8/int16 per tensor, of a tensor not known at Prepare), in registration of their own.
//
// Prepare* recomputes the reference's parameters with the same functions and formulas and returns
// false, leaving the node to the reference kernel, for anything else.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED16_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED16_H_

#include <cstdint>
#include <vector>

#include "runtime/aligned_vector.h"
#include "runtime/c/common.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/q16_kernels.h"

namespace touchstone {
namespace optimized {

// A 16-bit GEMM node: FULLY_CONNECTED, CONV_2D or BATCH_MATMUL.
struct Q16GemmState {
  enum class Kind { kFullyConnected, kConv, kBatchMatMul };
  Kind kind = Kind::kFullyConnected;
  const Q16Kernels* kernels = nullptr;
  TfLiteType type = kTfLiteNoType;  // of the activations (lhs): int16, int8 (BATCH_MATMUL)
  int n = 0;                        // output columns
  size_t k = 0, pairs = 0;          // depth, and in pairs (rounded up)
  int64_t rows = 0;                 // output rows per matrix
  bool split = false;               // int16 x int16: two A rows per row (high and low byte)
  bool exact64 = false;             // the reference's 64-bit sums and int64 stage
  bool out16 = false;
  int32_t a_offset = 0, b_offset = 0;  // added to int8 operands (minus their zero points)
  // CONV_2D
  WindowGeometry geometry;
  int channels = 0;
  // BATCH_MATMUL: batch dimensions (broadcast), matrices, adjoints.
  int lhs_batch[3] = {}, rhs_batch[3] = {}, out_batch[3] = {};
  int64_t rhs_matrices = 0;
  bool adj_x = false, adj_y = false;
  // B: per matrix, panels of kernels->nr columns (q16_kernels.h layout), what they were packed
  // from (constant weights are packed at the first Eval and kept across a second Prepare).
  CacheAlignedVector<int16_t> packed;
  size_t packed_matrix = 0;  // int16 values per matrix
  const void* packed_from = nullptr;
  const Q16Kernels* packed_kernels = nullptr;  // the layout (panel width) they were packed for
  bool constant_b = false;
  // The output stage per column, padded to whole panels.
  std::vector<int32_t> bias32, multiplier, left, right;
  std::vector<int64_t> bias64, reduced, round, shift;
  Q16Columns columns;
  // Per pool thread: a tile of A rows, its 32-bit and 64-bit sums.
  ThreadScratch<int16_t> a_tile;
  ThreadScratch<int32_t> sums32;
  ThreadScratch<int64_t> sums64;
};

bool PrepareQ16FullyConnected(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, Q16GemmState* state);
bool PrepareQ16Conv(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, const WindowGeometry& geometry,
                    Q16GemmState* state);
bool PrepareQ16BatchMatMul(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, Q16GemmState* state);
TfLiteStatus EvalQ16Gemm(TfLiteContext* context, TfLiteNode* node, Q16GemmState* state);

// A quantized ADD or MUL over broadcast shapes: the output walked as `outer` runs of `inner`
// elements; the inputs' element strides per dimension of the reduced shape (0 where broadcast).
struct Q16BinaryState {
  static constexpr int kMaxRank = 8;
  const Q16Kernels* kernels = nullptr;
  bool mul = false;
  Q16AddParams add;
  Q16MulParams mul_params;
  size_t element_bytes = 0;
  int rank = 0;  // of the reduced shape (its last dimension is the run)
  int64_t extent[kMaxRank] = {};
  int64_t a_stride[kMaxRank] = {}, b_stride[kMaxRank] = {};
  int64_t elements = 0;
  ThreadScratch<uint8_t> expanded;  // per thread, a broadcast operand's run
};

bool PrepareQ16Binary(TfLiteContext* context, TfLiteNode* node, bool mul, const MicroKernels& set,
                      Q16BinaryState* state);
TfLiteStatus EvalQ16Binary(TfLiteContext* context, TfLiteNode* node, Q16BinaryState* state);

// Nodes the Prepare* functions above and the QUANTIZE / DEQUANTIZE kernels have taken since the
// process started (tests check that a case takes this path rather than the reference).
int64_t Q16NodesPrepared();

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED16_H_
