// DEPTHWISE_CONV_2D: float32 by indirect depthwise microkernels over the thread pool (a 1x1 CONV_2D
// producer fused in where it fits), uint8 and int8 by quantized.h; other forms run the reference.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/conv_util.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/pad.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

using namespace conv_internal;  // NOLINT(build/namespaces): conv_util.h's state and helpers

// ---- DEPTHWISE_CONV_2D.

struct DepthwiseState : OpState {
  WindowGeometry geometry;
  int input_depth = 0;
  int output_depth = 0;
  int multiplier = 1;
  float act_min = 0.f, act_max = 0.f;
  std::vector<float> zero;
  Indirection indirection;
  // Output pixels [interior_begin, interior_end) of every row have their whole window inside the
  // input horizontally: the row kernel reads them in place. The others go through the
  // indirection buffer.
  int interior_begin = 0;
  int interior_end = 0;
  // One input row of zeros (SharedZeroFloats), for tap rows above or below the input.
  const float* zero_row = nullptr;
  // Short rows, where the edge pixels are a large share (a 5x5 window on a 14x14 or 7x7 map): a
  // chunk copies each input row it reads once into a ring of rows padded with zeros on both sides,
  // and every output pixel of the row takes the row kernel. Used when each chunk has enough rows
  // that the rows read twice (the window's height) stay a small part of the copying.
  bool padded_rows = false;
  bool padded_channel_split = false;  // chunks take channel ranges of all rows, not rows
  int padded_width = 0;               // columns of a padded row: input columns -pad_left onwards
  int padded_ring_rows = 0;           // input rows one output row's window spans
  // Per thread, padded_ring_rows rows of padded_row_floats (padded_width pixels rounded up to whole
  // cache lines, so loads from a slot are aligned as loads from the input are).
  size_t padded_row_floats = 0;
  ThreadScratch<float> padded_rings;
  // A padded row of zeros (SharedZeroFloats), for tap rows outside the input.
  const float* padded_zero_row = nullptr;
  // With stride 1 the interior of a row is one run of floats in which output float j reads input
  // float j of each tap's run and weight j mod channels. When channels do not fill whole vector
  // registers, the row kernel takes groups of `group_pixels` pixels (lcm(channels, lanes) floats)
  // as its "pixels", with weights and bias repeated to that width (group_w, group_bias), so every
  // lane does work. 1: no grouping.
  int group_pixels = 1;
  CacheAlignedVector<float> group_w;
  CacheAlignedVector<float> group_bias;
  const void* grouped_filter = nullptr;  // what group_w was made from
  const void* grouped_bias = nullptr;
  bool constant_weights = false;
  bool quantized = false;
  std::unique_ptr<QuantDepthwiseState> quant;  // 8-bit layers only (MadeOnDemand)
  // Fused with the 1x1 CONV_2D producing the input (PrepareFusion): that node's state, and its
  // input, filter and bias tensors. Null: not fused.
  ConvState* expansion = nullptr;
  int expansion_input = -1, expansion_filter = -1, expansion_bias = -1;
  ThreadScratch<const float*> expansion_pointers;  // per thread, an input pixel pointer per column
  // On several threads, chunks take channel ranges of all rows instead of rows (PrepareFusion).
  bool expansion_channel_split = false;
  // The input of a zero PAD folded into this node (FoldPad), read instead of input 0; -1: none.
  int folded_pad_input = -1;
};

// A fused depthwise chunk's source of input rows: row `row` (all batches' rows in order) of the
// 1x1 convolution's output, computed by its GEMM from the convolution's input.
struct ExpansionRows {
  const ConvState* conv = nullptr;
  const float* input = nullptr;      // the convolution's input, NHWC
  size_t width = 0;                  // pixels per input row
  const float** pointers = nullptr;  // `width` slots of scratch
  // The output channels computed, [c0, c1): all (c1 0), or a channel split's chunk (c0 a whole
  // number of the GEMM's panels).
  size_t c0 = 0, c1 = 0;

