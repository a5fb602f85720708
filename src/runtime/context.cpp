#include "runtime/context.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include "runtime/recorder.hpp"

namespace vkgemm {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return !(std::strcmp(v, "0") == 0 || lower(v) == "false" || lower(v) == "off");
}

bool layer_available(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

VkInstance create_instance(bool validation) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vkgemm";
  app.pEngineName = "vkgemm";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers, extensions;
  if (validation) {
    if (!layer_available(kValidationLayer))
      throw UnsupportedError(
          "validation requested but VK_LAYER_KHRONOS_validation is not installed (Debian: "
          "vulkan-validationlayers)");
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  VkInstance instance = VK_NULL_HANDLE;
  VkResult r = vkCreateInstance(&ci, nullptr, &instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    throw UnsupportedError(
        "no Vulkan 1.2 driver found (install mesa-vulkan-drivers for lavapipe, or a GPU driver)");
  check(r, "vkCreateInstance");
  return instance;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
  return devices;
}

int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

// Picks a device by index, name substring, or rank; throws listing the candidates when nothing matches.
size_t choose_device(const std::vector<DeviceInfo>& infos, const std::string& selector) {
  if (infos.empty())
    throw UnsupportedError("no Vulkan device found (install mesa-vulkan-drivers for lavapipe)");
  auto candidates = [&] {
    std::ostringstream s;
    for (const auto& i : infos) s << "\n  [" << i.index << "] " << i.name;
    return s.str();
  };
  if (selector.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < infos.size(); ++i)
      if (type_rank(infos[i].type) < type_rank(infos[best].type)) best = i;
    return best;
  }
  if (std::all_of(selector.begin(), selector.end(), [](unsigned char c) { return std::isdigit(c); })) {
    size_t index = std::stoul(selector);
    if (index >= infos.size())
      throw InvalidArgument("device index " + selector + " out of range; devices:" + candidates());
    return index;
  }
  for (size_t i = 0; i < infos.size(); ++i)
    if (lower(infos[i].name).find(lower(selector)) != std::string::npos) return i;
  throw InvalidArgument("no device name contains \"" + selector + "\"; devices:" + candidates());
}

}  // namespace

struct ValidationSink {
  static VKAPI_ATTR VkBool32 VKAPI_CALL callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT,
                                                 const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                 void* user) {
    if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
    static_cast<Context*>(user)->on_validation(data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE;
  }
};

void Context::on_validation(const std::string& message) {
  ++validation_messages_;
  if (on_validation_message_)
    on_validation_message_(message);
  else
    std::cerr << "vkgemm: validation: " << message << "\n";
}

std::vector<DeviceInfo> Context::list_devices() {
  VkInstance instance = create_instance(false);
  std::vector<DeviceInfo> infos;
  try {
    auto devices = physical_devices(instance);
    for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(query_device_info(instance, devices[i], i));
  } catch (...) {
    vkDestroyInstance(instance, nullptr);
    throw;
  }
  vkDestroyInstance(instance, nullptr);
  return infos;
}

