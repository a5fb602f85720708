#include "runtime/recorder.hpp"

#include <algorithm>
#include <string>

#include "runtime/context.hpp"

namespace vkgemm {

namespace {
constexpr uint32_t kSetsPerPool = 64;
}

Recorder::Recorder(Context& ctx, uint32_t max_timestamps) : ctx_(ctx), max_timestamps_(max_timestamps) {
  VkDevice dev = ctx_.device();
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = ctx_.command_pool();
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  check(vkAllocateCommandBuffers(dev, &ai, &cmd_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkResult r = vkCreateFence(dev, &fci, nullptr, &fence_);
  if (r == VK_SUCCESS && max_timestamps_ > 0) {
    if (ctx_.info().timestamp_valid_bits == 0) {
      vkDestroyFence(dev, fence_, nullptr);
      vkFreeCommandBuffers(dev, ctx_.command_pool(), 1, &cmd_);
      throw UnsupportedError(ctx_.info().name + " has no timestamp support on its compute queue");
    }
    VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qci.queryCount = max_timestamps_;
    r = vkCreateQueryPool(dev, &qci, nullptr, &queries_);
  }
  if (r == VK_SUCCESS) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    r = vkBeginCommandBuffer(cmd_, &bi);
  }
  if (r != VK_SUCCESS) {
    if (queries_) vkDestroyQueryPool(dev, queries_, nullptr);
    if (fence_) vkDestroyFence(dev, fence_, nullptr);
    vkFreeCommandBuffers(dev, ctx_.command_pool(), 1, &cmd_);
    throw VulkanError("Recorder setup", r);
  }
  if (queries_) vkCmdResetQueryPool(cmd_, queries_, 0, max_timestamps_);
}

Recorder::~Recorder() {
  VkDevice dev = ctx_.device();
  if (state_ == State::Submitted) vkWaitForFences(dev, 1, &fence_, VK_TRUE, UINT64_MAX);
  for (auto p : pools_) vkDestroyDescriptorPool(dev, p, nullptr);
  if (queries_) vkDestroyQueryPool(dev, queries_, nullptr);
  vkDestroyFence(dev, fence_, nullptr);
  vkFreeCommandBuffers(dev, ctx_.command_pool(), 1, &cmd_);
}

VkDescriptorSet Recorder::allocate_set(VkDescriptorSetLayout layout) {
  if (pools_.empty() || sets_in_pool_ == kSetsPerPool) {
    VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 16},
                                    {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSetsPerPool * 4}};
    VkDescriptorPoolCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    ci.maxSets = kSetsPerPool;
    ci.poolSizeCount = 2;
    ci.pPoolSizes = sizes;
    VkDescriptorPool pool;
    check(vkCreateDescriptorPool(ctx_.device(), &ci, nullptr, &pool), "vkCreateDescriptorPool");
    pools_.push_back(pool);
    sets_in_pool_ = 0;
  }
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pools_.back();
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout;
  VkDescriptorSet set;
  check(vkAllocateDescriptorSets(ctx_.device(), &ai, &set), "vkAllocateDescriptorSets");
  ++sets_in_pool_;
  return set;
}

