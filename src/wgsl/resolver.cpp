#include "wgsl/resolver.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "wgsl/consteval.hpp"

namespace vkgemm::wgsl {
namespace {

using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;
using ast::UnaryOp;
using sem::BuiltinFn;
using sem::BuiltinValue;
using sem::CallKind;
using sem::SymbolKind;
using sem::Value;

// Thrown after a diagnostic to abandon the current expression or statement.
struct ResolveError {};

struct Symbol {
  enum Kind {
    Struct,
    Alias,
    GlobalVar,
    GlobalConst,
    Override,
    Function,
    LocalVar,
    LocalLet,
    LocalConst,
    Param
  };
  Kind kind;
  const void* node;
  SourceRange range{};  // where it is declared (for "previous declaration" notes)
};

enum class State { NotStarted, InProgress, Done };

struct FunctionContext {
  const ast::Function* decl = nullptr;
  sem::Function* sem = nullptr;
  std::vector<std::map<std::string, Symbol>> scopes;
  std::map<const ast::Param*, size_t> param_index;
  int loop_depth = 0;
  int switch_depth = 0;
  int continuing_depth = 0;
  std::vector<bool> breakable_is_loop;  // innermost last
};

class Resolver {
 public:
  Resolver(const ast::Module& m, Diagnostics& d) : mod_(m), diags_(d) {
    out_ = std::make_unique<sem::Module>();
    out_->exprs.resize(m.expr_count);
  }

  std::unique_ptr<sem::Module> run() {
    for (const auto& en : mod_.enables) {
      for (const auto& ext : en.extensions) {
        if (ext == "f16") {
          out_->enable_f16 = true;
        } else if (ext == "subgroups") {
          out_->enable_subgroups = true;
        } else if (ext == "subgroups_f16") {
          out_->enable_subgroups = true;
        } else {
          diags_.error(en.range, "unsupported extension '" + ext + "'");
        }
      }
    }
    for (const auto& req : mod_.requires_) {
      for (const auto& feature : req.extensions) {
        // Features this compiler implements; pointer_composite_access (p[i], p.m) is supported.
        static const std::set<std::string> supported = {"pointer_composite_access",
                                                        "packed_4x8_integer_dot_product"};
        if (!supported.count(feature)) {
          diags_.error(req.range, "language feature '" + feature + "' is not supported by this compiler");
        }
      }
    }
    declare_module_scope();
    for (const auto& s : mod_.structs) guarded([&] { struct_type(s.get()); });
    for (const auto& a : mod_.aliases) guarded([&] { alias_type(a.get()); });
    for (const auto& g : mod_.globals) guarded([&] { resolve_global(g.get()); });
    for (const auto& f : mod_.functions) guarded([&] { resolve_function(f.get()); });
    for (const auto& e : mod_.const_asserts) guarded([&] { const_assert(*e); });
    check_bindings();
    return std::move(out_);
  }

 private:
  // ------------------------------------------------------------------ helpers
  [[noreturn]] void fail(SourceRange r, const std::string& msg) {
    diags_.error(r, msg);
    throw ResolveError{};
  }
  template <typename F>
  void guarded(F&& f) {
    try {
      f();
    } catch (ResolveError&) {
    }
  }
  sem::ExprInfo& I(const Expr& e) { return out_->exprs[e.id]; }
  TypeTable& T() { return out_->types; }

  static const Type* value_type(const Type* t) { return t->kind == TypeKind::Reference ? t->elem : t; }

  void declare_module_scope() {
    auto declare = [&](const std::string& name, SourceRange r, Symbol s) {
      if (auto it = module_scope_.find(name); it != module_scope_.end()) {
        diags_.error(r, "redeclaration of '" + name + "'");
        diags_.note(it->second.range, "'" + name + "' is also declared here");
        return;
      }
      // Shadowing predeclared types and built-in functions is legal WGSL (Gridwise relies on the latter).
      s.range = r;
      module_scope_[name] = s;
    };
    for (const auto& s : mod_.structs) declare(s->name, s->range, {Symbol::Struct, s.get()});
    for (const auto& a : mod_.aliases) declare(a->name, a->range, {Symbol::Alias, a.get()});
    for (const auto& g : mod_.globals) {
      Symbol::Kind k = g->kind == ast::DeclKind::Var     ? Symbol::GlobalVar
                       : g->kind == ast::DeclKind::Const ? Symbol::GlobalConst
                                                         : Symbol::Override;
      declare(g->name, g->name_range, {k, g.get()});
    }
    for (const auto& f : mod_.functions) declare(f->name, f->name_range, {Symbol::Function, f.get()});
  }

  const Symbol* lookup(const std::string& name) {
    if (fn_) {
      for (auto it = fn_->scopes.rbegin(); it != fn_->scopes.rend(); ++it) {
        auto f = it->find(name);
        if (f != it->end()) return &f->second;
      }
    }
    auto f = module_scope_.find(name);
    return f == module_scope_.end() ? nullptr : &f->second;
  }

  // "; did you mean 'x'?" for a misspelled name: the closest name in scope (or built-in) within edit
  // distance 2.
  enum class NameKind { Value, Type, Function };
  std::string suggestion(const std::string& name, NameKind want) {
    // Bounded work on hostile inputs: the first few unresolved names of reasonable length only.
    if (++suggestions_made_ > 32 || name.size() > 64) return {};
    auto distance = [](const std::string& a, const std::string& b) {
      std::vector<size_t> row(b.size() + 1);
      for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
      for (size_t i = 1; i <= a.size(); ++i) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
          size_t cur = row[j];
          row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
          prev = cur;
        }
      }
      return row[b.size()];
    };
    std::vector<std::string> candidates;
    auto add_symbol = [&](const std::string& n, const Symbol& sym) {
      bool is_type = sym.kind == Symbol::Struct || sym.kind == Symbol::Alias;
      bool is_fn = sym.kind == Symbol::Function;
      if ((want == NameKind::Type) == is_type && (want == NameKind::Function) == is_fn)
        candidates.push_back(n);
    };
    if (fn_) {
      for (const auto& scope : fn_->scopes) {
        for (const auto& [n, sym] : scope) add_symbol(n, sym);
      }
    }
    for (const auto& [n, sym] : module_scope_) add_symbol(n, sym);
    if (want == NameKind::Type) {
      for (const char* t :
           {"bool", "i32", "u32", "f32", "f16", "vec2", "vec3", "vec4", "array", "atomic", "ptr", "mat2x2",
            "mat3x3", "mat4x4", "vec4f", "vec4u", "vec4i", "vec3f", "vec2f"}) {
        candidates.push_back(t);
      }
    }
    if (want == NameKind::Function) {
      for (int f = static_cast<int>(BuiltinFn::Acos); f <= static_cast<int>(BuiltinFn::Bitcast); ++f) {
        candidates.push_back(sem::to_string(static_cast<BuiltinFn>(f)));
      }
    }
    std::string best;
    size_t best_distance = 3;
    for (const auto& c : candidates) {
      if (c == name) continue;
      size_t d = distance(name, c);
      if (d < best_distance || (d == best_distance && !best.empty() && c < best)) {
        best_distance = d;
        best = c;
      }
    }
    if (best.empty() || best_distance > std::max<size_t>(1, name.size() / 3)) return {};
    return "; did you mean '" + best + "'?";
  }

  void declare_local(const std::string& name, SourceRange r, Symbol s) {
    auto& scope = fn_->scopes.back();
    if (auto it = scope.find(name); it != scope.end()) {
      diags_.error(r, "redeclaration of '" + name + "' in the same scope");
      diags_.note(it->second.range, "previous declaration of '" + name + "'");
      throw ResolveError{};
    }
    s.range = r;
    scope[name] = s;
  }

  // ------------------------------------------------------------------ types
  const Type* require_f16(const Type* t, SourceRange r) {
    if (!out_->enable_f16) fail(r, "f16 requires 'enable f16;'");
    return t;
  }

  const Type* scalar_type_named(const std::string& n, SourceRange r) {
    if (n == "bool") return T().bool_type();
    if (n == "i32") return T().i32();
    if (n == "u32") return T().u32();
    if (n == "f32") return T().f32();
    if (n == "f16") return require_f16(T().f16(), r);
    return nullptr;
  }

  // Predeclared aliases like vec4f, vec2u, mat4x4f.
  const Type* shorthand_type(const std::string& n, SourceRange r) {
    if (n.size() == 5 && n.rfind("vec", 0) == 0 && n[3] >= '2' && n[3] <= '4') {
      const Type* s = suffix_scalar(n[4], r);
      if (s) return T().vector(s, n[3] - '0');
    }
    if (n.size() == 7 && n.rfind("mat", 0) == 0 && n[4] == 'x' && n[3] >= '2' && n[3] <= '4' && n[5] >= '2' &&
        n[5] <= '4' && (n[6] == 'f' || n[6] == 'h')) {
      return T().matrix(suffix_scalar(n[6], r), n[3] - '0', n[5] - '0');
    }
    return nullptr;
  }
  const Type* suffix_scalar(char c, SourceRange r) {
    switch (c) {
      case 'f':
        return T().f32();
      case 'h':
        return require_f16(T().f16(), r);
      case 'i':
        return T().i32();
      case 'u':
        return T().u32();
      default:
        return nullptr;
    }
  }

  uint32_t const_u32_arg(const Expr& e, const char* what, uint32_t min_value) {
    const Type* t = expr(e);
    const sem::ExprInfo& info = I(e);
    if (!info.value || !t || !value_type(t)->is_integer_scalar()) {
      fail(e.range, std::string(what) + " must be a constant integer expression");
    }
    if (value_type(t)->is_abstract()) materialize(e, T().i32());
    int64_t v = I(e).value->i;
    if (v < static_cast<int64_t>(min_value) || v > UINT32_MAX) {
      fail(e.range, std::string(what) + " must be at least " + std::to_string(min_value) + ", got " +
                        std::to_string(v));
    }
    return static_cast<uint32_t>(v);
  }

  AddressSpace address_space_named(const Expr& e) {
    if (e.kind != ExprKind::Identifier) fail(e.range, "expected an address space");
    const std::string& n = e.name;
    if (n == "function") return AddressSpace::Function;
    if (n == "private") return AddressSpace::Private;
    if (n == "workgroup") return AddressSpace::Workgroup;
    if (n == "uniform") return AddressSpace::Uniform;
    if (n == "storage") return AddressSpace::Storage;
    if (n == "push_constant") fail(e.range, "push_constant requires an extension that is not supported");
    fail(e.range, "unknown address space '" + n + "'");
  }
  Access access_named(const Expr& e) {
    if (e.kind != ExprKind::Identifier) fail(e.range, "expected an access mode");
    if (e.name == "read") return Access::Read;
    if (e.name == "write") return Access::Write;
    if (e.name == "read_write") return Access::ReadWrite;
    fail(e.range, "unknown access mode '" + e.name + "'");
  }

  // Resolves a type expression; returns null (without error) if `e` does not name a type.
  const Type* try_type(const Expr& e) {
    if (e.kind != ExprKind::Identifier) return nullptr;
    const std::string& n = e.name;
    if (const Symbol* s = lookup(n)) {
      if (s->kind == Symbol::Struct) {
        no_template(e);
        return struct_type(static_cast<const ast::Struct*>(s->node));
      }
      if (s->kind == Symbol::Alias) {
        no_template(e);
        return alias_type(static_cast<const ast::Alias*>(s->node));
      }
      return nullptr;  // shadowed by a value or function
    }
    if (const Type* t = scalar_type_named(n, e.range)) {
      no_template(e);
      return t;
    }
    if (const Type* t = shorthand_type(n, e.range)) {
      no_template(e);
      return t;
    }
    if (n == "vec2" || n == "vec3" || n == "vec4") {
      if (e.template_args.empty()) return nullptr;  // inferred constructor; handled by the caller
      if (e.template_args.size() != 1) fail(e.range, n + " takes one template argument");
      const Type* elem = type(*e.template_args[0]);
      if (!elem->is_scalar() || elem->is_abstract()) fail(e.range, n + " element must be a scalar type");
      return T().vector(elem, n[3] - '0');
    }
    if (n.size() == 6 && n.rfind("mat", 0) == 0 && n[4] == 'x') {
      if (e.template_args.empty()) return nullptr;
      if (e.template_args.size() != 1) fail(e.range, n + " takes one template argument");
      const Type* elem = type(*e.template_args[0]);
      if (!elem->is_float_scalar() || elem->is_abstract())
        fail(e.range, "matrix element type must be f32 or f16");
      int c = n[3] - '0', r = n[5] - '0';
      if (c < 2 || c > 4 || r < 2 || r > 4) return nullptr;
      return T().matrix(elem, c, r);
    }
    if (n == "array") {
      if (e.template_args.empty()) return nullptr;
      if (e.template_args.size() > 2) fail(e.range, "array takes at most two template arguments");
      const Type* elem = type(*e.template_args[0]);
      if (elem->has_runtime_array())
        fail(e.template_args[0]->range, "array element type must have a fixed size");
      if (!elem->is_constructible() && elem->kind != TypeKind::Atomic && !elem->contains_atomic()) {
        fail(e.template_args[0]->range, "'" + to_string(elem) + "' cannot be an array element type");
      }
      uint32_t count = 0;
      if (e.template_args.size() == 2) {
        const Expr& ce = *e.template_args[1];
        const Type* ct = value_type(expr_nonnull(ce));
        if (!I(ce).value) {
          if (!I(ce).override_expr || !ct->is_integer_scalar()) {
            fail(ce.range, "array size must be a constant or override integer expression");
          }
          std::optional<Value> v = evaluate_default(ce);
          if (!v || v->i < 1) fail(ce.range, "array size must be at least 1");
          return T().array(elem, static_cast<uint32_t>(v->i), &ce);
        }
        count = const_u32_arg(ce, "array size", 1);
      }
      return T().array(elem, count);
    }
    if (n == "atomic") {
      if (e.template_args.size() != 1) fail(e.range, "atomic takes one template argument");
      const Type* elem = type(*e.template_args[0]);
      if (elem->kind != TypeKind::I32 && elem->kind != TypeKind::U32) {
        fail(e.range, "atomic element type must be i32 or u32");
      }
      return T().atomic(elem);
    }
    if (n == "ptr") {
      if (e.template_args.size() < 2 || e.template_args.size() > 3) {
        fail(e.range, "ptr takes two or three template arguments");
      }
      AddressSpace as = address_space_named(*e.template_args[0]);
      const Type* store = type(*e.template_args[1]);
      Access access = as == AddressSpace::Storage ? Access::Read : Access::ReadWrite;
      if (as == AddressSpace::Uniform) access = Access::Read;
      if (e.template_args.size() == 3) {
        if (as != AddressSpace::Storage)
          fail(e.template_args[2]->range, "only storage pointers take an access mode");
        access = access_named(*e.template_args[2]);
      }
      return T().pointer(store, as, access);
    }
    return nullptr;
  }

  void no_template(const Expr& e) {
    if (!e.template_args.empty()) fail(e.range, "'" + e.name + "' does not take template arguments");
  }

  const Type* type(const Expr& e) {
    const Type* t = try_type(e);
    if (!t) {
      if (e.kind == ExprKind::Identifier) {
        const Symbol* s = lookup(e.name);
        if (s) fail(e.range, "'" + e.name + "' is not a type");
        if (e.name == "vec2" || e.name == "vec3" || e.name == "vec4" || e.name == "array" ||
            (e.name.rfind("mat", 0) == 0 && e.name.size() == 6)) {
          fail(e.range, "'" + e.name + "' requires template arguments here");
        }
        fail(e.range, "unresolved type '" + e.name + "'" + suggestion(e.name, NameKind::Type));
      }
      fail(e.range, "expected a type");
    }
    return t;
  }

