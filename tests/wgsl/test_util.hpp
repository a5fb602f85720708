// Helpers shared by the WGSL tests.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "wgsl/compiler.hpp"

namespace vkgemm::wgsl::testing {

// Compiles with validation on; fails the test (with diagnostics) when compilation fails.
inline CompileResult compile_ok(const std::string& source, CompileOptions options = {}) {
  options.validate = true;
  CompileResult r = compile(source, options);
  EXPECT_TRUE(r.ok) << "source:\n" << source << "\ndiagnostics:\n" << r.formatted_diagnostics;
  return r;
}

// Expects compilation to fail and returns the formatted diagnostics.
inline std::string compile_error(const std::string& source) {
  CompileOptions options;
  options.file_name = "test.wgsl";
  CompileResult r = compile(source, options);
  EXPECT_FALSE(r.ok) << "expected an error for:\n" << source;
  EXPECT_FALSE(r.internal_error) << r.formatted_diagnostics;
  return r.formatted_diagnostics;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string shader(const std::string& name) {
  return read_file(std::string(VKGEMM_WGSL_SHADER_DIR) + "/" + name);
}

// Wraps statements in a compute entry point with a read_write storage buffer `out: array<f32>` and `outu`.
inline std::string kernel(const std::string& body, const std::string& globals = "") {
  return "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n"
         "@group(0) @binding(1) var<storage, read_write> outu: array<u32>;\n" +
         globals +
         "\n@compute @workgroup_size(64)\n"
         "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lidx: u32) "
         "{\n" +
         body + "\n}\n";
}

}  // namespace vkgemm::wgsl::testing
