#include "wgsl/parser.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

namespace vkgemm::wgsl {
namespace {

using namespace ast;

// Thrown to unwind to the nearest recovery point after a diagnostic has been reported.
struct ParseError {};

constexpr int kMaxNesting = 128;
// Left-associative chains (a + b + c ...) are parsed iteratively but resolved recursively: bound their
// height.
constexpr uint32_t kMaxExprDepth = 512;

// Identifiers after which '<' opens a template list. WGSL's template-list discovery is purely syntactic; for
// the type generators and bitcast this heuristic gives the same answer.
bool is_template_generator(std::string_view name) {
  static const std::set<std::string_view> names = {
      "array",   "vec2",       "vec3",       "vec4",       "mat2x2",
      "mat2x3",  "mat2x4",     "mat3x2",     "mat3x3",     "mat3x4",
      "mat4x2",  "mat4x3",     "mat4x4",     "ptr",        "atomic",
      "bitcast", "texture_1d", "texture_2d", "texture_3d", "texture_storage_2d"};
  return names.count(name) != 0;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, Diagnostics& diags) : toks_(std::move(tokens)), diags_(diags) {}

  std::unique_ptr<Module> run() {
    module_ = std::make_unique<Module>();
    // Directives come first.
    while (peek().is_ident("enable") || peek().is_ident("requires") || peek().is_ident("diagnostic")) {
      try {
        parse_directive();
      } catch (ParseError&) {
        sync_global();
      }
    }
    while (peek().kind != TokenKind::EndOfFile) {
      try {
        parse_global_decl();
      } catch (ParseError&) {
        sync_global();
      }
    }
    module_->expr_count = next_expr_id_;
    return std::move(module_);
  }

