// Constant-expression evaluation on sem::Value, with the overflow and domain errors of the WGSL spec
// (following Tint where the spec leaves a choice: concrete integer arithmetic wraps, abstract and float
// overflow is an error).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wgsl/ast.hpp"
#include "wgsl/sem.hpp"

namespace vkgemm::wgsl::const_eval {

using sem::Value;

// Result or error message.
struct Result {
  std::optional<Value> value;
  std::string error;
  static Result ok(Value v) { return {std::move(v), {}}; }
  static Result fail(std::string e) { return {std::nullopt, std::move(e)}; }
};

Value zero(TypeTable& types, const Type* type);
Value splat(const Type* vector_type, const Value& scalar);
Value scalar_int(const Type* type, int64_t v);
Value scalar_float(const Type* type, double v);
Value scalar_bool(const Type* bool_type, bool v);

// Implicit conversion of an abstract value to `target` (same shape): errors when not representable.
Result materialize(TypeTable& types, const Value& v, const Type* target);
// Explicit value conversion `T(e)` (truncation/saturation/bit reinterpretation per the spec).
Result convert(TypeTable& types, const Value& v, const Type* target);
// bitcast<T>(e)
Result bitcast(TypeTable& types, const Value& v, const Type* target);

// `result_type` is the already-checked type of the expression.
Result binary(TypeTable& types, ast::BinaryOp op, const Value& a, const Value& b, const Type* result_type);
Result unary(TypeTable& types, ast::UnaryOp op, const Value& a, const Type* result_type);
// Returns a value with no type (and no error) when `fn` is not evaluated at const time.
Result builtin(TypeTable& types, sem::BuiltinFn fn, const std::vector<Value>& args, const Type* result_type);
bool is_const_builtin(sem::BuiltinFn fn);

// Rounds `v` to the precision of float type `t` (f32/f16); abstract floats are unchanged.
double round_float(const Type* t, double v);
std::string value_to_string(const Value& v);

}  // namespace vkgemm::wgsl::const_eval
