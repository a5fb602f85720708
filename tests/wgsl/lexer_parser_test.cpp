// Lexer and parser: tokens, AST shape, and syntax errors with file:line:col.
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>

#include "wgsl/lexer.hpp"
#include "wgsl/parser.hpp"

namespace vkgemm::wgsl {
namespace {

std::vector<Token> lex(const std::string& src, Diagnostics& d) {
  static std::vector<std::unique_ptr<SourceFile>> keep;  // tokens view into the file
  keep.push_back(std::make_unique<SourceFile>("t.wgsl", src));
  return tokenize(*keep.back(), d);
}

TEST(Lexer, NumbersAndSuffixes) {
  Diagnostics d;
  auto t = lex("12 0x1F 3u 4i 1.5 2e3 1.5f 0.5h 0x1p4 .25", d);
  ASSERT_FALSE(d.has_errors()) << d.format(SourceFile("t", ""));
  ASSERT_EQ(t.size(), 11u);
  EXPECT_EQ(t[0].kind, TokenKind::IntLiteral);
  EXPECT_EQ(t[0].int_value, 12u);
  EXPECT_EQ(t[1].int_value, 31u);
  EXPECT_EQ(t[2].suffix, 'u');
  EXPECT_EQ(t[3].suffix, 'i');
  EXPECT_EQ(t[4].kind, TokenKind::FloatLiteral);
  EXPECT_DOUBLE_EQ(t[4].float_value, 1.5);
  EXPECT_DOUBLE_EQ(t[5].float_value, 2000.0);
  EXPECT_EQ(t[6].suffix, 'f');
  EXPECT_EQ(t[7].suffix, 'h');
  EXPECT_DOUBLE_EQ(t[8].float_value, 16.0);
  EXPECT_DOUBLE_EQ(t[9].float_value, 0.25);
  EXPECT_EQ(t[10].kind, TokenKind::EndOfFile);
}

TEST(Lexer, OperatorsLongestMatchAndComments) {
  Diagnostics d;
  auto t = lex("a >>= b // line\n /* block /* nested */ still */ c->d", d);
  ASSERT_FALSE(d.has_errors());
  ASSERT_EQ(t.size(), 7u);
  EXPECT_TRUE(t[1].is(">>="));
  EXPECT_TRUE(t[3].is_ident("c"));
  EXPECT_TRUE(t[4].is("->"));
  EXPECT_EQ(t[3].range.begin.line, 2u);
}

TEST(Lexer, SourceRanges) {
  Diagnostics d;
  auto t = lex("fn\n  foo", d);
  EXPECT_EQ(t[1].range.begin.line, 2u);
  EXPECT_EQ(t[1].range.begin.column, 3u);
  EXPECT_EQ(t[1].range.end.column, 6u);
}

TEST(Lexer, Errors) {
  Diagnostics d;
  lex("let x = 3 $ 4;\nlet y = 012;\n/* open", d);
  ASSERT_EQ(d.error_count(), 3u);
  EXPECT_EQ(d.list()[0].message, "invalid character '$'");
  EXPECT_EQ(d.list()[0].range.begin.column, 11u);
  EXPECT_EQ(d.list()[1].range.begin.line, 2u);
  EXPECT_EQ(d.list()[2].message, "unterminated block comment");
}

std::unique_ptr<ast::Module> parse_src(const std::string& src, Diagnostics& d, SourceFile** file = nullptr) {
  static std::vector<std::unique_ptr<SourceFile>> keep;
  keep.push_back(std::make_unique<SourceFile>("p.wgsl", src));
  if (file) *file = keep.back().get();
  return parse(*keep.back(), d);
}

TEST(Parser, Declarations) {
  Diagnostics d;
  auto m = parse_src(R"(
enable f16;
struct S { a: f32, @align(16) b: vec3<f32>, }
alias V = vec4<f32>;
const C = 4;
override O: u32 = 8;
@group(0) @binding(1) var<storage, read_write> buf: array<vec4<f32>>;
var<workgroup> tile: array<array<f32, 4>, 4>;
fn f(p: ptr<function, f32>, x: i32) -> f32 { return *p; }
@compute @workgroup_size(8, 8) fn main() {}
)",
                     d);
  ASSERT_FALSE(d.has_errors());
  EXPECT_EQ(m->enables.size(), 1u);
  EXPECT_EQ(m->structs.size(), 1u);
  EXPECT_EQ(m->structs[0]->members.size(), 2u);
  EXPECT_EQ(m->structs[0]->members[1].attributes[0].name, "align");
  EXPECT_EQ(m->aliases.size(), 1u);
  EXPECT_EQ(m->globals.size(), 4u);
  EXPECT_EQ(m->globals[2]->access->name, "read_write");
  ASSERT_EQ(m->functions.size(), 2u);
  EXPECT_EQ(m->functions[0]->params.size(), 2u);
  EXPECT_EQ(m->functions[0]->params[0].type->name, "ptr");
  EXPECT_EQ(m->functions[0]->params[0].type->template_args.size(), 2u);
  // Nested template list closed by '>>'.
  EXPECT_EQ(m->globals[3]->type->template_args[0]->name, "array");
}

TEST(Parser, ExpressionPrecedence) {
  Diagnostics d;
  auto m = parse_src("fn f() { let x = 1 + 2 * 3 < 4 && !b || false; }", d);
  // `&&` then `||` without parentheses is a syntax error in WGSL.
  ASSERT_TRUE(d.has_errors());
  Diagnostics d2;
  m = parse_src("fn f() { let x = (1 + 2 * 3 < 4) && !b; let y = a[i].m.xy; }", d2);
  ASSERT_FALSE(d2.has_errors());
  const ast::Expr& e = *m->functions[0]->body->statements[0]->decl->init;
  ASSERT_EQ(e.kind, ast::ExprKind::Binary);
  EXPECT_EQ(e.binary_op, ast::BinaryOp::LogicalAnd);
  const ast::Expr& lt = *e.lhs;
  EXPECT_EQ(lt.binary_op, ast::BinaryOp::Less);
  EXPECT_EQ(lt.lhs->binary_op, ast::BinaryOp::Add);
  EXPECT_EQ(lt.lhs->rhs->binary_op, ast::BinaryOp::Mul);
  const ast::Expr& y = *m->functions[0]->body->statements[1]->decl->init;
  EXPECT_EQ(y.kind, ast::ExprKind::Member);
  EXPECT_EQ(y.name, "xy");
  EXPECT_EQ(y.lhs->lhs->kind, ast::ExprKind::Index);
}

TEST(Parser, Statements) {
  Diagnostics d;
  auto m = parse_src(R"(
fn f() {
  var i = 0;
  loop { i++; if (i > 3) { break; } continuing { i += 1; break if i > 10; } }
  for (var j = 0; j < 4; j++) { continue; }
  while i < 3 { i = i + 1; }
  switch i { case 1, 2: { } case 3 { } default: { } }
  _ = i;
  i <<= 1u;
  {
    let z = i;
  }
  return;
}
)",
                     d);
  ASSERT_FALSE(d.has_errors());
  const auto& s = m->functions[0]->body->statements;
  ASSERT_EQ(s.size(), 9u);
  EXPECT_EQ(s[1]->kind, ast::StmtKind::Loop);
  ASSERT_TRUE(s[1]->continuing);
  EXPECT_EQ(s[1]->continuing->statements.back()->kind, ast::StmtKind::BreakIf);
  EXPECT_EQ(s[2]->kind, ast::StmtKind::For);
  EXPECT_EQ(s[3]->kind, ast::StmtKind::While);
  EXPECT_EQ(s[4]->kind, ast::StmtKind::Switch);
  EXPECT_EQ(s[4]->cases[0].selectors.size(), 2u);
  EXPECT_EQ(s[5]->kind, ast::StmtKind::Assign);
  EXPECT_EQ(s[5]->lhs, nullptr);
  EXPECT_EQ(s[6]->kind, ast::StmtKind::CompoundAssign);
  EXPECT_EQ(s[6]->op, ast::BinaryOp::ShiftLeft);
}