 private:
  // ---- token helpers ----
  const Token& peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(std::string_view sym) {
    if (peek().is(sym)) {
      next();
      return true;
    }
    return false;
  }
  bool accept_keyword(std::string_view kw) {
    if (peek().is_ident(kw)) {
      next();
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(SourceRange range, const std::string& message) {
    diags_.error(range, message);
    throw ParseError{};
  }
  std::string describe(const Token& t) const {
    if (t.kind == TokenKind::EndOfFile) return "end of file";
    return "'" + std::string(t.text) + "'";
  }
  const Token& expect(std::string_view sym, std::string_view what) {
    // A '>' may be glued to a following '>' or '=' ("array<vec4<f32>>"): split the token.
    if (sym == ">" && peek().kind == TokenKind::Symbol && peek().text.size() > 1 && peek().text[0] == '>') {
      Token& t = toks_[pos_];
      split_token_ = t;
      split_token_.text = t.text.substr(0, 1);
      split_token_.range.end = t.range.begin;
      split_token_.range.end.column += 1;
      t.text = t.text.substr(1);
      t.range.begin.column += 1;
      t.range.begin.offset += 1;
      return split_token_;
    }
    if (!peek().is(sym)) {
      fail(peek().range,
           "expected '" + std::string(sym) + "' " + std::string(what) + ", found " + describe(peek()));
    }
    return next();
  }
  std::string expect_ident(std::string_view what, SourceRange* range = nullptr) {
    const Token& t = peek();
    if (t.kind != TokenKind::Identifier)
      fail(t.range, "expected " + std::string(what) + ", found " + describe(t));
    if (is_keyword(t.text))
      fail(t.range, "'" + std::string(t.text) + "' is a keyword and cannot be used as " + std::string(what));
    if (is_reserved_word(t.text)) fail(t.range, "'" + std::string(t.text) + "' is a reserved word");
    if (range) *range = t.range;
    next();
    return std::string(t.text);
  }
  SourceRange range_from(SourceLocation begin) const {
    SourceLocation end = pos_ > 0 ? toks_[pos_ - 1].range.end : begin;
    return {begin, end};
  }

  // Skips to the end of the current statement: past ';' at depth 0, or before a '}' closing the block.
  void sync_statement() {
    int depth = 0;
    while (peek().kind != TokenKind::EndOfFile) {
      if (peek().is("{")) ++depth;
      if (peek().is("}")) {
        if (depth == 0) return;
        --depth;
        if (depth == 0) {
          next();
          return;
        }
      }
      if (peek().is(";") && depth == 0) {
        next();
        return;
      }
      next();
    }
  }
  // Skips to the start of the next module-scope declaration.
  void sync_global() {
    int depth = 0;
    bool progressed = false;
    while (peek().kind != TokenKind::EndOfFile) {
      const Token& t = peek();
      if (depth == 0 && progressed &&
          (t.is_ident("fn") || t.is_ident("struct") || t.is_ident("var") || t.is_ident("const") ||
           t.is_ident("override") || t.is_ident("alias") || t.is_ident("const_assert") || t.is("@"))) {
        return;
      }
      if (t.is("{")) ++depth;
      if (t.is("}")) {
        if (depth > 0) --depth;
      }
      next();
      progressed = true;
      if (depth == 0 && (t.is(";") || t.is("}"))) return;
    }
  }

  ExprPtr make_expr(ExprKind kind, SourceRange range) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->range = range;
    e->id = next_expr_id_++;
    return e;
  }

  // ---- directives and declarations ----
  void parse_directive() {
    SourceLocation begin = peek().range.begin;
    if (accept_keyword("enable")) {
      Enable en;
      do {
        en.extensions.push_back(expect_ident("an extension name"));
      } while (accept(",") && peek().kind == TokenKind::Identifier);
      expect(";", "after enable directive");
      en.range = range_from(begin);
      module_->enables.push_back(std::move(en));
    } else if (accept_keyword("requires")) {
      Enable req;
      do {
        req.extensions.push_back(expect_ident("a language feature name"));
      } while (accept(",") && peek().kind == TokenKind::Identifier);
      expect(";", "after requires directive");
      req.range = range_from(begin);
      module_->requires_.push_back(std::move(req));
    } else {
      next();  // diagnostic(severity, rule);
      expect("(", "after 'diagnostic'");
      while (!peek().is(")") && peek().kind != TokenKind::EndOfFile) next();
      expect(")", "to close diagnostic control");
      expect(";", "after diagnostic directive");
    }
  }

  std::vector<Attribute> parse_attributes() {
    std::vector<Attribute> attrs;
    while (peek().is("@")) {
      SourceLocation begin = next().range.begin;
      Attribute a;
      const Token& name = peek();
      if (name.kind != TokenKind::Identifier)
        fail(name.range, "expected attribute name, found " + describe(name));
      a.name = std::string(name.text);
      next();
      if (accept("(")) {
        while (!peek().is(")")) {
          a.args.push_back(parse_expression());
          if (!accept(",")) break;
        }
        expect(")", "to close attribute arguments");
      }
      a.range = range_from(begin);
      attrs.push_back(std::move(a));
    }
    return attrs;
  }

  void parse_global_decl() {
    if (accept(";")) return;
    if (peek().is_ident("enable") || peek().is_ident("requires")) {
      fail(peek().range, "directives must come before any declaration");
    }
    std::vector<Attribute> attrs = parse_attributes();
    const Token& t = peek();
    if (t.is_ident("var") || t.is_ident("const") || t.is_ident("override")) {
      auto decl = parse_variable_decl(/*module_scope=*/true);
      decl->attributes = std::move(attrs);
      expect(";", "after module-scope declaration");
      module_->globals.push_back(std::move(decl));
    } else if (t.is_ident("fn")) {
      auto fn = parse_function();
      fn->attributes = std::move(attrs);
      module_->functions.push_back(std::move(fn));
    } else if (t.is_ident("struct")) {
      if (!attrs.empty()) fail(attrs[0].range, "attributes are not allowed on struct declarations");
      module_->structs.push_back(parse_struct());
    } else if (t.is_ident("alias")) {
      SourceLocation begin = next().range.begin;
      auto alias = std::make_unique<Alias>();
      alias->name = expect_ident("an alias name");
      expect("=", "in alias declaration");
      alias->type = parse_type();
      expect(";", "after alias declaration");
      alias->range = range_from(begin);
      module_->aliases.push_back(std::move(alias));
    } else if (t.is_ident("const_assert")) {
      next();
      module_->const_asserts.push_back(parse_expression());
      expect(";", "after const_assert");
    } else if (t.is_ident("let")) {
      fail(t.range, "'let' declarations are only allowed in functions; use 'const' at module scope");
    } else {
      fail(t.range, "expected a declaration (fn, var, const, override, struct, alias), found " + describe(t));
    }
  }

  std::unique_ptr<VarDecl> parse_variable_decl(bool module_scope) {
    auto decl = std::make_unique<VarDecl>();
    const Token& kw = next();
    SourceLocation begin = kw.range.begin;
    if (kw.text == "var") {
      decl->kind = DeclKind::Var;
      if (accept("<")) {
        ++no_greater_;
        decl->address_space = parse_ident_expr();
        if (accept(",")) decl->access = parse_ident_expr();
        --no_greater_;
        expect(">", "to close the variable's address space");
      }
    } else if (kw.text == "let") {
      decl->kind = DeclKind::Let;
    } else if (kw.text == "const") {
      decl->kind = DeclKind::Const;
    } else {
      decl->kind = DeclKind::Override;
    }
    (void)module_scope;
    decl->name = expect_ident("a variable name", &decl->name_range);
    if (accept(":")) decl->type = parse_type();
    if (accept("=")) decl->init = parse_expression();
    decl->range = range_from(begin);
    return decl;
  }

  std::unique_ptr<Struct> parse_struct() {
    SourceLocation begin = next().range.begin;
    auto s = std::make_unique<Struct>();
    s->name = expect_ident("a struct name");
    expect("{", "to open struct body");
    while (!peek().is("}")) {
      StructMember m;
      SourceLocation mbegin = peek().range.begin;
      m.attributes = parse_attributes();
      m.name = expect_ident("a member name");
      expect(":", "after member name");
      m.type = parse_type();
      m.range = range_from(mbegin);
      s->members.push_back(std::move(m));
      if (!accept(",")) break;
    }
    expect("}", "to close struct body");
    accept(";");
    s->range = range_from(begin);
    return s;
  }

  std::unique_ptr<Function> parse_function() {
    SourceLocation begin = next().range.begin;
    auto fn = std::make_unique<Function>();
    fn->name = expect_ident("a function name", &fn->name_range);
    expect("(", "to open the parameter list");
    while (!peek().is(")")) {
      Param p;
      SourceLocation pbegin = peek().range.begin;
      p.attributes = parse_attributes();
      p.name = expect_ident("a parameter name");
      expect(":", "after parameter name");
      p.type = parse_type();
      p.range = range_from(pbegin);
      fn->params.push_back(std::move(p));
      if (!accept(",")) break;
    }
    expect(")", "to close the parameter list");
    if (accept("->")) {
      fn->return_attributes = parse_attributes();
      fn->return_type = parse_type();
    }
    fn->range = range_from(begin);
    fn->body = parse_block();
    return fn;
  }

  // ---- statements ----
  StmtPtr make_stmt(StmtKind kind, SourceLocation begin) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->range = {begin, begin};
    return s;
  }

