// Runs a verified Model: builds each subgraph's tensors and nodes (kernels are TfLiteRegistrations,
// exactly as in TFLite, so delegates later see the graph as TFLite shows it), prepares them, plans
// the memory arena, and invokes. Shapes that depend on data (dynamic tensors) are handled the way
// TFLite handles them: nodes after a dynamic output are prepared again during Invoke.
#ifndef TOUCHSTONE_RUNTIME_INTERPRETER_H_
#define TOUCHSTONE_RUNTIME_INTERPRETER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/aligned_vector.h"
#include "runtime/c/c_api_opaque.h"
#include "runtime/c/common.h"
#include "runtime/delegate_profiler.h"
#include "runtime/kernels/cpu_backend_context.h"
#include "runtime/model.h"
#include "runtime/op_resolver.h"
#include "runtime/op_type_rules.h"
#include "runtime/status.h"
#include "runtime/threadpool.h"

namespace touchstone {

class Interpreter;

// Told about every node Invoke runs (profiling): which subgraph and node, its op name, and how long
// its kernel took. Set with Interpreter::SetNodeObserver; when unset, nothing is timed.
class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  virtual void NodeFinished(int subgraph, int node_index, const std::string& op_name, bool delegated,
                            int64_t duration_us) = 0;
  // An op that the delegate kernel at `node_index` ran inside its Eval, as the delegate reported it
  // through TfLiteContext::profiler (DELEGATE_OPERATOR_INVOKE_EVENT: `op_name` is the event's tag,
  // `op_index` its metadata, the delegate's own numbering). Called before that node's NodeFinished.
  virtual void DelegateOpFinished(int subgraph, int node_index, const std::string& op_name, int op_index,
                                  int64_t duration_us) {
    (void)subgraph;
    (void)node_index;
    (void)op_name;
    (void)op_index;
    (void)duration_us;
  }
};

struct InterpreterOptions {
  KernelSet kernel_set = KernelSet::kOptimized;
  int num_threads = 1;
  // Bound on the iterations of one WHILE op, so a model that loops forever ends with an error.
  int64_t max_loop_iterations = 1000000;
  // Refuse plans whose arena and dynamic tensors together would exceed this (0 = no bound).
  uint64_t max_tensor_bytes = uint64_t{16} << 30;
  // Keep every intermediate tensor readable after Invoke (no arena sharing), for layer-wise diffs.
  bool preserve_all_tensors = false;
  // TFLite's InterpreterOptions::SetEnsureDynamicTensorsAreReleased: during Invoke, free each dynamic
  // tensor's memory right after the last node of the plan that reads or writes it (subgraph inputs
  // and outputs and delegate-held tensors excepted); the producer allocates it again on the next
  // Invoke. Tensors sized during Invoke after a dynamic output (held outside the arena here, where
  // TFLite puts them in its arena) are freed the same way. Ignored with preserve_all_tensors.
  bool ensure_dynamic_tensors_are_released = false;
  // A model can name an operator version above the highest TFLite 2.14.1 registers (a newer converter
  // wrote it). TFLite refuses such a model at load, and so does Touchstone by default; when set, the
  // op runs with the kernel of its highest registered version, after a warning line on stderr.
  bool allow_newer_op_versions = false;
};

// One subgraph: its tensors, nodes and execution plan, behind a TfLiteContext.
class Subgraph {
 public:
  Subgraph(Interpreter* interpreter, int index);
  ~Subgraph();
  Subgraph(const Subgraph&) = delete;
  Subgraph& operator=(const Subgraph&) = delete;

  Status Build(const Model& model, const OpResolver& resolver);
  // Lets `delegate` claim nodes (its Prepare calls ReplaceNodeSubsetsWithDelegateKernels). On failure
  // the graph is restored exactly and the error says why; tensors must be allocated again after.
  Status ModifyGraphWithDelegate(TfLiteDelegate* delegate);
  // Nodes of the execution plan that are delegate kernels.
  int delegated_node_count() const;
  // One node in the plan, and it is a delegate kernel (TFLite's definition of full delegation).
  bool fully_delegated() const;
  Status ResizeInputTensor(int tensor_index, const std::vector<int>& dims);
  Status AllocateTensors();
  Status Invoke();

