#include "wgsl/spirv_writer.hpp"

#include <spirv/unified1/GLSL.std.450.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <spirv/unified1/spirv.hpp11>

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
using spv::Op;

using Words = std::vector<uint32_t>;

uint32_t half_bits(double v) {
  float f = static_cast<float>(v);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xffu) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xffu) == 0xffu) return sign | 0x7c00u | (mant ? 0x200u : 0u);
  if (exp >= 31) return sign | 0x7c00u;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t h = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return sign | h;
  }
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return h;
}

spv::StorageClass storage_class(AddressSpace as) {
  switch (as) {
    case AddressSpace::Function:
      return spv::StorageClass::Function;
    case AddressSpace::Private:
      return spv::StorageClass::Private;
    case AddressSpace::Workgroup:
      return spv::StorageClass::Workgroup;
    case AddressSpace::Uniform:
      return spv::StorageClass::Uniform;
    case AddressSpace::Storage:
      return spv::StorageClass::StorageBuffer;
    case AddressSpace::PushConstant:
      return spv::StorageClass::PushConstant;
    default:
      return spv::StorageClass::Function;
  }
}

struct Breakable {
  bool is_loop;
  uint32_t merge;
  uint32_t continue_target;  // loops only
};

class Writer {
 public:
  // The AST is reached through the semantic module's function declarations.
  Writer(const sem::Module& s, const WriterOptions& o) : sem_(s), opts_(o) {}

  Words run() {
    capability(spv::Capability::Shader);
    glsl_ = next_id();
    // Which functions to emit: the selected entry points and everything they call.
    std::set<const ast::Function*> wanted;
    std::function<void(const ast::Function*)> want = [&](const ast::Function* f) {
      if (!wanted.insert(f).second) return;
      for (const ast::Function* c : sem_.function(f).callees) want(c);
    };
    for (const auto& f : sem_.functions) {
      if (f.is_entry_point && (opts_.entry_point.empty() || f.decl->name == opts_.entry_point)) want(f.decl);
    }
    for (const auto& f : sem_.functions) function_ids_[f.decl] = next_id();
    for (const auto& f : sem_.functions) {
      if (wanted.count(f.decl)) emit_function(f);
    }
    return assemble();
  }

 private:
  // ------------------------------------------------------------------ module assembly
  uint32_t next_id() { return id_bound_++; }

  static void inst(Words& out, Op op, std::initializer_list<uint32_t> operands) {
    out.push_back(static_cast<uint32_t>((operands.size() + 1) << 16) | static_cast<uint32_t>(op));
    out.insert(out.end(), operands.begin(), operands.end());
  }
  static void inst(Words& out, Op op, const Words& operands) {
    out.push_back(static_cast<uint32_t>((operands.size() + 1) << 16) | static_cast<uint32_t>(op));
    out.insert(out.end(), operands.begin(), operands.end());
  }
  static void append_string(Words& w, const std::string& s) {
    size_t n = s.size() / 4 + 1;
    size_t start = w.size();
    w.resize(start + n, 0);
    std::memcpy(&w[start], s.data(), s.size());
  }

  void capability(spv::Capability c) {
    if (capabilities_.insert(static_cast<uint32_t>(c)).second) {
      inst(capability_section_, Op::OpCapability, {static_cast<uint32_t>(c)});
    }
  }

  void name(uint32_t id, const std::string& n) {
    if (!opts_.emit_names || n.empty()) return;
    Words w{id};
    append_string(w, n);
    inst(names_, Op::OpName, w);
  }
  void member_name(uint32_t id, uint32_t index, const std::string& n) {
    if (!opts_.emit_names) return;
    Words w{id, index};
    append_string(w, n);
    inst(names_, Op::OpMemberName, w);
  }
  void decorate(uint32_t id, spv::Decoration d, std::initializer_list<uint32_t> extra = {}) {
    Words w{id, static_cast<uint32_t>(d)};
    w.insert(w.end(), extra.begin(), extra.end());
    inst(annotations_, Op::OpDecorate, w);
  }

  Words assemble() {
    Words out{0x07230203u, 0x00010300u, 0u /* generator */, id_bound_, 0u};
    out.insert(out.end(), capability_section_.begin(), capability_section_.end());
    {
      Words w{glsl_};
      append_string(w, "GLSL.std.450");
      inst(out, Op::OpExtInstImport, w);
    }
    inst(out, Op::OpMemoryModel,
         {static_cast<uint32_t>(spv::AddressingModel::Logical),
          static_cast<uint32_t>(spv::MemoryModel::GLSL450)});
    out.insert(out.end(), entry_points_.begin(), entry_points_.end());
    out.insert(out.end(), execution_modes_.begin(), execution_modes_.end());
    out.insert(out.end(), names_.begin(), names_.end());
    out.insert(out.end(), annotations_.begin(), annotations_.end());
    out.insert(out.end(), types_.begin(), types_.end());
    out.insert(out.end(), functions_.begin(), functions_.end());
    return out;
  }

  // ------------------------------------------------------------------ types
  uint32_t type_id(const Type* t) {
    if (t->kind == TypeKind::Atomic) return type_id(t->elem);
    auto it = type_ids_.find(t);
    if (it != type_ids_.end()) return it->second;
    uint32_t id = 0;
    switch (t->kind) {
      case TypeKind::Void:
        id = next_id();
        inst(types_, Op::OpTypeVoid, {id});
        break;
      case TypeKind::Bool:
        id = next_id();
        inst(types_, Op::OpTypeBool, {id});
        break;
      case TypeKind::I32:
      case TypeKind::AbstractInt:
        if (t->kind == TypeKind::AbstractInt) return type_id(sem_types().i32());
        id = next_id();
        inst(types_, Op::OpTypeInt, {id, 32, 1});
        break;
      case TypeKind::U32:
        id = next_id();
        inst(types_, Op::OpTypeInt, {id, 32, 0});
        break;
      case TypeKind::F32:
      case TypeKind::AbstractFloat:
        if (t->kind == TypeKind::AbstractFloat) return type_id(sem_types().f32());
        id = next_id();
        inst(types_, Op::OpTypeFloat, {id, 32});
        break;
      case TypeKind::F16:
        capability(spv::Capability::Float16);
        id = next_id();
        inst(types_, Op::OpTypeFloat, {id, 16});
        break;
      case TypeKind::Vector: {
        uint32_t e = type_id(t->elem);
        id = next_id();
        inst(types_, Op::OpTypeVector, {id, e, t->count});
        break;
      }
      case TypeKind::Matrix: {
        uint32_t c = type_id(t->elem);
        id = next_id();
        inst(types_, Op::OpTypeMatrix, {id, c, t->count});
        break;
      }
      case TypeKind::Array: {
        uint32_t e = type_id(t->elem);
        id = next_id();
        if (t->count_expr) {
          uint32_t n = spec_value(*static_cast<const Expr*>(t->count_expr));
          id = next_id();  // the length's instructions precede the type
          inst(types_, Op::OpTypeArray, {id, e, n});
        } else if (t->count == 0) {
          inst(types_, Op::OpTypeRuntimeArray, {id, e});
        } else {
          uint32_t n = u32_constant(t->count);
          inst(types_, Op::OpTypeArray, {id, e, n});
        }
        if (t->elem->is_host_shareable()) decorate(id, spv::Decoration::ArrayStride, {t->stride});
        break;
      }
      case TypeKind::Struct: {
        Words members;
        for (const auto& m : t->members) members.push_back(type_id(m.type));
        id = next_id();
        Words w{id};
        w.insert(w.end(), members.begin(), members.end());
        inst(types_, Op::OpTypeStruct, w);
        name(id, t->name);
        bool layout = t->is_host_shareable();
        for (uint32_t i = 0; i < t->members.size(); ++i) {
          const auto& m = t->members[i];
          member_name(id, i, m.name);
          if (layout) {
            inst(annotations_, Op::OpMemberDecorate,
                 {id, i, static_cast<uint32_t>(spv::Decoration::Offset), m.offset});
            const Type* mt = m.type;
            while (mt->kind == TypeKind::Array) mt = mt->elem;
            if (mt->kind == TypeKind::Matrix) {
              inst(annotations_, Op::OpMemberDecorate,
                   {id, i, static_cast<uint32_t>(spv::Decoration::ColMajor)});
              inst(annotations_, Op::OpMemberDecorate,
                   {id, i, static_cast<uint32_t>(spv::Decoration::MatrixStride), mt->stride});
            }
          }
        }
        break;
      }
      default:
        break;
    }
    type_ids_[t] = id;
    return id;
  }

  TypeTable& sem_types() { return const_cast<TypeTable&>(sem_.types); }

  uint32_t pointer_type(spv::StorageClass sc, uint32_t pointee) {
    auto key = std::make_pair(static_cast<uint32_t>(sc), pointee);
    auto it = pointer_types_.find(key);
    if (it != pointer_types_.end()) return it->second;
    uint32_t id = next_id();
    inst(types_, Op::OpTypePointer, {id, static_cast<uint32_t>(sc), pointee});
    pointer_types_[key] = id;
    return id;
  }

  uint32_t function_type(uint32_t ret, const Words& params) {
    Words key{ret};
    key.insert(key.end(), params.begin(), params.end());
    auto it = function_types_.find(key);
    if (it != function_types_.end()) return it->second;
    uint32_t id = next_id();
    Words w{id, ret};
    w.insert(w.end(), params.begin(), params.end());
    inst(types_, Op::OpTypeFunction, w);
    function_types_[key] = id;
    return id;
  }

  // Value-level SPIR-V type of a sem type (pointers become pointer types).
  uint32_t value_type_id(const Type* t) {
    if (t->kind == TypeKind::Pointer) return pointer_type(storage_class(t->address_space), type_id(t->elem));
    return type_id(t);
  }

  // ------------------------------------------------------------------ constants
  uint32_t scalar_constant(const Type* t, uint32_t bits) {
    uint32_t tid = type_id(t);
    auto key = std::make_tuple(tid, bits);
    auto it = scalar_constants_.find(key);
    if (it != scalar_constants_.end()) return it->second;
    uint32_t id = next_id();
    if (t->kind == TypeKind::Bool) {
      inst(types_, bits ? Op::OpConstantTrue : Op::OpConstantFalse, {tid, id});
    } else {
      inst(types_, Op::OpConstant, {tid, id, bits});
    }
    scalar_constants_[key] = id;
    return id;
  }
  uint32_t u32_constant(uint32_t v) { return scalar_constant(sem_.types.u32(), v); }
  uint32_t i32_constant(int32_t v) { return scalar_constant(sem_.types.i32(), static_cast<uint32_t>(v)); }
  uint32_t bool_constant(bool v) { return scalar_constant(sem_.types.bool_type(), v ? 1 : 0); }

  uint32_t constant(const Value& v, const Type* t) {
    if (t->kind == TypeKind::AbstractInt || t->kind == TypeKind::AbstractFloat || t->is_abstract()) {
      t = sem_types().concretize(t);
    }
    switch (t->kind) {
      case TypeKind::Bool:
        return bool_constant(v.i != 0);
      case TypeKind::I32:
      case TypeKind::U32:
        return scalar_constant(t, static_cast<uint32_t>(v.i));
      case TypeKind::F32: {
        float f = static_cast<float>(v.f);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        return scalar_constant(t, bits);
      }
      case TypeKind::F16:
        return scalar_constant(t, half_bits(v.f));
      default:
        break;
    }
    Words elems;
    for (size_t i = 0; i < v.elements.size(); ++i) {
      const Type* et = t->kind == TypeKind::Struct ? t->members[i].type : t->elem;
      elems.push_back(constant(v.elements[i], et));
    }
    uint32_t tid = type_id(t);
    Words key{tid};
    key.insert(key.end(), elems.begin(), elems.end());
    auto it = composite_constants_.find(key);
    if (it != composite_constants_.end()) return it->second;
    uint32_t id = next_id();
    Words w{tid, id};
    w.insert(w.end(), elems.begin(), elems.end());
    inst(types_, Op::OpConstantComposite, w);
    composite_constants_[key] = id;
    return id;
  }

