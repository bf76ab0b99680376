// CONV_2D (DEPTHWISE_CONV_2D is in depthwise_conv.cc): float32 by indirect GEMM microkernels over
// the thread pool; uint8 and int8 by the integer kernels of quantized.h (byte-identical to the
// reference); hybrid CONV_2D (float input, int8 weights) by int8 dot products over an im2col row
// per output pixel, bit-exact with the reference; CONV_2D with int16 activations (16x8, one group) by
// the 16-bit GEMM of quantized16.h. Every other form runs the reference kernel.
//
// CONV_2D is a GEMM of the output pixels (rows) by the output channels (columns) over the taps of
// the kernel window times the input channels: the indirection buffer gives, per output pixel and
// tap, the input pixel read (or a zero row for padding), so stride, dilation and padding cost
// nothing and no im2col copy is made (with one group and no horizontal dilation, one pointer per
// kernel row: see RowIndirection). Constant weights are packed once, at the first Eval.
//
// A 1x1 convolution over a channel CONCATENATION whose first input is a RESIZE_BILINEAR of one
// pixel (DeepLab's image-pooling branch: the pooled features broadcast to the whole map) computes
// those channels' share once per Eval (FoldBroadcast).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "runtime/c/builtin_op_data.h"
#include "runtime/c/common.h"
#include "runtime/kernels/internal/nn_common.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/concat.h"
#include "runtime/kernels/optimized/conv_util.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/optimized/quantized.h"
#include "runtime/kernels/optimized/quantized16.h"
#include "runtime/kernels/optimized/resize.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

using namespace conv_internal;  // NOLINT(build/namespaces): conv_util.h's state and helpers

// ---- CONV_2D.

constexpr int kMaxPlanarInputChannels = 4;
constexpr int kMaxPlanarTaps = 64;
constexpr int kPlanarOutputChannels = 8;

// Where kernel column kx reads in the planes: input column x * stride + kx * dilation - pad_left
// lies in phase plane `phase` at element x + shift (the plane's margin included).
struct PlanarColumn {
  int phase;
  int shift;
};
inline PlanarColumn PlanarColumnOf(const WindowGeometry& g, int kx, int margin) {
  const int offset = kx * g.dilation_width - g.pad_left;
  // Floor division (offset may be negative).
  const int q = offset >= 0 ? offset / g.stride_width : -((-offset + g.stride_width - 1) / g.stride_width);
  return {offset - q * g.stride_width, q + margin};
}

struct ConvOp {
  using State = ConvState;
  // Float paths accumulate in another order than the reference anyway: denormals flushed there
  // (float_mode.h).
  static bool FlushesDenormals(const ConvState* s) { return !s->quantized && !s->hybrid && !s->q16; }
  static TfLiteRegistration* Reference() { return reference::Register_CONV_2D(); }

  // Packs the filter and bias for this node's path; constant weights' file pages are then given back
  // (ConstantCopied): only the packed copy is read.
  static void Pack(TfLiteContext* context, State* s, const TfLiteTensor* filter, const TfLiteTensor* bias) {
    const float* filter_data = tflite::GetTensorData<float>(filter);
    const float* bias_data = tflite::GetTensorData<float>(bias);
    if (s->planar) {
      // filter is [output][ky][kx][c]: transposed to [tap][output].
      const size_t taps = static_cast<size_t>(s->geometry.taps()) * s->filter_depth;
      const size_t outputs = s->output_depth;
      s->planar_w.resize(taps * outputs);
      for (size_t o = 0; o < outputs; ++o) {
        for (size_t t = 0; t < taps; ++t) s->planar_w[t * outputs + o] = filter_data[o * taps + t];
      }
      Packed(context, s, filter, bias);
      return;
    }
    const size_t taps = s->geometry.taps();
    const size_t kc = s->filter_depth;
    const size_t nr = s->variant->nr;
    if (s->broadcast_channels > 0) {
      // One group, one tap: the rest's channels (the bias written by each Eval), then the broadcast
      // channels' with the bias, each output channel's weights kc apart in the filter.
      const size_t broadcast = s->broadcast_channels;
      PackGemmWeights(s->output_depth, 1, kc - broadcast, filter_data + broadcast, kc, kc, 1, nullptr, nr, &s->packed);
      PackGemmWeights(s->output_depth, 1, broadcast, filter_data, kc, kc, 1, bias_data, nr, &s->broadcast_w);
      s->group_packed_size = s->packed.size();
      Packed(context, s, filter, bias);
      return;
    }
    const size_t panels = (s->group_outputs + nr - 1) / nr;
    s->group_packed_size = panels * PackedPanelSize(taps, kc, nr);
    if (s->groups == 1) {  // straight into place: no second copy of the layer's weights
      PackGemmWeights(s->group_outputs, taps, kc, filter_data, taps * kc, kc, 1, bias_data, nr, &s->packed);
      Packed(context, s, filter, bias);
      return;
    }
    s->packed.resize(s->group_packed_size * s->groups);
    CacheAlignedVector<float> group_packed;
    for (int g = 0; g < s->groups; ++g) {
      const size_t first = static_cast<size_t>(g) * s->group_outputs;
      PackGemmWeights(s->group_outputs, taps, kc, filter_data + first * taps * kc, taps * kc, kc, 1, bias_data + first,
                      nr, &group_packed);
      std::copy(group_packed.begin(), group_packed.end(), s->packed.begin() + g * s->group_packed_size);
    }
    Packed(context, s, filter, bias);
  }

