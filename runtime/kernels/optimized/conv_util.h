// The state of the optimized CONV_2D kernel (conv_2d.cc) and what DEPTHWISE_CONV_2D
// (depthwise_conv.cc) shares with it: the window geometry, the indirection buffers, ConvState.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_CONV_UTIL_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_CONV_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/internal/shape_util.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/int8_gemv.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"

namespace touchstone {
namespace optimized {
namespace conv_internal {

// The window geometry of a convolution node whose reference Prepare succeeded.
inline WindowGeometry ConvWindow(const TfLiteTensor* input, const TfLiteTensor* filter, const TfLiteTensor* output,
                                 TfLitePadding padding, int stride_height, int stride_width, int dilation_height,
                                 int dilation_width) {
  WindowGeometry g;
  g.batches = input->dims->data[0];
  g.in_height = input->dims->data[1];
  g.in_width = input->dims->data[2];
  g.kernel_height = filter->dims->data[1];
  g.kernel_width = filter->dims->data[2];
  g.stride_height = stride_height;
  g.stride_width = stride_width;
  g.dilation_height = dilation_height;
  g.dilation_width = dilation_width;
  int out_height = 0, out_width = 0;
  const TfLitePaddingValues values =
      nn::ComputePaddingHeightWidth(stride_height, stride_width, dilation_height, dilation_width, g.in_height,
                                    g.in_width, g.kernel_height, g.kernel_width, padding, &out_height, &out_width);
  g.pad_top = values.height;
  g.pad_left = values.width;
  g.out_height = output->dims->data[1];
  g.out_width = output->dims->data[2];
  return g;
}

// The indirection buffer of a node, rebuilt when the geometry or the input's address changes.
// Columns [skip_begin, skip_end) of each row are left out (BuildIndirection).
struct Indirection {
  WindowGeometry geometry;
  const float* input = nullptr;
  size_t pixel_stride = 0;
  int skip_begin = 0, skip_end = 0;
  std::vector<const float*> buffer;
  bool valid = false;

  void Invalidate() { valid = false; }
  const float* const* Get(const WindowGeometry& g, const float* in, size_t stride, const float* zero, int skip_from = 0,
                          int skip_to = 0) {
    if (!valid || in != input || stride != pixel_stride || g != geometry || skip_from != skip_begin ||
        skip_to != skip_end) {
      BuildIndirection(g, in, stride, zero, &buffer, skip_from, skip_to);
      geometry = g;
      input = in;
      pixel_stride = stride;
      skip_begin = skip_from;
      skip_end = skip_to;
      valid = true;
    }
    return buffer.data();
  }
};

// With one group and no horizontal dilation, the kernel_width taps of a kernel row read
// kernel_width consecutive input pixels, i.e. kernel_width * channels consecutive floats: the GEMM
// then runs over kernel_height taps of that many inputs each (the packed weights are the same, in
// the same order), with a pointer per kernel row instead of per tap. A kernel row that crosses the
// left or right edge of the input reads a copy of its pixels with zeros for the padding: the zeros
// are written once, at Build; each Eval copies the inside part of each such row, one contiguous run.
struct RowIndirection {
  const float* input = nullptr;
  bool valid = false;
  std::vector<const float*> buffer;     // per output pixel, kernel_height row pointers
  CacheAlignedVector<float> edge_rows;  // the copies, kernel_width * channels floats each
  // The inside part of one copy: `floats` floats from input + input_offset to edge_rows + row_offset.
  struct EdgeRun {
    size_t input_offset, row_offset, floats;
  };
  std::vector<EdgeRun> edge_runs;