  uint32_t null_constant(const Type* t) {
    uint32_t tid = type_id(t);
    auto it = null_constants_.find(tid);
    if (it != null_constants_.end()) return it->second;
    uint32_t id = next_id();
    inst(types_, Op::OpConstantNull, {tid, id});
    null_constants_[tid] = id;
    return id;
  }

  // A constant of scalar/vector type `t` with every component equal to `x` (integers) or `f` (floats).
  uint32_t splat_constant(const Type* t, int64_t x, double f) {
    const Type* s = t->scalar();
    Value sv;
    sv.type = s;
    sv.i = x;
    sv.f = f;
    if (t->kind != TypeKind::Vector) return constant(sv, s);
    Value v;
    v.type = t;
    v.elements.assign(t->count, sv);
    return constant(v, t);
  }

  // ------------------------------------------------------------------ globals
  struct GlobalIds {
    uint32_t var = 0;
    bool wrapped = false;  // storage/uniform non-struct types are wrapped in a Block struct
  };

  const GlobalIds& global(const ast::VarDecl* d) {
    auto it = globals_.find(d);
    if (it != globals_.end()) return it->second;
    const sem::GlobalVar& gv = sem_.globals.at(d);
    GlobalIds g;
    spv::StorageClass sc = storage_class(gv.address_space);
    const Type* st = gv.store_type;
    uint32_t pointee = 0;
    if (gv.address_space == AddressSpace::Storage || gv.address_space == AddressSpace::Uniform) {
      // A struct ending in a runtime-sized array must itself be the Block (the array must be the Block's last
      // member), and can appear nowhere else. Everything else is wrapped in a fresh Block struct, so that
      // user structs used in several buffers are never Block-decorated and may nest.
      if (st->kind == TypeKind::Struct && st->has_runtime_array()) {
        pointee = type_id(st);
        if (block_structs_.insert(pointee).second) decorate(pointee, spv::Decoration::Block);
      } else {
        g.wrapped = true;
        uint32_t inner = type_id(st);
        pointee = next_id();
        inst(types_, Op::OpTypeStruct, {pointee, inner});
        decorate(pointee, spv::Decoration::Block);
        inst(annotations_, Op::OpMemberDecorate,
             {pointee, 0, static_cast<uint32_t>(spv::Decoration::Offset), 0});
        if (st->kind == TypeKind::Matrix) {
          inst(annotations_, Op::OpMemberDecorate,
               {pointee, 0, static_cast<uint32_t>(spv::Decoration::ColMajor)});
          inst(annotations_, Op::OpMemberDecorate,
               {pointee, 0, static_cast<uint32_t>(spv::Decoration::MatrixStride), st->stride});
        }
        name(pointee, d->name + "_block");
      }
      if (uses_16bit(st)) {
        capability(gv.address_space == AddressSpace::Storage
                       ? spv::Capability::StorageBuffer16BitAccess
                       : spv::Capability::UniformAndStorageBuffer16BitAccess);
      }
    } else {
      pointee = type_id(st);
    }
    uint32_t ptr = pointer_type(sc, pointee);
    g.var = next_id();
    const sem::ExprInfo* init = d->init ? &sem_.info(*d->init) : nullptr;
    if (init && init->value) {
      uint32_t c = constant(*init->value, st);
      inst(types_, Op::OpVariable, {ptr, g.var, static_cast<uint32_t>(sc), c});
    } else if (gv.address_space == AddressSpace::Private) {
      inst(types_, Op::OpVariable, {ptr, g.var, static_cast<uint32_t>(sc), null_constant(st)});
    } else {
      inst(types_, Op::OpVariable, {ptr, g.var, static_cast<uint32_t>(sc)});
    }
    name(g.var, d->name);
    if (gv.group) {
      decorate(g.var, spv::Decoration::DescriptorSet, {*gv.group});
      decorate(g.var, spv::Decoration::Binding, {*gv.binding});
    }
    if (gv.address_space == AddressSpace::Storage && gv.access == Access::Read) {
      decorate(g.var, spv::Decoration::NonWritable);
    }
    return globals_[d] = g;
  }

  static bool uses_16bit(const Type* t) {
    switch (t->kind) {
      case TypeKind::F16:
        return true;
      case TypeKind::Vector:
      case TypeKind::Matrix:
      case TypeKind::Array:
        return uses_16bit(t->elem);
      case TypeKind::Struct:
        for (const auto& m : t->members) {
          if (uses_16bit(m.type)) return true;
        }
        return false;
      default:
        return false;
    }
  }

  // An override-expression as a specialization constant (integer and bool operations only; the resolver
  // rejects others where they would need one).
  uint32_t spec_value(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    const Type* t = in.type;
    if (in.value) return constant(*in.value, t);
    if (e.kind == ExprKind::Identifier) return override_id(in.var);
    auto it = spec_values_.find(e.id);
    if (it != spec_values_.end()) return it->second;
    auto spec_op = [&](Op op, Words operands) {
      uint32_t id = next_id();
      Words w{type_id(t), id, static_cast<uint32_t>(op)};
      w.insert(w.end(), operands.begin(), operands.end());
      inst(types_, Op::OpSpecConstantOp, w);
      return id;
    };
    uint32_t id = 0;
    if (e.kind == ExprKind::Unary) {
      uint32_t v = spec_value(*e.lhs);
      id = spec_op(e.unary_op == UnaryOp::Negate ? Op::OpSNegate
                   : e.unary_op == UnaryOp::Not  ? Op::OpLogicalNot
                                                 : Op::OpNot,
                   {v});
    } else if (e.kind == ExprKind::Binary) {
      const Type* lt = info(*e.lhs).type;
      uint32_t l = spec_value(*e.lhs), r = spec_value(*e.rhs);
      const bool is_signed = lt->kind == TypeKind::I32;
      const bool is_bool = lt->kind == TypeKind::Bool;
      Op op = Op::OpNop;
      switch (e.binary_op) {
        case BinaryOp::Add:
          op = Op::OpIAdd;
          break;
        case BinaryOp::Sub:
          op = Op::OpISub;
          break;
        case BinaryOp::Mul:
          op = Op::OpIMul;
          break;
        case BinaryOp::Div:
        case BinaryOp::Mod: {
          // x / 0 = x and x % 0 = 0 as at run time: divide by 1 instead of 0.
          const Type* bt = sem_.types.bool_type();
          uint32_t zero = constant(Value{lt, 0, 0.0, {}}, lt), one = constant(Value{lt, 1, 0.0, {}}, lt);
          uint32_t cond_id = next_id();
          inst(types_, Op::OpSpecConstantOp,
               {type_id(bt), cond_id, static_cast<uint32_t>(Op::OpIEqual), r, zero});
          uint32_t safe = next_id();
          inst(types_, Op::OpSpecConstantOp,
               {type_id(lt), safe, static_cast<uint32_t>(Op::OpSelect), cond_id, one, r});
          r = safe;
          op = e.binary_op == BinaryOp::Div ? (is_signed ? Op::OpSDiv : Op::OpUDiv)
                                            : (is_signed ? Op::OpSRem : Op::OpUMod);
          break;
        }
        case BinaryOp::And:
          op = is_bool ? Op::OpLogicalAnd : Op::OpBitwiseAnd;
          break;
        case BinaryOp::Or:
          op = is_bool ? Op::OpLogicalOr : Op::OpBitwiseOr;
          break;
        case BinaryOp::Xor:
          op = Op::OpBitwiseXor;
          break;
        case BinaryOp::ShiftLeft:
          op = Op::OpShiftLeftLogical;
          break;
        case BinaryOp::ShiftRight:
          op = is_signed ? Op::OpShiftRightArithmetic : Op::OpShiftRightLogical;
          break;
        case BinaryOp::LogicalAnd:
          op = Op::OpLogicalAnd;
          break;
        case BinaryOp::LogicalOr:
          op = Op::OpLogicalOr;
          break;
        case BinaryOp::Equal:
          op = is_bool ? Op::OpLogicalEqual : Op::OpIEqual;
          break;
        case BinaryOp::NotEqual:
          op = is_bool ? Op::OpLogicalNotEqual : Op::OpINotEqual;
          break;
        case BinaryOp::Less:
          op = is_signed ? Op::OpSLessThan : Op::OpULessThan;
          break;
        case BinaryOp::LessEqual:
          op = is_signed ? Op::OpSLessThanEqual : Op::OpULessThanEqual;
          break;
        case BinaryOp::Greater:
          op = is_signed ? Op::OpSGreaterThan : Op::OpUGreaterThan;
          break;
        case BinaryOp::GreaterEqual:
          op = is_signed ? Op::OpSGreaterThanEqual : Op::OpUGreaterThanEqual;
          break;
      }
      id = spec_op(op, {l, r});
    } else if (e.kind == ExprKind::Call && in.call == CallKind::Conversion) {
      // i32 <-> u32 (same width: an integer add of zero reinterprets the bits).
      uint32_t v = spec_value(*e.args[0]);
      const Type* from = info(*e.args[0]).type;
      if (from == t) return v;
      id = spec_op(Op::OpIAdd, {v, constant(Value{t, 0, 0.0, {}}, t)});
    } else if (e.kind == ExprKind::Call && in.call == CallKind::Builtin &&
               (in.builtin == BuiltinFn::Select || in.builtin == BuiltinFn::Min ||
                in.builtin == BuiltinFn::Max)) {
      Words args;
      for (const auto& a : e.args) args.push_back(spec_value(*a));
      if (in.builtin == BuiltinFn::Select) {
        id = spec_op(Op::OpSelect, {args[2], args[1], args[0]});
      } else {
        const bool is_signed = t->kind == TypeKind::I32;
        uint32_t less = next_id();
        inst(types_, Op::OpSpecConstantOp,
             {type_id(sem_.types.bool_type()), less,
              static_cast<uint32_t>(is_signed ? Op::OpSLessThan : Op::OpULessThan), args[0], args[1]});
        id = in.builtin == BuiltinFn::Min ? spec_op(Op::OpSelect, {less, args[0], args[1]})
                                          : spec_op(Op::OpSelect, {less, args[1], args[0]});
      }
    }
    spec_values_[e.id] = id;
    return id;
  }

  uint32_t override_id(const ast::VarDecl* d) {
    auto it = overrides_.find(d);
    if (it != overrides_.end()) return it->second;
    const sem::Override& ov = sem_.overrides.at(d);
    if (ov.derived_from) {
      uint32_t id = spec_value(*ov.derived_from);
      overrides_[d] = id;
      return id;
    }
    uint32_t tid = type_id(ov.type);
    uint32_t id = next_id();
    const Value dv = ov.default_value ? *ov.default_value : Value{ov.type, 0, 0.0, {}};
    switch (ov.type->kind) {
      case TypeKind::Bool:
        inst(types_, dv.i ? Op::OpSpecConstantTrue : Op::OpSpecConstantFalse, {tid, id});
        break;
      case TypeKind::F32: {
        float f = static_cast<float>(dv.f);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        inst(types_, Op::OpSpecConstant, {tid, id, bits});
        break;
      }
      case TypeKind::F16:
        inst(types_, Op::OpSpecConstant, {tid, id, half_bits(dv.f)});
        break;
      default:
        inst(types_, Op::OpSpecConstant, {tid, id, static_cast<uint32_t>(dv.i)});
        break;
    }
    decorate(id, spv::Decoration::SpecId, {ov.spec_id});
    name(id, d->name);
    overrides_[d] = id;
    return id;
  }