struct SyntaxCase {
  const char* source;
  uint32_t line;
  uint32_t column;
  const char* message_part;
};

// Printed into ctest names: letters, digits and underscores only.
void PrintTo(const SyntaxCase& c, std::ostream* os) {
  std::string text = "L" + std::to_string(c.line) + "C" + std::to_string(c.column) + "_" + c.message_part;
  for (char& ch : text) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  *os << text;
}

class SyntaxErrors : public ::testing::TestWithParam<SyntaxCase> {};

TEST_P(SyntaxErrors, ReportsLineAndColumn) {
  const SyntaxCase& c = GetParam();
  Diagnostics d;
  parse_src(c.source, d);
  ASSERT_TRUE(d.has_errors()) << c.source;
  const Diagnostic& first = d.list()[0];
  EXPECT_EQ(first.range.begin.line, c.line) << first.message;
  EXPECT_EQ(first.range.begin.column, c.column) << first.message;
  EXPECT_NE(first.message.find(c.message_part), std::string::npos) << first.message;
}

INSTANTIATE_TEST_SUITE_P(
    Parser, SyntaxErrors,
    ::testing::Values(SyntaxCase{"fn f() {\n  let x = 1\n}", 3, 1, "expected ';'"},
                      SyntaxCase{"fn f() { let = 3; }", 1, 14, "expected a variable name"},
                      SyntaxCase{"fn f( { }", 1, 7, "expected a parameter name"},
                      SyntaxCase{"fn f() { x = ; }", 1, 14, "expected an expression"},
                      SyntaxCase{"fn f() { let loop = 1; }", 1, 14, "keyword"},
                      SyntaxCase{"var<private> a: array<f32, 4;", 1, 29, "expected '>'"},
                      SyntaxCase{"fn f() { if a < b < c {} }", 1, 19, "chained comparisons"},
                      SyntaxCase{"fn f() { let a = x & y | z; }", 1, 24, "requires parentheses"},
                      SyntaxCase{"let x = 1;", 1, 1, "only allowed in functions"},
                      SyntaxCase{"fn f() { loop { continuing { } let x = 1; } }", 1, 32, "last statement"},
                      SyntaxCase{"fn f() { x + 1; }", 1, 12, "expected assignment"},
                      SyntaxCase{"struct S { a: f32 b: f32 }", 1, 19, "expected '}'"},
                      SyntaxCase{"fn f() { break if x; }", 1, 16, "continuing"},
                      SyntaxCase{"fn f() -> { }", 1, 11, "expected a type"}));

