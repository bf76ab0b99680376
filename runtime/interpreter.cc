#include "runtime/interpreter.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "runtime/arena_planner.h"
#include "runtime/builtin_options.h"
#include "runtime/c/builtin_ops.h"
#include "runtime/graph_partition.h"
#include "runtime/kernels/internal/sparsity.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/logging.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

// Between a node's input and output types in its judged-types key: no TfLiteType has this value.
constexpr char kTypesKeySeparator = '\x7f';

TfLiteIntArray* IntArrayFrom(const flatbuffers::Vector<int32_t>* values) {
  const int size = values != nullptr ? static_cast<int>(values->size()) : 0;
  TfLiteIntArray* array = TfLiteIntArrayCreate(size);
  for (int i = 0; i < size; ++i) array->data[i] = values->Get(i);
  return array;
}

TfLiteIntArray* IntArrayFrom(const std::vector<int>& values) {
  TfLiteIntArray* array = TfLiteIntArrayCreate(static_cast<int>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) array->data[i] = values[i];
  return array;
}

// Bytes a tensor of this type and shape needs; false on overflow past `limit`.
bool TensorBytes(TfLiteType type, const TfLiteIntArray* dims, uint64_t limit, size_t* bytes) {
  uint64_t count = tflite::TfLiteTypeGetSize(type);
  if (type == kTfLiteInt4) count = 1;  // stored one value per byte when unpacked
  for (int i = 0; i < dims->size; ++i) {
    const int64_t dim = dims->data[i];
    if (dim < 0) return false;
    if (dim != 0 && count > limit / static_cast<uint64_t>(dim)) return false;
    count *= static_cast<uint64_t>(dim);
  }
  if (count > limit) return false;
  *bytes = static_cast<size_t>(count);
  return true;
}

// What a tensor that TensorBytes refused asks for, for the error: the exact byte count where it fits in
// 64 bits (a negative dimension asks for nothing computable).
std::string RequestedBytesText(TfLiteType type, const TfLiteIntArray* dims) {
  unsigned __int128 count = type == kTfLiteInt4 ? 1 : tflite::TfLiteTypeGetSize(type);
  for (int i = 0; i < dims->size; ++i) {
    if (dims->data[i] < 0) return "a negative dimension";
    count *= static_cast<unsigned>(dims->data[i]);
    if (count > UINT64_MAX) return "over 2^64 bytes";
  }
  return std::to_string(static_cast<uint64_t>(count)) + " bytes";
}

Subgraph* SubgraphOf(const TfLiteContext* context) { return static_cast<Subgraph*>(context->impl_); }

}  // namespace

Subgraph::Subgraph(Interpreter* interpreter, int index)
    : interpreter_(interpreter), index_(index), delegate_profiler_(index) {
  std::memset(&context_, 0, sizeof(context_));
  context_.impl_ = this;
  context_.ResizeTensor = ResizeTensorCallback;
  context_.ReportError = ReportErrorCallback;
  context_.AddTensors = AddTensorsCallback;
  context_.GetExecutionPlan = GetExecutionPlanCallback;
  context_.GetNodeAndRegistration = GetNodeAndRegistrationCallback;
  context_.GetTensor = GetTensorCallback;
  context_.AllocatePersistentBuffer = AllocatePersistentBufferCallback;
  context_.GetExternalContext = GetExternalContextCallback;
  context_.SetExternalContext = SetExternalContextCallback;
  context_.ReplaceNodeSubsetsWithDelegateKernels = ReplaceNodeSubsetsCallback;
  context_.PreviewDelegatePartitioning = PreviewDelegatePartitioningCallback;
  context_.GetModelMetadata = GetModelMetadataCallback;  // TFLite's XNNPACK calls it without a NULL check
  context_.recommended_num_threads = interpreter->options().num_threads;
}

void Subgraph::FreeNode(NodeEntry* entry) {
  const TfLiteRegistrationExternal* external = ExternalOf(&entry->node);
  if (entry->initialized && external != nullptr) {
    // As TFLite: an opaque kernel's free is called only for non-null user data.
    if (external->free != nullptr && entry->node.user_data != nullptr) {
      external->free(reinterpret_cast<TfLiteOpaqueContext*>(&context_), entry->node.user_data);
    }
  } else if (entry->initialized && entry->registration.free != nullptr) {
    entry->registration.free(&context_, entry->node.user_data);
  }
  entry->initialized = false;
  TfLiteIntArrayFree(entry->node.inputs);
  TfLiteIntArrayFree(entry->node.outputs);
  TfLiteIntArrayFree(entry->node.intermediates);
  TfLiteIntArrayFree(entry->node.temporaries);
  free(entry->builtin_data_owned);
  if (entry->delegate_params != nullptr) {
    TfLiteIntArrayFree(entry->delegate_params->nodes_to_replace);
    TfLiteIntArrayFree(entry->delegate_params->input_tensors);
    TfLiteIntArrayFree(entry->delegate_params->output_tensors);
    free(entry->delegate_params);
  }
  entry->node = TfLiteNode();
  entry->builtin_data_owned = nullptr;
  entry->delegate_params = nullptr;
}

void Subgraph::FreePreviewParams() {
  for (TfLiteDelegateParams& params : preview_params_) {
    TfLiteIntArrayFree(params.nodes_to_replace);
    TfLiteIntArrayFree(params.input_tensors);
    TfLiteIntArrayFree(params.output_tensors);
  }
  preview_params_.clear();
}

Subgraph::~Subgraph() {
  for (NodeEntry& entry : nodes_) FreeNode(&entry);
  FreePreviewParams();
  for (TfLiteTensor& tensor : tensors_) {
    // Constant and arena data are not the tensor's to free.
    if (tensor.allocation_type == kTfLiteMmapRo || tensor.allocation_type == kTfLiteArenaRw ||
        tensor.allocation_type == kTfLiteArenaRwPersistent) {
      tensor.data.raw = nullptr;
    }
    TfLiteTensorFree(&tensor);
  }
  for (void* buffer : persistent_buffers_) free(buffer);
  TfLiteIntArrayFree(plan_array_);
}

Status Subgraph::Build(const Model& model, const OpResolver& resolver) {
  const fb::SubGraph* subgraph = model.fb()->subgraphs()->Get(index_);
  if (subgraph->name() != nullptr) name_ = subgraph->name()->str();
  TS_RETURN_IF_ERROR(BuildTensors(model, subgraph));
  TS_RETURN_IF_ERROR(BuildNodes(model, subgraph, resolver));
  return Status::Ok();
}

Status Subgraph::BuildTensors(const Model& model, const fb::SubGraph* subgraph) {
  const size_t count = subgraph->tensors() != nullptr ? subgraph->tensors()->size() : 0;
  tensors_.resize(count);
  if (count > 0) std::memset(tensors_.data(), 0, count * sizeof(TfLiteTensor));
  in_arena_.assign(count, false);
  context_.tensors = tensors_.data();
  context_.tensors_size = count;
  const uint64_t limit =
      interpreter_->options().max_tensor_bytes ? interpreter_->options().max_tensor_bytes : UINT64_MAX;
  for (size_t i = 0; i < count; ++i) {
    const fb::Tensor* src = subgraph->tensors()->Get(i);
    TfLiteTensor& t = tensors_[i];
    ConvertTensorType(src->type(), &t.type);  // the loader refused unknown types
    t.dims = IntArrayFrom(src->shape());
    t.dims_signature =
        src->shape_signature() != nullptr ? IntArrayFrom(src->shape_signature()) : IntArrayFrom(src->shape());
    t.name = src->name() != nullptr ? src->name()->c_str() : "";
    t.buffer_handle = -1;
    t.is_variable = src->is_variable();
    // Made only for an error (a string per tensor is a measurable share of Init).
    const auto label = [&]() { return "tensor " + std::to_string(i) + " '" + t.name + "'"; };

    const fb::QuantizationParameters* q = src->quantization();
    if (q != nullptr && q->scale() != nullptr && q->scale()->size() > 0) {
      // The flatbuffer vectors looked up once: per channel, the lookups cost more than the copy.
      const flatbuffers::Vector<float>* scales = q->scale();
      const flatbuffers::Vector<int64_t>* zero_points = q->zero_point();
      const int channels = static_cast<int>(scales->size());
      const int zero_point_count =
          zero_points != nullptr ? static_cast<int>(std::min<flatbuffers::uoffset_t>(zero_points->size(), channels))
                                 : 0;
      auto* affine = static_cast<TfLiteAffineQuantization*>(malloc(sizeof(TfLiteAffineQuantization)));
      affine->scale = TfLiteFloatArrayCreate(channels);
      affine->zero_point = TfLiteIntArrayCreate(channels);
      float* scale_data = affine->scale->data;
      int* zero_point_data = affine->zero_point->data;
      // Copied as stored, little-endian, as constant tensors point straight at their file bytes.
      std::memcpy(scale_data, scales->data(), sizeof(float) * static_cast<size_t>(channels));
      const int64_t* zero_point_values = zero_points != nullptr ? zero_points->data() : nullptr;
      for (int c = 0; c < zero_point_count; ++c) zero_point_data[c] = static_cast<int>(zero_point_values[c]);
      for (int c = zero_point_count; c < channels; ++c) zero_point_data[c] = 0;
      // With one scale the dimension is irrelevant; TFLite refuses an out-of-range one even then
      // (person_detect.tflite); Touchstone reads it as per-tensor (docs/runtime.md).
      affine->quantized_dimension = channels > 1 ? q->quantized_dimension() : 0;
      t.quantization.type = kTfLiteAffineQuantization;
      t.quantization.params = affine;
      t.params.scale = affine->scale->data[0];
      t.params.zero_point = affine->zero_point->data[0];
    }

    const bool sized = t.type != kTfLiteString && t.type != kTfLiteVariant;
    if (sized && !TensorBytes(t.type, t.dims, limit, &t.bytes)) {
      return InvalidInputError(label() + " of shape " + ShapeString(t.dims) + " would need " +
                               RequestedBytesText(t.type, t.dims) + ", more than the tensor memory limit of " +
                               std::to_string(limit) + " bytes");
    }
    size_t buffer_bytes = 0;
    const uint8_t* buffer = model.BufferData(src->buffer(), &buffer_bytes);
    if (buffer != nullptr) {
      if (src->sparsity() != nullptr) {
        TS_RETURN_IF_ERROR(BuildSparseTensor(model, subgraph, static_cast<int>(i), buffer, buffer_bytes));
        continue;
      }
      if (t.type == kTfLiteInt4) {
        // Packed 4-bit weights (two per byte), e.g. blockwise-quantized LLM layers: refused plainly
        // rather than computed wrongly (TFLite 2.14.1 crashes on qwen_fc_blockwise_quantized).
        const bool blockwise = q != nullptr && q->details_type() == fb::QuantizationDetails::BlockwiseQuantization;
        return InvalidInputError(label() + " holds packed 4-bit (INT4) weights" +
                                 (blockwise ? std::string(" with blockwise quantization") : std::string()) +
                                 ", which Touchstone does not run yet");
      }
      if (sized && buffer_bytes != t.bytes) {
        return InvalidInputError(label() + " has " + std::to_string(buffer_bytes) + " bytes of data but its shape " +
                                 ShapeString(t.dims) + " and type " + TfLiteTypeGetName(t.type) + " need " +
                                 std::to_string(t.bytes));
      }
      if (!sized) t.bytes = buffer_bytes;
      if (t.is_variable) {
        t.allocation_type = kTfLiteArenaRwPersistent;  // initialised from the buffer at allocation
      } else {
        t.allocation_type = kTfLiteMmapRo;
        t.data.raw = const_cast<char*>(reinterpret_cast<const char*>(buffer));
      }
    } else {
      t.allocation_type = t.is_variable ? kTfLiteArenaRwPersistent : kTfLiteArenaRw;
    }
  }

  if (subgraph->inputs() != nullptr) inputs_.assign(subgraph->inputs()->begin(), subgraph->inputs()->end());
  if (subgraph->outputs() != nullptr) outputs_.assign(subgraph->outputs()->begin(), subgraph->outputs()->end());
  return Status::Ok();
}

