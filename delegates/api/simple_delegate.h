// TensorFlow Lite's SimpleDelegate API (tensorflow/lite/delegates/utils/simple_delegate.h), with the
// same names, signatures and meaning, over Touchstone's C API, so a delegate written for TFLite moves
// over with only its include lines changed.
//
// - SimpleDelegateKernelInterface: one delegated partition; Init / Prepare / Eval are called like a
//   TFLite kernel's init / prepare / invoke.
// - SimpleDelegateInterface: what the delegate supports and how it likes the graph partitioned.
// - TfLiteDelegateFactory: wraps a SimpleDelegateInterface into the TfLiteDelegate C struct that
//   Interpreter::ModifyGraphWithDelegate takes.
//
// When the interpreter applies such a delegate, its Prepare: calls Initialize, asks
// IsNodeSupportedByDelegate for every node of the execution plan, previews the partitioning of the
// supported nodes (context->PreviewDelegatePartitioning), keeps the largest max_delegated_partitions
// partitions of at least min_nodes_per_partition nodes, logs
// "INFO: <Name> delegate: N nodes delegated out of M nodes with K partitions." to stderr and replaces
// the kept nodes with one delegate kernel per partition.
#ifndef TOUCHSTONE_DELEGATES_API_SIMPLE_DELEGATE_H_
#define TOUCHSTONE_DELEGATES_API_SIMPLE_DELEGATE_H_

#include <cstdint>
#include <memory>

#include "runtime/c/common.h"

namespace tflite {

using TfLiteDelegateUniquePtr = std::unique_ptr<TfLiteDelegate, void (*)(TfLiteDelegate*)>;

// One delegated partition of the graph. An instance is created per partition; the interpreter owns it
// through the delegate kernel node and deletes it when the node goes.
class SimpleDelegateKernelInterface {
 public:
  virtual ~SimpleDelegateKernelInterface() = default;

  // Called once when the partition becomes a delegate kernel node. params->nodes_to_replace lists the
  // original nodes (still reachable through context->GetNodeAndRegistration), input_tensors and
  // output_tensors the partition's boundary tensors. A failure leaves the kernel uninitialized; its
  // Prepare then fails ("Delegate kernel was not initialized"), as in TFLite.
  virtual TfLiteStatus Init(TfLiteContext* context, const TfLiteDelegateParams* params) = 0;

  // Called whenever tensors are (re)allocated: check shapes, resize outputs, compile.
  virtual TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node) = 0;

  // Runs the partition. Tensor data pointers may change between calls.
  virtual TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node) = 0;
};

// A delegate's capabilities, and the factory of its kernels.
class SimpleDelegateInterface {
 public:
  // How the graph should be partitioned for this delegate.
  struct Options {
    // At most this many partitions are delegated, the largest ones; <= 0: no limit.
    int max_delegated_partitions = 0;
    // Partitions with fewer nodes are left to the CPU kernels; <= 0: no limit.
    int min_nodes_per_partition = 0;
  };

  virtual ~SimpleDelegateInterface() = default;

  // True when the delegate can run `node` (with its `registration`).
  virtual bool IsNodeSupportedByDelegate(const TfLiteRegistration* registration, const TfLiteNode* node,
                                         TfLiteContext* context) const = 0;

  // Called at the start of every application to a graph, before nodes are examined.
  virtual TfLiteStatus Initialize(TfLiteContext* context) = 0;

  // The delegate's name, for logs and profiles; also the delegate kernel nodes' custom_name.
  virtual const char* Name() const = 0;

  // A new kernel for one partition; the caller owns it.
  virtual std::unique_ptr<SimpleDelegateKernelInterface> CreateDelegateKernelInterface() = 0;

  // Partitioning options. Not pure here (TFLite's guide example does not override it): the default
  // is no limit on count or size.
  virtual SimpleDelegateInterface::Options DelegateOptions() const { return Options(); }

  // Optional hardware-buffer support, TFLite's defaults: copies fail, freeing does nothing.
  // Copies the delegate buffer `buffer_handle` into tensor->data.
  virtual TfLiteStatus CopyFromBufferHandle(TfLiteContext* context, TfLiteBufferHandle buffer_handle,
                                            TfLiteTensor* tensor) {
    return kTfLiteError;
  }
  // Copies tensor->data into the delegate buffer `buffer_handle`.
  virtual TfLiteStatus CopyToBufferHandle(TfLiteContext* context, TfLiteBufferHandle buffer_handle,
                                          const TfLiteTensor* tensor) {
    return kTfLiteError;
  }
  // Frees the handle only, not the resource behind it.
  virtual void FreeBufferHandle(TfLiteContext* context, TfLiteBufferHandle* handle) {}
};

// Creates and deletes TfLiteDelegates backed by a SimpleDelegateInterface.
class TfLiteDelegateFactory {
 public:
  // The returned delegate owns `simple_delegate`; free it with DeleteSimpleDelegate. `flags` are
  // TfLiteDelegateFlags bits (e.g. kTfLiteDelegateFlagsAllowDynamicTensors). Null for null.
  static TfLiteDelegate* CreateSimpleDelegate(std::unique_ptr<SimpleDelegateInterface> simple_delegate,
                                              int64_t flags = kTfLiteDelegateFlagsNone);

  // Deletes a delegate from CreateSimpleDelegate and its SimpleDelegateInterface; null is a no-op.
  static void DeleteSimpleDelegate(TfLiteDelegate* delegate);

  // Both of the above in a unique_ptr.
  inline static TfLiteDelegateUniquePtr Create(std::unique_ptr<SimpleDelegateInterface> simple_delegate) {
    return TfLiteDelegateUniquePtr(CreateSimpleDelegate(std::move(simple_delegate)), DeleteSimpleDelegate);
  }
};

}  // namespace tflite

#endif  // TOUCHSTONE_DELEGATES_API_SIMPLE_DELEGATE_H_
