// SPIR-V writer: every statement kind and built-in family compiles to SPIR-V that spirv-val accepts, and the
// expected instructions appear.
#include <gtest/gtest.h>

#include <ostream>

#include "test_util.hpp"

namespace vkgemm::wgsl {
namespace {

using testing::compile_ok;
using testing::kernel;

std::string disasm_of(const std::string& src, CompileOptions options = {}) {
  CompileResult r = compile_ok(src, options);
  return r.ok ? disassemble(r.spirv) : std::string();
}

TEST(Writer, HeaderAndEntryPoint) {
  CompileResult r = compile_ok(kernel("out[gid.x] = 1.0;"));
  ASSERT_TRUE(r.ok);
  ASSERT_GE(r.spirv.size(), 5u);
  EXPECT_EQ(r.spirv[0], 0x07230203u);
  EXPECT_EQ(r.spirv[1], 0x00010300u);  // SPIR-V 1.3
  std::string text = disassemble(r.spirv);
  EXPECT_NE(text.find("OpEntryPoint GLCompute"), std::string::npos);
  EXPECT_NE(text.find("LocalSize 64 1 1"), std::string::npos);
  EXPECT_NE(text.find("OpDecorate %out DescriptorSet 0"), std::string::npos) << text;
  EXPECT_NE(text.find("Block"), std::string::npos);
}

struct Snippet {
  const char* name;
  const char* body;
  const char* globals;
  const char* expect;  // substring of the disassembly ("" for none)
};

// Stable, readable test names in ctest (the default prints the struct's bytes).
void PrintTo(const Snippet& s, std::ostream* os) {
  *os << s.name;
}

class StatementsAndBuiltins : public ::testing::TestWithParam<Snippet> {};

TEST_P(StatementsAndBuiltins, CompileValidateAndContain) {
  const Snippet& s = GetParam();
  std::string src = std::string(s.globals).find("enable") != std::string::npos
                        ? std::string(s.globals) + "\n" + kernel(s.body)
                        : kernel(s.body, s.globals);
  CompileResult r = compile_ok(src);
  ASSERT_TRUE(r.ok);
  if (*s.expect) {
    std::string text = disassemble(r.spirv);
    EXPECT_NE(text.find(s.expect), std::string::npos) << "missing " << s.expect << " in\n" << text;
  }
  // The optimizer must keep it valid too.
  CompileOptions o;
  o.optimize = true;
  EXPECT_TRUE(compile(src, o).ok);
}

#define SNIP(name, body, globals, expect) \
  Snippet {                               \
    name, body, globals, expect           \
  }

INSTANTIATE_TEST_SUITE_P(
    Writer, StatementsAndBuiltins,
    ::testing::Values(
        // statements
        SNIP(
            "if_else",
            "if (gid.x > 3u) { out[0] = 1.0; } else if (gid.x > 1u) { out[1] = 2.0; } else { out[2] = 3.0; }",
            "", "OpSelectionMerge"),
        SNIP("switch",
             "switch gid.x { case 0u, 1u: { out[0] = 1.0; } case 2u { break; } default: { out[1] = 2.0; } }",
             "", "OpSwitch"),
        SNIP("loop_continuing_break_if",
             "var i = 0u; loop { if (i == 7u) { break; } out[i] = f32(i); continuing { i++; break if i > 5u; "
             "} }",
             "", "OpLoopMerge"),
        SNIP("for", "for (var i = 0; i < 4; i++) { if (i == 2) { continue; } out[i] = 1.0; }", "",
             "OpLoopMerge"),
        SNIP("while", "var i = 0u; while i < gid.x { i += 2u; } outu[0] = i;", "", ""),
        SNIP("nested_loops_break_continue",
             "for (var i = 0u; i < 3u; i++) { for (var j = 0u; j < 3u; j++) { if (j == i) { continue; } if "
             "(j > 1u) { break; } outu[i * 3u + j] = j; } }",
             "", ""),
        SNIP("return_early", "if (gid.x > 10u) { return; } out[gid.x] = 1.0;", "", "OpReturn"),
        SNIP("pure_logical_and_is_branch_free",
             "let ok = gid.x > 1u && (gid.y < 3u || lidx == 0u); outu[0] = select(0u, 1u, ok);", "",
             "OpLogicalAnd"),
        SNIP("modf_frexp",
             "let m = modf(out[0]); let f = frexp(vec2<f32>(out[1], 8.0)); out[2] = m.fract + m.whole + "
             "f.fract.x + f32(f.exp.y);",
             "", "ModfStruct"),
        SNIP("compound_assign_from_variables",
             "var x = gid.x; var y = 3u; x += y; x *= y; var f = 1.0; var g = out[0]; f -= g; f /= g; "
             "var v = vec2<f32>(f); v *= g; v += vec2<f32>(g); var s = i32(x); s <<= y; s >>= x; "
             "outu[0] = x + u32(s); out[0] = f + v.y;",
             "", "OpFSub"),
        SNIP("compound_assign",
             "var x = 1u; x += 2u; x -= 1u; x *= 3u; x /= 2u; x %= 5u; x &= 7u; x |= 8u; x ^= 1u; x <<= 2u; "
             "x >>= 1u; outu[0] = x;",
             "", "OpShiftLeftLogical"),
        SNIP("increment_decrement", "var i = 3; i++; i--; i++; out[0] = f32(i);", "", "OpIAdd"),
        SNIP("phony", "_ = out[0]; _ = gid;", "", ""),
        SNIP("let_const_var", "const c = 4; let l = gid.x * 2u; var v: u32; v = l + c; outu[0] = v;", "", ""),
        SNIP("short_circuit",
             "let ok = (gid.x < arrayLength(&out) && out[gid.x] > 0.0) || gid.y == 0u; outu[0] = select(0u, "
             "1u, ok);",
             "", "OpPhi"),
        SNIP("user_function_pointer_param", "var x = 1.0; bump(&x); out[0] = x;",
             "fn bump(p: ptr<function, f32>) { *p = *p + 1.0; }", "OpFunctionCall"),
        SNIP("private_pointer_param", "bump(&counter); outu[0] = counter;",
             "var<private> counter: u32 = 5u;\nfn bump(p: ptr<private, u32>) { (*p)++; }", "OpFunctionCall"),
        SNIP("workgroup_pointer_param", "fill(&tile); workgroupBarrier(); out[lidx] = tile[lidx];",
             "var<workgroup> tile: array<f32, 64>;\nfn fill(p: ptr<workgroup, array<f32, 64>>) { (*p)[0] = "
             "2.0; p[1] = 3.0; }",
             "OpControlBarrier"),
        SNIP("struct_and_array_values",
             "var s = S(out[1], vec2<u32>(gid.y, 3u), array<i32, 3>(4, i32(lidx), 6)); s.b.y = 9u; let k = "
             "i32(gid.x % 3u); out[0] = s.a + f32(s.b.y) + f32(s.c[k]);",
             "struct S { a: f32, b: vec2<u32>, c: array<i32, 3> }", "OpCompositeConstruct"),
        SNIP("matrix_ops",
             "let m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0); let v = m * vec2<f32>(1.0, 1.0); let w = "
             "vec2<f32>(1.0, 0.0) * m; let n = m * m + m - m * 2.0; let t = transpose(n); out[0] = v.x + w.y "
             "+ t[1][0] + determinant(m) + (-m)[0].x;",
             "", "OpMatrixTimesVector"),
        SNIP("vector_swizzles",
             "var v = vec4<f32>(1.0, 2.0, 3.0, 4.0); v.x = v.w; v[2] = 7.0; let s = v.zyx + v.rgb; out[0] = "
             "s.x + v[gid.x % 4u];",
             "", "OpVectorShuffle"),
        SNIP("vector_scalar_arith",
             "let v = vec3<f32>(out[1]) * 2.0 + 1.0; let u = 3u + vec2<u32>(gid.x, 2u); out[0] = v.y + "
             "f32(u.x);",
             "", "OpVectorTimesScalar"),
        SNIP("integer_div_mod_guard",
             "let a = i32(gid.x) - 3; let b = i32(gid.y); out[0] = f32(a / b + a % b) + f32(gid.x / 2u);", "",
             "OpSelect"),
        SNIP("conversions",
             "let f = f32(gid.x); let i = i32(f * -1.5); let u = u32(i); let b = bool(u); let g = f32(b); "
             "let v = vec3<i32>(vec3<f32>(1.5, 2.5, 3.5)); out[0] = f + f32(i) + f32(u) + g + f32(v.x);",
             "", "OpConvertFToS"),
        SNIP("bitcast",
             "let u = bitcast<u32>(out[0]); let f = bitcast<f32>(u ^ 0x80000000u); let v = "
             "bitcast<vec2<i32>>(vec2<u32>(1u, 2u)); out[1] = f + f32(v.y);",
             "", "OpBitcast"),
        SNIP("numeric_float",
             "let x = out[gid.x]; let v = vec3<f32>(x, 1.0, 2.0); out[0] = abs(x) + acos(0.5) + acosh(2.0) + "
             "asin(0.5) + asinh(x) + atan(x) + atanh(0.5) + atan2(x, 1.0) + ceil(x) + cos(x) + cosh(x) + "
             "degrees(x) + exp(x) + exp2(x) + floor(x) + fract(x) + inverseSqrt(2.0 + x * x) + log(2.0 + x * "
             "x) + log2(2.0 + x * x) + radians(x) + round(x) + sign(x) + sin(x) + sinh(x) + sqrt(x * x) + "
             "tan(x) + tanh(x) + trunc(x) + saturate(x) + pow(2.0, x) + step(0.5, x) + fma(x, 2.0, 1.0) + "
             "mix(x, 1.0, 0.25) + mix(v, v, 0.5).x + smoothstep(0.0, 1.0, x) + ldexp(x, 2) + min(x, 1.0) + "
             "max(x, 1.0) + clamp(x, 0.0, 1.0) + quantizeToF16(x);",
             "", "OpExtInst"),
        SNIP("numeric_integer",
             "let a = i32(gid.x) - 5; let b = gid.y; outu[0] = u32(abs(a) + sign(a) + min(a, 2) + max(a, -2) "
             "+ clamp(a, -1, 1)) + min(b, 3u) + max(b, 1u) + clamp(b, 1u, 4u);",
             "", "SMin"),
        SNIP("geometric",
             "let a = vec3<f32>(out[0], 1.0, 2.0); let b = vec3<f32>(2.0, out[1], 0.5); let c = cross(a, b); "
             "out[0] = dot(a, b) + length(a) + distance(a, b) + normalize(b).x + faceForward(a, b, c).y + "
             "reflect(a, b).z + refract(a, b, 0.5).x + f32(dot(vec2<i32>(1, 2), vec2<i32>(i32(gid.x), 4)));",
             "", "OpDot"),
        SNIP("bit_ops",
             "let x = gid.x; let y = i32(gid.y); outu[0] = countOneBits(x) + countLeadingZeros(x) + "
             "countTrailingZeros(x) + firstLeadingBit(x) + firstTrailingBit(x) + reverseBits(x) + "
             "extractBits(x, 3u, 4u) + insertBits(x, 5u, 2u, 3u) + u32(countLeadingZeros(y) + "
             "firstLeadingBit(y) + extractBits(y, 1u, 40u)) + (x << 3u) + (x >> 1u) + (~x);",
             "", "OpBitFieldUExtract"),
        SNIP("logical",
             "let v = vec3<bool>(gid.x > 1u, true, gid.y == 2u); outu[0] = select(0u, 1u, all(v)) + "
             "select(0u, 2u, any(v)) + select(vec2<u32>(1u), vec2<u32>(2u), vec2<bool>(v.x, !v.z)).x + "
             "select(vec2<u32>(3u), vec2<u32>(4u), v.y).y;",
             "", "OpAll"),
        SNIP("packing",
             "let p = pack4x8snorm(vec4<f32>(0.5)) + pack4x8unorm(vec4<f32>(0.5)) + "
             "pack2x16snorm(vec2<f32>(0.5)) + pack2x16unorm(vec2<f32>(0.5)) + pack2x16float(vec2<f32>(0.5)); "
             "let u = unpack4x8snorm(p).x + unpack4x8unorm(p).y + unpack2x16snorm(p).x + "
             "unpack2x16unorm(p).y + unpack2x16float(p).x; out[0] = u;",
             "", "PackHalf2x16"),
        SNIP("array_length", "outu[0] = arrayLength(&out) + arrayLength(&sb.data);",
             "struct SB { n: u32, data: array<f32> }\n@group(0) @binding(2) var<storage, read> sb: SB;",
             "OpArrayLength"),
        SNIP("atomics_storage",
             "let o = atomicAdd(&counters.a, 1u); atomicSub(&counters.a, 1u); atomicMax(&counters.b, -3); "
             "atomicMin(&counters.b, 4); atomicAnd(&counters.a, 3u); atomicOr(&counters.a, 4u); "
             "atomicXor(&counters.a, 1u); let e = atomicExchange(&counters.a, 2u); atomicStore(&counters.a, "
             "o + e); let r = atomicCompareExchangeWeak(&counters.a, 2u, 3u); outu[0] = "
             "atomicLoad(&counters.a) + r.old_value + select(0u, 1u, r.exchanged);",
             "struct C { a: atomic<u32>, b: atomic<i32> }\n@group(0) @binding(2) var<storage, read_write> "
             "counters: C;",
             "OpAtomicCompareExchange"),
        SNIP("atomics_workgroup",
             "atomicAdd(&hist[gid.x % 16u], 1u); workgroupBarrier(); outu[lidx] = atomicLoad(&hist[lidx % "
             "16u]);",
             "var<workgroup> hist: array<atomic<u32>, 16>;", "OpAtomicIAdd"),
        SNIP("barriers_and_uniform_load",
             "tile[lidx] = f32(lidx); workgroupBarrier(); storageBarrier(); let n = "
             "workgroupUniformLoad(&count); out[lidx] = tile[63u - lidx] + f32(n);",
             "var<workgroup> tile: array<f32, 64>;\nvar<workgroup> count: u32;", "OpControlBarrier"),
        SNIP("zero_value_and_consts",
             "let z = vec4<f32>(); let a = array<u32, 4>(); const c = vec2(1, 2) * 3; outu[0] = a[gid.x % "
             "4u] + u32(c.y) + u32(z.w);",
             "", ""),
        SNIP("global_const_array_dynamic_index", "outu[0] = TABLE[gid.x % 4u];",
             "const TABLE = array<u32, 4>(1u, 2u, 4u, 8u);", "OpConstantComposite"),
        SNIP("private_var_initializer", "g += 1.0; out[0] = g;", "var<private> g: f32 = 3.0;", "Private"),
        SNIP("uniform_struct", "out[0] = params.scale * f32(params.count) + params.m[1].x;",
             "struct P { scale: f32, count: u32, m: mat2x2<f32> }\n@group(0) @binding(2) var<uniform> "
             "params: P;",
             "MatrixStride"),
        SNIP("f16", "let h = f16(out[0]) * 2.0h; let v = vec2<f16>(h, 1.0h); out[1] = f32(v.x + v.y);",
             "enable f16;", "Float16"),
        SNIP("f16_storage", "hbuf[0] = hbuf[1] + 1.0h;",
             "enable f16;\n@group(0) @binding(2) var<storage, read_write> hbuf: array<f16>;",
             "StorageBuffer16BitAccess"),
        SNIP(
            "subgroup_ops",
            "let x = out[gid.x]; let u = gid.x; outu[0] = u32(subgroupAdd(x) + subgroupExclusiveAdd(x) + "
            "subgroupInclusiveAdd(x) + subgroupMul(x) + subgroupMin(x) + subgroupMax(x) + "
            "subgroupBroadcast(x, 1u) + subgroupBroadcastFirst(x) + subgroupShuffle(x, u) + "
            "subgroupShuffleXor(x, 1u) + subgroupShuffleUp(x, 1u) + subgroupShuffleDown(x, 1u) + "
            "quadBroadcast(x, 0) + quadSwapX(x) + quadSwapY(x) + quadSwapDiagonal(x)) + subgroupAnd(u) + "
            "subgroupOr(u) + subgroupXor(u) + subgroupBallot(u > 3u).x + select(0u, 1u, subgroupAll(u > 1u) "
            "&& subgroupAny(u > 2u) && subgroupElect()) + subgroupExclusiveMul(u) + subgroupInclusiveMul(u);",
            "enable subgroups;", "OpGroupNonUniformShuffle")),
    [](const ::testing::TestParamInfo<Snippet>& p) { return std::string(p.param.name); });

TEST(Writer, SubgroupBuiltinValues) {
  std::string text = disasm_of(R"(
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(subgroup_size) sz: u32, @builtin(subgroup_invocation_id) id: u32,
        @builtin(num_workgroups) nwg: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
  out[id] = sz + nwg.x + wg.y + lid.z;
}
)");
  EXPECT_NE(text.find("BuiltIn SubgroupSize"), std::string::npos) << text;
  EXPECT_NE(text.find("BuiltIn SubgroupLocalInvocationId"), std::string::npos);
  EXPECT_NE(text.find("BuiltIn NumWorkgroups"), std::string::npos);
  EXPECT_NE(text.find("BuiltIn WorkgroupId"), std::string::npos);
  EXPECT_NE(text.find("OpCapability GroupNonUniform"), std::string::npos);
}

TEST(Writer, EntryPointInputStruct) {
  std::string text = disasm_of(R"(
struct In {
  @builtin(global_invocation_id) gid: vec3<u32>,
  @builtin(local_invocation_index) index: u32,
}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(input: In, @builtin(workgroup_id) wg: vec3<u32>) { out[input.gid.x] = input.index + wg.x; }
)");
  EXPECT_NE(text.find("BuiltIn GlobalInvocationId"), std::string::npos) << text;
  EXPECT_NE(text.find("BuiltIn LocalInvocationIndex"), std::string::npos);
  EXPECT_NE(text.find("OpCompositeConstruct %In"), std::string::npos);
  CompileResult bad = compile(R"(struct In { @builtin(global_invocation_id) gid: vec3<u32>, x: u32 }
@compute @workgroup_size(1) fn main(i: In) {})");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.formatted_diagnostics.find("must have a @builtin"), std::string::npos)
      << bad.formatted_diagnostics;
}

TEST(Writer, OverridesBecomeSpecConstantsAndWorkgroupSize) {
  CompileResult r = compile_ok(R"(
@id(3) override wg_x: u32 = 128;
override scale: f32 = 1.5;
override enabled: bool = true;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(wg_x, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (enabled) { out[gid.x] = scale * 2.0; }
}
)");
  ASSERT_TRUE(r.ok);
  std::string text = disassemble(r.spirv);
  EXPECT_NE(text.find("SpecId 3"), std::string::npos) << text;
  EXPECT_NE(text.find("OpSpecConstantComposite"), std::string::npos);
  EXPECT_NE(text.find("BuiltIn WorkgroupSize"), std::string::npos);
  EXPECT_NE(text.find("OpSpecConstantTrue"), std::string::npos);
  EXPECT_EQ(r.reflection.workgroup_size[0], 128u);
  EXPECT_EQ(r.reflection.workgroup_size_spec_id[0], 3);
  EXPECT_EQ(r.reflection.workgroup_size_spec_id[1], -1);
  ASSERT_EQ(r.reflection.overrides.size(), 3u);
  EXPECT_EQ(r.reflection.overrides[0].name, "scale");
  EXPECT_EQ(r.reflection.overrides[2].spec_id, 3u);
  // Vulkan 1.2 as well.
  CompileOptions o;
  o.target = TargetEnv::Vulkan1_2;
  EXPECT_TRUE(compile_ok(R"(override n: u32 = 4;
@compute @workgroup_size(n) fn main() {})",
                         o)
                  .ok);
}