// A sparse constant: DENSIFY's inputs keep the sparse form (the kernel expands it, as in TFLite);
// any other consumer gets it expanded here, once, into storage the subgraph owns.
Status Subgraph::BuildSparseTensor(const Model& model, const fb::SubGraph* subgraph, int index, const uint8_t* buffer,
                                   size_t buffer_bytes) {
  TfLiteTensor& t = tensors_[index];
  const fb::Tensor* src = subgraph->tensors()->Get(index);
  const std::string label = "tensor " + std::to_string(index) + " '" + t.name + "'";
  const size_t element = tflite::TfLiteTypeGetSize(t.type);
  if (element == 0) return InvalidInputError(label + " is sparse but its type has no fixed size");
  std::string why;
  TfLiteSparsity* sparsity = sparsity::SparsityFromFlatbuffer(src->sparsity(), t.dims, element, buffer_bytes, &why);
  if (sparsity == nullptr) return InvalidInputError(label + " has invalid sparsity: " + why);
  bool densify_input = false;
  if (subgraph->operators() != nullptr) {
    for (const fb::Operator* op : *subgraph->operators()) {
      if (model.BuiltinCode(op->opcode_index()) != kTfLiteBuiltinDensify || op->inputs() == nullptr) continue;
      for (int input : *op->inputs()) densify_input |= input == index;
    }
  }
  t.allocation_type = kTfLiteMmapRo;
  if (densify_input) {
    t.sparsity = sparsity;  // freed with the tensor
    t.bytes = buffer_bytes;
    t.data.raw = const_cast<char*>(reinterpret_cast<const char*>(buffer));
    return Status::Ok();
  }
  CacheAlignedVector<uint8_t>& dense = expanded_constants_[index];
  dense.assign(t.bytes, 0);
  const bool ok =
      sparsity::SparseToDense(*sparsity, t.dims, element, buffer, buffer_bytes, dense.data(), t.bytes, &why);
  TfLiteSparsityFree(sparsity);
  if (!ok) return InvalidInputError(label + " has invalid sparsity: " + why);
  t.data.raw = reinterpret_cast<char*>(dense.data());
  return Status::Ok();
}

Status Subgraph::BuildNodes(const Model& model, const fb::SubGraph* subgraph, const OpResolver& resolver) {
  const size_t count = subgraph->operators() != nullptr ? subgraph->operators()->size() : 0;
  // Room for delegate kernels, so pointers a delegate holds during Prepare stay valid.
  nodes_.reserve(2 * count + 16);
  nodes_.resize(count);
  for (NodeEntry& entry : nodes_) std::memset(&entry.node, 0, sizeof(entry.node));
  for (size_t i = 0; i < count; ++i) {
    const fb::Operator* op = subgraph->operators()->Get(i);
    NodeEntry& entry = nodes_[i];
    entry.node.inputs = IntArrayFrom(op->inputs());
    entry.node.outputs = IntArrayFrom(op->outputs());
    entry.node.intermediates = IntArrayFrom(op->intermediates());
    entry.node.temporaries = TfLiteIntArrayCreate(0);
    // Made only for an error (a string per node would cost a large model's Init microseconds).
    const auto where = [&]() { return "subgraph " + std::to_string(index_) + " op " + std::to_string(i); };

    for (int k = 0; k < entry.node.outputs->size; ++k) {
      const int t = entry.node.outputs->data[k];
      if (t >= 0 && tensors_[t].allocation_type == kTfLiteMmapRo) {
        return InvalidInputError(where() + ": output " + std::to_string(k) + " is constant tensor " +
                                 std::to_string(t));
      }
    }

    const fb::OperatorCode* code = model.fb()->operator_codes()->Get(op->opcode_index());
    const int builtin = model.BuiltinCode(op->opcode_index());
    const int version = code->version();
    const TfLiteRegistration* registration = nullptr;
    if (builtin == kTfLiteBuiltinCustom) {
      entry.op_name = code->custom_code()->str();
      registration = resolver.FindOp(entry.op_name.c_str(), version);
      if (registration == nullptr) {
        return InvalidInputError(where() + ": unresolved custom op '" + entry.op_name + "'");
      }
    } else {
      entry.op_name = BuiltinOperatorName(builtin);
      registration = resolver.FindOp(builtin, version);
      if (registration == nullptr) {
        Status status = ResolveUnregisteredVersion(resolver, builtin, version, entry.op_name, &registration);
        if (!status.ok()) return status.WithContext(where() + " (" + entry.op_name + ")");
      }
      entry.type_rules = resolver.TypeRules(builtin);
      Status parsed = ParseBuiltinOptions(op, builtin, &entry.builtin_data_owned);
      if (!parsed.ok()) return parsed.WithContext(where() + " (" + entry.op_name + ")");
    }
    entry.registration = *registration;
    entry.registration.version = version;  // as TFLite's resolver hands it out: delegates check it
    entry.node.builtin_data = entry.builtin_data_owned;
    const char* init_data = reinterpret_cast<const char*>(entry.builtin_data_owned);
    size_t init_length = 0;
    if (builtin == kTfLiteBuiltinCustom) {
      if (op->custom_options() != nullptr) {
        entry.node.custom_initial_data = op->custom_options()->data();
        entry.node.custom_initial_data_size = static_cast<int>(op->custom_options()->size());
      } else if (op->large_custom_options_size() > 0) {
        entry.node.custom_initial_data = model.file_data() + op->large_custom_options_offset();
        entry.node.custom_initial_data_size = static_cast<int>(op->large_custom_options_size());
      }
      init_data = static_cast<const char*>(entry.node.custom_initial_data);
      init_length = static_cast<size_t>(entry.node.custom_initial_data_size);
    }
    if (entry.registration.init != nullptr) {
      error_.clear();
      entry.node.user_data = entry.registration.init(&context_, init_data, init_length);
    }
    entry.initialized = true;
    execution_plan_.push_back(static_cast<int>(i));
  }
  return Status::Ok();
}

Status Subgraph::ResolveUnregisteredVersion(const OpResolver& resolver, int builtin, int version,
                                            const std::string& op_name, const TfLiteRegistration** registration) {
  // The versions the resolver does register (TFLite's op versions stay small).
  constexpr int kHighestVersionProbed = 64;
  int lowest = 0, highest = 0;
  for (int v = 1; v <= kHighestVersionProbed; ++v) {
    if (resolver.FindOp(builtin, v) == nullptr) continue;
    if (lowest == 0) lowest = v;
    highest = v;
  }
  if (highest == 0) return InvalidInputError("op (version " + std::to_string(version) + ") not supported yet");
  if (version > highest && interpreter_->options().allow_newer_op_versions) {
    *registration = resolver.FindOp(builtin, highest);
    LogWarning(
        "{} version {} is newer than TensorFlow Lite 2.14.1 registers; running it with the version {} kernel "
        "(allow_newer_op_versions)",
        op_name, version, highest);
    return Status::Ok();
  }
  return InvalidInputError("version " + std::to_string(version) + " of " + op_name +
                           " is not registered in TensorFlow Lite 2.14.1, which runs versions " +
                           std::to_string(lowest) + " to " + std::to_string(highest) +
                           (version > highest ? " (a newer converter wrote this model; allow_newer_op_versions runs it "
                                                "with the version " +
                                                    std::to_string(highest) + " kernel)"
                                              : ""));
}

Status Subgraph::NodeError(int node_index, NodeStage stage) {
  const char* name = "";
  switch (stage) {
    case NodeStage::kPrepare:
      name = "prepare";
      break;
    case NodeStage::kInvoke:
      name = "invoke";
      break;
    case NodeStage::kCopyFromDelegateBuffer:
      name = "copy from delegate buffer";
      break;
    case NodeStage::kAllocateDynamicOutput:
      name = "allocate dynamic output";
      break;
  }
  std::string message = "subgraph " + std::to_string(index_) + " op " + std::to_string(node_index) + " (" +
                        nodes_[node_index].op_name + "): " + name + " failed";
  if (!error_.empty()) message += ": " + error_;
  error_.clear();
  return Status(stage == NodeStage::kPrepare ? StatusCode::kInvalidInput : StatusCode::kExecution, message);
}

Status Subgraph::ResizeInputTensor(int tensor_index, const std::vector<int>& dims) {
  if (std::find(inputs_.begin(), inputs_.end(), tensor_index) == inputs_.end()) {
    return UsageError("tensor " + std::to_string(tensor_index) + " is not an input of subgraph " +
                      std::to_string(index_));
  }
  TfLiteTensor& t = tensors_[tensor_index];
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0) {
      return UsageError(std::string("input '") + t.name + "' cannot take a negative dimension");
    }
    // A fixed dimension of the signature may not change (TFLite's ResizeInputTensorStrict rule is
    // looser; we follow TFLite's ResizeInputTensor, which allows any shape).
  }
  size_t bytes = 0;
  TfLiteIntArray* new_dims = IntArrayFrom(dims);
  const uint64_t limit =
      interpreter_->options().max_tensor_bytes ? interpreter_->options().max_tensor_bytes : UINT64_MAX;
  if (!TensorBytes(t.type, new_dims, limit, &bytes)) {
    const std::string shape = ShapeString(new_dims);
    const std::string asked = RequestedBytesText(t.type, new_dims);
    TfLiteIntArrayFree(new_dims);
    return UsageError(std::string("input '") + t.name + "' of shape " + shape + " would need " + asked +
                      ", more than the tensor memory limit of " + std::to_string(limit) + " bytes");
  }
  TfLiteIntArrayFree(t.dims);
  t.dims = new_dims;
  t.bytes = bytes;
  allocated_ = false;
  plain_invoke_ = false;
  return Status::Ok();
}

