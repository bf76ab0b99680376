#include "delegates/api/simple_delegate.h"

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "delegates/api/graph_partition_helper.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/logging.h"

namespace tflite {
namespace {

SimpleDelegateInterface* SimpleDelegateOf(TfLiteDelegate* delegate) {
  return static_cast<SimpleDelegateInterface*>(delegate->data_);
}

// The registration of the delegate kernel nodes: each node owns one SimpleDelegateKernelInterface.
TfLiteRegistration DelegateKernelRegistration(SimpleDelegateInterface* delegate) {
  TfLiteRegistration registration{};
  registration.builtin_code = kTfLiteBuiltinDelegate;
  registration.custom_name = delegate->Name();
  registration.version = 1;
  registration.init = [](TfLiteContext* context, const char* buffer, size_t) -> void* {
    const auto* params = reinterpret_cast<const TfLiteDelegateParams*>(buffer);
    if (params == nullptr || params->delegate == nullptr) {
      TF_LITE_KERNEL_LOG(context, "NULL TfLiteDelegateParams passed.");
      return nullptr;
    }
    std::unique_ptr<SimpleDelegateKernelInterface> kernel =
        SimpleDelegateOf(params->delegate)->CreateDelegateKernelInterface();
    if (kernel == nullptr || kernel->Init(context, params) != kTfLiteOk) return nullptr;
    return kernel.release();
  };
  registration.free = [](TfLiteContext*, void* buffer) { delete static_cast<SimpleDelegateKernelInterface*>(buffer); };
  registration.prepare = [](TfLiteContext* context, TfLiteNode* node) -> TfLiteStatus {
    if (node->user_data == nullptr) {
      TF_LITE_KERNEL_LOG(context, "Delegate kernel was not initialized");
      return kTfLiteError;
    }
    return static_cast<SimpleDelegateKernelInterface*>(node->user_data)->Prepare(context, node);
  };
  registration.invoke = [](TfLiteContext* context, TfLiteNode* node) -> TfLiteStatus {
    if (node->user_data == nullptr) {
      TF_LITE_KERNEL_LOG(context, "Delegate kernel was not initialized");
      return kTfLiteError;
    }
    return static_cast<SimpleDelegateKernelInterface*>(node->user_data)->Eval(context, node);
  };
  return registration;
}

TfLiteStatus DelegatePrepare(TfLiteContext* context, TfLiteDelegate* base_delegate) {
  SimpleDelegateInterface* delegate = SimpleDelegateOf(base_delegate);
  SimpleDelegateInterface::Options options = delegate->DelegateOptions();
  if (options.max_delegated_partitions <= 0) {
    options.max_delegated_partitions = std::numeric_limits<int>::max();
  }
  TF_LITE_ENSURE_STATUS(delegate->Initialize(context));

  delegates::GraphPartitionHelper helper(
      context, [delegate](TfLiteContext* ctx, TfLiteNode* node, TfLiteRegistration* registration, std::string*) {
        return delegate->IsNodeSupportedByDelegate(registration, node, ctx);
      });
  TF_LITE_ENSURE_STATUS(helper.Partition(nullptr));
  const std::vector<TfLiteDelegateParams*> partitions =
      helper.GetFirstNLargestPartitions(options.max_delegated_partitions, options.min_nodes_per_partition);
  std::vector<int> nodes;
  for (const TfLiteDelegateParams* p : partitions) {
    nodes.insert(nodes.end(), p->nodes_to_replace->data, p->nodes_to_replace->data + p->nodes_to_replace->size);
  }
  // TFLite reports the number of partitions found before the limits apply; Touchstone reports the
  // partitions actually delegated, so the line agrees with the nodes it counts (docs/delegates.md).
  touchstone::LogInfo("{} delegate: {} nodes delegated out of {} nodes with {} partitions.", delegate->Name(),
                      nodes.size(), helper.num_total_nodes(), partitions.size());

  TfLiteIntArray* nodes_to_replace = TfLiteIntArrayCreate(static_cast<int>(nodes.size()));
  for (size_t i = 0; i < nodes.size(); ++i) nodes_to_replace->data[i] = nodes[i];
  const TfLiteStatus status = context->ReplaceNodeSubsetsWithDelegateKernels(
      context, DelegateKernelRegistration(delegate), nodes_to_replace, base_delegate);
  TfLiteIntArrayFree(nodes_to_replace);
  TF_LITE_ENSURE_STATUS(status);

  // A kernel whose Init failed cannot run. TFLite notices when it allocates tensors right after
  // applying the delegate ("Delegate kernel was not initialized") and undoes the delegation; failing
  // here has the same outcome and keeps the kernel's own message next to the failure.
  TfLiteIntArray* plan = nullptr;
  TF_LITE_ENSURE_STATUS(context->GetExecutionPlan(context, &plan));
  for (int i = 0; i < plan->size; ++i) {
    TfLiteNode* node = nullptr;
    TfLiteRegistration* registration = nullptr;
    TF_LITE_ENSURE_STATUS(context->GetNodeAndRegistration(context, plan->data[i], &node, &registration));
    if (node->delegate == base_delegate && node->user_data == nullptr) {
      TF_LITE_KERNEL_LOG(context, "%s delegate: the kernel of node %d failed to initialize", delegate->Name(),
                         plan->data[i]);
      return kTfLiteDelegateError;
    }
  }
  return kTfLiteOk;
}

}  // namespace

TfLiteDelegate* TfLiteDelegateFactory::CreateSimpleDelegate(std::unique_ptr<SimpleDelegateInterface> simple_delegate,
                                                            int64_t flags) {
  if (simple_delegate == nullptr) return nullptr;
  auto* delegate = new TfLiteDelegate(TfLiteDelegateCreate());
  delegate->data_ = simple_delegate.release();
  delegate->Prepare = &DelegatePrepare;
  delegate->flags = flags;
  delegate->CopyFromBufferHandle = [](TfLiteContext* context, TfLiteDelegate* d, TfLiteBufferHandle handle,
                                      TfLiteTensor* tensor) {
    return SimpleDelegateOf(d)->CopyFromBufferHandle(context, handle, tensor);
  };
  delegate->CopyToBufferHandle = [](TfLiteContext* context, TfLiteDelegate* d, TfLiteBufferHandle handle,
                                    TfLiteTensor* tensor) {
    return SimpleDelegateOf(d)->CopyToBufferHandle(context, handle, tensor);
  };
  delegate->FreeBufferHandle = [](TfLiteContext* context, TfLiteDelegate* d, TfLiteBufferHandle* handle) {
    SimpleDelegateOf(d)->FreeBufferHandle(context, handle);
  };
  return delegate;
}

void TfLiteDelegateFactory::DeleteSimpleDelegate(TfLiteDelegate* delegate) {
  if (delegate == nullptr) return;
  delete SimpleDelegateOf(delegate);
  delete delegate;
}

}  // namespace tflite