  // What Pack packed, and for constant weights their file pages given back.
  static void Packed(TfLiteContext* context, State* s, const TfLiteTensor* filter, const TfLiteTensor* bias) {
    s->packed_filter = filter->data.raw;
    s->packed_bias = bias->data.raw;
    if (s->constant_weights) ConstantCopied(context, filter->data.raw, filter->bytes);
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    // Set again by the consumer's Prepare, which runs after this one.
    s->fused_into_consumer = false;
    s->broadcast_channels = 0;
    const auto& params = nn::ParamsOf<TfLiteConvParams>(node);
    const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
    s->quantized = false;
    s->hybrid = false;
    s->q16 = false;
    if (input->type == kTfLiteFloat32 && filter->type == kTfLiteInt8) {
      s->fast = PrepareHybrid(context, params, input, filter, bias, output, s);
      return kTfLiteOk;
    }
    if (input->type != kTfLiteFloat32 && tflite::NumElements(output) > 0) {
      const WindowGeometry geometry =
          ConvWindow(input, filter, output, params.padding, params.stride_height, params.stride_width,
                     params.dilation_height_factor, params.dilation_width_factor);
      s->q16 = input->type == kTfLiteInt16 &&
               PrepareQ16Conv(context, node, *s->kernels, geometry, MadeOnDemand(s->q16_state));
      s->quantized = !s->q16 && PrepareQuantConv(context, node, *s->kernels, geometry,
                                                 reference::ConvRequantization(s->reference_data),
                                                 MadeOnDemand(s->quant));
      s->fast = s->quantized || s->q16;
      return kTfLiteOk;
    }
    if (input->type != kTfLiteFloat32 || filter->type != kTfLiteFloat32 || bias->type != kTfLiteFloat32 ||
        output->type != kTfLiteFloat32 || tflite::NumElements(output) == 0) {
      return kTfLiteOk;
    }
    s->geometry = ConvWindow(input, filter, output, params.padding, params.stride_height, params.stride_width,
                             params.dilation_height_factor, params.dilation_width_factor);
    s->filter_depth = filter->dims->data[3];
    s->output_depth = filter->dims->data[0];
    s->groups = input->dims->data[3] / s->filter_depth;
    s->group_outputs = s->output_depth / s->groups;
    tflite::CalculateActivationRange(params.activation, &s->act_min, &s->act_max);
    s->variant = &ChooseGemmVariant(*s->kernels, s->group_outputs);
    s->merged_rows = s->groups == 1 && s->geometry.kernel_width > 1 && s->geometry.dilation_width == 1;
    s->zero.assign(std::max(s->filter_depth * s->geometry.kernel_width, 1), 0.f);
    PreparePlanar(context, s);
    s->indirection.Invalidate();
    s->row_indirection.valid = false;
    // Persistent read-only tensors (a DEQUANTIZE of float16 weights, computed in its Prepare) are
    // as constant as the model's own buffers.
    s->constant_weights = tflite::IsConstantOrPersistentTensor(filter) && tflite::IsConstantOrPersistentTensor(bias);
    FoldBroadcast(context, node, s);
    // A second Prepare with the same constants (the runtime prepares once before a delegate looks at
    // the graph and once after) keeps what the first packed.
    const PackedFrom from{filter->data.raw, bias->data.raw, s->planar,  s->geometry.taps(),   s->filter_depth,
                          s->group_outputs, s->groups,      s->variant, s->broadcast_channels};
    // Constant weights are packed at the first Invoke (Init stays short, as TFLite's, whose kernels
    // also pack on first use): Eval packs when packed_filter is not the filter's data.
    if (!(s->constant_weights && from == s->packed_from)) {
      s->packed_filter = nullptr;
      s->packed_bias = nullptr;
      s->packed.clear();
      s->planar_w.clear();
      s->packed_from = s->constant_weights ? from : PackedFrom();
    }
    s->fast = true;
    return kTfLiteOk;
  }