Status Subgraph::PrepareNodes(size_t first_step, size_t* next_unprepared_step) {
  if (first_step == 0) {
    step_of_node_.assign(nodes_.size(), -1);
    single_output_writer_.assign(tensors_.size(), -1);
    for (size_t step = 0; step < execution_plan_.size(); ++step) {
      const int node_index = execution_plan_[step];
      step_of_node_[node_index] = static_cast<int>(step);
      const TfLiteIntArray* outputs = nodes_[node_index].node.outputs;
      if (outputs->size == 1 && outputs->data[0] >= 0) single_output_writer_[outputs->data[0]] = node_index;
    }
  }
  for (size_t step = first_step; step < execution_plan_.size(); ++step) {
    const int node_index = execution_plan_[step];
    NodeEntry& entry = nodes_[node_index];
    running_node_ = node_index;
    Status prepared = PrepareNode(node_index);
    running_node_ = -1;
    TS_RETURN_IF_ERROR(prepared);
    bool has_dynamic_output = false;
    for (int k = 0; k < entry.node.outputs->size; ++k) {
      const int t = entry.node.outputs->data[k];
      if (t >= 0 && tensors_[t].allocation_type == kTfLiteDynamic) has_dynamic_output = true;
    }
    if (invoking_) {
      // Prepared during Invoke: give its outputs and temporaries storage of their own.
      for (const TfLiteIntArray* list : {entry.node.outputs, entry.node.temporaries}) {
        for (int k = 0; k < list->size; ++k) {
          const int t = list->data[k];
          if (t >= 0) TS_RETURN_IF_ERROR(AllocateIndividually(&tensors_[t]));
        }
      }
    }
    if (has_dynamic_output) {
      *next_unprepared_step = step + 1;
      return Status::Ok();
    }
  }
  *next_unprepared_step = execution_plan_.size();
  return Status::Ok();
}

const std::string Subgraph::kReferenceKernelName = "reference";
const std::string Subgraph::kOptimizedKernelName = "optimized";
const std::string Subgraph::kPrepareKernelName = "prepare";
const std::string Subgraph::kDelegateKernelName = "delegate";

Subgraph::NodeEntry* Subgraph::EntryOf(const TfLiteNode* node) {
  if (node == nullptr || nodes_.empty()) return nullptr;
  const uintptr_t first = reinterpret_cast<uintptr_t>(&nodes_[0].node);
  const uintptr_t at = reinterpret_cast<uintptr_t>(node);
  if (at < first || (at - first) % sizeof(NodeEntry) != 0) return nullptr;
  const size_t index = (at - first) / sizeof(NodeEntry);
  return index < nodes_.size() && &nodes_[index].node == node ? &nodes_[index] : nullptr;
}

Status Subgraph::PrepareNode(int node_index) {
  NodeEntry& entry = nodes_[node_index];
  entry.invoke_refusal.clear();
  entry.kernel_known = false;
  // A delegate kernel by its delegate's name; a CPU kernel is the reference one unless an optimized
  // kernel's Prepare says otherwise (NoteKernelCallback).
  entry.kernel = &kReferenceKernelName;
  if (entry.delegate_params != nullptr) {
    entry.delegate_name = entry.registration.custom_name != nullptr ? entry.registration.custom_name : "delegate";
  }
  TypeVerdict verdict = TypeVerdict::kRun;
  std::string refusal;
  if (entry.type_rules != nullptr && entry.node.delegate == nullptr) {
    // Member scratch: a node prepared at every Invoke allocates nothing here.
    std::vector<TfLiteType>& input_types = prepare_input_types_;
    std::vector<TfLiteType>& output_types = prepare_output_types_;
    input_types.clear();
    output_types.clear();
    for (int k = 0; k < entry.node.inputs->size; ++k) {
      const int t = entry.node.inputs->data[k];
      input_types.push_back(t >= 0 ? tensors_[t].type : kTfLiteNoType);
    }
    for (int k = 0; k < entry.node.outputs->size; ++k) {
      const int t = entry.node.outputs->data[k];
      output_types.push_back(t >= 0 ? tensors_[t].type : kTfLiteNoType);
    }
    const int rank = entry.node.inputs->size > 0 && entry.node.inputs->data[0] >= 0
                         ? tensors_[entry.node.inputs->data[0]].dims->size
                         : 0;
    if (entry.type_rules->max_input_rank > 0 && rank > entry.type_rules->max_input_rank) {
      // TFLite's Prepare checks the rank before anything its Eval refuses.
      error_ = entry.op_name + " takes inputs of rank " + std::to_string(entry.type_rules->max_input_rank) +
               " at most in TensorFlow Lite 2.14.1, got rank " + std::to_string(rank);
      return NodeError(node_index, NodeStage::kPrepare);
    }
    std::string& types_key = prepare_types_key_;
    types_key.clear();
    for (const TfLiteType type : input_types) types_key.push_back(static_cast<char>(type));
    types_key.push_back(kTypesKeySeparator);
    for (const TfLiteType type : output_types) types_key.push_back(static_cast<char>(type));
    if (entry.judged_types != types_key) {  // the key always holds the separator, so never empty
      entry.judged_verdict = JudgeTypes(*entry.type_rules, input_types, output_types);
      entry.judged_types = types_key;
    }
    verdict = entry.judged_verdict;
    // Built only for a refusal: nodes prepared at every Invoke (after a dynamic output) pay nothing.
    if (verdict != TypeVerdict::kRun) {
      refusal = entry.op_name + " does not take " + TypeSignatureText(input_types, output_types) +
                " in TensorFlow Lite 2.14.1 (refused at " +
                (verdict == TypeVerdict::kRefuseAtInvoke ? "invoke" : "prepare") + ")";
    }
  }
  if (verdict == TypeVerdict::kRefuseAtPrepare) {
    error_ = refusal;
    return NodeError(node_index, NodeStage::kPrepare);
  }
  if (entry.registration.prepare != nullptr) {
    error_.clear();
    const TfLiteStatus prepared = entry.registration.prepare(&context_, &entry.node);
    // Types TFLite refuses only in Eval: its Prepare ran (sizing the outputs where it could) and
    // the node fails when it runs, whatever our kernel's Prepare made of those types.
    if (verdict == TypeVerdict::kRefuseAtInvoke) {
      error_.clear();
      entry.invoke_refusal = refusal;
      return Status::Ok();
    }
    if (prepared != kTfLiteOk) return NodeError(node_index, NodeStage::kPrepare);
  } else if (verdict == TypeVerdict::kRefuseAtInvoke) {
    entry.invoke_refusal = refusal;
  }
  if (entry.kernel == &kReferenceKernelName && entry.delegate_params == nullptr &&
      entry.registration.builtin_code != kTfLiteBuiltinCustom && OutputsReadOnly(entry.node)) {
    entry.kernel = &kPrepareKernelName;
  }
  entry.kernel_known = true;
  return Status::Ok();
}

// True when every output of `node` is kTfLitePersistentRo: its kernel wrote them in Prepare and no
// Eval may write them again (TFLite's contract for that allocation type).
bool Subgraph::OutputsReadOnly(const TfLiteNode& node) const {
  if (node.outputs == nullptr || node.outputs->size == 0) return false;
  for (int k = 0; k < node.outputs->size; ++k) {
    const int t = node.outputs->data[k];
    if (t < 0 || tensors_[t].allocation_type != kTfLitePersistentRo) return false;
  }
  return true;
}

void Subgraph::RefuseAtInvokeCallback(TfLiteContext* context, const TfLiteNode* node, const char* message) {
  NodeEntry* entry = SubgraphOf(context)->EntryOf(node);
  if (entry != nullptr) entry->invoke_refusal = message;
}

int Subgraph::CpuKernelStateCallback(TfLiteContext* context, const TfLiteNode* node) {
  Subgraph* self = SubgraphOf(context);
  // Over the reference kernel set no node has an optimized kernel to compare with.
  if (self->interpreter_->options().kernel_set == KernelSet::kReference) return -1;
  const NodeEntry* entry = self->EntryOf(node);
  if (entry == nullptr || !entry->kernel_known || entry->delegate_params != nullptr) return -1;
  return entry->kernel == &kOptimizedKernelName ? 1 : 0;
}

bool Subgraph::InputProducerCallback(TfLiteContext* context, const TfLiteNode* node, int input, int* self,
                                     int* producer) {
  Subgraph* s = SubgraphOf(context);
  const NodeEntry* entry = s->EntryOf(node);
  if (entry == nullptr || input < 0 || node->inputs->size <= input) return false;
  const int index = static_cast<int>(entry - s->nodes_.data());
  if (static_cast<size_t>(index) >= s->step_of_node_.size() || s->step_of_node_[index] < 0) return false;
  *self = index;
  *producer = -1;
  const int tensor = node->inputs->data[input];
  if (tensor < 0 || static_cast<size_t>(tensor) >= s->single_output_writer_.size()) return true;
  const int writer = s->single_output_writer_[tensor];
  if (writer >= 0 && s->step_of_node_[writer] < s->step_of_node_[index]) *producer = writer;
  return true;
}

void Subgraph::ConstantCopiedCallback(TfLiteContext* context, const void* data, size_t bytes) {
  Subgraph* self = SubgraphOf(context);
  if (!self->PreparedConstantCopied(data, bytes)) self->interpreter_->ConstantCopied(data, bytes);
}

bool Subgraph::PreparedConstantCopied(const void* data, size_t bytes) {
  const int node = running_node_;
  if (node < 0 || data == nullptr) return false;
  auto is_copied = [&](int t) {
    return t >= 0 && tensors_[t].allocation_type == kTfLitePersistentRo && tensors_[t].data.raw == data;
  };
  int tensor = -1;
  const TfLiteIntArray* inputs = nodes_[node].node.inputs;
  for (int k = 0; k < inputs->size && tensor < 0; ++k) {
    if (is_copied(inputs->data[k])) tensor = inputs->data[k];
  }
  for (size_t i = 0; i < fused_reads_.size() && tensor < 0; ++i) {
    if (fused_reads_[i].second == node && is_copied(fused_reads_[i].first)) tensor = fused_reads_[i].first;
  }
  if (tensor < 0) return false;
  // Part of it copied: the rest may still be read.
  if (bytes < tensors_[tensor].bytes) return true;
  std::lock_guard<std::mutex> lock(prepared_constants_mutex_);
  PreparedConstant& constant = prepared_constants_[tensor];
  if (std::find(constant.copied_by.begin(), constant.copied_by.end(), node) == constant.copied_by.end()) {
    constant.copied_by.push_back(node);
  }
  ReleaseIfAllCopied(tensor, &constant);
  return true;
}

void Subgraph::ReleaseIfAllCopied(int tensor, PreparedConstant* constant) {
  if (constant->released || constant->kept || constant->readers.empty()) return;
  for (int reader : constant->readers) {
    if (std::find(constant->copied_by.begin(), constant->copied_by.end(), reader) == constant->copied_by.end()) return;
  }
  constant->released = true;
  prepared_constant_released_ = true;
  prepared_released_bytes_ += ReleaseWholePages(tensors_[tensor].data.raw, tensors_[tensor].bytes);
}