  int index() const { return index_; }
  const std::string& name() const { return name_; }
  TfLiteContext* context() { return &context_; }
  Interpreter* interpreter() { return interpreter_; }
  size_t tensors_size() const { return tensors_.size(); }
  TfLiteTensor* tensor(int index) { return &tensors_[index]; }
  // True when the node producing tensor `index` was fused into its reader (FuseProducerCallback):
  // nothing computes the tensor, and it has no bytes of its own.
  bool tensor_fused_away(int index) const {
    return std::find(fused_away_.begin(), fused_away_.end(), index) != fused_away_.end();
  }
  const std::vector<int>& inputs() const { return inputs_; }
  const std::vector<int>& outputs() const { return outputs_; }
  const std::vector<int>& execution_plan() const { return execution_plan_; }
  size_t nodes_size() const { return nodes_.size(); }
  const TfLiteNode& node(int index) const { return nodes_[index].node; }
  const TfLiteRegistration& registration(int index) const { return nodes_[index].registration; }
  // "CONV_2D", or the custom op's name.
  const std::string& op_name(int node_index) const { return nodes_[node_index].op_name; }
  // The code that runs a node, after AllocateTensors: "optimized" (an optimized kernel's own path),
  // "reference" (a reference kernel, or an optimized kernel running the reference Eval for this node's
  // configuration), "prepare" (a CPU kernel computed every output once, in Prepare, and marked it
  // read-only: a constant's DEQUANTIZE, DENSIFY or RESHAPE, whose Eval does nothing), or a delegate kernel's
  // name ("XNNPACK", "SampleDelegate").
  const std::string& node_kernel(int node_index) const {
    const NodeEntry& entry = nodes_[node_index];
    if (entry.delegate_params == nullptr) return *entry.kernel;
    return entry.delegate_name.empty() ? kDelegateKernelName : entry.delegate_name;
  }
  // False until the node's first Prepare: one after a dynamic output is prepared during Invoke, and
  // its kernel (node_kernel) chosen then.
  bool node_kernel_known(int node_index) const { return nodes_[node_index].kernel_known; }
  size_t arena_bytes() const { return arena_.size(); }
  // Bytes of prepared constants (Subgraph::PreparedConstant) given back since the last
  // AllocateTensors, which computes them again.
  size_t prepared_released_bytes() const {
    std::lock_guard<std::mutex> lock(prepared_constants_mutex_);
    return prepared_released_bytes_;
  }
  size_t dynamic_bytes() const;
  bool tensors_allocated() const { return allocated_; }
  // True while this subgraph's Invoke runs (control-flow ops refuse to re-enter it).
  bool invoking() const { return invoking_; }
  // Points TfLiteContext::profiler at a DelegateProfiler forwarding to `observer` (null: no profiler).
  void SetNodeObserver(NodeObserver* observer);
  // CpuBackendContext::fuse_producer: whether node `consumer_node` may compute the output of
  // `producer_node` itself; when it may, the producer's inputs are kept until the consumer ran.
  static bool FuseProducerCallback(TfLiteContext* context, int producer_node, int consumer_node);
  // CpuBackendContext::fuse_chain: whether the last of `nodes` may compute the whole chain; when it
  // may, every chain node's inputs are kept until the last ran (and with `unwritten`, the tensors
  // between the nodes take no bytes).
  static bool FuseChainCallback(TfLiteContext* context, const int* nodes, int count, bool unwritten);
  // CpuBackendContext::refuse_at_invoke: the node fails when Invoke reaches it, with `message`.
  static void RefuseAtInvokeCallback(TfLiteContext* context, const TfLiteNode* node, const char* message);
  // CpuBackendContext::warn: "WARNING: <message>" on stderr, once per interpreter.
  static void WarnCallback(TfLiteContext* context, const char* message);
  // CpuBackendContext::note_kernel: records the node's kernel as optimized or reference.
  static void NoteKernelCallback(TfLiteContext* context, const TfLiteNode* node, bool optimized);
  static void ConstantCopiedCallback(TfLiteContext* context, const void* data, size_t bytes);
  static int CpuKernelStateCallback(TfLiteContext* context, const TfLiteNode* node);
  // CpuBackendContext::input_producer, from the maps below.
  static bool InputProducerCallback(TfLiteContext* context, const TfLiteNode* node, int input, int* self,
                                    int* producer);

