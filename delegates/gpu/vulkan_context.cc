#include "delegates/gpu/vulkan_context.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <utility>

namespace touchstone {
namespace gpu {
namespace {

std::string VkResultName(VkResult result) {
  switch (result) {
    case VK_SUCCESS:
      return "VK_SUCCESS";
    case VK_NOT_READY:
      return "VK_NOT_READY";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    case VK_INCOMPLETE:
      return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED:
      return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT:
      return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS:
      return "VK_ERROR_TOO_MANY_OBJECTS";
    default:
      return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

Status VkError(const std::string& what, VkResult result) {
  return ExecutionError("Vulkan: " + what + " failed (" + VkResultName(result) + ")");
}

#define TS_VK_CHECK(call, what)                                           \
  do {                                                                    \
    VkResult _ts_vk_result = (call);                                      \
    if (_ts_vk_result != VK_SUCCESS) return VkError(what, _ts_vk_result); \
  } while (0)

int DeviceRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

const char* VulkanContext::device_kind() const {
  switch (device_type_) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

StatusOr<std::shared_ptr<VulkanContext>> VulkanContext::Create(const VulkanOptions& options) {
  std::shared_ptr<VulkanContext> context(new VulkanContext());
  Status status = context->Init(options);
  if (!status.ok()) return status;
  return context;
}

Status VulkanContext::Init(const VulkanOptions& options) {
  std::string loader = options.loader;
  const char* env = std::getenv("TOUCHSTONE_VULKAN_LOADER");
  if (env != nullptr) loader = env;
  library_ = dlopen(loader.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* error = dlerror();
    const std::string why = error != nullptr ? error : loader;
    // Android names its loader libvulkan.so (no version suffix).
    if (env == nullptr && loader == "libvulkan.so.1") library_ = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) return ExecutionError("no Vulkan loader (" + why + ")");
  }
  auto get_instance_proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library_, "vkGetInstanceProcAddr"));
  if (get_instance_proc == nullptr) {
    return ExecutionError("no Vulkan loader (" + loader + " has no vkGetInstanceProcAddr)");
  }
  auto create_instance = reinterpret_cast<PFN_vkCreateInstance>(get_instance_proc(VK_NULL_HANDLE, "vkCreateInstance"));
  auto enumerate_version =
      reinterpret_cast<PFN_vkEnumerateInstanceVersion>(get_instance_proc(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  if (create_instance == nullptr) return ExecutionError("no Vulkan loader (" + loader + " lacks vkCreateInstance)");
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (enumerate_version != nullptr) enumerate_version(&loader_version);
  if (loader_version < VK_API_VERSION_1_1) {
    return ExecutionError("the Vulkan loader is version 1.0; the GPU delegate needs Vulkan 1.1");
  }

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "touchstone";
  app.pEngineName = "touchstone-gpu-delegate";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo instance_info{};
  instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instance_info.pApplicationInfo = &app;
  const VkResult created = create_instance(&instance_info, nullptr, &instance_);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER) {
    return ExecutionError("no Vulkan device (the loader found no driver)");
  }
  TS_VK_CHECK(created, "vkCreateInstance");

#define TS_VK_LOAD(name)                                                        \
  vk_.name = reinterpret_cast<PFN_##name>(get_instance_proc(instance_, #name)); \
  if (vk_.name == nullptr) return ExecutionError("Vulkan: the loader lacks " #name);
  TS_VK_FUNCTIONS(TS_VK_LOAD)
#undef TS_VK_LOAD
  return InitDevice(options);
}

// Picks the device (--gpu_device_index, else the best-ranked with a compute queue and Vulkan 1.1).
Status VulkanContext::ChoosePhysicalDevice(const VulkanOptions& options) {
  uint32_t count = 0;
  TS_VK_CHECK(vk_.vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  if (count > 0) {
    TS_VK_CHECK(vk_.vkEnumeratePhysicalDevices(instance_, &count, devices.data()), "vkEnumeratePhysicalDevices");
  }
  devices.resize(count);
  if (devices.empty()) return ExecutionError("no Vulkan device (the loader found no physical device)");

  // Devices with a compute queue and Vulkan 1.1, as candidates.
  auto compute_family = [this](VkPhysicalDevice device) -> int {
    uint32_t n = 0;
    vk_.vkGetPhysicalDeviceQueueFamilyProperties(device, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vk_.vkGetPhysicalDeviceQueueFamilyProperties(device, &n, families.data());
    for (uint32_t i = 0; i < n; ++i) {
      if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0 && families[i].queueCount > 0) {
        return static_cast<int>(i);
      }
    }
    return -1;
  };
  int chosen = -1;
  if (options.device_index >= 0) {
    if (options.device_index >= static_cast<int>(devices.size())) {
      return UsageError(
          "--gpu_device_index=" + std::to_string(options.device_index) + ": there " +
          (devices.size() == 1 ? "is 1 Vulkan device" : "are " + std::to_string(devices.size()) + " Vulkan devices") +
          " (indices from 0)");
    }
    chosen = options.device_index;
    if (compute_family(devices[chosen]) < 0) {
      return ExecutionError("--gpu_device_index=" + std::to_string(chosen) + ": the device has no compute queue");
    }
  } else {
    int best_rank = 100;
    for (size_t i = 0; i < devices.size(); ++i) {
      VkPhysicalDeviceProperties properties;
      vk_.vkGetPhysicalDeviceProperties(devices[i], &properties);
      if (properties.apiVersion < VK_API_VERSION_1_1 || compute_family(devices[i]) < 0) continue;
      const int rank = DeviceRank(properties.deviceType);
      if (rank < best_rank) {
        best_rank = rank;
        chosen = static_cast<int>(i);
      }
    }
    if (chosen < 0) return ExecutionError("no Vulkan device with a compute queue and Vulkan 1.1");
  }
  physical_device_ = devices[chosen];
  device_index_ = chosen;
  queue_family_ = static_cast<uint32_t>(compute_family(physical_device_));

  return Status::Ok();
}

// The chosen device's limits, memory types and what it can do.
Status VulkanContext::ReadDeviceProperties(VkPhysicalDeviceProperties* properties_out) {
  VkPhysicalDeviceProperties& properties = *properties_out;
  vk_.vkGetPhysicalDeviceProperties(physical_device_, &properties);
  if (properties.apiVersion < VK_API_VERSION_1_1) {
    return ExecutionError("Vulkan device " + std::to_string(device_index_) + " (" + properties.deviceName +
                          ") supports only Vulkan 1.0; the GPU delegate needs 1.1");
  }
  device_name_ = properties.deviceName;
  device_type_ = properties.deviceType;
  timestamp_period_ns_ = properties.limits.timestampPeriod;
  for (int i = 0; i < 3; ++i) max_workgroups_[i] = properties.limits.maxComputeWorkGroupCount[i];
  if (properties.limits.maxPushConstantsSize < kPushConstantBytes) {
    return ExecutionError("Vulkan device " + device_name_ + " has only " +
                          std::to_string(properties.limits.maxPushConstantsSize) + " bytes of push constants");
  }
  {
    uint32_t n = 0;
    vk_.vkGetPhysicalDeviceQueueFamilyProperties(physical_device_, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vk_.vkGetPhysicalDeviceQueueFamilyProperties(physical_device_, &n, families.data());
    // Zero when the queue cannot write timestamps.
    timestamp_valid_bits_ = families[queue_family_].timestampValidBits;
  }
  vk_.vkGetPhysicalDeviceMemoryProperties(physical_device_, &memory_properties_);

  return Status::Ok();
}

// The logical device (float16 where asked for and supported), its functions and its queue.
Status VulkanContext::CreateLogicalDevice(const VulkanOptions& options, const VkPhysicalDeviceProperties& properties) {
  // Float16: 16-bit storage buffers (core in 1.1) and float16 arithmetic (VK_KHR_shader_float16_int8,
  // core in 1.2).
  std::vector<const char*> extensions;
  bool has_float16_extension = properties.apiVersion >= VK_API_VERSION_1_2;
  if (!has_float16_extension) {
    uint32_t n = 0;
    vk_.vkEnumerateDeviceExtensionProperties(physical_device_, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> available(n);
    vk_.vkEnumerateDeviceExtensionProperties(physical_device_, nullptr, &n, available.data());
    for (const VkExtensionProperties& e : available) {
      if (std::strcmp(e.extensionName, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME) == 0) {
        has_float16_extension = true;
        extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
      }
    }
  }
  VkPhysicalDeviceShaderFloat16Int8Features float16_features{};
  float16_features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDevice16BitStorageFeatures storage_features{};
  storage_features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  if (has_float16_extension) storage_features.pNext = &float16_features;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &storage_features;
  vk_.vkGetPhysicalDeviceFeatures2(physical_device_, &features);
  supports_float16_ = has_float16_extension && float16_features.shaderFloat16 == VK_TRUE &&
                      storage_features.storageBuffer16BitAccess == VK_TRUE;

  // Enable only what is used.
  VkPhysicalDeviceShaderFloat16Int8Features enable_float16{};
  enable_float16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDevice16BitStorageFeatures enable_storage{};
  enable_storage.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  const bool use_float16 = supports_float16_ && options.want_float16;
  if (use_float16) {
    enable_float16.shaderFloat16 = VK_TRUE;
    enable_storage.storageBuffer16BitAccess = VK_TRUE;
    enable_storage.pNext = &enable_float16;
  }
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = use_float16 ? &enable_storage : nullptr;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = use_float16 ? static_cast<uint32_t>(extensions.size()) : 0;
  device_info.ppEnabledExtensionNames = extensions.data();
  TS_VK_CHECK(vk_.vkCreateDevice(physical_device_, &device_info, nullptr, &device_), "vkCreateDevice");
  float16_enabled_ = use_float16;

#define TS_VK_LOAD_DEVICE(name)                                                     \
  vk_.name = reinterpret_cast<PFN_##name>(vk_.vkGetDeviceProcAddr(device_, #name)); \
  if (vk_.name == nullptr) return ExecutionError("Vulkan: the device lacks " #name);
  TS_VK_DEVICE_FUNCTIONS(TS_VK_LOAD_DEVICE)
#undef TS_VK_LOAD_DEVICE
  vk_.vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

  return Status::Ok();
}

// One descriptor-set layout and pipeline layout for every shader, and the pipeline cache.
Status VulkanContext::CreateLayouts() {
  // One layout for every shader: kMaxBindings storage buffers and the push constants.
  std::array<VkDescriptorSetLayoutBinding, kMaxBindings> bindings{};
  for (int i = 0; i < kMaxBindings; ++i) {
    bindings[i].binding = static_cast<uint32_t>(i);
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info{};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_info.bindingCount = kMaxBindings;
  set_info.pBindings = bindings.data();
  TS_VK_CHECK(vk_.vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &set_layout_),
              "vkCreateDescriptorSetLayout");
  VkPushConstantRange push{};
  push.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push.offset = 0;
  push.size = kPushConstantBytes;
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout_;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  TS_VK_CHECK(vk_.vkCreatePipelineLayout(device_, &layout_info, nullptr, &pipeline_layout_), "vkCreatePipelineLayout");
  VkPipelineCacheCreateInfo cache_info{};
  cache_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  TS_VK_CHECK(vk_.vkCreatePipelineCache(device_, &cache_info, nullptr, &pipeline_cache_), "vkCreatePipelineCache");
  pipelines_.assign(static_cast<size_t>(ShaderId::kCount) * 2, VK_NULL_HANDLE);

  return Status::Ok();
}

Status VulkanContext::InitDevice(const VulkanOptions& options) {
  TS_RETURN_IF_ERROR(ChoosePhysicalDevice(options));
  VkPhysicalDeviceProperties properties;
  TS_RETURN_IF_ERROR(ReadDeviceProperties(&properties));
  TS_RETURN_IF_ERROR(CreateLogicalDevice(options, properties));
  // Unified memory: a device-local type that is also host-visible and coherent, or no device-local
  // type at all.
  unified_memory_ = false;
  for (uint32_t i = 0; i < memory_properties_.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags flags = memory_properties_.memoryTypes[i].propertyFlags;
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0 && (flags & host) == host) unified_memory_ = true;
  }

  TS_RETURN_IF_ERROR(CreateLayouts());
  TS_ASSIGN_OR_RETURN(dummy_, CreateBuffer(16, false));
  return Status::Ok();
}

VulkanContext::~VulkanContext() {
  if (device_ != VK_NULL_HANDLE) {
    vk_.vkDeviceWaitIdle(device_);
    DestroyBuffer(&dummy_);
    for (VkPipeline pipeline : pipelines_) {
      if (pipeline != VK_NULL_HANDLE) vk_.vkDestroyPipeline(device_, pipeline, nullptr);
    }
    if (pipeline_cache_ != VK_NULL_HANDLE) vk_.vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
    if (pipeline_layout_ != VK_NULL_HANDLE) vk_.vkDestroyPipelineLayout(device_, pipeline_layout_, nullptr);
    if (set_layout_ != VK_NULL_HANDLE) vk_.vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    vk_.vkDestroyDevice(device_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE && vk_.vkDestroyInstance != nullptr) vk_.vkDestroyInstance(instance_, nullptr);
  // The loader stays loaded: drivers may keep threads or atexit handlers that point into it.
}

StatusOr<uint32_t> VulkanContext::FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags required,
                                                 VkMemoryPropertyFlags preferred) const {
  for (int pass = 0; pass < 2; ++pass) {
    const VkMemoryPropertyFlags wanted = pass == 0 ? (required | preferred) : required;
    for (uint32_t i = 0; i < memory_properties_.memoryTypeCount; ++i) {
      if ((type_bits & (1u << i)) != 0 && (memory_properties_.memoryTypes[i].propertyFlags & wanted) == wanted) {
        return i;
      }
    }
  }
  return ExecutionError("Vulkan: no suitable memory type");
}

StatusOr<Buffer> VulkanContext::CreateBuffer(size_t bytes, bool host_visible) {
  Buffer buffer;
  buffer.bytes = (std::max<size_t>(bytes, 16) + 15) / 16 * 16;
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = buffer.bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult result = vk_.vkCreateBuffer(device_, &info, nullptr, &buffer.buffer);
  if (result != VK_SUCCESS) return VkError("vkCreateBuffer of " + std::to_string(bytes) + " bytes", result);
  VkMemoryRequirements requirements;
  vk_.vkGetBufferMemoryRequirements(device_, buffer.buffer, &requirements);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  StatusOr<uint32_t> type =
      host_visible ? FindMemoryType(requirements.memoryTypeBits, host, VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
                   : FindMemoryType(requirements.memoryTypeBits, 0,
                                    unified_memory_
                                        ? static_cast<VkMemoryPropertyFlags>(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | host)
                                        : static_cast<VkMemoryPropertyFlags>(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
  if (!type.ok()) {
    DestroyBuffer(&buffer);
    return type.status();
  }
  VkMemoryAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = type.value();
  result = vk_.vkAllocateMemory(device_, &allocate, nullptr, &buffer.memory);
  if (result != VK_SUCCESS) {
    DestroyBuffer(&buffer);
    return VkError("vkAllocateMemory of " + std::to_string(requirements.size) + " bytes", result);
  }
  result = vk_.vkBindBufferMemory(device_, buffer.buffer, buffer.memory, 0);
  if (result != VK_SUCCESS) {
    DestroyBuffer(&buffer);
    return VkError("vkBindBufferMemory", result);
  }
  const VkMemoryPropertyFlags flags = memory_properties_.memoryTypes[type.value()].propertyFlags;
  if ((flags & host) == host) {
    result = vk_.vkMapMemory(device_, buffer.memory, 0, VK_WHOLE_SIZE, 0, &buffer.mapped);
    if (result != VK_SUCCESS) {
      DestroyBuffer(&buffer);
      return VkError("vkMapMemory", result);
    }
  }
  return buffer;
}

void VulkanContext::DestroyBuffer(Buffer* buffer) {
  if (buffer->buffer != VK_NULL_HANDLE) vk_.vkDestroyBuffer(device_, buffer->buffer, nullptr);
  if (buffer->memory != VK_NULL_HANDLE) vk_.vkFreeMemory(device_, buffer->memory, nullptr);  // unmaps too
  *buffer = Buffer();
}

StatusOr<VkPipeline> VulkanContext::Pipeline(ShaderId shader, bool float16) {
  VkPipeline& slot = pipelines_[static_cast<size_t>(shader) * 2 + (float16 ? 1 : 0)];
  if (slot != VK_NULL_HANDLE) return slot;
  const SpirvCode code = ShaderCode(shader, float16);
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = code.size_bytes;
  module_info.pCode = code.words;
  VkShaderModule module = VK_NULL_HANDLE;
  TS_VK_CHECK(vk_.vkCreateShaderModule(device_, &module_info, nullptr, &module),
              std::string("vkCreateShaderModule (") + code.name + ")");
  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.layout = pipeline_layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult result = vk_.vkCreateComputePipelines(device_, pipeline_cache_, 1, &info, nullptr, &pipeline);
  vk_.vkDestroyShaderModule(device_, module, nullptr);
  if (result != VK_SUCCESS) {
    return VkError(std::string("vkCreateComputePipelines (") + code.name + (float16 ? ", float16)" : ", float32)"),
                   result);
  }
  slot = pipeline;
  return pipeline;
}

}  // namespace gpu
}  // namespace touchstone