void Subgraph::PlanPreparedConstantRelease() {
  // Copies reported while the nodes were prepared (a DEQUANTIZE of a DENSIFY's output).
  std::map<int, PreparedConstant> reported;
  reported.swap(prepared_constants_);
  if (interpreter_->options().preserve_all_tensors) return;
  for (size_t step = 0; step < arena_prepared_steps_; ++step) {
    const NodeEntry& entry = nodes_[execution_plan_[step]];
    if (entry.kernel != &kPrepareKernelName) continue;
    for (int k = 0; k < entry.node.outputs->size; ++k) {
      const int t = entry.node.outputs->data[k];
      if (t >= 0 && tensors_[t].delegate == nullptr && tensors_[t].data.raw != nullptr) prepared_constants_[t];
    }
  }
  if (prepared_constants_.empty()) return;
  for (int t : outputs_) {
    auto it = prepared_constants_.find(t);
    if (it != prepared_constants_.end()) it->second.kept = true;
  }
  auto add_reader = [&](int t, int node) {
    auto it = t >= 0 ? prepared_constants_.find(t) : prepared_constants_.end();
    if (it == prepared_constants_.end()) return;
    PreparedConstant& constant = it->second;
    const int step = step_of_node_[node];
    if (step < 0 || static_cast<size_t>(step) >= arena_prepared_steps_ || nodes_[node].node.delegate != nullptr) {
      constant.kept = true;
    }
    if (std::find(constant.readers.begin(), constant.readers.end(), node) == constant.readers.end()) {
      constant.readers.push_back(node);
    }
  };
  // A producer fused into its consumer does no work of its own (its one output is fused away).
  std::vector<bool> fused_producer(nodes_.size(), false);
  for (int t : fused_away_) {
    const int writer = t >= 0 && static_cast<size_t>(t) < single_output_writer_.size() ? single_output_writer_[t] : -1;
    if (writer >= 0) fused_producer[writer] = true;
  }
  for (int node : execution_plan_) {
    if (fused_producer[node]) continue;
    const TfLiteIntArray* inputs = nodes_[node].node.inputs;
    for (int k = 0; k < inputs->size; ++k) add_reader(inputs->data[k], node);
  }
  for (const auto& [t, node] : fused_reads_) add_reader(t, node);
  for (auto& [t, constant] : prepared_constants_) {
    auto it = reported.find(t);
    if (it != reported.end()) constant.copied_by = std::move(it->second.copied_by);
    ReleaseIfAllCopied(t, &constant);
  }
}

void Interpreter::ConstantCopied(const void* data, size_t bytes) {
  // Unmapped every time (a second Prepare may have read them again), counted the first time.
  const size_t released = model_->ReleasePages(data, bytes);
  std::lock_guard<std::mutex> lock(released_mutex_);
  if (released_ranges_.insert(data).second) weights_released_bytes_ += released;
}

void Subgraph::NoteKernelCallback(TfLiteContext* context, const TfLiteNode* node, bool optimized) {
  NodeEntry* entry = SubgraphOf(context)->EntryOf(node);
  if (entry != nullptr && entry->delegate_params == nullptr) {
    entry->kernel = optimized ? &kOptimizedKernelName : &kReferenceKernelName;
  }
}

void Subgraph::WarnCallback(TfLiteContext* context, const char* message) {
  Subgraph* self = SubgraphOf(context);
  if (self->interpreter_->FirstWarning(message)) LogWarning("{}", message);
}

Status Subgraph::AllocateIndividually(TfLiteTensor* tensor) {
  if (tensor->allocation_type != kTfLiteArenaRw && tensor->allocation_type != kTfLiteArenaRwPersistent) {
    return Status::Ok();
  }
  const int index = static_cast<int>(tensor - tensors_.data());
  if (in_arena_[index]) return Status::Ok();
  CacheAlignedVector<uint8_t>& storage = individual_[index];
  // Slack so vectorised kernels and delegates may read a little past the end.
  if (storage.size() < tensor->bytes + 16) storage.resize(tensor->bytes + 16);
  tensor->data.raw = reinterpret_cast<char*>(storage.data());
  return Status::Ok();
}

void Subgraph::ReleaseIndividualAllocations() {
  for (auto it = individual_.begin(); it != individual_.end();) {
    if (tensors_[it->first].allocation_type == kTfLiteArenaRwPersistent) {
      ++it;
    } else {
      tensors_[it->first].data.raw = nullptr;
      it = individual_.erase(it);
    }
  }
}

Status Subgraph::PlanArena(size_t prepared_steps) {
  const int num_steps = static_cast<int>(execution_plan_.size());
  const int kUnset = -2;
  std::vector<int> first(tensors_.size(), kUnset);
  std::vector<int> last(tensors_.size(), kUnset);
  for (int t : inputs_) {
    if (t >= 0) first[t] = -1, last[t] = std::max(last[t], -1);
  }
  for (int step = 0; step < num_steps; ++step) {
    const TfLiteNode& node = nodes_[execution_plan_[step]].node;
    for (int k = 0; k < node.inputs->size; ++k) {
      const int t = node.inputs->data[k];
      if (t < 0) continue;
      if (first[t] == kUnset) {
        // Read before anything writes it: it must be a graph input, a constant or a variable.
        if (tensors_[t].allocation_type == kTfLiteArenaRw && tensors_[t].bytes > 0 &&
            std::find(inputs_.begin(), inputs_.end(), t) == inputs_.end()) {
          return InvalidInputError("subgraph " + std::to_string(index_) + " op " +
                                   std::to_string(execution_plan_[step]) + " (" +
                                   nodes_[execution_plan_[step]].op_name + "): input tensor " + std::to_string(t) +
                                   " lacks data (no constant buffer, not a graph input, and no op writes it)");
        }
        first[t] = -1;
      }
      last[t] = std::max(last[t], step);
    }
    for (const TfLiteIntArray* list : {node.outputs, node.temporaries, node.intermediates}) {
      for (int k = 0; k < list->size; ++k) {
        const int t = list->data[k];
        if (t < 0) continue;
        if (first[t] == kUnset) first[t] = step;
        last[t] = std::max(last[t], step);
      }
    }
  }
  // Graph outputs live to the end; graph inputs too, so a second Invoke sees the same inputs (the
  // caller sets them once), as in TFLite.
  for (int t : outputs_) {
    if (t >= 0) last[t] = num_steps;
  }
  for (int t : inputs_) {
    if (t >= 0) last[t] = num_steps;
  }
  if (interpreter_->options().preserve_all_tensors) {
    for (int& l : last) l = num_steps;
  }
  ExtendForFusedReads(&last);
  const std::vector<int> storage = ShareCopiedStorage(prepared_steps, first, &last);

  std::vector<ArenaRequest> requests;
  std::vector<int> request_tensor;
  in_arena_.assign(tensors_.size(), false);
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TfLiteTensor& tensor = tensors_[t];
    if (tensor.allocation_type != kTfLiteArenaRw || storage[t] != static_cast<int>(t)) continue;
    const bool produced_early = first[t] != kUnset && first[t] < static_cast<int>(prepared_steps);
    const bool is_input = first[t] == -1;
    if (!produced_early && !is_input) continue;
    const bool fused_away = std::find(fused_away_.begin(), fused_away_.end(), static_cast<int>(t)) != fused_away_.end();
    requests.push_back({fused_away ? 0 : tensor.bytes, first[t], last[t]});
    request_tensor.push_back(static_cast<int>(t));
  }
  const touchstone::ArenaPlan plan = touchstone::PlanArena(requests);
  const uint64_t limit = interpreter_->options().max_tensor_bytes;
  if (limit != 0 && plan.arena_bytes > limit) {
    return InvalidInputError("the tensor arena would need " + std::to_string(plan.arena_bytes) +
                             " bytes, more than the tensor memory limit of " + std::to_string(limit) + " bytes");
  }
  // The arena starts a cache line, so the planner's aligned offsets are aligned addresses; 16 bytes
  // of slack let vectorised kernels read a little past the last tensor.
  static_assert(kCacheLineBytes % kArenaAlignmentBytes == 0, "arena offsets must stay aligned");
  arena_.Resize(plan.arena_bytes + 16);
  for (size_t r = 0; r < requests.size(); ++r) {
    TfLiteTensor& tensor = tensors_[request_tensor[r]];
    tensor.data.raw = reinterpret_cast<char*>(arena_.data() + plan.offsets[r]);
    in_arena_[request_tensor[r]] = true;
  }
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (storage[t] == static_cast<int>(t)) continue;
    tensors_[t].data.raw = tensors_[storage[t]].data.raw;
    in_arena_[t] = true;
  }
  return Status::Ok();
}

// RESHAPE, SQUEEZE and EXPAND_DIMS outputs (BuiltinOpResolver::CopiesInputUnchanged) take their
// input's storage, which then lives as long as either: the copy goes (a conformer has 42 such nodes,
// ~5 ms of copies on 2 threads). Only between tensors of this plan's arena that no one else can see
// or write: not a graph input or output, not held by a delegate, not fused away. Returns, per
// tensor, the tensor whose storage it uses (itself when it has its own).
std::vector<int> Subgraph::ShareCopiedStorage(size_t prepared_steps, const std::vector<int>& first,
                                              std::vector<int>* last) const {
  std::vector<int> storage(tensors_.size());
  std::iota(storage.begin(), storage.end(), 0);
  const auto shareable = [&](int t) {
    const TfLiteTensor& tensor = tensors_[t];
    return tensor.allocation_type == kTfLiteArenaRw && tensor.bytes > 0 && tensor.type != kTfLiteString &&
           tensor.delegate == nullptr && tensor.buffer_handle < 0 && !tensor_fused_away(t) &&
           std::find(inputs_.begin(), inputs_.end(), t) == inputs_.end() &&
           std::find(outputs_.begin(), outputs_.end(), t) == outputs_.end();
  };
  for (size_t step = 0; step < prepared_steps && step < execution_plan_.size(); ++step) {
    const NodeEntry& entry = nodes_[execution_plan_[step]];
    const TfLiteNode& node = entry.node;
    if (node.delegate != nullptr || node.inputs->size < 1 || node.outputs->size != 1 ||
        !BuiltinOpResolver::CopiesInputUnchanged(entry.registration)) {
      continue;
    }
    const int in = node.inputs->data[0];
    const int out = node.outputs->data[0];
    if (in < 0 || out < 0 || in == out || first[in] < 0 || !shareable(in) || !shareable(out) ||
        tensors_[in].bytes != tensors_[out].bytes) {
      continue;
    }
    const int root = storage[in];
    storage[out] = root;
    (*last)[root] = std::max((*last)[root], (*last)[out]);
  }
  return storage;
}