  // Writes the first `pixels` pixels of output row `row` to `out` (output_depth floats each, of
  // which channels [c0, c1)).
  void Compute(int64_t row, size_t pixels, float* out) const {
    const size_t depth = conv->filter_depth;
    const float* in = input + static_cast<size_t>(row) * width * depth;
    for (size_t x = 0; x < pixels; ++x) pointers[x] = in + x * depth;
    const GemmVariant& variant = *conv->variant;
    const size_t end = c1 == 0 ? static_cast<size_t>(conv->output_depth) : c1;
    GemmArgs args;
    args.nc = end - c0;
    args.kc = depth;
    args.ks = 1;
    args.a_row_stride = 1;
    args.zero = conv->zero.data();
    // Panels of nr columns: nr biases, then kc rows of nr weights (PackGemmWeights).
    args.w = conv->packed.data() + c0 / variant.nr * PackedPanelSize(1, depth, variant.nr);
    out += c0;
    args.c_stride = conv->output_depth;
    args.min = conv->act_min;
    args.max = conv->act_max;
    // Rows spread evenly over the tiles, as RunGemm does.
    const size_t mr = variant.mr;
    const size_t tiles = (pixels + mr - 1) / mr;
    if (tiles == 0) return;
    const size_t base_rows = pixels / tiles;
    const size_t tiles_with_extra_row = pixels % tiles;
    size_t first = 0;
    for (size_t tile = 0; tile < tiles; ++tile) {
      const size_t rows = base_rows + (tile < tiles_with_extra_row ? 1 : 0);
      args.a = pointers + first;
      args.c = out + first * conv->output_depth;
      variant.fn[rows](args);
      first += rows;
    }
  }
};

// Widest run of floats the grouped row kernel takes (the repeated weights are taps times that).
constexpr int kMaxGroupFloats = 256;

// The row kernel keeps a pointer per tap on the stack; larger windows take the indirect path.
constexpr int kMaxRowKernelTaps = 64;

// Padded rows (DepthwiseState::padded_rows) are used with stride 1 (with stride 2 each output row
// copies two input rows) when the edge pixels' taps are at least kPaddedRowsEdgeTapsPerPixel per
// output pixel of the row (measured on hand_landmark: 5x5 windows on 7x7 to 28x28 maps gain
// 10-38%; 3x3 windows on a 14x14 map lose 11%), the ring spans at most kMaxPaddedRingRows input
// rows and takes at most kMaxPaddedRingBytes per chunk.
constexpr int kPaddedRowsEdgeTapsPerPixel = 3;
constexpr int kMaxPaddedRingRows = 16;
constexpr size_t kMaxPaddedRingBytes = 256 * 1024;

// A fused depthwise node (DepthwiseOp::PrepareFusion) on several threads: output rows each
// thread's chunk must have. Measured on hand_landmark's blocks, two threads: 14x14 and larger
// maps gain (8-24 us a block when the vCPUs sit far apart, within 4 us either way near), 7x7
// maps lose 3-10 us (a chunk of 3 rows computes 2-4 more of the expansion).
constexpr int64_t kMinFusedRowsPerThread = 7;
// Paddings FoldPad takes (a window's own and the PAD's before each axis), far below int overflow.
constexpr int64_t kMaxFoldedPad = 1 << 20;

// Chunks of channels instead (DepthwiseState::expansion_channel_split) need this many channels a
// thread (whole GEMM panels each: on 2 threads hand_landmark's 7x7 and 14x14 maps have 288-672).
constexpr int kMinFusedChannelsPerThread = 64;

// The rows of the padded-rows path (DepthwiseState::padded_rows) for a node's geometry, and whether
// the path can take it at all (multiplier 1, a window the row kernel takes, a ring within bounds).
struct PaddedLayout {
  int64_t width = 0;      // columns of a padded row
  int ring_rows = 0;      // input rows one output row's window spans
  size_t row_floats = 0;  // floats of a padded row, rounded up to whole cache lines
  bool fits = false;
};

PaddedLayout PaddedLayoutOf(const DepthwiseState* s) {
  const WindowGeometry& g = s->geometry;
  PaddedLayout layout;
  layout.width = int64_t{g.out_width - 1} * g.stride_width + int64_t{g.kernel_width - 1} * g.dilation_width + 1;
  layout.ring_rows = (g.kernel_height - 1) * g.dilation_height + 1;
  layout.row_floats = RoundUpToLineFloats(static_cast<size_t>(layout.width) * s->input_depth);
  layout.fits = s->multiplier == 1 && g.taps() <= kMaxRowKernelTaps && layout.ring_rows <= kMaxPaddedRingRows &&
                g.pad_left < layout.width &&
                layout.ring_rows * layout.row_floats * sizeof(float) <= kMaxPaddedRingBytes;
  return layout;
}

// Output rows a chunk of the row kernel should hold at least.
int64_t MinDepthwiseRows(const DepthwiseState* s) {
  const int64_t macs_per_row = int64_t{s->geometry.taps()} * s->output_depth * s->geometry.out_width;
  return std::max<int64_t>(1, kMinDepthwiseMacsPerChunk / std::max<int64_t>(1, macs_per_row));
}

