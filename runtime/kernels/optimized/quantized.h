// The quantized (uint8 and int8) paths of the optimized CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED kernels: what conv_2d.cc, depthwise_conv.cc and fully_connected.cc run when
// Prepare* accepts a node.
// Results are byte-identical to the reference kernels' (quant_kernels.h says why). Prepare*
// returns false, leaving the node to the reference kernel, for anything else: int16, grouped
// convolutions, weights or bias that are not constant, a multiplier the vector output stage does
// not take.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_H_

#include <cstdint>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/quant_kernels.h"

namespace touchstone {
namespace optimized {

// Per-output-channel output stage arrays (padded to kQuantColumnPadding) and the stage over them. The
// arrays share two allocations (a node's Prepare may build several stages; few blocks keep that cheap).
struct QuantOutput {
  std::vector<int32_t> words;  // the eight int32 arrays, one after the other
  std::vector<int64_t> wide;   // the three int64 ones
  QuantOutputStage stage;
};

// The requantization a first Eval folds into the output stage: the reference kernel's own (it lives
// as long as the node, and a reference Prepare that recomputes it is always followed by the
// optimized Prepare), referred to without a copy, or a copy of one computed in Prepare.
class PendingRequantization {
 public:
  void Refer(const nn::OutputRequantization& lasting) {
    owned_ = nn::OutputRequantization();
    lasting_ = &lasting;
  }
  void Keep(const nn::OutputRequantization& computed) {
    owned_ = computed;
    lasting_ = nullptr;
  }
  void Reset() { Keep(nn::OutputRequantization()); }
  const nn::OutputRequantization& get() const { return lasting_ != nullptr ? *lasting_ : owned_; }