  const Type* alias_type(const ast::Alias* a) {
    auto it = alias_types_.find(a);
    if (it != alias_types_.end()) {
      if (!it->second) fail(a->range, "alias '" + a->name + "' refers to itself");
      return it->second;
    }
    alias_types_[a] = nullptr;
    auto saved = fn_;
    fn_ = nullptr;
    const Type* t = type(*a->type);
    fn_ = saved;
    alias_types_[a] = t;
    return t;
  }

  const Type* struct_type(const ast::Struct* s) {
    auto it = struct_types_.find(s);
    if (it != struct_types_.end()) {
      if (!it->second) fail(s->range, "struct '" + s->name + "' contains itself");
      return it->second;
    }
    struct_types_[s] = nullptr;
    auto saved = fn_;
    fn_ = nullptr;
    Type* st = T().make_struct(s->name, s);
    if (s->members.empty()) fail(s->range, "struct '" + s->name + "' must have at least one member");
    uint32_t offset = 0, align = 1;
    std::set<std::string> names;
    for (size_t i = 0; i < s->members.size(); ++i) {
      const ast::StructMember& m = s->members[i];
      if (!names.insert(m.name).second) fail(m.range, "duplicate member '" + m.name + "'");
      const Type* mt = type(*m.type);
      if (has_override_array(mt)) fail(m.range, "override-sized arrays cannot be struct members");
      if (mt->kind == TypeKind::Struct && mt->has_runtime_array()) {
        fail(m.range,
             "struct '" + mt->name + "' ends in a runtime-sized array and cannot be a struct member");
      }
      if (mt->has_runtime_array() && i + 1 != s->members.size()) {
        fail(m.range, "a runtime-sized array must be the last member of a struct");
      }
      if (mt->kind == TypeKind::Pointer || mt->kind == TypeKind::Void) {
        fail(m.range, "'" + to_string(mt) + "' cannot be a struct member type");
      }
      uint32_t m_align = mt->align, m_size = mt->size;
      for (const auto& attr : m.attributes) {
        if (attr.name == "align") {
          if (attr.args.size() != 1) fail(attr.range, "@align takes one argument");
          m_align = const_u32_arg(*attr.args[0], "@align", 1);
          if ((m_align & (m_align - 1)) != 0) fail(attr.range, "@align must be a power of two");
          if (m_align < mt->align) {
            fail(attr.range, "@align(" + std::to_string(m_align) +
                                 ") is smaller than the natural alignment " + std::to_string(mt->align) +
                                 " of '" + to_string(mt) + "'");
          }
        } else if (attr.name == "size") {
          if (mt->has_runtime_array()) fail(attr.range, "@size cannot be applied to a runtime-sized array");
          if (attr.args.size() != 1) fail(attr.range, "@size takes one argument");
          m_size = const_u32_arg(*attr.args[0], "@size", 1);
          if (m_size < mt->size) {
            fail(attr.range, "@size(" + std::to_string(m_size) + ") is smaller than the size " +
                                 std::to_string(mt->size) + " of '" + to_string(mt) + "'");
          }
        } else if (attr.name == "builtin" || attr.name == "location" || attr.name == "interpolate" ||
                   attr.name == "invariant") {
          // Shader IO attributes: meaningful only for entry-point IO; accepted here.
        } else {
          fail(attr.range, "unknown member attribute '@" + attr.name + "'");
        }
      }
      offset = round_up(m_align, offset);
      st->members.push_back({m.name, mt, offset, m_size, m_align});
      offset += m_size;
      align = std::max(align, m_align);
    }
    st->align = align;
    st->size = round_up(align, offset);
    fn_ = saved;
    struct_types_[s] = st;
    return st;
  }

  // ------------------------------------------------------------------ globals
  void resolve_global(const ast::VarDecl* g) {
    auto state = global_state_[g];
    if (state == State::Done) return;
    if (state == State::InProgress) fail(g->name_range, "'" + g->name + "' depends on itself");
    global_state_[g] = State::InProgress;
    auto saved = fn_;
    fn_ = nullptr;
    struct Restore {
      Resolver* r;
      FunctionContext* f;
      ~Restore() { r->fn_ = f; }
    } restore{this, saved};
    try {
      resolve_global_inner(g);
    } catch (ResolveError&) {
      global_state_[g] = State::Done;
      failed_globals_.insert(g);
      throw;
    }
    global_state_[g] = State::Done;
  }

  void resolve_global_inner(const ast::VarDecl* g) {
    switch (g->kind) {
      case ast::DeclKind::Const: {
        if (!g->init) fail(g->range, "'const' declarations must have an initializer");
        for (const auto& a : g->attributes)
          fail(a.range, "attribute '@" + a.name + "' is not valid on const");
        const Type* t = value_type(expr_nonnull(*g->init));
        if (!I(*g->init).value) fail(g->init->range, "'const' initializer must be a constant expression");
        if (g->type) {
          t = type(*g->type);
          materialize(*g->init, t);
        }
        out_->global_consts[g] = *I(*g->init).value;
        return;
      }
      case ast::DeclKind::Override: {
        sem::Override ov;
        ov.decl = g;
        const Type* t = nullptr;
        if (g->type) t = type(*g->type);
        if (g->init) {
          const Type* it = value_type(expr_nonnull(*g->init));
          if (!t) t = T().concretize(it);
          if (I(*g->init).value) {
            materialize(*g->init, t);
            ov.default_value = I(*g->init).value;
          } else if (I(*g->init).override_expr) {
            if (it != t) {
              fail(g->init->range, "override initializer of type '" + to_string(it) + "' does not match '" +
                                       to_string(t) + "'");
            }
            if (!t->is_integer_scalar() && t->kind != TypeKind::Bool) {
              fail(g->init->range,
                   "override initializers that depend on other overrides must be integer or bool "
                   "(SPIR-V specialization-constant operations have no float arithmetic)");
            }
            ov.derived_from = g->init.get();
            ov.default_value = evaluate_default(*g->init);
            for (const auto& a : g->attributes) {
              if (a.name == "id")
                fail(a.range, "an override initialized from other overrides cannot have an @id");
            }
          } else {
            fail(g->init->range, "override initializer must be a constant or override expression");
          }
        }
        if (!t) fail(g->range, "override declaration requires a type or an initializer");
        if (!t->is_scalar() || t->is_abstract()) fail(g->range, "override type must be a concrete scalar");
        ov.type = t;
        bool has_id = false;
        for (const auto& a : g->attributes) {
          if (a.name == "id") {
            if (a.args.size() != 1) fail(a.range, "@id takes one argument");
            ov.spec_id = const_u32_arg(*a.args[0], "@id", 0);
            if (ov.spec_id > 65535) fail(a.range, "@id must be less than 65536");
            for (const auto& [d, o] : out_->overrides) {
              if (o.spec_id == ov.spec_id && explicit_ids_.count(d)) {
                fail(a.range, "@id(" + std::to_string(ov.spec_id) + ") is already used by '" + d->name + "'");
              }
            }
            has_id = true;
            explicit_ids_.insert(g);
          } else {
            fail(a.range, "attribute '@" + a.name + "' is not valid on override");
          }
        }
        if (!has_id && !ov.derived_from) {
          // Implicit ids follow Tint: the lowest ids not taken by an explicit @id, in declaration order.
          std::set<uint32_t> used;
          for (const auto& og : mod_.globals) {
            if (og->kind != ast::DeclKind::Override) continue;
            for (const auto& a : og->attributes) {
              if (a.name == "id" && a.args.size() == 1 && a.args[0]->kind == ExprKind::IntLiteral) {
                used.insert(static_cast<uint32_t>(a.args[0]->int_value));
              }
            }
          }
          for (const auto& [d, o] : out_->overrides) {
            if (!o.derived_from) used.insert(o.spec_id);
          }
          uint32_t id = 0;
          while (used.count(id)) ++id;
          ov.spec_id = id;
        }
        out_->overrides[g] = ov;
        return;
      }
      case ast::DeclKind::Var:
        break;
      case ast::DeclKind::Let:
        fail(g->range, "'let' is not allowed at module scope");
    }
    sem::GlobalVar gv;
    gv.decl = g;
    if (g->type && g->address_space && address_space_named(*g->address_space) != AddressSpace::Workgroup &&
        has_override_array(type(*g->type))) {
      fail(g->type->range, "override-sized arrays are only allowed as the type of workgroup variables");
    }
    if (!g->address_space)
      fail(g->range, "module-scope 'var' must declare an address space, e.g. var<private>");
    gv.address_space = address_space_named(*g->address_space);
    const AddressSpace as = gv.address_space;
    if (as == AddressSpace::Function)
      fail(g->address_space->range, "'function' address space is not allowed at module scope");
    const Type* t = g->type ? type(*g->type) : nullptr;
    if (g->access) {
      if (as != AddressSpace::Storage)
        fail(g->access->range, "only storage variables may declare an access mode");
      gv.access = access_named(*g->access);
      if (gv.access == Access::Write) fail(g->access->range, "storage variables cannot be write-only");
    } else {
      gv.access =
          as == AddressSpace::Storage || as == AddressSpace::Uniform ? Access::Read : Access::ReadWrite;
    }
    if (g->init) {
      if (as != AddressSpace::Private) {
        fail(g->init->range, std::string("variables in the '") + to_string(as) +
                                 "' address space cannot have an initializer");
      }
      const Type* it = value_type(expr_nonnull(*g->init));
      if (!I(*g->init).value) fail(g->init->range, "module-scope initializer must be a constant expression");
      if (!t) t = T().concretize(it);
      materialize(*g->init, t);
    }
    if (!t) fail(g->range, "variable declaration requires a type or an initializer");
    gv.store_type = t;
    for (const auto& a : g->attributes) {
      if (a.name == "group") {
        if (a.args.size() != 1) fail(a.range, "@group takes one argument");
        gv.group = const_u32_arg(*a.args[0], "@group", 0);
      } else if (a.name == "binding") {
        if (a.args.size() != 1) fail(a.range, "@binding takes one argument");
        gv.binding = const_u32_arg(*a.args[0], "@binding", 0);
      } else {
        fail(a.range, "attribute '@" + a.name + "' is not valid on a variable");
      }
    }
    const bool is_resource = as == AddressSpace::Storage || as == AddressSpace::Uniform;
    if (is_resource && (!gv.group || !gv.binding)) {
      fail(g->name_range, "resource variable '" + g->name + "' requires @group and @binding");
    }
    if (!is_resource && (gv.group || gv.binding)) {
      fail(g->name_range, "@group/@binding are only valid on resource variables");
    }
    if (as == AddressSpace::Storage) {
      if (!t->is_host_shareable())
        fail(g->range, "type '" + to_string(t) + "' is not host-shareable and cannot be used in 'storage'");
      if (t->contains_atomic() && gv.access != Access::ReadWrite) {
        fail(g->range, "atomic types in 'storage' require read_write access");
      }
    } else if (as == AddressSpace::Uniform) {
      if (!t->is_host_shareable() || !t->is_constructible() || t->contains_atomic()) {
        fail(g->range, "type '" + to_string(t) + "' cannot be used in the 'uniform' address space");
      }
      check_uniform_layout(t, g->range);
    } else if (as == AddressSpace::Workgroup) {
      if (t->has_runtime_array()) fail(g->range, "workgroup variables must have a fixed size");
      if (t->kind == TypeKind::Array && has_override_array(t->elem)) {
        fail(g->range, "only the outermost array of a workgroup variable may be sized by an override");
      }
      const bool override_sized = t->kind == TypeKind::Array && t->count_expr &&
                                  (t->elem->is_constructible() || t->elem->contains_atomic());
      if (!t->is_constructible() && !t->contains_atomic() && !override_sized) {
        fail(g->range, "type '" + to_string(t) + "' cannot be used in the 'workgroup' address space");
      }
    } else if (as == AddressSpace::Private) {
      if (!t->is_constructible())
        fail(g->range, "type '" + to_string(t) + "' cannot be used in the 'private' address space");
    }
    if (t->contains_atomic() && as != AddressSpace::Storage && as != AddressSpace::Workgroup) {
      fail(g->range, "atomic types are only allowed in 'storage' and 'workgroup' variables");
    }
    out_->globals[g] = gv;
  }

  // Uniform buffers need 16-byte aligned array strides and struct members (WGSL "uniform address space
  // layout").
  static bool has_override_array(const Type* t) {
    if (t->kind == TypeKind::Array) return t->count_expr != nullptr || has_override_array(t->elem);
    if (t->kind == TypeKind::Struct) {
      for (const auto& m : t->members) {
        if (has_override_array(m.type)) return true;
      }
    }
    return false;
  }

  void check_uniform_layout(const Type* t, SourceRange r) {
    if (t->kind == TypeKind::Array) {
      if (t->stride % 16 != 0) {
        fail(r, "uniform array '" + to_string(t) + "' has element stride " + std::to_string(t->stride) +
                    ", which must be a multiple of 16 (wrap the element in a struct with @align(16) or use "
                    "vec4)");
      }
      check_uniform_layout(t->elem, r);
    } else if (t->kind == TypeKind::Struct) {
      for (size_t i = 0; i < t->members.size(); ++i) {
        const auto& m = t->members[i];
        if (m.type->kind == TypeKind::Struct || m.type->kind == TypeKind::Array) {
          if (m.offset % 16 != 0) {
            fail(r, "uniform struct member '" + m.name + "' of type '" + to_string(m.type) + "' has offset " +
                        std::to_string(m.offset) + ", which must be a multiple of 16");
          }
          if (m.type->kind == TypeKind::Struct && i + 1 < t->members.size()) {
            uint32_t next = t->members[i + 1].offset;
            if (next - m.offset < round_up(16, m.type->size)) {
              fail(r, "uniform struct member '" + t->members[i + 1].name + "' must be at least " +
                          std::to_string(round_up(16, m.type->size)) + " bytes after the struct member '" +
                          m.name + "'");
            }
          }
        }
        check_uniform_layout(m.type, r);
      }
    }
  }

  void check_bindings() {
    // Two resources used by the same entry point must not share (group, binding).
    for (const auto& f : out_->functions) {
      if (!f.is_entry_point) continue;
      std::map<std::pair<uint32_t, uint32_t>, const ast::VarDecl*> seen;
      for (const ast::VarDecl* g : f.globals) {
        auto it = out_->globals.find(g);
        if (it == out_->globals.end() || !it->second.group) continue;
        auto key = std::make_pair(*it->second.group, *it->second.binding);
        auto [pos, inserted] = seen.emplace(key, g);
        if (!inserted) {
          diags_.error(g->range, "entry point '" + f.decl->name + "' uses @group(" +
                                     std::to_string(key.first) + ") @binding(" + std::to_string(key.second) +
                                     ") twice ('" + pos->second->name + "' and '" + g->name + "')");
        }
      }
    }
  }

  void const_assert(const Expr& e) {
    const Type* t = value_type(expr_nonnull(e));
    if (t->kind != TypeKind::Bool || !I(e).value)
      fail(e.range, "const_assert requires a constant bool expression");
    if (!I(e).value->i) fail(e.range, "const_assert failed");
  }