  StmtPtr parse_block() {
    SourceLocation begin = peek().range.begin;
    expect("{", "to open a block");
    NestingGuard guard(this, peek().range);
    auto block = make_stmt(StmtKind::Block, begin);
    while (!peek().is("}") && peek().kind != TokenKind::EndOfFile) {
      try {
        if (StmtPtr s = parse_statement()) block->statements.push_back(std::move(s));
      } catch (ParseError&) {
        sync_statement();
      }
    }
    expect("}", "to close the block");
    block->range = range_from(begin);
    return block;
  }

  StmtPtr parse_statement() {
    const Token& t = peek();
    SourceLocation begin = t.range.begin;
    if (accept(";")) return nullptr;
    if (t.is("{")) return parse_block();
    if (t.is("@")) parse_attributes();  // statement attributes (e.g. @diagnostic) are accepted and ignored
    const Token& k = peek();
    StmtPtr s;
    if (k.is_ident("var") || k.is_ident("let") || k.is_ident("const")) {
      s = make_stmt(StmtKind::Decl, begin);
      s->decl = parse_variable_decl(false);
      expect(";", "after declaration");
    } else if (k.is_ident("if")) {
      return parse_if();
    } else if (k.is_ident("switch")) {
      return parse_switch();
    } else if (k.is_ident("loop")) {
      return parse_loop();
    } else if (k.is_ident("for")) {
      return parse_for();
    } else if (k.is_ident("while")) {
      next();
      s = make_stmt(StmtKind::While, begin);
      s->expr = parse_expression();
      s->body = parse_block();
      s->range = range_from(begin);
      return s;
    } else if (k.is_ident("break")) {
      next();
      if (peek().is_ident("if")) {
        fail(peek().range, "'break if' is only allowed as the last statement of a continuing block");
      }
      s = make_stmt(StmtKind::Break, begin);
      expect(";", "after 'break'");
    } else if (k.is_ident("continue")) {
      next();
      s = make_stmt(StmtKind::Continue, begin);
      expect(";", "after 'continue'");
    } else if (k.is_ident("return")) {
      next();
      s = make_stmt(StmtKind::Return, begin);
      if (!peek().is(";")) s->expr = parse_expression();
      expect(";", "after return statement");
    } else if (k.is_ident("discard")) {
      next();
      s = make_stmt(StmtKind::Discard, begin);
      expect(";", "after 'discard'");
    } else if (k.is_ident("const_assert")) {
      next();
      s = make_stmt(StmtKind::ConstAssert, begin);
      s->expr = parse_expression();
      expect(";", "after const_assert");
    } else {
      s = parse_simple_statement();
      expect(";", "after statement");
    }
    s->range = range_from(begin);
    return s;
  }

