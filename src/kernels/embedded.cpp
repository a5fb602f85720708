#include "kernels/embedded.hpp"

#include <algorithm>
#include <string>

#include "runtime/error.hpp"

namespace vkgemm::kernels {

std::span<const std::uint32_t> embedded_spirv(std::string_view name) {
  auto table = embedded_spirv_table();
  auto it = std::lower_bound(table.begin(), table.end(), name,
                             [](const EmbeddedSpirv& e, std::string_view n) { return e.name < n; });
  if (it == table.end() || it->name != name)
    throw Error("no embedded SPIR-V module named \"" + std::string(name) + "\"");
  return it->words;
}

}  // namespace vkgemm::kernels
