#pragma once
// SPIR-V modules compiled and validated at build time (cmake/Shaders.cmake) and linked into the library.
#include <cstdint>
#include <span>
#include <string_view>

namespace vkgemm::kernels {

struct EmbeddedSpirv {
  std::string_view name;  // e.g. "ladder_10_istanbul"
  std::span<const std::uint32_t> words;
};

// Every embedded module, sorted by name (generated).
std::span<const EmbeddedSpirv> embedded_spirv_table();

// The module called `name`; throws vkgemm::Error if there is none.
std::span<const std::uint32_t> embedded_spirv(std::string_view name);

}  // namespace vkgemm::kernels