  // Assignment, compound assignment, increment/decrement, call or phony assignment (no trailing ';').
  StmtPtr parse_simple_statement() {
    SourceLocation begin = peek().range.begin;
    if (peek().is("_")) {
      next();
      expect("=", "after '_'");
      auto s = make_stmt(StmtKind::Assign, begin);
      s->expr = parse_expression();
      s->range = range_from(begin);
      return s;
    }
    if (peek().kind == TokenKind::Identifier &&
        (is_keyword(peek().text) && !peek().is_ident("true") && !peek().is_ident("false"))) {
      fail(peek().range, "expected a statement, found " + describe(peek()));
    }
    ExprPtr lhs = parse_unary();
    StmtPtr s;
    const Token& op = peek();
    if (op.is("=")) {
      next();
      s = make_stmt(StmtKind::Assign, begin);
      s->lhs = std::move(lhs);
      s->expr = parse_expression();
    } else if (op.is("++") || op.is("--")) {
      next();
      s = make_stmt(op.text == "++" ? StmtKind::Increment : StmtKind::Decrement, begin);
      s->lhs = std::move(lhs);
    } else if (op.kind == TokenKind::Symbol && op.text.size() >= 2 && op.text.back() == '=' &&
               op.text != "==" && op.text != "!=" && op.text != "<=" && op.text != ">=") {
      std::string_view sym = op.text.substr(0, op.text.size() - 1);
      next();
      s = make_stmt(StmtKind::CompoundAssign, begin);
      s->op = sym == "+"    ? BinaryOp::Add
              : sym == "-"  ? BinaryOp::Sub
              : sym == "*"  ? BinaryOp::Mul
              : sym == "/"  ? BinaryOp::Div
              : sym == "%"  ? BinaryOp::Mod
              : sym == "&"  ? BinaryOp::And
              : sym == "|"  ? BinaryOp::Or
              : sym == "^"  ? BinaryOp::Xor
              : sym == "<<" ? BinaryOp::ShiftLeft
                            : BinaryOp::ShiftRight;
      s->lhs = std::move(lhs);
      s->expr = parse_expression();
    } else if (lhs->kind == ExprKind::Call) {
      s = make_stmt(StmtKind::Call, begin);
      s->expr = std::move(lhs);
    } else {
      fail(op.range, "expected assignment or function call, found " + describe(op));
    }
    s->range = range_from(begin);
    return s;
  }

