// SPIR-V writer: resolved WGSL module -> SPIR-V 1.3 words for Vulkan 1.1+. Trusts the resolver: it performs
// no semantic checks and must only be given modules that resolved without errors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wgsl/ast.hpp"
#include "wgsl/sem.hpp"

namespace vkgemm::wgsl {

struct WriterOptions {
  // Emit only this entry point (and what it uses); empty: every entry point.
  std::string entry_point;
  // WGSL zero-initializes workgroup memory; Vulkan 1.1 does not, so the writer stores zeros at entry.
  bool zero_initialize_workgroup_memory = true;
  // OpName/OpMemberName for readable disassembly.
  bool emit_names = true;
  // WebGPU's robust buffer access: clamp every dynamic array/vector/matrix index (runtime-sized arrays to
  // arrayLength - 1), so out-of-bounds accesses stay inside the resource, as Tint's robustness transform
  // does.
  bool robust_access = false;
};

std::vector<uint32_t> write_spirv(const ast::Module& module, const sem::Module& sem,
                                  const WriterOptions& options);

}  // namespace vkgemm::wgsl
