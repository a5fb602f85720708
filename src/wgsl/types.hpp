// The WGSL type system: interned types with host-shareable layout.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace vkgemm::wgsl {

namespace ast {
struct Struct;
}

enum class AddressSpace { None, Function, Private, Workgroup, Uniform, Storage, PushConstant, Handle };
enum class Access { None, Read, Write, ReadWrite };

const char* to_string(AddressSpace as);
const char* to_string(Access access);

enum class TypeKind {
  Void,
  Bool,
  AbstractInt,
  AbstractFloat,
  I32,
  U32,
  F32,
  F16,
  Vector,     // elem, count = 2..4
  Matrix,     // elem = column vector, count = columns
  Array,      // elem, count (0 = runtime-sized)
  Struct,     // members
  Atomic,     // elem = i32 or u32
  Pointer,    // elem = store type, address_space, access
  Reference,  // elem = store type, address_space, access (the type of a memory view expression)
};

struct Type;

struct StructMember {
  std::string name;
  const Type* type = nullptr;
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t align = 0;
};

struct Type {
  TypeKind kind = TypeKind::Void;
  const Type* elem = nullptr;
  uint32_t count = 0;
  AddressSpace address_space = AddressSpace::None;
  Access access = Access::None;
  std::string name;  // struct name
  std::vector<StructMember> members;
  const ast::Struct* decl = nullptr;
  // Layout (valid when host_shareable_layout is true or for any constructible type).
  uint32_t size = 0;
  uint32_t align = 0;
  uint32_t stride = 0;  // arrays: element stride; matrices: column stride
  // Arrays sized by an override-expression (workgroup variables only); `count` holds the default.
  const void* count_expr = nullptr;

  bool is_scalar() const {
    return kind == TypeKind::Bool || kind == TypeKind::AbstractInt || kind == TypeKind::AbstractFloat ||
           kind == TypeKind::I32 || kind == TypeKind::U32 || kind == TypeKind::F32 || kind == TypeKind::F16;
  }
  bool is_abstract() const;  // abstract scalar, or vector/matrix/array of them
  bool is_integer_scalar() const {
    return kind == TypeKind::I32 || kind == TypeKind::U32 || kind == TypeKind::AbstractInt;
  }
  bool is_float_scalar() const {
    return kind == TypeKind::F32 || kind == TypeKind::F16 || kind == TypeKind::AbstractFloat;
  }
  bool is_signed_integer_scalar() const { return kind == TypeKind::I32 || kind == TypeKind::AbstractInt; }
  bool is_numeric_scalar() const { return is_integer_scalar() || is_float_scalar(); }
  // The scalar of a scalar or vector (or the element scalar of a matrix); null otherwise.
  const Type* scalar() const;
  bool is_vector() const { return kind == TypeKind::Vector; }
  bool is_memory_view() const { return kind == TypeKind::Pointer || kind == TypeKind::Reference; }
  // Can be the type of a value (constructible or a pointer).
  bool is_constructible() const;
  bool has_runtime_array() const;
  bool contains_atomic() const;
  bool is_host_shareable() const;
};

std::string to_string(const Type* type);

// Owns and interns all types of one compilation.
class TypeTable {
 public:
  TypeTable();
  const Type* void_type() const { return void_; }
  const Type* bool_type() const { return bool_; }
  const Type* abstract_int() const { return abstract_int_; }
  const Type* abstract_float() const { return abstract_float_; }
  const Type* i32() const { return i32_; }
  const Type* u32() const { return u32_; }
  const Type* f32() const { return f32_; }
  const Type* f16() const { return f16_; }
  const Type* vector(const Type* elem, uint32_t n);
  const Type* matrix(const Type* elem, uint32_t columns, uint32_t rows);
  // element stride is computed from the element's layout.
  const Type* array(const Type* elem, uint32_t count, const void* count_expr = nullptr);
  const Type* atomic(const Type* elem);
  const Type* pointer(const Type* store, AddressSpace as, Access access);
  const Type* reference(const Type* store, AddressSpace as, Access access);
  // Creates a new (nominal) struct type; members must already have offsets and sizes.
  Type* make_struct(std::string name, const ast::Struct* decl);
  // Replaces the leaf scalar of `type` (scalar/vector/matrix/array) with `scalar`.
  const Type* with_scalar(const Type* type, const Type* scalar);
  // The concrete type an abstract type materializes to when nothing else is asked (i32 / f32).
  const Type* concretize(const Type* type);

 private:
  Type* make(const Type& proto);
  // Structural identity: (kind, element, count, address space, access).
  using Key = std::tuple<int, const Type*, uint32_t, int, int>;
  const Type* intern(const Key& key, const Type& proto);
  std::deque<Type> storage_;
  std::map<Key, const Type*> interned_;
  const Type* void_;
  const Type* bool_;
  const Type* abstract_int_;
  const Type* abstract_float_;
  const Type* i32_;
  const Type* u32_;
  const Type* f32_;
  const Type* f16_;
};

inline uint32_t round_up(uint32_t align, uint32_t value) {
  return align == 0 ? value : (value + align - 1) / align * align;
}

}  // namespace vkgemm::wgsl