  StmtPtr parse_if() {
    NestingGuard guard(this, peek().range);
    SourceLocation begin = next().range.begin;
    auto s = make_stmt(StmtKind::If, begin);
    s->expr = parse_expression();
    s->body = parse_block();
    if (accept_keyword("else")) {
      if (peek().is_ident("if")) {
        s->else_branch = parse_if();
      } else {
        s->else_branch = parse_block();
      }
    }
    s->range = range_from(begin);
    return s;
  }

  StmtPtr parse_switch() {
    SourceLocation begin = next().range.begin;
    auto s = make_stmt(StmtKind::Switch, begin);
    s->expr = parse_expression();
    parse_attributes();
    expect("{", "to open the switch body");
    while (!peek().is("}") && peek().kind != TokenKind::EndOfFile) {
      SwitchCase c;
      SourceLocation cbegin = peek().range.begin;
      if (accept_keyword("default")) {
        c.selectors.push_back(nullptr);
      } else if (accept_keyword("case")) {
        while (true) {
          if (accept_keyword("default")) {
            c.selectors.push_back(nullptr);
          } else {
            c.selectors.push_back(parse_expression());
          }
          if (!accept(",")) break;
          if (peek().is(":") || peek().is("{")) break;
        }
      } else {
        fail(peek().range, "expected 'case' or 'default' in switch, found " + describe(peek()));
      }
      accept(":");
      c.body = parse_block();
      c.range = range_from(cbegin);
      s->cases.push_back(std::move(c));
    }
    expect("}", "to close the switch body");
    s->range = range_from(begin);
    return s;
  }

  StmtPtr parse_loop() {
    SourceLocation begin = next().range.begin;
    auto s = make_stmt(StmtKind::Loop, begin);
    parse_attributes();
    SourceLocation body_begin = peek().range.begin;
    expect("{", "to open the loop body");
    auto body = make_stmt(StmtKind::Block, body_begin);
    while (!peek().is("}") && peek().kind != TokenKind::EndOfFile) {
      if (peek().is_ident("continuing")) {
        SourceLocation cbegin = next().range.begin;
        expect("{", "to open the continuing block");
        auto cont = make_stmt(StmtKind::Block, cbegin);
        while (!peek().is("}") && peek().kind != TokenKind::EndOfFile) {
          try {
            if (peek().is_ident("break") && peek(1).is_ident("if")) {
              SourceLocation bbegin = next().range.begin;
              next();
              auto b = make_stmt(StmtKind::BreakIf, bbegin);
              b->expr = parse_expression();
              expect(";", "after 'break if'");
              b->range = range_from(bbegin);
              cont->statements.push_back(std::move(b));
              if (!peek().is("}")) fail(peek().range, "'break if' must be the last statement of continuing");
              continue;
            }
            if (StmtPtr st = parse_statement()) cont->statements.push_back(std::move(st));
          } catch (ParseError&) {
            sync_statement();
          }
        }
        expect("}", "to close the continuing block");
        cont->range = range_from(cbegin);
        s->continuing = std::move(cont);
        if (!peek().is("}")) fail(peek().range, "the continuing block must be the last statement of a loop");
        break;
      }
      try {
        if (StmtPtr st = parse_statement()) body->statements.push_back(std::move(st));
      } catch (ParseError&) {
        sync_statement();
      }
    }
    expect("}", "to close the loop body");
    body->range = range_from(body_begin);
    s->body = std::move(body);
    s->range = range_from(begin);
    return s;
  }