// A graph output that is neither an input, a constant, a variable, nor written by a node would be read
// without ever having had storage or a value.
Status Subgraph::CheckOutputsAreWritten() const {
  std::vector<bool> written(tensors_.size(), false);
  for (int t : inputs_) {
    if (t >= 0 && static_cast<size_t>(t) < written.size()) written[t] = true;
  }
  for (int node_index : execution_plan_) {
    const TfLiteIntArray* outputs = nodes_[node_index].node.outputs;
    for (int k = 0; outputs != nullptr && k < outputs->size; ++k) {
      const int t = outputs->data[k];
      if (t >= 0 && static_cast<size_t>(t) < written.size()) written[t] = true;
    }
  }
  for (int t : outputs_) {
    if (t < 0 || static_cast<size_t>(t) >= written.size() || written[t]) continue;
    const TfLiteAllocationType allocation = tensors_[t].allocation_type;
    if (allocation == kTfLiteMmapRo || allocation == kTfLiteArenaRwPersistent) continue;
    return InvalidInputError("subgraph " + std::to_string(index_) + " output tensor " + std::to_string(t) +
                             (tensors_[t].name != nullptr ? std::string(" '") + tensors_[t].name + "'" : "") +
                             " is written by no operator and is not an input or a constant");
  }
  return Status::Ok();
}

Status Subgraph::AllocateTensors() {
  invoking_ = false;
  // Prepare computes the prepared constants again (in the same storage, or new).
  {
    std::lock_guard<std::mutex> lock(prepared_constants_mutex_);
    prepared_constants_.clear();
    prepared_constant_released_ = false;
    prepared_released_bytes_ = 0;
  }
  ReleaseIndividualAllocations();
  // Variables: persistent storage, reset to their initial value as TFLite does on allocation.
  const Model& model = interpreter_->model();
  const fb::SubGraph* subgraph = model.fb()->subgraphs()->Get(index_);
  for (size_t t = 0; t < tensors_.size(); ++t) {
    TfLiteTensor& tensor = tensors_[t];
    if (tensor.allocation_type != kTfLiteArenaRwPersistent) continue;
    CacheAlignedVector<uint8_t>& storage = individual_[static_cast<int>(t)];
    // As TFLite's ResetVariableTensor: int8 variables start at their zero point, others at zero.
    const uint8_t fill = tensor.type == kTfLiteInt8 ? static_cast<uint8_t>(tensor.params.zero_point) : 0;
    storage.assign(tensor.bytes + 16, fill);
    tensor.data.raw = reinterpret_cast<char*>(storage.data());
    size_t buffer_bytes = 0;
    const uint8_t* initial = model.BufferData(subgraph->tensors()->Get(t)->buffer(), &buffer_bytes);
    if (initial != nullptr && buffer_bytes == tensor.bytes) std::memcpy(storage.data(), initial, buffer_bytes);
  }
  TS_RETURN_IF_ERROR(CheckOutputsAreWritten());
  fused_reads_.clear();
  fused_away_.clear();
  TS_RETURN_IF_ERROR(PrepareNodes(0, &arena_prepared_steps_));
  TS_RETURN_IF_ERROR(PlanArena(arena_prepared_steps_));
  PlanDynamicTensorRelease();
  PlanPreparedConstantRelease();
  allocated_ = true;
  plain_invoke_ = ComputePlainInvoke();
  plain_steps_.clear();
  for (int node_index : execution_plan_) {
    if (nodes_[node_index].kernel != &kPrepareKernelName) plain_steps_.push_back(node_index);
  }
  invoke_prepare_stops_.assign(execution_plan_.size(), 0);
  return Status::Ok();
}

bool Subgraph::ComputePlainInvoke() const {
  if (arena_prepared_steps_ != execution_plan_.size() || !last_used_at_step_.empty()) return false;
  for (const TfLiteTensor& tensor : tensors_) {
    if (tensor.delegate != nullptr || tensor.allocation_type == kTfLiteDynamic) return false;
  }
  for (int node_index : execution_plan_) {
    const NodeEntry& entry = nodes_[node_index];
    if (entry.node.delegate != nullptr || !entry.invoke_refusal.empty()) return false;
    for (int k = 0; k < entry.node.inputs->size; ++k) {
      const int t = entry.node.inputs->data[k];
      if (t >= 0 && tensors_[t].data.raw == nullptr && tensors_[t].bytes > 0) return false;
    }
  }
  return true;
}

Status Subgraph::Invoke() {
  if (!allocated_) {
    return ExecutionError("Invoke called before AllocateTensors (or after an input was resized)");
  }
  invoking_ = true;
  if (plain_invoke_ && interpreter_->node_observer() == nullptr) {
    for (int node_index : plain_steps_) {
      NodeEntry& entry = nodes_[node_index];
      running_node_ = node_index;
      if (!error_.empty()) error_.clear();
      if (entry.registration.invoke(&context_, &entry.node) != kTfLiteOk) {
        invoking_ = false;
        return NodeError(node_index, NodeStage::kInvoke);
      }
    }
    invoking_ = false;
    // A new value, not a named one: every return here is elided (a tiny graph's Invoke is mostly
    // such overhead; moving a Status moves its string).
    return Status();
  }
  return InvokeStepByStep();
}

Status Subgraph::InvokeStepByStep() {
  // Returns `status` alone, so that it is constructed in place.
  Status status;
  size_t next_to_prepare = arena_prepared_steps_;
  // Released tensors (ensure_dynamic_tensors_are_released) get their storage back only by Prepare.
  const bool may_keep_preparation = last_used_at_step_.empty();
  for (size_t step = 0; step < execution_plan_.size() && status.ok(); ++step) {
    if (step == next_to_prepare) {
      const size_t kept_stop = invoke_prepare_stops_[step];
      if (may_keep_preparation && !resized_since_prepare_ && kept_stop > step) {
        // No tensor changed shape since these nodes were prepared: their preparation stands.
        next_to_prepare = kept_stop;
      } else {
        invoke_prepare_stops_[step] = 0;
        status = PrepareNodes(step, &next_to_prepare);
        if (!status.ok()) break;
        invoke_prepare_stops_[step] = next_to_prepare;
      }
      resized_since_prepare_ = false;
    }
    const int node_index = execution_plan_[step];
    NodeEntry& entry = nodes_[node_index];
    if (!entry.invoke_refusal.empty()) {
      error_ = entry.invoke_refusal;
      status = NodeError(node_index, NodeStage::kInvoke);
      break;
    }
    for (int k = 0; k < entry.node.inputs->size; ++k) {
      const int t = entry.node.inputs->data[k];
      if (t >= 0 && tensors_[t].data.raw == nullptr && tensors_[t].bytes > 0) {
        status = ExecutionError("subgraph " + std::to_string(index_) + " op " + std::to_string(node_index) + " (" +
                                entry.op_name + "): input " + std::to_string(k) + " (tensor " + std::to_string(t) +
                                ") lacks data");
        break;
      }
    }
    if (!status.ok()) break;
    error_.clear();
    if (entry.node.delegate == nullptr) {
      // CPU kernels read host memory: bring delegate-held data back first.
      for (int k = 0; k < entry.node.inputs->size && status.ok(); ++k) {
        const int t = entry.node.inputs->data[k];
        // data_is_stale first: EnsureReadable has nothing to do without it (the common case).
        if (t >= 0 && tensors_[t].data_is_stale && EnsureReadable(&tensors_[t]) != kTfLiteOk) {
          status = NodeError(node_index, NodeStage::kCopyFromDelegateBuffer);
        }
      }
      if (!status.ok()) break;
    }
    if (!last_used_at_step_.empty()) {
      // A dynamic output released after its last use in the previous Invoke: a kernel that finds its
      // shape unchanged may not resize it, so give it its bytes back before it runs.
      for (int k = 0; k < entry.node.outputs->size && status.ok(); ++k) {
        TfLiteTensor* t = entry.node.outputs->data[k] >= 0 ? &tensors_[entry.node.outputs->data[k]] : nullptr;
        if (t != nullptr && t->allocation_type == kTfLiteDynamic && t->data.raw == nullptr && t->bytes > 0 &&
            TfLiteTensorRealloc(t->bytes, t) != kTfLiteOk) {
          status = NodeError(node_index, NodeStage::kAllocateDynamicOutput);
        }
      }
      if (!status.ok()) break;
    }
    // A delegate kernel may run a thread pool of its own (XNNPACK's): ours stops polling so that it
    // does not take a CPU from it.
    if (entry.node.delegate != nullptr) interpreter_->ParkThreadPool();
    NodeObserver* observer = interpreter_->node_observer();
    delegate_profiler_.set_current_node(node_index);
    running_node_ = node_index;
    const auto started =
        observer != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    if (entry.registration.invoke(&context_, &entry.node) != kTfLiteOk) {
      status = NodeError(node_index, NodeStage::kInvoke);
    }
    if (observer != nullptr) {
      const int64_t micros =
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count();
      observer->NodeFinished(index_, node_index, entry.op_name, entry.node.delegate != nullptr, micros);
    }
    if (status.ok() && !last_used_at_step_.empty()) {
      for (int t : last_used_at_step_[step]) {
        TfLiteTensor& tensor = tensors_[t];
        if (tensor.delegate != nullptr) continue;
        if (tensor.allocation_type == kTfLiteDynamic) {
          TfLiteTensorDataFree(&tensor);
        } else if (tensor.allocation_type == kTfLiteArenaRw && !in_arena_[t]) {
          // Sized during this Invoke (after a dynamic output): allocated again when next prepared.
          individual_.erase(t);
          tensor.data.raw = nullptr;
        }
      }
    }
  }
  // A failed Invoke may have left nodes half prepared: the next one prepares them again.
  if (!status.ok()) std::fill(invoke_prepare_stops_.begin(), invoke_prepare_stops_.end(), 0);
  for (int t : outputs_) {
    if (status.ok() && t >= 0 && tensors_[t].data_is_stale && EnsureReadable(&tensors_[t]) != kTfLiteOk) {
      status = ExecutionError("output tensor " + std::to_string(t) + ": copy from delegate buffer failed: " + error_);
    }
  }
  invoking_ = false;
  return status;
}

TfLiteStatus Subgraph::EnsureReadable(TfLiteTensor* tensor) {
  if (!tensor->data_is_stale || tensor->delegate == nullptr || tensor->buffer_handle < 0) return kTfLiteOk;
  TfLiteDelegate* delegate = tensor->delegate;
  TfLiteOpaqueDelegateBuilder* builder = delegate->Prepare == nullptr ? delegate->opaque_delegate_builder : nullptr;
  if (builder != nullptr && builder->CopyFromBufferHandle != nullptr) {
    TF_LITE_ENSURE_STATUS(builder->CopyFromBufferHandle(
        reinterpret_cast<TfLiteOpaqueContext*>(&context_), reinterpret_cast<TfLiteOpaqueDelegate*>(delegate),
        builder->data, tensor->buffer_handle, reinterpret_cast<TfLiteOpaqueTensor*>(tensor)));
    tensor->data_is_stale = false;
    return kTfLiteOk;
  }
  if (delegate->CopyFromBufferHandle == nullptr) {
    context_.ReportError(&context_, "tensor '%s' is stale and its delegate cannot copy it back", tensor->name);
    return kTfLiteError;
  }
  TF_LITE_ENSURE_STATUS(delegate->CopyFromBufferHandle(&context_, delegate, tensor->buffer_handle, tensor));
  tensor->data_is_stale = false;
  return kTfLiteOk;
}

