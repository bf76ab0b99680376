#include "delegates/gpu/gpu_delegate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "delegates/api/simple_delegate.h"
#include "delegates/gpu/gpu_ops.h"
#include "delegates/gpu/vulkan_context.h"
#include "runtime/c/builtin_op_data.h"
#include "runtime/c/profiler.h"
#include "runtime/kernels/internal/float16.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/logging.h"
#include "runtime/tensor_util.h"

namespace touchstone {
namespace {

using gpu::Buffer;
using gpu::Dispatch;
using gpu::Plan;
using gpu::Value;
using gpu::VulkanContext;

constexpr uint64_t kFenceTimeoutNs = 600ull * 1000 * 1000 * 1000;  // 10 minutes

// Per-tensor quantization of a quantized tensor at a partition boundary.
bool BoundaryGrid(const TfLiteTensor& t, gpu::QuantGrid* grid) { return gpu::ActivationGrid(t, grid); }

// Tensor data -> device numbers (float32 or float16).
void ConvertIn(const TfLiteTensor& t, int64_t n, bool f16, void* dst) {
  gpu::QuantGrid g;
  const bool quantized = BoundaryGrid(t, &g);
  auto value = [&](int64_t i) -> float {
    if (!quantized) return t.data.f[i];
    int32_t q = 0;
    switch (t.type) {
      case kTfLiteUInt8:
        q = t.data.uint8[i];
        break;
      case kTfLiteInt8:
        q = t.data.int8[i];
        break;
      default:
        q = t.data.i16[i];
        break;
    }
    return static_cast<float>(q - g.zero_point) * g.scale;
  };
  if (!quantized && !f16) {
    std::memcpy(dst, t.data.f, static_cast<size_t>(n) * 4);
    return;
  }
  if (f16) {
    uint16_t* out = static_cast<uint16_t*>(dst);
    for (int64_t i = 0; i < n; ++i) out[i] = float16::FloatToHalf(value(i));
  } else {
    float* out = static_cast<float*>(dst);
    for (int64_t i = 0; i < n; ++i) out[i] = value(i);
  }
}

// Device numbers -> tensor data (quantized tensors rounded half away from zero, as TFLite's QUANTIZE).
void ConvertOut(const void* src, int64_t n, bool f16, TfLiteTensor* t) {
  auto value = [&](int64_t i) -> float {
    return f16 ? float16::HalfToFloat(static_cast<const uint16_t*>(src)[i]) : static_cast<const float*>(src)[i];
  };
  gpu::QuantGrid g;
  if (!BoundaryGrid(*t, &g)) {
    if (!f16) {
      std::memcpy(t->data.f, src, static_cast<size_t>(n) * 4);
    } else {
      for (int64_t i = 0; i < n; ++i) t->data.f[i] = value(i);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const float scaled = std::round(value(i) / g.scale);
    const float clamped = std::min(std::max(scaled + static_cast<float>(g.zero_point), static_cast<float>(g.q_min)),
                                   static_cast<float>(g.q_max));
    const int32_t q = std::isnan(clamped) ? g.zero_point : static_cast<int32_t>(clamped);
    switch (t->type) {
      case kTfLiteUInt8:
        t->data.uint8[i] = static_cast<uint8_t>(q);
        break;
      case kTfLiteInt8:
        t->data.int8[i] = static_cast<int8_t>(q);
        break;
      default:
        t->data.i16[i] = static_cast<int16_t>(q);
        break;
    }
  }
}

// Device numbers in one precision -> another.
void ConvertDevice(const void* src, bool src_f16, int64_t n, bool dst_f16, void* dst) {
  if (src_f16 == dst_f16) {
    std::memcpy(dst, src, static_cast<size_t>(n) * (src_f16 ? 2 : 4));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (src_f16) {
      static_cast<float*>(dst)[i] = float16::HalfToFloat(static_cast<const uint16_t*>(src)[i]);
    } else {
      static_cast<uint16_t*>(dst)[i] = float16::FloatToHalf(static_cast<const float*>(src)[i]);
    }
  }
}

class GpuDelegate;

class GpuKernel : public tflite::SimpleDelegateKernelInterface {
 public:
  GpuKernel(GpuDelegate* delegate, std::shared_ptr<VulkanContext> vk, bool f16, bool enable_quant, bool profile)
      : delegate_(delegate), vk_(std::move(vk)), f16_(f16), profile_(profile) {
    settings_.enable_quant = enable_quant;
  }
  ~GpuKernel() override;

  TfLiteStatus Init(TfLiteContext* context, const TfLiteDelegateParams* params) override;
  TfLiteStatus Prepare(TfLiteContext* context, TfLiteNode* node) override;
  TfLiteStatus Eval(TfLiteContext* context, TfLiteNode* node) override;

  // Buffer-handle support: the host view of a storage (mapped device memory, or its staging
  // buffer), its element count and precision.
  bool f16() const { return f16_; }
  const void* HostView(int storage) const;
  void* MutableHostView(int storage);
  int64_t StorageElements(int storage) const {
    return storage >= 0 && storage < static_cast<int>(storages_.size()) ? storages_[storage].elements : -1;
  }
  const std::vector<GpuOpTiming>& last_profile() const { return last_profile_; }

 private:
  struct Storage {
    int64_t elements = 0;
    Buffer device;
    Buffer staging;           // host-visible copy of a partition input/output when device memory is not
    bool owns_device = true;  // false for constants (their buffers live in constant_buffers_)
  };
  struct Transfer {
    int tensor;
    int storage;
  };

  Status Build(TfLiteContext* context, TfLiteNode* node);
  Status AssignStorage();
  Status CreateBuffers();
  Status Record();
  // Record's steps.
  Status AllocateDescriptorSets(std::vector<VkDescriptorSet>* sets);
  Status CreateCommandObjects();
  Status RecordCommands(VkCommandBuffer cmd, bool stamps, const std::vector<VkDescriptorSet>& sets);
  Status UploadNow(const Buffer& buffer, const void* data, size_t bytes);
  void ReleaseRun();
  int StorageOf(int value) const { return value < 0 ? -1 : value_storage_[value]; }

  GpuDelegate* delegate_;
  std::shared_ptr<VulkanContext> vk_;
  const bool f16_;
  const bool profile_;
  gpu::OpSettings settings_;

  std::vector<int> nodes_;
  std::set<int> partition_inputs_, partition_outputs_;
  gpu::ConstantCache constants_;
  std::map<int, Buffer> constant_buffers_;  // by tensor, kept across Prepare calls

  Plan plan_;
  std::vector<int> value_storage_;
  std::vector<Storage> storages_;
  std::vector<Transfer> uploads_, downloads_;
  std::map<int, int> storage_handles_;  // storage -> buffer handle of a partition output

  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkCommandBuffer profiled_command_buffer_ = VK_NULL_HANDLE;  // with timestamps; null without them
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  bool prepared_ = false;
  std::vector<GpuOpTiming> last_profile_;
};

class GpuDelegate : public tflite::SimpleDelegateInterface {
 public:
  explicit GpuDelegate(const GpuDelegateOptions& options) : options_(options) {
    settings_.enable_quant = options.enable_quant;
  }
  ~GpuDelegate() override = default;

  bool IsNodeSupportedByDelegate(const TfLiteRegistration* registration, const TfLiteNode* node,
                                 TfLiteContext* context) const override {
    return gpu::IsNodeSupported(context, node, registration, settings_, nullptr);
  }

  TfLiteStatus Initialize(TfLiteContext* context) override {
    if (vk_ == nullptr && vk_error_.empty()) {
      gpu::VulkanOptions vk_options;
      vk_options.device_index = options_.device_index;
      vk_options.want_float16 = options_.precision_loss_allowed;
      StatusOr<std::shared_ptr<VulkanContext>> vk = VulkanContext::Create(vk_options);
      if (!vk.ok()) {
        vk_error_ = vk.status().message();
      } else {
        vk_ = vk.value();
        use_f16_ = options_.precision_loss_allowed && vk_->float16_enabled();
        description_ =
            vk_->device_name() + ", " + vk_->device_kind() + ", Vulkan device " + std::to_string(vk_->device_index());
        LogInfo("GPU delegate: {}; computing in {}.", description_,
                use_f16_ ? "float16 (--gpu_precision_loss_allowed=true)" : "float32");
        if (options_.precision_loss_allowed && !vk_->supports_float16()) {
          LogInfo(
              "GPU delegate: the device lacks float16 storage or arithmetic; --gpu_precision_loss_allowed has no "
              "effect, computing in float32.");
        }
      }
    }
    if (vk_ == nullptr) {
      TF_LITE_KERNEL_LOG(context, "GPU delegate: %s", vk_error_.c_str());
      return kTfLiteError;
    }
    return kTfLiteOk;
  }

  const char* Name() const override { return kGpuDelegateName; }

  std::unique_ptr<tflite::SimpleDelegateKernelInterface> CreateDelegateKernelInterface() override {
    auto kernel = std::make_unique<GpuKernel>(this, vk_, use_f16_, options_.enable_quant,
                                              options_.enable_op_profiling && vk_->supports_timestamps());
    kernels_.insert(kernel.get());
    return kernel;
  }

  Options DelegateOptions() const override {
    Options o;
    o.max_delegated_partitions = options_.max_delegated_partitions;
    o.min_nodes_per_partition = options_.min_nodes_per_partition;
    return o;
  }

  TfLiteStatus CopyFromBufferHandle(TfLiteContext* context, TfLiteBufferHandle handle, TfLiteTensor* tensor) override {
    const Entry* e = Find(handle);
    if (e == nullptr) {
      TF_LITE_KERNEL_LOG(context, "GPU delegate: unknown buffer handle %d (tensor '%s')", handle,
                         tensor->name != nullptr ? tensor->name : "");
      return kTfLiteError;
    }
    const int64_t n = tflite::NumElements(tensor);
    if (n != e->kernel->StorageElements(e->storage) || (n > 0 && tensor->data.raw == nullptr)) {
      TF_LITE_KERNEL_LOG(context, "GPU delegate: buffer handle %d does not fit tensor '%s'", handle,
                         tensor->name != nullptr ? tensor->name : "");
      return kTfLiteError;
    }
    if (n == 0) return kTfLiteOk;
    const void* view = e->kernel->HostView(e->storage);
    if (view == nullptr) {
      TF_LITE_KERNEL_LOG(context, "GPU delegate: buffer handle %d has no data", handle);
      return kTfLiteError;
    }
    ConvertOut(view, n, e->kernel->f16(), tensor);
    return kTfLiteOk;
  }

  TfLiteStatus CopyToBufferHandle(TfLiteContext* context, TfLiteBufferHandle handle,
                                  const TfLiteTensor* tensor) override {
    const Entry* e = Find(handle);
    const int64_t n = tflite::NumElements(tensor);
    if (e == nullptr || n != e->kernel->StorageElements(e->storage) || tensor->data.raw == nullptr) {
      TF_LITE_KERNEL_LOG(context, "GPU delegate: buffer handle %d does not fit tensor '%s'", handle,
                         tensor->name != nullptr ? tensor->name : "");
      return kTfLiteError;
    }
    void* view = e->kernel->MutableHostView(e->storage);
    if (view == nullptr) {
      TF_LITE_KERNEL_LOG(context, "GPU delegate: buffer handle %d has no data", handle);
      return kTfLiteError;
    }
    ConvertIn(*tensor, n, e->kernel->f16(), view);
    return kTfLiteOk;
  }

  void FreeBufferHandle(TfLiteContext* context, TfLiteBufferHandle* handle) override {
    // The buffers belong to the kernels; only the caller's reference goes.
    *handle = kTfLiteNullBufferHandle;
  }

  // -- for the kernels --
  int RegisterHandle(GpuKernel* kernel, int storage) {
    const int handle = next_handle_++;
    handles_[handle] = Entry{kernel, storage};
    return handle;
  }
  void UnregisterHandles(GpuKernel* kernel) {
    for (auto it = handles_.begin(); it != handles_.end();) {
      it = it->second.kernel == kernel ? handles_.erase(it) : std::next(it);
    }
  }
  void UnregisterKernel(GpuKernel* kernel) {
    UnregisterHandles(kernel);
    kernels_.erase(kernel);
  }
  // The device numbers behind a handle of this delegate, for a GPU partition reading another's output.
  bool HandleView(TfLiteBufferHandle handle, const void** data, bool* f16, int64_t* elements) const {
    const Entry* e = Find(handle);
    if (e == nullptr) return false;
    *data = e->kernel->HostView(e->storage);
    *f16 = e->kernel->f16();
    *elements = e->kernel->StorageElements(e->storage);
    return *data != nullptr;
  }

  const std::string& description() const { return description_; }
  bool use_f16() const { return vk_ != nullptr && use_f16_; }
  std::vector<GpuOpTiming> Profile() const {
    std::vector<GpuOpTiming> all;
    for (const GpuKernel* k : kernels_) all.insert(all.end(), k->last_profile().begin(), k->last_profile().end());
    std::stable_sort(all.begin(), all.end(),
                     [](const GpuOpTiming& a, const GpuOpTiming& b) { return a.node_index < b.node_index; });
    return all;
  }

 private:
  struct Entry {
    GpuKernel* kernel;
    int storage;
  };
  const Entry* Find(TfLiteBufferHandle handle) const {
    auto it = handles_.find(handle);
    return it == handles_.end() ? nullptr : &it->second;
  }

  const GpuDelegateOptions options_;
  gpu::OpSettings settings_;
  std::shared_ptr<VulkanContext> vk_;
  std::string vk_error_;
  std::string description_;
  bool use_f16_ = false;
  std::map<TfLiteBufferHandle, Entry> handles_;
  std::set<GpuKernel*> kernels_;
  int next_handle_ = 1;
};

// ---- GpuKernel -----------------------------------------------------------------------------------

GpuKernel::~GpuKernel() {
  delegate_->UnregisterKernel(this);
  ReleaseRun();
  for (auto& entry : constant_buffers_) vk_->DestroyBuffer(&entry.second);
}

void GpuKernel::ReleaseRun() {
  const gpu::VulkanFunctions& vk = vk_->vk();
  VkDevice device = vk_->device();
  // Eval waits for its submission, so nothing is in flight here. Handles to the storages go first.
  delegate_->UnregisterHandles(this);
  storage_handles_.clear();
  for (Storage& s : storages_) {
    if (s.owns_device) vk_->DestroyBuffer(&s.device);
    vk_->DestroyBuffer(&s.staging);
  }
  storages_.clear();
  if (command_pool_ != VK_NULL_HANDLE) vk.vkDestroyCommandPool(device, command_pool_, nullptr);
  if (descriptor_pool_ != VK_NULL_HANDLE) vk.vkDestroyDescriptorPool(device, descriptor_pool_, nullptr);
  if (fence_ != VK_NULL_HANDLE) vk.vkDestroyFence(device, fence_, nullptr);
  if (query_pool_ != VK_NULL_HANDLE) vk.vkDestroyQueryPool(device, query_pool_, nullptr);
  command_pool_ = VK_NULL_HANDLE;
  command_buffer_ = VK_NULL_HANDLE;
  profiled_command_buffer_ = VK_NULL_HANDLE;
  descriptor_pool_ = VK_NULL_HANDLE;
  fence_ = VK_NULL_HANDLE;
  query_pool_ = VK_NULL_HANDLE;
  prepared_ = false;
}

const void* GpuKernel::HostView(int storage) const {
  if (storage < 0 || storage >= static_cast<int>(storages_.size())) return nullptr;
  const Storage& s = storages_[storage];
  return s.device.mapped != nullptr ? s.device.mapped : s.staging.mapped;
}

void* GpuKernel::MutableHostView(int storage) {
  if (storage < 0 || storage >= static_cast<int>(storages_.size())) return nullptr;
  Storage& s = storages_[storage];
  return s.device.mapped != nullptr ? s.device.mapped : s.staging.mapped;
}

TfLiteStatus GpuKernel::Init(TfLiteContext* context, const TfLiteDelegateParams* params) {
  nodes_.assign(params->nodes_to_replace->data, params->nodes_to_replace->data + params->nodes_to_replace->size);
  partition_inputs_.insert(params->input_tensors->data, params->input_tensors->data + params->input_tensors->size);
  partition_outputs_.insert(params->output_tensors->data, params->output_tensors->data + params->output_tensors->size);
  return kTfLiteOk;
}

TfLiteStatus GpuKernel::Prepare(TfLiteContext* context, TfLiteNode* node) {
  Status status = Build(context, node);
  if (!status.ok()) {
    ReleaseRun();
    TF_LITE_KERNEL_LOG(context, "GPU delegate: %s", status.message().c_str());
    return kTfLiteError;
  }
  return kTfLiteOk;
}

Status GpuKernel::Build(TfLiteContext* context, TfLiteNode* node) {
  // The buffers go; outputs left behind their handles by the last run become plain host tensors (whose
  // contents a reallocation has made undefined anyway).
  for (int t : partition_outputs_) {
    TfLiteTensor* tensor = &context->tensors[t];
    if (node->delegate != nullptr && tensor->delegate == node->delegate) {
      tensor->data_is_stale = false;
      tensor->buffer_handle = kTfLiteNullBufferHandle;
      tensor->delegate = nullptr;
    }
  }
  ReleaseRun();
  plan_ = Plan();
  gpu::Planner planner(context, partition_outputs_, &constants_, &plan_);
  for (int node_index : nodes_) {
    TfLiteNode* n = nullptr;
    TfLiteRegistration* r = nullptr;
    if (context->GetNodeAndRegistration(context, node_index, &n, &r) != kTfLiteOk) {
      return ExecutionError("node " + std::to_string(node_index) + " is gone");
    }
    TS_RETURN_IF_ERROR(planner.PlanNode(node_index, n, r));
  }
  // Partition outputs: every one must have been computed; resize the interpreter's tensors.
  for (int t : partition_outputs_) {
    auto it = plan_.tensor_values.find(t);
    if (it == plan_.tensor_values.end())
      return ExecutionError("partition output tensor " + std::to_string(t) + " is not computed");
    const std::vector<int>& shape = plan_.values[it->second].shape;
    TfLiteTensor* tensor = &context->tensors[t];
    const bool same = tensor->dims != nullptr && tensor->dims->size == static_cast<int>(shape.size()) &&
                      std::equal(shape.begin(), shape.end(), tensor->dims->data);
    if (!same) {
      TfLiteIntArray* dims = TfLiteIntArrayCreate(static_cast<int>(shape.size()));
      std::copy(shape.begin(), shape.end(), dims->data);
      if (context->ResizeTensor(context, tensor, dims) != kTfLiteOk) {
        return ExecutionError("cannot resize output tensor " + std::to_string(t));
      }
    }
  }
  TS_RETURN_IF_ERROR(AssignStorage());
  TS_RETURN_IF_ERROR(CreateBuffers());
  TS_RETURN_IF_ERROR(Record());
  prepared_ = true;
  return Status::Ok();
}

Status GpuKernel::AssignStorage() {
  const int num_values = static_cast<int>(plan_.values.size());
  auto root = [this](int v) {
    while (plan_.values[v].alias_of >= 0) v = plan_.values[v].alias_of;
    return v;
  };
  // Roots that are partition inputs, constants or outputs (or that an output aliases) get storage of
  // their own; the rest share pooled storage by lifetime.
  std::vector<bool> dedicated(num_values, false);
  for (int v = 0; v < num_values; ++v) {
    const Value& value = plan_.values[v];
    const int r = root(v);
    if (value.is_output || (value.kind != Value::Kind::kInternal && value.kind != Value::Kind::kTemporary)) {
      dedicated[r] = true;
    }
  }
  // The roots of the values dispatch d reads, then of the one it writes.
  auto roots_used_by = [this, &root](size_t d) {
    const Dispatch& dispatch = plan_.dispatches[d];
    std::vector<int> roots;
    for (int v : dispatch.inputs) {
      if (v >= 0) roots.push_back(root(v));
    }
    if (dispatch.output >= 0) roots.push_back(root(dispatch.output));
    return roots;
  };
  std::vector<int> first_use(num_values, -1), last_use(num_values, -1);
  for (size_t d = 0; d < plan_.dispatches.size(); ++d) {
    for (int r : roots_used_by(d)) {
      if (first_use[r] < 0) first_use[r] = static_cast<int>(d);
      last_use[r] = static_cast<int>(d);
    }
  }
  value_storage_.assign(num_values, -1);
  std::vector<int> root_storage(num_values, -1);
  auto new_storage = [this](int64_t elements) {
    Storage s;
    s.elements = elements;
    storages_.push_back(s);
    return static_cast<int>(storages_.size()) - 1;
  };
  for (int v = 0; v < num_values; ++v) {
    if (root(v) == v && dedicated[v]) root_storage[v] = new_storage(ElementCount(plan_.values[v].shape));
  }
  // Pool: walk the dispatches; a root takes a free pooled storage (the smallest that fits, else the
  // largest, grown) at its first use and gives it back after its last.
  std::vector<int> free_pool;
  for (size_t d = 0; d < plan_.dispatches.size(); ++d) {
    for (int r : roots_used_by(d)) {
      if (dedicated[r] || root_storage[r] >= 0) continue;
      const int64_t need = ElementCount(plan_.values[r].shape);
      int best = -1;
      for (size_t k = 0; k < free_pool.size(); ++k) {
        const int64_t have = storages_[free_pool[k]].elements;
        if (best < 0) {
          best = static_cast<int>(k);
          continue;
        }
        const int64_t best_have = storages_[free_pool[best]].elements;
        const bool fits = have >= need, best_fits = best_have >= need;
        if ((fits && (!best_fits || have < best_have)) || (!fits && !best_fits && have > best_have)) {
          best = static_cast<int>(k);
        }
      }
      if (best >= 0) {
        root_storage[r] = free_pool[best];
        storages_[root_storage[r]].elements = std::max(storages_[root_storage[r]].elements, need);
        free_pool.erase(free_pool.begin() + best);
      } else {
        root_storage[r] = new_storage(need);
      }
    }
    std::set<int> released;
    for (int r : roots_used_by(d)) {
      if (!dedicated[r] && last_use[r] == static_cast<int>(d) && released.insert(r).second) {
        free_pool.push_back(root_storage[r]);
      }
    }
  }
  for (int v = 0; v < num_values; ++v) {
    const int r = root(v);
    if (root_storage[r] < 0) root_storage[r] = new_storage(ElementCount(plan_.values[r].shape));  // never used
    value_storage_[v] = root_storage[r];
  }
  // Transfers at the boundaries.
  uploads_.clear();
  downloads_.clear();
  for (int v = 0; v < num_values; ++v) {
    const Value& value = plan_.values[v];
    if (value.kind == Value::Kind::kInput) uploads_.push_back({value.tensor, value_storage_[v]});
    if (value.is_output) downloads_.push_back({value.tensor, value_storage_[v]});
  }
  return Status::Ok();
}

Status GpuKernel::UploadNow(const Buffer& buffer, const void* data, size_t bytes) {
  if (buffer.mapped != nullptr) {
    std::memcpy(buffer.mapped, data, bytes);
    return Status::Ok();
  }
  // Through a staging buffer and a one-off copy.
  TS_ASSIGN_OR_RETURN(Buffer staging, vk_->CreateBuffer(bytes, true));
  std::memcpy(staging.mapped, data, bytes);
  const gpu::VulkanFunctions& vk = vk_->vk();
  VkDevice device = vk_->device();
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.queueFamilyIndex = vk_->queue_family();
  VkCommandPool pool = VK_NULL_HANDLE;
  Status status;
  if (vk.vkCreateCommandPool(device, &pool_info, nullptr, &pool) != VK_SUCCESS) {
    status = ExecutionError("Vulkan: vkCreateCommandPool failed");
  }
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  if (status.ok()) {
    VkCommandBufferAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkBufferCopy region{0, 0, bytes};
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    if (vk.vkAllocateCommandBuffers(device, &alloc, &cmd) != VK_SUCCESS ||
        vk.vkCreateFence(device, &fence_info, nullptr, &fence) != VK_SUCCESS ||
        vk.vkBeginCommandBuffer(cmd, &begin) != VK_SUCCESS) {
      status = ExecutionError("Vulkan: cannot record an upload");
    } else {
      vk.vkCmdCopyBuffer(cmd, staging.buffer, buffer.buffer, 1, &region);
      if (vk.vkEndCommandBuffer(cmd) != VK_SUCCESS || vk.vkQueueSubmit(vk_->queue(), 1, &submit, fence) != VK_SUCCESS ||
          vk.vkWaitForFences(device, 1, &fence, VK_TRUE, kFenceTimeoutNs) != VK_SUCCESS) {
        status = ExecutionError("Vulkan: an upload failed");
      }
    }
  }
  if (fence != VK_NULL_HANDLE) vk.vkDestroyFence(device, fence, nullptr);
  if (pool != VK_NULL_HANDLE) vk.vkDestroyCommandPool(device, pool, nullptr);
  vk_->DestroyBuffer(&staging);
  return status;
}

Status GpuKernel::CreateBuffers() {
  const size_t element_bytes = f16_ ? 2 : 4;
  // Constants: one buffer per tensor, made once.
  std::set<int> constant_storages;
  for (size_t v = 0; v < plan_.values.size(); ++v) {
    const Value& value = plan_.values[v];
    if (value.kind != Value::Kind::kConstant || value.alias_of >= 0) continue;
    const int s = value_storage_[v];
    auto it = constant_buffers_.find(value.tensor);
    if (it == constant_buffers_.end()) {
      const std::vector<float>& data = *value.constant;
      TS_ASSIGN_OR_RETURN(Buffer buffer, vk_->CreateBuffer(data.size() * element_bytes, false));
      std::vector<uint16_t> halves;
      const void* bytes = data.data();
      if (f16_) {
        halves.resize(data.size());
        for (size_t i = 0; i < data.size(); ++i) halves[i] = float16::FloatToHalf(data[i]);
        bytes = halves.data();
      }
      Status uploaded = UploadNow(buffer, bytes, data.size() * element_bytes);
      if (!uploaded.ok()) {
        vk_->DestroyBuffer(&buffer);
        return uploaded;
      }
      it = constant_buffers_.emplace(value.tensor, buffer).first;
    }
    storages_[s].device = it->second;
    storages_[s].owns_device = false;
    constant_storages.insert(s);
  }
  std::set<int> io;
  for (const Transfer& t : uploads_) io.insert(t.storage);
  for (const Transfer& t : downloads_) io.insert(t.storage);
  for (size_t s = 0; s < storages_.size(); ++s) {
    Storage& storage = storages_[s];
    if (constant_storages.count(static_cast<int>(s)) == 0) {
      TS_ASSIGN_OR_RETURN(storage.device,
                          vk_->CreateBuffer(static_cast<size_t>(storage.elements) * element_bytes, false));
    }
    if (io.count(static_cast<int>(s)) != 0 && storage.device.mapped == nullptr) {
      TS_ASSIGN_OR_RETURN(storage.staging,
                          vk_->CreateBuffer(static_cast<size_t>(storage.elements) * element_bytes, true));
    }
  }
  return Status::Ok();
}

// One descriptor set per dispatch: binding 0 its output, the others its inputs (the dummy buffer where
// it has fewer).
Status GpuKernel::AllocateDescriptorSets(std::vector<VkDescriptorSet>* sets_out) {
  const gpu::VulkanFunctions& vk = vk_->vk();
  VkDevice device = vk_->device();
  const uint32_t count = static_cast<uint32_t>(std::max<size_t>(plan_.dispatches.size(), 1));
  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, count * gpu::kMaxBindings};
  VkDescriptorPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.maxSets = count;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &pool_size;
  if (vk.vkCreateDescriptorPool(device, &pool_info, nullptr, &descriptor_pool_) != VK_SUCCESS) {
    return ExecutionError("Vulkan: vkCreateDescriptorPool failed");
  }
  std::vector<VkDescriptorSet>& sets = *sets_out;
  sets.assign(plan_.dispatches.size(), VK_NULL_HANDLE);
  if (!sets.empty()) {
    std::vector<VkDescriptorSetLayout> layouts(sets.size(), vk_->set_layout());
    VkDescriptorSetAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    alloc.descriptorPool = descriptor_pool_;
    alloc.descriptorSetCount = static_cast<uint32_t>(sets.size());
    alloc.pSetLayouts = layouts.data();
    if (vk.vkAllocateDescriptorSets(device, &alloc, sets.data()) != VK_SUCCESS) {
      return ExecutionError("Vulkan: vkAllocateDescriptorSets failed");
    }
  }
  for (size_t d = 0; d < plan_.dispatches.size(); ++d) {
    const Dispatch& dispatch = plan_.dispatches[d];
    std::array<VkDescriptorBufferInfo, gpu::kMaxBindings> infos{};
    std::array<VkWriteDescriptorSet, gpu::kMaxBindings> writes{};
    for (int b = 0; b < gpu::kMaxBindings; ++b) {
      const int v = b == 0 ? dispatch.output : dispatch.inputs[b - 1];
      infos[b].buffer = v >= 0 ? storages_[StorageOf(v)].device.buffer : vk_->dummy_buffer();
      infos[b].offset = 0;
      infos[b].range = VK_WHOLE_SIZE;
      writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[b].dstSet = sets[d];
      writes[b].dstBinding = static_cast<uint32_t>(b);
      writes[b].descriptorCount = 1;
      writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[b].pBufferInfo = &infos[b];
    }
    vk.vkUpdateDescriptorSets(device, gpu::kMaxBindings, writes.data(), 0, nullptr);
  }

  return Status::Ok();
}

// The command pool, the command buffers, the fence and, where the queue has timestamps, the query pool.
Status GpuKernel::CreateCommandObjects() {
  const gpu::VulkanFunctions& vk = vk_->vk();
  VkDevice device = vk_->device();
  VkCommandPoolCreateInfo command_pool_info{};
  command_pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  command_pool_info.queueFamilyIndex = vk_->queue_family();
  if (vk.vkCreateCommandPool(device, &command_pool_info, nullptr, &command_pool_) != VK_SUCCESS) {
    return ExecutionError("Vulkan: vkCreateCommandPool failed");
  }
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = command_pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  // Two command buffers where the queue has timestamps: the plain one, and one that also writes a
  // timestamp after every dispatch, submitted instead only while someone profiles (TfLiteContext::
  // profiler set, or enable_op_profiling), so unprofiled runs pay nothing for it.
  const bool timestamps = vk_->supports_timestamps();
  VkCommandBuffer buffers[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  alloc.commandBufferCount = timestamps ? 2 : 1;
  if (vk.vkAllocateCommandBuffers(device, &alloc, buffers) != VK_SUCCESS) {
    return ExecutionError("Vulkan: vkAllocateCommandBuffers failed");
  }
  command_buffer_ = buffers[0];
  profiled_command_buffer_ = buffers[1];
  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  if (vk.vkCreateFence(device, &fence_info, nullptr, &fence_) != VK_SUCCESS) {
    return ExecutionError("Vulkan: vkCreateFence failed");
  }
  if (timestamps) {
    VkQueryPoolCreateInfo query_info{};
    query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = static_cast<uint32_t>(plan_.dispatches.size()) + 1;
    if (vk.vkCreateQueryPool(device, &query_info, nullptr, &query_pool_) != VK_SUCCESS) {
      return ExecutionError("Vulkan: vkCreateQueryPool failed");
    }
  }
  return Status::Ok();
}

// Uploads, every dispatch with a barrier after it, downloads; with `stamps`, a timestamp after each.
Status GpuKernel::RecordCommands(VkCommandBuffer cmd, bool stamps, const std::vector<VkDescriptorSet>& sets) {
  const gpu::VulkanFunctions& vk = vk_->vk();
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  if (vk.vkBeginCommandBuffer(cmd, &begin) != VK_SUCCESS) {
    return ExecutionError("Vulkan: vkBeginCommandBuffer failed");
  }
  auto barrier = [&](VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                     VkAccessFlags dst) {
    VkMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
  };
  if (stamps) {
    vk.vkCmdResetQueryPool(cmd, query_pool_, 0, static_cast<uint32_t>(plan_.dispatches.size()) + 1);
  }
  bool staged_in = false;
  for (const Transfer& t : uploads_) {
    const Storage& s = storages_[t.storage];
    if (s.staging.buffer == VK_NULL_HANDLE || s.elements == 0) continue;
    VkBufferCopy region{0, 0, static_cast<VkDeviceSize>(s.elements) * (f16_ ? 2 : 4)};
    vk.vkCmdCopyBuffer(cmd, s.staging.buffer, s.device.buffer, 1, &region);
    staged_in = true;
  }
  if (staged_in) {
    barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT);
  }
  if (stamps) {
    vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, 0);
  }
  for (size_t d = 0; d < plan_.dispatches.size(); ++d) {
    const Dispatch& dispatch = plan_.dispatches[d];
    TS_ASSIGN_OR_RETURN(VkPipeline pipeline, vk_->Pipeline(dispatch.shader, f16_));
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk_->pipeline_layout(), 0, 1, &sets[d], 0, nullptr);
    if (dispatch.push.size() * 4 > gpu::kPushConstantBytes) {
      return ExecutionError("node " + std::to_string(dispatch.node_index) + ": push constants too large");
    }
    vk.vkCmdPushConstants(cmd, vk_->pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          static_cast<uint32_t>(dispatch.push.size() * 4), dispatch.push.data());
    const uint64_t groups = (dispatch.work_items + gpu::kWorkgroupSize - 1) / gpu::kWorkgroupSize;
    const uint64_t gx = std::max<uint64_t>(1, std::min<uint64_t>(groups, vk_->max_workgroups_x()));
    const uint64_t gy = (groups + gx - 1) / gx;
    if (gy > vk_->max_workgroups_y()) {
      return ExecutionError("node " + std::to_string(dispatch.node_index) + " (" + dispatch.op_name +
                            "): too many work items (" + std::to_string(dispatch.work_items) + ")");
    }
    if (groups > 0) vk.vkCmdDispatch(cmd, static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), 1);
    barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    if (stamps) {
      vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, static_cast<uint32_t>(d + 1));
    }
  }
  bool staged_out = false;
  for (const Transfer& t : downloads_) {
    const Storage& s = storages_[t.storage];
    if (s.staging.buffer == VK_NULL_HANDLE || s.elements == 0) continue;
    if (!staged_out) {
      barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_TRANSFER_READ_BIT);
    }
    VkBufferCopy region{0, 0, static_cast<VkDeviceSize>(s.elements) * (f16_ ? 2 : 4)};
    vk.vkCmdCopyBuffer(cmd, s.device.buffer, s.staging.buffer, 1, &region);
    staged_out = true;
  }
  barrier(staged_out ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          staged_out ? VK_ACCESS_TRANSFER_WRITE_BIT : VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_HOST_READ_BIT);
  if (vk.vkEndCommandBuffer(cmd) != VK_SUCCESS) return ExecutionError("Vulkan: vkEndCommandBuffer failed");
  return Status::Ok();
}

