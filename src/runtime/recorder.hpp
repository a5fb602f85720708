#pragma once
// Records several dispatches (and copies, barriers, timestamps) into one command buffer and submits them
// together. GPU time comes from timestamp queries, converted with the device's timestampPeriod.
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <vector>

#include "runtime/buffer.hpp"
#include "runtime/pipeline.hpp"

namespace vkgemm {

class Context;

struct BufferBinding {
  uint32_t set = 0;
  uint32_t binding = 0;
  const Buffer* buffer = nullptr;
  VkDeviceSize offset = 0;
  VkDeviceSize range = VK_WHOLE_SIZE;
};

class Recorder {
 public:
  // max_timestamps: how many timestamp() calls this recording may make.
  explicit Recorder(Context& ctx, uint32_t max_timestamps = 0);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Binds `bindings` (checked against the pipeline's layout), pushes constants and dispatches.
  // Throws InvalidArgument (nothing recorded) if a binding is missing or the group count is over the device
  // limit.
  void dispatch(const Pipeline& pipeline, const std::vector<BufferBinding>& bindings,
                std::array<uint32_t, 3> groups, const void* push_constants = nullptr,
                uint32_t push_bytes = 0);
  // Makes all earlier shader and transfer writes visible to later shader and transfer accesses.
  void barrier();
  void copy(const Buffer& src, Buffer& dst, VkDeviceSize bytes, VkDeviceSize src_offset = 0,
            VkDeviceSize dst_offset = 0);
  void fill(Buffer& dst, uint32_t pattern);
  // Writes a GPU timestamp after all earlier work; returns its index.
  uint32_t timestamp();

  void submit();
  void wait();
  // submit() + wait().
  void run() {
    submit();
    wait();
  }
  // GPU milliseconds between two timestamps (after wait()).
  double elapsed_ms(uint32_t from, uint32_t to) const;
  uint32_t dispatch_count() const { return dispatches_; }

 private:
  VkDescriptorSet allocate_set(VkDescriptorSetLayout layout);
  Context& ctx_;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  uint32_t max_timestamps_ = 0;
  uint32_t timestamps_ = 0;
  uint32_t dispatches_ = 0;
  std::vector<VkDescriptorPool> pools_;
  uint32_t sets_in_pool_ = 0;
  std::vector<uint64_t> results_;
  enum class State { Recording, Submitted, Done } state_ = State::Recording;
};

}  // namespace vkgemm
