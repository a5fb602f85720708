// Resolver: typing, const-eval results, layout, and rejections (checked through the stage API).
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>

#include <chrono>
#include <cmath>

#include "wgsl/parser.hpp"
#include "wgsl/resolver.hpp"

namespace vkgemm::wgsl {
namespace {

struct Resolved {
  std::unique_ptr<SourceFile> file;
  std::unique_ptr<ast::Module> ast;
  std::unique_ptr<sem::Module> sem;
  Diagnostics diags;
  std::string text() const { return diags.format(*file); }
  const ast::VarDecl* global(const std::string& name) const {
    for (const auto& g : ast->globals) {
      if (g->name == name) return g.get();
    }
    return nullptr;
  }
  const sem::Value& const_value(const std::string& name) const { return sem->global_consts.at(global(name)); }
};

std::unique_ptr<Resolved> resolve_src(const std::string& src) {
  auto r = std::make_unique<Resolved>();
  r->file = std::make_unique<SourceFile>("r.wgsl", src);
  r->ast = parse(*r->file, r->diags);
  if (!r->diags.has_errors()) r->sem = resolve(*r->ast, r->diags);
  return r;
}

TEST(Resolver, AbstractConstantsStayAbstractAndEvaluate) {
  auto r = resolve_src(R"(
const a = 3;
const b = a * 2 + 1;
const c = 1.5 * 2;
const d = b / 2;
const e = -7 % 3;
const f = 1 << 40;
const g = vec3(1, 2, 3).zy;
const h = array(1.0, 2.0, 4.0)[2];
const i = max(3, 8) + abs(-2);
const j = sqrt(16.0) + floor(2.7);
const k = select(1, 2, 3 > 2);
const l: u32 = 0xffffffffu;
const m = i32(-3.9) + i32(2.9f);
const n = u32(-1i);
const o = bitcast<u32>(1.0f);
const p = 5 / 2.0;
)");
  ASSERT_FALSE(r->diags.has_errors()) << r->text();
  EXPECT_EQ(r->const_value("a").type->kind, TypeKind::AbstractInt);
  EXPECT_EQ(r->const_value("b").i, 7);
  EXPECT_EQ(r->const_value("c").type->kind, TypeKind::AbstractFloat);
  EXPECT_DOUBLE_EQ(r->const_value("c").f, 3.0);
  EXPECT_EQ(r->const_value("d").i, 3);
  EXPECT_EQ(r->const_value("e").i, -1);  // truncated remainder
  EXPECT_EQ(r->const_value("f").i, int64_t{1} << 40);
  ASSERT_EQ(r->const_value("g").elements.size(), 2u);
  EXPECT_EQ(r->const_value("g").elements[0].i, 3);
  EXPECT_EQ(r->const_value("g").elements[1].i, 2);
  EXPECT_DOUBLE_EQ(r->const_value("h").f, 4.0);
  EXPECT_EQ(r->const_value("i").i, 10);
  EXPECT_DOUBLE_EQ(r->const_value("j").f, 6.0);
  EXPECT_EQ(r->const_value("k").i, 2);
  EXPECT_EQ(r->const_value("l").i, 0xffffffffll);
  EXPECT_EQ(r->const_value("m").i, -1);  // f32->i32 truncates toward zero: -3 + 2
  EXPECT_EQ(r->const_value("n").i, 0xffffffffll);
  EXPECT_EQ(r->const_value("o").i, 0x3f800000ll);
  EXPECT_EQ(r->const_value("p").type->kind, TypeKind::AbstractFloat);
  EXPECT_DOUBLE_EQ(r->const_value("p").f, 2.5);
}

TEST(Resolver, ConcreteIntegerArithmeticWrapsAtConstTime) {
  auto r = resolve_src("const a = 2147483647i + 1i;\nconst b = 0u - 1u;\nconst c = 65536u * 65536u;");
  ASSERT_FALSE(r->diags.has_errors()) << r->text();
  EXPECT_EQ(r->const_value("a").i, INT32_MIN);
  EXPECT_EQ(r->const_value("b").i, 0xffffffffll);
  EXPECT_EQ(r->const_value("c").i, 0);
}

TEST(Resolver, F32AndF16Rounding) {
  auto r = resolve_src("enable f16;\nconst a = 0.1f;\nconst b = 0.1h;\nconst c: f16 = 1.0 / 3.0;");
  ASSERT_FALSE(r->diags.has_errors()) << r->text();
  EXPECT_DOUBLE_EQ(r->const_value("a").f, static_cast<double>(0.1f));
  EXPECT_NEAR(r->const_value("b").f, 0.0999755859375, 1e-12);  // nearest f16 to 0.1
  EXPECT_NEAR(r->const_value("c").f, 0.333251953125, 1e-12);
}

TEST(Resolver, MaterializationAtUseSites) {
  auto r = resolve_src(R"(
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1) fn main() {
  let x = 1;        // i32
  var y = 2.0;      // f32
  let z: u32 = 3;   // u32
  out[0] = 4;       // f32
  let w = x + 5;    // i32
}
)");
  ASSERT_FALSE(r->diags.has_errors()) << r->text();
  const auto& body = r->ast->functions[0]->body->statements;
  EXPECT_EQ(r->sem->local_types.at(body[0]->decl.get())->kind, TypeKind::I32);
  EXPECT_EQ(r->sem->local_types.at(body[1]->decl.get())->kind, TypeKind::F32);
  EXPECT_EQ(r->sem->local_types.at(body[2]->decl.get())->kind, TypeKind::U32);
  EXPECT_EQ(r->sem->info(*body[3]->expr).type->kind, TypeKind::F32);
  EXPECT_DOUBLE_EQ(r->sem->info(*body[3]->expr).value->f, 4.0);
  EXPECT_EQ(r->sem->local_types.at(body[4]->decl.get())->kind, TypeKind::I32);
}

TEST(Resolver, HostShareableLayout) {
  auto r = resolve_src(R"(
struct Inner { v: vec3<f32>, s: f32 }
struct S {
  a: f32,
  b: vec3<f32>,
  c: vec2<f32>,
  @align(32) d: f32,
  @size(12) e: u32,
  m: mat3x3<f32>,
  inner: Inner,
  arr: array<vec3<f32>, 2>,
  rt: array<f32>,
}
@group(0) @binding(0) var<storage, read_write> buf: S;
)");
  ASSERT_FALSE(r->diags.has_errors()) << r->text();
  const Type* s = r->sem->globals.at(r->global("buf")).store_type;
  std::vector<uint32_t> offsets;
  for (const auto& m : s->members) offsets.push_back(m.offset);
  EXPECT_EQ(offsets, (std::vector<uint32_t>{0, 16, 32, 64, 68, 80, 128, 144, 176}));
  EXPECT_EQ(s->members[5].type->stride, 16u);  // mat3x3 column stride
  EXPECT_EQ(s->members[5].type->size, 48u);
  EXPECT_EQ(s->members[7].type->stride, 16u);  // array<vec3<f32>> stride
  EXPECT_EQ(s->members[8].type->stride, 4u);
  EXPECT_EQ(s->align, 32u);
}

TEST(Resolver, OverridesGetSpecIds) {
  auto r = resolve_src(R"(
@id(7) override a: u32 = 4;
override b = 2.5;
override c: i32;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(a, 2) fn main() { out[0] = b + f32(c); }
)");
  ASSERT_FALSE(r->diags.has_errors()) << r->text();
  EXPECT_EQ(r->sem->overrides.at(r->global("a")).spec_id, 7u);
  EXPECT_EQ(r->sem->overrides.at(r->global("b")).spec_id, 0u);
  EXPECT_EQ(r->sem->overrides.at(r->global("c")).spec_id, 1u);
  EXPECT_EQ(r->sem->overrides.at(r->global("b")).type->kind, TypeKind::F32);
  const sem::Function& f = r->sem->functions.back();
  EXPECT_EQ(f.workgroup_size[0].override_decl, r->global("a"));
  EXPECT_EQ(f.workgroup_size[0].value, 4u);
  EXPECT_EQ(f.workgroup_size[1].value, 2u);
}

TEST(Resolver, UserFunctionShadowsBuiltin) {
  auto r = resolve_src(R"(
fn max(a: u32, b: u32) -> u32 { return a + b; }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[0] = max(1u, 2u); }
)");
  ASSERT_FALSE(r->diags.has_errors()) << r->text();
  const auto& assign = *r->ast->functions[1]->body->statements[0];
  EXPECT_EQ(r->sem->info(*assign.expr).call, sem::CallKind::UserFunction);
}

