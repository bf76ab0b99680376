// Vulkan for the GPU delegate, through the Vulkan headers only: the loader (libvulkan.so.1) is opened
// at run time with dlopen and every entry point comes from vkGetInstanceProcAddr /
// vkGetDeviceProcAddr, so binaries start where Vulkan is absent and the delegate then reports it in
// one line.
//
// VulkanContext owns the instance, the chosen device and its compute queue, the pipeline cache, the
// one descriptor-set layout and pipeline layout every shader uses (kMaxBindings storage buffers and
// kPushConstantBytes of push constants), and the compute pipelines, made on first use per shader and
// precision. Buffers are device memory, mapped when the device lets the host see it (integrated GPUs,
// CPU devices such as lavapipe), else paired with host-visible staging buffers.
#ifndef TOUCHSTONE_DELEGATES_GPU_VULKAN_CONTEXT_H_
#define TOUCHSTONE_DELEGATES_GPU_VULKAN_CONTEXT_H_

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "delegates/gpu/shader_library.h"
#include "runtime/status.h"

namespace touchstone {
namespace gpu {

constexpr int kMaxBindings = 6;
constexpr uint32_t kPushConstantBytes = 128;
constexpr uint32_t kWorkgroupSize = 64;  // local_size_x of every shader (shaders/common.glsl)

// The entry points the delegate uses.
struct VulkanFunctions {
#define TS_VK_FUNCTIONS(X)                                                                                     \
  X(vkDestroyInstance)                                                                                         \
  X(vkEnumeratePhysicalDevices)                                                                                \
  X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceFeatures2) X(vkGetPhysicalDeviceQueueFamilyProperties) \
      X(vkGetPhysicalDeviceMemoryProperties) X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice)         \
          X(vkGetDeviceProcAddr)
#define TS_VK_DEVICE_FUNCTIONS(X)                                                                                      \
  X(vkDestroyDevice)                                                                                                   \
  X(vkGetDeviceQueue)                                                                                                  \
  X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory)            \
      X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory) X(vkCreateShaderModule) X(vkDestroyShaderModule)           \
          X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(                  \
              vkDestroyPipelineLayout) X(vkCreatePipelineCache) X(vkDestroyPipelineCache) X(vkCreateComputePipelines)  \
              X(vkDestroyPipeline) X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets)    \
                  X(vkUpdateDescriptorSets) X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) \
                      X(vkFreeCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline)       \
                          X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdPipelineBarrier)    \
                              X(vkCmdCopyBuffer) X(vkCmdWriteTimestamp) X(vkCmdResetQueryPool) X(vkCreateQueryPool)    \
                                  X(vkDestroyQueryPool) X(vkGetQueryPoolResults) X(vkQueueSubmit) X(vkCreateFence)     \
                                      X(vkDestroyFence) X(vkWaitForFences) X(vkResetFences) X(vkDeviceWaitIdle)
#define TS_VK_DECLARE(name) PFN_##name name = nullptr;
  TS_VK_FUNCTIONS(TS_VK_DECLARE)
  TS_VK_DEVICE_FUNCTIONS(TS_VK_DECLARE)
#undef TS_VK_DECLARE
};

struct VulkanOptions {
  // -1: the first discrete GPU, else the first integrated one, else any other (virtual, CPU).
  int device_index = -1;
  // Ask for float16 storage and arithmetic (used when the device has both).
  bool want_float16 = true;
  // The loader library (libvulkan.so.1, else Android's libvulkan.so); the environment variable
  // TOUCHSTONE_VULKAN_LOADER overrides it (tests point it at nothing to check the fallback).
  std::string loader = "libvulkan.so.1";
};

// A device buffer (and its memory). `mapped` is non-null when the host can see the memory.
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  size_t bytes = 0;
  void* mapped = nullptr;
};

class VulkanContext {
 public:
  // Errors (kExecution) are one line: "no Vulkan loader (libvulkan.so.1: ...)", "no Vulkan device",
  // "--gpu_device_index=3: there are 2 Vulkan devices", ...
  static StatusOr<std::shared_ptr<VulkanContext>> Create(const VulkanOptions& options);
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  const VulkanFunctions& vk() const { return vk_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  VkPipelineLayout pipeline_layout() const { return pipeline_layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }

  // "llvmpipe (LLVM 15.0.6, 256 bits)", its index among the devices, and its kind ("cpu", ...).
  const std::string& device_name() const { return device_name_; }
  int device_index() const { return device_index_; }
  const char* device_kind() const;
  // The device's float16 support: 16-bit storage buffers and float16 arithmetic.
  bool supports_float16() const { return supports_float16_; }
  // Float16 was asked for and the device has it: the float16 shaders may run.
  bool float16_enabled() const { return float16_enabled_; }
  // Timestamps on the compute queue; nanoseconds per tick.
  bool supports_timestamps() const { return timestamp_valid_bits_ > 0; }
  float timestamp_period_ns() const { return timestamp_period_ns_; }
  uint32_t timestamp_valid_bits() const { return timestamp_valid_bits_; }
  uint32_t max_workgroups_x() const { return max_workgroups_[0]; }
  uint32_t max_workgroups_y() const { return max_workgroups_[1]; }
  // True when device buffers are host-visible and coherent (no staging needed).
  bool unified_memory() const { return unified_memory_; }

  // A buffer of at least `bytes` (rounded up to 16). host_visible: in host-visible coherent memory
  // (staging); otherwise device-local, mapped when that memory is host-visible.
  StatusOr<Buffer> CreateBuffer(size_t bytes, bool host_visible);
  void DestroyBuffer(Buffer* buffer);

  // The compute pipeline of `shader` in float16 or float32 (made on first use, kept).
  StatusOr<VkPipeline> Pipeline(ShaderId shader, bool float16);

  // A 16-byte buffer bound to unused bindings.
  VkBuffer dummy_buffer() const { return dummy_.buffer; }

 private:
  VulkanContext() = default;
  Status Init(const VulkanOptions& options);
  Status InitDevice(const VulkanOptions& options);
  // InitDevice's steps, in order.
  Status ChoosePhysicalDevice(const VulkanOptions& options);
  Status ReadDeviceProperties(VkPhysicalDeviceProperties* properties);
  Status CreateLogicalDevice(const VulkanOptions& options, const VkPhysicalDeviceProperties& properties);
  Status CreateLayouts();
  StatusOr<uint32_t> FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags required,
                                    VkMemoryPropertyFlags preferred) const;

  void* library_ = nullptr;
  VulkanFunctions vk_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPhysicalDeviceMemoryProperties memory_properties_{};
  VkPhysicalDeviceType device_type_ = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  std::string device_name_;
  int device_index_ = -1;
  bool supports_float16_ = false;
  bool float16_enabled_ = false;
  uint32_t timestamp_valid_bits_ = 0;
  float timestamp_period_ns_ = 1.0f;
  uint32_t max_workgroups_[3] = {65535, 65535, 65535};
  bool unified_memory_ = false;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  std::vector<VkPipeline> pipelines_;  // [shader * 2 + float16]
  Buffer dummy_;
};

}  // namespace gpu
}  // namespace touchstone

#endif  // TOUCHSTONE_DELEGATES_GPU_VULKAN_CONTEXT_H_