 private:
  struct NodeEntry {
    TfLiteNode node;
    TfLiteRegistration registration;
    std::string op_name;
    void* builtin_data_owned = nullptr;               // freed with free()
    TfLiteDelegateParams* delegate_params = nullptr;  // delegate kernels only
    bool initialized = false;
    const OpTypeRules* type_rules = nullptr;  // TFLite's type rules for a builtin op, if any
    // Set by Prepare when TFLite refuses the node only as it runs (its types, or a kernel's
    // RefuseAtInvoke): Invoke fails there with this message instead of calling the kernel.
    std::string invoke_refusal;
    // A CPU node's kernel, one of the static names below (a pointer: a node prepared at every Invoke
    // assigns no string); a delegate kernel's is delegate_name (node_kernel()).
    const std::string* kernel = &kReferenceKernelName;
    std::string delegate_name;
    bool kernel_known = false;  // `kernel` is what the node's last Prepare chose
    // The verdict of the type rules for the types the node last had (a node prepared at every
    // Invoke usually keeps its types).
    // Those types, one char per tensor, the inputs' then a separator then the outputs' (empty: not
    // judged yet): within std::string's inline capacity for most nodes, so judging allocates nothing.
    std::string judged_types;
    TypeVerdict judged_verdict = TypeVerdict::kRun;
  };
  static const std::string kReferenceKernelName, kOptimizedKernelName, kPrepareKernelName, kDelegateKernelName;

  // The entry whose node is `node` (a pointer into nodes_), or null.
  NodeEntry* EntryOf(const TfLiteNode* node);

  // TfLiteContext callbacks.
  static TfLiteStatus ResizeTensorCallback(TfLiteContext* context, TfLiteTensor* tensor, TfLiteIntArray* new_size);
  static void ReportErrorCallback(TfLiteContext* context, const char* format, ...);
  static TfLiteStatus AddTensorsCallback(TfLiteContext* context, int tensors_to_add, int* first_new_tensor_index);
  static TfLiteStatus GetExecutionPlanCallback(TfLiteContext* context, TfLiteIntArray** plan);
  static TfLiteStatus GetNodeAndRegistrationCallback(TfLiteContext* context, int node_index, TfLiteNode** node,
                                                     TfLiteRegistration** registration);
  static TfLiteTensor* GetTensorCallback(const TfLiteContext* context, int tensor_index);
  static void* AllocatePersistentBufferCallback(TfLiteContext* context, size_t bytes);
  static TfLiteStatus ReplaceNodeSubsetsCallback(TfLiteContext* context, TfLiteRegistration registration,
                                                 const TfLiteIntArray* nodes_to_replace, TfLiteDelegate* delegate);
  static TfLiteStatus PreviewDelegatePartitioningCallback(TfLiteContext* context,
                                                          const TfLiteIntArray* nodes_to_replace,
                                                          TfLiteDelegateParams** partition_params_array,
                                                          int* num_partitions);
  static TfLiteExternalContext* GetExternalContextCallback(TfLiteContext* context, TfLiteExternalContextType type);
  static void SetExternalContextCallback(TfLiteContext* context, TfLiteExternalContextType type,
                                         TfLiteExternalContext* external_context);
  static TfLiteStatus GetModelMetadataCallback(const TfLiteContext* context, const char* name, const char** ptr,
                                               size_t* bytes);
  // Classic prepare / invoke of a delegate kernel node whose callbacks are in a TfLiteRegistrationExternal
  // (an opaque delegate's): they call the external ones.
  static TfLiteStatus ExternalPrepareTrampoline(TfLiteContext* context, TfLiteNode* node);
  static TfLiteStatus ExternalInvokeTrampoline(TfLiteContext* context, TfLiteNode* node);
  // The external registration of the delegate kernel node `node`, or null.
  const TfLiteRegistrationExternal* ExternalOf(const TfLiteNode* node) const;