  uint32_t builtin_input(BuiltinValue b, const Type* t) {
    auto it = builtin_inputs_.find(b);
    if (it != builtin_inputs_.end()) return it->second;
    uint32_t ptr = pointer_type(spv::StorageClass::Input, type_id(t));
    uint32_t id = next_id();
    inst(types_, Op::OpVariable, {ptr, id, static_cast<uint32_t>(spv::StorageClass::Input)});
    spv::BuiltIn bi = spv::BuiltIn::GlobalInvocationId;
    switch (b) {
      case BuiltinValue::GlobalInvocationId:
        bi = spv::BuiltIn::GlobalInvocationId;
        break;
      case BuiltinValue::LocalInvocationId:
        bi = spv::BuiltIn::LocalInvocationId;
        break;
      case BuiltinValue::LocalInvocationIndex:
        bi = spv::BuiltIn::LocalInvocationIndex;
        break;
      case BuiltinValue::WorkgroupId:
        bi = spv::BuiltIn::WorkgroupId;
        break;
      case BuiltinValue::NumWorkgroups:
        bi = spv::BuiltIn::NumWorkgroups;
        break;
      case BuiltinValue::SubgroupSize:
        bi = spv::BuiltIn::SubgroupSize;
        capability(spv::Capability::GroupNonUniform);
        break;
      case BuiltinValue::SubgroupInvocationId:
        bi = spv::BuiltIn::SubgroupLocalInvocationId;
        capability(spv::Capability::GroupNonUniform);
        break;
    }
    decorate(id, spv::Decoration::BuiltIn, {static_cast<uint32_t>(bi)});
    name(id, sem::to_string(b));
    builtin_inputs_[b] = id;
    return id;
  }

  // ------------------------------------------------------------------ functions
  // Emits into the current function's body.
  uint32_t emit(Op op, uint32_t result_type, const Words& operands) {
    uint32_t id = next_id();
    Words w{result_type, id};
    w.insert(w.end(), operands.begin(), operands.end());
    inst(body_, op, w);
    return id;
  }
  void emit_void(Op op, const Words& operands) { inst(body_, op, operands); }
  uint32_t ext(uint32_t result_type, uint32_t instruction, const Words& operands) {
    Words w{glsl_, instruction};
    w.insert(w.end(), operands.begin(), operands.end());
    return emit(Op::OpExtInst, result_type, w);
  }

  void label(uint32_t id) {
    inst(body_, Op::OpLabel, {id});
    current_label_ = id;
    terminated_ = false;
  }
  void branch(uint32_t target) {
    if (terminated_) return;
    inst(body_, Op::OpBranch, {target});
    reached_.insert(target);
    terminated_ = true;
  }
  void branch_conditional(uint32_t cond, uint32_t t, uint32_t f) {
    inst(body_, Op::OpBranchConditional, {cond, t, f});
    reached_.insert(t);
    reached_.insert(f);
    terminated_ = true;
  }
  // Starts a merge block; when nothing branches to it the block is unreachable.
  void merge_label(uint32_t id) {
    label(id);
    if (!reached_.count(id)) {
      inst(body_, Op::OpUnreachable, {});
      terminated_ = true;
    }
  }

  uint32_t local_variable(const Type* t, const std::string& n) {
    uint32_t ptr = pointer_type(spv::StorageClass::Function, type_id(t));
    uint32_t id = next_id();
    inst(fn_vars_, Op::OpVariable, {ptr, id, static_cast<uint32_t>(spv::StorageClass::Function)});
    name(id, n);
    return id;
  }

  void emit_function(const sem::Function& f) {
    body_.clear();
    fn_vars_.clear();
    locals_.clear();
    reached_.clear();
    breakables_.clear();
    current_fn_ = &f;
    Words header;
    uint32_t fn_id = function_ids_.at(f.decl);
    name(fn_id, f.decl->name);
    uint32_t ret = type_id(f.is_entry_point ? sem_.types.void_type() : f.return_type);
    Words param_types;
    if (!f.is_entry_point) {
      for (const auto& p : f.params) param_types.push_back(value_type_id(p.type));
    }
    uint32_t fty = function_type(ret, param_types);
    inst(header, Op::OpFunction,
         {ret, fn_id, static_cast<uint32_t>(spv::FunctionControlMask::MaskNone), fty});
    if (!f.is_entry_point) {
      for (size_t i = 0; i < f.params.size(); ++i) {
        uint32_t pid = next_id();
        inst(header, Op::OpFunctionParameter, {param_types[i], pid});
        name(pid, f.params[i].decl->name);
        locals_[f.params[i].decl] = pid;
      }
    }
    uint32_t entry = next_id();
    current_label_ = entry;
    terminated_ = false;
    if (f.is_entry_point) {
      for (const auto& p : f.params) {
        if (!p.member_builtins.empty()) {
          Words members;
          for (size_t m = 0; m < p.member_builtins.size(); ++m) {
            const Type* mt = p.type->members[m].type;
            members.push_back(emit(Op::OpLoad, type_id(mt), {builtin_input(p.member_builtins[m], mt)}));
          }
          uint32_t v = emit(Op::OpCompositeConstruct, type_id(p.type), members);
          name(v, p.decl->name);
          locals_[p.decl] = v;
          continue;
        }
        uint32_t var = builtin_input(*p.builtin, p.type);
        uint32_t v = emit(Op::OpLoad, type_id(p.type), {var});
        name(v, p.decl->name);
        locals_[p.decl] = v;
      }
      if (opts_.zero_initialize_workgroup_memory) zero_initialize_workgroup(f);
    }
    statements(*f.decl->body);
    if (!terminated_) {
      if (f.is_entry_point || f.return_type->kind == TypeKind::Void) {
        emit_void(Op::OpReturn, {});
      } else {
        emit_void(Op::OpUnreachable, {});
      }
    }
    functions_.insert(functions_.end(), header.begin(), header.end());
    inst(functions_, Op::OpLabel, {entry});
    functions_.insert(functions_.end(), fn_vars_.begin(), fn_vars_.end());
    functions_.insert(functions_.end(), body_.begin(), body_.end());
    inst(functions_, Op::OpFunctionEnd, {});
    if (f.is_entry_point) emit_entry_point(f, fn_id);
  }

  void emit_entry_point(const sem::Function& f, uint32_t fn_id) {
    Words w{static_cast<uint32_t>(spv::ExecutionModel::GLCompute), fn_id};
    append_string(w, f.decl->name);
    for (const auto& [b, id] : builtin_inputs_) w.push_back(id);
    inst(entry_points_, Op::OpEntryPoint, w);
    inst(execution_modes_, Op::OpExecutionMode,
         {fn_id, static_cast<uint32_t>(spv::ExecutionMode::LocalSize), f.workgroup_size[0].value,
          f.workgroup_size[1].value, f.workgroup_size[2].value});
    bool any_override = false;
    for (const auto& d : f.workgroup_size) any_override |= d.override_decl || d.override_expr;
    if (any_override && !workgroup_size_builtin_) {
      // A spec-constant composite decorated WorkgroupSize overrides LocalSize (valid in Vulkan 1.1/1.2,
      // unlike LocalSizeId which needs maintenance4).
      Words comps;
      const Type* u32 = sem_.types.u32();
      for (const auto& d : f.workgroup_size) comps.push_back(workgroup_dim(d));
      uint32_t id = next_id();
      inst(types_, Op::OpSpecConstantComposite,
           {type_id(sem_types().vector(u32, 3)), id, comps[0], comps[1], comps[2]});
      decorate(id, spv::Decoration::BuiltIn, {static_cast<uint32_t>(spv::BuiltIn::WorkgroupSize)});
      workgroup_size_builtin_ = id;
    }
  }

  // One workgroup-size dimension as a u32 constant or specialization constant.
  uint32_t workgroup_dim(const sem::WorkgroupDim& d) {
    const Type* u32 = sem_.types.u32();
    if (!d.override_decl && !d.override_expr) return scalar_constant(u32, d.value);
    uint32_t v = d.override_decl ? override_id(d.override_decl) : spec_value(*d.override_expr);
    const Type* t = d.override_decl ? sem_.overrides.at(d.override_decl).type : info(*d.override_expr).type;
    if (t == u32) return v;
    uint32_t id = next_id();  // i32 -> u32: same width, reinterpret with an add of zero
    inst(types_, Op::OpSpecConstantOp,
         {type_id(u32), id, static_cast<uint32_t>(Op::OpIAdd), v, u32_constant(0)});
    return id;
  }

  // WGSL zero-initializes workgroup variables. Arrays are cleared cooperatively (strided by the invocation
  // index) when the workgroup size is a constant; anything else is cleared by invocation 0. Then a barrier.
  void zero_initialize_workgroup(const sem::Function& f) {
    std::vector<const ast::VarDecl*> vars;
    for (const ast::VarDecl* g : f.globals) {
      auto it = sem_.globals.find(g);
      if (it != sem_.globals.end() && it->second.address_space == AddressSpace::Workgroup) vars.push_back(g);
    }
    if (vars.empty()) return;
    const Type* u32 = sem_.types.u32();
    const Type* boolean = sem_.types.bool_type();
    uint32_t index_var = builtin_input(BuiltinValue::LocalInvocationIndex, u32);
    uint32_t lidx = emit(Op::OpLoad, type_id(u32), {index_var});
    // The number of invocations: a constant, or computed from the specialization constants.
    uint32_t total_id = 0;
    {
      bool constant_size = true;
      uint32_t total = 1;
      for (const auto& d : f.workgroup_size) {
        constant_size &= !d.override_decl && !d.override_expr;
        total *= d.value;
      }
      if (constant_size) {
        total_id = u32_constant(total);
      } else {
        uint32_t x = workgroup_dim(f.workgroup_size[0]), y = workgroup_dim(f.workgroup_size[1]);
        uint32_t z = workgroup_dim(f.workgroup_size[2]);
        uint32_t xy = emit(Op::OpIMul, type_id(u32), {x, y});
        total_id = emit(Op::OpIMul, type_id(u32), {xy, z});
      }
    }
    std::vector<const ast::VarDecl*> by_thread0;
    for (const ast::VarDecl* g : vars) {
      const sem::GlobalVar& gv = sem_.globals.at(g);
      const Type* t = gv.store_type;
      if (!(t->kind == TypeKind::Array && (t->count > 1 || t->count_expr))) {
        by_thread0.push_back(g);
        continue;
      }
      const uint32_t count_id =
          t->count_expr ? spec_value(*static_cast<const Expr*>(t->count_expr)) : u32_constant(t->count);
      // for (i = lidx; i < count; i += total) arr[i] = 0
      uint32_t ivar = local_variable(u32, "zero_init_index");
      emit_void(Op::OpStore, {ivar, lidx});
      uint32_t header = next_id(), cond_block = next_id(), body = next_id(), cont = next_id(),
               merge = next_id();
      branch(header);
      label(header);
      emit_void(Op::OpLoopMerge, {merge, cont, 0});
      branch(cond_block);
      label(cond_block);
      uint32_t i = emit(Op::OpLoad, type_id(u32), {ivar});
      uint32_t in_range = emit(Op::OpULessThan, type_id(boolean), {i, count_id});
      branch_conditional(in_range, body, merge);
      label(body);
      uint32_t elem_ptr =
          emit(Op::OpAccessChain, pointer_type(spv::StorageClass::Workgroup, type_id(t->elem)),
               {global(g).var, i});
      zero_store(elem_ptr, t->elem, AddressSpace::Workgroup);
      branch(cont);
      label(cont);
      uint32_t i2 = emit(Op::OpLoad, type_id(u32), {ivar});
      uint32_t next = emit(Op::OpIAdd, type_id(u32), {i2, total_id});
      emit_void(Op::OpStore, {ivar, next});
      branch(header);
      merge_label(merge);
    }
    if (!by_thread0.empty()) {
      uint32_t is0 = emit(Op::OpIEqual, type_id(boolean), {lidx, u32_constant(0)});
      uint32_t then_block = next_id(), merge = next_id();
      emit_void(Op::OpSelectionMerge, {merge, 0});
      branch_conditional(is0, then_block, merge);
      label(then_block);
      for (const ast::VarDecl* g : by_thread0) {
        zero_store(global(g).var, sem_.globals.at(g).store_type, AddressSpace::Workgroup);
      }
      branch(merge);
      merge_label(merge);
    }
    control_barrier(0x8 | 0x100);
  }

