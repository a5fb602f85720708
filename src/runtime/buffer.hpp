#pragma once
// A Vulkan buffer with its own memory. Move-only; freed on destruction.
#include <vulkan/vulkan.h>

#include <cstddef>

namespace vkgemm {

enum class BufferUsage {
  Storage,  // device-local storage buffer (kernel inputs/outputs), also a copy source/destination
  Uniform,  // small uniform block (e.g. dims)
  Staging,  // host-visible, for uploads and downloads
};

class Context;

class Buffer {
 public:
  Buffer() = default;
  Buffer(Context& ctx, size_t bytes, BufferUsage usage);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  size_t size() const { return size_; }
  BufferUsage usage() const { return usage_; }
  bool host_visible() const { return mapped_ != nullptr; }
  // Host pointer for host-visible memory (nullptr otherwise).
  void* mapped() const { return mapped_; }
  explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

 private:
  void release();
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  size_t size_ = 0;
  BufferUsage usage_ = BufferUsage::Storage;
};

}  // namespace vkgemm
