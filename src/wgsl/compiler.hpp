// The whole pipeline: WGSL source -> (lexer, parser, resolver, SPIR-V writer) -> validated SPIR-V +
// reflection.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wgsl/diagnostics.hpp"

namespace vkgemm::wgsl {

enum class TargetEnv { Vulkan1_1, Vulkan1_2 };

struct CompileOptions {
  std::string file_name = "input.wgsl";
  std::string entry_point;  // empty: the first entry point in the module
  bool validate = true;     // run spirv-val (a failure is a compiler bug and is reported as one)
  bool optimize = false;    // run spirv-opt's performance passes
  TargetEnv target = TargetEnv::Vulkan1_1;
  bool zero_initialize_workgroup_memory = true;
  // Clamp dynamic indices into arrays (runtime-sized: arrayLength - 1), vectors and matrices, giving WebGPU's
  // robust-access guarantee on Vulkan without robustBufferAccess. Off by default: it costs a min per access.
  bool robust_access = false;
};

enum class BindingKind { UniformBuffer, StorageBuffer, ReadOnlyStorageBuffer };

struct Binding {
  std::string name;
  uint32_t group = 0;
  uint32_t binding = 0;
  BindingKind kind = BindingKind::StorageBuffer;
  uint32_t size = 0;                  // fixed-size part in bytes (0 for a bare runtime-sized array)
  uint32_t runtime_array_stride = 0;  // element stride of a trailing runtime-sized array, 0 if none
  std::string type;                   // WGSL spelling of the store type
};

struct OverrideConstant {
  std::string name;
  uint32_t spec_id = 0;
  std::string type;  // "u32", "i32", "f32", "f16", "bool"
  bool has_default = false;
  double default_value = 0.0;
  // false for `override b = a * 2u;`: b follows a (a specialization-constant operation) and has no spec id.
  bool overridable = true;
};

struct Reflection {
  std::string entry_point;
  std::array<uint32_t, 3> workgroup_size{1, 1, 1};  // defaults when a dimension is an override
                                                    // Per dimension: the spec id when it is an override, -1
                                                    // when constant, -2 when an override-expression.
  std::array<int32_t, 3> workgroup_size_spec_id{-1, -1, -1};
  std::vector<Binding> bindings;            // sorted by (group, binding); only those the entry uses
  std::vector<OverrideConstant> overrides;  // those the entry uses
  uint32_t workgroup_memory_bytes = 0;
  bool uses_subgroups = false;
  // A uniform buffer holds a matrix with 2-row columns (stride 8), which WGSL allows but Vulkan's default
  // (std140-like) uniform layout does not: the device needs uniformBufferStandardLayout (core in Vulkan 1.2).
  bool requires_uniform_standard_layout = false;
};

struct CompileResult {
  bool ok = false;
  // The input was accepted but the generated SPIR-V failed validation: a compiler bug, never the user's
  // fault.
  bool internal_error = false;
  std::vector<uint32_t> spirv;
  Reflection reflection;
  Diagnostics diagnostics;
  std::string formatted_diagnostics;  // file:line:col: error: ... with source line and caret
};

CompileResult compile(std::string_view source, const CompileOptions& options = {});

std::string reflection_to_json(const Reflection& reflection);
std::string disassemble(const std::vector<uint32_t>& spirv);
// Runs spirv-val; returns an empty string when valid, else the validator's messages.
std::string validate_spirv(const std::vector<uint32_t>& spirv, TargetEnv target,
                           bool uniform_standard_layout = false);

}  // namespace vkgemm::wgsl