  // Stores zero through `ptr`; atomics need OpAtomicStore, structs/arrays containing them are split.
  void zero_store(uint32_t ptr, const Type* t, AddressSpace as) {
    if (t->kind == TypeKind::Atomic) {
      emit_void(Op::OpAtomicStore, {ptr, u32_constant(2), u32_constant(0), null_constant(t->elem)});
      return;
    }
    if (t->contains_atomic()) {
      spv::StorageClass sc = storage_class(as);
      if (t->kind == TypeKind::Struct) {
        for (uint32_t i = 0; i < t->members.size(); ++i) {
          uint32_t mp =
              emit(Op::OpAccessChain, pointer_type(sc, type_id(t->members[i].type)), {ptr, u32_constant(i)});
          zero_store(mp, t->members[i].type, as);
        }
      } else {
        for (uint32_t i = 0; i < t->count; ++i) {
          uint32_t ep = emit(Op::OpAccessChain, pointer_type(sc, type_id(t->elem)), {ptr, u32_constant(i)});
          zero_store(ep, t->elem, as);
        }
      }
      return;
    }
    emit_void(Op::OpStore, {ptr, null_constant(t)});
  }

  void control_barrier(uint32_t semantics) {
    emit_void(Op::OpControlBarrier, {u32_constant(2), u32_constant(2), u32_constant(semantics)});
  }

  // ------------------------------------------------------------------ statements
  void statements(const Stmt& block) {
    for (const auto& s : block.statements) {
      if (terminated_) return;  // dead code after return/break/continue
      statement(*s);
    }
  }