  Status BuildTensors(const Model& model, const fb::SubGraph* subgraph);
  Status BuildNodes(const Model& model, const fb::SubGraph* subgraph, const OpResolver& resolver);
  Status BuildSparseTensor(const Model& model, const fb::SubGraph* subgraph, int index, const uint8_t* buffer,
                           size_t buffer_bytes);
  Status PrepareNodes(size_t first_step, size_t* next_unprepared_step);
  // Runs a builtin node's kernel Prepare behind TFLite's type rules (op_type_rules.h).
  Status PrepareNode(int node_index);
  bool OutputsReadOnly(const TfLiteNode& node) const;
  Status PlanArena(size_t prepared_steps);
  std::vector<int> ShareCopiedStorage(size_t prepared_steps, const std::vector<int>& first,
                                      std::vector<int>* last) const;
  Status CheckOutputsAreWritten() const;
  Status AllocateIndividually(TfLiteTensor* tensor);
  // The stage of a node that failed, named in NodeError's message. A Prepare failure is the model's
  // (invalid input, exit code 3); the others are execution errors (exit code 4).
  enum class NodeStage { kPrepare, kInvoke, kCopyFromDelegateBuffer, kAllocateDynamicOutput };
  Status NodeError(int node_index, NodeStage stage);
  // A builtin op whose version `resolver` does not register: refused naming the op, the version and
  // the versions registered, unless InterpreterOptions::allow_newer_op_versions lets a version above
  // them run with the highest registered kernel.
  Status ResolveUnregisteredVersion(const OpResolver& resolver, int builtin, int version, const std::string& op_name,
                                    const TfLiteRegistration** registration);
  std::vector<struct NodeSubset> Partition(const TfLiteIntArray* nodes_to_replace) const;
  // Whether every node of the plan reads only tensors that no node of the plan writes at or after
  // its own step: then a partition that delegates nothing gives the plan back as it is.
  bool PlanReadsOnlyEarlierOutputs() const;
  void FreeNode(NodeEntry* entry);
  void FreePreviewParams();
  TfLiteStatus EnsureReadable(TfLiteTensor* tensor);
  void ReleaseIndividualAllocations();
  void PlanDynamicTensorRelease();
  // Raises each fused read's tensor's last step (indexed by tensor) to its reader's step.
  void ExtendForFusedReads(std::vector<int>* last_step) const;

  Interpreter* interpreter_;
  int index_;
  std::string name_;
  TfLiteContext context_;
  std::vector<TfLiteTensor> tensors_;
  std::vector<NodeEntry> nodes_;
  std::vector<int> execution_plan_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  TfLiteIntArray* plan_array_ = nullptr;
  // InputProducerCallback's maps of the plan, made when AllocateTensors starts preparing it: per node
  // its step (-1: not in the plan); per tensor the last node of the plan with it as its one output.
  std::vector<int> step_of_node_;
  std::vector<int> single_output_writer_;
  std::vector<TfLiteDelegateParams> preview_params_;
  // TfLiteRegistrationExternal structs: the ones this host makes for delegates to read (one per node a
  // delegate asked about, node_index set), and the ones opaque delegates handed over with their kernels
  // (node_index -1; made with C++ new in the delegate's .so, freed here with delete, as TFLite does).
  std::deque<TfLiteRegistrationExternal> host_externals_;  // a deque: the pointers handed out stay valid
  std::vector<std::unique_ptr<TfLiteRegistrationExternal>> delegate_externals_;
  std::vector<void*> persistent_buffers_;
  CacheAlignedBuffer arena_;
  // Tensors allocated one by one: variables, and arena tensors of nodes prepared during Invoke.
  std::map<int, CacheAlignedVector<uint8_t>> individual_;          // tensors outside the arena
  std::map<int, CacheAlignedVector<uint8_t>> expanded_constants_;  // sparse constants made dense at load
  std::vector<bool> in_arena_;
  std::string error_;
  bool allocated_ = false;
  // Steps [0, arena_prepared_steps_) were prepared before Invoke and live in the arena; the rest
  // are prepared during Invoke after a node produced a dynamic output.
  size_t arena_prepared_steps_ = 0;
  bool invoking_ = false;
  // Set by AllocateTensors when every node of the plan is prepared and runs on a CPU kernel, no
  // tensor is dynamic or held by a delegate, and every input a node reads has its storage: Invoke then
  // runs the kernels back to back, without the per-node checks (a tiny graph's Invoke is mostly those).
  bool plain_invoke_ = false;
  // The plan's nodes that plain Invoke runs: all but those whose kernel is "prepare" (their outputs
  // were computed in Prepare; their Eval does nothing). Invoke step by step (a profiler or node
  // observer attached) still calls them, so the op profile lists every node, as TFLite's.
  std::vector<int> plain_steps_;
  // TFLite's rule for nodes after a dynamic output: they are prepared again during Invoke only when
  // a tensor changed shape since they were last prepared (TFLite's tensor_resized_since_op_invoke_).
  // invoke_prepare_stops_[step] is where PrepareNodes(step) stopped in an earlier Invoke (0: not
  // prepared since AllocateTensors); resized_since_prepare_ is set by ResizeTensorCallback when a
  // tensor's dims change.
  std::vector<size_t> invoke_prepare_stops_;
  bool resized_since_prepare_ = true;
  std::vector<TfLiteType> prepare_input_types_, prepare_output_types_;  // PrepareNode's scratch
  std::string prepare_types_key_;                                        // the same, as judged_types
  bool ComputePlainInvoke() const;
  // Invoke with preparation during Invoke, released tensors, delegates' buffers or a node observer.
  Status InvokeStepByStep();
  // The conditions of fuse_producer for one link (the producer's output read by the consumer alone).
  bool CanFuse(int producer_node, int consumer_node) const;
  DelegateProfiler delegate_profiler_;
  // ensure_dynamic_tensors_are_released: per plan step, the tensors no later step uses.
  std::vector<std::vector<int>> last_used_at_step_;
  // Tensors a "prepare" node computed in Prepare (kTfLitePersistentRo: a float16 DEQUANTIZE's
  // float32 weights, a DENSIFY's dense ones). When every node that runs and reads one (a producer
  // fused into its consumer does not run; the consumer reads its inputs) has copied it into a form
  // of its own (CpuBackendContext::constant_copied, reported while that node runs), its whole pages
  // are given back: nothing reads it until AllocateTensors computes it again. Kept when a reader may
  // read it later (a delegate kernel, a node prepared during Invoke) or it is a subgraph output.
  struct PreparedConstant {
    std::vector<int> readers;  // counted by AllocateTensors
    std::vector<int> copied_by;
    bool kept = false;
    bool released = false;
  };
  void PlanPreparedConstantRelease();
  // Records that the running node copied `data`; false when `data` is no prepared constant it reads.
  bool PreparedConstantCopied(const void* data, size_t bytes);
  void ReleaseIfAllCopied(int tensor, PreparedConstant* constant);
  std::map<int, PreparedConstant> prepared_constants_;
  bool prepared_constant_released_ = false;
  size_t prepared_released_bytes_ = 0;
  mutable std::mutex prepared_constants_mutex_;  // kernels may copy on pool threads
  int running_node_ = -1;                // the node whose Prepare or Eval runs now
  // Fused nodes (FuseProducerCallback, FuseChainCallback) since the last AllocateTensors: (tensor,
  // node) where node reads tensor, a producer's input, later than the plan shows.
  std::vector<std::pair<int, int>> fused_reads_;
  // Tensors no kernel writes or reads since their producer was fused into their reader: they take
  // no bytes of their own (their data points at the arena's start, so that Invoke's checks pass).
  std::vector<int> fused_away_;
};