  // ------------------------------------------------------------------ functions
  sem::Function& resolve_function(const ast::Function* f) {
    auto state = fn_state_[f];
    if (state == State::Done) {
      auto it = out_->function_index.find(f);
      if (it == out_->function_index.end()) throw ResolveError{};  // failed earlier
      return out_->functions[it->second];
    }
    if (state == State::InProgress)
      fail(f->name_range, "recursion is not allowed: '" + f->name + "' calls itself");
    fn_state_[f] = State::InProgress;
    FunctionContext ctx;
    ctx.decl = f;
    sem::Function sf;
    sf.decl = f;
    ctx.sem = &sf;
    auto saved = fn_;
    fn_ = &ctx;
    bool ok = true;
    try {
      resolve_function_inner(f, sf, ctx);
    } catch (ResolveError&) {
      ok = false;
    }
    fn_ = saved;
    fn_state_[f] = State::Done;
    if (!ok || diags_.has_errors()) {
      // Keep going for more diagnostics but do not register a broken function.
      if (!ok) throw ResolveError{};
    }
    out_->function_index[f] = out_->functions.size();
    out_->functions.push_back(std::move(sf));
    return out_->functions.back();
  }

  void resolve_function_inner(const ast::Function* f, sem::Function& sf, FunctionContext& ctx) {
    if (sem::lookup_builtin(f->name) != BuiltinFn::None) {
      // Shadowing a built-in function is allowed (Gridwise's emulation relies on it).
    }
    bool is_compute = false;
    const ast::Attribute* wg_attr = nullptr;
    for (const auto& a : f->attributes) {
      if (a.name == "compute") {
        is_compute = true;
      } else if (a.name == "workgroup_size") {
        wg_attr = &a;
      } else if (a.name == "vertex" || a.name == "fragment") {
        fail(a.range, "only compute shaders are supported");
      } else if (a.name == "must_use" || a.name == "diagnostic") {
      } else {
        fail(a.range, "unknown function attribute '@" + a.name + "'");
      }
    }
    sf.is_entry_point = is_compute;
    if (wg_attr && !is_compute) fail(wg_attr->range, "@workgroup_size is only valid on @compute functions");
    if (is_compute) {
      if (!wg_attr) fail(f->name_range, "@compute function '" + f->name + "' requires @workgroup_size");
      if (wg_attr->args.empty() || wg_attr->args.size() > 3)
        fail(wg_attr->range, "@workgroup_size takes 1 to 3 arguments");
      uint64_t total = 1;
      const Type* dim_type = nullptr;
      for (size_t i = 0; i < wg_attr->args.size(); ++i) {
        const Expr& a = *wg_attr->args[i];
        const Type* t = value_type(expr_nonnull(a));
        if (!t->is_integer_scalar()) fail(a.range, "@workgroup_size arguments must be i32 or u32");
        if (!t->is_abstract()) {
          if (dim_type && dim_type != t)
            fail(a.range, "@workgroup_size arguments must all have the same type");
          dim_type = t;
        }
        if (I(a).symbol == SymbolKind::Override && !out_->overrides.at(I(a).var).derived_from) {
          const auto& ov = out_->overrides.at(I(a).var);
          sf.workgroup_size[i].override_decl = I(a).var;
          sf.workgroup_size[i].value = ov.default_value ? static_cast<uint32_t>(ov.default_value->i) : 1;
          sf.globals.insert(I(a).var);
        } else if (!I(a).value && I(a).override_expr) {
          std::optional<Value> v = evaluate_default(a);
          if (!v || v->i < 1) fail(a.range, "@workgroup_size arguments must be at least 1");
          sf.workgroup_size[i].override_expr = &a;
          sf.workgroup_size[i].value = static_cast<uint32_t>(v->i);
          collect_overrides(a, sf.globals);
        } else if (I(a).value) {
          int64_t v = I(a).value->i;
          if (v < 1) fail(a.range, "@workgroup_size arguments must be at least 1");
          if (v > 1024)
            fail(a.range, "@workgroup_size argument " + std::to_string(v) + " exceeds the limit 1024");
          sf.workgroup_size[i].value = static_cast<uint32_t>(v);
          materialize(a, dim_type ? dim_type : T().i32());
        } else {
          fail(a.range, "@workgroup_size arguments must be constants or override identifiers");
        }
        total *= sf.workgroup_size[i].value;
      }
      if (total > 1024) {
        fail(wg_attr->range,
             "workgroup size " + std::to_string(total) + " exceeds the limit of 1024 invocations");
      }
    }
    ctx.scopes.emplace_back();
    std::set<BuiltinValue> seen_builtins;
    for (size_t i = 0; i < f->params.size(); ++i) {
      const ast::Param& p = f->params[i];
      sem::Param sp;
      sp.decl = &p;
      sp.type = type(*p.type);
      for (const auto& a : p.attributes) {
        if (a.name == "builtin") {
          if (!is_compute) fail(a.range, "@builtin parameters are only valid on entry points");
          if (a.args.size() != 1 || a.args[0]->kind != ExprKind::Identifier)
            fail(a.range, "@builtin takes a builtin value name");
          sp.builtin = builtin_value(*a.args[0], sp.type);
          if (!seen_builtins.insert(*sp.builtin).second)
            fail(a.range, "duplicate @builtin(" + a.args[0]->name + ")");
        } else {
          fail(a.range, "attribute '@" + a.name + "' is not valid on a compute parameter");
        }
      }
      if (is_compute && !sp.builtin && sp.type->kind == TypeKind::Struct && sp.type->decl) {
        // An input struct: every member carries a @builtin.
        for (size_t m = 0; m < sp.type->members.size(); ++m) {
          const ast::StructMember& member = sp.type->decl->members[m];
          std::optional<BuiltinValue> b;
          for (const auto& a : member.attributes) {
            if (a.name == "builtin" && a.args.size() == 1 && a.args[0]->kind == ExprKind::Identifier) {
              b = builtin_value(*a.args[0], sp.type->members[m].type);
              if (!seen_builtins.insert(*b).second)
                fail(a.range, "duplicate @builtin(" + a.args[0]->name + ")");
            }
          }
          if (!b) {
            fail(member.range, "member '" + member.name + "' of entry-point input struct '" + sp.type->name +
                                   "' must have a @builtin attribute");
          }
          sp.member_builtins.push_back(*b);
        }
        sp.builtin = sp.member_builtins.front();  // marks the parameter as an input; members carry the values
      }
      if (is_compute && !sp.builtin) {
        fail(p.range, "entry-point parameter '" + p.name + "' must have a @builtin attribute");
      }
      if (sp.type->kind == TypeKind::Pointer) {
        AddressSpace as = sp.type->address_space;
        if (as != AddressSpace::Function && as != AddressSpace::Private && as != AddressSpace::Workgroup) {
          fail(p.range, std::string("pointer parameters in the '") + to_string(as) +
                            "' address space require the unrestricted_pointer_parameters language feature, "
                            "which is not supported");
        }
      } else if (!sp.type->is_constructible()) {
        fail(p.range, "parameter type '" + to_string(sp.type) + "' is not constructible");
      }
      declare_local(p.name, p.range, {Symbol::Param, &p});
      ctx.param_index[&p] = i;
      sf.params.push_back(sp);
    }
    sf.return_type = f->return_type ? type(*f->return_type) : T().void_type();
    if (is_compute && sf.return_type->kind != TypeKind::Void)
      fail(f->return_type->range, "compute entry points must not return a value");
    if (sf.return_type->kind != TypeKind::Void && !sf.return_type->is_constructible()) {
      fail(f->return_type->range, "return type '" + to_string(sf.return_type) + "' is not constructible");
    }
    const size_t errors_before_body = diags_.error_count();
    block(*f->body, /*new_scope=*/false);
    if (sf.return_type->kind != TypeKind::Void && !returns(*f->body)) {
      SourceLocation closing = f->body->range.end;
      if (closing.column > 1) --closing.column;  // the closing brace
      diags_.error(SourceRange{closing, closing}, "missing return at the end of function '" + f->name + "'");
    }
    // Transitive facts from callees.
    for (const ast::Function* c : sf.callees) {
      auto it = out_->function_index.find(c);
      if (it == out_->function_index.end()) continue;
      const sem::Function& cf = out_->functions[it->second];
      sf.globals.insert(cf.globals.begin(), cf.globals.end());
      sf.requires_uniformity |= cf.requires_uniformity;
      sf.uses_subgroups |= cf.uses_subgroups;
    }
    // The analysis walks resolved expressions only: skip it when the body had errors (already reported).
    if (diags_.error_count() == errors_before_body) analyze_uniformity(sf);
  }

  BuiltinValue builtin_value(const Expr& name, const Type* t) {
    const std::string& n = name.name;
    const Type* u3 = T().vector(T().u32(), 3);
    auto check = [&](BuiltinValue b, const Type* expected) {
      if (t != expected) {
        fail(name.range,
             "@builtin(" + n + ") must have type '" + to_string(expected) + "', not '" + to_string(t) + "'");
      }
      return b;
    };
    if (n == "global_invocation_id") return check(BuiltinValue::GlobalInvocationId, u3);
    if (n == "local_invocation_id") return check(BuiltinValue::LocalInvocationId, u3);
    if (n == "local_invocation_index") return check(BuiltinValue::LocalInvocationIndex, T().u32());
    if (n == "workgroup_id") return check(BuiltinValue::WorkgroupId, u3);
    if (n == "num_workgroups") return check(BuiltinValue::NumWorkgroups, u3);
    if (n == "subgroup_size" || n == "subgroup_invocation_id") {
      if (!out_->enable_subgroups) fail(name.range, "@builtin(" + n + ") requires 'enable subgroups;'");
      fn_->sem->uses_subgroups = true;
      return check(n == "subgroup_size" ? BuiltinValue::SubgroupSize : BuiltinValue::SubgroupInvocationId,
                   T().u32());
    }
    fail(name.range, "'" + n + "' is not a compute shader builtin value");
  }

