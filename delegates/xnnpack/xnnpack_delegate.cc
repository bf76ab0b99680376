#include "delegates/xnnpack/xnnpack_delegate.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "delegates/api/simple_delegate.h"
#include "delegates/xnnpack/xnnpack_graph.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/c/profiler.h"
#include "runtime/logging.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

std::string TensorLabel(TfLiteContext* context, int index) {
  const TfLiteTensor& t = context->tensors[index];
  return "tensor " + std::to_string(index) + (t.name != nullptr ? std::string(" '") + t.name + "'" : "");
}

// One delegated partition: an XNNPACK runtime built once in Init from the tensors' shapes at that
// time (static shapes), run by Eval.
// Work below which a partition that shares the graph with CPU kernels runs on the calling thread, in
// multiply-adds (or elements written, for ops that compute no products): about 20 us on one core.
constexpr int64_t kThreadedPartitionCost = 200000;

// A partition's work: multiply-adds of its convolutions and products (output elements times the
// weights each reads), elements written by the rest.
int64_t PartitionCost(TfLiteContext* context, const std::vector<std::pair<TfLiteNode*, TfLiteRegistration*>>& nodes) {
  int64_t cost = 0;
  for (const auto& entry : nodes) {
    const TfLiteNode* node = entry.first;
    int64_t written = 0;
    for (int k = 0; k < node->outputs->size; ++k) {
      if (node->outputs->data[k] >= 0) written += ElementCount(ShapeOf(&context->tensors[node->outputs->data[k]]));
    }
    int64_t per_element = 1;
    const int op = entry.second->builtin_code;
    if ((op == kTfLiteBuiltinConv2d || op == kTfLiteBuiltinFullyConnected || op == kTfLiteBuiltinTransposeConv) &&
        node->inputs->size > 1 && node->inputs->data[1] >= 0) {
      const TfLiteTensor& weights = context->tensors[node->inputs->data[1]];
      // Weights [out, ..., in]: each output reads all but the first dimension.
      per_element = std::max<int64_t>(1, ElementCount(ShapeOf(&weights)) / std::max(1, weights.dims->data[0]));
    } else if (op == kTfLiteBuiltinDepthwiseConv2d && node->inputs->size > 1 && node->inputs->data[1] >= 0) {
      const TfLiteTensor& weights = context->tensors[node->inputs->data[1]];  // [1, h, w, channels]
      per_element = weights.dims->size == 4 ? std::max(1, weights.dims->data[1] * weights.dims->data[2]) : 1;
    } else if (op == kTfLiteBuiltinBatchMatmul && node->inputs->size > 0 && node->inputs->data[0] >= 0) {
      const TfLiteTensor& lhs = context->tensors[node->inputs->data[0]];
      per_element = lhs.dims->size > 0 ? std::max(1, lhs.dims->data[lhs.dims->size - 1]) : 1;
    }
    cost += written * per_element;
  }
  return cost;
}

// XNNPACK's thread pool, started when the first partition that runs on it is built. Its workers
// spin for a while once started (and pthreadpool_create waits for them), so a pool started with the
// delegate took a CPU from the whole Init on 2 threads, also for the many graphs the delegate takes
// nothing of (deeplabv3: ~0.8 ms more Init than on 1 thread).
class LazyThreadpool {
 public:
  explicit LazyThreadpool(int num_threads) : num_threads_(num_threads) {}
  ~LazyThreadpool() {
    if (pool_ != nullptr) pthreadpool_destroy(pool_);
  }
  LazyThreadpool(const LazyThreadpool&) = delete;
  LazyThreadpool& operator=(const LazyThreadpool&) = delete;

  // The pool (null for one thread, or when it cannot be created: *error then says why).
  pthreadpool_t Get(std::string* error) {
    if (pool_ == nullptr && num_threads_ > 1) {
      pool_ = pthreadpool_create(static_cast<size_t>(num_threads_));
      if (pool_ == nullptr) *error = "cannot create a pthreadpool of " + std::to_string(num_threads_) + " threads";
    }
    return pool_;
  }