  StmtPtr parse_for() {
    SourceLocation begin = next().range.begin;
    auto s = make_stmt(StmtKind::For, begin);
    expect("(", "after 'for'");
    if (!peek().is(";")) {
      SourceLocation ibegin = peek().range.begin;
      if (peek().is_ident("var") || peek().is_ident("let") || peek().is_ident("const")) {
        auto d = make_stmt(StmtKind::Decl, ibegin);
        d->decl = parse_variable_decl(false);
        d->range = range_from(ibegin);
        s->init = std::move(d);
      } else {
        s->init = parse_simple_statement();
      }
    }
    expect(";", "after the for-loop initializer");
    if (!peek().is(";")) s->expr = parse_expression();
    expect(";", "after the for-loop condition");
    if (!peek().is(")")) s->update = parse_simple_statement();
    expect(")", "to close the for-loop header");
    s->body = parse_block();
    s->range = range_from(begin);
    return s;
  }

  // ---- types and expressions ----
  ExprPtr parse_ident_expr() {
    SourceRange r;
    std::string name = expect_ident("an identifier", &r);
    auto e = make_expr(ExprKind::Identifier, r);
    e->name = std::move(name);
    e->name_range = r;
    return e;
  }

  // A type is syntactically a (possibly templated) identifier.
  ExprPtr parse_type() {
    const Token& t = peek();
    if (t.kind != TokenKind::Identifier) fail(t.range, "expected a type, found " + describe(t));
    return parse_templated_ident();
  }

  ExprPtr parse_templated_ident() {
    SourceLocation begin = peek().range.begin;
    ExprPtr e = parse_ident_expr();
    if (peek().is("<") && is_template_generator(e->name)) {
      next();
      ++no_greater_;
      int saved_paren = paren_depth_;
      paren_depth_ = 0;
      while (!peek().is(">") && !(peek().kind == TokenKind::Symbol && peek().text[0] == '>')) {
        e->template_args.push_back(parse_expression());
        if (!accept(",")) break;
      }
      paren_depth_ = saved_paren;
      --no_greater_;
      expect(">", "to close the template argument list");
      e->range = range_from(begin);
    }
    return e;
  }

  struct NestingGuard {
    NestingGuard(Parser* p, SourceRange r) : parser(p) {
      if (++parser->nesting_ > kMaxNesting) {
        --parser->nesting_;
        parser->fail(r, "nesting is too deep");
      }
    }
    ~NestingGuard() { --parser->nesting_; }
    Parser* parser;
  };

  bool greater_is_operator() const { return no_greater_ == 0 || paren_depth_ > 0; }

  ExprPtr make_binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs) {
    SourceRange r{lhs->range.begin, rhs->range.end};
    auto e = make_expr(ExprKind::Binary, r);
    e->depth = std::max(lhs->depth, rhs->depth) + 1;
    if (e->depth > kMaxExprDepth) fail(r, "expression is too deeply nested");
    e->binary_op = op;
    e->lhs = std::move(lhs);
    e->rhs = std::move(rhs);
    return e;
  }

  ExprPtr parse_expression() {
    NestingGuard guard(this, peek().range);
    ExprPtr lhs = parse_unary();
    const Token& t = peek();
    if (t.is("&") || t.is("|") || t.is("^")) {
      std::string_view sym = t.text;
      BinaryOp op = sym == "&" ? BinaryOp::And : sym == "|" ? BinaryOp::Or : BinaryOp::Xor;
      while (peek().is(sym)) {
        next();
        lhs = make_binary(op, std::move(lhs), parse_unary());
      }
      const Token& after = peek();
      if (after.is("&") || after.is("|") || after.is("^") || after.is("&&") || after.is("||") ||
          after.is("+") || after.is("-") || after.is("*") || after.is("==") || after.is("<")) {
        fail(after.range,
             "mixing " + describe(after) + " with '" + std::string(sym) + "' requires parentheses");
      }
      return lhs;
    }
    lhs = parse_relational_from(std::move(lhs));
    if (peek().is("&&") || peek().is("||")) {
      std::string_view sym = peek().text;
      BinaryOp op = sym == "&&" ? BinaryOp::LogicalAnd : BinaryOp::LogicalOr;
      while (peek().is(sym)) {
        next();
        lhs = make_binary(op, std::move(lhs), parse_relational_from(parse_unary()));
      }
      if (peek().is("&&") || peek().is("||")) {
        fail(peek().range, "mixing '&&' and '||' requires parentheses");
      }
    }
    return lhs;
  }