TEST(Writer, OverrideExpressionsBecomeSpecConstantOps) {
  CompileResult r = compile_ok(R"(
override BLOCK: u32 = 16;
override TILE = BLOCK * 4u;
override ROWS: i32 = 2;
var<workgroup> tile: array<f32, TILE + 1u>;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(BLOCK, u32(ROWS) * 2u)
fn main(@builtin(local_invocation_index) i: u32) { tile[i] = 1.0; workgroupBarrier(); out[i] = tile[i % TILE]; }
)");
  ASSERT_TRUE(r.ok);
  std::string text = disassemble(r.spirv);
  EXPECT_NE(text.find("OpSpecConstantOp %uint IMul"), std::string::npos) << text;
  EXPECT_NE(text.find("BuiltIn WorkgroupSize"), std::string::npos);
  EXPECT_EQ(r.reflection.workgroup_size, (std::array<uint32_t, 3>{16, 4, 1}));
  EXPECT_EQ(r.reflection.workgroup_size_spec_id, (std::array<int32_t, 3>{0, -2, -1}));
  ASSERT_EQ(r.reflection.overrides.size(), 3u);
  EXPECT_EQ(r.reflection.overrides[2].name, "TILE");
  EXPECT_FALSE(r.reflection.overrides[2].overridable);
  EXPECT_EQ(r.reflection.overrides[2].default_value, 64.0);
  EXPECT_EQ(r.reflection.workgroup_memory_bytes, 272u);  // 65 floats rounded up to 16 bytes
}