  // A 1x1 node of one batch whose input is CONCATENATION(RESIZE_BILINEAR(pixel), rest) on
  // channels, where the resize writes the pixel's values unchanged to every pixel (from one pixel,
  // every sampling fraction zero; DeepLab's image pooling, align_corners): each output pixel's sum
  // is bias + (broadcast weights . pixel) + (rest weights . rest pixel), and the first two terms
  // are the same for every pixel. Eval computes them once, with the GEMM's microkernel on one row,
  // as the new bias of a GEMM over the rest's channels: every output element's sum runs over the
  // same products in the same order as the GEMM over the concatenation, so the values are the
  // same. DeepLab v3's largest layer (0.28 of the model's 1.37 GFLOP) does half its multiply-adds.
  // The resize and the concatenation then do nothing. The runtime decides whether the graph allows
  // it (fuse_chain: each one's output read by the next alone).
  static void FoldBroadcast(TfLiteContext* context, TfLiteNode* node, State* s) {
    CpuBackendContext* backend = GetCpuBackendContext(context);
    const WindowGeometry& g = s->geometry;
    if (backend == nullptr || backend->fuse_chain == nullptr || s->planar || s->groups != 1 || g.batches != 1 ||
        g.kernel_height != 1 || g.kernel_width != 1 || g.stride_height != 1 || g.stride_width != 1) {
      return;
    }
    auto cpu_node = [](const Producer& p) { return p.producer >= 0 && p.node->delegate == nullptr; };
    const Producer concat = ProducerOfInput(context, node);
    if (!cpu_node(concat) || !FoldableChannelConcat(concat.node, concat.registration)) return;
    const Producer resize = ProducerOfInput(context, concat.node);
    if (!cpu_node(resize) || !FoldableBroadcastResize(resize.node, resize.registration)) return;
    const TfLiteTensor* pixel = &context->tensors[resize.node->inputs->data[0]];
    const TfLiteTensor* rest = &context->tensors[concat.node->inputs->data[1]];
    const int broadcast = pixel->dims->data[3];
    if (pixel->type != kTfLiteFloat32 || rest->type != kTfLiteFloat32 || broadcast < 1 ||
        broadcast >= s->filter_depth) {
      return;
    }
    const int chain[3] = {resize.producer, concat.producer, concat.self};
    if (!backend->fuse_chain(context, chain, 3, /*unwritten=*/true)) return;
    MarkResizeFused(resize.node);
    MarkConcatFused(concat.node);
    s->broadcast_channels = broadcast;
    s->broadcast_pixel = resize.node->inputs->data[0];
    s->broadcast_rest = concat.node->inputs->data[1];
    s->broadcast_bias.assign(s->output_depth, 0.f);
    s->broadcast_resized.assign(broadcast, 0.f);
  }

  // FoldBroadcast's Eval: the per-pixel constant as one GEMM row (no clamp), written over the bias
  // slots of the rest's packed panels, then the GEMM over the rest's channels.
  static TfLiteStatus EvalBroadcast(TfLiteContext* context, TfLiteNode* node, State* s) {
    const size_t rest_channels = s->filter_depth - s->broadcast_channels;
    const size_t outputs = s->output_depth;
    // What the resize writes at every pixel: its blend with weights 1, 0, 0 and 0, the value
    // itself where it is finite and NaN where it is not (inf * 0).
    const float* values = tflite::GetTensorData<float>(&context->tensors[s->broadcast_pixel]);
    float* resized = s->broadcast_resized.data();
    for (int c = 0; c < s->broadcast_channels; ++c) {
      resized[c] = values[c] * 1.f + values[c] * 0.f + values[c] * 0.f + values[c] * 0.f;
    }
    const float* pixel = resized;
    const float infinity = std::numeric_limits<float>::infinity();
    RunGemm(context, MatrixProblem(s->variant, 1, outputs, s->broadcast_channels, &pixel, s->broadcast_w.data(),
                                   s->broadcast_bias.data(), -infinity, infinity));
    const size_t nr = s->variant->nr;
    const size_t panel_size = PackedPanelSize(1, rest_channels, nr);
    for (size_t first = 0; first < outputs; first += nr) {
      std::copy_n(s->broadcast_bias.data() + first, std::min(nr, outputs - first),
                  s->packed.data() + first / nr * panel_size);
    }
    const float* rest = tflite::GetTensorData<float>(&context->tensors[s->broadcast_rest]);
    GemmProblem problem;
    problem.variant = s->variant;
    problem.m = s->geometry.out_pixels();
    problem.nc = outputs;
    problem.kc = rest_channels;
    problem.ks = 1;
    problem.a = s->indirection.Get(s->geometry, rest, rest_channels, s->zero.data());
    problem.a_row_stride = 1;
    problem.zero = s->zero.data();
    problem.w = s->packed.data();
    problem.c = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    problem.c_stride = outputs;
    problem.min = s->act_min;
    problem.max = s->act_max;
    RunGemm(context, problem);
    return kTfLiteOk;
  }

