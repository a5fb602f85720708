// The resolver's output: everything the SPIR-V writer and reflection need, keyed by AST node. The writer
// trusts this data and performs no semantic checks of its own.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "wgsl/ast.hpp"
#include "wgsl/types.hpp"

namespace vkgemm::wgsl::sem {

// A constant value. Scalars: bool and integers in `i` (u32 as 0..2^32-1), floats in `f`. Composites: elements
// (vector components, matrix columns, array elements, struct members).
struct Value {
  const Type* type = nullptr;
  int64_t i = 0;
  double f = 0.0;
  std::vector<Value> elements;
};

enum class BuiltinValue {
  GlobalInvocationId,
  LocalInvocationId,
  LocalInvocationIndex,
  WorkgroupId,
  NumWorkgroups,
  SubgroupSize,
  SubgroupInvocationId,
};
const char* to_string(BuiltinValue b);

enum class BuiltinFn {
  None,
  // numeric (float)
  Acos,
  Acosh,
  Asin,
  Asinh,
  Atan,
  Atanh,
  Atan2,
  Ceil,
  Cos,
  Cosh,
  Degrees,
  Exp,
  Exp2,
  Floor,
  Fract,
  InverseSqrt,
  Log,
  Log2,
  Radians,
  Round,
  Sin,
  Sinh,
  Sqrt,
  Tan,
  Tanh,
  Trunc,
  Saturate,
  QuantizeToF16,
  Pow,
  Step,
  Fma,
  Mix,
  Smoothstep,
  Ldexp,
  Modf,
  Frexp,
  // numeric (any)
  Abs,
  Sign,
  Min,
  Max,
  Clamp,
  // geometric
  Dot,
  Cross,
  Length,
  Distance,
  Normalize,
  FaceForward,
  Reflect,
  Refract,
  Determinant,
  Transpose,
  // bit
  CountOneBits,
  CountLeadingZeros,
  CountTrailingZeros,
  FirstLeadingBit,
  FirstTrailingBit,
  ReverseBits,
  ExtractBits,
  InsertBits,
  // logical
  All,
  Any,
  Select,
  // packing
  Pack4x8Snorm,
  Pack4x8Unorm,
  Pack2x16Snorm,
  Pack2x16Unorm,
  Pack2x16Float,
  Unpack4x8Snorm,
  Unpack4x8Unorm,
  Unpack2x16Snorm,
  Unpack2x16Unorm,
  Unpack2x16Float,
  Pack4xI8,
  Pack4xU8,
  Pack4xI8Clamp,
  Pack4xU8Clamp,
  Unpack4xI8,
  Unpack4xU8,
  Dot4I8Packed,
  Dot4U8Packed,
  // memory
  ArrayLength,
  // atomics
  AtomicLoad,
  AtomicStore,
  AtomicAdd,
  AtomicSub,
  AtomicMax,
  AtomicMin,
  AtomicAnd,
  AtomicOr,
  AtomicXor,
  AtomicExchange,
  AtomicCompareExchangeWeak,
  // synchronization
  WorkgroupBarrier,
  StorageBarrier,
  WorkgroupUniformLoad,
  // subgroup
  SubgroupAdd,
  SubgroupExclusiveAdd,
  SubgroupInclusiveAdd,
  SubgroupMul,
  SubgroupExclusiveMul,
  SubgroupInclusiveMul,
  SubgroupMin,
  SubgroupMax,
  SubgroupAnd,
  SubgroupOr,
  SubgroupXor,
  SubgroupAll,
  SubgroupAny,
  SubgroupBallot,
  SubgroupElect,
  SubgroupBroadcast,
  SubgroupBroadcastFirst,
  SubgroupShuffle,
  SubgroupShuffleXor,
  SubgroupShuffleUp,
  SubgroupShuffleDown,
  QuadBroadcast,
  QuadSwapX,
  QuadSwapY,
  QuadSwapDiagonal,
  // conversion
  Bitcast,
};

BuiltinFn lookup_builtin(std::string_view name);
const char* to_string(BuiltinFn fn);
bool is_subgroup_builtin(BuiltinFn fn);

enum class SymbolKind {
  None,
  LocalVar,
  LocalLet,  // includes function-scope const when it has no value (never: const always has a value)
  LocalConst,
  Param,
  GlobalVar,
  GlobalConst,
  Override,
};

enum class CallKind { None, UserFunction, Builtin, Constructor, Conversion, ZeroValue };

struct ExprInfo {
  // The expression's type after materialization; Reference for memory views (the writer loads them when a
  // value is needed). Null when resolution failed.
  const Type* type = nullptr;
  // Set for const-expressions; concrete after materialization unless the expression is only used inside
  // another const-expression.
  std::optional<Value> value;

