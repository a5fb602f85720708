#pragma once
// The Vulkan context: instance (optionally with the Khronos validation layer), the chosen device, one compute
// queue, a command pool, and the per-device pipeline cache. Everything else in the runtime hangs off it.
#include <vulkan/vulkan.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/buffer.hpp"
#include "runtime/device_info.hpp"
#include "runtime/error.hpp"
#include "runtime/pipeline.hpp"

namespace vkgemm {

struct ContextOptions {
  // Device choice: "" = best (discrete > integrated > virtual > CPU), a number = index in --list-devices
  // order, anything else = case-insensitive substring of the device name. Empty falls back to $VKGEMM_DEVICE.
  std::string device;
  // Enables VK_LAYER_KHRONOS_validation. Unset falls back to $VKGEMM_VALIDATION (1/0).
  std::optional<bool> validation;
  // Receives every validation warning and error (default: print to stderr).
  std::function<void(const std::string&)> on_validation_message;
};

class Context {
 public:
  explicit Context(const ContextOptions& options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Every Vulkan device visible to the loader, with its facts (creates a throwaway instance).
  static std::vector<DeviceInfo> list_devices();

  const DeviceInfo& info() const { return info_; }
  VkDevice device() const { return device_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  VkCommandPool command_pool() const { return command_pool_; }
  bool validation_enabled() const { return validation_; }
  // Number of validation warnings/errors seen so far (0 without validation).
  size_t validation_message_count() const { return validation_messages_; }
  // Whether the extension/feature was enabled at device creation.
  bool coopmat_enabled() const { return coopmat_enabled_; }

  Buffer create_buffer(size_t bytes, BufferUsage usage = BufferUsage::Storage);
  // Copies host data into a buffer / device data back to the host (synchronous; staging as needed).
  void upload(Buffer& dst, const void* data, size_t bytes, size_t dst_offset = 0);
  void download(const Buffer& src, void* data, size_t bytes, size_t src_offset = 0);
  template <typename T>
  void upload(Buffer& dst, std::span<const T> data) {
    upload(dst, data.data(), data.size_bytes());
  }
  template <typename T>
  std::vector<T> download(const Buffer& src, size_t count) {
    std::vector<T> out(count);
    download(src, out.data(), count * sizeof(T));
    return out;
  }
  // Fills a buffer with a repeated 32-bit pattern (used to poison outputs in tests).
  void fill(Buffer& dst, uint32_t pattern);

  // Returns the pipeline for (SPIR-V, entry, layout, specialization), creating it on first use.
  const Pipeline& pipeline(const PipelineDesc& desc);

  // Runs `record` into a one-time command buffer, submits it and waits.
  void run_once(const std::function<void(VkCommandBuffer)>& record);

 private:
  friend struct ValidationSink;
  void destroy();
  void on_validation(const std::string& message);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  DeviceInfo info_;
  bool validation_ = false;
  bool coopmat_enabled_ = false;
  size_t validation_messages_ = 0;
  std::function<void(const std::string&)> on_validation_message_;
  std::mutex pipelines_mutex_;
  std::map<std::string, std::unique_ptr<Pipeline>> pipelines_;
};

}  // namespace vkgemm