  // The planar kernel takes nodes with few input channels and 8 outputs (with 16 or more the GEMM
  // fills its registers and is as fast), at least a register's width of output pixels per row,
  // when the kernel set has one. The planes have `plane_margin` zeros left of input column 0 and
  // room on the right for the last register's reads.
  static void PreparePlanar(TfLiteContext* context, State* s) {
    const WindowGeometry& g = s->geometry;
    s->planar = s->kernels->planar_conv != nullptr && s->groups == 1 && s->filter_depth <= kMaxPlanarInputChannels &&
                g.taps() * s->filter_depth <= kMaxPlanarTaps && s->output_depth == kPlanarOutputChannels &&
                g.out_width >= s->kernels->float_lanes;
    s->planes.Clear();
    if (!s->planar) return;
    int min_shift = 0, max_shift = 0;
    for (int kx = 0; kx < g.kernel_width; ++kx) {
      const PlanarColumn column = PlanarColumnOf(g, kx, 0);
      min_shift = std::min(min_shift, column.shift);
      max_shift = std::max(max_shift, column.shift);
    }
    s->plane_margin = -min_shift;
    const size_t lanes = s->kernels->float_lanes;
    const size_t read_end = s->plane_margin + max_shift + (g.out_width + lanes - 1) / lanes * lanes;
    const size_t columns_end =
        s->plane_margin + (static_cast<size_t>(g.in_width) + g.stride_width - 1) / g.stride_width;
    s->plane_width = (std::max(read_end, columns_end) + lanes - 1) / lanes * lanes;
    s->planar_ring_rows = (g.kernel_height - 1) * g.dilation_height + 1;
    s->planar_tap_offsets.clear();
    for (int kx = 0; kx < g.kernel_width; ++kx) {
      const PlanarColumn column = PlanarColumnOf(g, kx, s->plane_margin);
      for (int c = 0; c < s->filter_depth; ++c) {
        s->planar_tap_offsets.push_back((static_cast<size_t>(c) * g.stride_width + column.phase) * s->plane_width +
                                        column.shift);
      }
    }
    s->planes.Assign(NumThreads(context),
                     static_cast<size_t>(s->planar_ring_rows) * s->filter_depth * g.stride_width * s->plane_width);
  }