 private:
  const int num_threads_;
  pthreadpool_t pool_ = nullptr;
};

class XnnpackKernel : public tflite::SimpleDelegateKernelInterface {
 public:
  XnnpackKernel(uint32_t flags, LazyThreadpool* threadpool, const xnnpack::GraphInfo& info)
      : flags_(flags), threadpool_(threadpool), info_(info) {}

  ~XnnpackKernel() override {
    if (runtime_ != nullptr) xnn_delete_runtime(runtime_);
    if (subgraph_ != nullptr) xnn_delete_subgraph(subgraph_);
  }

  TfLiteStatus Init(TfLiteContext* context, const TfLiteDelegateParams* params) override {
    translator_ = std::make_unique<xnnpack::GraphTranslator>(context, flags_, &info_);
    TfLiteIntArray* plan = nullptr;
    shares_the_graph_ = context->GetExecutionPlan(context, &plan) == kTfLiteOk && plan != nullptr &&
                        params->nodes_to_replace->size < plan->size;
    std::vector<std::pair<TfLiteNode*, TfLiteRegistration*>> nodes;
    for (int i = 0; i < params->nodes_to_replace->size; ++i) {
      const int index = params->nodes_to_replace->data[i];
      TfLiteNode* node = nullptr;
      TfLiteRegistration* registration = nullptr;
      if (context->GetNodeAndRegistration(context, index, &node, &registration) != kTfLiteOk) {
        TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: node %d is not in the graph", index);
        return kTfLiteError;
      }
      if (!translator_->Check(index, node, registration)) {
        TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: node %d cannot be delegated: %s", index,
                           translator_->why_not().c_str());
        return kTfLiteError;
      }
      node_indices_.push_back(index);
      nodes.emplace_back(node, registration);
    }
    std::set<int> inputs, outputs;
    for (int i = 0; i < params->input_tensors->size; ++i) {
      const int t = params->input_tensors->data[i];
      if (t >= 0) inputs.insert(t);
    }
    for (int i = 0; i < params->output_tensors->size; ++i) {
      const int t = params->output_tensors->data[i];
      if (t < 0) continue;
      if (translator_->IsFolded(t)) {
        folded_outputs_.push_back(t);  // weights the interpreter's other nodes read: filled by Eval
      } else {
        outputs.insert(t);
      }
    }
    xnn_subgraph_t subgraph = nullptr;
    enum xnn_status status = xnn_create_subgraph(
        static_cast<uint32_t>(xnnpack::GraphTranslator::Boundary(inputs, outputs).size()), 0, &subgraph);
    if (status != xnn_status_success) {
      TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: xnn_create_subgraph failed (status %d)", status);
      return kTfLiteError;
    }
    // Nodes whose results nobody reads (no later node of the partition, not a partition output) are
    // left out: XNNPACK gives such values no memory and would fail on them.
    std::vector<bool> live(nodes.size(), false);
    std::set<int> needed(outputs.begin(), outputs.end());
    for (size_t i = nodes.size(); i-- > 0;) {
      const TfLiteNode* node = nodes[i].first;
      for (int k = 0; k < node->outputs->size; ++k) live[i] = live[i] || needed.count(node->outputs->data[k]) != 0;
      if (!live[i]) continue;
      for (int k = 0; k < node->inputs->size; ++k) needed.insert(node->inputs->data[k]);
    }
    translator_->BeginDefine(subgraph, inputs, outputs);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!live[i]) continue;
      if (!translator_->Define(node_indices_[i], nodes[i].first, nodes[i].second)) {
        TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: node %d: %s", node_indices_[i], translator_->why_not().c_str());
        xnn_delete_subgraph(subgraph);
        return kTfLiteError;
      }
    }
    if (translator_->nodes_defined() > 0) {
      // A partition that shares the graph with CPU kernels yields XNNPACK's workers when it ends: they
      // would spin beside the interpreter's own pool on the same CPUs (on 2 threads the conformer ran
      // 7x slower). A delegation of the whole graph keeps them spinning between Invokes, as TFLite.
      runtime_flags_ = ((flags_ & TFLITE_XNNPACK_DELEGATE_FLAG_FORCE_FP16) != 0 ? XNN_FLAG_FORCE_FP16_INFERENCE : 0) |
                       (shares_the_graph_ ? XNN_FLAG_YIELD_WORKERS : 0);
      // A small partition runs on the calling thread: waking XNNPACK's workers costs more than its work
      // (a RESHAPE between two convolutions; hello_world_int8's whole graph: 2.6 us on 2 threads, 0.24
      // on the caller), and among CPU kernels they would then compete with the interpreter's pool.
      on_caller_ = PartitionCost(context, nodes) < kThreadedPartitionCost;
      subgraph_ = subgraph;
      subgraph = nullptr;
      // The runtime (XNNPACK packs its weights there, and the first threaded one starts the pool, whose
      // workers then spin beside the rest of Init) is created at the first Eval, as the optimized
      // kernels pack theirs; float16 inference is created now, so that a build without it refuses the
      // partition at Init.
      if ((runtime_flags_ & XNN_FLAG_FORCE_FP16_INFERENCE) != 0 && CreateRuntime(context) != kTfLiteOk) {
        return kTfLiteError;
      }
    }
    if (subgraph != nullptr) xnn_delete_subgraph(subgraph);
    // The tensors XNNPACK reads and writes in place, and their shapes now.
    for (int t : inputs) {
      if (translator_->IsFolded(t) || context->tensors[t].allocation_type == kTfLiteMmapRo) continue;
      if (translator_->HasValue(t)) externals_.push_back(t);
    }
    for (int t : outputs) {
      if (translator_->HasValue(t)) externals_.push_back(t);
    }
    for (int t : externals_) shapes_.push_back(ShapeString(&context->tensors[t]));
    return kTfLiteOk;
  }

  TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node) override {
    for (size_t i = 0; i < externals_.size(); ++i) {
      const std::string now = ShapeString(&context->tensors[externals_[i]]);
      if (now != shapes_[i]) {
        TF_LITE_KERNEL_LOG(context,
                           "XNNPACK delegate: %s is now %s but the delegated graph was built for %s; the delegate "
                           "takes static shapes only",
                           TensorLabel(context, externals_[i]).c_str(), now.c_str(), shapes_[i].c_str());
        return kTfLiteError;
      }
    }
    set_up_.clear();  // buffers may have moved
    return kTfLiteOk;
  }

  TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node) override {
    for (int t : folded_outputs_) {
      TfLiteTensor& tensor = context->tensors[t];
      const std::vector<float>* data = translator_->FoldedData(t);
      if (tensor.data.raw == nullptr || data == nullptr) {
        TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: %s has no buffer", TensorLabel(context, t).c_str());
        return kTfLiteError;
      }
      std::memcpy(tensor.data.raw, data->data(), tensor.bytes);
    }
    if (runtime_ == nullptr) {
      if (creation_failed_) {
        TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: the partition's runtime could not be created");
        return kTfLiteError;
      }
      if (subgraph_ == nullptr) return kTfLiteOk;  // nothing defined: folded weights only
      TF_LITE_ENSURE_STATUS(CreateRuntime(context));
    }
    // Compared in place with the pointers last set up: nothing is allocated when they did not move.
    bool moved = set_up_.size() != externals_.size();
    for (size_t i = 0; i < externals_.size(); ++i) {
      const void* data = context->tensors[externals_[i]].data.raw;
      if (data == nullptr) {
        TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: %s has no buffer", TensorLabel(context, externals_[i]).c_str());
        return kTfLiteError;
      }
      moved = moved || set_up_[i] != data;
    }
    // Debian's XNNPACK has no per-operator profiling (no xnn_get_runtime_profiling_info), so a profiler
    // sees the partition's two calls as its ops, numbered by the partition's first node.
    auto* profiler = static_cast<tflite::Profiler*>(context->profiler);
    const int first_node = node_indices_.empty() ? -1 : node_indices_.front();
    if (moved) {
      TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE(profiler, "xnn_setup_runtime", first_node);
      std::vector<xnn_external_value> values(externals_.size());
      set_up_.assign(externals_.size(), nullptr);
      for (size_t i = 0; i < externals_.size(); ++i) {
        values[i].id = translator_->ExternalId(externals_[i]);
        values[i].data = context->tensors[externals_[i]].data.raw;
      }
      const enum xnn_status status = xnn_setup_runtime(runtime_, values.size(), values.data());
      if (status != xnn_status_success) {
        TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: xnn_setup_runtime failed (status %d)", status);
        set_up_.clear();
        return kTfLiteError;
      }
      for (size_t i = 0; i < externals_.size(); ++i) set_up_[i] = values[i].data;
    }
    enum xnn_status status;
    {
      TFLITE_SCOPED_DELEGATE_OPERATOR_PROFILE(profiler, "xnn_invoke_runtime", first_node);
      status = xnn_invoke_runtime(runtime_);
    }
    if (status != xnn_status_success) {
      TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: xnn_invoke_runtime failed (status %d)", status);
      return kTfLiteError;
    }
    return kTfLiteOk;
  }

 private:
  // Creates the runtime from subgraph_ (then deleted).
  TfLiteStatus CreateRuntime(TfLiteContext* context) {
    pthreadpool_t pool = nullptr;
    if (!on_caller_) {
      std::string error;
      pool = threadpool_->Get(&error);
      if (!error.empty()) {
        TF_LITE_KERNEL_LOG(context, "XNNPACK delegate: %s", error.c_str());
        return kTfLiteError;  // subgraph_ kept: the next Eval tries again
      }
    }
    const enum xnn_status status = xnn_create_runtime_v2(subgraph_, pool, runtime_flags_, &runtime_);
    xnn_delete_subgraph(subgraph_);
    subgraph_ = nullptr;
    if (status == xnn_status_success) return kTfLiteOk;
    runtime_ = nullptr;
    creation_failed_ = true;  // every later Eval fails too, instead of skipping the partition
    if ((runtime_flags_ & XNN_FLAG_FORCE_FP16_INFERENCE) != 0) {
      TF_LITE_KERNEL_LOG(context,
                         "XNNPACK delegate: this XNNPACK cannot run the partition of %d nodes in float16 "
                         "(--xnnpack_force_fp16): xnn_create_runtime_v2 failed (status %d)",
                         static_cast<int>(node_indices_.size()), status);
    } else {
      TF_LITE_KERNEL_LOG(context,
                         "XNNPACK delegate: xnn_create_runtime_v2 failed for a partition of %d nodes (status %d)",
                         static_cast<int>(node_indices_.size()), status);
    }
    return kTfLiteError;
  }

  const uint32_t flags_;
  LazyThreadpool* const threadpool_;  // the delegate's
  const xnnpack::GraphInfo info_;
  bool shares_the_graph_ = false;  // CPU kernels run other nodes of the graph
  // Owns the static data the runtime reads; declared before runtime_ so it is destroyed after it.
  std::unique_ptr<xnnpack::GraphTranslator> translator_;
  xnn_subgraph_t subgraph_ = nullptr;  // defined at Init, until the runtime is created from it
  xnn_runtime_t runtime_ = nullptr;
  uint32_t runtime_flags_ = 0;
  bool on_caller_ = false;  // the runtime runs on the calling thread, without the pool
  bool creation_failed_ = false;
  std::vector<int> node_indices_;
  std::vector<int> externals_;       // the tensors XNNPACK reads or writes in place
  std::vector<std::string> shapes_;  // of externals_, when built
  std::vector<int> folded_outputs_;
  std::vector<void*> set_up_;  // pointers last given to xnn_setup_runtime
};

