// What every optimized kernel shares: it wraps the reference kernel of its op (whose Prepare does
// all the validation and output sizing, and whose Eval runs every type and configuration the
// optimized code does not specialise), and it splits work over the interpreter's thread pool.
//
// The reference kernel's per-node state stays the reference kernel's: the optimized state keeps it
// in `reference_data` and puts it back in node->user_data around each call into the reference.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OP_COMMON_H_
#define TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OP_COMMON_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "runtime/c/common.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/kernels/float_mode.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/optimized/microkernels.h"

namespace touchstone {
namespace optimized {

// Whether a microkernel set runs on AVX or wider (the x86 sets of 8 or 16 float lanes), so that a
// kernel's own code for that set may use 256-bit registers (without FMA where it must round as the
// reference does).
inline bool SetHasAvx(const MicroKernels& set) {
#if defined(__x86_64__)
  return set.float_lanes >= 8;
#else
  (void)set;
  return false;
#endif
}

// A part of a node's state only some nodes use (one data type's form), made by the first Prepare
// that needs it and kept across re-Prepares.
template <typename T>
T* MadeOnDemand(std::unique_ptr<T>& part) {
  if (part == nullptr) part = std::make_unique<T>();
  return part.get();
}

// State every optimized kernel keeps; an op's own state derives from it.
struct OpState {
  const TfLiteRegistration* reference = nullptr;
  void* reference_data = nullptr;
  // The microkernel set Prepare chose (and packed weights for).
  const MicroKernels* kernels = nullptr;
  // Eval takes the optimized path (else the reference Eval runs).
  bool fast = false;
  virtual ~OpState() = default;
};

// Calls a reference callback with the reference kernel's user_data in place.
inline TfLiteStatus CallReference(TfLiteStatus (*fn)(TfLiteContext*, TfLiteNode*), TfLiteContext* context,
                                  TfLiteNode* node, OpState* state) {
  if (fn == nullptr) return kTfLiteOk;
  void* own = node->user_data;
  node->user_data = state->reference_data;
  const TfLiteStatus status = fn(context, node);
  node->user_data = own;
  return status;
}

// Builds an optimized registration from an Op type that provides:
//   using State = ...;                       (derived from OpState)
//   static TfLiteRegistration* Reference();
//   static TfLiteStatus Prepare(TfLiteContext*, TfLiteNode*, State*);  after the reference
//     Prepare succeeded; sets state->fast when Eval can take the optimized path
//   static TfLiteStatus Eval(TfLiteContext*, TfLiteNode*, State*);     only when state->fast
// and optionally
//   static bool FlushesDenormals(const State*);  true: Eval runs with denormals flushed (float_mode.h):
//     the float paths whose results are within a tolerance of the reference anyway (accumulations),
//     not those that are exactly the reference's (the hybrid forms quantize their float input).
template <typename Op, typename = void>
struct FlushPolicy {
  static bool Flushes(const typename Op::State*) { return false; }
};
template <typename Op>
struct FlushPolicy<Op, decltype(void(&Op::FlushesDenormals))> {
  static bool Flushes(const typename Op::State* s) { return Op::FlushesDenormals(s); }
};

template <typename Op>
struct OptimizedKernel {
  using State = typename Op::State;

  static State* StateOf(TfLiteNode* node) { return static_cast<State*>(node->user_data); }

  static void* Init(TfLiteContext* context, const char* buffer, size_t length) {
    State* state = new State;
    state->reference = Op::Reference();
    if (state->reference->init != nullptr) {
      state->reference_data = state->reference->init(context, buffer, length);
    }
    return state;
  }

  static void Free(TfLiteContext* context, void* buffer) {
    State* state = static_cast<State*>(buffer);
    if (state == nullptr) return;
    if (state->reference->free != nullptr) state->reference->free(context, state->reference_data);
    delete state;
  }

  static TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node) {
    State* state = StateOf(node);
    state->fast = false;
    const TfLiteStatus status = CallReference(state->reference->prepare, context, node, state);
    if (status != kTfLiteOk) return status;
    state->kernels = &Kernels();
    const TfLiteStatus prepared = Op::Prepare(context, node, state);
    NoteKernel(context, node, state->fast);
    return prepared;
  }

  static TfLiteStatus Invoke(TfLiteContext* context, TfLiteNode* node) {
    State* state = StateOf(node);
    if (!state->fast) return CallReference(state->reference->invoke, context, node, state);
    if (FlushPolicy<Op>::Flushes(state)) {
      ScopedDenormalFlush flush;
      return Op::Eval(context, node, state);
    }
    return Op::Eval(context, node, state);
  }

