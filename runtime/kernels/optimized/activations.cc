// LOGISTIC and TANH. Float32: the vectorised sigmoid and tanh (MicroKernels), within the float
// tolerance. uint8 and int8: the reference's own 256-entry table (built by its Prepare), looked up.
// int16: the reference's arithmetic for each value, the fixed-point Q3.12 path on the vector
// FixedPointKernels (exact on every input) and the table-interpolation path (other input scales)
// through the reference's own function. All split over the thread pool.
// RELU, RELU6, RELU_N1_TO_1 and RELU_0_TO_1 on float32: the reference's clamp, vectorised
// (MicroKernels::relu), bit for bit; quantized types run the reference.
#include <algorithm>
#include <cstdint>

#include "runtime/c/common.h"
#include "runtime/kernels/internal/elementwise_quant.h"
#include "runtime/kernels/internal/relu_bounds.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/elementwise.h"
#include "runtime/kernels/optimized/fixed_point_kernels.h"
#include "runtime/kernels/optimized/op_common.h"
#include "runtime/kernels/optimized/optimized_ops.h"
#include "runtime/kernels/reference/reference_ops.h"

namespace touchstone {
namespace optimized {
namespace {

struct ActivationState : OpState {
  TfLiteType type = kTfLiteNoType;
  int64_t elements = 0;
  reference::QuantizedActivationParams quantized;
  const FixedPointKernels* fixed_point = nullptr;
};

template <bool kTanh>
struct ActivationOp {
  using State = ActivationState;
  // The float path rounds differently from the reference anyway: denormals flushed there.
  static bool FlushesDenormals(const State* s) { return s->type == kTfLiteFloat32; }
  static TfLiteRegistration* Reference() { return kTanh ? reference::Register_TANH() : reference::Register_LOGISTIC(); }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->type = input->type;
    s->elements = tflite::NumElements(input);
    if (s->elements == 0 || tflite::NumElements(output) != s->elements || tflite::IsDynamicTensor(output)) {
      return kTfLiteOk;
    }
    if (s->type != kTfLiteFloat32 && !IsQuantizedType(s->type)) return kTfLiteOk;
    reference::GetQuantizedActivationParams(s->reference_data, &s->quantized);
    s->fixed_point = &FixedPointKernelsFor(*s->kernels);
    s->fast = true;
    return kTfLiteOk;
  }

  // One chunk of int16 values.
  static void Int16Chunk(const State* s, const int16_t* in, int64_t n, int16_t* out) {
    const reference::QuantizedActivationParams& q = s->quantized;
    if (q.input_multiplier > 0) {
      for (int64_t i = 0; i < n; ++i) {
        out[i] = kTanh ? elementwise::TanhInt16ByTable(in[i], q.input_multiplier, q.input_left_shift)
                       : elementwise::LogisticInt16ByTable(in[i], q.input_multiplier, q.input_left_shift);
      }
      return;
    }
    if (!kTanh) {
      s->fixed_point->sigmoid(in, n, out);
      return;
    }
    if (q.input_left_shift == 1) {
      // The Q3.11 input doubled, saturating (SaturatingRoundingMultiplyByPOT by 1), into Q3.12.
      for (int64_t i = 0; i < n; ++i) {
        out[i] = static_cast<int16_t>(std::min(32767, std::max(-32768, 2 * int32_t{in[i]})));
      }
      in = out;
    }
    s->fixed_point->tanh(3, in, n, out);
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    ParallelChunks(context, s->elements, kMinElementsPerChunk, [&](int, int64_t begin, int64_t end) {
      const int64_t n = end - begin;
      switch (s->type) {
        case kTfLiteFloat32: {
          const float* in = tflite::GetTensorData<float>(input) + begin;
          float* out = tflite::GetTensorData<float>(output) + begin;
          (kTanh ? s->kernels->tanh : s->kernels->sigmoid)(n, in, out);
          break;
        }
        case kTfLiteUInt8:
        case kTfLiteInt8: {
          // int8 bytes index the table as they are, as the reference reads them.
          const uint8_t* in = reinterpret_cast<const uint8_t*>(input->data.raw) + begin;
          uint8_t* out = reinterpret_cast<uint8_t*>(output->data.raw) + begin;
          const uint8_t* table = s->quantized.lut8;
          for (int64_t i = 0; i < n; ++i) out[i] = table[in[i]];
          break;
        }
        default:
          Int16Chunk(s, tflite::GetTensorData<int16_t>(input) + begin, n,
                     tflite::GetTensorData<int16_t>(output) + begin);
          break;
      }
    });
    return kTfLiteOk;
  }
};

// The RELU family on float32 (bounds: internal/relu_bounds.h, as the reference's).
struct ReluState : OpState {
  int64_t elements = 0;
  TfLiteNode* add = nullptr;  // FoldAdd: the ADD this node computes, then clamps
};

template <ReluKind kKind>
struct ReluOp {
  using State = ReluState;
  static TfLiteRegistration* Reference() {
    switch (kKind) {
      case ReluKind::kRelu:
        return reference::Register_RELU();
      case ReluKind::kRelu6:
        return reference::Register_RELU6();
      case ReluKind::kReluN1To1:
        return reference::Register_RELU_N1_TO_1();
      case ReluKind::kRelu0To1:
        break;
    }
    return reference::Register_RELU_0_TO_1();
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node, State* s) {
    const TfLiteTensor* input = tflite::GetInput(context, node, 0);
    const TfLiteTensor* output = tflite::GetOutput(context, node, 0);
    s->elements = tflite::NumElements(input);
    s->fast = input->type == kTfLiteFloat32 && s->elements > 0 && tflite::NumElements(output) == s->elements &&
              !tflite::IsDynamicTensor(output);
    s->add = nullptr;
    if (s->fast) FoldAdd(context, node, s);
    return kTfLiteOk;
  }