 private:
  const nn::OutputRequantization* lasting_ = nullptr;
  nn::OutputRequantization owned_;
};

// A quantized GEMM node (CONV_2D or FULLY_CONNECTED): rows of K input bytes (an im2col of the
// window, or the input itself) times N packed weight columns.
struct QuantGemmState {
  const QuantKernels* kernels = nullptr;
  bool is_signed = false;
  int n = 0;
  size_t k = 0, kp = 0;
  int64_t rows = 0;
  int32_t input_zero_point = 0;
  int32_t row_factor = 0;       // beta: the row term is beta * the row's input sum (0 once packed into the weights)
  bool direct = false;          // rows are read from the input (else an im2col per tile)
  bool narrow_weights = false;  // packed_b in the set's narrow (int8) layout, read by its narrow GEMMs
  bool conv = false;
  WindowGeometry geometry;
  int channels = 0;
  CacheAlignedVector<uint8_t> packed_b;
  QuantOutput output;
  // What packed_b and output were made from: a second Prepare of the same node (the runtime prepares
  // once before a delegate looks at the graph and once after) with the same constants reuses them.
  struct PackedFrom {
    const uint8_t* weights = nullptr;
    const int32_t* bias = nullptr;
    int n = 0;
    size_t k = 0;
    int32_t input_zero_point = 0, weights_zero_point = 0, output_offset = 0;
    bool rounding_up = false, is_signed = false;
    const QuantKernels* kernels = nullptr;
    bool operator==(const PackedFrom& o) const {
      return weights == o.weights && bias == o.bias && n == o.n && k == o.k && input_zero_point == o.input_zero_point &&
             weights_zero_point == o.weights_zero_point && output_offset == o.output_offset &&
             rounding_up == o.rounding_up && is_signed == o.is_signed && kernels == o.kernels;
    }
  } packed_from;
  // What Prepare checked and the first Eval packs (PackPendingGemm): Init stays short, as TFLite's,
  // whose 8-bit kernels also pack on first use.
  struct PendingPack {
    bool pending = false;
    const uint8_t* weights = nullptr;
    const int32_t* bias = nullptr;
    PendingRequantization rq;
    int32_t weights_zero_point = 0, output_offset = 0;
    bool rounding_up = false;
  } pending;
  // Per thread a tile of packed rows (ThreadScratch keeps the threads' parts far apart).
  ThreadScratch<uint8_t> scratch;
};

struct QuantDepthwiseState {
  const QuantKernels* kernels = nullptr;
  bool is_signed = false;
  WindowGeometry geometry;
  int channels = 0;  // output channels
  // Depth multiplier: output channel c reads input channel c / multiplier. Above 1 the input is first
  // expanded, each channel repeated `multiplier` times, so the kernels see a multiplier of 1: the
  // whole image for small images, else the rows a chunk's windows read (EvalQuantDepthwise).
  int multiplier = 1;
  std::vector<uint8_t> expanded;
  ThreadScratch<uint8_t> expanded_rows;  // per thread, a ring of ring_rows expanded input rows
  int ring_rows = 0;                     // the window's height in input rows
  bool whole_image = true;               // small images: `expanded` and `indirection` (Prepare decides)
  int taps = 0;                          // padded to even
  int32_t input_zero_point = 0;
  CacheAlignedVector<uint8_t> packed_w;
  std::vector<uint8_t> zero;  // a row of input zero points (padding taps)
  QuantOutput output;
  const void* indirection_input = nullptr;  // what `indirection` points into (small images)
  std::vector<const uint8_t*> indirection;  // small images: per output pixel, an input pointer per tap
  ThreadScratch<const uint8_t*> row_taps;   // large images: per thread, one output row's
  std::vector<int64_t> tap_columns;         // [out column][kernel column]: offset in an input row, -1 for padding
  // What Prepare checked and the first Eval packs (PackPendingDepthwise), as for the GEMM above.
  struct PendingPack {
    bool pending = false;
    const uint8_t* filter = nullptr;  // [taps][channels], before the zero point comes off
    int32_t filter_zero_point = 0;
    const int32_t* bias = nullptr;
    int real_taps = 0;
    int32_t output_zero_point = 0;
    PendingRequantization rq;
  } pending;
};

// Called after the reference Prepare succeeded; true when Eval* takes the node. `requantization`: the
// one the reference Prepare computed (reference::ConvRequantization), or null to compute it.
bool PrepareQuantConv(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set, const WindowGeometry& geometry,
                      const nn::OutputRequantization* requantization, QuantGemmState* state);
bool PrepareQuantFullyConnected(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set,
                                QuantGemmState* state);
bool PrepareQuantDepthwise(TfLiteContext* context, TfLiteNode* node, const MicroKernels& set,
                           const WindowGeometry& geometry, const nn::OutputRequantization* requantization,
                           QuantDepthwiseState* state);

// Nodes the Prepare* functions above have accepted since the process started (tests check that a
// case takes the quantized path rather than the reference fallback).
int64_t QuantizedNodesPrepared();
// GEMM weights packed in a set's narrow layout since the process started (tests check that a case
// of few rows takes it where the set has one).
int64_t NarrowGemmWeightsPacked();

// The three layouts of a GEMM's packed weights (QuantKernels: pack_b, pack_b_with_row_factor,
// pack_b_narrow), their size for n columns of kp bytes, and the packing of weights [n][k] as stored:
// each byte flipped (XOR 0x80: the operand the microkernels multiply), k padded to kp with zeros,
// `chunk_columns` columns at a time (a multiple of set.panel), so the flipped copy stays that small
// whatever the layer. The packed bytes are those of packing all n columns at once.
enum class WeightLayout { kPlain, kWithRowFactor, kNarrow };
size_t PackedWeightsSize(const QuantKernels& set, WeightLayout layout, int n, size_t kp);
void PackFlippedWeights(const QuantKernels& set, WeightLayout layout, const uint8_t* weights, int n, size_t k,
                        size_t kp, bool d_signed, int32_t row_factor, int chunk_columns, uint8_t* packed);

// The output stage arrays for the reference's per-column multipliers and shifts (rq), the
// column terms (bias and zero-point terms) and ruy's or the reference's rounding. False where a
// multiplier is one the vector stage's high multiply does not reproduce (INT32_MIN, which
// QuantizeMultiplier never gives for a positive scale) or a shift QuantizeMultiplier never gives.
bool BuildOutputStage(const nn::OutputRequantization& rq, bool rounding_up, const std::vector<int64_t>& col_terms,
                      int32_t output_offset, QuantOutput* out);

// One output stage in each of kUniformStageColumns columns (a multiplier and shift as QuantizeMultiplier gives them,
// the reference's MultiplyByQuantizedMultiplier rounding, then the offset and the clamp), for element-wise kernels that
// requantize with the GEMM's vector stage. False where that stage does not reproduce the reference (as for
// PrepareQuantConv).
bool BuildUniformOutputStage(int32_t multiplier, int shift, int32_t offset, int32_t act_min, int32_t act_max,
                             QuantOutput* out);

// A FULLY_CONNECTED node as the integer GEMM paths (8-bit here, 16-bit in quantized16.h) take it:
// its tensors, n units of k weights, the rows of k input values they apply to, and the output
// requantization as the reference computes it for an integer node: the multiplier from the float
// product of the input and weight scales (over the output scale in double), or one per unit from
// double products where the weights have a scale per unit, and the fused activation's range.
struct QuantFullyConnectedNode {
  const TfLiteTensor* input = nullptr;
  const TfLiteTensor* weights = nullptr;
  const TfLiteTensor* bias = nullptr;  // null where absent
  const TfLiteTensor* output = nullptr;
  int n = 0;
  size_t k = 0;
  int64_t rows = 0;
  nn::OutputRequantization rq;
};

// Reads the node into *fc. True where types_accepted(*fc) holds and the node is one both paths
// take: weights [n > 0, k > 0] in the default format, constant as is the bias if any, a static
// non-empty output whose rows the input holds, weights with scales (one or n) and an activation
// with a range on the output.
bool ReadQuantFullyConnected(TfLiteContext* context, const TfLiteNode* node,
                             bool (*types_accepted)(const QuantFullyConnectedNode& fc), QuantFullyConnectedNode* fc);

TfLiteStatus EvalQuantGemm(TfLiteContext* context, TfLiteNode* node, QuantGemmState* state);
TfLiteStatus EvalQuantDepthwise(TfLiteContext* context, TfLiteNode* node, QuantDepthwiseState* state);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_H_