  void Build(const WindowGeometry& g, const float* in, size_t channels, const float* zero) {
    const size_t run = static_cast<size_t>(g.kernel_width) * channels;
    edge_runs.clear();
    buffer.resize(static_cast<size_t>(g.out_pixels()) * g.kernel_height);
    // Row pointers first, with copy indices standing in for the copies' addresses (edge_rows may
    // not be sized yet).
    std::vector<std::pair<size_t, size_t>> copy_slots;  // (buffer index, copy index)
    size_t index = 0;
    for (int b = 0; b < g.batches; ++b) {
      const size_t image = static_cast<size_t>(b) * g.in_height * g.in_width * channels;
      for (int oy = 0; oy < g.out_height; ++oy) {
        for (int ox = 0; ox < g.out_width; ++ox) {
          const int64_t y0 = static_cast<int64_t>(oy) * g.stride_height - g.pad_top;
          const int64_t x0 = static_cast<int64_t>(ox) * g.stride_width - g.pad_left;
          const bool row_inside = x0 >= 0 && x0 + g.kernel_width <= g.in_width;
          const int64_t x_begin = std::max<int64_t>(x0, 0);
          const int64_t x_end = std::min<int64_t>(x0 + g.kernel_width, g.in_width);
          for (int ky = 0; ky < g.kernel_height; ++ky, ++index) {
            const int64_t y = y0 + static_cast<int64_t>(ky) * g.dilation_height;
            if (y < 0 || y >= g.in_height) {
              buffer[index] = zero;
            } else if (row_inside) {
              buffer[index] = in + image + (static_cast<size_t>(y) * g.in_width + x0) * channels;
            } else {
              const size_t copy = copy_slots.size();
              copy_slots.emplace_back(index, copy);
              if (x_begin < x_end) {
                edge_runs.push_back({image + (static_cast<size_t>(y) * g.in_width + x_begin) * channels,
                                     copy * run + static_cast<size_t>(x_begin - x0) * channels,
                                     static_cast<size_t>(x_end - x_begin) * channels});
              }
            }
          }
        }
      }
    }
    edge_rows.assign(copy_slots.size() * run, 0.f);
    for (const auto& slot : copy_slots) buffer[slot.first] = edge_rows.data() + slot.second * run;
    input = in;
    valid = true;
  }