  void statement(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Block:
        statements(s);
        break;
      case StmtKind::Decl:
        declaration(*s.decl);
        break;
      case StmtKind::Assign: {
        if (!s.lhs) {
          value(*s.expr);
          break;
        }
        uint32_t ptr = pointer(*s.lhs);
        uint32_t v = value(*s.expr);
        emit_void(Op::OpStore, {ptr, v});
        break;
      }
      case StmtKind::CompoundAssign: {
        uint32_t ptr = pointer(*s.lhs);
        const Type* lt = info(*s.lhs).type->elem;
        uint32_t old = emit(Op::OpLoad, type_id(lt), {ptr});
        const Type* rt = info(*s.expr).type;
        if (rt->kind == TypeKind::Reference) rt = rt->elem;
        uint32_t rhs = value(*s.expr);
        uint32_t v =
            binary_op(s.op, lt, old, rt, rhs, lt, info(*s.expr).value ? &*info(*s.expr).value : nullptr);
        emit_void(Op::OpStore, {ptr, v});
        break;
      }
      case StmtKind::Increment:
      case StmtKind::Decrement: {
        uint32_t ptr = pointer(*s.lhs);
        const Type* lt = info(*s.lhs).type->elem;
        uint32_t old = emit(Op::OpLoad, type_id(lt), {ptr});
        uint32_t one = scalar_constant(lt, 1);
        uint32_t v = emit(s.kind == StmtKind::Increment ? Op::OpIAdd : Op::OpISub, type_id(lt), {old, one});
        emit_void(Op::OpStore, {ptr, v});
        break;
      }
      case StmtKind::Call:
        value(*s.expr);
        break;
      case StmtKind::If:
        if_statement(s);
        break;
      case StmtKind::Switch:
        switch_statement(s);
        break;
      case StmtKind::Loop:
      case StmtKind::For:
      case StmtKind::While:
        loop_statement(s);
        break;
      case StmtKind::Break: {
        branch(breakables_.back().merge);
        break;
      }
      case StmtKind::Continue: {
        for (auto it = breakables_.rbegin(); it != breakables_.rend(); ++it) {
          if (it->is_loop) {
            branch(it->continue_target);
            break;
          }
        }
        break;
      }
      case StmtKind::Return:
        if (s.expr) {
          uint32_t v = value(*s.expr);
          emit_void(Op::OpReturnValue, {v});
        } else {
          emit_void(Op::OpReturn, {});
        }
        terminated_ = true;
        break;
      default:
        break;  // const_assert: nothing at run time
    }
  }

  void declaration(const ast::VarDecl& d) {
    switch (d.kind) {
      case ast::DeclKind::Let: {
        uint32_t v = value(*d.init);
        name(v, d.name);
        locals_[&d] = v;
        break;
      }
      case ast::DeclKind::Var: {
        const Type* t = sem_.local_types.at(&d);
        uint32_t var = local_variable(t, d.name);
        locals_[&d] = var;
        uint32_t init = d.init ? value(*d.init) : null_constant(t);
        emit_void(Op::OpStore, {var, init});
        break;
      }
      default:
        break;
    }
  }

  void if_statement(const Stmt& s) {
    uint32_t cond = value(*s.expr);
    uint32_t then_block = next_id(), merge = next_id();
    uint32_t else_block = s.else_branch ? next_id() : merge;
    emit_void(Op::OpSelectionMerge, {merge, 0});
    branch_conditional(cond, then_block, else_block);
    label(then_block);
    statements(*s.body);
    branch(merge);
    if (s.else_branch) {
      label(else_block);
      statement(*s.else_branch);
      branch(merge);
    }
    merge_label(merge);
  }

  void switch_statement(const Stmt& s) {
    uint32_t sel = value(*s.expr);
    uint32_t merge = next_id();
    std::vector<uint32_t> labels;
    uint32_t default_label = merge;
    Words targets;
    for (const auto& c : s.cases) {
      uint32_t l = next_id();
      labels.push_back(l);
      for (const auto& v : c.selectors) {
        if (!v) {
          default_label = l;
        } else {
          targets.push_back(static_cast<uint32_t>(info(*v).value->i));
          targets.push_back(l);
        }
      }
    }
    emit_void(Op::OpSelectionMerge, {merge, 0});
    Words w{sel, default_label};
    w.insert(w.end(), targets.begin(), targets.end());
    emit_void(Op::OpSwitch, w);
    for (uint32_t l : labels) reached_.insert(l);
    terminated_ = true;
    breakables_.push_back({false, merge, 0});
    for (size_t i = 0; i < s.cases.size(); ++i) {
      label(labels[i]);
      statements(*s.cases[i].body);
      branch(merge);
    }
    breakables_.pop_back();
    merge_label(merge);
  }

  void loop_statement(const Stmt& s) {
    if (s.kind == StmtKind::For && s.init) statement(*s.init);
    uint32_t header = next_id(), body = next_id(), cont = next_id(), merge = next_id();
    branch(header);
    label(header);
    emit_void(Op::OpLoopMerge, {merge, cont, 0});
    if (s.kind != StmtKind::Loop && s.expr) {
      uint32_t cond_block = next_id();
      branch(cond_block);
      label(cond_block);
      uint32_t cond = value(*s.expr);
      branch_conditional(cond, body, merge);
    } else {
      branch(body);
    }
    label(body);
    breakables_.push_back({true, merge, cont});
    statements(*s.body);
    branch(cont);
    breakables_.pop_back();
    label(cont);
    if (s.kind == StmtKind::For && s.update) statement(*s.update);
    bool has_break_if = false;
    if (s.continuing) {
      for (const auto& c : s.continuing->statements) {
        if (terminated_) break;
        if (c->kind == StmtKind::BreakIf) {
          uint32_t cond = value(*c->expr);
          branch_conditional(cond, merge, header);
          has_break_if = true;
        } else {
          statement(*c);
        }
      }
    }
    if (!has_break_if) branch(header);
    merge_label(merge);
  }

  // ------------------------------------------------------------------ expressions
  const sem::ExprInfo& info(const Expr& e) const { return sem_.info(e); }

  // The SPIR-V id of `e`'s value (loading from memory views).
  uint32_t value(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    if (in.value) return constant(*in.value, in.type);
    if (in.type->kind == TypeKind::Reference) {
      uint32_t ptr = pointer(e);
      return emit(Op::OpLoad, type_id(in.type->elem), {ptr});
    }
    switch (e.kind) {
      case ExprKind::Identifier:
        switch (in.symbol) {
          case SymbolKind::LocalLet:
            return locals_.at(in.var);
          case SymbolKind::Param:
            return locals_.at(in.param);
          case SymbolKind::Override:
            return override_id(in.var);
          default:
            break;
        }
        break;
      case ExprKind::Unary:
        return unary(e);
      case ExprKind::Binary:
        return binary(e);
      case ExprKind::Call:
        return call(e);
      case ExprKind::Index:
        return index_value(e);
      case ExprKind::Member:
        return member_value(e);
      default:
        break;
    }
    return 0;
  }

  // The pointer id of a reference-typed expression.
  uint32_t pointer(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    switch (e.kind) {
      case ExprKind::Identifier:
        if (in.symbol == SymbolKind::LocalVar) return locals_.at(in.var);
        if (in.symbol == SymbolKind::GlobalVar) return global_pointer(in.var);
        break;
      case ExprKind::Unary:
        if (e.unary_op == UnaryOp::Deref) return value(*e.lhs);
        break;
      case ExprKind::Index: {
        uint32_t base = base_pointer(*e.lhs);
        uint32_t idx = robust_index(e, value(*e.rhs));
        return emit(Op::OpAccessChain, pointer_to(in.type), {base, idx});
      }
      case ExprKind::Member: {
        uint32_t base = base_pointer(*e.lhs);
        uint32_t idx = in.member_index >= 0 ? u32_constant(static_cast<uint32_t>(in.member_index))
                                            : u32_constant(in.swizzle[0]);
        return emit(Op::OpAccessChain, pointer_to(in.type), {base, idx});
      }
      default:
        break;
    }
    return 0;
  }

  // Pointer for a composite access base: a reference, or a pointer value (`p[i]`, `p.m`).
  uint32_t base_pointer(const Expr& base) {
    if (info(base).type->kind == TypeKind::Pointer) return value(base);
    return pointer(base);
  }

  uint32_t pointer_to(const Type* ref) {
    return pointer_type(storage_class(ref->address_space), type_id(ref->elem));
  }

  uint32_t global_pointer(const ast::VarDecl* d) {
    const GlobalIds& g = global(d);
    if (!g.wrapped) return g.var;
    const sem::GlobalVar& gv = sem_.globals.at(d);
    return emit(Op::OpAccessChain, pointer_type(storage_class(gv.address_space), type_id(gv.store_type)),
                {g.var, u32_constant(0)});
  }

  uint32_t index_value(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    const Type* bt = info(*e.lhs).type;
    if (bt->kind == TypeKind::Pointer) {
      uint32_t ptr = emit(Op::OpAccessChain, pointer_type(storage_class(bt->address_space), type_id(in.type)),
                          {value(*e.lhs), value(*e.rhs)});
      return emit(Op::OpLoad, type_id(in.type), {ptr});
    }
    uint32_t base = value(*e.lhs);
    const auto& iv = info(*e.rhs).value;
    if (iv) return emit(Op::OpCompositeExtract, type_id(in.type), {base, static_cast<uint32_t>(iv->i)});
    uint32_t idx = robust_index(e, value(*e.rhs));
    if (bt->kind == TypeKind::Vector) return emit(Op::OpVectorExtractDynamic, type_id(in.type), {base, idx});
    // Dynamic index into an array/matrix value: spill to a function variable.
    uint32_t tmp = local_variable(bt, "index_tmp");
    emit_void(Op::OpStore, {tmp, base});
    uint32_t ptr =
        emit(Op::OpAccessChain, pointer_type(spv::StorageClass::Function, type_id(in.type)), {tmp, idx});
    return emit(Op::OpLoad, type_id(in.type), {ptr});
  }

  uint32_t member_value(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    const Type* bt = info(*e.lhs).type;
    uint32_t base;
    const Type* base_value_type;
    if (bt->kind == TypeKind::Reference || bt->kind == TypeKind::Pointer) {
      // Multi-component swizzle of a memory view: load the vector first.
      uint32_t ptr = bt->kind == TypeKind::Pointer ? value(*e.lhs) : pointer(*e.lhs);
      base = emit(Op::OpLoad, type_id(bt->elem), {ptr});
      base_value_type = bt->elem;
    } else {
      base = value(*e.lhs);
      base_value_type = bt;
    }
    if (in.member_index >= 0) {
      return emit(Op::OpCompositeExtract, type_id(in.type), {base, static_cast<uint32_t>(in.member_index)});
    }
    if (in.swizzle.size() == 1) return emit(Op::OpCompositeExtract, type_id(in.type), {base, in.swizzle[0]});
    (void)base_value_type;
    Words w{base, base};
    w.insert(w.end(), in.swizzle.begin(), in.swizzle.end());
    return emit(Op::OpVectorShuffle, type_id(in.type), w);
  }

  uint32_t unary(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    if (e.unary_op == UnaryOp::AddressOf) return pointer(*e.lhs);
    uint32_t v = value(*e.lhs);
    const Type* t = in.type;
    const Type* s = t->scalar();
    switch (e.unary_op) {
      case UnaryOp::Negate:
        if (t->kind == TypeKind::Matrix) {
          Words cols;
          for (uint32_t c = 0; c < t->count; ++c) {
            uint32_t col = emit(Op::OpCompositeExtract, type_id(t->elem), {v, c});
            cols.push_back(emit(Op::OpFNegate, type_id(t->elem), {col}));
          }
          return emit(Op::OpCompositeConstruct, type_id(t), cols);
        }
        return emit(s->is_float_scalar() ? Op::OpFNegate : Op::OpSNegate, type_id(t), {v});
      case UnaryOp::Not:
        return emit(Op::OpLogicalNot, type_id(t), {v});
      case UnaryOp::Complement:
        return emit(Op::OpNot, type_id(t), {v});
      default:
        break;
    }
    return 0;
  }

  uint32_t binary(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    if ((e.binary_op == BinaryOp::LogicalAnd || e.binary_op == BinaryOp::LogicalOr) &&
        !speculatable(*e.rhs)) {
      // Short circuit: the right side is evaluated only when needed.
      uint32_t lhs = value(*e.lhs);
      uint32_t lhs_block = current_label_;
      uint32_t rhs_block = next_id(), merge = next_id();
      emit_void(Op::OpSelectionMerge, {merge, 0});
      if (e.binary_op == BinaryOp::LogicalAnd) {
        branch_conditional(lhs, rhs_block, merge);
      } else {
        branch_conditional(lhs, merge, rhs_block);
      }
      label(rhs_block);
      uint32_t rhs = value(*e.rhs);
      uint32_t rhs_end = current_label_;
      branch(merge);
      label(merge);
      return emit(Op::OpPhi, type_id(in.type), {lhs, lhs_block, rhs, rhs_end});
    }
    if (e.binary_op == BinaryOp::LogicalAnd || e.binary_op == BinaryOp::LogicalOr) {
      // The right side has no effects and cannot fault: evaluate it unconditionally (no branch).
      uint32_t l = value(*e.lhs);
      uint32_t r = value(*e.rhs);
      return emit(e.binary_op == BinaryOp::LogicalAnd ? Op::OpLogicalAnd : Op::OpLogicalOr, type_id(in.type),
                  {l, r});
    }
    const Type* lt = info(*e.lhs).type;
    if (lt->kind == TypeKind::Reference) lt = lt->elem;
    const Type* rt = info(*e.rhs).type;
    if (rt->kind == TypeKind::Reference) rt = rt->elem;
    uint32_t l = value(*e.lhs);
    uint32_t r = value(*e.rhs);
    return binary_op(e.binary_op, lt, l, rt, r, in.type, info(*e.rhs).value ? &*info(*e.rhs).value : nullptr);
  }

  // Whether `e` may be evaluated even where WGSL would not evaluate it: no memory access, no calls to user
  // functions, atomics, barriers or subgroup operations (integer division is already made total).
  bool speculatable(const Expr& e) const {
    const sem::ExprInfo& in = info(e);
    if (in.value) return true;
    if (in.type->kind == TypeKind::Reference || in.type->kind == TypeKind::Pointer) return false;
    switch (e.kind) {
      case ExprKind::Identifier:
        return in.symbol == SymbolKind::LocalLet || in.symbol == SymbolKind::Param ||
               in.symbol == SymbolKind::Override;
      case ExprKind::Unary:
        return e.unary_op != UnaryOp::AddressOf && e.unary_op != UnaryOp::Deref && speculatable(*e.lhs);
      case ExprKind::Binary:
        return speculatable(*e.lhs) && speculatable(*e.rhs);
      case ExprKind::Member:
        return speculatable(*e.lhs);
      case ExprKind::Call: {
        if (in.call == CallKind::UserFunction) return false;
        if (in.call == CallKind::Builtin) {
          BuiltinFn fn = in.builtin;
          if (fn == BuiltinFn::ArrayLength || fn == BuiltinFn::WorkgroupBarrier ||
              fn == BuiltinFn::StorageBarrier || fn == BuiltinFn::WorkgroupUniformLoad ||
              sem::is_subgroup_builtin(fn) ||
              (fn >= BuiltinFn::AtomicLoad && fn <= BuiltinFn::AtomicCompareExchangeWeak)) {
            return false;
          }
        }
        for (const auto& a : e.args) {
          if (!speculatable(*a)) return false;
        }
        return true;
      }
      default:
        return false;
    }
  }

  uint32_t splat(const Type* vector_type, uint32_t scalar) {
    Words w(vector_type->count, scalar);
    return emit(Op::OpCompositeConstruct, type_id(vector_type), w);
  }

  // `rhs_value` is the right operand's constant value, if any (lets division skip the zero-divisor guard).
  uint32_t binary_op(BinaryOp op, const Type* lt, uint32_t l, const Type* rt, uint32_t r, const Type* result,
                     const Value* rhs_value) {
    // Matrix arithmetic.
    if (lt->kind == TypeKind::Matrix || rt->kind == TypeKind::Matrix) {
      uint32_t tid = type_id(result);
      if (op == BinaryOp::Add || op == BinaryOp::Sub) {
        Words cols;
        for (uint32_t c = 0; c < lt->count; ++c) {
          uint32_t a = emit(Op::OpCompositeExtract, type_id(lt->elem), {l, c});
          uint32_t b = emit(Op::OpCompositeExtract, type_id(lt->elem), {r, c});
          cols.push_back(emit(op == BinaryOp::Add ? Op::OpFAdd : Op::OpFSub, type_id(lt->elem), {a, b}));
        }
        return emit(Op::OpCompositeConstruct, tid, cols);
      }
      if (lt->kind == TypeKind::Matrix && rt->is_scalar()) return emit(Op::OpMatrixTimesScalar, tid, {l, r});
      if (lt->is_scalar()) return emit(Op::OpMatrixTimesScalar, tid, {r, l});
      if (lt->kind == TypeKind::Matrix && rt->kind == TypeKind::Vector)
        return emit(Op::OpMatrixTimesVector, tid, {l, r});
      if (lt->kind == TypeKind::Vector) return emit(Op::OpVectorTimesMatrix, tid, {l, r});
      return emit(Op::OpMatrixTimesMatrix, tid, {l, r});
    }
    const Type* s = lt->scalar();
    const bool is_float = s->is_float_scalar();
    const bool is_signed = s->kind == TypeKind::I32;
    const bool is_bool = s->kind == TypeKind::Bool;
    // Vector-scalar float multiply has a dedicated instruction.
    if (op == BinaryOp::Mul && is_float && lt->kind != rt->kind) {
      if (lt->kind == TypeKind::Vector) return emit(Op::OpVectorTimesScalar, type_id(result), {l, r});
      return emit(Op::OpVectorTimesScalar, type_id(result), {r, l});
    }
    const bool is_compare = op == BinaryOp::Equal || op == BinaryOp::NotEqual || op == BinaryOp::Less ||
                            op == BinaryOp::LessEqual || op == BinaryOp::Greater ||
                            op == BinaryOp::GreaterEqual;
    const Type* operand_type = is_compare ? lt : result;
    if (lt->kind != rt->kind && op != BinaryOp::ShiftLeft && op != BinaryOp::ShiftRight) {
      if (lt->kind != TypeKind::Vector) l = splat(operand_type, l);
      if (rt->kind != TypeKind::Vector) r = splat(operand_type, r);
    }
    uint32_t tid = type_id(result);
    switch (op) {
      case BinaryOp::Add:
        return emit(is_float ? Op::OpFAdd : Op::OpIAdd, tid, {l, r});
      case BinaryOp::Sub:
        return emit(is_float ? Op::OpFSub : Op::OpISub, tid, {l, r});
      case BinaryOp::Mul:
        return emit(is_float ? Op::OpFMul : Op::OpIMul, tid, {l, r});
      case BinaryOp::Div:
      case BinaryOp::Mod: {
        if (is_float) return emit(op == BinaryOp::Div ? Op::OpFDiv : Op::OpFRem, tid, {l, r});
        // WGSL defines x / 0 = x and x % 0 = 0 (and MIN / -1); SPIR-V leaves them undefined: divide by 1
        // instead.
        bool safe = rhs_value && rhs_value->elements.empty() && rhs_value->i != 0 &&
                    !(is_signed && rhs_value->i == -1);
        if (!safe) r = safe_divisor(result, l, r, is_signed);
        if (op == BinaryOp::Div) return emit(is_signed ? Op::OpSDiv : Op::OpUDiv, tid, {l, r});
        if (!is_signed) return emit(Op::OpUMod, tid, {l, r});
        // Signed remainder as l - (l / r) * r: NVIDIA's driver (580) computes OpSRem with negative operands
        // as if they were unsigned (12345 % -4 gave 12345); Tint avoids OpSRem for the same reason.
        uint32_t q = emit(Op::OpSDiv, tid, {l, r});
        uint32_t qr = emit(Op::OpIMul, tid, {q, r});
        return emit(Op::OpISub, tid, {l, qr});
      }
      case BinaryOp::And:
        return emit(is_bool ? Op::OpLogicalAnd : Op::OpBitwiseAnd, tid, {l, r});
      case BinaryOp::Or:
        return emit(is_bool ? Op::OpLogicalOr : Op::OpBitwiseOr, tid, {l, r});
      case BinaryOp::Xor:
        return emit(Op::OpBitwiseXor, tid, {l, r});
      case BinaryOp::ShiftLeft:
      case BinaryOp::ShiftRight: {
        // WGSL masks the shift amount to the bit width.
        uint32_t mask = splat_constant(rt, 31, 0.0);
        uint32_t amount = emit(Op::OpBitwiseAnd, type_id(rt), {r, mask});
        Op o = op == BinaryOp::ShiftLeft ? Op::OpShiftLeftLogical
                                         : (is_signed ? Op::OpShiftRightArithmetic : Op::OpShiftRightLogical);
        return emit(o, tid, {l, amount});
      }
      case BinaryOp::Equal:
        return emit(is_bool ? Op::OpLogicalEqual : is_float ? Op::OpFOrdEqual : Op::OpIEqual, tid, {l, r});
      case BinaryOp::NotEqual:
        return emit(is_bool    ? Op::OpLogicalNotEqual
                    : is_float ? Op::OpFUnordNotEqual
                               : Op::OpINotEqual,
                    tid, {l, r});
      case BinaryOp::Less:
        return emit(is_float    ? Op::OpFOrdLessThan
                    : is_signed ? Op::OpSLessThan
                                : Op::OpULessThan,
                    tid, {l, r});
      case BinaryOp::LessEqual:
        return emit(is_float    ? Op::OpFOrdLessThanEqual
                    : is_signed ? Op::OpSLessThanEqual
                                : Op::OpULessThanEqual,
                    tid, {l, r});
      case BinaryOp::Greater:
        return emit(is_float    ? Op::OpFOrdGreaterThan
                    : is_signed ? Op::OpSGreaterThan
                                : Op::OpUGreaterThan,
                    tid, {l, r});
      case BinaryOp::GreaterEqual:
        return emit(is_float    ? Op::OpFOrdGreaterThanEqual
                    : is_signed ? Op::OpSGreaterThanEqual
                                : Op::OpUGreaterThanEqual,
                    tid, {l, r});
      default:
        break;
    }
    return 0;
  }

  uint32_t bool_type_like(const Type* t) {
    return type_id(t->kind == TypeKind::Vector ? sem_types().vector(sem_.types.bool_type(), t->count)
                                               : sem_.types.bool_type());
  }

  uint32_t safe_divisor(const Type* t, uint32_t l, uint32_t r, bool is_signed) {
    uint32_t btid = bool_type_like(t);
    uint32_t zero = splat_constant(t, 0, 0.0);
    uint32_t one = splat_constant(t, 1, 0.0);
    uint32_t bad = emit(Op::OpIEqual, btid, {r, zero});
    if (is_signed) {
      uint32_t min = splat_constant(t, INT32_MIN, 0.0);
      uint32_t minus1 = splat_constant(t, -1, 0.0);
      uint32_t a = emit(Op::OpIEqual, btid, {l, min});
      uint32_t b = emit(Op::OpIEqual, btid, {r, minus1});
      uint32_t both = emit(Op::OpLogicalAnd, btid, {a, b});
      bad = emit(Op::OpLogicalOr, btid, {bad, both});
    }
    return emit(Op::OpSelect, type_id(t), {bad, one, r});
  }

  // ------------------------------------------------------------------ calls
  uint32_t call(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    switch (in.call) {
      case CallKind::UserFunction: {
        Words w{function_ids_.at(in.function)};
        for (const auto& a : e.args) w.push_back(value(*a));
        return emit(Op::OpFunctionCall, type_id(sem_.function(in.function).return_type), w);
      }
      case CallKind::ZeroValue:
        return null_constant(in.type);
      case CallKind::Conversion:
        return conversion(*e.args[0], in.type);
      case CallKind::Constructor:
        return construct(e);
      case CallKind::Builtin:
        return builtin(e);
      default:
        break;
    }
    return 0;
  }

  uint32_t construct(const Expr& e) {
    const Type* t = info(e).type;
    Words args;
    for (const auto& a : e.args) args.push_back(value(*a));
    if (t->kind == TypeKind::Vector && e.args.size() == 1) return splat(t, args[0]);
    if (t->kind == TypeKind::Matrix && e.args.size() == t->count * t->elem->count) {
      Words cols;
      for (uint32_t c = 0; c < t->count; ++c) {
        Words comps(args.begin() + c * t->elem->count, args.begin() + (c + 1) * t->elem->count);
        cols.push_back(emit(Op::OpCompositeConstruct, type_id(t->elem), comps));
      }
      return emit(Op::OpCompositeConstruct, type_id(t), cols);
    }
    return emit(Op::OpCompositeConstruct, type_id(t), args);
  }

  uint32_t conversion(const Expr& arg, const Type* to) {
    const Type* from = info(arg).type;
    if (from->kind == TypeKind::Reference) from = from->elem;
    uint32_t v = value(arg);
    return convert_id(v, from, to);
  }

  uint32_t convert_id(uint32_t v, const Type* from, const Type* to) {
    if (from == to) return v;
    if (to->kind == TypeKind::Matrix) {
      Words cols;
      for (uint32_t c = 0; c < to->count; ++c) {
        uint32_t col = emit(Op::OpCompositeExtract, type_id(from->elem), {v, c});
        cols.push_back(emit(Op::OpFConvert, type_id(to->elem), {col}));
      }
      return emit(Op::OpCompositeConstruct, type_id(to), cols);
    }
    const Type* fs = from->scalar();
    const Type* ts = to->scalar();
    uint32_t tid = type_id(to);
    if (fs == ts) return v;
    if (ts->kind == TypeKind::Bool) {
      uint32_t zero = splat_constant(from, 0, 0.0);
      return emit(fs->is_float_scalar() ? Op::OpFUnordNotEqual : Op::OpINotEqual, tid, {v, zero});
    }
    if (fs->kind == TypeKind::Bool) {
      uint32_t one = splat_constant(to, 1, 1.0);
      uint32_t zero = splat_constant(to, 0, 0.0);
      return emit(Op::OpSelect, tid, {v, one, zero});
    }
    if (fs->is_float_scalar() && ts->is_float_scalar()) return emit(Op::OpFConvert, tid, {v});
    if (fs->is_float_scalar()) {
      // WGSL float -> int conversion saturates; SPIR-V's is undefined out of range.
      bool is_signed = ts->kind == TypeKind::I32;
      double lo = is_signed ? -2147483648.0 : 0.0;
      double hi = is_signed ? 2147483520.0 : 4294967040.0;
      if (fs->kind == TypeKind::F16) {
        lo = is_signed ? -65504.0 : 0.0;
        hi = 65504.0;
      }
      uint32_t clamped =
          ext(type_id(from), GLSLstd450NClamp, {v, splat_constant(from, 0, lo), splat_constant(from, 0, hi)});
      return emit(is_signed ? Op::OpConvertFToS : Op::OpConvertFToU, tid, {clamped});
    }
    if (ts->is_float_scalar())
      return emit(fs->kind == TypeKind::I32 ? Op::OpConvertSToF : Op::OpConvertUToF, tid, {v});
    return emit(Op::OpBitcast, tid, {v});
  }

  // The variable and member index for arrayLength(&X) / arrayLength(&S.member).
  // With robust access: min(index, last valid index) as u32 (a negative i32 becomes large and is clamped
  // too).
  uint32_t robust_index(const Expr& index_expr, uint32_t idx) {
    if (!opts_.robust_access) return idx;
    const Type* bt = info(*index_expr.lhs).type;
    const Type* composite = bt->kind == TypeKind::Reference || bt->kind == TypeKind::Pointer ? bt->elem : bt;
    const bool constant_index = info(*index_expr.rhs).value.has_value();
    if (constant_index && composite->count != 0 && !composite->count_expr)
      return idx;  // checked by the resolver
    const Type* u32 = sem_.types.u32();
    if (info(*index_expr.rhs).type->kind == TypeKind::I32) idx = emit(Op::OpBitcast, type_id(u32), {idx});
    uint32_t last = 0;
    if (composite->kind == TypeKind::Array && composite->count_expr) {
      uint32_t n = spec_value(*static_cast<const Expr*>(composite->count_expr));
      last = emit(Op::OpISub, type_id(u32), {n, u32_constant(1)});
    } else if (composite->kind == TypeKind::Array && composite->count == 0) {
      uint32_t n = runtime_array_length(*index_expr.lhs);
      last = emit(Op::OpISub, type_id(u32), {n, u32_constant(1)});
    } else {
      last = u32_constant(composite->count - 1);
    }
    return ext(type_id(u32), GLSLstd450UMin, {idx, last});
  }

  // arrayLength of the runtime-sized array that reference/pointer expression `e` designates.
  uint32_t runtime_array_length(const Expr& e) {
    const Expr* x = &e;
    while (true) {
      if (x->kind == ExprKind::Unary &&
          (x->unary_op == UnaryOp::Deref || x->unary_op == UnaryOp::AddressOf)) {
        x = x->lhs.get();
      } else if (x->kind == ExprKind::Identifier && info(*x).symbol == SymbolKind::LocalLet) {
        x = info(*x).var->init.get();
      } else {
        break;
      }
    }
    if (x->kind == ExprKind::Identifier) {
      return emit(Op::OpArrayLength, type_id(sem_.types.u32()), {global(info(*x).var).var, 0});
    }
    const GlobalIds& g = global(info(*x->lhs).var);  // S.member
    return emit(Op::OpArrayLength, type_id(sem_.types.u32()),
                {g.var, static_cast<uint32_t>(info(*x).member_index)});
  }

  uint32_t array_length(const Expr& arg) {
    const Expr* e = &arg;
    while (e->kind == ExprKind::Identifier && info(*e).symbol == SymbolKind::LocalLet)
      e = info(*e).var->init.get();
    const Expr& target = *e->lhs;  // &target
    if (target.kind == ExprKind::Identifier) {
      const GlobalIds& g = global(info(target).var);
      return emit(Op::OpArrayLength, type_id(sem_.types.u32()), {g.var, 0});
    }
    // &S.member: the struct variable itself is the Block.
    const GlobalIds& g = global(info(*target.lhs).var);
    return emit(Op::OpArrayLength, type_id(sem_.types.u32()),
                {g.var, static_cast<uint32_t>(info(target).member_index)});
  }

  // unpack4xU8 / unpack4xI8: byte i of `packed` into component i (sign-extended for I8).
  uint32_t unpack4x8(uint32_t packed, bool is_signed) {
    const Type* u32 = sem_.types.u32();
    const Type* i32 = sem_.types.i32();
    const Type* t = is_signed ? i32 : u32;
    const Type* vt = sem_types().vector(t, 4);
    uint32_t x = is_signed ? emit(Op::OpBitcast, type_id(i32), {packed}) : packed;
    Words comps;
    for (uint32_t i = 0; i < 4; ++i) {
      comps.push_back(emit(is_signed ? Op::OpBitFieldSExtract : Op::OpBitFieldUExtract, type_id(t),
                           {x, u32_constant(8 * i), u32_constant(8)}));
    }
    return emit(Op::OpCompositeConstruct, type_id(vt), comps);
  }

  // pack4xI8 / pack4xU8 (optionally clamped to the byte range): component i into byte i.
  uint32_t pack4x8(BuiltinFn fn, uint32_t v) {
    const Type* u32 = sem_.types.u32();
    const bool is_signed = fn == BuiltinFn::Pack4xI8 || fn == BuiltinFn::Pack4xI8Clamp;
    const Type* vt = sem_types().vector(is_signed ? sem_.types.i32() : u32, 4);
    if (fn == BuiltinFn::Pack4xI8Clamp) {
      v = ext(type_id(vt), GLSLstd450SClamp,
              {v, splat_constant(vt, -128, 0.0), splat_constant(vt, 127, 0.0)});
    } else if (fn == BuiltinFn::Pack4xU8Clamp) {
      v = ext(type_id(vt), GLSLstd450UMin, {v, splat_constant(vt, 255, 0.0)});
    }
    const Type* uvt = sem_types().vector(u32, 4);
    uint32_t bits = is_signed ? emit(Op::OpBitcast, type_id(uvt), {v}) : v;
    uint32_t result = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      uint32_t c = emit(Op::OpCompositeExtract, type_id(u32), {bits, i});
      uint32_t byte = emit(Op::OpBitwiseAnd, type_id(u32), {c, u32_constant(0xff)});
      uint32_t shifted =
          i == 0 ? byte : emit(Op::OpShiftLeftLogical, type_id(u32), {byte, u32_constant(8 * i)});
      result = i == 0 ? shifted : emit(Op::OpBitwiseOr, type_id(u32), {result, shifted});
    }
    return result;
  }

  uint32_t subgroup_scope() { return u32_constant(static_cast<uint32_t>(spv::Scope::Subgroup)); }

  uint32_t builtin(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    const Type* rt = in.type;
    BuiltinFn fn = in.builtin;
    if (fn == BuiltinFn::ArrayLength) return array_length(*e.args[0]);
    if (fn == BuiltinFn::WorkgroupBarrier) {
      control_barrier(0x8 | 0x100);
      return 0;
    }
    if (fn == BuiltinFn::StorageBarrier) {
      control_barrier(0x8 | 0x40);
      return 0;
    }
    if (fn == BuiltinFn::WorkgroupUniformLoad) {
      uint32_t ptr = value(*e.args[0]);
      control_barrier(0x8 | 0x100);
      uint32_t v = emit(Op::OpLoad, type_id(rt), {ptr});
      control_barrier(0x8 | 0x100);
      return v;
    }
    if (fn >= BuiltinFn::AtomicLoad && fn <= BuiltinFn::AtomicCompareExchangeWeak) return atomic(e);
    Words args;
    std::vector<const Type*> arg_types;
    for (const auto& a : e.args) {
      args.push_back(value(*a));
      const Type* t = info(*a).type;
      arg_types.push_back(t->kind == TypeKind::Reference ? t->elem : t);
    }
    const Type* at = arg_types.empty() ? nullptr : arg_types[0];
    const Type* s = at ? at->scalar() : nullptr;
    const bool is_float = s && s->is_float_scalar();
    const bool is_signed = s && s->kind == TypeKind::I32;
    uint32_t tid = type_id(rt);
    auto glsl = [&](GLSLstd450 f) { return ext(tid, f, args); };
    switch (fn) {
      case BuiltinFn::Acos:
        return glsl(GLSLstd450Acos);
      case BuiltinFn::Acosh:
        return glsl(GLSLstd450Acosh);
      case BuiltinFn::Asin:
        return glsl(GLSLstd450Asin);
      case BuiltinFn::Asinh:
        return glsl(GLSLstd450Asinh);
      case BuiltinFn::Atan:
        return glsl(GLSLstd450Atan);
      case BuiltinFn::Atanh:
        return glsl(GLSLstd450Atanh);
      case BuiltinFn::Atan2:
        return glsl(GLSLstd450Atan2);
      case BuiltinFn::Ceil:
        return glsl(GLSLstd450Ceil);
      case BuiltinFn::Cos:
        return glsl(GLSLstd450Cos);
      case BuiltinFn::Cosh:
        return glsl(GLSLstd450Cosh);
      case BuiltinFn::Degrees:
        return glsl(GLSLstd450Degrees);
      case BuiltinFn::Exp:
        return glsl(GLSLstd450Exp);
      case BuiltinFn::Exp2:
        return glsl(GLSLstd450Exp2);
      case BuiltinFn::Floor:
        return glsl(GLSLstd450Floor);
      case BuiltinFn::Fract:
        return glsl(GLSLstd450Fract);
      case BuiltinFn::InverseSqrt:
        return glsl(GLSLstd450InverseSqrt);
      case BuiltinFn::Log:
        return glsl(GLSLstd450Log);
      case BuiltinFn::Log2:
        return glsl(GLSLstd450Log2);
      case BuiltinFn::Radians:
        return glsl(GLSLstd450Radians);
      case BuiltinFn::Round:
        return glsl(GLSLstd450RoundEven);
      case BuiltinFn::Sin:
        return glsl(GLSLstd450Sin);
      case BuiltinFn::Sinh:
        return glsl(GLSLstd450Sinh);
      case BuiltinFn::Sqrt:
        return glsl(GLSLstd450Sqrt);
      case BuiltinFn::Tan:
        return glsl(GLSLstd450Tan);
      case BuiltinFn::Tanh:
        return glsl(GLSLstd450Tanh);
      case BuiltinFn::Trunc:
        return glsl(GLSLstd450Trunc);
      case BuiltinFn::Saturate:
        return ext(tid, GLSLstd450NClamp, {args[0], splat_constant(rt, 0, 0.0), splat_constant(rt, 0, 1.0)});
      case BuiltinFn::QuantizeToF16:
        return emit(Op::OpQuantizeToF16, tid, args);
      case BuiltinFn::Pow:
        return glsl(GLSLstd450Pow);
      case BuiltinFn::Step:
        return glsl(GLSLstd450Step);
      case BuiltinFn::Fma:
        return glsl(GLSLstd450Fma);
      case BuiltinFn::Mix:
        if (rt->kind == TypeKind::Vector && arg_types[2]->is_scalar()) args[2] = splat(rt, args[2]);
        return ext(tid, GLSLstd450FMix, args);
      case BuiltinFn::Smoothstep:
        return glsl(GLSLstd450SmoothStep);
      case BuiltinFn::Ldexp:
        return glsl(GLSLstd450Ldexp);
      case BuiltinFn::Modf:
        return glsl(GLSLstd450ModfStruct);
      case BuiltinFn::Frexp:
        return glsl(GLSLstd450FrexpStruct);
      case BuiltinFn::Abs:
        if (s->kind == TypeKind::U32) return args[0];
        return glsl(is_float ? GLSLstd450FAbs : GLSLstd450SAbs);
      case BuiltinFn::Sign:
        return glsl(is_float ? GLSLstd450FSign : GLSLstd450SSign);
      case BuiltinFn::Min:
        return glsl(is_float ? GLSLstd450NMin : is_signed ? GLSLstd450SMin : GLSLstd450UMin);
      case BuiltinFn::Max:
        return glsl(is_float ? GLSLstd450NMax : is_signed ? GLSLstd450SMax : GLSLstd450UMax);
      case BuiltinFn::Clamp:
        if (is_float) return glsl(GLSLstd450NClamp);
        // min(max(e, low), high): GLSL's clamp is undefined when low > high.
        {
          uint32_t mx = ext(tid, is_signed ? GLSLstd450SMax : GLSLstd450UMax, {args[0], args[1]});
          return ext(tid, is_signed ? GLSLstd450SMin : GLSLstd450UMin, {mx, args[2]});
        }
      case BuiltinFn::Dot: {
        if (is_float) return emit(Op::OpDot, tid, args);
        uint32_t prod = emit(Op::OpIMul, type_id(at), {args[0], args[1]});
        uint32_t sum = emit(Op::OpCompositeExtract, tid, {prod, 0});
        for (uint32_t i = 1; i < at->count; ++i) {
          uint32_t c = emit(Op::OpCompositeExtract, tid, {prod, i});
          sum = emit(Op::OpIAdd, tid, {sum, c});
        }
        return sum;
      }
      case BuiltinFn::Cross:
        return glsl(GLSLstd450Cross);
      case BuiltinFn::Length:
        return glsl(GLSLstd450Length);
      case BuiltinFn::Distance:
        return glsl(GLSLstd450Distance);
      case BuiltinFn::Normalize:
        return glsl(GLSLstd450Normalize);
      case BuiltinFn::FaceForward:
        return glsl(GLSLstd450FaceForward);
      case BuiltinFn::Reflect:
        return glsl(GLSLstd450Reflect);
      case BuiltinFn::Refract:
        return glsl(GLSLstd450Refract);
      case BuiltinFn::Determinant:
        return glsl(GLSLstd450Determinant);
      case BuiltinFn::Transpose:
        return emit(Op::OpTranspose, tid, args);
      case BuiltinFn::CountOneBits:
        return emit(Op::OpBitCount, tid, args);
      case BuiltinFn::ReverseBits:
        return emit(Op::OpBitReverse, tid, args);
      case BuiltinFn::FirstLeadingBit:
        return glsl(is_signed ? GLSLstd450FindSMsb : GLSLstd450FindUMsb);
      case BuiltinFn::FirstTrailingBit:
        return glsl(GLSLstd450FindILsb);
      case BuiltinFn::CountLeadingZeros:
      case BuiltinFn::CountTrailingZeros: {
        // x == 0 ? 32 : (clz: 31 - findUMsb(x), ctz: findILsb(x))
        const Type* ut = sem_types().with_scalar(at, sem_.types.u32());
        uint32_t x = is_signed ? emit(Op::OpBitcast, type_id(ut), {args[0]}) : args[0];
        uint32_t r;
        if (fn == BuiltinFn::CountLeadingZeros) {
          uint32_t msb = ext(type_id(ut), GLSLstd450FindUMsb, {x});
          r = emit(Op::OpISub, type_id(ut), {splat_constant(ut, 31, 0.0), msb});
        } else {
          r = ext(type_id(ut), GLSLstd450FindILsb, {x});
        }
        uint32_t is_zero = emit(Op::OpIEqual, bool_type_like(ut), {x, splat_constant(ut, 0, 0.0)});
        r = emit(Op::OpSelect, type_id(ut), {is_zero, splat_constant(ut, 32, 0.0), r});
        return is_signed ? emit(Op::OpBitcast, tid, {r}) : r;
      }
      case BuiltinFn::ExtractBits:
      case BuiltinFn::InsertBits: {
        // offset = min(offset, 32); count = min(count, 32 - offset)
        size_t oi = fn == BuiltinFn::ExtractBits ? 1 : 2;
        uint32_t u32 = type_id(sem_.types.u32());
        uint32_t o = ext(u32, GLSLstd450UMin, {args[oi], u32_constant(32)});
        uint32_t room = emit(Op::OpISub, u32, {u32_constant(32), o});
        uint32_t c = ext(u32, GLSLstd450UMin, {args[oi + 1], room});
        if (fn == BuiltinFn::ExtractBits) {
          return emit(is_signed ? Op::OpBitFieldSExtract : Op::OpBitFieldUExtract, tid, {args[0], o, c});
        }
        return emit(Op::OpBitFieldInsert, tid, {args[0], args[1], o, c});
      }
      case BuiltinFn::All:
        return at->kind == TypeKind::Vector ? emit(Op::OpAll, tid, args) : args[0];
      case BuiltinFn::Any:
        return at->kind == TypeKind::Vector ? emit(Op::OpAny, tid, args) : args[0];
      case BuiltinFn::Select: {
        uint32_t cond = args[2];
        if (rt->kind == TypeKind::Vector && arg_types[2]->is_scalar()) {
          cond = splat(sem_types().vector(sem_.types.bool_type(), rt->count), cond);
        }
        return emit(Op::OpSelect, tid, {cond, args[1], args[0]});
      }
      case BuiltinFn::Pack4x8Snorm:
        return glsl(GLSLstd450PackSnorm4x8);
      case BuiltinFn::Pack4x8Unorm:
        return glsl(GLSLstd450PackUnorm4x8);
      case BuiltinFn::Pack2x16Snorm:
        return glsl(GLSLstd450PackSnorm2x16);
      case BuiltinFn::Pack2x16Unorm:
        return glsl(GLSLstd450PackUnorm2x16);
      case BuiltinFn::Pack2x16Float:
        return glsl(GLSLstd450PackHalf2x16);
      case BuiltinFn::Unpack4x8Snorm:
        return glsl(GLSLstd450UnpackSnorm4x8);
      case BuiltinFn::Unpack4x8Unorm:
        return glsl(GLSLstd450UnpackUnorm4x8);
      case BuiltinFn::Unpack2x16Snorm:
        return glsl(GLSLstd450UnpackSnorm2x16);
      case BuiltinFn::Unpack2x16Unorm:
        return glsl(GLSLstd450UnpackUnorm2x16);
      case BuiltinFn::Unpack2x16Float:
        return glsl(GLSLstd450UnpackHalf2x16);
      case BuiltinFn::Pack4xI8:
      case BuiltinFn::Pack4xU8:
      case BuiltinFn::Pack4xI8Clamp:
      case BuiltinFn::Pack4xU8Clamp:
        return pack4x8(fn, args[0]);
      case BuiltinFn::Unpack4xI8:
        return unpack4x8(args[0], true);
      case BuiltinFn::Unpack4xU8:
        return unpack4x8(args[0], false);
      case BuiltinFn::Dot4I8Packed:
      case BuiltinFn::Dot4U8Packed: {
        // The integer dot product of the unpacked bytes.
        const bool is_signed8 = fn == BuiltinFn::Dot4I8Packed;
        const Type* vt = sem_types().vector(is_signed8 ? sem_.types.i32() : sem_.types.u32(), 4);
        uint32_t prod =
            emit(Op::OpIMul, type_id(vt), {unpack4x8(args[0], is_signed8), unpack4x8(args[1], is_signed8)});
        uint32_t sum = emit(Op::OpCompositeExtract, tid, {prod, 0});
        for (uint32_t i = 1; i < 4; ++i)
          sum = emit(Op::OpIAdd, tid, {sum, emit(Op::OpCompositeExtract, tid, {prod, i})});
        return sum;
      }
      case BuiltinFn::Bitcast:
        if (at == rt) return args[0];
        return emit(Op::OpBitcast, tid, args);
      default:
        break;
    }
    return subgroup(e, fn, args, arg_types);
  }

  uint32_t subgroup(const Expr& e, BuiltinFn fn, Words& args, const std::vector<const Type*>& arg_types) {
    const Type* rt = info(e).type;
    uint32_t tid = type_id(rt);
    capability(spv::Capability::GroupNonUniform);
    const Type* s = arg_types.empty() ? nullptr : arg_types[0]->scalar();
    const bool is_float = s && s->is_float_scalar();
    const bool is_signed = s && s->kind == TypeKind::I32;
    auto arith = [&](Op int_op, Op float_op, spv::GroupOperation g) {
      capability(spv::Capability::GroupNonUniformArithmetic);
      return emit(is_float ? float_op : int_op, tid, {subgroup_scope(), static_cast<uint32_t>(g), args[0]});
    };
    auto as_u32 = [&](size_t i) {
      if (arg_types[i]->kind == TypeKind::I32)
        return emit(Op::OpBitcast, type_id(sem_.types.u32()), {args[i]});
      return args[i];
    };
    using G = spv::GroupOperation;
    switch (fn) {
      case BuiltinFn::SubgroupAdd:
        return arith(Op::OpGroupNonUniformIAdd, Op::OpGroupNonUniformFAdd, G::Reduce);
      case BuiltinFn::SubgroupInclusiveAdd:
        return arith(Op::OpGroupNonUniformIAdd, Op::OpGroupNonUniformFAdd, G::InclusiveScan);
      case BuiltinFn::SubgroupExclusiveAdd:
        return arith(Op::OpGroupNonUniformIAdd, Op::OpGroupNonUniformFAdd, G::ExclusiveScan);
      case BuiltinFn::SubgroupMul:
        return arith(Op::OpGroupNonUniformIMul, Op::OpGroupNonUniformFMul, G::Reduce);
      case BuiltinFn::SubgroupInclusiveMul:
        return arith(Op::OpGroupNonUniformIMul, Op::OpGroupNonUniformFMul, G::InclusiveScan);
      case BuiltinFn::SubgroupExclusiveMul:
        return arith(Op::OpGroupNonUniformIMul, Op::OpGroupNonUniformFMul, G::ExclusiveScan);
      case BuiltinFn::SubgroupMin:
        return arith(is_signed ? Op::OpGroupNonUniformSMin : Op::OpGroupNonUniformUMin,
                     Op::OpGroupNonUniformFMin, G::Reduce);
      case BuiltinFn::SubgroupMax:
        return arith(is_signed ? Op::OpGroupNonUniformSMax : Op::OpGroupNonUniformUMax,
                     Op::OpGroupNonUniformFMax, G::Reduce);
      case BuiltinFn::SubgroupAnd:
        return arith(Op::OpGroupNonUniformBitwiseAnd, Op::OpNop, G::Reduce);
      case BuiltinFn::SubgroupOr:
        return arith(Op::OpGroupNonUniformBitwiseOr, Op::OpNop, G::Reduce);
      case BuiltinFn::SubgroupXor:
        return arith(Op::OpGroupNonUniformBitwiseXor, Op::OpNop, G::Reduce);
      case BuiltinFn::SubgroupAll:
        capability(spv::Capability::GroupNonUniformVote);
        return emit(Op::OpGroupNonUniformAll, tid, {subgroup_scope(), args[0]});
      case BuiltinFn::SubgroupAny:
        capability(spv::Capability::GroupNonUniformVote);
        return emit(Op::OpGroupNonUniformAny, tid, {subgroup_scope(), args[0]});
      case BuiltinFn::SubgroupElect:
        return emit(Op::OpGroupNonUniformElect, tid, {subgroup_scope()});
      case BuiltinFn::SubgroupBallot:
        capability(spv::Capability::GroupNonUniformBallot);
        return emit(Op::OpGroupNonUniformBallot, tid, {subgroup_scope(), args[0]});
      case BuiltinFn::SubgroupBroadcast: {
        capability(spv::Capability::GroupNonUniformBallot);
        // The lane must be a constant (SPIR-V 1.3); the resolver guarantees it.
        uint32_t lane = u32_constant(static_cast<uint32_t>(info(*e.args[1]).value->i));
        return emit(Op::OpGroupNonUniformBroadcast, tid, {subgroup_scope(), args[0], lane});
      }
      case BuiltinFn::SubgroupBroadcastFirst:
        capability(spv::Capability::GroupNonUniformBallot);
        return emit(Op::OpGroupNonUniformBroadcastFirst, tid, {subgroup_scope(), args[0]});
      case BuiltinFn::SubgroupShuffle:
        capability(spv::Capability::GroupNonUniformShuffle);
        return emit(Op::OpGroupNonUniformShuffle, tid, {subgroup_scope(), args[0], as_u32(1)});
      case BuiltinFn::SubgroupShuffleXor:
        capability(spv::Capability::GroupNonUniformShuffle);
        return emit(Op::OpGroupNonUniformShuffleXor, tid, {subgroup_scope(), args[0], as_u32(1)});
      case BuiltinFn::SubgroupShuffleUp:
        capability(spv::Capability::GroupNonUniformShuffleRelative);
        return emit(Op::OpGroupNonUniformShuffleUp, tid, {subgroup_scope(), args[0], as_u32(1)});
      case BuiltinFn::SubgroupShuffleDown:
        capability(spv::Capability::GroupNonUniformShuffleRelative);
        return emit(Op::OpGroupNonUniformShuffleDown, tid, {subgroup_scope(), args[0], as_u32(1)});
      case BuiltinFn::QuadBroadcast: {
        capability(spv::Capability::GroupNonUniformQuad);
        uint32_t lane = u32_constant(static_cast<uint32_t>(info(*e.args[1]).value->i));
        return emit(Op::OpGroupNonUniformQuadBroadcast, tid, {subgroup_scope(), args[0], lane});
      }
      case BuiltinFn::QuadSwapX:
      case BuiltinFn::QuadSwapY:
      case BuiltinFn::QuadSwapDiagonal: {
        capability(spv::Capability::GroupNonUniformQuad);
        uint32_t dir = fn == BuiltinFn::QuadSwapX ? 0 : fn == BuiltinFn::QuadSwapY ? 1 : 2;
        return emit(Op::OpGroupNonUniformQuadSwap, tid, {subgroup_scope(), args[0], u32_constant(dir)});
      }
      default:
        break;
    }
    return 0;
  }

  uint32_t atomic(const Expr& e) {
    const sem::ExprInfo& in = info(e);
    const Type* ptr_type = info(*e.args[0]).type;
    uint32_t ptr = value(*e.args[0]);
    const Type* t = ptr_type->elem->elem;  // atomic<T> -> T
    uint32_t tid = type_id(t);
    uint32_t scope = u32_constant(ptr_type->address_space == AddressSpace::Workgroup
                                      ? static_cast<uint32_t>(spv::Scope::Workgroup)
                                      : static_cast<uint32_t>(spv::Scope::Device));
    uint32_t relaxed = u32_constant(0);
    const bool is_signed = t->kind == TypeKind::I32;
    Words args;
    for (size_t i = 1; i < e.args.size(); ++i) args.push_back(value(*e.args[i]));
    auto rmw = [&](Op op) { return emit(op, tid, {ptr, scope, relaxed, args[0]}); };
    switch (in.builtin) {
      case BuiltinFn::AtomicLoad:
        return emit(Op::OpAtomicLoad, tid, {ptr, scope, relaxed});
      case BuiltinFn::AtomicStore:
        emit_void(Op::OpAtomicStore, {ptr, scope, relaxed, args[0]});
        return 0;
      case BuiltinFn::AtomicAdd:
        return rmw(Op::OpAtomicIAdd);
      case BuiltinFn::AtomicSub:
        return rmw(Op::OpAtomicISub);
      case BuiltinFn::AtomicMax:
        return rmw(is_signed ? Op::OpAtomicSMax : Op::OpAtomicUMax);
      case BuiltinFn::AtomicMin:
        return rmw(is_signed ? Op::OpAtomicSMin : Op::OpAtomicUMin);
      case BuiltinFn::AtomicAnd:
        return rmw(Op::OpAtomicAnd);
      case BuiltinFn::AtomicOr:
        return rmw(Op::OpAtomicOr);
      case BuiltinFn::AtomicXor:
        return rmw(Op::OpAtomicXor);
      case BuiltinFn::AtomicExchange:
        return rmw(Op::OpAtomicExchange);
      case BuiltinFn::AtomicCompareExchangeWeak: {
        uint32_t old =
            emit(Op::OpAtomicCompareExchange, tid, {ptr, scope, relaxed, relaxed, args[1], args[0]});
        uint32_t exchanged = emit(Op::OpIEqual, type_id(sem_.types.bool_type()), {old, args[0]});
        return emit(Op::OpCompositeConstruct, type_id(in.type), {old, exchanged});
      }
      default:
        break;
    }
    return 0;
  }

  const sem::Module& sem_;
  const WriterOptions& opts_;
  uint32_t id_bound_ = 1;
  uint32_t glsl_ = 0;
  std::set<uint32_t> capabilities_;
  Words capability_section_, entry_points_, execution_modes_, names_, annotations_, types_, functions_;
  std::map<const Type*, uint32_t> type_ids_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> pointer_types_;
  std::map<Words, uint32_t> function_types_;
  std::map<std::tuple<uint32_t, uint32_t>, uint32_t> scalar_constants_;
  std::map<Words, uint32_t> composite_constants_;
  std::map<uint32_t, uint32_t> null_constants_;
  std::set<uint32_t> block_structs_;
  std::map<const ast::VarDecl*, GlobalIds> globals_;
  std::map<const ast::VarDecl*, uint32_t> overrides_;
  std::map<uint32_t, uint32_t> spec_values_;  // Expr::id -> spec constant
  std::map<BuiltinValue, uint32_t> builtin_inputs_;
  std::map<const ast::Function*, uint32_t> function_ids_;
  uint32_t workgroup_size_builtin_ = 0;

  // Per function.
  const sem::Function* current_fn_ = nullptr;
  Words body_, fn_vars_;
  std::map<const void*, uint32_t> locals_;
  std::set<uint32_t> reached_;
  std::vector<Breakable> breakables_;
  uint32_t current_label_ = 0;
  bool terminated_ = false;
};

}  // namespace

std::vector<uint32_t> write_spirv(const ast::Module& module, const sem::Module& sem,
                                  const WriterOptions& options) {
  (void)module;  // part of the interface: the writer needs the AST the semantic module annotates
  return Writer(sem, options).run();
}

}  // namespace vkgemm::wgsl
