#pragma once
// Facts about a physical device that kernels and users need to decide what can run and how.
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vkgemm {

// One cooperative-matrix shape the device supports (VK_NV_cooperative_matrix): C[MxN] += A[MxK] * B[KxN].
struct CoopMatShape {
  uint32_t m = 0, n = 0, k = 0;
  std::string a_type, b_type, c_type, result_type;  // e.g. "f16", "f32", "s8"
};

struct DeviceInfo {
  uint32_t index = 0;  // position in vkEnumeratePhysicalDevices order
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t api_version = 0;
  uint32_t vendor_id = 0;
  std::string driver;  // driver name and info
  // Subgroups (Vulkan 1.1 core).
  uint32_t subgroup_size = 0;
  VkSubgroupFeatureFlags subgroup_ops = 0;
  bool subgroups_in_compute = false;
  // Compute limits.
  uint32_t shared_memory_bytes = 0;
  uint32_t max_workgroup_invocations = 0;
  std::array<uint32_t, 3> max_workgroup_size{};
  std::array<uint32_t, 3> max_workgroup_count{};
  uint32_t max_push_constants = 0;
  uint64_t max_storage_buffer_range = 0;
  uint64_t device_local_bytes = 0;
  // Precision features.
  bool shader_f16 = false;     // shaderFloat16 (arithmetic)
  bool storage_16bit = false;  // storageBuffer16BitAccess
  bool shader_int8 = false;
  bool vulkan_memory_model = false;
  bool uniform_standard_layout = false;  // uniformBufferStandardLayout: std430-like rules in uniform blocks
  // Tensor cores via VK_NV_cooperative_matrix (empty when absent).
  std::vector<CoopMatShape> coopmat_shapes;
  bool coopmat_nv = false;
  // Timing.
  float timestamp_period_ns = 0;  // ns per timestamp tick
  uint32_t timestamp_valid_bits = 0;

  const char* type_name() const;
  // The subgroup operations as words ("basic vote arithmetic ...").
  std::string subgroup_ops_string() const;
  bool has_subgroup_ops(VkSubgroupFeatureFlags ops) const {
    return subgroups_in_compute && (subgroup_ops & ops) == ops;
  }
  // A multi-line human-readable summary (used by `vkgemm --list-devices`).
  std::string describe() const;
};

// Whether the physical device offers a device extension.
bool device_has_extension(VkPhysicalDevice device, const char* name);

// Queries every fact above for one physical device.
DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice device, uint32_t index);

}  // namespace vkgemm