  static TfLiteRegistration* Registration() {
    static TfLiteRegistration registration = [] {
      TfLiteRegistration r = *Op::Reference();
      r.init = Init;
      r.free = Free;
      r.prepare = Prepare;
      r.invoke = Invoke;
      return r;
    }();
    return &registration;
  }
};

// The integer types of quantized tensors (uint8, int8, int16).
inline bool IsQuantizedType(TfLiteType type) {
  return type == kTfLiteUInt8 || type == kTfLiteInt8 || type == kTfLiteInt16;
}

// Bytes per element of the types the kernels address as raw bytes (PAD, TRANSPOSE and CONCATENATION
// copy them, the quantized element-wise kernels step through them); 0 for the others.
inline size_t ElementBytes(TfLiteType type) {
  switch (type) {
    case kTfLiteUInt8:
    case kTfLiteInt8:
    case kTfLiteBool:
      return 1;
    case kTfLiteInt16:
    case kTfLiteFloat16:
      return 2;
    case kTfLiteFloat32:
    case kTfLiteInt32:
      return 4;
    case kTfLiteInt64:
      return 8;
    default:
      return 0;
  }
}

// Chunks per thread a kernel splits its work into: the pool hands them out in order to whichever
// thread is free, so a thread the OS delays (a busy machine) holds up at most one small chunk.
constexpr int kChunksPerThread = 4;

// The least work a chunk holds before ParallelChunks hands some to another thread (waking one must
// pay off), by the kernels' unit of work: elements of an element-wise op, bytes a copying op
// moves, multiply-adds of a GEMM and of a depthwise convolution.
constexpr int64_t kMinElementsPerChunk = 16 * 1024;
constexpr int64_t kMinBytesPerChunk = 64 * 1024;
constexpr int64_t kMinMacsPerChunk = 32 * 1024;
constexpr int64_t kMinDepthwiseMacsPerChunk = 16 * 1024;

// Rows of row_bytes bytes a copying op's chunk holds at least (kMinBytesPerChunk, one at least).
inline int64_t MinRowsPerChunk(int64_t row_bytes) {
  return std::max<int64_t>(1, kMinBytesPerChunk / std::max<int64_t>(1, row_bytes));
}

// ---- PAD and TRANSPOSE: elements moved whole, by output rows, with a constant int32 or int64
// spec tensor (paddings, perm) and output sizes known at Prepare.

constexpr int kMaxMoveRank = 6;

struct MoveState : OpState {
  int rank = 0;
  size_t element_bytes = 0;
  int64_t out_shape[kMaxMoveRank] = {};
};

// Sets s's rank, element size and output shape; true where the optimized path takes the node: a
// type ElementBytes knows, the output of the input's type and rank (1 to kMaxMoveRank), static and
// not empty, and `spec` constant, int32 or int64, with values_per_dimension values per dimension.
inline bool PrepareMove(const TfLiteTensor* input, const TfLiteTensor* spec, int values_per_dimension,
                        const TfLiteTensor* output, MoveState* s) {
  s->element_bytes = ElementBytes(input->type);
  s->rank = input->dims->size;
  if (s->element_bytes == 0 || output->type != input->type || s->rank < 1 || s->rank > kMaxMoveRank ||
      tflite::IsDynamicTensor(output) || !tflite::IsConstantTensor(spec) || output->dims->size != s->rank ||
      tflite::NumElements(output) == 0 || (spec->type != kTfLiteInt32 && spec->type != kTfLiteInt64) ||
      tflite::NumElements(spec) != values_per_dimension * s->rank) {
    return false;
  }
  for (int d = 0; d < s->rank; ++d) s->out_shape[d] = output->dims->data[d];
  return true;
}

// Value i of an int32 or int64 tensor.
inline int64_t IntValue(const TfLiteTensor* tensor, int i) {
  return tensor->type == kTfLiteInt32 ? tensor->data.i32[i] : tensor->data.i64[i];
}

// Output rows of a move whose rows are its dimensions from row_dim on.
inline int64_t RowsBefore(const MoveState& s, int row_dim) {
  int64_t rows = 1;
  for (int d = 0; d < row_dim; ++d) rows *= s.out_shape[d];
  return rows;
}

// The most chunks ParallelChunks makes on this context.
inline int MaxChunks(TfLiteContext* context) {
  const int threads = NumThreads(context);
  return threads <= 1 ? 1 : threads * kChunksPerThread;
}

// The most chunks `work` units can take when a chunk holds min_work_per_chunk at least: 1, without
// asking the context for its threads, when there is too little for two (a small node's Invoke would
// spend as long on that as on its work); else MaxChunks(context).
inline int64_t MaxChunksFor(TfLiteContext* context, int64_t work, int64_t min_work_per_chunk) {
  return work < 2 * min_work_per_chunk ? 1 : MaxChunks(context);
}

// Splits `items` into contiguous chunks, at most MaxChunksFor(context, items, min_items_per_chunk) and at most
// items / min_items_per_chunk of them (at least one), and calls fn(chunk, begin, end) for each on
// the context's pool (or the calling thread). Chunk indices are dense from 0; scratch a chunk
// writes and reads again belongs in a ThreadScratch (below), not in a part per chunk.
template <typename F>
void ParallelChunks(TfLiteContext* context, int64_t items, int64_t min_items_per_chunk, F&& fn) {
  if (items <= 0) return;
  int64_t chunks = std::min<int64_t>(MaxChunksFor(context, items, min_items_per_chunk), items);
  if (min_items_per_chunk > 1) {
    chunks = std::min<int64_t>(chunks, std::max<int64_t>(1, items / min_items_per_chunk));
  }
  if (chunks <= 1) {
    fn(0, int64_t{0}, items);
    return;
  }
  ParallelFor(
      context, chunks,
      [&](int64_t begin, int64_t end) {
        // Evenly spaced bounds, floor(chunk * items / chunks): the longer chunks are spread over
        // the threads' ranges instead of all going to the first ones (14 rows in 8 chunks: 7 and 7
        // rows per thread, not 8 and 6), and every op's thread boundary is at the same fraction
        // of its items.
        for (int64_t chunk = begin; chunk < end; ++chunk) {
          fn(static_cast<int>(chunk), chunk * items / chunks, (chunk + 1) * items / chunks);
        }
      },
      static_cast<int>(chunks));
}

// The index of the calling thread among the context's pool threads while it runs a chunk (0 for
// the thread that called Invoke, and without a pool): see TaskRunner::current_thread.
inline int CurrentThread(TfLiteContext* context) {
  TaskRunner* runner = GetTaskRunner(context);
  return runner != nullptr ? runner->current_thread() : 0;
}

// The node of the plan before `node` that writes its input `input` (0 unless given), if any, for a
// reader that computes that node's output itself (fusion; the runtime decides whether the graph
// allows it: CpuBackendContext::fuse_producer). `self` and `producer` are node indices (-1: not
// found).
struct Producer {
  int self = -1;
  int producer = -1;
  TfLiteNode* node = nullptr;
  TfLiteRegistration* registration = nullptr;
};
inline Producer ProducerOfInput(TfLiteContext* context, const TfLiteNode* node, int input = 0) {
  CpuBackendContext* backend = GetCpuBackendContext(context);
  Producer found;
  if (backend == nullptr || backend->input_producer == nullptr ||
      !backend->input_producer(context, node, input, &found.self, &found.producer)) {
    return Producer();
  }
  if (found.producer >= 0 &&
      context->GetNodeAndRegistration(context, found.producer, &found.node, &found.registration) != kTfLiteOk) {
    return Producer();
  }
  return found;
}

// At least `count` floats of zeros, starting a cache line, that nobody writes: shared by every
// caller, for as long as the process runs. Pages of zeros read from fresh anonymous memory all map
// the kernel's zero page, so these cost neither memory nor a fill: a depthwise node's row of zeros
// (one input row, up to ~0.5 MB) used to be allocated and zero-filled at each Prepare, a third of
// deeplabv3's Init.
const float* SharedZeroFloats(size_t count);

// Zero-filled memory of at least `bytes`, starting a cache line. From fresh anonymous pages at
// kZeroPagesMinBytes and above (*mapped_bytes says how many): the kernel hands them out zeroed when
// first touched, so neither the fill nor the page faults fall in Prepare (a depthwise node's padded
// rows, zeroed at Prepare, were a tenth of hand_landmark_lite's Init). Below, operator new and a
// memset (*mapped_bytes is 0). Freed by FreeZeroed with the same count (0 frees operator new's
// cache-aligned memory, whoever allocated it).
constexpr size_t kZeroPagesMinBytes = 64 * 1024;
void* AllocateZeroed(size_t bytes, size_t* mapped_bytes);
void FreeZeroed(void* memory, size_t mapped_bytes);

// Bytes left between two threads' parts of a ThreadScratch.
constexpr size_t kThreadScratchGapBytes = 512 * 1024;

// Scratch memory with a part per pool thread (CurrentThread), for the buffers a chunk writes and
// reads again and again: padded input rows, split planes, packed rows. A chunk must not expect
// what an earlier chunk left in its part, other than what no chunk writes (zero padding). The
// parts lie kThreadScratchGapBytes apart: on this project's 2-vCPU host, two threads working on
// such buffers within ~128 KB of each other ran at half speed whenever the vCPUs sat on
// different core complexes, and 256 KB or more apart as fast as in the near placement (output
// rows written side by side cost nothing; docs/runtime.md, "Per-thread scratch"). The gaps are never
// touched: they take address space, not memory. Parts are zero-filled when sized.
template <typename T>
class ThreadScratch {
 public:
  // Sizes `threads` parts of `count` elements each, zero-filled, unless they have that size (and
  // were zero-filled).
  void Ensure(int threads, size_t count) {
    if (threads != threads_ || count != count_ || !zero_filled_) Assign(threads, count);
  }
  // As Ensure, without zero-filling: for parts every reader writes before it reads. Their pages are
  // first touched at the first Eval, not at Prepare.
  void EnsureUnfilled(int threads, size_t count) {
    if (threads != threads_ || count != count_) Assign(threads, count, /*zero_fill=*/false);
  }
  void Assign(int threads, size_t count, bool zero_fill = true) {
    threads_ = std::max(threads, 1);
    count_ = count;
    zero_filled_ = zero_fill;
    const size_t part_bytes = RoundUpToLine(count * sizeof(T));
    stride_bytes_ = threads_ > 1 ? part_bytes + kThreadScratchGapBytes : part_bytes;
    const size_t bytes = std::max<size_t>(stride_bytes_ * threads_, kCacheLineBytes);
    memory_.reset();
    if (zero_fill) {
      Free free;
      auto* memory = static_cast<unsigned char*>(AllocateZeroed(bytes, &free.mapped_bytes));
      memory_ = std::unique_ptr<unsigned char, Free>(memory, free);
      return;
    }
    memory_ = std::unique_ptr<unsigned char, Free>(
        static_cast<unsigned char*>(::operator new(bytes, std::align_val_t(kCacheLineBytes))), Free{});
  }
  void Clear() {
    memory_.reset();
    threads_ = 0;
    count_ = 0;
    zero_filled_ = false;
  }
  T* part(int thread) const { return reinterpret_cast<T*>(memory_.get() + thread * stride_bytes_); }
  size_t count() const { return count_; }

