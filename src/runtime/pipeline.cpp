#include "runtime/pipeline.hpp"

#include <algorithm>
#include <map>

#include "runtime/error.hpp"

namespace vkgemm {

Pipeline::Pipeline(VkDevice device, const PipelineDesc& desc)
    : device_(device),
      bindings_(desc.bindings),
      push_constant_bytes_(desc.push_constant_bytes),
      name_(desc.debug_name) {
  if (desc.spirv.size() < 5 || desc.spirv[0] != 0x07230203u)
    throw InvalidArgument("pipeline " + name_ + ": not a SPIR-V module (bad size or magic number)");
  VkShaderModule module = VK_NULL_HANDLE;
  try {
    // One descriptor set layout per set index 0..max (gaps get empty layouts, as Vulkan requires).
    std::map<uint32_t, std::vector<VkDescriptorSetLayoutBinding>> sets;
    uint32_t max_set = 0;
    for (const auto& b : desc.bindings) {
      VkDescriptorSetLayoutBinding lb{};
      lb.binding = b.binding;
      lb.descriptorType = b.kind == BindingKind::UniformBuffer ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                               : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      lb.descriptorCount = 1;
      lb.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
      sets[b.set].push_back(lb);
      max_set = std::max(max_set, b.set);
    }
    if (!desc.bindings.empty()) {
      for (uint32_t s = 0; s <= max_set; ++s) {
        const auto& list = sets[s];
        VkDescriptorSetLayoutCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        ci.bindingCount = static_cast<uint32_t>(list.size());
        ci.pBindings = list.data();
        VkDescriptorSetLayout layout;
        check(vkCreateDescriptorSetLayout(device_, &ci, nullptr, &layout), "vkCreateDescriptorSetLayout");
        set_layouts_.push_back(layout);
      }
    }
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, desc.push_constant_bytes};
    VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    lci.setLayoutCount = static_cast<uint32_t>(set_layouts_.size());
    lci.pSetLayouts = set_layouts_.data();
    lci.pushConstantRangeCount = desc.push_constant_bytes ? 1 : 0;
    lci.pPushConstantRanges = &range;
    check(vkCreatePipelineLayout(device_, &lci, nullptr, &layout_), "vkCreatePipelineLayout");

    VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mci.codeSize = desc.spirv.size_bytes();
    mci.pCode = desc.spirv.data();
    check(vkCreateShaderModule(device_, &mci, nullptr, &module), "vkCreateShaderModule");

    std::vector<VkSpecializationMapEntry> entries;
    std::vector<uint32_t> values;
    for (const auto& s : desc.specialization) {
      entries.push_back({s.id, static_cast<uint32_t>(values.size() * 4), 4});
      values.push_back(s.value);
    }
    VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), values.size() * 4,
                              values.data()};
    VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pci.stage.module = module;
    pci.stage.pName = desc.entry.c_str();
    pci.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
    pci.layout = layout_;
    VkResult r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pci, nullptr, &pipeline_);
    if (r != VK_SUCCESS) throw VulkanError("vkCreateComputePipelines(" + name_ + ")", r);
    vkDestroyShaderModule(device_, module, nullptr);
  } catch (...) {
    if (module) vkDestroyShaderModule(device_, module, nullptr);
    release();
    throw;
  }
}

Pipeline::~Pipeline() {
  release();
}

void Pipeline::release() {
  if (pipeline_) vkDestroyPipeline(device_, pipeline_, nullptr);
  if (layout_) vkDestroyPipelineLayout(device_, layout_, nullptr);
  for (auto l : set_layouts_) vkDestroyDescriptorSetLayout(device_, l, nullptr);
  pipeline_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE;
  set_layouts_.clear();
}

}  // namespace vkgemm