  // Refreshes the copies' inside parts from the current input.
  void CopyEdges() {
    float* rows = edge_rows.data();
    for (const EdgeRun& copy : edge_runs) {
      shape_util::CopyRow(rows + copy.row_offset, input + copy.input_offset, copy.floats * sizeof(float));
    }
  }
};

// What a float convolution's packed weights were made from.
struct PackedFrom {
  const void* filter = nullptr;
  const void* bias = nullptr;
  bool planar = false;
  int taps = 0, filter_depth = 0, group_outputs = 0, groups = 0;
  const GemmVariant* variant = nullptr;
  int broadcast_channels = 0;
  bool operator==(const PackedFrom& o) const {
    return filter == o.filter && bias == o.bias && planar == o.planar && taps == o.taps &&
           filter_depth == o.filter_depth && group_outputs == o.group_outputs && groups == o.groups &&
           variant == o.variant && broadcast_channels == o.broadcast_channels;
  }
};

struct ConvState : OpState {
  WindowGeometry geometry;
  int groups = 1;
  int filter_depth = 0;  // input channels per group (kc)
  int output_depth = 0;
  int group_outputs = 0;  // output channels per group
  float act_min = 0.f, act_max = 0.f;
  const GemmVariant* variant = nullptr;
  // Packed weights, one run of panels per group; what they were packed from.
  CacheAlignedVector<float> packed;
  size_t group_packed_size = 0;
  const void* packed_filter = nullptr;
  const void* packed_bias = nullptr;
  PackedFrom packed_from;
  bool constant_weights = false;
  std::vector<float> zero;
  Indirection indirection;
  bool merged_rows = false;  // see RowIndirection
  RowIndirection row_indirection;
  std::vector<GemmProblem> problems;  // one per group
  // The 8-bit and the 16-bit forms' states, made by the first Prepare that takes the form: most
  // convolutions have neither, and a state written at every node's Init costs start-up time.
  bool quantized = false;
  std::unique_ptr<QuantGemmState> quant;
  bool q16 = false;  // int16 activations (quantized16.h)
  std::unique_ptr<Q16GemmState> q16_state;
  // Few input channels and 8 outputs (a first layer): MicroKernels::planar_conv over the input
  // split into planes per channel and column phase (x mod stride_width), see PreparePlanar. Else
  // the GEMM.
  bool planar = false;
  int plane_margin = 0;      // plane elements left of input column 0
  size_t plane_width = 0;    // floats per plane row
  int planar_ring_rows = 0;  // input rows one output row reads
  // Per kernel column and input channel (kx * channels + c), where its tap reads in a row of
  // planes: the same for every kernel row.
  std::vector<size_t> planar_tap_offsets;
  ThreadScratch<float> planes;         // per thread, a ring of planar_ring_rows rows: [channel][phase][plane_width]
  CacheAlignedVector<float> planar_w;  // [tap][output_depth], tap = (ky * kernel_width + kx) * channels + c
  // The DEPTHWISE_CONV_2D reading this node's output computes it (DepthwiseOp::PrepareFusion):
  // Eval does nothing.
  bool fused_into_consumer = false;
  // A 1x1 node over CONCATENATION(RESIZE_BILINEAR(pixel), rest) on channels, the resize writing the
  // pixel's values to every pixel (ConvOp::FoldBroadcast): the first broadcast_channels input
  // channels add the same to every output pixel, computed once per Eval into the bias; the GEMM
  // runs over `rest` alone (`packed` holds the weights of its channels, their biases written by
  // each Eval). 0: no fold.
  int broadcast_channels = 0;
  int broadcast_pixel = -1;               // the resize's input tensor: broadcast_channels values
  int broadcast_rest = -1;                // the concatenation's other input tensor
  CacheAlignedVector<float> broadcast_w;  // the broadcast channels' weights and the bias, packed
  std::vector<float> broadcast_bias;      // per output channel: bias + broadcast weights . pixel
  std::vector<float> broadcast_resized;   // the pixel as the resize writes it
  // Hybrid (float input, int8 weights, one group): each batch quantized as the reference does, then
  // per output pixel an im2col row of int8 against every filter row (ConvOp::EvalHybrid).
  bool hybrid = false;
  bool hybrid_asymmetric = false;           // the reference's per-channel path: inputs quantized with a zero point
  std::vector<int32_t> hybrid_filter_sums;  // per output channel, for the zero point's share
  std::vector<int8_t> hybrid_input;         // the quantized input, batch after batch
  std::vector<float> hybrid_scaling_factors;
  std::vector<int32_t> hybrid_input_offsets;
  ThreadScratch<int8_t> hybrid_rows;   // per thread, one im2col row (taps * channels)
  ThreadScratch<int32_t> hybrid_sums;  // per thread, one sum per output channel
  // The filter packed for the int8 matrix-vector kernels (one row per output channel), at the first
  // Eval.
  const Int8GemvKernels* hybrid_gemv = nullptr;
  std::vector<uint8_t> hybrid_packed;
  const void* hybrid_packed_from = nullptr;
};

// The planar kernel's limits: input channels and taps (ky, kx, c) per node; it writes 8 output
// channels.

// conv_2d.cc's kernel, for a DEPTHWISE_CONV_2D that computes its 1x1 CONV_2D producer's output
// (DepthwiseOp::PrepareFusion): whether `invoke` is that kernel's, and its weight packing.
bool IsOptimizedConvInvoke(TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*));
void PackConv(TfLiteContext* context, ConvState* s, const TfLiteTensor* filter, const TfLiteTensor* bias);

// For a float ADD that computes its CONV_2D operand itself (elementwise.cc, FoldResidualConv): the
// convolution's output tensor is then never written, its tiles go straight into the ADD's output
// and get the other operand added while in the cache. Whether `node` is a CONV_2D of this kernel
// whose last Prepare chose the plain float GEMM (one group, no fold of its own, not yet fused).
bool ResidualFoldableConv(const TfLiteNode* node, const TfLiteRegistration* registration);
// Its Eval does nothing until its next Prepare.
void MarkConvFused(TfLiteNode* node);
// Its GEMM into `output`, each tile then add(tile, residual) clamped to [min, max], and then, with
// `post`, post(tile) clamped to [post_lo, post_hi]: the values of the CONV_2D's Eval followed by the
// ADD's (and the RELU's) (the same microkernels on the same floats; a + b = b + a).
TfLiteStatus EvalConvWithResidual(TfLiteContext* context, TfLiteNode* node, float* output, const float* residual,
                                  BinaryFn add, float min, float max, ClampFn post = nullptr, float post_lo = 0.f,
                                  float post_hi = 0.f);

}  // namespace conv_internal
}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_CONV_UTIL_H_