class XnnpackDelegate : public tflite::SimpleDelegateInterface {
 public:
  XnnpackDelegate(const TfLiteXNNPackDelegateOptions& options, const XnnpackExtraOptions& extra)
      : options_(options), threadpool_(options.num_threads), extra_(extra) {}

  bool IsNodeSupportedByDelegate(const TfLiteRegistration* registration, const TfLiteNode* node,
                                 TfLiteContext* context) const override {
    xnnpack::GraphTranslator translator(context, options_.flags, &info_, &extra_);
    if (translator.RefusesEightBitOutput(node)) return false;
    // The graph is analysed for the first node that needs it: an 8-bit graph the flags leave to the
    // CPU kernels never does.
    if (!analyzed_) {
      info_ = xnnpack::AnalyzeGraph(context);
      analyzed_ = true;
    }
    return translator.Check(-1, node, registration);
  }

  TfLiteStatus Initialize(TfLiteContext* context) override {
    if (!announced_) {
      // TFLite's line, printed when the delegate first meets a graph (a tool that fails before that,
      // on a missing model say, prints only its error).
      LogInfo("Created TensorFlow Lite XNNPACK delegate for CPU.");
      announced_ = true;
    }
    info_ = xnnpack::GraphInfo();
    analyzed_ = false;
    return kTfLiteOk;
  }

