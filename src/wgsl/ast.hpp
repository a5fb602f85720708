// WGSL abstract syntax tree. Built by the parser, never modified afterwards; the resolver's results live in
// side tables indexed by Expr::id (see sem.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "wgsl/diagnostics.hpp"

namespace vkgemm::wgsl::ast {

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  And,
  Or,
  Xor,
  ShiftLeft,
  ShiftRight,
  LogicalAnd,
  LogicalOr,
  Equal,
  NotEqual,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
};
enum class UnaryOp { Negate, Not, Complement, AddressOf, Deref };

const char* to_string(BinaryOp op);
const char* to_string(UnaryOp op);

enum class ExprKind {
  IntLiteral,
  FloatLiteral,
  BoolLiteral,
  Identifier,  // possibly templated: `array<f32, 4>`, `vec4<f32>`, `x`
  Call,        // callee is an Identifier expression: function call, type constructor or conversion
  Index,       // base[index]
  Member,      // base.name (struct member or swizzle)
  Unary,
  Binary,
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind;
  SourceRange range;
  uint32_t id = 0;     // dense index into the resolver's side tables
  uint32_t depth = 1;  // height of the expression tree (bounded by the parser)

  // Literals.
  uint64_t int_value = 0;
  bool int_overflow = false;
  double float_value = 0.0;
  bool bool_value = false;
  char suffix = 0;

  // Identifier name / member name; for Identifier, optional template arguments.
  std::string name;
  SourceRange name_range;
  std::vector<ExprPtr> template_args;

  ExprPtr callee;             // Call
  std::vector<ExprPtr> args;  // Call
  ExprPtr lhs;                // Unary operand, Index/Member base, Binary left
  ExprPtr rhs;                // Index index, Binary right
  BinaryOp binary_op = BinaryOp::Add;
  UnaryOp unary_op = UnaryOp::Negate;
};

struct Attribute {
  std::string name;
  SourceRange range;
  std::vector<ExprPtr> args;
};

// var / let / const / override, at module or function scope.
enum class DeclKind { Var, Let, Const, Override };

struct VarDecl {
  DeclKind kind = DeclKind::Var;
  std::string name;
  SourceRange range;
  SourceRange name_range;
  ExprPtr address_space;  // var<address_space, access>: identifiers
  ExprPtr access;
  ExprPtr type;  // optional
  ExprPtr init;  // optional
  std::vector<Attribute> attributes;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

enum class StmtKind {
  Block,
  Decl,            // decl
  Assign,          // lhs = rhs; lhs null means phony `_ = rhs`
  CompoundAssign,  // lhs op= rhs
  Increment,       // lhs++
  Decrement,       // lhs--
  Call,            // expr (a Call expression)
  If,              // if cond body else_branch (Block or If)
  Switch,          // switch cond { cases }
  Loop,            // loop body continuing
  For,             // for (init; cond; update) body
  While,           // while cond body
  Break,
  BreakIf,  // break if cond (last statement of continuing)
  Continue,
  Return,  // optional value
  ConstAssert,
  Discard,
};

struct SwitchCase {
  std::vector<ExprPtr> selectors;  // a null entry means `default`
  SourceRange range;
  StmtPtr body;
};

struct Stmt {
  StmtKind kind;
  SourceRange range;
  std::vector<StmtPtr> statements;  // Block
  std::unique_ptr<VarDecl> decl;    // Decl
  ExprPtr lhs;                      // assignment target, increment target
  ExprPtr expr;                     // condition, value, rhs, call
  BinaryOp op = BinaryOp::Add;      // CompoundAssign
  StmtPtr body;                     // If/Loop/For/While body (a Block)
  StmtPtr else_branch;              // If
  StmtPtr continuing;               // Loop (a Block) or null
  StmtPtr init;                     // For
  StmtPtr update;                   // For
  std::vector<SwitchCase> cases;    // Switch
};

struct Param {
  std::string name;
  SourceRange range;
  ExprPtr type;
  std::vector<Attribute> attributes;
};

struct Function {
  std::string name;
  SourceRange range;
  SourceRange name_range;
  std::vector<Attribute> attributes;
  std::vector<Param> params;
  ExprPtr return_type;  // null for no return type
  std::vector<Attribute> return_attributes;
  StmtPtr body;
};

struct StructMember {
  std::string name;
  SourceRange range;
  ExprPtr type;
  std::vector<Attribute> attributes;
};

struct Struct {
  std::string name;
  SourceRange range;
  std::vector<StructMember> members;
};

struct Alias {
  std::string name;
  SourceRange range;
  ExprPtr type;
};

struct Enable {
  std::vector<std::string> extensions;
  SourceRange range;
};

// Module-scope declarations in source order.
struct Module {
  std::vector<Enable> enables;
  std::vector<Enable> requires_;                  // `requires` directives: language feature names
  std::vector<std::unique_ptr<VarDecl>> globals;  // var, const, override at module scope
  std::vector<std::unique_ptr<Function>> functions;
  std::vector<std::unique_ptr<Struct>> structs;
  std::vector<std::unique_ptr<Alias>> aliases;
  std::vector<ExprPtr> const_asserts;
  uint32_t expr_count = 0;  // Expr::id values are in [0, expr_count)
};

}  // namespace vkgemm::wgsl::ast