  // Identifier.
  SymbolKind symbol = SymbolKind::None;
  const ast::VarDecl* var = nullptr;
  const ast::Param* param = nullptr;

  // Call.
  CallKind call = CallKind::None;
  const ast::Function* function = nullptr;
  BuiltinFn builtin = BuiltinFn::None;

  // Member access.
  int member_index = -1;          // struct member
  std::vector<uint32_t> swizzle;  // vector component(s)

  bool nonuniform = false;  // filled by the uniformity analysis
  // An override-expression: depends on overrides and constants only (evaluated at pipeline creation).
  bool override_expr = false;
};

struct GlobalVar {
  const ast::VarDecl* decl = nullptr;
  const Type* store_type = nullptr;
  AddressSpace address_space = AddressSpace::None;
  Access access = Access::None;
  std::optional<uint32_t> group;
  std::optional<uint32_t> binding;
};

struct Override {
  const ast::VarDecl* decl = nullptr;
  const Type* type = nullptr;
  uint32_t spec_id = 0;
  std::optional<Value> default_value;  // for derived overrides: the value with every override at its default
  // `override b = a * 2u;`: b follows a and is not itself overridable (a SPIR-V OpSpecConstantOp).
  const ast::Expr* derived_from = nullptr;
};

struct Param {
  const ast::Param* decl = nullptr;
  const Type* type = nullptr;
  std::optional<BuiltinValue> builtin;
  std::vector<BuiltinValue> member_builtins;  // entry-point input struct: one built-in per member
};

// One workgroup_size dimension: a constant, or an override (with its default value).
struct WorkgroupDim {
  uint32_t value = 1;                           // the default
  const ast::VarDecl* override_decl = nullptr;  // a plain override identifier
  const ast::Expr* override_expr = nullptr;     // any other override-expression
};

struct Function {
  const ast::Function* decl = nullptr;
  std::vector<Param> params;
  const Type* return_type = nullptr;
  bool is_entry_point = false;
  std::array<WorkgroupDim, 3> workgroup_size;
  std::vector<const ast::Function*> callees;  // direct
  std::set<const ast::VarDecl*> globals;      // module-scope vars and overrides used, transitively
  bool requires_uniformity = false;           // calls a barrier, transitively
  bool returns_nonuniform = false;
  bool uses_subgroups = false;  // transitively
};

struct Module {
  TypeTable types;
  std::vector<ExprInfo> exprs;                             // indexed by ast::Expr::id
  std::map<const ast::VarDecl*, const Type*> local_types;  // function-scope var (store type) / let / const
  std::map<const ast::VarDecl*, GlobalVar> globals;
  std::map<const ast::VarDecl*, Override> overrides;
  std::map<const ast::VarDecl*, Value> global_consts;
  std::vector<Function> functions;  // callees before callers
  std::map<const ast::Function*, size_t> function_index;
  bool enable_f16 = false;
  bool enable_subgroups = false;

  const ExprInfo& info(const ast::Expr& e) const { return exprs[e.id]; }
  const Function& function(const ast::Function* f) const { return functions[function_index.at(f)]; }
};

}  // namespace vkgemm::wgsl::sem