  const char* Name() const override { return kXnnpackDelegateName; }

  std::unique_ptr<tflite::SimpleDelegateKernelInterface> CreateDelegateKernelInterface() override {
    return std::make_unique<XnnpackKernel>(options_.flags, &threadpool_, info_);
  }

 private:
  const TfLiteXNNPackDelegateOptions options_;
  LazyThreadpool threadpool_;
  const XnnpackExtraOptions extra_;
  // Of the subgraph being delegated, analysed when IsNodeSupportedByDelegate first needs it (the
  // graph does not change while the delegate looks at it).
  mutable xnnpack::GraphInfo info_;
  mutable bool analyzed_ = false;
  bool announced_ = false;
};

}  // namespace

TfLiteDelegate* CreateXnnpackDelegate(const TfLiteXNNPackDelegateOptions& options, std::string* error,
                                      const XnnpackExtraOptions& extra) {
  const enum xnn_status status = xnn_initialize(nullptr);
  if (status != xnn_status_success) {
    *error = status == xnn_status_unsupported_hardware
                 ? "XNNPACK does not support this processor (xnn_initialize: unsupported hardware)"
                 : "xnn_initialize failed (status " + std::to_string(status) + ")";
    return nullptr;
  }
  return tflite::TfLiteDelegateFactory::CreateSimpleDelegate(std::make_unique<XnnpackDelegate>(options, extra));
}