Context::Context(const ContextOptions& options) : on_validation_message_(options.on_validation_message) {
  validation_ = options.validation.value_or(env_flag("VKGEMM_VALIDATION", false));
  std::string selector = options.device;
  if (selector.empty())
    if (const char* env = std::getenv("VKGEMM_DEVICE")) selector = env;

  instance_ = create_instance(validation_);
  try {
    if (validation_) {
      VkDebugUtilsMessengerCreateInfoEXT mci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
      mci.messageSeverity =
          VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
      mci.messageType =
          VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
      mci.pfnUserCallback = &ValidationSink::callback;
      mci.pUserData = this;
      auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
      if (!create) throw UnsupportedError("VK_EXT_debug_utils is not available with the validation layer");
      check(create(instance_, &mci, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
    }

    auto devices = physical_devices(instance_);
    std::vector<DeviceInfo> infos;
    for (uint32_t i = 0; i < devices.size(); ++i)
      infos.push_back(query_device_info(instance_, devices[i], i));
    size_t chosen = choose_device(infos, selector);
    physical_ = devices[chosen];
    info_ = infos[chosen];
    if (VK_API_VERSION_MINOR(info_.api_version) < 2 && VK_API_VERSION_MAJOR(info_.api_version) == 1)
      throw UnsupportedError(info_.name + " supports only Vulkan " +
                             std::to_string(VK_API_VERSION_MAJOR(info_.api_version)) + "." +
                             std::to_string(VK_API_VERSION_MINOR(info_.api_version)) + "; vkgemm needs 1.2");

    uint32_t qcount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qcount, nullptr);
    std::vector<VkQueueFamilyProperties> qprops(qcount);
    vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qcount, qprops.data());
    bool found = false;
    for (uint32_t i = 0; i < qcount && !found; ++i) {
      if (qprops[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        queue_family_ = i;
        found = true;
      }
    }
    if (!found) throw UnsupportedError(info_.name + " has no compute queue");

    // Enable exactly the optional features that kernels use and the device has.
    VkPhysicalDeviceVulkan11Features have11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    have11.pNext = &have12;
    VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    have.pNext = &have11;
    vkGetPhysicalDeviceFeatures2(physical_, &have);

    VkPhysicalDeviceVulkan11Features want11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    want11.storageBuffer16BitAccess = have11.storageBuffer16BitAccess;
    want11.uniformAndStorageBuffer16BitAccess = have11.uniformAndStorageBuffer16BitAccess;
    VkPhysicalDeviceVulkan12Features want12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    want12.shaderFloat16 = have12.shaderFloat16;
    want12.shaderInt8 = have12.shaderInt8;
    want12.storageBuffer8BitAccess = have12.storageBuffer8BitAccess;
    want12.vulkanMemoryModel = have12.vulkanMemoryModel;
    want12.vulkanMemoryModelDeviceScope = have12.vulkanMemoryModelDeviceScope;
    want12.uniformBufferStandardLayout = have12.uniformBufferStandardLayout;  // WGSL uniform layouts
    want12.shaderBufferInt64Atomics = VK_FALSE;
    want11.pNext = &want12;
    VkPhysicalDeviceFeatures2 want{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    want.features.shaderInt16 = have.features.shaderInt16;
    want.features.shaderInt64 = have.features.shaderInt64;
    want.pNext = &want11;

    std::vector<const char*> extensions;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    if (info_.coopmat_nv && device_has_extension(physical_, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
      VkPhysicalDeviceCooperativeMatrixFeaturesNV coop_have{
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
      VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
      f.pNext = &coop_have;
      vkGetPhysicalDeviceFeatures2(physical_, &f);
      if (coop_have.cooperativeMatrix) {
        coop.cooperativeMatrix = VK_TRUE;
        want12.pNext = &coop;
        extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
        coopmat_enabled_ = true;
      }
    }

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = queue_family_;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &want;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    dci.ppEnabledExtensionNames = extensions.data();
    check(vkCreateDevice(physical_, &dci, nullptr, &device_), "vkCreateDevice");
    vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = queue_family_;
    check(vkCreateCommandPool(device_, &pci, nullptr, &command_pool_), "vkCreateCommandPool");
  } catch (...) {
    destroy();
    throw;
  }
}

Context::~Context() {
  destroy();
}

void Context::destroy() {
  pipelines_.clear();
  if (device_) {
    vkDeviceWaitIdle(device_);
    if (command_pool_) vkDestroyCommandPool(device_, command_pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
    device_ = VK_NULL_HANDLE;
    command_pool_ = VK_NULL_HANDLE;
  }
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_, messenger_, nullptr);
    messenger_ = VK_NULL_HANDLE;
  }
  if (instance_) {
    vkDestroyInstance(instance_, nullptr);
    instance_ = VK_NULL_HANDLE;
  }
}

Buffer Context::create_buffer(size_t bytes, BufferUsage usage) {
  return Buffer(*this, bytes, usage);
}

void Context::run_once(const std::function<void(VkCommandBuffer)>& record) {
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = command_pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  check(vkAllocateCommandBuffers(device_, &ai, &cmd), "vkAllocateCommandBuffers");
  VkFence fence = VK_NULL_HANDLE;
  try {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    record(cmd);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vkCreateFence(device_, &fci, nullptr, &fence), "vkCreateFence");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    check(vkQueueSubmit(queue_, 1, &si, fence), "vkQueueSubmit");
    check(vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  } catch (...) {
    if (fence) vkDestroyFence(device_, fence, nullptr);
    vkFreeCommandBuffers(device_, command_pool_, 1, &cmd);
    throw;
  }
  vkDestroyFence(device_, fence, nullptr);
  vkFreeCommandBuffers(device_, command_pool_, 1, &cmd);
}

namespace {
void check_range(const Buffer& buffer, size_t offset, size_t bytes, const char* what) {
  if (!buffer) throw InvalidArgument(std::string(what) + ": buffer is empty");
  if (offset > buffer.size() || bytes > buffer.size() - offset)
    throw InvalidArgument(std::string(what) + ": " + std::to_string(bytes) + " bytes at offset " +
                          std::to_string(offset) + " do not fit in a buffer of " +
                          std::to_string(buffer.size()) + " bytes");
}

void transfer_barrier(VkCommandBuffer cmd) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                       nullptr);
}
}  // namespace

void Context::upload(Buffer& dst, const void* data, size_t bytes, size_t dst_offset) {
  check_range(dst, dst_offset, bytes, "upload");
  if (bytes == 0) return;
  if (dst.host_visible()) {
    std::memcpy(static_cast<char*>(dst.mapped()) + dst_offset, data, bytes);
    return;
  }
  Buffer staging(*this, bytes, BufferUsage::Staging);
  std::memcpy(staging.mapped(), data, bytes);
  run_once([&](VkCommandBuffer cmd) {
    VkBufferCopy region{0, dst_offset, bytes};
    vkCmdCopyBuffer(cmd, staging.handle(), dst.handle(), 1, &region);
  });
}

void Context::download(const Buffer& src, void* data, size_t bytes, size_t src_offset) {
  check_range(src, src_offset, bytes, "download");
  if (bytes == 0) return;
  if (src.host_visible()) {
    std::memcpy(data, static_cast<const char*>(src.mapped()) + src_offset, bytes);
    return;
  }
  Buffer staging(*this, bytes, BufferUsage::Staging);
  run_once([&](VkCommandBuffer cmd) {
    VkBufferCopy region{src_offset, 0, bytes};
    vkCmdCopyBuffer(cmd, src.handle(), staging.handle(), 1, &region);
    transfer_barrier(cmd);
  });
  std::memcpy(data, staging.mapped(), bytes);
}

void Context::fill(Buffer& dst, uint32_t pattern) {
  check_range(dst, 0, dst.size(), "fill");
  run_once([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, dst.handle(), 0, VK_WHOLE_SIZE, pattern); });
}

const Pipeline& Context::pipeline(const PipelineDesc& desc) {
  // Key: a hash of the SPIR-V words (modules compiled at run time may reuse freed memory, so not the
  // address), the entry point, the layout and the specialization values.
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (uint32_t w : desc.spirv) hash = (hash ^ w) * 1099511628211ull;
  std::ostringstream key;
  key << std::hex << hash << std::dec << ':' << desc.spirv.size() << ':' << desc.entry << ':'
      << desc.push_constant_bytes;
  for (const auto& b : desc.bindings)
    key << ";b" << b.set << '.' << b.binding << '.' << static_cast<int>(b.kind);
  for (const auto& s : desc.specialization) key << ";s" << s.id << '=' << s.value;
  std::lock_guard lock(pipelines_mutex_);
  auto& slot = pipelines_[key.str()];
  if (!slot) slot = std::make_unique<Pipeline>(device_, desc);
  return *slot;
}

}  // namespace vkgemm