std::vector<NodeSubset> Subgraph::Partition(const TfLiteIntArray* nodes_to_replace) const {
  PartitionGraph graph;
  graph.node_inputs.resize(nodes_.size());
  graph.node_outputs.resize(nodes_.size());
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const TfLiteNode& node = nodes_[n].node;
    if (node.inputs == nullptr) continue;  // a freed node, no longer in the plan
    graph.node_inputs[n].assign(node.inputs->data, node.inputs->data + node.inputs->size);
    graph.node_outputs[n].assign(node.outputs->data, node.outputs->data + node.outputs->size);
  }
  graph.graph_outputs = outputs_;
  std::set<int> wanted(nodes_to_replace->data, nodes_to_replace->data + nodes_to_replace->size);
  return PartitionIntoIndependentSubsets(graph, execution_plan_, wanted);
}

bool Subgraph::PlanReadsOnlyEarlierOutputs() const {
  // The last step writing each tensor (-1: none), as the partitioner takes producers.
  std::vector<int> last_writer(tensors_.size(), -1);
  const int steps = static_cast<int>(execution_plan_.size());
  for (int step = 0; step < steps; ++step) {
    const TfLiteNode& node = nodes_[execution_plan_[step]].node;
    if (node.inputs == nullptr || node.outputs == nullptr) return false;
    for (int k = 0; k < node.outputs->size; ++k) {
      const int t = node.outputs->data[k];
      if (t >= 0 && static_cast<size_t>(t) < last_writer.size()) last_writer[t] = step;
    }
  }
  for (int step = 0; step < steps; ++step) {
    const TfLiteIntArray* inputs = nodes_[execution_plan_[step]].node.inputs;
    for (int k = 0; k < inputs->size; ++k) {
      const int t = inputs->data[k];
      if (t >= 0 && static_cast<size_t>(t) < last_writer.size() && last_writer[t] >= step) return false;
    }
  }
  return true;
}

TfLiteStatus Subgraph::PreviewDelegatePartitioningCallback(TfLiteContext* context,
                                                           const TfLiteIntArray* nodes_to_replace,
                                                           TfLiteDelegateParams** partition_params_array,
                                                           int* num_partitions) {
  Subgraph* self = SubgraphOf(context);
  self->FreePreviewParams();
  // No node asked for: no partition would be delegated (a delegate that takes nothing asks this of
  // every graph it meets, so it is not worth partitioning the plan for).
  if (nodes_to_replace != nullptr && nodes_to_replace->size == 0) {
    *partition_params_array = nullptr;
    *num_partitions = 0;
    return kTfLiteOk;
  }
  for (const NodeSubset& subset : self->Partition(nodes_to_replace)) {
    if (!subset.delegated) continue;
    TfLiteDelegateParams params;
    params.delegate = nullptr;
    params.nodes_to_replace = IntArrayFrom(subset.nodes);
    params.input_tensors = IntArrayFrom(subset.input_tensors);
    params.output_tensors = IntArrayFrom(subset.output_tensors);
    self->preview_params_.push_back(params);
  }
  *partition_params_array = self->preview_params_.empty() ? nullptr : self->preview_params_.data();
  *num_partitions = static_cast<int>(self->preview_params_.size());
  return kTfLiteOk;
}

TfLiteStatus Subgraph::ReplaceNodeSubsetsCallback(TfLiteContext* context, TfLiteRegistration registration,
                                                  const TfLiteIntArray* nodes_to_replace, TfLiteDelegate* delegate) {
  Subgraph* self = SubgraphOf(context);
  if (nodes_to_replace == nullptr) return kTfLiteError;
  for (int i = 0; i < nodes_to_replace->size; ++i) {
    const int n = nodes_to_replace->data[i];
    if (std::find(self->execution_plan_.begin(), self->execution_plan_.end(), n) == self->execution_plan_.end()) {
      context->ReportError(context, "delegate asked to replace node %d, which is not in the execution plan", n);
      return kTfLiteError;
    }
  }
  std::vector<int> new_plan;
  registration.builtin_code = kTfLiteBuiltinDelegate;
  // An opaque delegate's kernel comes as a TfLiteRegistrationExternal, owned from here on (TFLite 2.14.1,
  // Subgraph::ReplaceNodeSubsetsWithDelegateKernels); its callbacks are reached through trampolines.
  TfLiteRegistrationExternal* external = registration.registration_external;
  const bool opaque =
      delegate != nullptr && delegate->Prepare == nullptr && delegate->opaque_delegate_builder != nullptr;
  if (opaque && external == nullptr) {
    context->ReportError(context, "an opaque delegate replaced nodes without a TfLiteRegistrationExternal");
    return kTfLiteDelegateError;
  }
  if (external != nullptr) {
    external->builtin_code = kTfLiteBuiltinDelegate;
    const bool owned = std::any_of(self->delegate_externals_.begin(), self->delegate_externals_.end(),
                                   [external](const auto& e) { return e.get() == external; });
    if (!owned) self->delegate_externals_.emplace_back(external);
    registration.prepare = ExternalPrepareTrampoline;
    registration.invoke = ExternalInvokeTrampoline;
    registration.init = nullptr;
    registration.free = nullptr;
    if (registration.custom_name == nullptr) registration.custom_name = external->custom_name;
  }
  const std::string name = registration.custom_name != nullptr ? registration.custom_name : "DELEGATE";
  const int total_nodes = static_cast<int>(self->execution_plan_.size());
  // Nothing to replace: the partition would be the plan itself, unless the plan reads a tensor before
  // (or while) it is written, where the partitioner's order can differ.
  if (nodes_to_replace->size == 0 && self->PlanReadsOnlyEarlierOutputs()) {
    LogInfo("Replacing 0 out of {} node(s) with delegate ({}) node, yielding 0 partitions.", total_nodes, name);
    return kTfLiteOk;
  }
  const std::vector<NodeSubset> subsets = self->Partition(nodes_to_replace);
  int delegated_nodes = 0, partitions = 0;
  for (const NodeSubset& subset : subsets) {
    if (!subset.delegated) {
      new_plan.insert(new_plan.end(), subset.nodes.begin(), subset.nodes.end());
      continue;
    }
    delegated_nodes += static_cast<int>(subset.nodes.size());
    ++partitions;
    self->nodes_.emplace_back();
    NodeEntry& entry = self->nodes_.back();
    std::memset(&entry.node, 0, sizeof(entry.node));
    entry.node.inputs = IntArrayFrom(subset.input_tensors);
    entry.node.outputs = IntArrayFrom(subset.output_tensors);
    entry.node.intermediates = TfLiteIntArrayCreate(0);
    entry.node.temporaries = TfLiteIntArrayCreate(0);
    entry.node.delegate = delegate;
    void* params = nullptr;
    if (opaque) {
      // One block, as TFLite allocates it: the 40-byte struct, then its three arrays.
      const size_t head = sizeof(TfLiteOpaqueDelegateParams);
      const size_t sizes[3] = {TfLiteIntArrayGetSizeInBytes(static_cast<int>(subset.nodes.size())),
                               TfLiteIntArrayGetSizeInBytes(static_cast<int>(subset.input_tensors.size())),
                               TfLiteIntArrayGetSizeInBytes(static_cast<int>(subset.output_tensors.size()))};
      char* block = static_cast<char*>(calloc(1, head + sizes[0] + sizes[1] + sizes[2]));
      auto* opaque_params = reinterpret_cast<TfLiteOpaqueDelegateParams*>(block);
      const std::vector<int>* lists[3] = {&subset.nodes, &subset.input_tensors, &subset.output_tensors};
      TfLiteIntArray* arrays[3];
      size_t offset = head;
      for (int k = 0; k < 3; ++k) {
        arrays[k] = reinterpret_cast<TfLiteIntArray*>(block + offset);
        arrays[k]->size = static_cast<int>(lists[k]->size());
        std::copy(lists[k]->begin(), lists[k]->end(), arrays[k]->data);
        offset += sizes[k];
      }
      opaque_params->delegate = reinterpret_cast<TfLiteOpaqueDelegate*>(delegate);
      opaque_params->delegate_data = delegate->opaque_delegate_builder->data;
      opaque_params->nodes_to_replace = arrays[0];
      opaque_params->input_tensors = arrays[1];
      opaque_params->output_tensors = arrays[2];
      entry.builtin_data_owned = block;
      params = block;
    } else {
      auto* classic_params = static_cast<TfLiteDelegateParams*>(calloc(1, sizeof(TfLiteDelegateParams)));
      classic_params->delegate = delegate;
      classic_params->nodes_to_replace = IntArrayFrom(subset.nodes);
      classic_params->input_tensors = IntArrayFrom(subset.input_tensors);
      classic_params->output_tensors = IntArrayFrom(subset.output_tensors);
      entry.delegate_params = classic_params;
      params = classic_params;
    }
    entry.node.builtin_data = params;
    entry.registration = registration;
    entry.op_name = name;
    const int node_index = static_cast<int>(self->nodes_.size()) - 1;
    if (external != nullptr && external->init != nullptr) {
      void* user_data =
          external->init(reinterpret_cast<TfLiteOpaqueContext*>(context), reinterpret_cast<const char*>(params), 0);
      self->nodes_[node_index].node.user_data = user_data;
    } else if (registration.init != nullptr) {
      void* user_data = registration.init(context, reinterpret_cast<const char*>(params), 0);
      self->nodes_[node_index].node.user_data = user_data;
    }
    self->nodes_[node_index].initialized = true;
    new_plan.push_back(node_index);
  }
  self->execution_plan_ = new_plan;
  LogInfo("Replacing {} out of {} node(s) with delegate ({}) node, yielding {} partitions.", delegated_nodes,
          total_nodes, name, partitions);
  return kTfLiteOk;
}

