#include "wgsl/run.hpp"

#include <cstring>

namespace vkgemm::wgsl {
namespace {

uint32_t spec_bits(const OverrideConstant& o, double v) {
  if (o.type == "f32") {
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  if (o.type == "i32") return static_cast<uint32_t>(static_cast<int32_t>(v));
  if (o.type == "bool") return v != 0.0 ? 1u : 0u;
  return static_cast<uint32_t>(v);
}

}  // namespace

Program::Program(Context& ctx, std::string_view source, const ProgramOptions& options) : ctx_(ctx) {
  CompileOptions co;
  co.file_name = options.file_name;
  co.entry_point = options.entry_point;
  co.optimize = options.optimize;
  co.robust_access = options.robust_access;
  co.validate = true;
  co.target = ctx.info().api_version >= VK_API_VERSION_1_2 ? TargetEnv::Vulkan1_2 : TargetEnv::Vulkan1_1;
  compiled_ = compile(source, co);
  if (!compiled_.ok) throw CompileError(compiled_.formatted_diagnostics);
  const Reflection& r = compiled_.reflection;
  const DeviceInfo& info = ctx.info();
  if (r.uses_subgroups && !info.subgroups_in_compute) {
    throw UnsupportedError(info.name + " has no subgroup operations in compute shaders, which '" +
                           r.entry_point + "' uses (enable subgroups)");
  }
  if (r.requires_uniform_standard_layout && !info.uniform_standard_layout) {
    throw UnsupportedError("'" + r.entry_point +
                           "' has a uniform buffer with a 2-row matrix; that needs the "
                           "uniformBufferStandardLayout feature, which " +
                           info.name + " lacks");
  }
  if (info.shared_memory_bytes && r.workgroup_memory_bytes > info.shared_memory_bytes) {
    throw UnsupportedError("'" + r.entry_point + "' uses " + std::to_string(r.workgroup_memory_bytes) +
                           " bytes of workgroup memory; " + info.name + " has " +
                           std::to_string(info.shared_memory_bytes));
  }
  PipelineDesc desc;
  desc.spirv = compiled_.spirv;
  desc.entry = r.entry_point;
  desc.debug_name = options.file_name + ":" + r.entry_point;
  for (const Binding& b : r.bindings) {
    desc.bindings.push_back({b.group, b.binding,
                             b.kind == BindingKind::UniformBuffer ? vkgemm::BindingKind::UniformBuffer
                                                                  : vkgemm::BindingKind::StorageBuffer});
  }
  workgroup_size_ = r.workgroup_size;
  for (int d = 0; d < 3; ++d) {
    if (r.workgroup_size_spec_id[d] == -2 && !options.overrides.empty()) {
      throw UnsupportedError("'" + r.entry_point +
                             "': setting overrides when @workgroup_size uses an override "
                             "expression (not a plain override) is not supported by Program");
    }
  }
  for (const auto& [name, value] : options.overrides) {
    const OverrideConstant* found = nullptr;
    for (const OverrideConstant& o : r.overrides) {
      if (o.name == name) found = &o;
    }
    if (!found) throw InvalidArgument("'" + r.entry_point + "' uses no override named '" + name + "'");
    if (!found->overridable) {
      throw InvalidArgument("override '" + name + "' is computed from other overrides and cannot be set");
    }
    desc.specialization.push_back({found->spec_id, spec_bits(*found, value)});
    for (int d = 0; d < 3; ++d) {
      if (r.workgroup_size_spec_id[d] == static_cast<int32_t>(found->spec_id)) {
        workgroup_size_[d] = static_cast<uint32_t>(value);
      }
    }
  }
  pipeline_ = &ctx.pipeline(desc);
}

void Program::dispatch(Recorder& rec, const std::vector<BufferArg>& buffers,
                       std::array<uint32_t, 3> groups) const {
  const Reflection& r = compiled_.reflection;
  std::vector<BufferBinding> bindings;
  for (const Binding& b : r.bindings) {
    const BufferArg* arg = nullptr;
    for (const BufferArg& a : buffers) {
      if (a.group == b.group && a.binding == b.binding) {
        if (arg) {
          throw InvalidArgument("@group(" + std::to_string(b.group) + ") @binding(" +
                                std::to_string(b.binding) + ") is bound twice");
        }
        arg = &a;
      }
    }
    std::string where = "'" + b.name + "' (@group(" + std::to_string(b.group) + ") @binding(" +
                        std::to_string(b.binding) + "))";
    if (!arg || !arg->buffer || !*arg->buffer) throw InvalidArgument("no buffer bound for " + where);
    const bool wants_uniform = b.kind == BindingKind::UniformBuffer;
    if (wants_uniform != (arg->buffer->usage() == BufferUsage::Uniform)) {
      throw InvalidArgument(where + (wants_uniform ? " needs a uniform buffer" : " needs a storage buffer"));
    }
    size_t min_bytes = std::max<size_t>(b.size, b.runtime_array_stride);
    if (arg->buffer->size() < min_bytes) {
      throw InvalidArgument(where + " needs at least " + std::to_string(min_bytes) +
                            " bytes, the buffer has " + std::to_string(arg->buffer->size()));
    }
    bindings.push_back({b.group, b.binding, arg->buffer});
  }
  for (const BufferArg& a : buffers) {
    bool used = false;
    for (const Binding& b : r.bindings) used |= a.group == b.group && a.binding == b.binding;
    if (!used) {
      throw InvalidArgument("'" + r.entry_point + "' has no binding @group(" + std::to_string(a.group) +
                            ") @binding(" + std::to_string(a.binding) + ")");
    }
  }
  rec.dispatch(*pipeline_, bindings, groups);
}

void Program::run(const std::vector<BufferArg>& buffers, std::array<uint32_t, 3> groups) const {
  Recorder rec(ctx_);
  dispatch(rec, buffers, groups);
  rec.run();
}

}  // namespace vkgemm::wgsl