  // Splits input row `row` (all batches' rows in order) into its planes at `out`: column x goes to
  // phase x mod stride, element x / stride after the margin. The margins are never written, so
  // they stay zero. kChannels and kPhases > 0 fix the counts at compile time (the common first
  // layers), 0 takes them from the node.
  template <int kChannels, int kPhases>
  static void SplitRow(const State* s, const float* input, int64_t row, float* out) {
    const WindowGeometry& g = s->geometry;
    const int channels = kChannels > 0 ? kChannels : s->filter_depth;
    const int phases = kPhases > 0 ? kPhases : g.stride_width;
    const int width = g.in_width;
    const size_t plane_width = s->plane_width;
    const float* in = input + row * width * channels;
    out += s->plane_margin;
    const int whole = width / phases;
    int done = 0;
    if (kChannels == 3 && kPhases == 2 && s->kernels->planar_split_3x2 != nullptr) {
      // planes[3 * phase + c] is plane (c, phase).
      float* planes[6];
      for (int phase = 0; phase < 2; ++phase) {
        for (int c = 0; c < 3; ++c) planes[3 * phase + c] = out + (c * 2 + phase) * plane_width;
      }
      done = whole / 16 * 16;
      s->kernels->planar_split_3x2(in, done, planes);
    }
    for (int phase = 0; phase < phases; ++phase) {
      for (int c = 0; c < channels; ++c) {
        float* __restrict plane = out + (static_cast<size_t>(c) * phases + phase) * plane_width;
        const float* __restrict column = in + phase * channels + c;
        for (int element = done; element < whole; ++element) {
          plane[element] = column[element * phases * channels];
        }
      }
    }
    for (int x = whole * phases; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        out[(static_cast<size_t>(c) * phases + x - whole * phases) * plane_width + whole] = in[x * channels + c];
      }
    }
  }

  using SplitRowFn = void (*)(const State*, const float*, int64_t, float*);
  static SplitRowFn ChooseSplitRow(const State* s) {
    const int channels = s->filter_depth;
    const int phases = s->geometry.stride_width;
    if (channels == 3 && phases == 2) return SplitRow<3, 2>;
    if (channels == 3 && phases == 1) return SplitRow<3, 1>;
    if (channels == 1 && phases == 2) return SplitRow<1, 2>;
    if (channels == 1 && phases == 1) return SplitRow<1, 1>;
    return SplitRow<0, 0>;
  }

  // Runs the planar kernel over the output rows. Each chunk splits the input rows its output rows
  // read into a ring of `planar_ring_rows` plane rows as it goes (a few KB, so the planes stay in
  // L1 instead of making a second copy of the input).
  static TfLiteStatus EvalPlanar(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
    if (!s->constant_weights || s->packed_filter != filter->data.raw || s->packed_bias != bias->data.raw) {
      Pack(context, s, filter, bias);
    }
    const WindowGeometry& g = s->geometry;
    const int channels = s->filter_depth;
    const int phases = g.stride_width;
    const size_t plane_width = s->plane_width;
    const size_t row_floats = static_cast<size_t>(channels) * phases * plane_width;
    const int64_t ring_rows = s->planar_ring_rows;
    const size_t ring_floats = ring_rows * row_floats;
    s->planes.Ensure(NumThreads(context), ring_floats);
    const float* input_data = tflite::GetTensorData<float>(input);
    const float* bias_data = tflite::GetTensorData<float>(bias);
    float* output_data = tflite::GetTensorData<float>(output);
    const int64_t output_rows = int64_t{g.batches} * g.out_height;
    const PlanarConvFn planar_conv = s->kernels->planar_conv;
    const SplitRowFn split_row = ChooseSplitRow(s);
    const size_t row_taps = s->planar_tap_offsets.size();  // taps of one kernel row
    ParallelChunks(context, output_rows, 1, [&](int, int64_t begin, int64_t end) {
      float* ring = s->planes.part(CurrentThread(context));
      const float* tap_in[kMaxPlanarTaps];
      const float* tap_w[kMaxPlanarTaps];
      PlanarConvArgs args;
      args.pixels = g.out_width;
      args.tap_in = tap_in;
      args.tap_w = tap_w;
      args.bias = bias_data;
      args.min = s->act_min;
      args.max = s->act_max;
      int64_t batch = -1;
      int64_t next_row = 0;  // the next input row of `batch` to split
      for (int64_t row = begin; row < end; ++row) {
        const int64_t oy = row % g.out_height;
        if (row / g.out_height != batch) {
          batch = row / g.out_height;
          next_row = 0;
        }
        const int64_t y0 = oy * g.stride_height - g.pad_top;
        const int64_t first = std::max<int64_t>(0, y0);
        const int64_t last = std::min<int64_t>(g.in_height - 1, y0 + int64_t{g.kernel_height - 1} * g.dilation_height);
        // Rows below `first` are not read again; the ring keeps the ring_rows latest.
        next_row = std::max(next_row, first);
        for (; next_row <= last; ++next_row) {
          split_row(s, input_data, batch * g.in_height + next_row, ring + (next_row % ring_rows) * row_floats);
        }
        size_t taps = 0;
        for (int ky = 0; ky < g.kernel_height; ++ky) {
          const int64_t iy = y0 + int64_t{ky} * g.dilation_height;
          if (iy < 0 || iy >= g.in_height) continue;  // zero rows add nothing
          const float* plane_row = ring + (iy % ring_rows) * row_floats;
          const float* row_w = s->planar_w.data() + ky * row_taps * s->output_depth;
          for (size_t j = 0; j < row_taps; ++j, ++taps) {
            tap_in[taps] = plane_row + s->planar_tap_offsets[j];
            tap_w[taps] = row_w + j * s->output_depth;
          }
        }
        args.taps = taps;
        args.out = output_data + row * g.out_width * s->output_depth;
        planar_conv(args);
      }
    });
    return kTfLiteOk;
  }

  // Hybrid CONV_2D with one group, constant weights and a float bias (the reference has prepared it,
  // so the weights' quantization is as it requires). The rest keeps the reference.
  static bool PrepareHybrid(TfLiteContext* context, const TfLiteConvParams& params, const TfLiteTensor* input,
                            const TfLiteTensor* filter, const TfLiteTensor* bias, const TfLiteTensor* output,
                            State* s) {
    const auto* quantization = static_cast<const TfLiteAffineQuantization*>(filter->quantization.params);
    if (bias == nullptr || bias->type != kTfLiteFloat32 || output->type != kTfLiteFloat32 ||
        !tflite::IsConstantTensor(filter) || tflite::NumElements(output) == 0 || tflite::IsDynamicTensor(output) ||
        quantization == nullptr || quantization->scale == nullptr || input->dims->size != 4 ||
        filter->dims->data[3] != input->dims->data[3]) {
      return false;
    }
    s->geometry = ConvWindow(input, filter, output, params.padding, params.stride_height, params.stride_width,
                             params.dilation_height_factor, params.dilation_width_factor);
    s->filter_depth = filter->dims->data[3];
    s->output_depth = filter->dims->data[0];
    s->groups = 1;
    s->group_outputs = s->output_depth;
    tflite::CalculateActivationRange(params.activation, &s->act_min, &s->act_max);
    // As the reference decides: the per-channel (asymmetric) path only when the scales differ.
    s->hybrid_asymmetric = false;
    for (int i = 1; i < quantization->scale->size; ++i) {
      if (quantization->scale->data[i] != quantization->scale->data[0]) s->hybrid_asymmetric = true;
    }
    const size_t row_bytes = static_cast<size_t>(s->geometry.taps()) * s->filter_depth;
    const int8_t* filter_data = tflite::GetTensorData<int8_t>(filter);
    s->hybrid_filter_sums.assign(s->output_depth, 0);
    for (int o = 0; o < s->output_depth; ++o) {
      uint32_t sum = 0;
      for (size_t i = 0; i < row_bytes; ++i) sum += static_cast<uint32_t>(int32_t{filter_data[o * row_bytes + i]});
      s->hybrid_filter_sums[o] = static_cast<int32_t>(sum);
    }
    const WindowGeometry& g = s->geometry;
    s->hybrid_input.resize(static_cast<size_t>(tflite::NumElements(input)));
    s->hybrid_scaling_factors.resize(g.batches);
    s->hybrid_input_offsets.resize(g.batches);
    const int threads = NumThreads(context);
    s->hybrid_rows.Ensure(threads, row_bytes);
    s->hybrid_sums.Ensure(threads, s->output_depth);
    s->hybrid_gemv = &Int8GemvKernelsFor(*s->kernels);
    s->hybrid_packed_from = nullptr;
    s->hybrid = true;
    return true;
  }

  // The reference's ConvHybrid: the same per-batch quantization, the same integer sums (zero point
  // times the filter's sum subtracted, in wrapping int32 as TFLite's im2col path), the same float
  // epilogue, so the outputs are bit-exact.
  static TfLiteStatus EvalHybrid(TfLiteContext* context, TfLiteNode* node, State* s) {
    const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
    const WindowGeometry& g = s->geometry;
    const int channels = s->filter_depth;
    const int64_t batch_elements = int64_t{g.in_height} * g.in_width * channels;
    const float* input_data = tflite::GetTensorData<float>(input);
    if (batch_elements == 0) return kTfLiteOk;
    nn::BatchQuantizeFloats(input_data, g.batches, static_cast<int>(batch_elements), s->hybrid_input.data(),
                            s->hybrid_scaling_factors.data(), s->hybrid_input_offsets.data(), s->hybrid_asymmetric);
    for (int b = 0; b < g.batches && !s->hybrid_asymmetric; ++b) {
      s->hybrid_scaling_factors[b] *= filter->params.scale;
      s->hybrid_input_offsets[b] = 0;
    }
    const float* channel_scales =
        static_cast<const TfLiteAffineQuantization*>(filter->quantization.params)->scale->data;
    const int8_t* filter_data = tflite::GetTensorData<int8_t>(filter);
    const float* bias_data = tflite::GetTensorData<float>(bias);
    float* output_data = tflite::GetTensorData<float>(output);
    const size_t row_bytes = static_cast<size_t>(g.taps()) * channels;
    const int outputs = s->output_depth;
    // A 1x1 window on every input pixel reads the quantized input in place.
    const bool in_place = g.taps() == 1 && g.stride_height == 1 && g.stride_width == 1 && g.pad_top == 0 &&
                          g.pad_left == 0 && g.out_height == g.in_height && g.out_width == g.in_width;
    const Int8GemvKernels& gemv = *s->hybrid_gemv;
    if (s->hybrid_packed_from != filter_data) {
      s->hybrid_packed.assign(gemv.packed_size(outputs, row_bytes), 0);
      gemv.pack(filter_data, outputs, row_bytes, s->hybrid_packed.data());
      s->hybrid_packed_from = filter_data;
      ConstantCopied(context, filter_data, filter->bytes);
    }
    const int64_t pixels_per_batch = int64_t{g.out_height} * g.out_width;
    const int64_t min_pixels = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, int64_t{outputs} * row_bytes));
    ParallelChunks(context, g.out_pixels(), min_pixels, [&](int, int64_t begin, int64_t end) {
      const int thread = CurrentThread(context);
      int8_t* im2col = s->hybrid_rows.part(thread);
      int32_t* sums = s->hybrid_sums.part(thread);
      for (int64_t pixel = begin; pixel < end; ++pixel) {
        const int b = static_cast<int>(pixel / pixels_per_batch);
        const int64_t within = pixel % pixels_per_batch;
        const int oy = static_cast<int>(within / g.out_width);
        const int ox = static_cast<int>(within % g.out_width);
        const int8_t* batch_input = s->hybrid_input.data() + b * batch_elements;
        const int32_t offset = s->hybrid_input_offsets[b];
        const int8_t* row = im2col;
        if (in_place) {
          row = batch_input + within * channels;
        } else {
          // Padding reads the zero point: (zero point - zero point) * w adds nothing, as the
          // reference's skipped taps.
          const int8_t pad = static_cast<int8_t>(offset);
          int8_t* out = im2col;
          for (int ky = 0; ky < g.kernel_height; ++ky) {
            const int iy = oy * g.stride_height - g.pad_top + ky * g.dilation_height;
            for (int kx = 0; kx < g.kernel_width; ++kx, out += channels) {
              const int ix = ox * g.stride_width - g.pad_left + kx * g.dilation_width;
              if (iy < 0 || iy >= g.in_height || ix < 0 || ix >= g.in_width) {
                std::memset(out, pad, channels);
              } else {
                std::memcpy(out, batch_input + (int64_t{iy} * g.in_width + ix) * channels, channels);
              }
            }
          }
        }
        gemv.gemv(s->hybrid_packed.data(), outputs, row_bytes, row, sums);
        float* out = output_data + pixel * outputs;
        const float scaling_factor = s->hybrid_scaling_factors[b];
        if (s->hybrid_asymmetric) {
          for (int o = 0; o < outputs; ++o) {
            const int32_t sum =
                static_cast<int32_t>(static_cast<uint32_t>(sums[o]) -
                                     static_cast<uint32_t>(offset) * static_cast<uint32_t>(s->hybrid_filter_sums[o]));
            const float scale = channel_scales[o] * scaling_factor;
            out[o] = nn::ClampToActivation(static_cast<float>(sum) * scale + bias_data[o], s->act_min, s->act_max);
          }
        } else {
          for (int o = 0; o < outputs; ++o) {
            float value = static_cast<float>(sums[o]) * scaling_factor;
            value += bias_data[o];
            out[o] = nn::ClampToActivation(value, s->act_min, s->act_max);
          }
        }
      }
    });
    return kTfLiteOk;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    if (s->fused_into_consumer) return kTfLiteOk;
    if (s->quantized) return EvalQuantGemm(context, node, s->quant.get());
    if (s->q16) return EvalQ16Gemm(context, node, s->q16_state.get());
    if (s->hybrid) return EvalHybrid(context, node, s);
    if (s->planar) return EvalPlanar(context, node, s);
    const auto [input, filter, bias, output] = nn::WeightedNodeTensors(context, node);
    if (!s->constant_weights || s->packed_filter != filter->data.raw || s->packed_bias != bias->data.raw) {
      Pack(context, s, filter, bias);
    }
    if (s->broadcast_channels > 0) return EvalBroadcast(context, node, s);
    return EvalGemm(context, s, input, tflite::GetTensorData<float>(output), GemmProblem());
  }

  // The plain path's GEMM into `output_data`. `epilogue` brings the residual and post fields (none by
  // default); every other field is set here.
  static TfLiteStatus EvalGemm(TfLiteContext* context, State* s, const TfLiteTensor* input, float* output_data,
                               const GemmProblem& epilogue) {
    const size_t input_depth = input->dims->data[3];
    const float* input_data = tflite::GetTensorData<float>(input);
    GemmProblem problem = epilogue;
    problem.variant = s->variant;
    problem.m = s->geometry.out_pixels();
    problem.nc = s->group_outputs;
    if (s->merged_rows) {
      RowIndirection& rows = s->row_indirection;
      if (!rows.valid || rows.input != input_data) {
        rows.Build(s->geometry, input_data, input_depth, s->zero.data());
      }
      rows.CopyEdges();
      problem.kc = static_cast<size_t>(s->filter_depth) * s->geometry.kernel_width;
      problem.ks = s->geometry.kernel_height;
      problem.a = rows.buffer.data();
    } else {
      problem.kc = s->filter_depth;
      problem.ks = s->geometry.taps();
      problem.a = s->indirection.Get(s->geometry, input_data, input_depth, s->zero.data());
    }
    problem.a_row_stride = problem.ks;
    problem.zero = s->zero.data();
    problem.c_stride = s->output_depth;
    problem.min = s->act_min;
    problem.max = s->act_max;
    if (s->groups == 1) {
      problem.w = s->packed.data();
      problem.c = output_data;
      RunGemm(context, &problem, 1);
      return kTfLiteOk;
    }
    s->problems.assign(s->groups, problem);
    for (int g = 0; g < s->groups; ++g) {
      GemmProblem& group = s->problems[g];
      group.a_offset = static_cast<size_t>(g) * s->filter_depth;
      group.w = s->packed.data() + g * s->group_packed_size;
      group.c = output_data + static_cast<size_t>(g) * s->group_outputs;
      if (group.residual != nullptr) group.residual += static_cast<size_t>(g) * s->group_outputs;
    }
    RunGemm(context, s->problems.data(), s->problems.size());
    return kTfLiteOk;
  }
};

}  // namespace