  std::optional<BinaryOp> relational_op() const {
    const Token& t = peek();
    if (t.is("==")) return BinaryOp::Equal;
    if (t.is("!=")) return BinaryOp::NotEqual;
    if (t.is("<")) return BinaryOp::Less;
    if (t.is("<=")) return BinaryOp::LessEqual;
    if (greater_is_operator()) {
      if (t.is(">")) return BinaryOp::Greater;
      if (t.is(">=")) return BinaryOp::GreaterEqual;
    }
    return std::nullopt;
  }

  ExprPtr parse_relational_from(ExprPtr lhs) {
    lhs = parse_shift_from(std::move(lhs));
    if (auto op = relational_op()) {
      next();
      lhs = make_binary(*op, std::move(lhs), parse_shift_from(parse_unary()));
      if (relational_op()) fail(peek().range, "chained comparisons require parentheses");
    }
    return lhs;
  }

  ExprPtr parse_shift_from(ExprPtr lhs) {
    if (peek().is("<<") || (peek().is(">>") && greater_is_operator())) {
      BinaryOp op = next().text == "<<" ? BinaryOp::ShiftLeft : BinaryOp::ShiftRight;
      return make_binary(op, std::move(lhs), parse_unary());
    }
    return parse_additive_from(std::move(lhs));
  }

  ExprPtr parse_additive_from(ExprPtr lhs) {
    lhs = parse_multiplicative_from(std::move(lhs));
    while (peek().is("+") || peek().is("-")) {
      BinaryOp op = next().text == "+" ? BinaryOp::Add : BinaryOp::Sub;
      lhs = make_binary(op, std::move(lhs), parse_multiplicative_from(parse_unary()));
    }
    return lhs;
  }

  ExprPtr parse_multiplicative_from(ExprPtr lhs) {
    while (peek().is("*") || peek().is("/") || peek().is("%")) {
      std::string_view sym = next().text;
      BinaryOp op = sym == "*" ? BinaryOp::Mul : sym == "/" ? BinaryOp::Div : BinaryOp::Mod;
      lhs = make_binary(op, std::move(lhs), parse_unary());
    }
    return lhs;
  }

  ExprPtr parse_unary() {
    const Token& t = peek();
    std::optional<UnaryOp> op;
    if (t.is("-")) op = UnaryOp::Negate;
    if (t.is("!")) op = UnaryOp::Not;
    if (t.is("~")) op = UnaryOp::Complement;
    if (t.is("&")) op = UnaryOp::AddressOf;
    if (t.is("*")) op = UnaryOp::Deref;
    if (op) {
      NestingGuard guard(this, t.range);
      SourceLocation begin = next().range.begin;
      ExprPtr operand = parse_unary();
      auto e = make_expr(ExprKind::Unary, {begin, operand->range.end});
      e->unary_op = *op;
      e->lhs = std::move(operand);
      return e;
    }
    // `--x` / `&&x` are lexed as one token; WGSL reads them as two unary operators.
    if (t.is("--") || t.is("&&")) {
      fail(t.range, "unexpected " + describe(t) + "; separate the unary operators with a space");
    }
    return parse_postfix(parse_primary());
  }

