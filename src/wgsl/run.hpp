// Run-time API: compile WGSL when the program runs, build the pipeline with a descriptor layout taken from
// reflection, bind buffers by (group, binding), dispatch. Lives in vkgemm_wgsl_run (depends on the runtime);
// the compiler library itself has no Vulkan dependency.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/context.hpp"
#include "runtime/recorder.hpp"
#include "wgsl/compiler.hpp"

namespace vkgemm::wgsl {

// Invalid WGSL: what() holds the formatted diagnostics (file:line:col: error: ..., source line, caret).
class CompileError : public vkgemm::InvalidArgument {
 public:
  using vkgemm::InvalidArgument::InvalidArgument;
};

struct ProgramOptions {
  std::string file_name = "runtime.wgsl";  // for diagnostics
  std::string entry_point;                 // empty: the first @compute entry point
  bool optimize = true;                    // spirv-opt performance passes
  bool robust_access = false;              // clamp dynamic indices (see CompileOptions::robust_access)
  // Override values by name (converted to the override's type); unset overrides keep their defaults.
  std::map<std::string, double> overrides;
};

struct BufferArg {
  uint32_t group = 0;
  uint32_t binding = 0;
  const Buffer* buffer = nullptr;
};

class Program {
 public:
  // Compiles `source` and creates (or reuses) its pipeline on `ctx`. Throws CompileError for invalid WGSL,
  // UnsupportedError when the device lacks what the kernel needs (subgroups, f16, shared memory).
  Program(Context& ctx, std::string_view source, const ProgramOptions& options = {});

  const Reflection& reflection() const { return compiled_.reflection; }
  const std::vector<uint32_t>& spirv() const { return compiled_.spirv; }
  const Pipeline& pipeline() const { return *pipeline_; }
  // The workgroup size the pipeline runs with (overrides applied).
  std::array<uint32_t, 3> workgroup_size() const { return workgroup_size_; }

  // Records a dispatch on `rec`. Every binding the entry point uses must be given exactly once, with a buffer
  // of the right kind that is large enough; otherwise InvalidArgument (nothing recorded).
  void dispatch(Recorder& rec, const std::vector<BufferArg>& buffers, std::array<uint32_t, 3> groups) const;
  // One dispatch in its own command buffer, submitted and waited for.
  void run(const std::vector<BufferArg>& buffers, std::array<uint32_t, 3> groups) const;

 private:
  Context& ctx_;
  CompileResult compiled_;
  const Pipeline* pipeline_ = nullptr;
  std::array<uint32_t, 3> workgroup_size_{1, 1, 1};
};

}  // namespace vkgemm::wgsl
