// Conformance-style table: whole programs that must be accepted (and validate) or rejected (with the reason).
#include <gtest/gtest.h>

#include <ostream>

#include "test_util.hpp"

namespace vkgemm::wgsl {
namespace {

struct Program {
  const char* name;
  bool accept;
  const char* reason;  // why it is valid / invalid (for rejections: a substring of the first error)
  const char* source;
};

const Program kPrograms[] = {
    // ---- accepted ----
    {"minimal", true, "an empty compute entry point", "@compute @workgroup_size(1) fn main() {}"},
    {"declarations_out_of_order", true, "module-scope declarations may be used before they are declared",
     "@compute @workgroup_size(N) fn main() { _ = f(); }\nfn f() -> S { return S(C); }\nstruct S { x: u32 }\n"
     "const C = N * 2u;\nconst N: u32 = 4;"},
    {"shadowing_builtin_function", true, "user functions may shadow built-in functions (Gridwise emulation)",
     "fn subgroupShuffle(x: u32, i: u32) -> u32 { return x + i; }\n"
     "@compute @workgroup_size(1) fn main() { _ = subgroupShuffle(1u, 2u); }"},
    {"shadowing_builtin_type_name_in_scope", true, "local names may shadow predeclared names",
     "@compute @workgroup_size(1) fn main() { let f32 = 3; let max = 1; _ = f32 + max; }"},
    {"abstract_int_to_float", true, "abstract ints convert to f32 where a float is needed",
     "@compute @workgroup_size(1) fn main() { var x: f32 = 1; x = x + 2; let y = max(x, 0); _ = y; }"},
    {"alias_and_struct", true, "aliases name types",
     "alias V = vec4<f32>;\nstruct S { v: V }\n@compute @workgroup_size(1) fn main() { let s = S(V(1.0)); _ "
     "= s.v.x; }"},
    {"ptr_let", true, "pointers can be bound with let",
     "@compute @workgroup_size(1) fn main() { var a = 1; let p = &a; *p = 2; _ = *p; }"},
    {"loop_break_if", true, "break if at the end of continuing",
     "@compute @workgroup_size(1) fn main() { var i = 0; loop { continuing { i++; break if i >= 4; } } }"},
    {"infinite_loop_returns", true, "a function ending in a loop without break returns on every path",
     "fn f() -> i32 { loop { return 1; } }\n@compute @workgroup_size(1) fn main() { _ = f(); }"},
    {"switch_default_selector_in_case", true, "default may appear in a case selector list",
     "@compute @workgroup_size(1) fn main() { var x = 1; switch x { case 1, default { x = 2; } case 2 { } } "
     "}"},
    {"unreachable_code_after_return", true, "statements after return are allowed",
     "fn f() -> i32 { return 1; let x = 2; }\n@compute @workgroup_size(1) fn main() { _ = f(); }"},
    {"hex_float_and_suffixes", true, "literal forms",
     "@compute @workgroup_size(1) fn main() { let a = 0x1.8p1; let b = 1e-3f; let c = 0xFFu; _ = a; _ = b; _ "
     "= c; }"},
    {"const_assert_true", true, "const_assert that holds",
     "const_assert 2 + 2 == 4;\n@compute @workgroup_size(1) fn main() {}"},
    {"uniform_struct_aligned", true, "uniform struct members aligned to 16",
     "struct A { x: f32 }\nstruct U { a: A, @align(16) b: A, c: array<vec4<f32>, 2> }\n"
     "@group(0) @binding(0) var<uniform> u: U;\n@compute @workgroup_size(1) fn main() { _ = u.b.x; }"},
    {"barrier_in_uniform_loop", true, "barrier inside a loop bounded by a uniform value",
     "@group(0) @binding(0) var<uniform> n: u32;\nvar<workgroup> t: array<u32, 8>;\n"
     "@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) {\n"
     "  for (var k = 0u; k < n; k++) { t[i] = k; workgroupBarrier(); } }"},
    {"workgroup_uniform_load_in_condition", true, "workgroupUniformLoad yields a uniform value",
     "var<workgroup> flag: u32;\n@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: "
     "u32) {\n"
     "  if (i == 0u) { flag = 1u; }\n  if (workgroupUniformLoad(&flag) == 1u) { workgroupBarrier(); } }"},
    {"diagnostic_and_requires_directives", true, "directives are accepted",
     "diagnostic(off, derivative_uniformity);\n@compute @workgroup_size(1) fn main() {}"},

    {"override_expressions", true, "derived overrides size workgroup arrays and the workgroup",
     "override B: u32 = 8;\noverride T = B * 2u;\nvar<workgroup> w: array<f32, T>;\n"
     "@compute @workgroup_size(T) fn main(@builtin(local_invocation_index) i: u32) { w[i] = 1.0; }"},
    {"entry_input_struct", true, "entry-point parameters may be structs of built-ins",
     "struct I { @builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) w: vec3<u32> }\n"
     "@compute @workgroup_size(4) fn main(i: I) { _ = i.l.x + i.w.y; }"},
    {"private_pointer_argument", true, "pointers to private variables may be passed",
     "var<private> p: array<u32, 4>;\nfn set(q: ptr<private, array<u32, 4>>) { (*q)[1] = 2u; }\n"
     "@compute @workgroup_size(1) fn main() { set(&p); }"},
    {"struct_size_and_align", true, "@size/@align adjust the host-shareable layout",
     "struct S { @size(16) a: f32, @align(32) b: vec2<f32> }\n@group(0) @binding(0) var<storage, read_write> "
     "s: S;\n"
     "@compute @workgroup_size(1) fn main() { s.b.y = s.a; }"},
    {"atomic_struct_in_workgroup", true, "atomics in workgroup structs",
     "struct C { n: atomic<u32>, m: atomic<i32> }\nvar<workgroup> c: C;\n"
     "@compute @workgroup_size(4) fn main() { atomicAdd(&c.n, 1u); atomicMin(&c.m, -1); }"},
    {"const_function_scope", true, "function-scope const with abstract values",
     "@compute @workgroup_size(1) fn main() { const a = 1.5 * 2; const b = vec2(a, 1); var v: vec2<f32> = b; "
     "_ = v; }"},
    {"bitcast_vec2_f16", true, "bitcast between u32 and vec2<f16>",
     "enable f16;\n@compute @workgroup_size(1) fn main() { let h = bitcast<vec2<f16>>(0x3c003c00u); _ = h; "
     "}"},

    {"requires_supported_feature", true, "pointer_composite_access is implemented",
     "requires pointer_composite_access;\nvar<private> a: array<u32, 2>;\nfn f(p: ptr<private, array<u32, "
     "2>>) { p[0] = 1u; }\n"
     "@compute @workgroup_size(1) fn main() { f(&a); }"},

    {"barrier_in_loop_bounded_by_array_length", true, "arrayLength of a read_write buffer is uniform",
     "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\nvar<workgroup> t: array<u32, 8>;\n"
     "@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) {\n"
     "  for (var k = 0u; k < arrayLength(&a); k += 8u) { t[i] = a[k]; workgroupBarrier(); } }"},

    {"struct_shared_by_buffers_and_nested", true, "one struct type in several buffers, nested and as a local",
     "struct In { a: f32, b: vec2<f32> }\nstruct Out { i: In, arr: array<In, 2> }\n"
     "@group(0) @binding(0) var<storage, read_write> x: In;\n@group(0) @binding(1) var<storage, read_write> "
     "y: Out;\n"
     "@group(0) @binding(2) var<uniform> u: In;\n"
     "@compute @workgroup_size(1) fn main() { y.i = x; y.arr[1] = u; var l: In = u; l.a += 1.0; x = l; }"},

    // ---- rejected ----
    {"runtime_array_struct_as_member", false, "cannot be a struct member",
     "struct R { n: u32, d: array<f32> }\nstruct S { r: R }\n@compute @workgroup_size(1) fn main() {}"},
    {"requires_unsupported_feature", false, "not supported by this compiler",
     "requires unrestricted_pointer_parameters;\n@compute @workgroup_size(1) fn main() {}"},
    {"float_override_expression", false, "must be integer or bool",
     "override a = 1.5;\noverride b = a * 2.0;\n@compute @workgroup_size(1) fn main() { _ = b; }"},
    {"override_array_in_private", false, "only allowed as the type of workgroup",
     "override n: u32 = 4;\nvar<private> a: array<f32, n>;\n@compute @workgroup_size(1) fn main() {}"},
    {"switch_selector_type_mismatch", false, "does not match",
     "@compute @workgroup_size(1) fn main() { let x = 1u; switch x { case 1i: {} default: {} } }"},
    {"duplicate_struct_member", false, "duplicate member",
     "struct S { a: f32, a: u32 }\n@compute @workgroup_size(1) fn main() {}"},
    {"signed_shift_amount", false, "shift amount must be u32",
     "@compute @workgroup_size(1) fn main() { let a = 1u; let b = 2i; _ = a << b; }"},
    {"assign_to_const", false, "cannot assign to a value",
     "@compute @workgroup_size(1) fn main() { const c = 1; c = 2; }"},
    {"atomic_on_non_atomic", false, "requires a pointer to an atomic",
     "var<workgroup> x: u32;\n@compute @workgroup_size(1) fn main() { atomicAdd(&x, 1u); }"},
    {"array_length_of_fixed_array", false, "runtime-sized array",
     "@group(0) @binding(0) var<storage> a: array<f32, 4>;\n@compute @workgroup_size(1) fn main() { _ = "
     "arrayLength(&a); }"},
    {"address_of_vector_component", false, "address of a vector component",
     "@compute @workgroup_size(1) fn main() { var v: vec4<f32>; let p = &v.x; }"},
    {"struct_recursion", false, "contains itself",
     "struct S { s: S }\n@compute @workgroup_size(1) fn main() {}"},
    {"alias_cycle", false, "refers to itself",
     "alias A = array<A, 2>;\n@compute @workgroup_size(1) fn main() {}"},
    {"storage_barrier_divergent", false, "uniform control flow",
     "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n"
     "@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) { if (a[i] > 0u) { "
     "storageBarrier(); } }"},
    {"subgroup_builtin_value_without_enable", false, "enable subgroups",
     "@compute @workgroup_size(8) fn main(@builtin(subgroup_invocation_id) s: u32) {}"},
    {"no_entry_point", false, "no @compute entry point", "fn f() {}"},
    {"missing_semicolon", false, "expected ';'", "@compute @workgroup_size(1) fn main() { let x = 1 }"},
    {"type_mismatch_i32_u32", false, "mismatched types",
     "@compute @workgroup_size(1) fn main() { let x = 1i + 1u; }"},
    {"f16_without_enable", false, "enable f16", "@compute @workgroup_size(1) fn main() { let x = 1.0h; }"},
    {"subgroups_without_enable", false, "enable subgroups",
     "@compute @workgroup_size(1) fn main() { _ = subgroupElect(); }"},
    {"barrier_in_divergent_branch", false, "uniform control flow",
     "@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) { if (i > 3u) { "
     "workgroupBarrier(); } }"},
    {"barrier_in_callee_called_divergently", false, "uniform control flow",
     "fn sync() { workgroupBarrier(); }\n@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) "
     "g: vec3<u32>) {\n"
     "  if (g.x == 0u) { sync(); } }"},
    {"write_to_read_only_storage", false, "read-only",
     "@group(0) @binding(0) var<storage, read> a: array<u32>;\n@compute @workgroup_size(1) fn main() { a[0] "
     "= 1u; }"},
    {"write_to_uniform", false, "read-only",
     "@group(0) @binding(0) var<uniform> u: vec4<f32>;\n@compute @workgroup_size(1) fn main() { u.x = 1.0; "
     "}"},
    {"assign_to_let", false, "cannot assign to a value",
     "@compute @workgroup_size(1) fn main() { let a = 1; a = 2; }"},
    {"const_overflow", false, "cannot be represented",
     "const big: i32 = 2147483648;\n@compute @workgroup_size(1) fn main() {}"},
    {"const_index_out_of_bounds", false, "out of bounds",
     "@compute @workgroup_size(1) fn main() { var a: array<f32, 4>; a[4] = 1.0; }"},
    {"recursion", false, "recursion",
     "fn f(x: i32) -> i32 { return f(x); }\n@compute @workgroup_size(1) fn main() { _ = f(1); }"},
    {"runtime_array_in_function_var", false, "not constructible",
     "@compute @workgroup_size(1) fn main() { var a: array<f32>; }"},
    {"storage_in_function", false, "function-scope variables",
     "@compute @workgroup_size(1) fn main() { var<storage> a: f32; }"},
    {"module_var_without_address_space", false, "address space",
     "var x: f32;\n@compute @workgroup_size(1) fn main() {}"},
    {"workgroup_initializer", false, "cannot have an initializer",
     "var<workgroup> x: f32 = 1.0;\n@compute @workgroup_size(1) fn main() {}"},
    {"duplicate_binding_in_entry", false, "twice",
     "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n@group(0) @binding(0) var<storage, "
     "read_write> b: array<u32>;\n"
     "@compute @workgroup_size(1) fn main() { a[0] = b[0]; }"},
    {"workgroup_size_too_large", false, "exceeds", "@compute @workgroup_size(64, 64) fn main() {}"},
    {"call_entry_point", false, "cannot be called",
     "@compute @workgroup_size(1) fn main() {}\n@compute @workgroup_size(1) fn other() { main(); }"},
    {"unused_call_result", false, "must be used", "@compute @workgroup_size(1) fn main() { max(1, 2); }"},
    {"discard_in_compute", false, "fragment", "@compute @workgroup_size(1) fn main() { discard; }"},
    {"bad_bitcast_size", false, "cannot bitcast",
     "@compute @workgroup_size(1) fn main() { _ = bitcast<vec2<u32>>(1u); }"},
    {"reserved_identifier", false, "reserved", "@compute @workgroup_size(1) fn main() { let static = 1; }"},
    {"double_underscore", false, "two underscores", "@compute @workgroup_size(1) fn main() { let __x = 1; }"},
    {"break_outside_loop", false, "inside a loop", "@compute @workgroup_size(1) fn main() { break; }"},
    {"return_value_from_void", false, "does not return a value",
     "@compute @workgroup_size(1) fn main() { return 1; }"},
    {"atomic_in_private", false, "atomic",
     "var<private> a: atomic<u32>;\n@compute @workgroup_size(1) fn main() {}"},
    {"uniform_runtime_array", false, "uniform",
     "@group(0) @binding(0) var<uniform> u: array<vec4<f32>>;\n@compute @workgroup_size(1) fn main() {}"},
};

void PrintTo(const Program& p, std::ostream* os) {
  *os << p.name;
}

class Conformance : public ::testing::TestWithParam<Program> {};

TEST_P(Conformance, AcceptOrReject) {
  const Program& p = GetParam();
  CompileOptions options;
  options.file_name = "conformance.wgsl";
  CompileResult r = compile(p.source, options);
  if (p.accept) {
    EXPECT_TRUE(r.ok) << p.reason << "\n" << r.formatted_diagnostics;
  } else {
    ASSERT_FALSE(r.ok) << "must be rejected: " << p.reason;
    EXPECT_NE(r.formatted_diagnostics.find(p.reason), std::string::npos) << r.formatted_diagnostics;
    EXPECT_FALSE(r.internal_error) << r.formatted_diagnostics;
    EXPECT_EQ(r.formatted_diagnostics.rfind("conformance.wgsl:", 0), 0u) << r.formatted_diagnostics;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, Conformance, ::testing::ValuesIn(kPrograms),
                         [](const ::testing::TestParamInfo<Program>& p) {
                           return std::string(p.param.name);
                         });

}  // namespace
}  // namespace vkgemm::wgsl