// A resource variable (VAR_HANDLE / ASSIGN_VARIABLE / READ_VARIABLE), shared by every subgraph of
// an interpreter, as in TFLite.
struct ResourceVariable {
  TfLiteType type = kTfLiteNoType;
  std::vector<int> dims;
  std::vector<uint8_t> data;
  bool assigned = false;
};

struct SignatureInfo {
  std::string key;
  int subgraph_index = 0;
  std::vector<std::pair<std::string, int>> inputs;  // (signature name, tensor index)
  std::vector<std::pair<std::string, int>> outputs;
};

class Interpreter {
 public:
  // Builds the interpreter; resolver defaults to the built-in ops of options.kernel_set.
  static StatusOr<std::unique_ptr<Interpreter>> Create(std::shared_ptr<const Model> model,
                                                       const InterpreterOptions& options,
                                                       const OpResolver* resolver = nullptr);

  // Errors name the model file first.
  Status ResizeInputTensor(int tensor_index, const std::vector<int>& dims) {
    return WithModelName(primary()->ResizeInputTensor(tensor_index, dims));
  }
  Status AllocateTensors() { return WithModelName(primary()->AllocateTensors()); }
  Status Invoke() { return WithModelName(primary()->Invoke()); }
  // Applies a delegate to every subgraph (see Subgraph::ModifyGraphWithDelegate).
  Status ModifyGraphWithDelegate(TfLiteDelegate* delegate);

  const std::vector<int>& inputs() const { return subgraphs_[0]->inputs(); }
  const std::vector<int>& outputs() const { return subgraphs_[0]->outputs(); }
  TfLiteTensor* tensor(int index) { return primary()->tensor(index); }
  TfLiteTensor* input_tensor(size_t position) { return tensor(inputs()[position]); }
  TfLiteTensor* output_tensor(size_t position) { return tensor(outputs()[position]); }
  size_t tensors_size() const { return subgraphs_[0]->tensors_size(); }

  size_t subgraphs_size() const { return subgraphs_.size(); }
  Subgraph* subgraph(int index) { return subgraphs_[index].get(); }
  Subgraph* primary() { return subgraphs_[0].get(); }

  const std::vector<SignatureInfo>& signatures() const { return signatures_; }
  const SignatureInfo* FindSignature(const std::string& key) const;