Status Subgraph::ModifyGraphWithDelegate(TfLiteDelegate* delegate) {
  // TFLite's test for an opaque delegate: no classic Prepare, a builder. Its flags then come from the builder.
  TfLiteOpaqueDelegateBuilder* builder =
      delegate != nullptr && delegate->Prepare == nullptr ? delegate->opaque_delegate_builder : nullptr;
  if (delegate == nullptr || (delegate->Prepare == nullptr && (builder == nullptr || builder->Prepare == nullptr))) {
    return UsageError("delegate has no Prepare function");
  }
  const int64_t flags = builder != nullptr ? builder->flags : delegate->flags;
  // As TFLite: a delegate that does not take dynamic tensors is asked about a prepared graph, so the
  // shapes it sees are the propagated ones (input shapes applied), not the file's, and tensors whose
  // size depends on data are already marked dynamic.
  // A delegate reads the prepared constants too: ones given back are computed again first.
  if (((flags & kTfLiteDelegateFlagsAllowDynamicTensors) == 0 && !allocated_) || prepared_constant_released_) {
    TS_RETURN_IF_ERROR(AllocateTensors());
  }
  const std::vector<int> saved_plan = execution_plan_;
  const size_t saved_nodes = nodes_.size();
  error_.clear();
  const TfLiteStatus prepared = builder != nullptr
                                    ? builder->Prepare(reinterpret_cast<TfLiteOpaqueContext*>(&context_),
                                                       reinterpret_cast<TfLiteOpaqueDelegate*>(delegate), builder->data)
                                    : delegate->Prepare(&context_, delegate);
  FreePreviewParams();
  auto undo = [&]() {
    // Free the delegate kernels it added and put the plan back.
    for (size_t n = saved_nodes; n < nodes_.size(); ++n) FreeNode(&nodes_[n]);
    nodes_.resize(saved_nodes);
    execution_plan_ = saved_plan;
    allocated_ = false;
    plain_invoke_ = false;
  };
  if (prepared != kTfLiteOk) {
    undo();
    std::string message = "delegate failed to prepare subgraph " + std::to_string(index_);
    if (!error_.empty()) message += ": " + error_;
    error_.clear();
    return ExecutionError(message);
  }
  // It claimed nothing: the graph is as prepared, and stays allocated (no second Prepare of every node).
  if (nodes_.size() == saved_nodes) return Status::Ok();
  allocated_ = false;
  plain_invoke_ = false;
  // Delegate kernels prepare with the tensors: a failure there also restores the CPU graph.
  Status allocated = AllocateTensors();
  if (!allocated.ok()) {
    undo();
    return ExecutionError("delegate kernels failed to prepare in subgraph " + std::to_string(index_) + ": " +
                          allocated.message());
  }
  return Status::Ok();
}

int Subgraph::delegated_node_count() const {
  int count = 0;
  for (int n : execution_plan_) count += nodes_[n].node.delegate != nullptr ? 1 : 0;
  return count;
}

bool Subgraph::fully_delegated() const {
  return execution_plan_.size() == 1 && nodes_[execution_plan_[0]].node.delegate != nullptr;
}

size_t Subgraph::dynamic_bytes() const {
  size_t bytes = 0;
  for (const TfLiteTensor& t : tensors_) {
    if (t.allocation_type == kTfLiteDynamic && t.data.raw != nullptr) bytes += t.bytes;
  }
  for (const auto& entry : individual_) bytes += entry.second.size();
  return bytes;
}

TfLiteStatus Subgraph::ResizeTensorCallback(TfLiteContext* context, TfLiteTensor* tensor, TfLiteIntArray* new_size) {
  Subgraph* self = SubgraphOf(context);
  const uint64_t limit =
      self->interpreter_->options().max_tensor_bytes ? self->interpreter_->options().max_tensor_bytes : UINT64_MAX;
  size_t bytes = 0;
  const bool sized = tensor->type != kTfLiteString && tensor->type != kTfLiteVariant;
  if (sized && !TensorBytes(tensor->type, new_size, limit, &bytes)) {
    context->ReportError(context, "tensor '%s' of shape %s exceeds the tensor memory limit",
                         tensor->name ? tensor->name : "", ShapeString(new_size).c_str());
    TfLiteIntArrayFree(new_size);
    return kTfLiteError;
  }
  const int index = static_cast<int>(tensor - self->tensors_.data());
  switch (tensor->allocation_type) {
    case kTfLiteDynamic:
    case kTfLitePersistentRo:
      TfLiteTensorRealloc(bytes, tensor);
      break;
    case kTfLiteArenaRw:
    case kTfLiteArenaRwPersistent:
      if (index >= 0 && static_cast<size_t>(index) < self->tensors_.size() && self->in_arena_[index] &&
          self->invoking_ && bytes != tensor->bytes) {
        context->ReportError(context, "tensor '%s' was planned in the arena and cannot change size during Invoke",
                             tensor->name ? tensor->name : "");
        TfLiteIntArrayFree(new_size);
        return kTfLiteError;
      }
      break;
    default:
      if (bytes != tensor->bytes) {
        context->ReportError(context, "constant tensor '%s' cannot be resized", tensor->name ? tensor->name : "");
        TfLiteIntArrayFree(new_size);
        return kTfLiteError;
      }
      break;
  }
  if (!TfLiteIntArrayEqual(tensor->dims, new_size)) self->resized_since_prepare_ = true;
  if (tensor->dims != new_size) TfLiteIntArrayFree(tensor->dims);
  tensor->dims = new_size;
  tensor->bytes = bytes;
  if (self->invoking_ && (tensor->allocation_type == kTfLiteArenaRw)) {
    if (!self->AllocateIndividually(tensor).ok()) return kTfLiteError;
  }
  return kTfLiteOk;
}

void Subgraph::ReportErrorCallback(TfLiteContext* context, const char* format, ...) {
  Subgraph* self = SubgraphOf(context);
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  // One line: newlines inside kernel messages become spaces.
  for (char* c = buffer; *c; ++c) {
    if (*c == '\n') *c = ' ';
  }
  if (!self->error_.empty()) self->error_ += "; ";
  self->error_ += buffer;
}

TfLiteStatus Subgraph::AddTensorsCallback(TfLiteContext* context, int tensors_to_add, int* first_new_tensor_index) {
  Subgraph* self = SubgraphOf(context);
  if (tensors_to_add < 0) return kTfLiteError;
  const size_t base = self->tensors_.size();
  self->tensors_.resize(base + tensors_to_add);
  std::memset(self->tensors_.data() + base, 0, tensors_to_add * sizeof(TfLiteTensor));
  for (size_t t = base; t < self->tensors_.size(); ++t) {
    self->tensors_[t].dims = TfLiteIntArrayCreate(0);
    self->tensors_[t].allocation_type = kTfLiteArenaRw;
    self->tensors_[t].buffer_handle = -1;
    self->tensors_[t].name = "";
  }
  self->in_arena_.resize(self->tensors_.size(), false);
  self->context_.tensors = self->tensors_.data();
  self->context_.tensors_size = self->tensors_.size();
  if (first_new_tensor_index != nullptr) *first_new_tensor_index = static_cast<int>(base);
  return kTfLiteOk;
}

TfLiteStatus Subgraph::GetExecutionPlanCallback(TfLiteContext* context, TfLiteIntArray** plan) {
  Subgraph* self = SubgraphOf(context);
  TfLiteIntArrayFree(self->plan_array_);
  self->plan_array_ = IntArrayFrom(self->execution_plan_);
  *plan = self->plan_array_;
  return kTfLiteOk;
}

TfLiteStatus Subgraph::GetNodeAndRegistrationCallback(TfLiteContext* context, int node_index, TfLiteNode** node,
                                                      TfLiteRegistration** registration) {
  Subgraph* self = SubgraphOf(context);
  if (node_index < 0 || static_cast<size_t>(node_index) >= self->nodes_.size()) return kTfLiteError;
  NodeEntry& entry = self->nodes_[node_index];
  if (entry.registration.registration_external == nullptr) {
    // A delegate built by TFLite reads the registration through TfLiteRegistrationExternal only; where
    // it finds none, its opaque code would treat impl_ as TFLite's Subgraph. So every registration
    // handed out carries one (node_index says which node's classic callbacks it stands for).
    TfLiteRegistrationExternal& made = self->host_externals_.emplace_back();
    made.custom_name = entry.registration.custom_name;
    made.version = entry.registration.version;
    made.builtin_code = entry.registration.builtin_code;
    made.node_index = node_index;
    entry.registration.registration_external = &made;
  }
  *node = &entry.node;
  *registration = &entry.registration;
  return kTfLiteOk;
}

TfLiteStatus Subgraph::GetModelMetadataCallback(const TfLiteContext*, const char*, const char**, size_t*) {
  return kTfLiteError;  // metadata is not kept; TFLite's delegates then go without it
}

const TfLiteRegistrationExternal* Subgraph::ExternalOf(const TfLiteNode* node) const {
  // Delegate kernel nodes are appended last: search from the end.
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    if (&it->node != node) continue;
    const TfLiteRegistrationExternal* external = it->registration.registration_external;
    return external != nullptr && external->node_index == -1 ? external : nullptr;
  }
  return nullptr;
}

TfLiteStatus Subgraph::ExternalPrepareTrampoline(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteRegistrationExternal* external = SubgraphOf(context)->ExternalOf(node);
  if (external == nullptr || external->prepare == nullptr) return kTfLiteOk;
  return external->prepare(reinterpret_cast<TfLiteOpaqueContext*>(context), reinterpret_cast<TfLiteOpaqueNode*>(node));
}

TfLiteStatus Subgraph::ExternalInvokeTrampoline(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteRegistrationExternal* external = SubgraphOf(context)->ExternalOf(node);
  if (external == nullptr || external->invoke == nullptr) return kTfLiteError;
  return external->invoke(reinterpret_cast<TfLiteOpaqueContext*>(context), reinterpret_cast<TfLiteOpaqueNode*>(node));
}

TfLiteTensor* Subgraph::GetTensorCallback(const TfLiteContext* context, int tensor_index) {
  Subgraph* self = SubgraphOf(context);
  if (tensor_index < 0 || static_cast<size_t>(tensor_index) >= self->tensors_.size()) return nullptr;
  return &self->tensors_[tensor_index];
}

void* Subgraph::AllocatePersistentBufferCallback(TfLiteContext* context, size_t bytes) {
  Subgraph* self = SubgraphOf(context);
  void* buffer = calloc(1, bytes == 0 ? 1 : bytes);
  if (buffer != nullptr) self->persistent_buffers_.push_back(buffer);
  return buffer;
}

TfLiteExternalContext* Subgraph::GetExternalContextCallback(TfLiteContext* context, TfLiteExternalContextType type) {
  return SubgraphOf(context)->interpreter_->external_context(type);
}

void Subgraph::SetExternalContextCallback(TfLiteContext* context, TfLiteExternalContextType type,
                                          TfLiteExternalContext* external_context) {
  SubgraphOf(context)->interpreter_->set_external_context(type, external_context);
}