struct Rejection {
  const char* source;
  uint32_t line;
  uint32_t column;
  const char* message_part;
};

// Printed into ctest names: letters, digits and underscores only.
void PrintTo(const Rejection& r, std::ostream* os) {
  std::string text = "L" + std::to_string(r.line) + "C" + std::to_string(r.column) + "_" + r.message_part;
  for (char& ch : text) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  *os << text;
}

class ResolverRejects : public ::testing::TestWithParam<Rejection> {};

TEST_P(ResolverRejects, WithLocatedMessage) {
  const Rejection& c = GetParam();
  auto r = resolve_src(c.source);
  ASSERT_TRUE(r->diags.has_errors()) << c.source;
  const Diagnostic& d = r->diags.list()[0];
  EXPECT_NE(d.message.find(c.message_part), std::string::npos) << r->text();
  EXPECT_EQ(d.range.begin.line, c.line) << r->text();
  EXPECT_EQ(d.range.begin.column, c.column) << r->text();
}

INSTANTIATE_TEST_SUITE_P(
    Resolver, ResolverRejects,
    ::testing::Values(
        Rejection{"const a = 9223372036854775807 + 1;", 1, 11, "cannot be represented as 'abstract-int'"},
        Rejection{"const a: i32 = 3000000000;", 1, 16, "cannot be represented as 'i32'"},
        Rejection{"const a: u32 = -1;", 1, 16, "cannot be represented as 'u32'"},
        Rejection{"const a = 1 / 0;", 1, 11, "integer division by zero"},
        Rejection{"const a = 1.0 / 0.0;", 1, 11, "division by zero in a constant expression"},
        Rejection{"const a = 1e38f * 10.0f;", 1, 11, "cannot be represented as 'f32'"},
        Rejection{"const a = 1u << 32u;", 1, 11, "shift amount"},
        Rejection{"const a = sqrt(-1.0);", 1, 11, "out of domain"},
        Rejection{"const a = 3i + 1u;", 1, 11, "mismatched types"},
        Rejection{"const a = x;", 1, 11, "unresolved identifier 'x'"},
        Rejection{"const a = array(1, 2, 3)[3];", 1, 26, "out of bounds"},
        Rejection{"var<private> h: f16;", 1, 17, "enable f16"},
        Rejection{"@group(0) @binding(0) var<storage> a: array<f32>;\nfn f() { a[0] = 1.0; }", 2, 10,
                  "read-only"},
        Rejection{"var<storage, read_write> a: array<f32>;", 1, 26, "requires @group and @binding"},
        Rejection{"@group(0) @binding(0) var<uniform> u: array<f32, 4>;", 1, 23, "multiple of 16"},
        Rejection{"var<workgroup> w: array<f32>;", 1, 1, "fixed size"},
        Rejection{"struct S { a: array<f32>, b: f32 }", 1, 12, "last member"},
        Rejection{"struct S { @align(3) a: f32 }", 1, 12, "power of two"},
        Rejection{"struct S { @size(2) a: f32 }", 1, 12, "smaller than the size"},
        Rejection{"fn f() -> i32 { let x = 1; }", 1, 28, "missing return"},
        Rejection{"fn f() { let x = 1; x = 2; }", 1, 21, "cannot assign to a value"},
        Rejection{"fn f() { var x = 1; x = 2.5; }", 1, 25,
                  "cannot use a value of type 'abstract-float' as 'i32'"},
        Rejection{"fn f() { break; }", 1, 10, "inside a loop"},
        Rejection{"fn f() { loop { continuing { continue; } } }", 1, 30, "continuing"},
        Rejection{"fn f() { f(); }", 1, 10, "recursion"},
        Rejection{"@compute fn main() {}", 1, 13, "requires @workgroup_size"},
        Rejection{"@compute @workgroup_size(2048) fn main() {}", 1, 26, "exceeds"},
        Rejection{"@compute @workgroup_size(1) fn main(x: u32) {}", 1, 37, "@builtin"},
        Rejection{"@compute @workgroup_size(1) fn main(@builtin(local_invocation_id) x: u32) {}", 1, 46,
                  "must have type 'vec3<u32>'"},
        Rejection{"@compute @workgroup_size(1) fn main(@builtin(subgroup_size) x: u32) {}", 1, 46,
                  "enable subgroups"},
        Rejection{"fn f() -> u32 { return subgroupAdd(1u); }", 1, 24, "enable subgroups"},
        Rejection{"fn f() { var a: atomic<u32>; }", 1, 10, "not constructible"},
        Rejection{"var<workgroup> a: atomic<u32>;\nfn f() { let x = a; }", 2, 18, "atomicLoad"},
        Rejection{"fn f() { let x = max(1, true); }", 1, 18, "no matching overload"},
        Rejection{"fn f() { let x = dot(1.0, 2.0); }", 1, 18, "no matching overload for 'dot"},
        Rejection{"fn f(p: ptr<storage, f32>) {}", 1, 6, "unrestricted_pointer_parameters"},
        Rejection{"fn g(p: ptr<function, f32>) {}\nfn f() { var a = array<f32, 2>(); g(&a[1]); }", 2, 37,
                  "whole variable"},
        Rejection{"fn f() { switch 1 { case 1: {} } }", 1, 10, "default"},
        Rejection{"fn f() { switch 1 { case 1, 1: {} default: {} } }", 1, 29, "duplicate case"},
        Rejection{"fn f() { if 1 { } }", 1, 13, "must be bool"},
        Rejection{"fn f() { let v = vec3<f32>(1.0, 2.0); }", 1, 18, "needs 3 components"},
        Rejection{"fn f() { let v = vec2(1.0, 2.0).xq; }", 1, 33, "invalid vector swizzle"},
        Rejection{"fn f() { let v = vec2(1.0, 2.0).z; }", 1, 33, "out of range"},
        Rejection{"struct S { a: f32 }\nfn f(s: S) -> f32 { return s.b; }", 2, 30, "no member 'b'"},
        Rejection{"const_assert 1 > 2;", 1, 14, "const_assert failed"},
        Rejection{"override o: vec2<f32>;", 1, 1, "concrete scalar"},
        Rejection{"override n: u32 = 4;\nvar<private> a: array<f32, n>;", 2, 17,
                  "only allowed as the type of workgroup"},
        Rejection{"override f = 1.5;\noverride g = f * 2.0;", 2, 14, "must be integer or bool"},
        Rejection{"override n: u32 = 4;\n@id(3) override m = n + 1u;", 2, 1, "cannot have an @id"},
        Rejection{"override n: u32 = 4;\nfn f() { var a: array<f32, n>; }", 2, 10, "not constructible"},
        Rejection{"@id(1) override a: u32;\n@id(1) override b: u32;", 2, 1, "already used"},
        Rejection{"var<private> x: i32;\nvar<private> x: i32;", 2, 14, "redeclaration"},
        Rejection{"fn f() { let x = vec4<bool>(true); let y = x + x; }", 1, 44, "no operator"}));

