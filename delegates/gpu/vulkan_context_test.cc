// The Vulkan context: device selection, pipelines for every shader, buffers, and
// the one-line errors when there is no loader or no device. Tests that need a device skip with a
// message when none is found, unless CI=true (CI installs lavapipe, so they must run there).
#include "delegates/gpu/vulkan_context.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace touchstone {
namespace gpu {
namespace {

bool UnderCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// The context, or null after a skip/failure message.
std::shared_ptr<VulkanContext> ContextOrSkip(bool float16 = true) {
  // Mesa writes its shader cache under $HOME, read-only in Bazel's sandbox; give it the test's folder.
  const char* tmp = std::getenv("TEST_TMPDIR");
  if (tmp != nullptr && std::getenv("MESA_SHADER_CACHE_DIR") == nullptr) setenv("MESA_SHADER_CACHE_DIR", tmp, 1);
  VulkanOptions options;
  options.want_float16 = float16;
  StatusOr<std::shared_ptr<VulkanContext>> vk = VulkanContext::Create(options);
  if (!vk.ok()) {
    if (UnderCi()) {
      ADD_FAILURE() << "CI=true but Vulkan is unavailable: " << vk.status().message();
    } else {
      std::cout << "skip: " << vk.status().message() << std::endl;
    }
    return nullptr;
  }
  return vk.value();
}

TEST(VulkanContextTest, NoLoaderIsOneLine) {
  VulkanOptions options;
  options.loader = "/nonexistent/libvulkan.so.1";
  const char* saved = std::getenv("TOUCHSTONE_VULKAN_LOADER");
  unsetenv("TOUCHSTONE_VULKAN_LOADER");
  StatusOr<std::shared_ptr<VulkanContext>> vk = VulkanContext::Create(options);
  if (saved != nullptr) setenv("TOUCHSTONE_VULKAN_LOADER", saved, 1);
  ASSERT_FALSE(vk.ok());
  EXPECT_EQ(vk.status().code(), StatusCode::kExecution);
  EXPECT_NE(vk.status().message().find("no Vulkan loader"), std::string::npos) << vk.status().message();
  EXPECT_EQ(vk.status().message().find('\n'), std::string::npos);
}

TEST(VulkanContextTest, DeviceAndPipelines) {
  std::shared_ptr<VulkanContext> vk = ContextOrSkip();
  if (vk == nullptr) return;
  std::cout << "device: " << vk->device_name() << " (" << vk->device_kind() << "), float16 "
            << (vk->supports_float16() ? "yes" : "no") << ", timestamps " << (vk->supports_timestamps() ? "yes" : "no")
            << std::endl;
  EXPECT_FALSE(vk->device_name().empty());
  EXPECT_GE(vk->device_index(), 0);
  for (int s = 0; s < static_cast<int>(ShaderId::kCount); ++s) {
    StatusOr<VkPipeline> f32 = vk->Pipeline(static_cast<ShaderId>(s), false);
    EXPECT_TRUE(f32.ok()) << f32.status().message();
    if (vk->float16_enabled()) {
      StatusOr<VkPipeline> f16 = vk->Pipeline(static_cast<ShaderId>(s), true);
      EXPECT_TRUE(f16.ok()) << f16.status().message();
      // Made once.
      EXPECT_EQ(vk->Pipeline(static_cast<ShaderId>(s), true).value(), f16.value());
    }
  }
  StatusOr<Buffer> buffer = vk->CreateBuffer(1000, true);
  ASSERT_TRUE(buffer.ok()) << buffer.status().message();
  EXPECT_NE(buffer.value().mapped, nullptr);
  EXPECT_GE(buffer.value().bytes, 1000u);
  vk->DestroyBuffer(&buffer.value());
}

TEST(VulkanContextTest, DeviceIndexOutOfRange) {
  if (ContextOrSkip() == nullptr) return;
  VulkanOptions options;
  options.device_index = 99;
  StatusOr<std::shared_ptr<VulkanContext>> vk = VulkanContext::Create(options);
  ASSERT_FALSE(vk.ok());
  EXPECT_NE(vk.status().message().find("--gpu_device_index=99"), std::string::npos) << vk.status().message();
}

TEST(VulkanContextTest, Float32OnlyWhenNotWanted) {
  std::shared_ptr<VulkanContext> vk = ContextOrSkip(/*float16=*/false);
  if (vk == nullptr) return;
  EXPECT_FALSE(vk->float16_enabled());
}

}  // namespace
}  // namespace gpu
}  // namespace touchstone
