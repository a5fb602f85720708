#pragma once
// Compute pipelines built from SPIR-V words, with the descriptor layout the kernel declares, push constants
// and specialization constants.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vkgemm {

enum class BindingKind { StorageBuffer, UniformBuffer };

struct BindingDesc {
  uint32_t set = 0;
  uint32_t binding = 0;
  BindingKind kind = BindingKind::StorageBuffer;
};

struct SpecConstant {
  uint32_t id = 0;
  uint32_t value = 0;  // 32-bit constants only (u32, i32 or f32 bits)
};

struct PipelineDesc {
  std::span<const uint32_t> spirv;
  std::string entry = "main";
  std::vector<BindingDesc> bindings;
  uint32_t push_constant_bytes = 0;
  std::vector<SpecConstant> specialization;
  std::string debug_name;  // used in error messages
};

class Pipeline {
 public:
  Pipeline(VkDevice device, const PipelineDesc& desc);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  VkPipeline handle() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  const std::vector<VkDescriptorSetLayout>& set_layouts() const { return set_layouts_; }
  const std::vector<BindingDesc>& bindings() const { return bindings_; }
  uint32_t push_constant_bytes() const { return push_constant_bytes_; }
  const std::string& name() const { return name_; }

 private:
  void release();
  VkDevice device_;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> set_layouts_;
  std::vector<BindingDesc> bindings_;
  uint32_t push_constant_bytes_ = 0;
  std::string name_;
};

}  // namespace vkgemm
