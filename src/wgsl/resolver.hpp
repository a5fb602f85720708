// WGSL resolver: owns all semantic checks and typing. AST -> sem::Module.
#pragma once

#include <memory>

#include "wgsl/ast.hpp"
#include "wgsl/diagnostics.hpp"
#include "wgsl/sem.hpp"

namespace vkgemm::wgsl {

// Returns the semantic module; it is complete only when diags has no errors.
std::unique_ptr<sem::Module> resolve(const ast::Module& module, Diagnostics& diags);

}  // namespace vkgemm::wgsl