Status GpuKernel::Record() {
  std::vector<VkDescriptorSet> sets;
  TS_RETURN_IF_ERROR(AllocateDescriptorSets(&sets));
  TS_RETURN_IF_ERROR(CreateCommandObjects());
  TS_RETURN_IF_ERROR(RecordCommands(command_buffer_, false, sets));
  if (vk_->supports_timestamps()) TS_RETURN_IF_ERROR(RecordCommands(profiled_command_buffer_, true, sets));
  // Buffer handles for the outputs.
  delegate_->UnregisterHandles(this);
  storage_handles_.clear();
  for (const Transfer& t : downloads_) {
    if (storage_handles_.count(t.storage) == 0)
      storage_handles_[t.storage] = delegate_->RegisterHandle(this, t.storage);
  }
  return Status::Ok();
}

TfLiteStatus GpuKernel::Eval(TfLiteContext* context, TfLiteNode* node) {
  if (!prepared_) {
    TF_LITE_KERNEL_LOG(context, "GPU delegate: the partition was not prepared");
    return kTfLiteError;
  }
  // Inputs: from host memory, or straight from another GPU partition's output.
  for (const Transfer& t : uploads_) {
    TfLiteTensor* tensor = &context->tensors[t.tensor];
    const int64_t n = storages_[t.storage].elements;
    if (n == 0) continue;
    void* dst = MutableHostView(t.storage);
    if (tensor->data_is_stale && tensor->delegate != nullptr && tensor->buffer_handle >= 0) {
      const void* src = nullptr;
      bool src_f16 = false;
      int64_t src_n = 0;
      if (tensor->delegate == node->delegate && delegate_->HandleView(tensor->buffer_handle, &src, &src_f16, &src_n) &&
          src_n == n) {
        ConvertDevice(src, src_f16, n, f16_, dst);
        continue;
      }
      if (tensor->delegate->CopyFromBufferHandle == nullptr ||
          tensor->delegate->CopyFromBufferHandle(context, tensor->delegate, tensor->buffer_handle, tensor) !=
              kTfLiteOk) {
        TF_LITE_KERNEL_LOG(context, "GPU delegate: input tensor %d is stale and cannot be copied back", t.tensor);
        return kTfLiteError;
      }
      tensor->data_is_stale = false;
    }
    if (tensor->data.raw == nullptr || tflite::NumElements(tensor) != n) {
      TF_LITE_KERNEL_LOG(context, "GPU delegate: input tensor %d has no data or another size", t.tensor);
      return kTfLiteError;
    }
    ConvertIn(*tensor, n, f16_, dst);
  }
  const gpu::VulkanFunctions& vk = vk_->vk();
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  const bool profiling = profiled_command_buffer_ != VK_NULL_HANDLE && (profile_ || context->profiler != nullptr);
  submit.pCommandBuffers = profiling ? &profiled_command_buffer_ : &command_buffer_;
  VkResult result = vk.vkQueueSubmit(vk_->queue(), 1, &submit, fence_);
  if (result == VK_SUCCESS) result = vk.vkWaitForFences(vk_->device(), 1, &fence_, VK_TRUE, kFenceTimeoutNs);
  if (result != VK_SUCCESS) {
    TF_LITE_KERNEL_LOG(context, "GPU delegate: the device failed to run the partition (VkResult %d)",
                       static_cast<int>(result));
    return kTfLiteError;
  }
  vk.vkResetFences(vk_->device(), 1, &fence_);
  if (profiling) {
    std::vector<uint64_t> stamps(plan_.dispatches.size() + 1);
    if (vk.vkGetQueryPoolResults(vk_->device(), query_pool_, 0, static_cast<uint32_t>(stamps.size()), stamps.size() * 8,
                                 stamps.data(), 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS) {
      last_profile_.clear();
      // Only timestampValidBits of a stamp count; the difference is taken modulo that width.
      const uint32_t bits = vk_->timestamp_valid_bits();
      const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      auto* profiler = static_cast<tflite::Profiler*>(context->profiler);
      for (size_t d = 0; d < plan_.dispatches.size(); ++d) {
        GpuOpTiming timing;
        timing.node_index = plan_.dispatches[d].node_index;
        timing.op_name = plan_.dispatches[d].op_name;
        timing.gpu_microseconds =
            static_cast<double>((stamps[d + 1] - stamps[d]) & mask) * vk_->timestamp_period_ns() / 1000.0;
        last_profile_.push_back(timing);
        // Measured after the fact, so reported with its elapsed time (as TFLite's GPU delegate does).
        if (profiler != nullptr) {
          profiler->AddEvent(plan_.dispatches[d].op_name.c_str(),
                             tflite::Profiler::EventType::DELEGATE_OPERATOR_INVOKE_EVENT,
                             static_cast<uint64_t>(std::llround(timing.gpu_microseconds)), timing.node_index);
        }
      }
    }
  }
  // Outputs stay on the device behind their handles until something reads them.
  for (const Transfer& t : downloads_) {
    TfLiteTensor* tensor = &context->tensors[t.tensor];
    tensor->buffer_handle = storage_handles_[t.storage];
    tensor->delegate = node->delegate;
    tensor->data_is_stale = true;
  }
  return kTfLiteOk;
}

GpuDelegate* AsGpuDelegate(TfLiteDelegate* delegate) {
  if (delegate == nullptr || delegate->data_ == nullptr) return nullptr;
  return dynamic_cast<GpuDelegate*>(static_cast<tflite::SimpleDelegateInterface*>(delegate->data_));
}

}  // namespace

TfLiteDelegate* TfLiteGpuDelegateCreate(const GpuDelegateOptions* options) {
  return tflite::TfLiteDelegateFactory::CreateSimpleDelegate(
      std::make_unique<GpuDelegate>(options != nullptr ? *options : GpuDelegateOptions()));
}

void TfLiteGpuDelegateDelete(TfLiteDelegate* delegate) {
  tflite::TfLiteDelegateFactory::DeleteSimpleDelegate(delegate);
}

std::string GpuDelegateDeviceDescription(TfLiteDelegate* delegate) {
  GpuDelegate* d = AsGpuDelegate(delegate);
  return d != nullptr ? d->description() : std::string();
}

bool GpuDelegateUsesFloat16(TfLiteDelegate* delegate) {
  GpuDelegate* d = AsGpuDelegate(delegate);
  return d != nullptr && d->use_f16();
}

std::vector<GpuOpTiming> GpuDelegateLastProfile(TfLiteDelegate* delegate) {
  GpuDelegate* d = AsGpuDelegate(delegate);
  return d != nullptr ? d->Profile() : std::vector<GpuOpTiming>();
}

}  // namespace touchstone
