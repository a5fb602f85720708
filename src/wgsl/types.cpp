#include "wgsl/types.hpp"

namespace vkgemm::wgsl {

const char* to_string(AddressSpace as) {
  switch (as) {
    case AddressSpace::None:
      return "none";
    case AddressSpace::Function:
      return "function";
    case AddressSpace::Private:
      return "private";
    case AddressSpace::Workgroup:
      return "workgroup";
    case AddressSpace::Uniform:
      return "uniform";
    case AddressSpace::Storage:
      return "storage";
    case AddressSpace::PushConstant:
      return "push_constant";
    case AddressSpace::Handle:
      return "handle";
  }
  return "?";
}

const char* to_string(Access access) {
  switch (access) {
    case Access::None:
      return "none";
    case Access::Read:
      return "read";
    case Access::Write:
      return "write";
    case Access::ReadWrite:
      return "read_write";
  }
  return "?";
}

bool Type::is_abstract() const {
  switch (kind) {
    case TypeKind::AbstractInt:
    case TypeKind::AbstractFloat:
      return true;
    case TypeKind::Vector:
    case TypeKind::Matrix:
    case TypeKind::Array:
      return elem->is_abstract();
    default:
      return false;
  }
}

const Type* Type::scalar() const {
  if (is_scalar()) return this;
  if (kind == TypeKind::Vector) return elem;
  if (kind == TypeKind::Matrix) return elem->elem;
  return nullptr;
}

bool Type::is_constructible() const {
  switch (kind) {
    case TypeKind::Bool:
    case TypeKind::AbstractInt:
    case TypeKind::AbstractFloat:
    case TypeKind::I32:
    case TypeKind::U32:
    case TypeKind::F32:
    case TypeKind::F16:
    case TypeKind::Vector:
    case TypeKind::Matrix:
      return true;
    case TypeKind::Array:
      return count != 0 && !count_expr && elem->is_constructible();
    case TypeKind::Struct:
      for (const auto& m : members) {
        if (!m.type->is_constructible()) return false;
      }
      return true;
    default:
      return false;
  }
}

bool Type::has_runtime_array() const {
  if (kind == TypeKind::Array) return count == 0;
  if (kind == TypeKind::Struct && !members.empty()) return members.back().type->has_runtime_array();
  return false;
}

bool Type::contains_atomic() const {
  if (kind == TypeKind::Atomic) return true;
  if (kind == TypeKind::Array) return elem->contains_atomic();
  if (kind == TypeKind::Struct) {
    for (const auto& m : members) {
      if (m.type->contains_atomic()) return true;
    }
  }
  return false;
}

bool Type::is_host_shareable() const {
  switch (kind) {
    case TypeKind::I32:
    case TypeKind::U32:
    case TypeKind::F32:
    case TypeKind::F16:
    case TypeKind::Atomic:
      return true;
    case TypeKind::Vector:
    case TypeKind::Matrix:
      return elem->is_host_shareable();
    case TypeKind::Array:
      return elem->is_host_shareable();
    case TypeKind::Struct:
      for (const auto& m : members) {
        if (!m.type->is_host_shareable()) return false;
      }
      return true;
    default:
      return false;
  }
}

std::string to_string(const Type* t) {
  if (!t) return "<error>";
  switch (t->kind) {
    case TypeKind::Void:
      return "void";
    case TypeKind::Bool:
      return "bool";
    case TypeKind::AbstractInt:
      return "abstract-int";
    case TypeKind::AbstractFloat:
      return "abstract-float";
    case TypeKind::I32:
      return "i32";
    case TypeKind::U32:
      return "u32";
    case TypeKind::F32:
      return "f32";
    case TypeKind::F16:
      return "f16";
    case TypeKind::Vector:
      return "vec" + std::to_string(t->count) + "<" + to_string(t->elem) + ">";
    case TypeKind::Matrix:
      return "mat" + std::to_string(t->count) + "x" + std::to_string(t->elem->count) + "<" +
             to_string(t->elem->elem) + ">";
    case TypeKind::Array:
      return t->count ? "array<" + to_string(t->elem) + ", " + std::to_string(t->count) + ">"
                      : "array<" + to_string(t->elem) + ">";
    case TypeKind::Struct:
      return t->name;
    case TypeKind::Atomic:
      return "atomic<" + to_string(t->elem) + ">";
    case TypeKind::Pointer:
      return std::string("ptr<") + to_string(t->address_space) + ", " + to_string(t->elem) + ", " +
             to_string(t->access) + ">";
    case TypeKind::Reference:
      return std::string("ref<") + to_string(t->address_space) + ", " + to_string(t->elem) + ", " +
             to_string(t->access) + ">";
  }
  return "?";
}

TypeTable::TypeTable() {
  auto scalar = [&](TypeKind k, uint32_t size) {
    Type t;
    t.kind = k;
    t.size = size;
    t.align = size;
    return make(t);
  };
  void_ = scalar(TypeKind::Void, 0);
  bool_ = scalar(TypeKind::Bool, 4);
  abstract_int_ = scalar(TypeKind::AbstractInt, 8);
  abstract_float_ = scalar(TypeKind::AbstractFloat, 8);
  i32_ = scalar(TypeKind::I32, 4);
  u32_ = scalar(TypeKind::U32, 4);
  f32_ = scalar(TypeKind::F32, 4);
  f16_ = scalar(TypeKind::F16, 2);
}

Type* TypeTable::make(const Type& proto) {
  storage_.push_back(proto);
  return &storage_.back();
}

const Type* TypeTable::intern(const Key& key, const Type& proto) {
  auto it = interned_.find(key);
  if (it != interned_.end()) return it->second;
  const Type* t = make(proto);
  interned_[key] = t;
  return t;
}

const Type* TypeTable::vector(const Type* elem, uint32_t n) {
  Type t;
  t.kind = TypeKind::Vector;
  t.elem = elem;
  t.count = n;
  t.size = elem->size * n;
  t.align = elem->size * (n == 3 ? 4 : n);
  return intern({static_cast<int>(TypeKind::Vector), elem, n, 0, 0}, t);
}

const Type* TypeTable::matrix(const Type* elem, uint32_t columns, uint32_t rows) {
  const Type* column = vector(elem, rows);
  Type t;
  t.kind = TypeKind::Matrix;
  t.elem = column;
  t.count = columns;
  t.stride = round_up(column->align, column->size);
  t.size = t.stride * columns;
  t.align = column->align;
  return intern({static_cast<int>(TypeKind::Matrix), column, columns, 0, 0}, t);
}

const Type* TypeTable::array(const Type* elem, uint32_t count, const void* count_expr) {
  Type t;
  t.kind = TypeKind::Array;
  t.elem = elem;
  t.count = count;
  t.count_expr = count_expr;
  t.stride = round_up(elem->align, elem->size);
  t.size = t.stride * count;
  t.align = elem->align;
  if (count_expr) return make(t);  // each override-sized array type is distinct
  return intern({static_cast<int>(TypeKind::Array), elem, count, 0, 0}, t);
}

const Type* TypeTable::atomic(const Type* elem) {
  Type t;
  t.kind = TypeKind::Atomic;
  t.elem = elem;
  t.size = 4;
  t.align = 4;
  return intern({static_cast<int>(TypeKind::Atomic), elem, 0, 0, 0}, t);
}

const Type* TypeTable::pointer(const Type* store, AddressSpace as, Access access) {
  Type t;
  t.kind = TypeKind::Pointer;
  t.elem = store;
  t.address_space = as;
  t.access = access;
  return intern(
      {static_cast<int>(TypeKind::Pointer), store, 0, static_cast<int>(as), static_cast<int>(access)}, t);
}

const Type* TypeTable::reference(const Type* store, AddressSpace as, Access access) {
  Type t;
  t.kind = TypeKind::Reference;
  t.elem = store;
  t.address_space = as;
  t.access = access;
  return intern(
      {static_cast<int>(TypeKind::Reference), store, 0, static_cast<int>(as), static_cast<int>(access)}, t);
}

Type* TypeTable::make_struct(std::string name, const ast::Struct* decl) {
  Type t;
  t.kind = TypeKind::Struct;
  t.name = std::move(name);
  t.decl = decl;
  return make(t);
}

const Type* TypeTable::with_scalar(const Type* type, const Type* scalar) {
  switch (type->kind) {
    case TypeKind::Vector:
      return vector(scalar, type->count);
    case TypeKind::Matrix:
      return matrix(scalar, type->count, type->elem->count);
    case TypeKind::Array:
      return array(with_scalar(type->elem, scalar), type->count);
    default:
      return type->is_scalar() ? scalar : type;
  }
}

const Type* TypeTable::concretize(const Type* type) {
  switch (type->kind) {
    case TypeKind::AbstractInt:
      return i32_;
    case TypeKind::AbstractFloat:
      return f32_;
    case TypeKind::Vector:
      return vector(concretize(type->elem), type->count);
    case TypeKind::Matrix:
      return matrix(concretize(type->elem->elem), type->count, type->elem->count);
    case TypeKind::Array:
      return array(concretize(type->elem), type->count);
    default:
      return type;
  }
}

}  // namespace vkgemm::wgsl