TEST(Resolver, BarrierInNonUniformControlFlowIsRejected) {
  auto r = resolve_src(R"(
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lidx: u32) {
  if (lidx < 32u) {
    workgroupBarrier();
  }
}
)");
  ASSERT_TRUE(r->diags.has_errors());
  EXPECT_NE(r->diags.list()[0].message.find("uniform control flow"), std::string::npos);
  EXPECT_EQ(r->diags.list()[0].range.begin.line, 5u);
  ASSERT_GE(r->diags.list().size(), 2u);
  EXPECT_EQ(r->diags.list()[1].severity, Severity::Note);
  EXPECT_EQ(r->diags.list()[1].range.begin.line, 4u);
}

TEST(Resolver, BarrierAfterNonUniformReturnOrInNonUniformLoopIsRejected) {
  auto r1 = resolve_src(R"(
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
  if (lid.x == 0u) { return; }
  workgroupBarrier();
}
)");
  EXPECT_TRUE(r1->diags.has_errors());
  auto r2 = resolve_src(R"(
fn sync() { workgroupBarrier(); }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  var i = gid.x;
  loop {
    if (i > 10u) { break; }
    sync();
    i = i + 1u;
  }
}
)");
  EXPECT_TRUE(r2->diags.has_errors()) << "a loop whose exit depends on gid makes the barrier non-uniform";
}