StatusOr<std::unique_ptr<Interpreter>> Interpreter::Create(std::shared_ptr<const Model> model,
                                                           const InterpreterOptions& options,
                                                           const OpResolver* resolver) {
  std::unique_ptr<Interpreter> interpreter(new Interpreter());
  interpreter->model_ = std::move(model);
  interpreter->options_ = options;
  interpreter->cpu_backend_context_.type = kTfLiteCpuBackendContext;
  interpreter->cpu_backend_context_.Refresh = nullptr;
  interpreter->external_contexts_[kTfLiteCpuBackendContext] = &interpreter->cpu_backend_context_;
  if (!options.preserve_all_tensors) {
    interpreter->cpu_backend_context_.fuse_producer = Subgraph::FuseProducerCallback;
    interpreter->cpu_backend_context_.fuse_chain = Subgraph::FuseChainCallback;
  }
  interpreter->cpu_backend_context_.refuse_at_invoke = Subgraph::RefuseAtInvokeCallback;
  interpreter->cpu_backend_context_.warn = Subgraph::WarnCallback;
  interpreter->cpu_backend_context_.note_kernel = Subgraph::NoteKernelCallback;
  interpreter->cpu_backend_context_.cpu_kernel_state = Subgraph::CpuKernelStateCallback;
  interpreter->cpu_backend_context_.input_producer = Subgraph::InputProducerCallback;
  interpreter->cpu_backend_context_.constant_copied = Subgraph::ConstantCopiedCallback;
  if (resolver == nullptr) resolver = &BuiltinOpResolver::Shared(options.kernel_set);
  const fb::Model* fb_model = interpreter->model_->fb();
  const int num_subgraphs = static_cast<int>(fb_model->subgraphs()->size());
  for (int s = 0; s < num_subgraphs; ++s) {
    interpreter->subgraphs_.emplace_back(new Subgraph(interpreter.get(), s));
  }
  for (int s = 0; s < num_subgraphs; ++s) {
    Status status = interpreter->subgraphs_[s]->Build(*interpreter->model_, *resolver);
    if (!status.ok()) return status.WithContext(interpreter->model_->name());
  }
  if (fb_model->signature_defs() != nullptr) {
    for (const fb::SignatureDef* def : *fb_model->signature_defs()) {
      SignatureInfo info;
      info.key = def->signature_key() != nullptr ? def->signature_key()->str() : "";
      info.subgraph_index = static_cast<int>(def->subgraph_index());
      for (int pass = 0; pass < 2; ++pass) {
        const auto* list = pass == 0 ? def->inputs() : def->outputs();
        auto& dest = pass == 0 ? info.inputs : info.outputs;
        if (list == nullptr) continue;
        for (const fb::TensorMap* map : *list) {
          dest.emplace_back(map->name() != nullptr ? map->name()->str() : "", static_cast<int>(map->tensor_index()));
        }
      }
      interpreter->signatures_.push_back(std::move(info));
    }
  }
  return interpreter;
}

Status Interpreter::ModifyGraphWithDelegate(TfLiteDelegate* delegate) {
  for (auto& subgraph : subgraphs_) {
    Status status = subgraph->ModifyGraphWithDelegate(delegate);
    if (!status.ok()) return WithModelName(status);
  }
  return Status::Ok();
}

const SignatureInfo* Interpreter::FindSignature(const std::string& key) const {
  for (const SignatureInfo& info : signatures_) {
    if (info.key == key) return &info;
  }
  return nullptr;
}

int Interpreter::ResourceId(const std::string& container, const std::string& shared_name) {
  auto key = std::make_pair(container, shared_name);
  auto it = resource_ids_.find(key);
  if (it != resource_ids_.end()) return it->second;
  const int id = static_cast<int>(resource_ids_.size());
  resource_ids_[key] = id;
  return id;
}

ResourceVariable* Interpreter::resource(int id) {
  if (id < 0 || id >= static_cast<int>(resource_ids_.size())) return nullptr;
  return &resources_[id];
}

TfLiteExternalContext* Interpreter::external_context(TfLiteExternalContextType type) {
  if (type < 0 || type >= kTfLiteMaxExternalContexts) return nullptr;
  if (external_contexts_[type] == &cpu_backend_context_ && thread_pool_ == nullptr) {
    // Threads start only once a kernel asks for them (the reference kernels never do).
    thread_pool_.reset(new ThreadPool(options_.num_threads));
    cpu_backend_context_.runner = thread_pool_.get();
  }
  return external_contexts_[type];
}

void Interpreter::set_external_context(TfLiteExternalContextType type, TfLiteExternalContext* context) {
  if (type < 0 || type >= kTfLiteMaxExternalContexts) return;
  external_contexts_[type] = context;
}

void Subgraph::PlanDynamicTensorRelease() {
  last_used_at_step_.clear();
  const InterpreterOptions& options = interpreter_->options();
  if (!options.ensure_dynamic_tensors_are_released || options.preserve_all_tensors) return;
  // Which tensors are dynamic is known only as kernels prepare (some during Invoke), so every tensor
  // is listed at its last step and Invoke checks the allocation type when it gets there.
  std::vector<int> last_step(tensors_.size(), -1);
  for (size_t step = 0; step < execution_plan_.size(); ++step) {
    const TfLiteNode& node = nodes_[execution_plan_[step]].node;
    for (const TfLiteIntArray* list : {node.inputs, node.outputs}) {
      for (int k = 0; list != nullptr && k < list->size; ++k) {
        if (list->data[k] >= 0) last_step[list->data[k]] = static_cast<int>(step);
      }
    }
  }
  ExtendForFusedReads(&last_step);
  for (int t : inputs_)
    if (t >= 0) last_step[t] = -1;
  for (int t : outputs_)
    if (t >= 0) last_step[t] = -1;
  last_used_at_step_.assign(execution_plan_.size(), {});
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (last_step[t] >= 0) last_used_at_step_[last_step[t]].push_back(static_cast<int>(t));
  }
}

void Subgraph::ExtendForFusedReads(std::vector<int>* last_step) const {
  for (const auto& read : fused_reads_) {
    const auto it = std::find(execution_plan_.begin(), execution_plan_.end(), read.second);
    if (it == execution_plan_.end()) continue;
    int& last = (*last_step)[read.first];
    last = std::max(last, static_cast<int>(it - execution_plan_.begin()));
  }
}

bool Subgraph::CanFuse(int producer_node, int consumer_node) const {
  // Every tensor must stay readable, or the arena is planned already (a node prepared during
  // Invoke, after a dynamic output): no fusion.
  if (invoking_ || interpreter_->options().preserve_all_tensors) return false;
  const std::vector<int>& plan = execution_plan_;
  const auto producer_step = std::find(plan.begin(), plan.end(), producer_node);
  const auto consumer_step = std::find(plan.begin(), plan.end(), consumer_node);
  if (producer_step == plan.end() || consumer_step == plan.end() || producer_step >= consumer_step) {
    return false;
  }
  const TfLiteNode& producer = nodes_[producer_node].node;
  const TfLiteNode& consumer = nodes_[consumer_node].node;
  if (producer.outputs->size != 1) return false;
  const int tensor = producer.outputs->data[0];
  if (tensor < 0 || tensors_[tensor].allocation_type != kTfLiteArenaRw ||
      std::find(consumer.inputs->data, consumer.inputs->data + consumer.inputs->size, tensor) ==
          consumer.inputs->data + consumer.inputs->size) {
    return false;
  }
  for (const std::vector<int>* ends : {&inputs_, &outputs_}) {
    if (std::find(ends->begin(), ends->end(), tensor) != ends->end()) return false;
  }
  // The consumer's input is the only read of the tensor in the whole plan.
  int reads = 0;
  for (int node_index : plan) {
    const TfLiteIntArray* inputs = nodes_[node_index].node.inputs;
    for (int k = 0; k < inputs->size; ++k) reads += inputs->data[k] == tensor ? 1 : 0;
  }
  return reads == 1;
}

bool Subgraph::FuseProducerCallback(TfLiteContext* context, int producer_node, int consumer_node) {
  Subgraph* self = SubgraphOf(context);
  if (!self->CanFuse(producer_node, consumer_node)) return false;
  const TfLiteNode& producer = self->nodes_[producer_node].node;
  for (int k = 0; k < producer.inputs->size; ++k) {
    if (producer.inputs->data[k] >= 0) self->fused_reads_.emplace_back(producer.inputs->data[k], consumer_node);
  }
  self->fused_away_.push_back(producer.outputs->data[0]);
  return true;
}

bool Subgraph::FuseChainCallback(TfLiteContext* context, const int* nodes, int count, bool unwritten) {
  Subgraph* self = SubgraphOf(context);
  if (count < 2) return false;
  for (int i = 0; i + 1 < count; ++i) {
    if (!self->CanFuse(nodes[i], nodes[i + 1])) return false;
  }
  const int last = nodes[count - 1];
  for (int i = 0; i + 1 < count; ++i) {
    const TfLiteNode& node = self->nodes_[nodes[i]].node;
    for (int k = 0; k < node.inputs->size; ++k) {
      if (node.inputs->data[k] >= 0) self->fused_reads_.emplace_back(node.inputs->data[k], last);
    }
    if (unwritten) self->fused_away_.push_back(node.outputs->data[0]);
  }
  return true;
}

void Subgraph::SetNodeObserver(NodeObserver* observer) {
  delegate_profiler_.set_observer(observer);
  context_.profiler = observer != nullptr ? static_cast<tflite::Profiler*>(&delegate_profiler_) : nullptr;
}

void Interpreter::SetNodeObserver(NodeObserver* observer) {
  observer_ = observer;
  for (auto& subgraph : subgraphs_) subgraph->SetNodeObserver(observer);
}

size_t Interpreter::prepared_weights_released_bytes() const {
  size_t bytes = 0;
  for (const auto& s : subgraphs_) bytes += s->prepared_released_bytes();
  return bytes;
}

size_t Interpreter::arena_bytes() const {
  size_t bytes = 0;
  for (const auto& s : subgraphs_) bytes += s->arena_bytes();
  return bytes;
}

size_t Interpreter::dynamic_bytes() const {
  size_t bytes = 0;
  for (const auto& s : subgraphs_) bytes += s->dynamic_bytes();
  return bytes;
}

StatusOr<SignatureRunner> SignatureRunner::Create(Interpreter* interpreter, const std::string& key) {
  const SignatureInfo* info = interpreter->FindSignature(key);
  if (info == nullptr) {
    std::string known;
    for (const SignatureInfo& s : interpreter->signatures()) known += (known.empty() ? "" : ", ") + s.key;
    return UsageError("the model has no signature '" + key + "' (it has: " + (known.empty() ? "none" : known) + ")");
  }
  SignatureRunner runner;
  runner.info_ = info;
  runner.subgraph_ = interpreter->subgraph(info->subgraph_index);
  return runner;
}

TfLiteTensor* SignatureRunner::input_tensor(const std::string& name) {
  for (const auto& entry : info_->inputs) {
    if (entry.first == name) return subgraph_->tensor(entry.second);
  }
  return nullptr;
}

TfLiteTensor* SignatureRunner::output_tensor(const std::string& name) {
  for (const auto& entry : info_->outputs) {
    if (entry.first == name) return subgraph_->tensor(entry.second);
  }
  return nullptr;
}

Status SignatureRunner::ResizeInputTensor(const std::string& name, const std::vector<int>& dims) {
  for (const auto& entry : info_->inputs) {
    if (entry.first == name) return subgraph_->ResizeInputTensor(entry.second, dims);
  }
  return UsageError("signature '" + info_->key + "' has no input '" + name + "'");
}

}  // namespace touchstone
