#pragma once
// Errors thrown by vkgemm. Every message names what failed and what the user can change.
#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace vkgemm {

// Base of every vkgemm error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A Vulkan call returned a failure code.
class VulkanError : public Error {
 public:
  VulkanError(const std::string& call, VkResult result);
  VkResult result() const { return result_; }

 private:
  VkResult result_;
};

// The device lacks a feature, extension or limit that the request needs.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

// The caller passed something invalid (shape, size, option); nothing was recorded or dispatched.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

const char* to_string(VkResult result);

// Throws VulkanError naming `call` unless `result` is VK_SUCCESS.
inline void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throw VulkanError(call, result);
}

}  // namespace vkgemm
