// How kernels reach the interpreter's thread pool, the TensorFlow Lite way: the interpreter answers
// TfLiteContext::GetExternalContext(context, kTfLiteCpuBackendContext) with a CpuBackendContext, a
// TfLiteExternalContext that carries a TaskRunner (runtime/threadpool.h implements it, one per
// interpreter, sized by InterpreterOptions::num_threads). Kernels include only this header, never
// runtime/. When the context answers null (a host without a pool, or a test's bare TfLiteContext),
// the helpers below run the work on the calling thread.
#ifndef TOUCHSTONE_RUNTIME_KERNELS_CPU_BACKEND_CONTEXT_H_
#define TOUCHSTONE_RUNTIME_KERNELS_CPU_BACKEND_CONTEXT_H_

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <utility>

#include "runtime/c/common.h"

namespace touchstone {

// Runs a range of independent work items on a fixed set of threads.
class TaskRunner {
 public:
  using RangeFn = void (*)(void* state, int64_t begin, int64_t end);

  virtual ~TaskRunner() = default;
  // Threads that run work, the calling thread included (at least 1).
  virtual int num_threads() const = 0;
  // Splits [0, n) into contiguous chunks of (nearly) equal size, min(n, num_threads()) of them, or
  // min(n, max_chunks) when max_chunks > 0, and calls fn(state, begin, end) once per chunk. The
  // calling thread runs the first chunk; the other chunks are taken in order by whichever thread
  // is free (the workers, or the caller once its chunk is done), so at most num_threads() chunks
  // run at once and a worker the OS has not scheduled yet delays nothing. Returns when every chunk
  // is done. Calls made from inside a chunk (or while another call is running) run serially.
  virtual void ParallelFor(int64_t n, RangeFn fn, void* state, int max_chunks = 0) = 0;
  // The calling thread's index in [0, num_threads()) while it runs a chunk of this runner's
  // ParallelFor, 0 for the thread that called it. Chunks that run at the same time are on
  // different indices, so a kernel can give each thread scratch memory of its own.
  virtual int current_thread() const { return 0; }
};

// The external context of type kTfLiteCpuBackendContext the runtime hands kernels.
struct CpuBackendContext : public TfLiteExternalContext {
  TaskRunner* runner = nullptr;  // owned by the interpreter; null means "no pool"
  // Operator fusion: a kernel that computes the output of the node producing its input itself, so
  // that the tensor between them is never written (the producer's Eval then does nothing). It asks
  // from its Prepare, naming both nodes; the runtime answers true when the graph allows it: the
  // producer has one output, read by the consumer alone (once, as any of its inputs), neither a
  // subgraph input nor output, asked before the arena is planned (not by a node prepared during
  // Invoke), with no tensor required to stay readable (InterpreterOptions::preserve_all_tensors).
  // The runtime then keeps the producer's inputs allocated until the consumer has run. Null where
  // the host fuses nothing.
  bool (*fuse_producer)(TfLiteContext* context, int producer_node, int consumer_node) = nullptr;
  // Fusion of a chain of `count` nodes in plan order, each one's output read by the next alone (the
  // conditions of fuse_producer for every link), computed by the last (an attention block:
  // BATCH_MATMUL, RESHAPE, SOFTMAX, RESHAPE, BATCH_MATMUL). On true the runtime keeps every input of
  // the chain's nodes allocated until the last has run. The tensors between them keep their bytes
  // (a RESHAPE in the chain still runs, sharing its input's storage) unless `unwritten`: every
  // earlier node's Eval then does nothing, and those tensors take no bytes. Nothing is recorded on
  // false. Null where the host fuses nothing.
  bool (*fuse_chain)(TfLiteContext* context, const int* nodes, int count, bool unwritten) = nullptr;
  // A refusal TensorFlow Lite makes only when the node runs (a check in its Eval that its Prepare
  // does not make): the kernel's Prepare reports it here, with a message naming what is refused, and
  // returns kTfLiteOk; the runtime then fails the node's Invoke with it, without calling the kernel's
  // Eval. Null where the host has no such channel (RefuseAtInvoke then refuses in Prepare).
  void (*refuse_at_invoke)(TfLiteContext* context, const TfLiteNode* node, const char* message) = nullptr;
  // Where a kernel computes what TFLite 2.14.1 computes rather than the op's definition, it says so
  // here; the runtime prints "WARNING: <message>" once per interpreter. Null: printed every time.
  void (*warn)(TfLiteContext* context, const char* message) = nullptr;
  // Which code runs a node: an optimized kernel says from its Prepare whether it takes its own path
  // for this node's configuration (true) or runs the reference kernel's Eval (false), so that tools
  // can report the node's kernel (Subgraph::node_kernel). Null where the host records nothing.
  void (*note_kernel)(TfLiteContext* context, const TfLiteNode* node, bool optimized) = nullptr;
  // What note_kernel recorded for a node at its last Prepare: 1 its own optimized path, 0 the
  // reference kernel's Eval, -1 not known (not prepared yet, or not a CPU kernel). A delegate's
  // partitioning asks, to leave a node to the optimized kernel only where that kernel takes it.
  int (*cpu_kernel_state)(TfLiteContext* context, const TfLiteNode* node) = nullptr;
  // For a kernel's fusion (ProducerOfInput): `node`'s index, and the node of the plan before it whose
  // one output is `node`'s input `input` (-1: none). False where `node` is no node of the plan being
  // prepared. Answered from maps of that plan, without a walk over it. Null where the host keeps none.
  bool (*input_producer)(TfLiteContext* context, const TfLiteNode* node, int input, int* self, int* producer) = nullptr;
  // A kernel that has copied constant bytes into a form of its own (packed weights, float16 weights
  // expanded to float32) and will not read them again says so here. Where they lie in a model file
  // mapped read-only, the runtime unmaps their whole pages (the page cache keeps them; a later read
  // maps them again, the same bytes), so the weights are not resident twice. Null where the host
  // keeps every page.
  void (*constant_copied)(TfLiteContext* context, const void* data, size_t bytes) = nullptr;
};

// NoteKernel through the context's CpuBackendContext, where the host has one.
inline void NoteKernel(TfLiteContext* context, const TfLiteNode* node, bool optimized);
// CpuBackendContext::constant_copied, where the host has it.
inline void ConstantCopied(TfLiteContext* context, const void* data, size_t bytes);

// The context's CPU backend, or null when it has none.
inline CpuBackendContext* GetCpuBackendContext(TfLiteContext* context);

// Formats a message a kernel reports about TFLite's behaviour and hands it to the host's channel:
// a refusal TFLite makes at invoke (CpuBackendContext::refuse_at_invoke; without the channel it is
// logged as the kernel's error and kTfLiteError returned) or a difference from the op's definition
// that TFLite makes (CpuBackendContext::warn; without it a WARNING line on stderr).
enum class BackendMessage { kRefusalAtInvoke, kTfliteDifference };
inline TfLiteStatus SendBackendMessage(TfLiteContext* context, const TfLiteNode* node, BackendMessage kind,
                                       const char* format, va_list args) {
  char message[512];
  std::vsnprintf(message, sizeof(message), format, args);
  CpuBackendContext* backend = GetCpuBackendContext(context);
  if (kind == BackendMessage::kRefusalAtInvoke) {
    if (backend == nullptr || backend->refuse_at_invoke == nullptr) {
      TF_LITE_KERNEL_LOG(context, "%s", message);
      return kTfLiteError;
    }
    backend->refuse_at_invoke(context, node, message);
  } else if (backend != nullptr && backend->warn != nullptr) {
    backend->warn(context, message);
  } else {
    std::fprintf(stderr, "WARNING: %s\n", message);
  }
  return kTfLiteOk;
}

// Reports a refusal TFLite makes at invoke; returns what the kernel's Prepare returns: kTfLiteOk, or
// kTfLiteError (with the message logged) where the host has no channel for it.
inline TfLiteStatus RefuseAtInvoke(TfLiteContext* context, const TfLiteNode* node, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const TfLiteStatus status = SendBackendMessage(context, node, BackendMessage::kRefusalAtInvoke, format, args);
  va_end(args);
  return status;
}

// Reports a difference from the op's definition that TFLite makes.
inline void WarnTfliteDifference(TfLiteContext* context, const char* format, ...) {
  va_list args;
  va_start(args, format);
  SendBackendMessage(context, nullptr, BackendMessage::kTfliteDifference, format, args);
  va_end(args);
}

inline void NoteKernel(TfLiteContext* context, const TfLiteNode* node, bool optimized) {
  CpuBackendContext* backend = GetCpuBackendContext(context);
  if (backend != nullptr && backend->note_kernel != nullptr) backend->note_kernel(context, node, optimized);
}

inline void ConstantCopied(TfLiteContext* context, const void* data, size_t bytes) {
  CpuBackendContext* backend = GetCpuBackendContext(context);
  if (backend != nullptr && backend->constant_copied != nullptr) backend->constant_copied(context, data, bytes);
}

inline CpuBackendContext* GetCpuBackendContext(TfLiteContext* context) {
  if (context == nullptr || context->GetExternalContext == nullptr) return nullptr;
  TfLiteExternalContext* external = context->GetExternalContext(context, kTfLiteCpuBackendContext);
  if (external == nullptr || external->type != kTfLiteCpuBackendContext) return nullptr;
  return static_cast<CpuBackendContext*>(external);
}

inline TaskRunner* GetTaskRunner(TfLiteContext* context) {
  CpuBackendContext* backend = GetCpuBackendContext(context);
  return backend != nullptr ? backend->runner : nullptr;
}

// Threads a kernel may use (1 without a pool).
inline int NumThreads(TfLiteContext* context) {
  TaskRunner* runner = GetTaskRunner(context);
  return runner != nullptr ? runner->num_threads() : 1;
}

// Calls f(begin, end) over contiguous chunks of [0, n): on the pool when there is one, else once
// on the calling thread. max_chunks sets the number of chunks (see TaskRunner::ParallelFor).
template <typename F>
void ParallelFor(TaskRunner* runner, int64_t n, F&& f, int max_chunks = 0) {
  if (n <= 0) return;
  if (runner == nullptr || runner->num_threads() <= 1 || n == 1 || max_chunks == 1) {
    f(int64_t{0}, n);
    return;
  }
  using Fn = typename std::remove_reference<F>::type;
  runner->ParallelFor(
      n, [](void* state, int64_t begin, int64_t end) { (*static_cast<Fn*>(state))(begin, end); },
      const_cast<void*>(static_cast<const void*>(&f)), max_chunks);
}

template <typename F>
void ParallelFor(TfLiteContext* context, int64_t n, F&& f, int max_chunks = 0) {
  ParallelFor(GetTaskRunner(context), n, std::forward<F>(f), max_chunks);
}

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_KERNELS_CPU_BACKEND_CONTEXT_H_