TEST(Resolver, BarrierInUniformControlFlowIsAccepted) {
  auto r = resolve_src(R"(
struct D { n: u32 }
@group(0) @binding(0) var<uniform> d: D;
var<workgroup> tile: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lidx: u32, @builtin(workgroup_id) wg: vec3<u32>) {
  for (var t = 0u; t < d.n; t++) {
    tile[lidx] = f32(t);
    workgroupBarrier();
    if (wg.x > 3u) { storageBarrier(); }
  }
}
)");
  EXPECT_FALSE(r->diags.has_errors()) << r->text();
}

TEST(Resolver, RedeclarationNotesThePreviousDeclaration) {
  auto r = resolve_src("fn f() {\n  let a = 1;\n  var a = 2;\n}\n");
  ASSERT_EQ(r->diags.list().size(), 2u) << r->text();
  EXPECT_EQ(r->diags.list()[0].range.begin.line, 3u);
  EXPECT_EQ(r->diags.list()[1].severity, Severity::Note);
  EXPECT_EQ(r->diags.list()[1].range.begin.line, 2u);
  EXPECT_NE(r->text().find("r.wgsl:2:7: note: previous declaration of 'a'"), std::string::npos) << r->text();
}

TEST(Resolver, ErrorsInsideAFunctionDoNotBreakTheUniformityAnalysis) {
  // Found by the fuzzer: a call with too many arguments to a function with a pointer parameter crashed the
  // uniformity analysis, which now only runs on functions that resolved cleanly.
  auto r = resolve_src(R"(
fn store(p: ptr<function, f32>, v: f32) { *p = v; }
@compute @workgroup_size(1) fn main() { var x = 1.0; store(&x, 2.0, 3.0); workgroupBarrier(); }
)");
  ASSERT_EQ(r->diags.error_count(), 1u) << r->text();
  EXPECT_NE(r->diags.list()[0].message.find("expects 2 arguments, got 3"), std::string::npos) << r->text();
}