 private:
  static size_t RoundUpToLine(size_t bytes) {
    return (bytes + kCacheLineBytes - 1) / kCacheLineBytes * kCacheLineBytes;
  }
  struct Free {
    size_t mapped_bytes = 0;  // AllocateZeroed's pages, else operator new's
    void operator()(unsigned char* p) const { FreeZeroed(p, mapped_bytes); }
  };
  std::unique_ptr<unsigned char, Free> memory_;
  int threads_ = 0;
  size_t count_ = 0;
  size_t stride_bytes_ = 0;
  bool zero_filled_ = false;
};

// ---- Convolution windows (conv_2d.cc, depthwise_conv.cc and pooling.cc).

// An NHWC window geometry: input and output sizes, kernel, strides, dilations, leading padding.
struct WindowGeometry {
  int batches = 0;
  int in_height = 0, in_width = 0;
  int out_height = 0, out_width = 0;
  int kernel_height = 0, kernel_width = 0;
  int stride_height = 1, stride_width = 1;
  int dilation_height = 1, dilation_width = 1;
  int pad_top = 0, pad_left = 0;

  int64_t out_pixels() const { return int64_t{batches} * out_height * out_width; }
  int taps() const { return kernel_height * kernel_width; }
  bool operator==(const WindowGeometry& o) const;
  bool operator!=(const WindowGeometry& o) const { return !(*this == o); }
};

// Indirection buffer: for each output pixel p (batch-major, then rows, then columns) and kernel tap
// t (rows, then columns), buffer[p * taps + t] points at the input pixel the tap reads (its first
// channel; pixels are `pixel_stride` floats apart), or at `zero` where the tap falls in the padding.
// Output columns [skip_begin, skip_end) of every row are left out (a kernel that reads them in
// place): each row then holds out_width - (skip_end - skip_begin) pixels, its columns in order.
void BuildIndirection(const WindowGeometry& g, const float* input, size_t pixel_stride, const float* zero,
                      std::vector<const float*>* buffer, int skip_begin = 0, int skip_end = 0);

}  // namespace optimized
}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_OPTIMIZED_OP_COMMON_H_