struct DepthwiseOp {
  using State = DepthwiseState;
  // Float paths accumulate in another order than the reference anyway: denormals flushed there
  // (float_mode.h).
  static bool FlushesDenormals(const DepthwiseState* s) { return !s->quantized; }
  static TfLiteRegistration* Reference() { return reference::Register_DEPTHWISE_CONV_2D(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto& params = nn::ParamsOf<TfLiteDepthwiseConvParams>(node);
    const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
    s->quantized = false;
    s->expansion = nullptr;
    s->expansion_channel_split = false;
    if (input->type != kTfLiteFloat32 && tflite::NumElements(output) > 0) {
      s->quantized = PrepareQuantDepthwise(
          context, node, *s->kernels,
          ConvWindow(input, filter, output, params.padding, params.stride_height, params.stride_width,
                     params.dilation_height_factor, params.dilation_width_factor),
          reference::ConvRequantization(s->reference_data), MadeOnDemand(s->quant));
      s->fast = s->quantized;
      return kTfLiteOk;
    }
    if (input->type != kTfLiteFloat32 || filter->type != kTfLiteFloat32 ||
        (bias != nullptr && bias->type != kTfLiteFloat32) || output->type != kTfLiteFloat32 ||
        tflite::NumElements(output) == 0) {
      return kTfLiteOk;
    }
    s->geometry = ConvWindow(input, filter, output, params.padding, params.stride_height, params.stride_width,
                             params.dilation_height_factor, params.dilation_width_factor);
    s->folded_pad_input = -1;
    // The node writing the input, looked up once for both fusions below.
    const Producer producer = ProducerOfInput(context, node);
    FoldPad(context, producer, s);
    s->input_depth = input->dims->data[3];
    s->output_depth = filter->dims->data[3];
    s->multiplier = s->output_depth / s->input_depth;
    tflite::CalculateActivationRange(params.activation, &s->act_min, &s->act_max);
    s->zero.assign(std::max(s->input_depth, 1), 0.f);
    s->indirection.Invalidate();
    const WindowGeometry& g = s->geometry;
    s->interior_begin = 0;
    s->interior_end = 0;
    s->zero_row = nullptr;
    if (s->multiplier == 1 && g.taps() <= kMaxRowKernelTaps) {
      // First pixel whose window starts inside the input, and one past the last whose window ends
      // inside it.
      s->interior_begin = std::min(g.out_width, (g.pad_left + g.stride_width - 1) / g.stride_width);
      const int64_t last_start = static_cast<int64_t>(g.in_width) - 1 + g.pad_left -
                                 static_cast<int64_t>(g.kernel_width - 1) * g.dilation_width;
      const int64_t end = last_start < 0 ? 0 : last_start / g.stride_width + 1;
      s->interior_end = static_cast<int>(std::max<int64_t>(s->interior_begin, std::min<int64_t>(g.out_width, end)));
      if (s->interior_end > s->interior_begin) {
        s->zero_row = SharedZeroFloats(static_cast<size_t>(g.in_width) * s->input_depth);
      }
    }
    s->group_pixels = 1;
    s->grouped_filter = nullptr;
    s->constant_weights =
        tflite::IsConstantOrPersistentTensor(filter) && (bias == nullptr || tflite::IsConstantOrPersistentTensor(bias));
    const int lanes = s->kernels->float_lanes;
    if (s->interior_end > s->interior_begin && g.stride_width == 1 && lanes > 1 && s->output_depth % lanes != 0) {
      const int group_floats = std::lcm(s->output_depth, lanes);
      const int group_pixels = group_floats / s->output_depth;
      if (group_floats <= kMaxGroupFloats && group_pixels <= s->interior_end - s->interior_begin) {
        s->group_pixels = group_pixels;
        if (s->constant_weights) RepeatWeights(s, filter, bias);
      }
    }
    s->padded_rows = false;
    s->padded_channel_split = false;
    s->padded_rings.Clear();
    s->padded_zero_row = nullptr;
    const PaddedLayout layout = PaddedLayoutOf(s);
    if (layout.fits) {
      const int edge_pixels = g.out_width - (s->interior_end - s->interior_begin);
      // On several threads, chunks split the channels (each chunk copies its channels of every
      // row once), or with channels in pixel groups the rows: then every chunk gets at least the
      // window's height in rows (a chunk copies the rows above its first output row's window
      // again, which must stay a small share of its copies), and every thread at least one chunk.
      const int64_t rows = int64_t{g.batches} * g.out_height;
      const int64_t min_rows = std::max<int64_t>(MinDepthwiseRows(s), layout.ring_rows);
      const int max_chunks = MaxChunks(context);
      const bool channel_split = max_chunks > 1 && s->group_pixels == 1;
      if (edge_pixels > 0 && g.stride_height == 1 &&
          int64_t{edge_pixels} * g.taps() >= int64_t{kPaddedRowsEdgeTapsPerPixel} * g.out_width &&
          (max_chunks == 1 || channel_split || rows / min_rows >= NumThreads(context))) {
        UsePaddedRows(s, layout, NumThreads(context), channel_split);
      }
      PrepareFusion(context, producer, s, layout);
    }
    s->fast = true;
    return kTfLiteOk;
  }

  // A zero PAD of the rows and columns just before this node (exports that pad explicitly and
  // then convolve VALID; face_detection_full_range_sparse has 42 of them, 14% of its time on one
  // thread): the node reads the PAD's input with the padding as part of its own window, and the
  // PAD's Eval does nothing. The runtime decides whether the graph allows it (fuse_producer).
  static void FoldPad(TfLiteContext* context, const Producer& p, State* s) {
    CpuBackendContext* backend = GetCpuBackendContext(context);
    if (backend == nullptr || backend->fuse_producer == nullptr) return;
    if (p.producer < 0 || p.node->delegate != nullptr) return;
    ZeroPadding padding;
    if (!FoldableZeroPadding(p.node, p.registration, &padding) || padding.rank != 4 || padding.before[0] != 0 ||
        padding.after[0] != 0 || padding.before[3] != 0 || padding.after[3] != 0) {
      return;
    }
    const TfLiteTensor* source = &context->tensors[padding.input];
    WindowGeometry& g = s->geometry;
    if (source->type != kTfLiteFloat32 || g.pad_top > kMaxFoldedPad || g.pad_left > kMaxFoldedPad ||
        padding.before[1] > kMaxFoldedPad || padding.before[2] > kMaxFoldedPad) {
      return;
    }
    if (!backend->fuse_producer(context, p.producer, p.self)) return;
    MarkPadFused(p.node);
    g.in_height = source->dims->data[1];
    g.in_width = source->dims->data[2];
    g.pad_top += static_cast<int>(padding.before[1]);
    g.pad_left += static_cast<int>(padding.before[2]);
    s->folded_pad_input = padding.input;
  }

  // Fuses the 1x1 CONV_2D that produces the input (an inverted-residual block's expansion) into
  // this node: each chunk computes the rows of that convolution its windows read straight into
  // its ring of padded rows (ExpansionRows), and every pixel takes the row kernel. The expanded
  // tensor, often a model's largest (hand_landmark's 112x112x64, 3.2 MB), is then neither
  // written nor read back, and on several threads none of it passes between cores. A chunk
  // computes again the rows its first window shares with the chunk before (kernel rows minus
  // stride), so on several threads each chunk must have kMinFusedRowsPerThread output rows and
  // compute at least as many input rows as it shares. The runtime decides whether the graph
  // allows it (fuse_producer).
  // Only for layouts that fit (PaddedLayout::fits).
  static void PrepareFusion(TfLiteContext* context, const Producer& p, State* s, const PaddedLayout& layout) {
    CpuBackendContext* backend = GetCpuBackendContext(context);
    if (backend == nullptr || backend->fuse_producer == nullptr) return;
    const WindowGeometry& g = s->geometry;
    const int threads = NumThreads(context);
    const int64_t rows_per_thread = int64_t{g.batches} * g.out_height / threads;
    const int64_t shared_rows = std::max(0, layout.ring_rows - g.stride_height);
    // A chunk of rows computes again the rows it shares with the one before: on several threads,
    // where those are a large share of its rows, chunks take the GEMM's panels of channels instead
    // (measured on hand_landmark's 14x14 maps with 5x5 windows, two threads: 5-20% faster a node;
    // its 28x28 and larger maps are 10-25% slower so).
    const bool row_chunks = threads == 1 || (rows_per_thread >= kMinFusedRowsPerThread &&
                                             rows_per_thread * g.stride_height >= 2 * shared_rows);
    bool channel_chunks = false;
    if (!row_chunks) {
      channel_chunks = s->group_pixels == 1 && s->output_depth >= threads * kMinFusedChannelsPerThread;
      if (!channel_chunks) return;
    }
    if (p.producer < 0 || p.node->delegate != nullptr || !IsOptimizedConvInvoke(p.registration->invoke) ||
        p.node->inputs->size != 3) {
      return;
    }
    TfLiteNode* producer_node = p.node;
    ConvState* conv = static_cast<ConvState*>(producer_node->user_data);
    const WindowGeometry& cg = conv->geometry;
    if (!conv->fast || conv->quantized || conv->hybrid || conv->planar || conv->broadcast_channels > 0 ||
        conv->groups != 1 || cg.kernel_height != 1 || cg.kernel_width != 1 || cg.stride_height != 1 ||
        cg.stride_width != 1 || cg.batches != g.batches || cg.out_height != g.in_height || cg.out_width != g.in_width ||
        cg.in_height != g.in_height || cg.in_width != g.in_width || conv->output_depth != s->input_depth) {
      return;
    }
    if (!backend->fuse_producer(context, p.producer, p.self)) return;
    conv->fused_into_consumer = true;
    s->expansion = conv;
    s->expansion_channel_split = channel_chunks;
    s->expansion_input = producer_node->inputs->data[0];
    s->expansion_filter = producer_node->inputs->data[1];
    s->expansion_bias = producer_node->inputs->data[2];
    s->expansion_pointers.Assign(threads, g.in_width);
    UsePaddedRows(s, layout, threads, false);
  }

  // Sets the node to the padded-rows path (DepthwiseState::padded_rows).
  static void UsePaddedRows(State* s, const PaddedLayout& layout, int threads, bool channel_split) {
    s->padded_rows = true;
    s->padded_channel_split = channel_split;
    s->padded_width = static_cast<int>(layout.width);
    s->padded_ring_rows = layout.ring_rows;
    s->padded_row_floats = layout.row_floats;
    // Zeros everywhere: rows are written only in the input's columns, so the padding stays zero.
    s->padded_rings.Assign(threads, layout.ring_rows * layout.row_floats);
    s->padded_zero_row = SharedZeroFloats(layout.row_floats);
  }

  static void RepeatWeights(State* s, const TfLiteTensor* filter, const TfLiteTensor* bias) {
    const size_t channels = s->output_depth;
    const size_t group_floats = channels * s->group_pixels;
    const size_t taps = s->geometry.taps();
    const float* w = tflite::GetTensorData<float>(filter);
    s->group_w.resize(taps * group_floats);
    for (size_t t = 0; t < taps; ++t) {
      for (size_t j = 0; j < group_floats; ++j) s->group_w[t * group_floats + j] = w[t * channels + j % channels];
    }
    s->group_bias.clear();
    if (bias != nullptr) {
      const float* b = tflite::GetTensorData<float>(bias);
      s->group_bias.resize(group_floats);
      for (size_t j = 0; j < group_floats; ++j) s->group_bias[j] = b[j % channels];
    }
    s->grouped_filter = filter->data.raw;
    s->grouped_bias = bias != nullptr ? bias->data.raw : nullptr;
  }

  // Multiplier 1: rows [begin, end) of the output (all batches' rows in order). With `ring` (a
  // chunk's padded rows, DepthwiseState::padded_rows), every pixel takes the row kernel;
  // otherwise the edge pixels read through `indirection`.
  // Padded rows may also be limited to the channels [c0, c1) (a chunk of a channel split; c0 a
  // whole number of vector registers).
  // With `expansion` (a fused node, which always has a ring), the ring's rows are computed by the
  // fused convolution instead of copied from `input`.
  static void EvalRows(const State* s, const float* input, const float* const* indirection, float* ring,
                       const ExpansionRows* expansion, const float* filter, const float* bias, float* output,
                       int64_t begin, int64_t end, size_t c0 = 0, size_t c1 = 0) {
    const WindowGeometry& g = s->geometry;
    const size_t channels = s->output_depth;
    const size_t taps = g.taps();
    const size_t row_floats = static_cast<size_t>(g.in_width) * channels;
    const int interior_begin = ring != nullptr ? 0 : s->interior_begin;
    const int interior_end = ring != nullptr ? g.out_width : s->interior_end;
    const int interior_pixels = interior_end - interior_begin;
    // Padded rows: a ring slot's pixel 0 is input column -pad_left; in_row below points at
    // column 0 so that both paths address taps alike. held[slot] is the input row (batch *
    // in_height + iy) the slot holds, -1 for none.
    const size_t padded_row_floats = s->padded_row_floats;
    const size_t pad_floats = static_cast<size_t>(g.pad_left) * channels;
    size_t copy_floats = 0;  // the floats of an input row that a padded row holds
    if (ring != nullptr) {
      const size_t columns = static_cast<size_t>(s->padded_width - g.pad_left);
      copy_floats = std::min<size_t>(g.in_width, columns) * channels;
    }
    int64_t held[kMaxPaddedRingRows];
    if (ring != nullptr) std::fill(held, held + s->padded_ring_rows, int64_t{-1});
    if (c1 == 0) c1 = channels;
    const bool all_channels = c0 == 0 && c1 == channels;
    const size_t copy_pixels = copy_floats / std::max<size_t>(channels, 1);
    DwConvArgs edge;
    edge.channels = channels;
    edge.taps = taps;
    edge.w = filter;
    edge.bias = bias;
    edge.out_pixel_stride = channels;
    edge.min = s->act_min;
    edge.max = s->act_max;
    DwRowArgs row_args;
    const float* tap_in[kMaxRowKernelTaps];
    row_args.channels = channels;
    row_args.taps = taps;
    row_args.pixels = interior_pixels;
    row_args.tap_in = tap_in;
    row_args.x_step = static_cast<size_t>(g.stride_width) * channels;
    row_args.w = filter + c0;
    row_args.bias = bias != nullptr ? bias + c0 : nullptr;
    row_args.channel_count = c1 - c0;
    row_args.min = s->act_min;
    row_args.max = s->act_max;
    // Kernel rows of adjacent taps read with stride 1 (not in pixel groups, whose "pixels" are
    // wider than a tap's step).
    if (g.stride_width == 1 && g.dilation_width == 1 && s->group_pixels == 1 &&
        (g.kernel_width == 3 || g.kernel_width == 5)) {
      row_args.kernel_width = g.kernel_width;
    }
    for (int64_t row = begin; row < end; ++row) {
      const int64_t first_pixel = row * g.out_width;
      float* out_row = output + first_pixel * channels;
      if (interior_pixels > 0) {
        const int64_t batch = row / g.out_height;
        const int64_t oy = row % g.out_height;
        const float* image = input + batch * g.in_height * row_floats;
        const int64_t x0 = static_cast<int64_t>(interior_begin) * g.stride_width - g.pad_left;
        for (int ky = 0; ky < g.kernel_height; ++ky) {
          const int64_t iy = oy * g.stride_height - g.pad_top + int64_t{ky} * g.dilation_height;
          const bool inside = iy >= 0 && iy < g.in_height;
          const float* in_row;
          if (ring == nullptr) {
            in_row = inside ? image + iy * row_floats : s->zero_row;
          } else if (!inside) {
            in_row = s->padded_zero_row + pad_floats;
          } else {
            // The rows of one window are fewer than the ring's, so they never share a slot.
            const int64_t slot = iy % s->padded_ring_rows;
            float* padded = ring + slot * padded_row_floats;
            const int64_t key = batch * g.in_height + iy;
            if (held[slot] != key && expansion != nullptr) {
              expansion->Compute(key, copy_pixels, padded + pad_floats);
              held[slot] = key;
            } else if (held[slot] != key) {
              const float* source = image + iy * row_floats;
              if (all_channels) {
                std::memcpy(padded + pad_floats, source, copy_floats * sizeof(float));
              } else {
                for (size_t x = 0; x < copy_pixels; ++x) {
                  std::memcpy(padded + pad_floats + x * channels + c0, source + x * channels + c0,
                              (c1 - c0) * sizeof(float));
                }
              }
              held[slot] = key;
            }
            in_row = padded + pad_floats;
          }
          for (int kx = 0; kx < g.kernel_width; ++kx) {
            tap_in[ky * g.kernel_width + kx] =
                in_row + (x0 + int64_t{kx} * g.dilation_width) * static_cast<int64_t>(channels) + c0;
          }
        }
        row_args.out = out_row + static_cast<size_t>(interior_begin) * channels + c0;
        if (s->group_pixels == 1) {
          s->kernels->dwconv_row(row_args);
        } else {
          // Whole groups, then the pixels left over one by one.
          const size_t group_floats = channels * s->group_pixels;
          const size_t groups = interior_pixels / s->group_pixels;
          DwRowArgs grouped = row_args;
          grouped.channels = group_floats;
          grouped.channel_count = 0;
          grouped.x_step = group_floats;
          grouped.pixels = groups;
          grouped.w = s->group_w.data();
          grouped.bias = bias != nullptr ? s->group_bias.data() : nullptr;
          s->kernels->dwconv_row(grouped);
          const size_t rest = interior_pixels - groups * s->group_pixels;
          if (rest > 0) {
            const float* rest_in[kMaxRowKernelTaps];
            for (size_t t = 0; t < taps; ++t) rest_in[t] = tap_in[t] + groups * group_floats;
            DwRowArgs tail = row_args;
            tail.tap_in = rest_in;
            tail.pixels = rest;
            tail.out = row_args.out + groups * group_floats;
            s->kernels->dwconv_row(tail);
          }
        }
      }
      if (ring != nullptr) continue;
      // The indirection buffer holds the edge pixels only: interior_begin on the left, then the
      // rest of the row on the right.
      const int64_t first_edge = row * (g.out_width - interior_pixels);
      if (s->interior_begin > 0) {
        edge.pixels = s->interior_begin;
        edge.in = indirection + first_edge * taps;
        edge.out = out_row;
        s->kernels->dwconv(edge);
      }
      if (s->interior_end < g.out_width) {
        const int64_t x = s->interior_end;
        edge.pixels = g.out_width - x;
        edge.in = indirection + (first_edge + s->interior_begin) * taps;
        edge.out = out_row + x * channels;
        s->kernels->dwconv(edge);
      }
    }
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->quantized) return EvalQuantDepthwise(context, node, s->quant.get());
    const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
    const TfLiteTensor* source = s->folded_pad_input >= 0 ? &context->tensors[s->folded_pad_input] : input;
    const size_t taps = s->geometry.taps();
    const int64_t pixels = s->geometry.out_pixels();
    const int64_t macs_per_pixel = static_cast<int64_t>(taps) * s->output_depth;
    const int64_t min_pixels = std::max<int64_t>(1, kMinDepthwiseMacsPerChunk / std::max<int64_t>(1, macs_per_pixel));
    const int64_t rows = int64_t{s->geometry.batches} * s->geometry.out_height;
    const bool padded = s->padded_rows;
    const int64_t min_rows = padded ? std::max<int64_t>(MinDepthwiseRows(s), s->padded_ring_rows) : MinDepthwiseRows(s);
    // The row kernel reads the interior columns in place: the indirection buffer holds the others.
    const bool row_kernel = s->multiplier == 1 && (padded || s->interior_end > s->interior_begin);
    const float* const* indirection =
        padded ? nullptr
               : s->indirection.Get(s->geometry, tflite::GetTensorData<float>(source), s->input_depth, s->zero.data(),
                                    row_kernel ? s->interior_begin : 0, row_kernel ? s->interior_end : 0);
    const float* filter_data = tflite::GetTensorData<float>(filter);
    const float* bias_data = bias != nullptr ? tflite::GetTensorData<float>(bias) : nullptr;
    float* output_data = tflite::GetTensorData<float>(output);

    if (row_kernel) {
      if (s->group_pixels > 1 && (!s->constant_weights || s->grouped_filter != filter->data.raw ||
                                  s->grouped_bias != (bias != nullptr ? bias->data.raw : nullptr))) {
        RepeatWeights(s, filter, bias);
      }
      const float* input_data = tflite::GetTensorData<float>(source);
      const size_t ring_floats = s->padded_ring_rows * s->padded_row_floats;
      if (padded) s->padded_rings.Ensure(NumThreads(context), ring_floats);
      if (padded && s->padded_channel_split) {
        // Chunks of whole vector registers of channels, each over every row.
        const size_t lanes = s->kernels->float_lanes;
        const size_t channels = s->output_depth;
        const int64_t blocks = static_cast<int64_t>((channels + lanes - 1) / lanes);
        const int64_t macs_per_block =
            macs_per_pixel / static_cast<int64_t>(channels) * static_cast<int64_t>(lanes) * pixels;
        const int64_t min_blocks =
            std::max<int64_t>(1, kMinDepthwiseMacsPerChunk / std::max<int64_t>(1, macs_per_block));
        ParallelChunks(context, blocks, min_blocks, [&](int, int64_t begin, int64_t end) {
          float* ring = s->padded_rings.part(CurrentThread(context));
          EvalRows(s, input_data, nullptr, ring, nullptr, filter_data, bias_data, output_data, 0, rows,
                   static_cast<size_t>(begin) * lanes, std::min(static_cast<size_t>(end) * lanes, channels));
        });
        return kTfLiteOk;
      }
      if (s->expansion != nullptr) {
        ConvState* conv = s->expansion;
        const TfLiteTensor* conv_filter = &context->tensors[s->expansion_filter];
        const TfLiteTensor* conv_bias = &context->tensors[s->expansion_bias];
        if (!conv->constant_weights || conv->packed_filter != conv_filter->data.raw ||
            conv->packed_bias != conv_bias->data.raw) {
          PackConv(context, conv, conv_filter, conv_bias);
        }
        const float* conv_input = tflite::GetTensorData<float>(&context->tensors[s->expansion_input]);
        const int threads = NumThreads(context);
        s->expansion_pointers.Ensure(threads, s->geometry.in_width);
        // The calling thread's source of expanded rows, channels [c0, c1) (c1 0: all).
        const auto expansion_of = [&](size_t c0, size_t c1) {
          ExpansionRows expansion;
          expansion.conv = conv;
          expansion.input = conv_input;
          expansion.width = s->geometry.in_width;
          expansion.pointers = s->expansion_pointers.part(CurrentThread(context));
          expansion.c0 = c0;
          expansion.c1 = c1;
          return expansion;
        };
        if (s->expansion_channel_split) {
          // Chunks of whole GEMM panels of channels, each over every row: nothing computed twice.
          const size_t nr = conv->variant->nr;
          const size_t channels = s->output_depth;
          const int64_t panels = static_cast<int64_t>((channels + nr - 1) / nr);
          ParallelChunks(context, panels, 1, [&](int, int64_t begin, int64_t end) {
            const size_t c0 = static_cast<size_t>(begin) * nr;
            const size_t c1 = std::min(static_cast<size_t>(end) * nr, channels);
            const ExpansionRows expansion = expansion_of(c0, c1);
            EvalRows(s, input_data, nullptr, s->padded_rings.part(CurrentThread(context)), &expansion, filter_data,
                     bias_data, output_data, 0, rows, c0, c1);
          });
          return kTfLiteOk;
        }
        // One chunk per thread: each chunk computes again the rows it shares with the one before.
        ParallelChunks(context, rows, std::max<int64_t>(1, rows / threads), [&](int, int64_t begin, int64_t end) {
          const ExpansionRows expansion = expansion_of(0, 0);
          EvalRows(s, input_data, nullptr, s->padded_rings.part(CurrentThread(context)), &expansion, filter_data,
                   bias_data, output_data, begin, end);
        });
        return kTfLiteOk;
      }
      ParallelChunks(context, rows, min_rows, [&](int, int64_t begin, int64_t end) {
        float* ring = padded ? s->padded_rings.part(CurrentThread(context)) : nullptr;
        EvalRows(s, input_data, indirection, ring, nullptr, filter_data, bias_data, output_data, begin, end);
      });
      return kTfLiteOk;
    }

    if (s->multiplier == 1) {
      const DwConvFn dwconv = s->kernels->dwconv;
      ParallelChunks(context, pixels, min_pixels, [&](int, int64_t begin, int64_t end) {
        DwConvArgs args;
        args.channels = s->output_depth;
        args.taps = taps;
        args.pixels = end - begin;
        args.in = indirection + begin * taps;
        args.w = filter_data;
        args.bias = bias_data;
        args.out = output_data + begin * s->output_depth;
        args.out_pixel_stride = s->output_depth;
        args.min = s->act_min;
        args.max = s->act_max;
        dwconv(args);
      });
      return kTfLiteOk;
    }

    // Depth multiplier above 1: output channel c * M + m reads input channel c.
    const int depth = s->input_depth;
    const int multiplier = s->multiplier;
    const int output_depth = s->output_depth;
    ParallelChunks(context, pixels, min_pixels, [&](int, int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const float* const* in = indirection + p * taps;
        float* out = output_data + p * output_depth;
        for (int oc = 0; oc < output_depth; ++oc) out[oc] = bias_data != nullptr ? bias_data[oc] : 0.f;
        for (size_t t = 0; t < taps; ++t) {
          const float* x = in[t];
          const float* w = filter_data + t * output_depth;
          for (int c = 0; c < depth; ++c) {
            const float value = x[c];
            float* o = out + c * multiplier;
            const float* wc = w + c * multiplier;
            for (int m = 0; m < multiplier; ++m) o[m] += value * wc[m];
          }
        }
        for (int oc = 0; oc < output_depth; ++oc) {
          out[oc] = std::min(std::max(out[oc], s->act_min), s->act_max);
        }
      }
    });
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_DEPTHWISE_CONV_2D() { return OptimizedKernel<DepthwiseOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