// Found by the fuzzer: deeply nested loops made the uniformity analysis exponential; derived overrides that
// reuse each other twice made collecting them exponential. Both must stay fast.
TEST(Resolver, DeepLoopsAndOverrideChainsStayLinear) {
  std::string loops =
      "@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i: u32) {\n var x = i;\n";
  for (int k = 0; k < 60; ++k) loops += "loop { if (x > 3u) { break; } x = x + 1u;\n";
  loops += "workgroupBarrier();\n";
  for (int k = 0; k < 60; ++k) loops += "}\n";
  loops += "}\n";
  auto start = std::chrono::steady_clock::now();
  auto r1 = resolve_src(loops);
  EXPECT_TRUE(r1->diags.has_errors());  // the barrier is in non-uniform control flow
  std::string chain = "override o0: u32 = 1;\n";
  for (int k = 1; k < 60; ++k) {
    chain += "override o" + std::to_string(k) + " = o" + std::to_string(k - 1) + " + o" +
             std::to_string(k - 1) + " % 7u;\n";
  }
  chain +=
      "var<workgroup> w: array<u32, o59 % 16u + 1u>;\n@compute @workgroup_size(1) fn main() { w[0] = o59; "
      "}\n";
  auto r2 = resolve_src(chain);
  EXPECT_FALSE(r2->diags.has_errors()) << r2->text();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(ms, 2000.0);
}

TEST(Resolver, MisspelledNamesGetSuggestions) {
  auto r = resolve_src(R"(
struct Dimensions { M: u32 }
@group(0) @binding(0) var<uniform> dimensions: Dimensions;
fn f() -> f32 {
  let total = dimension.M;
  var s: Dimension;
  return sqrtt(2.0);
}
fn g() -> u32 { let total = 1u; return totl; }
)");
  std::string text = r->text();
  EXPECT_NE(text.find("unresolved identifier 'dimension'; did you mean 'dimensions'?"), std::string::npos)
      << text;
  EXPECT_NE(text.find("unresolved type 'Dimension'; did you mean 'Dimensions'?"), std::string::npos) << text;
  EXPECT_NE(text.find("unresolved function 'sqrtt'; did you mean 'sqrt'?"), std::string::npos) << text;
  EXPECT_NE(text.find("unresolved identifier 'totl'; did you mean 'total'?"), std::string::npos) << text;
  auto far = resolve_src("fn f() { let a = zzzzzz; }");
  EXPECT_EQ(far->text().find("did you mean"), std::string::npos) << far->text();
}

TEST(Resolver, SeveralErrorsInOneFile) {
  auto r = resolve_src(R"(
fn a() { let x: i32 = 1.5; }
fn b() { let y = undefined_thing; }
fn c() -> f32 { return true; }
)");
  EXPECT_EQ(r->diags.error_count(), 3u) << r->text();
}

}  // namespace
}  // namespace vkgemm::wgsl
