#include "runtime/buffer.hpp"

#include <string>
#include <utility>

#include "runtime/context.hpp"

namespace vkgemm {

namespace {

uint32_t find_memory_type(VkPhysicalDevice physical, uint32_t type_bits, VkMemoryPropertyFlags want,
                          VkMemoryPropertyFlags avoid) {
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(physical, &mem);
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
      if (!(type_bits & (1u << i))) continue;
      VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
      if ((f & want) != want) continue;
      if (pass == 0 && (f & avoid)) continue;  // first try without the flags we would rather not have
      return i;
    }
  }
  return UINT32_MAX;
}

}  // namespace

Buffer::Buffer(Context& ctx, size_t bytes, BufferUsage usage)
    : device_(ctx.device()), size_(bytes), usage_(usage) {
  if (bytes == 0) throw InvalidArgument("cannot create a buffer of 0 bytes");
  if (usage != BufferUsage::Staging && bytes > ctx.info().max_storage_buffer_range &&
      usage == BufferUsage::Storage)
    throw UnsupportedError("buffer of " + std::to_string(bytes) + " bytes exceeds " + ctx.info().name +
                           "'s maxStorageBufferRange (" +
                           std::to_string(ctx.info().max_storage_buffer_range) + ")");
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = bytes;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkMemoryPropertyFlags want = 0, avoid = 0;
  switch (usage) {
    case BufferUsage::Storage:
      bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                  VK_BUFFER_USAGE_TRANSFER_DST_BIT;
      want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case BufferUsage::Uniform:
      bci.usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
      want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case BufferUsage::Staging:
      bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
      want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      avoid = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
  }
  check(vkCreateBuffer(device_, &bci, nullptr, &buffer_), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, buffer_, &req);
  uint32_t type = find_memory_type(ctx.physical_device(), req.memoryTypeBits, want, avoid);
  if (type == UINT32_MAX && usage != BufferUsage::Staging)
    type = find_memory_type(ctx.physical_device(), req.memoryTypeBits, 0, 0);
  if (type == UINT32_MAX) {
    release();
    throw UnsupportedError("no suitable memory type for a buffer of " + std::to_string(bytes) + " bytes");
  }
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VkResult r = vkAllocateMemory(device_, &mai, nullptr, &memory_);
  if (r != VK_SUCCESS) {
    release();
    throw VulkanError("vkAllocateMemory(" + std::to_string(bytes) + " bytes)", r);
  }
  check(vkBindBufferMemory(device_, buffer_, memory_, 0), "vkBindBufferMemory");
  if (usage == BufferUsage::Staging)
    check(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
}

Buffer::~Buffer() {
  release();
}

Buffer::Buffer(Buffer&& other) noexcept {
  *this = std::move(other);
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, VK_NULL_HANDLE);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    mapped_ = std::exchange(other.mapped_, nullptr);
    size_ = std::exchange(other.size_, 0);
    usage_ = other.usage_;
  }
  return *this;
}

void Buffer::release() {
  if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_) vkFreeMemory(device_, memory_, nullptr);  // unmaps implicitly
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

}  // namespace vkgemm