bool XnnpackSupportsNode(TfLiteContext* context, int node_index, uint32_t flags, std::string* why,
                         const XnnpackExtraOptions& extra) {
  TfLiteNode* node = nullptr;
  TfLiteRegistration* registration = nullptr;
  if (context->GetNodeAndRegistration(context, node_index, &node, &registration) != kTfLiteOk) {
    *why = "no node " + std::to_string(node_index);
    return false;
  }
  const xnnpack::GraphInfo info = xnnpack::AnalyzeGraph(context);
  xnnpack::GraphTranslator translator(context, flags, &info, &extra);
  const bool ok = translator.Check(node_index, node, registration);
  *why = translator.why_not();
  return ok;
}

}  // namespace touchstone

TfLiteXNNPackDelegateOptions TfLiteXNNPackDelegateOptionsDefault() {
  TfLiteXNNPackDelegateOptions options;
  options.num_threads = 1;
  options.flags = TFLITE_XNNPACK_DELEGATE_FLAG_QS8 | TFLITE_XNNPACK_DELEGATE_FLAG_QU8;
  return options;
}

TfLiteDelegate* TfLiteXNNPackDelegateCreate(const TfLiteXNNPackDelegateOptions* options) {
  const TfLiteXNNPackDelegateOptions resolved = options != nullptr ? *options : TfLiteXNNPackDelegateOptionsDefault();
  std::string error;
  TfLiteDelegate* delegate = touchstone::CreateXnnpackDelegate(resolved, &error);
  if (delegate == nullptr) touchstone::LogError("XNNPACK delegate: {}", error);
  return delegate;
}

void TfLiteXNNPackDelegateDelete(TfLiteDelegate* delegate) {
  tflite::TfLiteDelegateFactory::DeleteSimpleDelegate(delegate);
}