TEST(Parser, RecoversAndReportsSeveralErrors) {
  Diagnostics d;
  SourceFile* file = nullptr;
  parse_src(R"(fn a() {
  let x = ;
  let y = 2
  var z = 3;
}
fn b( {
}
struct S { x: f32 }
fn c() { return 1 +; }
)",
            d, &file);
  ASSERT_GE(d.error_count(), 4u) << d.format(*file);
  EXPECT_EQ(d.list()[0].range.begin.line, 2u);
  EXPECT_EQ(d.list()[1].range.begin.line, 4u);  // missing ';' after `let y = 2` is found at `var`
  EXPECT_EQ(d.list()[2].range.begin.line, 6u);
  EXPECT_EQ(d.list()[3].range.begin.line, 9u);
}

TEST(Diagnostics, FormatHasFileLineColumnSourceAndCaret) {
  Diagnostics d;
  SourceFile* file = nullptr;
  parse_src("fn f() {\n  let x = 3 +;\n}\n", d, &file);
  ASSERT_TRUE(d.has_errors());
  std::string text = d.format(*file);
  EXPECT_EQ(text.rfind("p.wgsl:2:14: error: expected an expression, found ';'\n", 0), 0u) << text;
  EXPECT_NE(text.find("  let x = 3 +;\n             ^\n"), std::string::npos) << text;
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string src = "fn f() { let x = ";
  for (int i = 0; i < 5000; ++i) src += "(";
  src += "1";
  for (int i = 0; i < 5000; ++i) src += ")";
  src += "; }";
  Diagnostics d;
  parse_src(src, d);
  ASSERT_TRUE(d.has_errors());
  EXPECT_NE(d.list()[0].message.find("nesting is too deep"), std::string::npos);
}

}  // namespace
}  // namespace vkgemm::wgsl
