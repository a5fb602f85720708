#include "runtime/device_info.hpp"

#include <sstream>

namespace vkgemm {

namespace {

const char* component_type_name(VkComponentTypeNV t) {
  switch (t) {
    case VK_COMPONENT_TYPE_FLOAT16_NV:
      return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_NV:
      return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_NV:
      return "f64";
    case VK_COMPONENT_TYPE_SINT8_NV:
      return "s8";
    case VK_COMPONENT_TYPE_SINT16_NV:
      return "s16";
    case VK_COMPONENT_TYPE_SINT32_NV:
      return "s32";
    case VK_COMPONENT_TYPE_SINT64_NV:
      return "s64";
    case VK_COMPONENT_TYPE_UINT8_NV:
      return "u8";
    case VK_COMPONENT_TYPE_UINT16_NV:
      return "u16";
    case VK_COMPONENT_TYPE_UINT32_NV:
      return "u32";
    case VK_COMPONENT_TYPE_UINT64_NV:
      return "u64";
    default:
      return "?";
  }
}

}  // namespace

bool device_has_extension(VkPhysicalDevice device, const char* name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> exts(count);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, exts.data());
  for (const auto& e : exts)
    if (std::string_view(e.extensionName) == name) return true;
  return false;
}

DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice device, uint32_t index) {
  DeviceInfo info;
  info.index = index;

  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  subgroup.pNext = &driver;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(device, &props);
  const auto& p = props.properties;
  info.name = p.deviceName;
  info.type = p.deviceType;
  info.api_version = p.apiVersion;
  info.vendor_id = p.vendorID;
  info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  info.subgroup_size = subgroup.subgroupSize;
  info.subgroup_ops = subgroup.supportedOperations;
  info.subgroups_in_compute = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  info.shared_memory_bytes = p.limits.maxComputeSharedMemorySize;
  info.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) {
    info.max_workgroup_size[i] = p.limits.maxComputeWorkGroupSize[i];
    info.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
  }
  info.max_push_constants = p.limits.maxPushConstantsSize;
  info.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  info.timestamp_period_ns = p.limits.timestampPeriod;

  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(device, &mem);
  for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.device_local_bytes += mem.memoryHeaps[i].size;

  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f11.pNext = &f12;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &f11;
  vkGetPhysicalDeviceFeatures2(device, &features);
  info.shader_f16 = f12.shaderFloat16;
  info.storage_16bit = f11.storageBuffer16BitAccess;
  info.shader_int8 = f12.shaderInt8;
  info.vulkan_memory_model = f12.vulkanMemoryModel;
  info.uniform_standard_layout = f12.uniformBufferStandardLayout;

  uint32_t qcount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &qcount, nullptr);
  std::vector<VkQueueFamilyProperties> qprops(qcount);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &qcount, qprops.data());
  for (const auto& q : qprops) {
    if (q.queueFlags & VK_QUEUE_COMPUTE_BIT) {
      info.timestamp_valid_bits = q.timestampValidBits;
      break;
    }
  }

  if (device_has_extension(device, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    auto fn = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
        vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
    if (fn) {
      uint32_t n = 0;
      fn(device, &n, nullptr);
      std::vector<VkCooperativeMatrixPropertiesNV> shapes(
          n, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
      fn(device, &n, shapes.data());
      info.coopmat_nv = n > 0;
      for (const auto& s : shapes) {
        if (s.scope != VK_SCOPE_SUBGROUP_NV) continue;
        info.coopmat_shapes.push_back({s.MSize, s.NSize, s.KSize, component_type_name(s.AType),
                                       component_type_name(s.BType), component_type_name(s.CType),
                                       component_type_name(s.DType)});
      }
    }
  }
  return info;
}

const char* DeviceInfo::type_name() const {
  switch (type) {
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

std::string DeviceInfo::subgroup_ops_string() const {
  static const std::pair<VkSubgroupFeatureFlagBits, const char*> names[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},
      {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"},
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffle_relative"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"},
      {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"},
  };
  std::string out;
  for (const auto& [bit, word] : names) {
    if (subgroup_ops & bit) {
      if (!out.empty()) out += ' ';
      out += word;
    }
  }
  return out.empty() ? "none" : out;
}

std::string DeviceInfo::describe() const {
  std::ostringstream s;
  s << "[" << index << "] " << name << " (" << type_name() << ", Vulkan " << VK_API_VERSION_MAJOR(api_version)
    << "." << VK_API_VERSION_MINOR(api_version) << "." << VK_API_VERSION_PATCH(api_version) << ", " << driver
    << ")\n";
  s << "    subgroups: size " << subgroup_size << (subgroups_in_compute ? "" : " (not in compute)")
    << ", ops: " << subgroup_ops_string() << "\n";
  s << "    shared memory: " << shared_memory_bytes / 1024
    << " KiB, max workgroup: " << max_workgroup_invocations << " invocations, size " << max_workgroup_size[0]
    << "x" << max_workgroup_size[1] << "x" << max_workgroup_size[2] << ", count " << max_workgroup_count[0]
    << "x" << max_workgroup_count[1] << "x" << max_workgroup_count[2] << "\n";
  s << "    f16 arithmetic: " << (shader_f16 ? "yes" : "no")
    << ", 16-bit storage: " << (storage_16bit ? "yes" : "no")
    << ", device-local memory: " << device_local_bytes / (1024 * 1024) << " MiB\n";
  s << "    timestamps: " << timestamp_valid_bits << " valid bits, " << timestamp_period_ns << " ns/tick\n";
  if (coopmat_shapes.empty()) {
    s << "    cooperative matrix: none\n";
  } else {
    s << "    cooperative matrix (NV):";
    for (const auto& c : coopmat_shapes)
      s << " " << c.m << "x" << c.n << "x" << c.k << " " << c.a_type << "*" << c.b_type << "+" << c.c_type
        << ";";
    s << "\n";
  }
  return s.str();
}

}  // namespace vkgemm
