#include "wgsl/compiler.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include "wgsl/parser.hpp"
#include "wgsl/resolver.hpp"
#include "wgsl/spirv_writer.hpp"

namespace vkgemm::wgsl {
namespace {

// WGSL's uniform layout matches Vulkan's default uniform layout except for matrices with 2-row columns.
bool needs_standard_layout(const Type* t) {
  switch (t->kind) {
    case TypeKind::Matrix:
      return t->elem->count == 2 || t->elem->elem->kind == TypeKind::F16;
    case TypeKind::Array:
      return needs_standard_layout(t->elem);
    case TypeKind::Struct:
      for (const auto& m : t->members) {
        if (needs_standard_layout(m.type)) return true;
      }
      return false;
    default:
      return false;
  }
}

spv_target_env env_of(TargetEnv t) {
  return t == TargetEnv::Vulkan1_2 ? SPV_ENV_VULKAN_1_2 : SPV_ENV_VULKAN_1_1;
}

Reflection reflect(const sem::Module& sem, const sem::Function& entry) {
  Reflection r;
  r.entry_point = entry.decl->name;
  for (int i = 0; i < 3; ++i) {
    r.workgroup_size[i] = entry.workgroup_size[i].value;
    if (entry.workgroup_size[i].override_expr) r.workgroup_size_spec_id[i] = -2;
    if (entry.workgroup_size[i].override_decl) {
      r.workgroup_size_spec_id[i] =
          static_cast<int32_t>(sem.overrides.at(entry.workgroup_size[i].override_decl).spec_id);
    }
  }
  r.uses_subgroups = entry.uses_subgroups;
  for (const ast::VarDecl* g : entry.globals) {
    if (auto it = sem.globals.find(g); it != sem.globals.end()) {
      const sem::GlobalVar& gv = it->second;
      if (gv.address_space == AddressSpace::Workgroup)
        r.workgroup_memory_bytes += round_up(16, gv.store_type->size);
      if (gv.address_space == AddressSpace::Uniform && needs_standard_layout(gv.store_type)) {
        r.requires_uniform_standard_layout = true;
      }
      if (!gv.group) continue;
      Binding b;
      b.name = g->name;
      b.group = *gv.group;
      b.binding = *gv.binding;
      b.kind = gv.address_space == AddressSpace::Uniform ? BindingKind::UniformBuffer
               : gv.access == Access::Read               ? BindingKind::ReadOnlyStorageBuffer
                                                         : BindingKind::StorageBuffer;
      const Type* t = gv.store_type;
      b.type = to_string(t);
      if (t->kind == TypeKind::Array && t->count == 0) {
        b.size = 0;
        b.runtime_array_stride = t->stride;
      } else if (t->kind == TypeKind::Struct && t->has_runtime_array()) {
        b.size = t->members.back().offset;
        b.runtime_array_stride = t->members.back().type->stride;
      } else {
        b.size = t->size;
      }
      r.bindings.push_back(b);
    } else if (auto ot = sem.overrides.find(g); ot != sem.overrides.end()) {
      OverrideConstant oc;
      oc.name = g->name;
      oc.spec_id = ot->second.spec_id;
      oc.type = to_string(ot->second.type);
      oc.overridable = ot->second.derived_from == nullptr;
      if (ot->second.default_value) {
        oc.has_default = true;
        const sem::Value& v = *ot->second.default_value;
        oc.default_value = ot->second.type->is_float_scalar() ? v.f : static_cast<double>(v.i);
      }
      r.overrides.push_back(oc);
    }
  }
  std::sort(r.bindings.begin(), r.bindings.end(), [](const Binding& a, const Binding& b) {
    return std::make_pair(a.group, a.binding) < std::make_pair(b.group, b.binding);
  });
  std::sort(r.overrides.begin(), r.overrides.end(), [](const OverrideConstant& a, const OverrideConstant& b) {
    // Overridable ones by spec id, then the derived ones by name.
    return std::make_tuple(!a.overridable, a.overridable ? a.spec_id : 0u, a.name) <
           std::make_tuple(!b.overridable, b.overridable ? b.spec_id : 0u, b.name);
  });
  return r;
}

}  // namespace

std::string validate_spirv(const std::vector<uint32_t>& spirv, TargetEnv target,
                           bool uniform_standard_layout) {
  spvtools::SpirvTools tools(env_of(target));
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos, const char* msg) {
    messages += "spirv-val (word " + std::to_string(pos.index) + "): " + msg + "\n";
  });
  spvtools::ValidatorOptions options;
  options.SetUniformBufferStandardLayout(uniform_standard_layout);
  if (!tools.Validate(spirv.data(), spirv.size(), options)) {
    if (messages.empty()) messages = "spirv-val: invalid module\n";
    return messages;
  }
  return {};
}