TEST(Writer, WorkgroupMemoryIsZeroInitialized) {
  std::string text = disasm_of(R"(
var<workgroup> big: array<f32, 1000>;
var<workgroup> small: vec4<f32>;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) { out[i] = big[i] + small.x; }
)");
  EXPECT_NE(text.find("zero_init_index"), std::string::npos) << text;
  EXPECT_NE(text.find("OpConstantNull"), std::string::npos);
}

TEST(Writer, EntryPointSelectionAndReflection) {
  std::string src = R"(
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@group(1) @binding(0) var<uniform> u: vec4<u32>;
@compute @workgroup_size(8, 4) fn first() { b[0] = a[0]; }
@compute @workgroup_size(16) fn second() { b[1] = f32(u.x); }
)";
  CompileOptions o;
  o.entry_point = "second";
  CompileResult r = compile_ok(src, o);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.reflection.entry_point, "second");
  EXPECT_EQ(r.reflection.workgroup_size[0], 16u);
  ASSERT_EQ(r.reflection.bindings.size(), 2u);
  EXPECT_EQ(r.reflection.bindings[0].name, "b");
  EXPECT_EQ(r.reflection.bindings[0].kind, BindingKind::StorageBuffer);
  EXPECT_EQ(r.reflection.bindings[1].group, 1u);
  EXPECT_EQ(r.reflection.bindings[1].kind, BindingKind::UniformBuffer);
  EXPECT_EQ(r.reflection.bindings[1].size, 16u);
  std::string text = disassemble(r.spirv);
  EXPECT_EQ(text.find("\"first\""), std::string::npos);
  std::string json = reflection_to_json(r.reflection);
  EXPECT_NE(json.find("\"kind\": \"uniform\""), std::string::npos) << json;
  o.entry_point = "missing";
  EXPECT_FALSE(compile(src, o).ok);
}