  // A float ADD over the same shapes that writes this node's input and nothing else reads (the
  // runtime decides): its Eval writes into this node's output and each piece is clamped there while
  // in the cache (face_detection_short_range's 16 residual ADDs, each before a RELU). The values
  // of the two nodes apart: the ADD's microkernel, then this node's. Where the ADD computes a
  // convolution itself (elementwise.cc, FoldResidualConv), the three are one chain (fuse_chain), so
  // that the convolution's input stays allocated until this node has run.
  static void FoldAdd(TfLiteContext* context, TfLiteNode* node, State* s) {
    CpuBackendContext* backend = GetCpuBackendContext(context);
    if (backend == nullptr || backend->fuse_producer == nullptr || backend->fuse_chain == nullptr) return;
    const Producer p = ProducerOfInput(context, node);
    if (p.producer < 0 || p.node->delegate != nullptr || !FoldableAddForActivation(p.node, p.registration)) return;
    const int conv = FusedAddConvolution(p.node);
    if (conv >= 0) {
      const int chain[3] = {conv, p.producer, p.self};
      if (!backend->fuse_chain(context, chain, 3, /*unwritten=*/true)) return;
    } else if (!backend->fuse_producer(context, p.producer, p.self)) {
      return;
    }
    MarkAddFused(p.node);
    s->add = p.node;
  }

  static TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node, State* s) {
    const float* in = tflite::GetTensorData<float>(tflite::GetInput(context, node, 0));
    float* out = tflite::GetTensorData<float>(tflite::GetOutput(context, node, 0));
    const ClampFn relu = s->kernels->relu;
    constexpr float lo = ReluLow(kKind), hi = ReluHigh(kKind);
    if (s->add != nullptr) return EvalFusedAdd(context, s->add, out, relu, lo, hi);
    ParallelChunks(context, s->elements, kMinElementsPerChunk, [&](int, int64_t begin, int64_t end) {
      relu(static_cast<size_t>(end - begin), in + begin, out + begin, lo, hi);
    });
    return kTfLiteOk;
  }
};

}  // namespace

TfLiteRegistration* Register_RELU() { return OptimizedKernel<ReluOp<ReluKind::kRelu>>::Registration(); }
TfLiteRegistration* Register_RELU6() { return OptimizedKernel<ReluOp<ReluKind::kRelu6>>::Registration(); }
TfLiteRegistration* Register_RELU_N1_TO_1() { return OptimizedKernel<ReluOp<ReluKind::kReluN1To1>>::Registration(); }
TfLiteRegistration* Register_RELU_0_TO_1() { return OptimizedKernel<ReluOp<ReluKind::kRelu0To1>>::Registration(); }

TfLiteRegistration* Register_LOGISTIC() { return OptimizedKernel<ActivationOp<false>>::Registration(); }

TfLiteRegistration* Register_TANH() { return OptimizedKernel<ActivationOp<true>>::Registration(); }

}  // namespace optimized
}  // namespace touchstone