  // Resource variables: one id per (container, shared_name), created on first use.
  int ResourceId(const std::string& container, const std::string& shared_name);
  ResourceVariable* resource(int id);
  // Profiling hook (not owned; null to stop).
  // While set, every subgraph's TfLiteContext::profiler forwards delegates' op events to it.
  void SetNodeObserver(NodeObserver* observer);
  NodeObserver* node_observer() const { return observer_; }
  // ThreadPool::Park on the interpreter's pool, where it has one (before a delegate kernel runs).
  void ParkThreadPool() {
    if (thread_pool_ != nullptr) thread_pool_->Park();
  }

  // True the first time a kernel's warning (CpuBackendContext::warn) is reported to this interpreter.
  bool FirstWarning(const std::string& message) { return warnings_.insert(message).second; }

  // CALL_ONCE bookkeeping: true the first time it is asked for `subgraph_index`.
  bool MarkInitialized(int subgraph_index) { return initialized_subgraphs_.insert(subgraph_index).second; }

  const Model& model() const { return *model_; }
  const InterpreterOptions& options() const { return options_; }
  // What TfLiteContext::GetExternalContext answers for every subgraph. kTfLiteCpuBackendContext is
  // the interpreter's CpuBackendContext (its thread pool, of options().num_threads threads, created
  // the first time a kernel asks) unless SetExternalContext replaced it.
  TfLiteExternalContext* external_context(TfLiteExternalContextType type);
  void set_external_context(TfLiteExternalContextType type, TfLiteExternalContext* context);
  // Arena bytes of all subgraphs, and bytes held by dynamic tensors.
  size_t arena_bytes() const;
  size_t dynamic_bytes() const;
  // A kernel's copy of constant bytes (CpuBackendContext::constant_copied): the model unmaps their
  // file pages. Bytes unmapped so far, each range counted once however often it is copied.
  void ConstantCopied(const void* data, size_t bytes);
  size_t weights_released_bytes() const {
    std::lock_guard<std::mutex> lock(released_mutex_);
    return weights_released_bytes_;
  }
  // Bytes of weights computed at Prepare (float16 expanded, sparse made dense) given back now, once
  // every kernel reading them had its own copy (Subgraph::PreparedConstant), all subgraphs.
  size_t prepared_weights_released_bytes() const;

 private:
  Interpreter() = default;
  // An ok status is returned as a new value (elided, not moved: Invoke returns through here).
  Status WithModelName(Status status) const {
    if (status.ok()) return Status();
    return std::move(status).WithContext(model_->name());
  }

  std::shared_ptr<const Model> model_;
  InterpreterOptions options_;
  // Declared before the subgraphs so that it outlives their kernels.
  std::unique_ptr<ThreadPool> thread_pool_;
  CpuBackendContext cpu_backend_context_;
  TfLiteExternalContext* external_contexts_[kTfLiteMaxExternalContexts] = {};
  std::vector<std::unique_ptr<Subgraph>> subgraphs_;
  std::vector<SignatureInfo> signatures_;
  std::map<std::pair<std::string, std::string>, int> resource_ids_;
  std::map<int, ResourceVariable> resources_;
  std::set<int> initialized_subgraphs_;
  // ConstantCopied's ranges (by start) and their total; a kernel may pack on a pool thread.
  mutable std::mutex released_mutex_;
  std::set<const void*> released_ranges_;
  size_t weights_released_bytes_ = 0;
  std::set<std::string> warnings_;
  NodeObserver* observer_ = nullptr;
};

// Runs one signature of the model: its inputs and outputs by their signature names, on the
// signature's subgraph.
class SignatureRunner {
 public:
  SignatureRunner() = default;
  static StatusOr<SignatureRunner> Create(Interpreter* interpreter, const std::string& key);

  const SignatureInfo& info() const { return *info_; }
  // Null when the signature has no input/output of that name.
  TfLiteTensor* input_tensor(const std::string& name);
  TfLiteTensor* output_tensor(const std::string& name);
  Status ResizeInputTensor(const std::string& name, const std::vector<int>& dims);
  Status AllocateTensors() { return subgraph_->AllocateTensors(); }
  Status Invoke() { return subgraph_->Invoke(); }

 private:
  const SignatureInfo* info_ = nullptr;
  Subgraph* subgraph_ = nullptr;
};

}  // namespace touchstone

#endif  // TOUCHSTONE_RUNTIME_INTERPRETER_H_