TEST(Writer, RobustAccessClampsDynamicIndices) {
  std::string src = R"(
struct SB { n: u32, data: array<f32> }
@group(0) @binding(0) var<storage, read_write> sb: SB;
@group(0) @binding(1) var<storage, read_write> flat: array<vec4<f32>>;
var<workgroup> tile: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
  tile[i] = sb.data[i * 3u];
  workgroupBarrier();
  let v = flat[i];
  sb.data[i] = tile[63u - i] + v[i % 4u] + flat[7].x;
}
)";
  CompileOptions o;
  o.robust_access = true;
  std::string robust = disasm_of(src, o);
  std::string plain = disasm_of(src);
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t pos = 0; (pos = text.find(what, pos)) != std::string::npos; pos += what.size()) ++n;
    return n;
  };
  EXPECT_EQ(count(plain, "UMin"), 0u);
  // sb.data twice, flat twice (the constant index too: runtime-sized), tile twice, the vector once.
  EXPECT_EQ(count(robust, "UMin"), 7u) << robust;
  EXPECT_EQ(count(robust, "OpArrayLength"), 4u);
}

TEST(Writer, ValidatorCatchesBrokenModules) {
  // The check every compile relies on must be able to fail.
  std::vector<uint32_t> words = compile_ok(kernel("out[0] = 1.0;")).spirv;
  ASSERT_FALSE(words.empty());
  EXPECT_TRUE(validate_spirv(words, TargetEnv::Vulkan1_1).empty());
  words.resize(words.size() - 1);  // drop OpFunctionEnd
  EXPECT_FALSE(validate_spirv(words, TargetEnv::Vulkan1_1).empty());
}

}  // namespace
}  // namespace vkgemm::wgsl