  // Conservative "always returns" check (WGSL behavior analysis, simplified).
  bool returns(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Return:
        return true;
      case StmtKind::Block:
        for (const auto& c : s.statements) {
          if (returns(*c)) return true;
        }
        return false;
      case StmtKind::If:
        return s.else_branch && returns(*s.body) && returns(*s.else_branch);
      case StmtKind::Switch:
        for (const auto& c : s.cases) {
          if (!returns(*c.body)) return false;
        }
        return true;
      case StmtKind::Loop:
        return !contains_break(*s.body) && !(s.continuing && contains_break(*s.continuing));
      default:
        return false;
    }
  }
  // A `break` that leaves the loop whose body is `s` (not nested loops or switches).
  bool contains_break(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Break:
      case StmtKind::BreakIf:
        return true;
      case StmtKind::Block:
        for (const auto& c : s.statements) {
          if (contains_break(*c)) return true;
        }
        return false;
      case StmtKind::If:
        return contains_break(*s.body) || (s.else_branch && contains_break(*s.else_branch));
      default:
        return false;
    }
  }

  // ------------------------------------------------------------------ statements
  void block(const Stmt& b, bool new_scope = true) {
    if (new_scope) fn_->scopes.emplace_back();
    for (const auto& s : b.statements) {
      try {
        statement(*s);
      } catch (ResolveError&) {
      }
    }
    if (new_scope) fn_->scopes.pop_back();
  }

  void statement(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Block:
        block(s);
        return;
      case StmtKind::Decl:
        local_decl(*s.decl);
        return;
      case StmtKind::Assign:
        assignment(s);
        return;
      case StmtKind::CompoundAssign:
        compound_assignment(s);
        return;
      case StmtKind::Increment:
      case StmtKind::Decrement: {
        const Type* t = expr_nonnull(*s.lhs);
        if (t->kind != TypeKind::Reference)
          fail(s.lhs->range, "cannot modify a value that is not a reference");
        check_writable(t, s.lhs->range);
        if (t->elem->kind != TypeKind::I32 && t->elem->kind != TypeKind::U32) {
          fail(s.range,
               std::string(s.kind == StmtKind::Increment ? "++" : "--") + " requires an i32 or u32 variable");
        }
        return;
      }
      case StmtKind::Call: {
        const Type* t = expr_nonnull(*s.expr);
        const sem::ExprInfo& info = I(*s.expr);
        if (info.call == CallKind::Constructor || info.call == CallKind::Conversion ||
            info.call == CallKind::ZeroValue) {
          fail(s.range, "value constructor '" + to_string(t) + "' cannot be used as a statement");
        }
        if (info.call == CallKind::Builtin && t->kind != TypeKind::Void &&
            info.builtin != BuiltinFn::AtomicAdd && info.builtin != BuiltinFn::AtomicSub &&
            info.builtin != BuiltinFn::AtomicMax && info.builtin != BuiltinFn::AtomicMin &&
            info.builtin != BuiltinFn::AtomicAnd && info.builtin != BuiltinFn::AtomicOr &&
            info.builtin != BuiltinFn::AtomicXor && info.builtin != BuiltinFn::AtomicExchange &&
            info.builtin != BuiltinFn::AtomicCompareExchangeWeak) {
          fail(s.range, std::string("the result of '") + sem::to_string(info.builtin) + "' must be used");
        }
        return;
      }
      case StmtKind::If: {
        condition(*s.expr, "if");
        block(*s.body);
        if (s.else_branch) statement(*s.else_branch);
        return;
      }
      case StmtKind::Switch:
        switch_statement(s);
        return;
      case StmtKind::Loop: {
        fn_->breakable_is_loop.push_back(true);
        ++fn_->loop_depth;
        fn_->scopes.emplace_back();  // continuing sees the body's declarations
        for (const auto& st : s.body->statements) {
          try {
            statement(*st);
          } catch (ResolveError&) {
          }
        }
        if (s.continuing) {
          ++fn_->continuing_depth;
          fn_->scopes.emplace_back();
          for (const auto& st : s.continuing->statements) {
            try {
              if (st->kind == StmtKind::BreakIf) {
                condition(*st->expr, "break if");
              } else {
                statement(*st);
              }
            } catch (ResolveError&) {
            }
          }
          fn_->scopes.pop_back();
          --fn_->continuing_depth;
        }
        fn_->scopes.pop_back();
        --fn_->loop_depth;
        fn_->breakable_is_loop.pop_back();
        return;
      }
      case StmtKind::For: {
        fn_->scopes.emplace_back();
        try {
          if (s.init) statement(*s.init);
          if (s.expr) condition(*s.expr, "for");
          if (s.update) {
            if (s.update->kind == StmtKind::Decl)
              fail(s.update->range, "for-loop update cannot be a declaration");
            statement(*s.update);
          }
        } catch (ResolveError&) {
        }
        fn_->breakable_is_loop.push_back(true);
        ++fn_->loop_depth;
        block(*s.body);
        --fn_->loop_depth;
        fn_->breakable_is_loop.pop_back();
        fn_->scopes.pop_back();
        return;
      }
      case StmtKind::While: {
        condition(*s.expr, "while");
        fn_->breakable_is_loop.push_back(true);
        ++fn_->loop_depth;
        block(*s.body);
        --fn_->loop_depth;
        fn_->breakable_is_loop.pop_back();
        return;
      }
      case StmtKind::Break:
        if (fn_->breakable_is_loop.empty()) fail(s.range, "'break' must be inside a loop or switch");
        if (fn_->continuing_depth > 0 && fn_->breakable_is_loop.back()) {
          fail(s.range, "'break' is not allowed in a continuing block; use 'break if'");
        }
        return;
      case StmtKind::BreakIf:
        fail(s.range, "'break if' is only allowed at the end of a continuing block");
      case StmtKind::Continue:
        if (fn_->loop_depth == 0) fail(s.range, "'continue' must be inside a loop");
        if (fn_->continuing_depth > 0) fail(s.range, "'continue' is not allowed in a continuing block");
        return;
      case StmtKind::Return: {
        if (fn_->continuing_depth > 0) fail(s.range, "'return' is not allowed in a continuing block");
        const Type* rt = fn_->sem->return_type;
        if (!s.expr) {
          if (rt->kind != TypeKind::Void)
            fail(s.range, "missing return value of type '" + to_string(rt) + "'");
          return;
        }
        if (rt->kind == TypeKind::Void)
          fail(s.expr->range, "function '" + fn_->decl->name + "' does not return a value");
        value_expr(*s.expr);
        materialize(*s.expr, rt);
        return;
      }
      case StmtKind::ConstAssert:
        const_assert(*s.expr);
        return;
      case StmtKind::Discard:
        fail(s.range, "'discard' is only allowed in fragment shaders");
    }
  }

  void condition(const Expr& e, const char* what) {
    const Type* t = value_expr(e);
    if (t->kind != TypeKind::Bool)
      fail(e.range, std::string(what) + " condition must be bool, not '" + to_string(t) + "'");
  }

  void switch_statement(const Stmt& s) {
    const Type* t = value_expr(*s.expr);
    if (!t->is_integer_scalar())
      fail(s.expr->range, "switch selector must be i32 or u32, not '" + to_string(t) + "'");
    // The selector and all case values unify to one integer type.
    const Type* common = t->is_abstract() ? nullptr : t;
    for (const auto& c : s.cases) {
      for (const auto& sel : c.selectors) {
        if (!sel) continue;
        const Type* st = value_expr(*sel);
        if (!I(*sel).value || !st->is_integer_scalar())
          fail(sel->range, "case selector must be a constant integer expression");
        if (!st->is_abstract()) {
          if (common && common != st)
            fail(sel->range,
                 "case selector type '" + to_string(st) + "' does not match '" + to_string(common) + "'");
          common = st;
        }
      }
    }
    if (!common) common = T().i32();
    materialize(*s.expr, common);
    std::set<int64_t> values;
    int defaults = 0;
    for (const auto& c : s.cases) {
      for (const auto& sel : c.selectors) {
        if (!sel) {
          ++defaults;
          continue;
        }
        materialize(*sel, common);
        if (!values.insert(I(*sel).value->i).second) {
          fail(sel->range, "duplicate case selector " + std::to_string(I(*sel).value->i));
        }
      }
    }
    if (defaults != 1)
      fail(s.range,
           defaults == 0 ? "switch must have a default clause" : "switch has more than one default clause");
    fn_->breakable_is_loop.push_back(false);
    ++fn_->switch_depth;
    for (const auto& c : s.cases) block(*c.body);
    --fn_->switch_depth;
    fn_->breakable_is_loop.pop_back();
  }

  void local_decl(const ast::VarDecl& d) {
    for (const auto& a : d.attributes) fail(a.range, "attribute '@" + a.name + "' is not valid here");
    const Type* declared = d.type ? type(*d.type) : nullptr;
    switch (d.kind) {
      case ast::DeclKind::Const: {
        if (!d.init) fail(d.range, "'const' declarations must have an initializer");
        value_expr(*d.init);
        if (!I(*d.init).value) fail(d.init->range, "'const' initializer must be a constant expression");
        if (declared) materialize(*d.init, declared);
        out_->local_types[&d] = I(*d.init).type;
        declare_local(d.name, d.name_range, {Symbol::LocalConst, &d});
        return;
      }
      case ast::DeclKind::Let: {
        if (!d.init) fail(d.range, "'let' declarations must have an initializer");
        const Type* t = value_expr(*d.init);
        if (declared) {
          materialize(*d.init, declared);
          t = declared;
        } else {
          t = T().concretize(t);
          materialize(*d.init, t);
        }
        if (!t->is_constructible() && t->kind != TypeKind::Pointer) {
          fail(d.range, "'let' cannot hold a value of type '" + to_string(t) + "'");
        }
        out_->local_types[&d] = t;
        declare_local(d.name, d.name_range, {Symbol::LocalLet, &d});
        return;
      }
      case ast::DeclKind::Var: {
        if (d.address_space) {
          AddressSpace as = address_space_named(*d.address_space);
          if (as != AddressSpace::Function) {
            fail(d.address_space->range,
                 std::string("function-scope variables must be in the 'function' address space, not '") +
                     to_string(as) + "'");
          }
        }
        if (d.access) fail(d.access->range, "function-scope variables cannot declare an access mode");
        const Type* t = declared;
        if (d.init) {
          const Type* it = value_expr(*d.init);
          if (!t) t = T().concretize(it);
          materialize(*d.init, t);
        }
        if (!t) fail(d.range, "variable declaration requires a type or an initializer");
        if (!t->is_constructible())
          fail(d.range, "function-scope variable type '" + to_string(t) + "' is not constructible");
        out_->local_types[&d] = t;
        declare_local(d.name, d.name_range, {Symbol::LocalVar, &d});
        return;
      }
      case ast::DeclKind::Override:
        fail(d.range, "'override' is only allowed at module scope");
    }
  }

  void check_writable(const Type* ref, SourceRange r) {
    if (ref->access == Access::Read) {
      fail(r, std::string("cannot write to a read-only ") + to_string(ref->address_space) + " variable");
    }
  }

  void assignment(const Stmt& s) {
    if (!s.lhs) {  // phony
      const Type* t = value_expr(*s.expr);
      if (t->is_abstract()) materialize(*s.expr, T().concretize(t));
      return;
    }
    const Type* lt = expr_nonnull(*s.lhs);
    if (lt->kind != TypeKind::Reference)
      fail(s.lhs->range, "cannot assign to a value; the left side must be a variable or memory location");
    check_writable(lt, s.lhs->range);
    if (lt->elem->contains_atomic()) fail(s.lhs->range, "cannot assign to an atomic; use atomicStore");
    if (!lt->elem->is_constructible())
      fail(s.lhs->range, "cannot assign a value of type '" + to_string(lt->elem) + "'");
    value_expr(*s.expr);
    materialize(*s.expr, lt->elem);
  }

  void compound_assignment(const Stmt& s) {
    const Type* lt = expr_nonnull(*s.lhs);
    if (lt->kind != TypeKind::Reference) fail(s.lhs->range, "cannot assign to a value");
    check_writable(lt, s.lhs->range);
    value_expr(*s.expr);
    const Type* result =
        binary_type(s.op, lt->elem, value_type(I(*s.expr).type), nullptr, s.expr.get(), s.range);
    if (result != lt->elem) {
      fail(s.range, "result of compound assignment '" + to_string(result) + "' does not match '" +
                        to_string(lt->elem) + "'");
    }
  }

  // ------------------------------------------------------------------ expressions
  const Type* expr_nonnull(const Expr& e) {
    const Type* t = expr(e);
    if (!t) throw ResolveError{};
    return t;
  }

  // Resolves `e` and applies the load rule; rejects non-values.
  const Type* value_expr(const Expr& e) {
    const Type* t = expr_nonnull(e);
    if (t->kind == TypeKind::Reference) {
      if (t->elem->contains_atomic()) fail(e.range, "cannot load an atomic value; use atomicLoad");
      if (t->access == Access::Write) fail(e.range, "cannot read from a write-only variable");
      if (t->elem->has_runtime_array()) fail(e.range, "cannot load a runtime-sized array");
      return t->elem;
    }
    if (t->kind == TypeKind::Void) fail(e.range, "function call does not return a value");
    return t;
  }

  // Implicitly converts an abstract expression to `target` (same shape); concrete types must match exactly.
  void materialize(const Expr& e, const Type* target) {
    sem::ExprInfo& info = I(e);
    const Type* t = value_type(info.type);
    if (t == target) return;
    if (t->kind == TypeKind::Reference) t = t->elem;
    if (!t->is_abstract() || !convertible(t, target)) {
      fail(e.range, "cannot use a value of type '" + to_string(t) + "' as '" + to_string(target) + "'");
    }
    if (!info.value) fail(e.range, "internal: abstract expression without a value");
    const_eval::Result r = const_eval::materialize(T(), *info.value, target);
    if (!r.value) fail(e.range, r.error);
    info.value = std::move(*r.value);
    info.type = target;
  }

  // Abstract type `from` converts implicitly to `to`.
  bool convertible(const Type* from, const Type* to) {
    if (from == to) return true;
    if (from->kind != to->kind) {
      if (from->kind == TypeKind::AbstractInt) {
        return to->kind == TypeKind::I32 || to->kind == TypeKind::U32 || to->kind == TypeKind::F32 ||
               to->kind == TypeKind::F16 || to->kind == TypeKind::AbstractFloat;
      }
      if (from->kind == TypeKind::AbstractFloat)
        return to->kind == TypeKind::F32 || to->kind == TypeKind::F16;
      return false;
    }
    switch (from->kind) {
      case TypeKind::Vector:
      case TypeKind::Matrix:
        return from->count == to->count && convertible(from->elem, to->elem);
      case TypeKind::Array:
        return from->count == to->count && convertible(from->elem, to->elem);
      default:
        return false;
    }
  }

  // Common leaf scalar of a set of scalar types (abstract ones converting to the concrete one).
  const Type* common_scalar(const std::vector<const Type*>& scalars, SourceRange r) {
    const Type* concrete = nullptr;
    bool any_float = false;
    for (const Type* s : scalars) {
      if (!s->is_abstract()) {
        if (concrete && concrete != s) {
          fail(r, "mismatched types '" + to_string(concrete) + "' and '" + to_string(s) + "'");
        }
        concrete = s;
      } else if (s->kind == TypeKind::AbstractFloat) {
        any_float = true;
      }
    }
    if (concrete) {
      for (const Type* s : scalars) {
        if (s->is_abstract() && !convertible(s, concrete)) {
          fail(r, "cannot convert '" + to_string(s) + "' to '" + to_string(concrete) + "'");
        }
      }
      return concrete;
    }
    return any_float ? T().abstract_float() : T().abstract_int();
  }

  const Type* expr(const Expr& e) {
    sem::ExprInfo& info = I(e);
    if (info.type) return info.type;
    const Type* t = nullptr;
    switch (e.kind) {
      case ExprKind::IntLiteral:
        t = int_literal(e);
        break;
      case ExprKind::FloatLiteral:
        t = float_literal(e);
        break;
      case ExprKind::BoolLiteral:
        t = T().bool_type();
        I(e).value = const_eval::scalar_bool(t, e.bool_value);
        break;
      case ExprKind::Identifier:
        t = identifier(e);
        break;
      case ExprKind::Call:
        t = call(e);
        break;
      case ExprKind::Index:
        t = index(e);
        break;
      case ExprKind::Member:
        t = member(e);
        break;
      case ExprKind::Unary:
        t = unary(e);
        break;
      case ExprKind::Binary:
        t = binary(e);
        break;
    }
    I(e).type = t;
    mark_override_expr(e);
    return t;
  }

  // An expression built only from constants and overrides (no memory, no user calls) is an
  // override-expression.
  void mark_override_expr(const Expr& e) {
    sem::ExprInfo& info = I(e);
    if (info.value) return;
    if (e.kind == ExprKind::Identifier) {
      info.override_expr = info.symbol == SymbolKind::Override;
      return;
    }
    std::vector<const Expr*> operands;
    switch (e.kind) {
      case ExprKind::Unary:
        if (e.unary_op == UnaryOp::AddressOf || e.unary_op == UnaryOp::Deref) return;
        operands = {e.lhs.get()};
        break;
      case ExprKind::Binary:
        operands = {e.lhs.get(), e.rhs.get()};
        break;
      case ExprKind::Call:
        if (info.call != CallKind::Conversion &&
            !(info.call == CallKind::Builtin && const_eval::is_const_builtin(info.builtin))) {
          return;
        }
        for (const auto& a : e.args) operands.push_back(a.get());
        break;
      default:
        return;
    }
    bool any = false;
    for (const Expr* o : operands) {
      const sem::ExprInfo& oi = I(*o);
      if (!oi.value && !oi.override_expr) return;
      any = any || oi.override_expr;
    }
    info.override_expr = any;
  }

  // The value of an override-expression with every override at its default.
  std::optional<Value> evaluate_default(const Expr& e) {
    const sem::ExprInfo& info = I(e);
    if (info.value) return info.value;
    const Type* t = value_type(info.type);
    switch (e.kind) {
      case ExprKind::Identifier:
        if (info.symbol == SymbolKind::Override) return out_->overrides.at(info.var).default_value;
        return std::nullopt;
      case ExprKind::Unary: {
        auto v = evaluate_default(*e.lhs);
        if (!v) return std::nullopt;
        return const_eval::unary(T(), e.unary_op, *v, t).value;
      }
      case ExprKind::Binary: {
        auto l = evaluate_default(*e.lhs);
        auto r = evaluate_default(*e.rhs);
        if (!l || !r) return std::nullopt;
        return const_eval::binary(T(), e.binary_op, *l, *r, t).value;
      }
      case ExprKind::Call: {
        std::vector<Value> args;
        for (const auto& a : e.args) {
          auto v = evaluate_default(*a);
          if (!v) return std::nullopt;
          args.push_back(*v);
        }
        if (info.call == CallKind::Conversion) return const_eval::convert(T(), args[0], t).value;
        if (info.call == CallKind::Builtin) return const_eval::builtin(T(), info.builtin, args, t).value;
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  }

  void collect_overrides(const Expr& e, std::set<const ast::VarDecl*>& out) {
    const sem::ExprInfo& info = I(e);
    if (info.value) return;
    if (e.kind == ExprKind::Identifier && info.symbol == SymbolKind::Override) {
      if (!out.insert(info.var).second) return;  // already collected (with what it derives from)
      const sem::Override& ov = out_->overrides.at(info.var);
      if (ov.derived_from) collect_overrides(*ov.derived_from, out);
      return;
    }
    if (e.lhs) collect_overrides(*e.lhs, out);
    if (e.rhs) collect_overrides(*e.rhs, out);
    for (const auto& a : e.args) collect_overrides(*a, out);
  }

  const Type* int_literal(const Expr& e) {
    const Type* t = e.suffix == 'i' ? T().i32() : e.suffix == 'u' ? T().u32() : T().abstract_int();
    if (e.int_overflow || e.int_value > static_cast<uint64_t>(INT64_MAX) ||
        (t->kind == TypeKind::I32 && e.int_value > INT32_MAX) ||
        (t->kind == TypeKind::U32 && e.int_value > UINT32_MAX)) {
      // -2147483648i is written as a negation of 2147483648i, which the spec rejects too.
      fail(e.range, "integer literal is out of range for '" + to_string(t) + "'");
    }
    I(e).value = const_eval::scalar_int(t, static_cast<int64_t>(e.int_value));
    return t;
  }

  const Type* float_literal(const Expr& e) {
    const Type* t = e.suffix == 'f' ? T().f32() : e.suffix == 'h' ? T().f16() : T().abstract_float();
    if (t->kind == TypeKind::F16 && !out_->enable_f16) fail(e.range, "f16 literals require 'enable f16;'");
    const_eval::Result r =
        const_eval::materialize(T(), const_eval::scalar_float(T().abstract_float(), e.float_value), t);
    if (t->kind == TypeKind::AbstractFloat)
      r = const_eval::Result::ok(const_eval::scalar_float(t, e.float_value));
    if (!r.value || !std::isfinite(e.float_value))
      fail(e.range, "float literal is out of range for '" + to_string(t) + "'");
    I(e).value = *r.value;
    return t;
  }

  const Type* identifier(const Expr& e) {
    sem::ExprInfo& info = I(e);
    const Symbol* s = lookup(e.name);
    if (!s) {
      if (try_type(e)) fail(e.range, "type '" + e.name + "' cannot be used as a value");
      if (sem::lookup_builtin(e.name) != BuiltinFn::None)
        fail(e.range, "built-in function '" + e.name + "' must be called");
      fail(e.range, "unresolved identifier '" + e.name + "'" + suggestion(e.name, NameKind::Value));
    }
    if (!e.template_args.empty()) fail(e.range, "'" + e.name + "' does not take template arguments");
    switch (s->kind) {
      case Symbol::Struct:
      case Symbol::Alias:
        fail(e.range, "type '" + e.name + "' cannot be used as a value");
      case Symbol::Function:
        fail(e.range, "function '" + e.name + "' must be called");
      case Symbol::GlobalConst: {
        auto* d = static_cast<const ast::VarDecl*>(s->node);
        resolve_global(d);
        if (failed_globals_.count(d)) throw ResolveError{};
        info.symbol = SymbolKind::GlobalConst;
        info.var = d;
        info.value = out_->global_consts.at(d);
        return info.value->type;
      }
      case Symbol::Override: {
        auto* d = static_cast<const ast::VarDecl*>(s->node);
        resolve_global(d);
        if (failed_globals_.count(d)) throw ResolveError{};
        info.symbol = SymbolKind::Override;
        info.var = d;
        if (fn_) {
          fn_->sem->globals.insert(d);
          if (const ast::Expr* from = out_->overrides.at(d).derived_from)
            collect_overrides(*from, fn_->sem->globals);
        }
        return out_->overrides.at(d).type;
      }
      case Symbol::GlobalVar: {
        auto* d = static_cast<const ast::VarDecl*>(s->node);
        resolve_global(d);
        if (failed_globals_.count(d)) throw ResolveError{};
        if (!fn_)
          fail(e.range, "module-scope variable '" + e.name + "' cannot be used in a constant expression");
        info.symbol = SymbolKind::GlobalVar;
        info.var = d;
        fn_->sem->globals.insert(d);
        const auto& gv = out_->globals.at(d);
        return T().reference(gv.store_type, gv.address_space, gv.access);
      }
      case Symbol::LocalVar: {
        auto* d = static_cast<const ast::VarDecl*>(s->node);
        info.symbol = SymbolKind::LocalVar;
        info.var = d;
        return T().reference(out_->local_types.at(d), AddressSpace::Function, Access::ReadWrite);
      }
      case Symbol::LocalLet: {
        auto* d = static_cast<const ast::VarDecl*>(s->node);
        info.symbol = SymbolKind::LocalLet;
        info.var = d;
        return out_->local_types.at(d);
      }
      case Symbol::LocalConst: {
        auto* d = static_cast<const ast::VarDecl*>(s->node);
        info.symbol = SymbolKind::LocalConst;
        info.var = d;
        info.value = I(*d->init).value;
        return info.value->type;
      }
      case Symbol::Param: {
        auto* p = static_cast<const ast::Param*>(s->node);
        info.symbol = SymbolKind::Param;
        info.param = p;
        return fn_->sem->params[fn_->param_index.at(p)].type;
      }
    }
    fail(e.range, "unresolved identifier '" + e.name + "'");
  }

  const Type* unary(const Expr& e) {
    const Expr& operand = *e.lhs;
    if (e.unary_op == UnaryOp::AddressOf) {
      const Type* t = expr_nonnull(operand);
      if (t->kind != TypeKind::Reference) fail(e.range, "cannot take the address of a value");
      if (operand.kind == ExprKind::Member && !I(operand).swizzle.empty()) {
        fail(e.range, "cannot take the address of a vector component");
      }
      if (operand.kind == ExprKind::Index &&
          value_type(expr_nonnull(*operand.lhs))->kind == TypeKind::Vector) {
        fail(e.range, "cannot take the address of a vector component");
      }
      return T().pointer(t->elem, t->address_space, t->access);
    }
    if (e.unary_op == UnaryOp::Deref) {
      const Type* t = expr_nonnull(operand);
      if (t->kind != TypeKind::Pointer)
        fail(e.range, "cannot dereference a value of type '" + to_string(value_type(t)) + "'");
      return T().reference(t->elem, t->address_space, t->access);
    }
    const Type* t = value_expr(operand);
    const Type* s = t->scalar();
    switch (e.unary_op) {
      case UnaryOp::Negate:
        if (!s || !s->is_numeric_scalar() || s->kind == TypeKind::U32)
          fail(e.range, "cannot negate a value of type '" + to_string(t) + "'");
        break;
      case UnaryOp::Not:
        if (!s || s->kind != TypeKind::Bool)
          fail(e.range, "'!' requires a bool operand, not '" + to_string(t) + "'");
        break;
      case UnaryOp::Complement:
        if (!s || !s->is_integer_scalar())
          fail(e.range, "'~' requires an integer operand, not '" + to_string(t) + "'");
        break;
      default:
        break;
    }
    if (t->kind == TypeKind::Matrix && e.unary_op != UnaryOp::Negate)
      fail(e.range, "invalid matrix operation");
    if (I(operand).value) {
      const_eval::Result r = const_eval::unary(T(), e.unary_op, *I(operand).value, t);
      if (!r.value && !r.error.empty()) fail(e.range, r.error);
      if (r.value) I(e).value = std::move(*r.value);
    }
    return t;
  }

  const Type* binary(const Expr& e) {
    const Type* lt = value_expr(*e.lhs);
    const Type* rt = value_expr(*e.rhs);
    const Type* t = binary_type(e.binary_op, lt, rt, e.lhs.get(), e.rhs.get(), e.range);
    const auto& lv = I(*e.lhs).value;
    const auto& rv = I(*e.rhs).value;
    if (lv && rv) {
      const_eval::Result r = const_eval::binary(T(), e.binary_op, *lv, *rv, t);
      if (!r.value && !r.error.empty()) fail(e.range, r.error);
      if (r.value) {
        I(e).value = std::move(*r.value);
        return t;
      }
    }
    // A runtime expression: abstract operands become concrete.
    if (t->is_abstract()) {
      concretize_operand(*e.lhs);
      concretize_operand(*e.rhs);
      return binary_type(e.binary_op, value_type(I(*e.lhs).type), value_type(I(*e.rhs).type), nullptr,
                         nullptr, e.range);
    }
    return t;
  }

  void concretize_operand(const Expr& e) {
    const Type* t = value_type(I(e).type);
    if (t->is_abstract()) materialize(e, T().concretize(t));
  }

  // Types a binary operation and materializes abstract operands (when given) to the operand types it needs.
  const Type* binary_type(BinaryOp op, const Type* lt, const Type* rt, const Expr* le, const Expr* re,
                          SourceRange r) {
    auto bad = [&]() -> const Type* {
      fail(r, std::string("no operator '") + ast::to_string(op) + "' for '" + to_string(lt) + "' and '" +
                  to_string(rt) + "'");
    };
    const Type* ls = lt->scalar();
    const Type* rs = rt->scalar();
    if (!ls || !rs) bad();
    auto mat = [&](const Expr* e, const Type* target) {
      if (e) materialize(*e, target);
    };
    switch (op) {
      case BinaryOp::LogicalAnd:
      case BinaryOp::LogicalOr:
        if (lt->kind != TypeKind::Bool || rt->kind != TypeKind::Bool) bad();
        return T().bool_type();
      case BinaryOp::ShiftLeft:
      case BinaryOp::ShiftRight: {
        if (!ls->is_integer_scalar() || !rs->is_integer_scalar()) bad();
        if ((lt->kind == TypeKind::Vector) != (rt->kind == TypeKind::Vector) ||
            (lt->kind == TypeKind::Vector && lt->count != rt->count)) {
          bad();
        }
        if (!rs->is_abstract() && rs->kind != TypeKind::U32)
          fail(r, "shift amount must be u32, not '" + to_string(rt) + "'");
        mat(re, T().with_scalar(rt, T().u32()));
        if (ls->is_abstract() && !(le && re && I(*le).value && I(*re).value)) {
          const Type* c = T().concretize(lt);
          mat(le, c);
          return c;
        }
        return lt;
      }
      default:
        break;
    }
    const bool is_compare = op == BinaryOp::Equal || op == BinaryOp::NotEqual || op == BinaryOp::Less ||
                            op == BinaryOp::LessEqual || op == BinaryOp::Greater ||
                            op == BinaryOp::GreaterEqual;
    const bool is_bitwise = op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor;
    // Matrix arithmetic.
    if (lt->kind == TypeKind::Matrix || rt->kind == TypeKind::Matrix) {
      if (is_compare || is_bitwise || op == BinaryOp::Div || op == BinaryOp::Mod) bad();
      const Type* s = common_scalar({ls, rs}, r);
      if (!s->is_float_scalar()) bad();
      if (s->is_abstract()) s = T().f32();
      const Type* l2 = T().with_scalar(lt, s);
      const Type* r2 = T().with_scalar(rt, s);
      if (op == BinaryOp::Add || op == BinaryOp::Sub) {
        if (l2 != r2) bad();
        mat(le, l2), mat(re, r2);
        return l2;
      }
      // Mul
      const Type* result = nullptr;
      if (l2->kind == TypeKind::Matrix && r2->is_scalar())
        result = l2;
      else if (l2->is_scalar() && r2->kind == TypeKind::Matrix)
        result = r2;
      else if (l2->kind == TypeKind::Matrix && r2->kind == TypeKind::Vector && l2->count == r2->count)
        result = l2->elem;
      else if (l2->kind == TypeKind::Vector && r2->kind == TypeKind::Matrix && l2->count == r2->elem->count)
        result = T().vector(s, r2->count);
      else if (l2->kind == TypeKind::Matrix && r2->kind == TypeKind::Matrix && l2->count == r2->elem->count)
        result = T().matrix(s, r2->count, l2->elem->count);
      if (!result) bad();
      mat(le, l2), mat(re, r2);
      return result;
    }
    if (lt->kind != TypeKind::Vector && !lt->is_scalar()) bad();
    if (rt->kind != TypeKind::Vector && !rt->is_scalar()) bad();
    if (lt->kind == TypeKind::Vector && rt->kind == TypeKind::Vector && lt->count != rt->count) bad();
    const Type* s = common_scalar({ls, rs}, r);
    uint32_t width = lt->kind == TypeKind::Vector ? lt->count : rt->kind == TypeKind::Vector ? rt->count : 0;
    // Comparisons and bitwise operators need matching shapes; arithmetic may mix a scalar with a vector.
    if ((is_compare || is_bitwise) && (lt->kind == TypeKind::Vector) != (rt->kind == TypeKind::Vector)) bad();
    if (is_bitwise) {
      if (!s->is_integer_scalar() && s->kind != TypeKind::Bool) bad();
      if (s->kind == TypeKind::Bool && op == BinaryOp::Xor) bad();
    } else if (is_compare) {
      if (s->kind == TypeKind::Bool && op != BinaryOp::Equal && op != BinaryOp::NotEqual) bad();
    } else if (!s->is_numeric_scalar()) {
      bad();
    }
    mat(le, lt->kind == TypeKind::Vector ? T().vector(s, width) : s);
    mat(re, rt->kind == TypeKind::Vector ? T().vector(s, width) : s);
    if (is_compare) return width ? T().vector(T().bool_type(), width) : T().bool_type();
    return width ? T().vector(s, width) : s;
  }

  const Type* index(const Expr& e) {
    const Type* bt = expr_nonnull(*e.lhs);
    bool is_ref = bt->kind == TypeKind::Reference || bt->kind == TypeKind::Pointer;
    const Type* base = is_ref ? bt->elem : bt;
    if (base->kind != TypeKind::Array && base->kind != TypeKind::Vector && base->kind != TypeKind::Matrix) {
      fail(e.range, "cannot index a value of type '" + to_string(base) + "'");
    }
    const Type* it = value_expr(*e.rhs);
    if (!it->is_integer_scalar()) fail(e.rhs->range, "index must be i32 or u32, not '" + to_string(it) + "'");
    const auto& iv = I(*e.rhs).value;
    if (iv) {
      uint32_t count = base->count;
      if (base->count_expr) count = 0;  // the bound is known only at pipeline creation
      if (iv->i < 0 || (count != 0 && iv->i >= count)) {
        fail(e.rhs->range,
             "index " + std::to_string(iv->i) + " is out of bounds for '" + to_string(base) + "'");
      }
    }
    if (it->is_abstract()) materialize(*e.rhs, iv && iv->i > INT32_MAX ? T().u32() : T().i32());
    const Type* elem = base->elem;
    if (is_ref) {
      if (!iv && !I(*e.lhs).var && bt->kind == TypeKind::Reference) {
      }
      return T().reference(elem, bt->address_space, bt->access);
    }
    const auto& bv = I(*e.lhs).value;
    if (bv && iv) {
      I(e).value = bv->elements[static_cast<size_t>(iv->i)];
      return I(e).value->type;
    }
    if (bv && base->is_abstract()) {
      // Dynamic index into an abstract constant: the constant becomes concrete.
      materialize(*e.lhs, T().concretize(base));
      return T().concretize(elem);
    }
    return elem;
  }

  const Type* member(const Expr& e) {
    const Type* bt = expr_nonnull(*e.lhs);
    bool is_ref = bt->kind == TypeKind::Reference || bt->kind == TypeKind::Pointer;
    const Type* base = is_ref ? bt->elem : bt;
    sem::ExprInfo& info = I(e);
    const auto& bv = I(*e.lhs).value;
    if (base->kind == TypeKind::Struct) {
      for (size_t i = 0; i < base->members.size(); ++i) {
        if (base->members[i].name == e.name) {
          info.member_index = static_cast<int>(i);
          const Type* mt = base->members[i].type;
          if (bv) info.value = bv->elements[i];
          return is_ref ? T().reference(mt, bt->address_space, bt->access) : mt;
        }
      }
      fail(e.name_range, "struct '" + base->name + "' has no member '" + e.name + "'");
    }
    if (base->kind == TypeKind::Vector) {
      const std::string& n = e.name;
      if (n.empty() || n.size() > 4) fail(e.name_range, "invalid vector swizzle '" + n + "'");
      bool xyzw = std::string("xyzw").find(n[0]) != std::string::npos;
      const std::string set = xyzw ? "xyzw" : "rgba";
      for (char c : n) {
        size_t k = set.find(c);
        if (k == std::string::npos) fail(e.name_range, "invalid vector swizzle '" + n + "'");
        if (k >= base->count)
          fail(e.name_range, "swizzle '" + n + "' is out of range for '" + to_string(base) + "'");
        info.swizzle.push_back(static_cast<uint32_t>(k));
      }
      const Type* s = base->elem;
      if (bv) {
        if (n.size() == 1) {
          info.value = bv->elements[info.swizzle[0]];
        } else {
          Value v;
          v.type = T().vector(s, static_cast<uint32_t>(n.size()));
          for (uint32_t k : info.swizzle) v.elements.push_back(bv->elements[k]);
          info.value = v;
        }
      }
      if (n.size() == 1) return is_ref ? T().reference(s, bt->address_space, bt->access) : s;
      if (is_ref && bt->kind == TypeKind::Reference && bt->elem->contains_atomic())
        fail(e.range, "invalid swizzle");
      return T().vector(s, static_cast<uint32_t>(n.size()));
    }
    fail(e.name_range, "cannot access member '" + e.name + "' of a value of type '" + to_string(base) + "'");
  }

  // ------------------------------------------------------------------ calls
  const Type* call(const Expr& e) {
    const Expr& callee = *e.callee;
    sem::ExprInfo& info = I(e);
    const Symbol* s = lookup(callee.name);
    if (s && s->kind == Symbol::Function) {
      if (!callee.template_args.empty()) fail(callee.range, "function calls do not take template arguments");
      return user_call(e, static_cast<const ast::Function*>(s->node));
    }
    if (s && s->kind != Symbol::Struct && s->kind != Symbol::Alias) {
      fail(callee.range, "'" + callee.name + "' is not a function");
    }
    if (const Type* t = try_type(callee)) return constructor(e, t);
    if (callee.name == "vec2" || callee.name == "vec3" || callee.name == "vec4" || callee.name == "array" ||
        (callee.name.size() == 6 && callee.name.rfind("mat", 0) == 0)) {
      return inferred_constructor(e);
    }
    BuiltinFn fn = sem::lookup_builtin(callee.name);
    if (fn == BuiltinFn::None) {
      fail(callee.range,
           "unresolved function '" + callee.name + "'" + suggestion(callee.name, NameKind::Function));
    }
    if (fn != BuiltinFn::Bitcast && !callee.template_args.empty()) {
      fail(callee.range, "'" + callee.name + "' does not take template arguments");
    }
    info.call = CallKind::Builtin;
    info.builtin = fn;
    return builtin_call(e, fn);
  }

  // Whether pointer expression `e` points at a whole variable (a "memory object declaration" in SPIR-V),
  // which is what our SPIR-V target (no VariablePointers) can pass to a function.
  bool is_whole_variable_pointer(const Expr& e) {
    if (e.kind == ExprKind::Unary && e.unary_op == UnaryOp::AddressOf) {
      const Expr& v = *e.lhs;
      return v.kind == ExprKind::Identifier &&
             (I(v).symbol == SymbolKind::LocalVar || I(v).symbol == SymbolKind::GlobalVar ||
              (I(v).symbol == SymbolKind::Param));
    }
    if (e.kind == ExprKind::Identifier) {
      if (I(e).symbol == SymbolKind::Param) return true;
      if (I(e).symbol == SymbolKind::LocalLet) return is_whole_variable_pointer(*I(e).var->init);
    }
    return false;
  }

  const Type* user_call(const Expr& e, const ast::Function* f) {
    sem::ExprInfo& info = I(e);
    info.call = CallKind::UserFunction;
    info.function = f;
    if (fn_state_[f] == State::InProgress) {
      fail(e.range, "recursion is not allowed: '" + f->name + "' is called while it is being defined");
    }
    const sem::Function& sf = resolve_function(f);
    if (sf.is_entry_point) fail(e.range, "entry point '" + f->name + "' cannot be called");
    if (e.args.size() != sf.params.size()) {
      fail(e.range, "'" + f->name + "' expects " + std::to_string(sf.params.size()) + " arguments, got " +
                        std::to_string(e.args.size()));
    }
    for (size_t i = 0; i < e.args.size(); ++i) {
      const Type* pt = sf.params[i].type;
      const Type* at = value_expr(*e.args[i]);
      if (pt->kind == TypeKind::Pointer) {
        if (at != pt)
          fail(e.args[i]->range, "argument of type '" + to_string(at) + "' does not match parameter type '" +
                                     to_string(pt) + "'");
        if (!is_whole_variable_pointer(*e.args[i])) {
          fail(e.args[i]->range, "pointer arguments must point at a whole variable (e.g. '&v')");
        }
        continue;
      }
      materialize(*e.args[i], pt);
    }
    if (fn_) {
      auto& callees = fn_->sem->callees;
      if (std::find(callees.begin(), callees.end(), f) == callees.end()) callees.push_back(f);
    }
    return sf.return_type;
  }

  const Type* constructor(const Expr& e, const Type* t) {
    sem::ExprInfo& info = I(e);
    if (!t->is_constructible()) fail(e.range, "type '" + to_string(t) + "' cannot be constructed");
    std::vector<const Type*> args;
    for (const auto& a : e.args) args.push_back(value_expr(*a));
    if (args.empty()) {
      info.call = CallKind::ZeroValue;
      info.value = const_eval::zero(T(), t);
      return t;
    }
    info.call = CallKind::Constructor;
    auto all_const = [&]() {
      for (const auto& a : e.args) {
        if (!I(*a).value) return false;
      }
      return true;
    };
    if (t->is_scalar()) {
      if (args.size() != 1 || !args[0]->is_scalar())
        fail(e.range, "'" + to_string(t) + "' conversion takes one scalar argument");
      info.call = CallKind::Conversion;
      convert_args_for_conversion(e, args[0], t);
    } else if (t->kind == TypeKind::Vector) {
      if (args.size() == 1 && args[0]->kind == TypeKind::Vector) {
        if (args[0]->count != t->count)
          fail(e.range, "cannot convert '" + to_string(args[0]) + "' to '" + to_string(t) + "'");
        info.call = CallKind::Conversion;
        convert_args_for_conversion(e, args[0], t);
      } else if (args.size() == 1) {
        materialize_or_fail(*e.args[0], t->elem);
      } else {
        uint32_t n = 0;
        for (size_t i = 0; i < args.size(); ++i) {
          if (args[i]->is_scalar()) {
            materialize_or_fail(*e.args[i], t->elem);
            ++n;
          } else if (args[i]->kind == TypeKind::Vector) {
            materialize_or_fail(*e.args[i], T().vector(t->elem, args[i]->count));
            n += args[i]->count;
          } else {
            fail(e.args[i]->range,
                 "invalid vector constructor argument of type '" + to_string(args[i]) + "'");
          }
        }
        if (n != t->count) {
          fail(e.range, "'" + to_string(t) + "' needs " + std::to_string(t->count) + " components, got " +
                            std::to_string(n));
        }
      }
    } else if (t->kind == TypeKind::Matrix) {
      const Type* col = t->elem;
      if (args.size() == 1 && args[0]->kind == TypeKind::Matrix) {
        if (args[0]->count != t->count || args[0]->elem->count != col->count)
          fail(e.range, "matrix conversion needs the same dimensions");
        info.call = CallKind::Conversion;
        convert_args_for_conversion(e, args[0], t);
      } else if (args.size() == t->count) {
        for (size_t i = 0; i < args.size(); ++i) materialize_or_fail(*e.args[i], col);
      } else if (args.size() == t->count * col->count) {
        for (size_t i = 0; i < args.size(); ++i) materialize_or_fail(*e.args[i], col->elem);
      } else {
        fail(e.range, "wrong number of arguments for '" + to_string(t) + "'");
      }
    } else if (t->kind == TypeKind::Array) {
      if (args.size() != t->count) {
        fail(e.range, "'" + to_string(t) + "' needs " + std::to_string(t->count) + " elements, got " +
                          std::to_string(args.size()));
      }
      for (size_t i = 0; i < args.size(); ++i) materialize_or_fail(*e.args[i], t->elem);
    } else if (t->kind == TypeKind::Struct) {
      if (args.size() != t->members.size()) {
        fail(e.range, "'" + t->name + "' needs " + std::to_string(t->members.size()) + " members, got " +
                          std::to_string(args.size()));
      }
      for (size_t i = 0; i < args.size(); ++i) materialize_or_fail(*e.args[i], t->members[i].type);
    }
    if (all_const()) {
      if (info.call == CallKind::Conversion) {
        const_eval::Result r = const_eval::convert(T(), *I(*e.args[0]).value, t);
        if (!r.value) fail(e.range, r.error);
        info.value = std::move(*r.value);
      } else {
        info.value = construct_value(e, t);
      }
    }
    return t;
  }

  void materialize_or_fail(const Expr& a, const Type* target) { materialize(a, target); }

  void convert_args_for_conversion(const Expr& e, const Type* from, const Type* to) {
    const Type* fs = from->scalar();
    const Type* ts = to->scalar();
    if (!fs || !ts) fail(e.range, "cannot convert '" + to_string(from) + "' to '" + to_string(to) + "'");
    if (fs->is_abstract()) {
      // Abstract values convert to the target scalar directly when possible, else through the default type.
      const Type* via = convertible(fs, ts) ? ts : T().concretize(fs);
      materialize(*e.args[0], T().with_scalar(from, via));
    }
  }

  Value construct_value(const Expr& e, const Type* t) {
    Value v;
    v.type = t;
    if (t->kind == TypeKind::Vector && e.args.size() == 1 && I(*e.args[0]).value->elements.empty()) {
      return const_eval::splat(t, *I(*e.args[0]).value);
    }
    if (t->kind == TypeKind::Matrix && e.args.size() == t->count * t->elem->count) {
      for (uint32_t c = 0; c < t->count; ++c) {
        Value col;
        col.type = t->elem;
        for (uint32_t r = 0; r < t->elem->count; ++r)
          col.elements.push_back(*I(*e.args[c * t->elem->count + r]).value);
        v.elements.push_back(col);
      }
      return v;
    }
    for (const auto& a : e.args) {
      const Value& av = *I(*a).value;
      if (t->kind == TypeKind::Vector && !av.elements.empty()) {
        for (const auto& c : av.elements) v.elements.push_back(c);
      } else {
        v.elements.push_back(av);
      }
    }
    return v;
  }

  // vec3(1, 2, 3), array(a, b), mat2x2(...) with the element type inferred from the arguments.
  const Type* inferred_constructor(const Expr& e) {
    const std::string& n = e.callee->name;
    std::vector<const Type*> args;
    for (const auto& a : e.args) args.push_back(value_expr(*a));
    if (args.empty()) fail(e.range, "'" + n + "' without template arguments needs constructor arguments");
    const Type* t = nullptr;
    if (n == "array") {
      std::vector<const Type*> elems = args;
      // Unify element types: all equal after abstract conversion.
      const Type* et = args[0];
      for (const Type* a : args) {
        if (a == et) continue;
        if (a->is_abstract() && convertible(a, et)) continue;
        if (et->is_abstract() && convertible(et, a)) {
          et = a;
          continue;
        }
        if (a->is_scalar() && et->is_scalar()) {
          et = common_scalar({a, et}, e.range);
          continue;
        }
        if (a->kind == TypeKind::Vector && et->kind == TypeKind::Vector && a->count == et->count) {
          et = T().vector(common_scalar({a->elem, et->elem}, e.range), a->count);
          continue;
        }
        fail(e.range,
             "array elements have mismatched types '" + to_string(et) + "' and '" + to_string(a) + "'");
      }
      t = T().array(et, static_cast<uint32_t>(args.size()));
    } else if (n[0] == 'v') {
      std::vector<const Type*> scalars;
      for (const Type* a : args) {
        if (!a->scalar() || a->kind == TypeKind::Matrix) fail(e.range, "invalid argument for '" + n + "'");
        scalars.push_back(a->scalar());
      }
      uint32_t count = n[3] - '0';
      const Type* s = common_scalar(scalars, e.range);
      t = T().vector(s, count);
    } else {
      std::vector<const Type*> scalars;
      for (const Type* a : args) {
        if (!a->scalar()) fail(e.range, "invalid argument for '" + n + "'");
        scalars.push_back(a->scalar());
      }
      const Type* s = common_scalar(scalars, e.range);
      if (!s->is_float_scalar()) fail(e.range, "matrix elements must be floating point");
      t = T().matrix(s, n[3] - '0', n[5] - '0');
    }
    const Type* result = constructor(e, t);
    if (result->is_abstract() && !I(e).value) {
      result = T().concretize(result);
      for (const auto& a : e.args) concretize_operand(*a);
      I(e).type = result;
    }
    return result;
  }

  // ------------------------------------------------------------------ built-in functions
  const Type* builtin_call(const Expr& e, BuiltinFn fn) {
    if (sem::is_subgroup_builtin(fn)) {
      if (!out_->enable_subgroups)
        fail(e.callee->range, "'" + e.callee->name + "' requires 'enable subgroups;'");
      if (fn_) fn_->sem->uses_subgroups = true;
    }
    if (fn == BuiltinFn::Bitcast) return bitcast_call(e);
    if (fn == BuiltinFn::ArrayLength ||
        (fn >= BuiltinFn::AtomicLoad && fn <= BuiltinFn::AtomicCompareExchangeWeak) ||
        fn == BuiltinFn::WorkgroupUniformLoad) {
      return pointer_builtin(e, fn);
    }
    std::vector<const Type*> args;
    for (const auto& a : e.args) args.push_back(value_expr(*a));
    auto nargs = [&](size_t n) {
      if (args.size() != n) {
        fail(e.range, std::string("'") + e.callee->name + "' expects " + std::to_string(n) + " argument" +
                          (n == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
      }
    };
    auto no_match = [&]() -> const Type* {
      std::string list;
      for (size_t i = 0; i < args.size(); ++i) list += (i ? ", " : "") + to_string(args[i]);
      fail(e.range, "no matching overload for '" + e.callee->name + "(" + list + ")'");
    };
    // Unifies arguments [0, n) to one type T (scalar or vector) and returns it. `want` filters the scalar
    // kind.
    enum class Want { Float, Numeric, Integer, SignedNumeric, Bool, Any };
    auto unify = [&](size_t n, Want want) -> const Type* {
      std::vector<const Type*> scalars;
      uint32_t width = args[0]->kind == TypeKind::Vector ? args[0]->count : 0;
      size_t bools = 0;
      for (size_t i = 0; i < n; ++i) {
        const Type* a = args[i];
        if (a->kind != TypeKind::Vector && !a->is_scalar()) no_match();
        if ((a->kind == TypeKind::Vector ? a->count : 0) != width) no_match();
        scalars.push_back(a->scalar());
        bools += a->scalar()->kind == TypeKind::Bool;
      }
      if (bools != 0 && bools != n) no_match();
      const Type* s = common_scalar(scalars, e.range);
      switch (want) {
        case Want::Float:
          if (s->kind == TypeKind::AbstractInt) s = T().abstract_float();
          if (!s->is_float_scalar()) no_match();
          break;
        case Want::Numeric:
          if (!s->is_numeric_scalar()) no_match();
          break;
        case Want::Integer:
          if (!s->is_integer_scalar()) no_match();
          break;
        case Want::SignedNumeric:
          if (!s->is_numeric_scalar() || s->kind == TypeKind::U32) no_match();
          break;
        case Want::Bool:
          if (s->kind != TypeKind::Bool) no_match();
          break;
        case Want::Any:
          break;
      }
      return width ? T().vector(s, width) : s;
    };
    const Type* result = nullptr;
    std::vector<const Type*> param_types;  // what each argument materializes to
    switch (fn) {
      case BuiltinFn::Acos:
      case BuiltinFn::Acosh:
      case BuiltinFn::Asin:
      case BuiltinFn::Asinh:
      case BuiltinFn::Atan:
      case BuiltinFn::Atanh:
      case BuiltinFn::Ceil:
      case BuiltinFn::Cos:
      case BuiltinFn::Cosh:
      case BuiltinFn::Degrees:
      case BuiltinFn::Exp:
      case BuiltinFn::Exp2:
      case BuiltinFn::Floor:
      case BuiltinFn::Fract:
      case BuiltinFn::InverseSqrt:
      case BuiltinFn::Log:
      case BuiltinFn::Log2:
      case BuiltinFn::Radians:
      case BuiltinFn::Round:
      case BuiltinFn::Sin:
      case BuiltinFn::Sinh:
      case BuiltinFn::Sqrt:
      case BuiltinFn::Tan:
      case BuiltinFn::Tanh:
      case BuiltinFn::Trunc:
      case BuiltinFn::Saturate:
        nargs(1);
        result = unify(1, Want::Float);
        param_types = {result};
        break;
      case BuiltinFn::QuantizeToF16:
        nargs(1);
        result = unify(1, Want::Float);
        if (result->scalar()->is_abstract()) result = T().with_scalar(result, T().f32());
        if (result->scalar() != T().f32()) no_match();
        param_types = {result};
        break;
      case BuiltinFn::Pow:
      case BuiltinFn::Step:
      case BuiltinFn::Atan2:
        nargs(2);
        result = unify(2, Want::Float);
        param_types = {result, result};
        break;
      case BuiltinFn::Fma:
      case BuiltinFn::Smoothstep:
        nargs(3);
        result = unify(3, Want::Float);
        param_types = {result, result, result};
        break;
      case BuiltinFn::Mix: {
        nargs(3);
        if (args[0]->kind == TypeKind::Vector && args[2]->is_scalar()) {
          result = unify(2, Want::Float);
          const Type* s = common_scalar({result->scalar(), args[2]}, e.range);
          if (s != result->scalar()) {
            result = T().with_scalar(result, s);
          }
          param_types = {result, result, s};
        } else {
          result = unify(3, Want::Float);
          param_types = {result, result, result};
        }
        break;
      }
      case BuiltinFn::Ldexp: {
        nargs(2);
        result = unify(1, Want::Float);
        const Type* et = args[1];
        if (!et->scalar() || !et->scalar()->is_signed_integer_scalar() ||
            (et->kind == TypeKind::Vector) != (result->kind == TypeKind::Vector))
          no_match();
        param_types = {result,
                       T().with_scalar(et, et->scalar()->is_abstract() && !result->scalar()->is_abstract()
                                               ? T().i32()
                                               : et->scalar())};
        break;
      }
      case BuiltinFn::Modf:
      case BuiltinFn::Frexp: {
        nargs(1);
        const Type* t = unify(1, Want::Float);
        if (t->is_abstract()) t = T().concretize(t);
        param_types = {t};
        result = modf_frexp_result(fn, t);
        break;
      }
      case BuiltinFn::Abs:
        nargs(1);
        result = unify(1, Want::Numeric);
        param_types = {result};
        break;
      case BuiltinFn::Sign:
        nargs(1);
        result = unify(1, Want::SignedNumeric);
        param_types = {result};
        break;
      case BuiltinFn::Min:
      case BuiltinFn::Max:
        nargs(2);
        result = unify(2, Want::Numeric);
        param_types = {result, result};
        break;
      case BuiltinFn::Clamp:
        nargs(3);
        result = unify(3, Want::Numeric);
        param_types = {result, result, result};
        break;
      case BuiltinFn::Dot: {
        nargs(2);
        const Type* v = unify(2, Want::Numeric);
        if (v->kind != TypeKind::Vector) no_match();
        result = v->elem;
        param_types = {v, v};
        break;
      }
      case BuiltinFn::Cross: {
        nargs(2);
        result = unify(2, Want::Float);
        if (result->kind != TypeKind::Vector || result->count != 3) no_match();
        param_types = {result, result};
        break;
      }
      case BuiltinFn::Length:
        nargs(1);
        param_types = {unify(1, Want::Float)};
        result = param_types[0]->scalar();
        break;
      case BuiltinFn::Distance:
        nargs(2);
        param_types = {unify(2, Want::Float)};
        param_types.push_back(param_types[0]);
        result = param_types[0]->scalar();
        break;
      case BuiltinFn::Normalize:
        nargs(1);
        result = unify(1, Want::Float);
        if (result->kind != TypeKind::Vector) no_match();
        param_types = {result};
        break;
      case BuiltinFn::FaceForward:
      case BuiltinFn::Reflect:
        if (fn == BuiltinFn::FaceForward)
          nargs(3);
        else
          nargs(2);
        result = unify(args.size(), Want::Float);
        if (result->kind != TypeKind::Vector) no_match();
        param_types.assign(args.size(), result);
        break;
      case BuiltinFn::Refract: {
        nargs(3);
        result = unify(2, Want::Float);
        if (result->kind != TypeKind::Vector) no_match();
        const Type* s = common_scalar({result->scalar(), args[2]}, e.range);
        result = T().with_scalar(result, s);
        param_types = {result, result, s};
        break;
      }
      case BuiltinFn::Determinant:
      case BuiltinFn::Transpose: {
        nargs(1);
        const Type* m = args[0];
        if (m->kind != TypeKind::Matrix) no_match();
        if (m->is_abstract()) m = T().concretize(m);
        if (fn == BuiltinFn::Determinant) {
          if (m->count != m->elem->count) no_match();
          result = m->elem->elem;
        } else {
          result = T().matrix(m->elem->elem, m->elem->count, m->count);
        }
        param_types = {m};
        break;
      }
      case BuiltinFn::CountOneBits:
      case BuiltinFn::CountLeadingZeros:
      case BuiltinFn::CountTrailingZeros:
      case BuiltinFn::FirstLeadingBit:
      case BuiltinFn::FirstTrailingBit:
      case BuiltinFn::ReverseBits:
        nargs(1);
        result = unify(1, Want::Integer);
        param_types = {result};
        break;
      case BuiltinFn::ExtractBits: {
        nargs(3);
        result = unify(1, Want::Integer);
        param_types = {result, T().u32(), T().u32()};
        break;
      }
      case BuiltinFn::InsertBits:
        nargs(4);
        result = unify(2, Want::Integer);
        param_types = {result, result, T().u32(), T().u32()};
        break;
      case BuiltinFn::All:
      case BuiltinFn::Any:
        nargs(1);
        param_types = {unify(1, Want::Bool)};
        result = T().bool_type();
        break;
      case BuiltinFn::Select: {
        nargs(3);
        const Type* v = unify(2, Want::Any);
        if (!v->is_scalar() && v->kind != TypeKind::Vector) no_match();
        const Type* c = args[2];
        if (c->kind == TypeKind::Bool) {
        } else if (c->kind == TypeKind::Vector && c->elem->kind == TypeKind::Bool &&
                   v->kind == TypeKind::Vector && v->count == c->count) {
        } else {
          no_match();
        }
        result = v;
        param_types = {v, v, c};
        break;
      }
      case BuiltinFn::Pack4x8Snorm:
      case BuiltinFn::Pack4x8Unorm:
        nargs(1);
        param_types = {T().vector(T().f32(), 4)};
        result = T().u32();
        break;
      case BuiltinFn::Pack2x16Snorm:
      case BuiltinFn::Pack2x16Unorm:
      case BuiltinFn::Pack2x16Float:
        nargs(1);
        param_types = {T().vector(T().f32(), 2)};
        result = T().u32();
        break;
      case BuiltinFn::Unpack4x8Snorm:
      case BuiltinFn::Unpack4x8Unorm:
        nargs(1);
        param_types = {T().u32()};
        result = T().vector(T().f32(), 4);
        break;
      case BuiltinFn::Unpack2x16Snorm:
      case BuiltinFn::Unpack2x16Unorm:
      case BuiltinFn::Unpack2x16Float:
        nargs(1);
        param_types = {T().u32()};
        result = T().vector(T().f32(), 2);
        break;
      case BuiltinFn::Pack4xI8:
      case BuiltinFn::Pack4xI8Clamp:
        nargs(1);
        param_types = {T().vector(T().i32(), 4)};
        result = T().u32();
        break;
      case BuiltinFn::Pack4xU8:
      case BuiltinFn::Pack4xU8Clamp:
        nargs(1);
        param_types = {T().vector(T().u32(), 4)};
        result = T().u32();
        break;
      case BuiltinFn::Unpack4xI8:
        nargs(1);
        param_types = {T().u32()};
        result = T().vector(T().i32(), 4);
        break;
      case BuiltinFn::Unpack4xU8:
        nargs(1);
        param_types = {T().u32()};
        result = T().vector(T().u32(), 4);
        break;
      case BuiltinFn::Dot4I8Packed:
      case BuiltinFn::Dot4U8Packed:
        nargs(2);
        param_types = {T().u32(), T().u32()};
        result = fn == BuiltinFn::Dot4I8Packed ? T().i32() : T().u32();
        break;
      case BuiltinFn::WorkgroupBarrier:
      case BuiltinFn::StorageBarrier:
        nargs(0);
        result = T().void_type();
        if (fn_) fn_->sem->requires_uniformity = true;
        break;
      case BuiltinFn::SubgroupElect:
        nargs(0);
        result = T().bool_type();
        break;
      case BuiltinFn::SubgroupAll:
      case BuiltinFn::SubgroupAny:
        nargs(1);
        param_types = {T().bool_type()};
        result = T().bool_type();
        break;
      case BuiltinFn::SubgroupBallot:
        nargs(1);
        param_types = {T().bool_type()};
        result = T().vector(T().u32(), 4);
        break;
      case BuiltinFn::SubgroupAdd:
      case BuiltinFn::SubgroupExclusiveAdd:
      case BuiltinFn::SubgroupInclusiveAdd:
      case BuiltinFn::SubgroupMul:
      case BuiltinFn::SubgroupExclusiveMul:
      case BuiltinFn::SubgroupInclusiveMul:
      case BuiltinFn::SubgroupMin:
      case BuiltinFn::SubgroupMax:
        nargs(1);
        result = unify(1, Want::Numeric);
        param_types = {result};
        break;
      case BuiltinFn::SubgroupAnd:
      case BuiltinFn::SubgroupOr:
      case BuiltinFn::SubgroupXor:
        nargs(1);
        result = unify(1, Want::Integer);
        param_types = {result};
        break;
      case BuiltinFn::SubgroupBroadcastFirst:
      case BuiltinFn::QuadSwapX:
      case BuiltinFn::QuadSwapY:
      case BuiltinFn::QuadSwapDiagonal:
        nargs(1);
        result = unify(1, Want::Any);
        if (result->scalar()->kind == TypeKind::Bool) no_match();
        param_types = {result};
        break;
      case BuiltinFn::SubgroupBroadcast:
      case BuiltinFn::QuadBroadcast: {
        nargs(2);
        result = unify(1, Want::Any);
        if (result->scalar()->kind == TypeKind::Bool) no_match();
        if (!args[1]->is_integer_scalar()) no_match();
        if (!I(*e.args[1]).value) {
          fail(e.args[1]->range, "the lane id of '" + e.callee->name + "' must be a constant expression");
        }
        param_types = {result, args[1]->is_abstract() ? T().u32() : args[1]};
        break;
      }
      case BuiltinFn::SubgroupShuffle:
      case BuiltinFn::SubgroupShuffleXor:
      case BuiltinFn::SubgroupShuffleUp:
      case BuiltinFn::SubgroupShuffleDown: {
        nargs(2);
        result = unify(1, Want::Any);
        if (result->scalar()->kind == TypeKind::Bool) no_match();
        if (!args[1]->is_integer_scalar()) no_match();
        const Type* id = args[1]->is_abstract() ? T().u32() : args[1];
        if (fn != BuiltinFn::SubgroupShuffle && id != T().u32()) no_match();
        param_types = {result, id};
        break;
      }
      default:
        fail(e.range, "unsupported built-in function '" + e.callee->name + "'");
    }
    // Evaluate at const time when every argument is constant.
    bool all_const = !e.args.empty();
    for (const auto& a : e.args) all_const = all_const && I(*a).value.has_value();
    if (all_const && const_eval::is_const_builtin(fn)) {
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (I(*e.args[i]).type != param_types[i]) materialize(*e.args[i], param_types[i]);
      }
      std::vector<Value> vals;
      for (const auto& a : e.args) vals.push_back(*I(*a).value);
      const_eval::Result r = const_eval::builtin(T(), fn, vals, result);
      if (!r.value && !r.error.empty()) fail(e.range, r.error);
      if (r.value) {
        I(e).value = std::move(*r.value);
        return result;
      }
    }
    // Runtime call: abstract parameter types become concrete.
    for (size_t i = 0; i < e.args.size(); ++i) {
      const Type* pt = param_types[i]->is_abstract() ? T().concretize(param_types[i]) : param_types[i];
      materialize(*e.args[i], pt);
    }
    if (result->is_abstract()) result = T().concretize(result);
    return result;
  }

  const Type* bitcast_call(const Expr& e) {
    if (e.callee->template_args.size() != 1) fail(e.callee->range, "bitcast requires one template argument");
    const Type* to = type(*e.callee->template_args[0]);
    if (e.args.size() != 1) fail(e.range, "bitcast takes one argument");
    const Type* from = value_expr(*e.args[0]);
    if (from->is_abstract()) {
      const Type* c = T().concretize(from);
      materialize(*e.args[0], c);
      from = c;
    }
    auto bits = [](const Type* t) -> uint32_t {
      if (t->is_scalar()) return t->size * 8;
      if (t->kind == TypeKind::Vector) return t->count * t->elem->size * 8;
      return 0;
    };
    bool numeric =
        [&](const Type* t) {
          const Type* s = t->scalar();
          return s && s->kind != TypeKind::Bool && t->kind != TypeKind::Matrix;
        }(from) &&
        to->scalar() && to->scalar()->kind != TypeKind::Bool && to->kind != TypeKind::Matrix;
    if (!numeric || bits(from) != bits(to) || bits(to) == 0) {
      fail(e.range, "cannot bitcast '" + to_string(from) + "' to '" + to_string(to) + "'");
    }
    if (I(*e.args[0]).value) {
      const_eval::Result r = const_eval::bitcast(T(), *I(*e.args[0]).value, to);
      if (!r.value && !r.error.empty()) fail(e.range, r.error);
      if (r.value) I(e).value = std::move(*r.value);
    }
    return to;
  }

  const Type* pointer_builtin(const Expr& e, BuiltinFn fn) {
    if (e.args.empty()) fail(e.range, "'" + e.callee->name + "' expects a pointer argument");
    const Type* pt = value_expr(*e.args[0]);
    if (pt->kind != TypeKind::Pointer) {
      fail(e.args[0]->range, "'" + e.callee->name + "' expects a pointer, not '" + to_string(pt) + "'");
    }
    const Type* store = pt->elem;
    auto nargs = [&](size_t n) {
      if (e.args.size() != n)
        fail(e.range, "'" + e.callee->name + "' expects " + std::to_string(n) + " arguments");
    };
    if (fn == BuiltinFn::ArrayLength) {
      nargs(1);
      if (store->kind != TypeKind::Array || store->count != 0 || pt->address_space != AddressSpace::Storage) {
        fail(e.args[0]->range, "arrayLength requires a pointer to a runtime-sized array in storage");
      }
      return T().u32();
    }
    if (fn == BuiltinFn::WorkgroupUniformLoad) {
      nargs(1);
      if (pt->address_space != AddressSpace::Workgroup || store->contains_atomic()) {
        fail(e.args[0]->range, "workgroupUniformLoad requires a pointer to a non-atomic workgroup variable");
      }
      if (fn_) fn_->sem->requires_uniformity = true;
      return store;
    }
    if (store->kind != TypeKind::Atomic)
      fail(e.args[0]->range, "'" + e.callee->name + "' requires a pointer to an atomic");
    if (pt->address_space != AddressSpace::Storage && pt->address_space != AddressSpace::Workgroup) {
      fail(e.args[0]->range, "atomics must be in storage or workgroup memory");
    }
    const Type* t = store->elem;
    switch (fn) {
      case BuiltinFn::AtomicLoad:
        nargs(1);
        return t;
      case BuiltinFn::AtomicStore:
        nargs(2);
        value_expr(*e.args[1]);
        materialize(*e.args[1], t);
        return T().void_type();
      case BuiltinFn::AtomicCompareExchangeWeak: {
        nargs(3);
        value_expr(*e.args[1]);
        materialize(*e.args[1], t);
        value_expr(*e.args[2]);
        materialize(*e.args[2], t);
        return compare_exchange_result(t);
      }
      default:
        nargs(2);
        value_expr(*e.args[1]);
        materialize(*e.args[1], t);
        return t;
    }
  }

  // modf -> __modf_result{fract, whole}; frexp -> __frexp_result{fract, exp} (exp: i32 per component).
  const Type* modf_frexp_result(BuiltinFn fn, const Type* t) {
    auto& slot = (fn == BuiltinFn::Modf ? modf_types_ : frexp_types_)[t];
    if (!slot) {
      std::string suffix = to_string(t);
      for (char& c : suffix) {
        if (c == '<' || c == '>' || c == ',' || c == ' ') c = '_';
      }
      Type* st =
          T().make_struct((fn == BuiltinFn::Modf ? "__modf_result_" : "__frexp_result_") + suffix, nullptr);
      const Type* second = fn == BuiltinFn::Modf ? t : T().with_scalar(t, T().i32());
      st->members.push_back({"fract", t, 0, t->size, t->align});
      uint32_t offset = round_up(second->align, t->size);
      st->members.push_back(
          {fn == BuiltinFn::Modf ? "whole" : "exp", second, offset, second->size, second->align});
      st->align = std::max(t->align, second->align);
      st->size = round_up(st->align, offset + second->size);
      slot = st;
    }
    return slot;
  }

  const Type* compare_exchange_result(const Type* t) {
    auto& slot = cmpxchg_types_[t];
    if (!slot) {
      Type* st = T().make_struct(t->kind == TypeKind::I32 ? "__atomic_compare_exchange_result_i32"
                                                          : "__atomic_compare_exchange_result_u32",
                                 nullptr);
      st->members.push_back({"old_value", t, 0, 4, 4});
      st->members.push_back({"exchanged", T().bool_type(), 4, 4, 4});
      st->size = 8;
      st->align = 4;
      slot = st;
    }
    return slot;
  }

  // ------------------------------------------------------------------ uniformity
  // A simplified version of WGSL's uniformity analysis: values are non-uniform when they derive from
  // per-invocation built-ins, mutable shared memory or atomics; control flow is non-uniform under a branch on
  // a non-uniform value or after a return/break/continue taken under one. Barriers (and calls to functions
  // that contain them) must be reached in uniform control flow.
  struct Uniformity {
    std::set<const void*> nonuniform_vars;   // local var / let decls holding possibly non-uniform values
    bool function_tainted = false;           // a return happened in non-uniform control flow
    std::vector<bool> loop_tainted;          // a break/continue happened in non-uniform control flow
    std::map<const Stmt*, bool> loop_taint;  // per loop, kept across passes (monotone)
    bool changed = false;                    // a loop became tainted during this pass
    std::map<uint32_t, std::pair<SourceRange, SourceRange>> errors;  // call id -> (call range, cause range)
    SourceRange cause;
    bool returns_nonuniform = false;
  };

  void analyze_uniformity(sem::Function& sf) {
    Uniformity u;
    // Iterate until nothing changes: values carried around loops and loop taints only grow, so this ends
    // after at most (variables + loops + 1) linear passes.
    while (true) {
      size_t before = u.nonuniform_vars.size();
      u.function_tainted = false;
      u.changed = false;
      u.errors.clear();
      u.returns_nonuniform = false;
      uniform_block(*sf.decl->body, u, false);
      if (u.nonuniform_vars.size() == before && !u.changed) break;
    }
    sf.returns_nonuniform = u.returns_nonuniform;
    for (const auto& [id, ranges] : u.errors) {
      (void)id;
      diags_.error(ranges.first, "barrier must only be called from uniform control flow");
      diags_.note(ranges.second, "control flow depends on a possibly non-uniform value here");
    }
  }

  bool cf_nonuniform(const Uniformity& u, bool cf) const {
    if (cf || u.function_tainted) return true;
    for (bool t : u.loop_tainted) {
      if (t) return true;
    }
    return false;
  }

  bool uniform_expr(const Expr& e, Uniformity& u, bool cf) {
    sem::ExprInfo& info = I(e);
    bool nu = false;
    switch (e.kind) {
      case ExprKind::IntLiteral:
      case ExprKind::FloatLiteral:
      case ExprKind::BoolLiteral:
        break;
      case ExprKind::Identifier:
        switch (info.symbol) {
          case SymbolKind::LocalVar:
          case SymbolKind::LocalLet:
            nu = u.nonuniform_vars.count(info.var) != 0;
            break;
          case SymbolKind::Param: {
            nu = u.nonuniform_vars.count(info.param) != 0;
            const auto& params = fn_sem_params(info.param);
            if (params && params->builtin) {
              std::vector<BuiltinValue> values = params->member_builtins;
              if (values.empty()) values.push_back(*params->builtin);
              for (BuiltinValue b : values) {
                nu = nu || b == BuiltinValue::GlobalInvocationId || b == BuiltinValue::LocalInvocationId ||
                     b == BuiltinValue::LocalInvocationIndex || b == BuiltinValue::SubgroupInvocationId;
              }
            }
            break;
          }
          case SymbolKind::GlobalVar: {
            const auto& gv = out_->globals.at(info.var);
            nu = !(gv.address_space == AddressSpace::Uniform ||
                   (gv.address_space == AddressSpace::Storage && gv.access == Access::Read));
            break;
          }
          default:
            break;
        }
        break;
      case ExprKind::Call: {
        bool any_arg = false;
        for (const auto& a : e.args) any_arg = uniform_expr(*a, u, cf) || any_arg;
        if (info.call == CallKind::UserFunction) {
          auto it = out_->function_index.find(info.function);
          if (it != out_->function_index.end()) {
            const sem::Function& callee = out_->functions[it->second];
            nu = any_arg || callee.returns_nonuniform;
            if (callee.requires_uniformity && cf_nonuniform(u, cf)) u.errors[e.id] = {e.range, u.cause};
            // Pointer arguments may be written with non-uniform values by the callee.
            for (size_t i = 0; i < e.args.size(); ++i) {
              if (i < callee.params.size() && callee.params[i].type->kind == TypeKind::Pointer) {
                taint_root(*e.args[i], u);
              }
            }
          } else {
            nu = true;
          }
        } else if (info.call == CallKind::Builtin) {
          switch (info.builtin) {
            case BuiltinFn::WorkgroupBarrier:
            case BuiltinFn::StorageBarrier:
              if (cf_nonuniform(u, cf)) u.errors[e.id] = {e.range, u.cause};
              break;
            case BuiltinFn::WorkgroupUniformLoad:
              if (cf_nonuniform(u, cf)) u.errors[e.id] = {e.range, u.cause};
              nu = false;
              break;
            case BuiltinFn::ArrayLength:
              nu = any_arg;  // the length of a buffer is the same for every invocation
              break;
            case BuiltinFn::SubgroupBroadcastFirst:
            case BuiltinFn::SubgroupBroadcast:
            case BuiltinFn::SubgroupBallot:
            case BuiltinFn::SubgroupAll:
            case BuiltinFn::SubgroupAny:
            case BuiltinFn::SubgroupAdd:
            case BuiltinFn::SubgroupMul:
            case BuiltinFn::SubgroupMin:
            case BuiltinFn::SubgroupMax:
            case BuiltinFn::SubgroupAnd:
            case BuiltinFn::SubgroupOr:
            case BuiltinFn::SubgroupXor:
              // Uniform within the subgroup only; treat as non-uniform for workgroup barriers.
              nu = true;
              break;
            default:
              nu = any_arg ||
                   (info.builtin >= BuiltinFn::AtomicLoad &&
                    info.builtin <= BuiltinFn::AtomicCompareExchangeWeak) ||
                   sem::is_subgroup_builtin(info.builtin);
          }
        } else {
          nu = any_arg;
        }
        break;
      }
      case ExprKind::Index:
        nu = uniform_expr(*e.lhs, u, cf);
        nu = uniform_expr(*e.rhs, u, cf) || nu;
        break;
      case ExprKind::Member:
        nu = uniform_expr(*e.lhs, u, cf);
        break;
      case ExprKind::Unary:
        // Taking an address reads no memory: only the indices inside matter.
        nu = e.unary_op == UnaryOp::AddressOf ? address_nonuniform(*e.lhs, u, cf)
                                              : uniform_expr(*e.lhs, u, cf);
        break;
      case ExprKind::Binary:
        nu = uniform_expr(*e.lhs, u, cf);
        nu = uniform_expr(*e.rhs, u, cf) || nu;
        break;
    }
    if (info.value) nu = false;
    info.nonuniform = nu;
    return nu;
  }

  // Uniformity of the memory location designated by reference expression `e` (not of its contents).
  bool address_nonuniform(const Expr& e, Uniformity& u, bool cf) {
    switch (e.kind) {
      case ExprKind::Index:
        return address_nonuniform(*e.lhs, u, cf) || uniform_expr(*e.rhs, u, cf);
      case ExprKind::Member:
        return address_nonuniform(*e.lhs, u, cf);
      case ExprKind::Unary:
        if (e.unary_op == UnaryOp::Deref) return uniform_expr(*e.lhs, u, cf);  // the pointer value
        return uniform_expr(e, u, cf);
      case ExprKind::Identifier:
        // A pointer-typed let/param carries the uniformity of its value; variables themselves are uniform.
        if (I(e).type && I(e).type->kind == TypeKind::Pointer) return uniform_expr(e, u, cf);
        return false;
      default:
        return uniform_expr(e, u, cf);
    }
  }

  const sem::Param* fn_sem_params(const ast::Param* p) {
    // The function being analyzed is the one currently resolving.
    if (!fn_ || !fn_->param_index.count(p)) return nullptr;
    return &fn_->sem->params[fn_->param_index.at(p)];
  }

  // The variable a reference/pointer expression designates.
  const void* root_of(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Identifier:
        if (I(e).symbol == SymbolKind::LocalVar) return I(e).var;
        if (I(e).symbol == SymbolKind::Param) return I(e).param;
        if (I(e).symbol == SymbolKind::LocalLet) return I(e).var->init ? root_of(*I(e).var->init) : nullptr;
        return nullptr;
      case ExprKind::Index:
      case ExprKind::Member:
      case ExprKind::Unary:
        return root_of(*e.lhs);
      default:
        return nullptr;
    }
  }
  void taint_root(const Expr& e, Uniformity& u) {
    if (const void* r = root_of(e)) u.nonuniform_vars.insert(r);
  }

  void uniform_block(const Stmt& b, Uniformity& u, bool cf) {
    for (const auto& s : b.statements) uniform_stmt(*s, u, cf);
  }

  void uniform_stmt(const Stmt& s, Uniformity& u, bool cf) {
    switch (s.kind) {
      case StmtKind::Block:
        uniform_block(s, u, cf);
        break;
      case StmtKind::Decl:
        if (s.decl->init) {
          bool nu = uniform_expr(*s.decl->init, u, cf);
          if (nu || (s.decl->kind == ast::DeclKind::Var && cf_nonuniform(u, cf)))
            u.nonuniform_vars.insert(s.decl.get());
        }
        break;
      case StmtKind::Assign:
      case StmtKind::CompoundAssign:
      case StmtKind::Increment:
      case StmtKind::Decrement: {
        bool nu = s.expr ? uniform_expr(*s.expr, u, cf) : false;
        if (s.lhs) {
          nu = uniform_expr(*s.lhs, u, cf) || nu;
          if (nu || cf_nonuniform(u, cf)) taint_root(*s.lhs, u);
        }
        break;
      }
      case StmtKind::Call:
        uniform_expr(*s.expr, u, cf);
        break;
      case StmtKind::If: {
        bool nu = uniform_expr(*s.expr, u, cf);
        if (nu && !cf_nonuniform(u, cf)) u.cause = s.expr->range;
        bool inner = cf || nu;
        uniform_block(*s.body, u, inner);
        if (s.else_branch) uniform_stmt(*s.else_branch, u, inner);
        break;
      }
      case StmtKind::Switch: {
        bool nu = uniform_expr(*s.expr, u, cf);
        if (nu && !cf_nonuniform(u, cf)) u.cause = s.expr->range;
        for (const auto& c : s.cases) uniform_block(*c.body, u, cf || nu);
        break;
      }
      case StmtKind::Loop:
      case StmtKind::For:
      case StmtKind::While: {
        if (s.kind == StmtKind::For && s.init) uniform_stmt(*s.init, u, cf);
        // One pass per function-level iteration: whether a break/continue/return under non-uniform control
        // flow happened in this loop persists across iterations (it makes the next trip non-uniform), so
        // nested loops cost linear, not exponential, time.
        bool& persistent = u.loop_taint[&s];
        u.loop_tainted.push_back(persistent);
        bool inner = cf;
        if (s.expr && s.kind != StmtKind::Loop) {
          bool nu = uniform_expr(*s.expr, u, cf_nonuniform(u, cf));
          if (nu && !cf_nonuniform(u, cf)) u.cause = s.expr->range;
          inner = inner || nu;
        }
        uniform_block(*s.body, u, inner);
        if (s.continuing) {
          for (const auto& c : s.continuing->statements) {
            if (c->kind == StmtKind::BreakIf) {
              bool nu = uniform_expr(*c->expr, u, inner);
              if (nu) {
                if (!cf_nonuniform(u, inner)) u.cause = c->expr->range;
                u.loop_tainted.back() = true;
              }
            } else {
              uniform_stmt(*c, u, inner);
            }
          }
        }
        if (s.update) uniform_stmt(*s.update, u, inner);
        if (inner && !cf) u.loop_tainted.back() = true;  // a non-uniform loop condition exits non-uniformly
        if (u.loop_tainted.back() && !persistent) {
          persistent = true;
          u.changed = true;
        }
        u.loop_tainted.pop_back();
        break;
      }
      case StmtKind::Break:
      case StmtKind::Continue:
        if (cf_nonuniform(u, cf) && !u.loop_tainted.empty()) u.loop_tainted.back() = true;
        break;
      case StmtKind::Return:
        if (s.expr && uniform_expr(*s.expr, u, cf)) u.returns_nonuniform = true;
        if (cf_nonuniform(u, cf)) {
          u.function_tainted = true;
          for (size_t i = 0; i < u.loop_tainted.size(); ++i) u.loop_tainted[i] = true;
          u.returns_nonuniform = true;
        }
        break;
      default:
        break;
    }
  }

  const ast::Module& mod_;
  Diagnostics& diags_;
  std::unique_ptr<sem::Module> out_;
  std::map<std::string, Symbol> module_scope_;
  FunctionContext* fn_ = nullptr;
  std::map<const ast::Struct*, const Type*> struct_types_;
  std::map<const ast::Alias*, const Type*> alias_types_;
  std::map<const ast::VarDecl*, State> global_state_;
  std::set<const ast::VarDecl*> failed_globals_;
  std::set<const ast::VarDecl*> explicit_ids_;
  std::map<const ast::Function*, State> fn_state_;
  std::map<const Type*, const Type*> cmpxchg_types_;
  int suggestions_made_ = 0;
  std::map<const Type*, const Type*> modf_types_;
  std::map<const Type*, const Type*> frexp_types_;
};

}  // namespace

std::unique_ptr<sem::Module> resolve(const ast::Module& module, Diagnostics& diags) {
  return Resolver(module, diags).run();
}

}  // namespace vkgemm::wgsl
