// WGSL parser: tokens -> AST. Recovers at statement and declaration boundaries so that one file can report
// several syntax errors.
#pragma once

#include <memory>

#include "wgsl/ast.hpp"
#include "wgsl/diagnostics.hpp"
#include "wgsl/lexer.hpp"

namespace vkgemm::wgsl {

// Parses a whole translation unit. Returns a module even when there were errors (with the declarations that
// parsed); check diags.has_errors().
std::unique_ptr<ast::Module> parse(const SourceFile& file, Diagnostics& diags);

}  // namespace vkgemm::wgsl