std::string disassemble(const std::vector<uint32_t>& spirv) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string text;
  tools.Disassemble(spirv, &text,
                    SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT);
  return text;
}

CompileResult compile(std::string_view source, const CompileOptions& options) {
  CompileResult result;
  SourceFile file(options.file_name, std::string(source));
  auto module = parse(file, result.diagnostics);
  std::unique_ptr<sem::Module> sem;
  if (!result.diagnostics.has_errors()) sem = resolve(*module, result.diagnostics);
  const sem::Function* entry = nullptr;
  if (sem && !result.diagnostics.has_errors()) {
    for (const auto& f : module->functions) {
      auto it = sem->function_index.find(f.get());
      if (it == sem->function_index.end()) continue;
      const sem::Function& sf = sem->functions[it->second];
      if (sf.is_entry_point && (options.entry_point.empty() || f->name == options.entry_point)) {
        entry = &sf;
        break;
      }
    }
    if (!entry) {
      SourceRange whole{{1, 1, 0}, {1, 1, 0}};
      result.diagnostics.error(whole, options.entry_point.empty()
                                          ? "the module has no @compute entry point"
                                          : "no @compute entry point named '" + options.entry_point + "'");
    }
  }
  if (result.diagnostics.has_errors()) {
    result.formatted_diagnostics = result.diagnostics.format(file);
    return result;
  }
  WriterOptions wo;
  wo.entry_point = entry->decl->name;
  wo.zero_initialize_workgroup_memory = options.zero_initialize_workgroup_memory;
  wo.robust_access = options.robust_access;
  result.spirv = write_spirv(*module, *sem, wo);
  result.reflection = reflect(*sem, *entry);
  if (options.validate) {
    std::string messages =
        validate_spirv(result.spirv, options.target, result.reflection.requires_uniform_standard_layout);
    if (!messages.empty()) {
      result.internal_error = true;
      result.diagnostics.error({{1, 1, 0}, {1, 1, 0}},
                               "internal compiler error: generated SPIR-V failed validation:\n" + messages);
      result.formatted_diagnostics = result.diagnostics.format(file);
      return result;
    }
  }
  if (options.optimize) {
    spvtools::Optimizer opt(env_of(options.target));
    opt.RegisterPerformancePasses();
    std::vector<uint32_t> optimized;
    spvtools::OptimizerOptions opt_options;
    opt_options.set_run_validator(false);  // validated above, with the right layout options
    if (opt.Run(result.spirv.data(), result.spirv.size(), &optimized, opt_options)) {
      result.spirv = std::move(optimized);
      if (options.validate) {
        std::string messages =
            validate_spirv(result.spirv, options.target, result.reflection.requires_uniform_standard_layout);
        if (!messages.empty()) {
          result.internal_error = true;
          result.diagnostics.error({{1, 1, 0}, {1, 1, 0}}, "spirv-opt produced invalid SPIR-V:\n" + messages);
          result.formatted_diagnostics = result.diagnostics.format(file);
          return result;
        }
      }
    }
  }
  result.ok = true;
  return result;
}

std::string reflection_to_json(const Reflection& r) {
  nlohmann::json j;
  j["entry_point"] = r.entry_point;
  j["workgroup_size"] = r.workgroup_size;
  j["workgroup_size_spec_id"] = r.workgroup_size_spec_id;
  j["workgroup_memory_bytes"] = r.workgroup_memory_bytes;
  j["uses_subgroups"] = r.uses_subgroups;
  j["requires_uniform_standard_layout"] = r.requires_uniform_standard_layout;
  j["bindings"] = nlohmann::json::array();
  for (const auto& b : r.bindings) {
    const char* kind = b.kind == BindingKind::UniformBuffer           ? "uniform"
                       : b.kind == BindingKind::ReadOnlyStorageBuffer ? "storage_read"
                                                                      : "storage_read_write";
    j["bindings"].push_back({{"name", b.name},
                             {"group", b.group},
                             {"binding", b.binding},
                             {"kind", kind},
                             {"size", b.size},
                             {"runtime_array_stride", b.runtime_array_stride},
                             {"type", b.type}});
  }
  j["overrides"] = nlohmann::json::array();
  for (const auto& o : r.overrides) {
    nlohmann::json oj{{"name", o.name}, {"type", o.type}, {"overridable", o.overridable}};
    if (o.overridable) oj["spec_id"] = o.spec_id;
    if (o.has_default) oj["default"] = o.default_value;
    j["overrides"].push_back(oj);
  }
  return j.dump(2);
}

}  // namespace vkgemm::wgsl