  ExprPtr parse_primary() {
    const Token& t = peek();
    SourceLocation begin = t.range.begin;
    switch (t.kind) {
      case TokenKind::IntLiteral: {
        auto e = make_expr(ExprKind::IntLiteral, t.range);
        e->int_value = t.int_value;
        e->int_overflow = t.int_overflow;
        e->suffix = t.suffix;
        next();
        return e;
      }
      case TokenKind::FloatLiteral: {
        auto e = make_expr(ExprKind::FloatLiteral, t.range);
        e->float_value = t.float_value;
        e->suffix = t.suffix;
        next();
        return e;
      }
      case TokenKind::Identifier: {
        if (t.text == "true" || t.text == "false") {
          auto e = make_expr(ExprKind::BoolLiteral, t.range);
          e->bool_value = t.text == "true";
          next();
          return e;
        }
        ExprPtr id = parse_templated_ident();
        if (peek().is("(")) {
          next();
          auto call = make_expr(ExprKind::Call, id->range);
          ++paren_depth_;
          while (!peek().is(")")) {
            call->args.push_back(parse_expression());
            if (!accept(",")) break;
          }
          --paren_depth_;
          expect(")", "to close the argument list");
          call->callee = std::move(id);
          call->range = range_from(begin);
          return call;
        }
        return id;
      }
      case TokenKind::Symbol:
        if (t.is("(")) {
          next();
          ++paren_depth_;
          ExprPtr inner = parse_expression();
          --paren_depth_;
          expect(")", "to close the parenthesized expression");
          return inner;
        }
        break;
      default:
        break;
    }
    fail(t.range, "expected an expression, found " + describe(t));
  }

  ExprPtr parse_postfix(ExprPtr base) {
    while (true) {
      if (peek().is("[")) {
        next();
        ++paren_depth_;
        ExprPtr index = parse_expression();
        --paren_depth_;
        expect("]", "to close the index");
        auto e = make_expr(ExprKind::Index, range_from(base->range.begin));
        e->depth = std::max(base->depth, index->depth) + 1;
        if (e->depth > kMaxExprDepth) fail(e->range, "expression is too deeply nested");
        e->lhs = std::move(base);
        e->rhs = std::move(index);
        base = std::move(e);
      } else if (peek().is(".")) {
        next();
        const Token& m = peek();
        if (m.kind != TokenKind::Identifier) fail(m.range, "expected a member name, found " + describe(m));
        next();
        auto e = make_expr(ExprKind::Member, range_from(base->range.begin));
        e->depth = base->depth + 1;
        if (e->depth > kMaxExprDepth) fail(e->range, "expression is too deeply nested");
        e->name = std::string(m.text);
        e->name_range = m.range;
        e->lhs = std::move(base);
        base = std::move(e);
      } else {
        return base;
      }
    }
  }

  std::vector<Token> toks_;
  Diagnostics& diags_;
  size_t pos_ = 0;
  std::unique_ptr<Module> module_;
  uint32_t next_expr_id_ = 0;
  int no_greater_ = 0;
  int paren_depth_ = 0;
  int nesting_ = 0;
  Token split_token_;
};

}  // namespace

const char* ast::to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::Div:
      return "/";
    case BinaryOp::Mod:
      return "%";
    case BinaryOp::And:
      return "&";
    case BinaryOp::Or:
      return "|";
    case BinaryOp::Xor:
      return "^";
    case BinaryOp::ShiftLeft:
      return "<<";
    case BinaryOp::ShiftRight:
      return ">>";
    case BinaryOp::LogicalAnd:
      return "&&";
    case BinaryOp::LogicalOr:
      return "||";
    case BinaryOp::Equal:
      return "==";
    case BinaryOp::NotEqual:
      return "!=";
    case BinaryOp::Less:
      return "<";
    case BinaryOp::LessEqual:
      return "<=";
    case BinaryOp::Greater:
      return ">";
    case BinaryOp::GreaterEqual:
      return ">=";
  }
  return "?";
}

const char* ast::to_string(UnaryOp op) {
  switch (op) {
    case UnaryOp::Negate:
      return "-";
    case UnaryOp::Not:
      return "!";
    case UnaryOp::Complement:
      return "~";
    case UnaryOp::AddressOf:
      return "&";
    case UnaryOp::Deref:
      return "*";
  }
  return "?";
}

std::unique_ptr<ast::Module> parse(const SourceFile& file, Diagnostics& diags) {
  std::vector<Token> tokens = tokenize(file, diags);
  return Parser(std::move(tokens), diags).run();
}

}  // namespace vkgemm::wgsl