void Recorder::dispatch(const Pipeline& pipeline, const std::vector<BufferBinding>& bindings,
                        std::array<uint32_t, 3> groups, const void* push_constants, uint32_t push_bytes) {
  if (state_ != State::Recording) throw InvalidArgument("dispatch: this recorder was already submitted");
  const auto& info = ctx_.info();
  const char* axis = "xyz";
  for (int i = 0; i < 3; ++i) {
    if (groups[i] == 0)
      throw InvalidArgument(pipeline.name() + ": dispatch with 0 workgroups along " + axis[i]);
    if (groups[i] > info.max_workgroup_count[i])
      throw InvalidArgument(pipeline.name() + ": needs " + std::to_string(groups[i]) + " workgroups along " +
                            axis[i] + ", but " + info.name + " allows at most " +
                            std::to_string(info.max_workgroup_count[i]) + " (maxComputeWorkGroupCount)");
  }
  if (push_bytes != pipeline.push_constant_bytes())
    throw InvalidArgument(pipeline.name() + ": " + std::to_string(push_bytes) +
                          " bytes of push constants given, " +
                          std::to_string(pipeline.push_constant_bytes()) + " expected");
  // Every declared binding must be given exactly once, with a buffer of the right kind.
  std::vector<VkDescriptorBufferInfo> infos(pipeline.bindings().size());
  for (size_t i = 0; i < pipeline.bindings().size(); ++i) {
    const auto& want = pipeline.bindings()[i];
    auto it = std::find_if(bindings.begin(), bindings.end(), [&](const BufferBinding& b) {
      return b.set == want.set && b.binding == want.binding;
    });
    std::string where =
        "(set " + std::to_string(want.set) + ", binding " + std::to_string(want.binding) + ")";
    if (it == bindings.end() || !it->buffer || !*it->buffer)
      throw InvalidArgument(pipeline.name() + ": no buffer bound at " + where);
    bool uniform = want.kind == BindingKind::UniformBuffer;
    if (uniform != (it->buffer->usage() == BufferUsage::Uniform))
      throw InvalidArgument(pipeline.name() + ": binding " + where + " needs a " +
                            (uniform ? "uniform" : "storage") + " buffer");
    infos[i] = {it->buffer->handle(), it->offset, it->range};
  }
  if (bindings.size() != pipeline.bindings().size())
    throw InvalidArgument(pipeline.name() + ": " + std::to_string(bindings.size()) + " buffers given for " +
                          std::to_string(pipeline.bindings().size()) + " bindings");

  std::vector<VkDescriptorSet> sets;
  for (auto layout : pipeline.set_layouts()) sets.push_back(allocate_set(layout));
  std::vector<VkWriteDescriptorSet> writes;
  for (size_t i = 0; i < pipeline.bindings().size(); ++i) {
    const auto& b = pipeline.bindings()[i];
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = sets[b.set];
    w.dstBinding = b.binding;
    w.descriptorCount = 1;
    w.descriptorType = b.kind == BindingKind::UniformBuffer ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                            : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = &infos[i];
    writes.push_back(w);
  }
  if (!writes.empty())
    vkUpdateDescriptorSets(ctx_.device(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);

  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  if (!sets.empty())
    vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0,
                            static_cast<uint32_t>(sets.size()), sets.data(), 0, nullptr);
  if (push_bytes)
    vkCmdPushConstants(cmd_, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push_constants);
  vkCmdDispatch(cmd_, groups[0], groups[1], groups[2]);
  ++dispatches_;
}

void Recorder::barrier() {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT;
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cmd_, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void Recorder::copy(const Buffer& src, Buffer& dst, VkDeviceSize bytes, VkDeviceSize src_offset,
                    VkDeviceSize dst_offset) {
  if (src_offset + bytes > src.size() || dst_offset + bytes > dst.size())
    throw InvalidArgument("copy of " + std::to_string(bytes) + " bytes does not fit (source " +
                          std::to_string(src.size()) + " bytes, destination " + std::to_string(dst.size()) +
                          ")");
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(cmd_, src.handle(), dst.handle(), 1, &region);
}

void Recorder::fill(Buffer& dst, uint32_t pattern) {
  vkCmdFillBuffer(cmd_, dst.handle(), 0, VK_WHOLE_SIZE, pattern);
}

uint32_t Recorder::timestamp() {
  if (timestamps_ >= max_timestamps_)
    throw InvalidArgument("timestamp: recorder was created for " + std::to_string(max_timestamps_) +
                          " timestamps");
  vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, timestamps_);
  return timestamps_++;
}

void Recorder::submit() {
  if (state_ != State::Recording) throw InvalidArgument("submit: already submitted");
  check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  check(vkQueueSubmit(ctx_.queue(), 1, &si, fence_), "vkQueueSubmit");
  state_ = State::Submitted;
}

void Recorder::wait() {
  if (state_ != State::Submitted) throw InvalidArgument("wait: nothing submitted");
  check(vkWaitForFences(ctx_.device(), 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  state_ = State::Done;
  if (timestamps_ > 0) {
    results_.assign(timestamps_, 0);
    check(vkGetQueryPoolResults(ctx_.device(), queries_, 0, timestamps_, timestamps_ * sizeof(uint64_t),
                                results_.data(), sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
  }
}

double Recorder::elapsed_ms(uint32_t from, uint32_t to) const {
  if (state_ != State::Done) throw InvalidArgument("elapsed_ms: call wait() first");
  if (from >= results_.size() || to >= results_.size())
    throw InvalidArgument("elapsed_ms: no such timestamp");
  uint32_t bits = ctx_.info().timestamp_valid_bits;
  uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  uint64_t ticks = (results_[to] - results_[from]) & mask;
  return static_cast<double>(ticks) * ctx_.info().timestamp_period_ns * 1e-6;
}

}  // namespace vkgemm
