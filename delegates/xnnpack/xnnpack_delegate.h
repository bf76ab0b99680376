// The XNNPACK delegate: runs the parts of a graph that XNNPACK can take on Debian's libxnnpack
// (git 2022-02-16, the subgraph API of that era: xnn_define_* nodes, xnn_create_runtime_v2,
// xnn_setup_runtime, xnn_invoke_runtime) over a pthreadpool of num_threads threads. The C API mirrors
// TensorFlow Lite's (tensorflow/lite/delegates/xnnpack/xnnpack_delegate.h): options with num_threads
// and flags, TfLiteXNNPackDelegateCreate / TfLiteXNNPackDelegateDelete.
//
// What it takes (docs/xnnpack.md has the table and the numerical agreement measured):
// - float32: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, TRANSPOSE_CONV, ADD, SUB, MUL, DIV,
//   MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, AVERAGE_POOL_2D, MAX_POOL_2D, MEAN (over height and width),
//   SOFTMAX (beta 1), LOGISTIC, HARD_SWISH, ELU, LEAKY_RELU, PRELU, RELU, RELU6, RELU_N1_TO_1,
//   RELU_0_TO_1, ABS, CEIL, FLOOR, NEG, ROUND, SQUARE, SQRT, PAD, PADV2, RESHAPE, SQUEEZE, EXPAND_DIMS,
//   RESIZE_BILINEAR, DEPTH_TO_SPACE, and DEQUANTIZE of constant float16/int8/uint8 weights (folded
//   into float32 weights once, as TFLite's delegate does);
// - int8 (flag QS8) and uint8 (flag QU8): CONV_2D and DEPTHWISE_CONV_2D (int8 weights per tensor or
//   per channel), FULLY_CONNECTED and TRANSPOSE_CONV (per-tensor weights), ADD, SUB, MUL, MAX_POOL_2D,
//   AVERAGE_POOL_2D and MEAN when they average a whole feature map, LOGISTIC, the RELU family and PAD
//   with unchanged quantization, RESHAPE, SQUEEZE, EXPAND_DIMS, RESIZE_BILINEAR, QUANTIZE (float to
//   int8/uint8) and DEQUANTIZE (int8/uint8 to float).
// Everything else, and any node whose tensors have no static shape (dynamic tensors, zero-sized or
// rank > 6 tensors, shapes that disagree with the op), stays on the interpreter's kernels.
#ifndef TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_DELEGATE_H_
#define TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_DELEGATE_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "runtime/c/common.h"

// Flags, TFLite's names and values.
#define TFLITE_XNNPACK_DELEGATE_FLAG_QS8 0x00000001
#define TFLITE_XNNPACK_DELEGATE_FLAG_QU8 0x00000002
#define TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16 0x00000004

struct TfLiteXNNPackDelegateOptions {
  // Threads of the delegate's pthreadpool; <= 1: XNNPACK runs on the calling thread (no pool).
  int32_t num_threads;
  // TFLITE_XNNPACK_DELEGATE_FLAG_* bits.
  uint32_t flags;
};

// num_threads 1, flags QS8 | QU8 (the int8 and uint8 operators on, as in TFLite builds with
// XNNPACK's quantized support).
TfLiteXNNPackDelegateOptions TfLiteXNNPackDelegateOptionsDefault();

// Null options mean the defaults. Null when XNNPACK cannot run on this machine (the reason goes to
// stderr). Prints TFLite's "INFO: Created TensorFlow Lite XNNPACK delegate for CPU." when first applied
// to a graph.
TfLiteDelegate* TfLiteXNNPackDelegateCreate(const TfLiteXNNPackDelegateOptions* options);
void TfLiteXNNPackDelegateDelete(TfLiteDelegate* delegate);

namespace touchstone {

// Name() of the delegate: TFLite's, also the custom_name of its kernel nodes (op profiles show it).
constexpr char kXnnpackDelegateName[] = "TfLiteXNNPackDelegate";

// Touchstone's options beyond TFLite's (not part of the C API).
struct XnnpackExtraOptions {
  // Builtin ops whose float32 nodes the delegate leaves to the interpreter: the provider's
  // --xnnpack_fp32=auto puts the ops with an optimized float kernel here where those run on AVX-512.
  std::set<int> declined_float_builtins;
  // Where the host says which kernel a node's CPU registration prepared to run (1: its own optimized
  // path, 0: the reference kernel's, -1: not known), a declined op's node is left to the interpreter
  // only when that is 1 (or not known): a node the optimized kernel would run through the reference
  // kernel goes to XNNPACK when it can take it. Empty: every node of a declined op is left.
  std::function<int(TfLiteContext* context, const TfLiteNode* node)> cpu_kernel_state;
  // Builtin ops whose float32 nodes the delegate leaves to the interpreter whatever cpu_kernel_state
  // says: RESHAPE and its kin, which the interpreter runs without a copy (their output shares the
  // input's storage) where XNNPACK would copy and split the graph into more partitions.
  std::set<int> always_declined_float_builtins;
};

// As TfLiteXNNPackDelegateCreate, but on failure returns null with *error saying why (one line).
TfLiteDelegate* CreateXnnpackDelegate(const TfLiteXNNPackDelegateOptions& options, std::string* error,
                                      const XnnpackExtraOptions& extra = {});

// Whether the delegate would take node `node_index` of `context`'s execution plan as it stands, and
// if not, why (for tests and diagnostics). `flags` and `extra` as the delegate's.
bool XnnpackSupportsNode(TfLiteContext* context, int node_index, uint32_t flags, std::string* why,
                         const XnnpackExtraOptions& extra = {});

}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_XNNPACK_XNNPACK_DELEGATE_H_