namespace conv_internal {

bool IsOptimizedConvInvoke(TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*)) {
  return invoke == OptimizedKernel<ConvOp>::Invoke;
}

void PackConv(TfLiteContext* context, ConvState* s, const TfLiteTensor* filter, const TfLiteTensor* bias) {
  ConvOp::Pack(context, s, filter, bias);
}

bool ResidualFoldableConv(const TfLiteNode* node, const TfLiteRegistration* registration) {
  if (node->delegate != nullptr || !IsOptimizedConvInvoke(registration->invoke) || node->inputs->size != 3) {
    return false;
  }
  const ConvState* s = static_cast<const ConvState*>(node->user_data);
  return s->fast && !s->quantized && !s->q16 && !s->hybrid && !s->planar && s->broadcast_channels == 0 &&
         s->groups == 1 && !s->fused_into_consumer;
}

void MarkConvFused(TfLiteNode* node) { static_cast<ConvState*>(node->user_data)->fused_into_consumer = true; }

TfLiteStatus EvalConvWithResidual(TfLiteContext* context, TfLiteNode* node, float* output, const float* residual,
                                  BinaryFn add, float min, float max, ClampFn post, float post_lo, float post_hi) {
  ConvState* s = static_cast<ConvState*>(node->user_data);
  const auto [input, filter, bias, conv_output] = nn::WeightedNodeTensors(context, node);
  if (!s->constant_weights || s->packed_filter != filter->data.raw || s->packed_bias != bias->data.raw) {
    ConvOp::Pack(context, s, filter, bias);
  }
  GemmProblem epilogue;
  epilogue.residual = residual;
  epilogue.residual_add = add;
  epilogue.residual_min = min;
  epilogue.residual_max = max;
  epilogue.post = post;
  epilogue.post_lo = post_lo;
  epilogue.post_hi = post_hi;
  return ConvOp::EvalGemm(context, s, input, output, epilogue);
}

}  // namespace conv_internal

TfLiteRegistration* Register_CONV_2D() { return OptimizedKernel<ConvOp>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
