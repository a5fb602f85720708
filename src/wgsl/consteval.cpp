#include "wgsl/consteval.hpp"

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

namespace vkgemm::wgsl::const_eval {
namespace {

using ast::BinaryOp;
using ast::UnaryOp;
using sem::BuiltinFn;

bool is_int_kind(TypeKind k) {
  return k == TypeKind::I32 || k == TypeKind::U32 || k == TypeKind::AbstractInt;
}
bool is_float_kind(TypeKind k) {
  return k == TypeKind::F32 || k == TypeKind::F16 || k == TypeKind::AbstractFloat;
}

double round_to_f16(double v) {
  if (v == 0.0 || !std::isfinite(v)) return v;
  int exp = 0;
  std::frexp(v, &exp);  // v = m * 2^exp, 0.5 <= |m| < 1
  // f16 has 11 significant bits; subnormals below 2^-14 have a fixed quantum of 2^-24.
  int quantum_exp = std::max(exp - 11, -24);
  double q = std::ldexp(1.0, quantum_exp);
  return std::nearbyint(v / q) * q;
}

// Checks that a float result is finite and representable in its type.
Result float_result(const Type* t, double v) {
  double r = round_float(t, v);
  double max = t->kind == TypeKind::F16 ? 65504.0 : t->kind == TypeKind::F32 ? FLT_MAX : DBL_MAX;
  if (!std::isfinite(r) || std::fabs(r) > max) {
    return Result::fail("value " + std::to_string(v) + " cannot be represented as '" + to_string(t) + "'");
  }
  return Result::ok(scalar_float(t, r));
}

int64_t wrap_to(const Type* t, int64_t v) {
  if (t->kind == TypeKind::I32) return static_cast<int32_t>(static_cast<uint32_t>(v));
  if (t->kind == TypeKind::U32) return static_cast<int64_t>(static_cast<uint32_t>(v));
  return v;
}

bool fits(const Type* t, int64_t v) {
  if (t->kind == TypeKind::I32) return v >= INT32_MIN && v <= INT32_MAX;
  if (t->kind == TypeKind::U32) return v >= 0 && v <= UINT32_MAX;
  return true;
}

// Applies `f` per component, splatting scalars against vectors.
Result componentwise2(const Value& a, const Value& b, const Type* result_type,
                      const std::function<Result(const Value&, const Value&, const Type*)>& f) {
  bool av = !a.elements.empty();
  bool bv = !b.elements.empty();
  if (!av && !bv) return f(a, b, result_type);
  size_t n = av ? a.elements.size() : b.elements.size();
  Value out;
  out.type = result_type;
  const Type* elem = result_type->kind == TypeKind::Vector || result_type->kind == TypeKind::Matrix ||
                             result_type->kind == TypeKind::Array
                         ? result_type->elem
                         : result_type;
  for (size_t i = 0; i < n; ++i) {
    Result r = componentwise2(av ? a.elements[i] : a, bv ? b.elements[i] : b, elem, f);
    if (!r.value) return r;
    out.elements.push_back(std::move(*r.value));
  }
  return Result::ok(std::move(out));
}

Result componentwise1(const Value& a, const Type* result_type,
                      const std::function<Result(const Value&, const Type*)>& f) {
  if (a.elements.empty()) return f(a, result_type);
  Value out;
  out.type = result_type;
  for (const Value& e : a.elements) {
    Result r = componentwise1(e, result_type->elem ? result_type->elem : result_type, f);
    if (!r.value) return r;
    out.elements.push_back(std::move(*r.value));
  }
  return Result::ok(std::move(out));
}

Result int_binary(BinaryOp op, const Value& a, const Value& b, const Type* t) {
  const bool is_abstract = t->kind == TypeKind::AbstractInt;
  const bool is_signed = t->kind != TypeKind::U32;
  const int bits = t->kind == TypeKind::AbstractInt ? 64 : 32;
  int64_t x = a.i, y = b.i, r = 0;
  auto overflow = [&]() {
    return Result::fail("'" + std::to_string(x) + " " + ast::to_string(op) + " " + std::to_string(y) +
                        "' cannot be represented as '" + to_string(t) + "'");
  };
  switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(x, y, &r)) return overflow();
      if (is_abstract) return Result::ok(scalar_int(t, r));
      return Result::ok(scalar_int(t, wrap_to(t, r)));
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(x, y, &r)) return overflow();
      if (is_abstract) return Result::ok(scalar_int(t, r));
      return Result::ok(scalar_int(t, wrap_to(t, r)));
    case BinaryOp::Mul:
      if (is_abstract) {
        if (__builtin_mul_overflow(x, y, &r)) return overflow();
        return Result::ok(scalar_int(t, r));
      }
      return Result::ok(scalar_int(
          t, wrap_to(t, static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)))));
    case BinaryOp::Div:
    case BinaryOp::Mod:
      if (y == 0) return Result::fail("integer division by zero is invalid");
      if (is_signed && y == -1 && x == (is_abstract ? INT64_MIN : INT32_MIN)) return overflow();
      return Result::ok(scalar_int(t, op == BinaryOp::Div ? x / y : x % y));
    case BinaryOp::And:
      return Result::ok(scalar_int(t, x & y));
    case BinaryOp::Or:
      return Result::ok(scalar_int(t, x | y));
    case BinaryOp::Xor:
      return Result::ok(scalar_int(t, wrap_to(t, x ^ y)));
    case BinaryOp::ShiftLeft: {
      if (y < 0 || y >= bits) {
        if (is_abstract && y >= 0 && y < 64 && x == 0) return Result::ok(scalar_int(t, 0));
        return Result::fail("shift amount " + std::to_string(y) + " must be less than the bit width " +
                            std::to_string(bits) + " of '" + to_string(t) + "'");
      }
      uint64_t ux = static_cast<uint64_t>(x);
      if (is_signed) {
        // The bits shifted out and the new sign bit must all equal the original sign bit.
        int64_t shifted = static_cast<int64_t>(ux << y);
        int64_t result = bits == 32 ? static_cast<int32_t>(static_cast<uint32_t>(shifted)) : shifted;
        if ((result >> y) != x) return overflow();
        return Result::ok(scalar_int(t, result));
      }
      uint64_t result = (ux << y) & 0xffffffffu;
      if ((result >> y) != ux) return overflow();
      return Result::ok(scalar_int(t, static_cast<int64_t>(result)));
    }
    case BinaryOp::ShiftRight:
      if (y < 0 || y >= bits) {
        return Result::fail("shift amount " + std::to_string(y) + " must be less than the bit width " +
                            std::to_string(bits) + " of '" + to_string(t) + "'");
      }
      if (is_signed) return Result::ok(scalar_int(t, x >> y));
      return Result::ok(scalar_int(t, static_cast<int64_t>(static_cast<uint64_t>(x) >> y)));
    default:
      break;
  }
  return Result::fail("invalid integer operation");
}

Result float_binary(BinaryOp op, const Value& a, const Value& b, const Type* t) {
  double x = a.f, y = b.f;
  switch (op) {
    case BinaryOp::Add:
      return float_result(t, x + y);
    case BinaryOp::Sub:
      return float_result(t, x - y);
    case BinaryOp::Mul:
      return float_result(t, x * y);
    case BinaryOp::Div:
      if (y == 0.0) return Result::fail("division by zero in a constant expression");
      return float_result(t, x / y);
    case BinaryOp::Mod:
      if (y == 0.0) return Result::fail("division by zero in a constant expression");
      return float_result(t, x - y * std::trunc(x / y));
    default:
      break;
  }
  return Result::fail("invalid floating-point operation");
}

Result compare(BinaryOp op, const Value& a, const Value& b, const Type* bool_type) {
  bool f = is_float_kind(a.type->kind);
  auto cmp = [&](auto x, auto y) {
    switch (op) {
      case BinaryOp::Equal:
        return x == y;
      case BinaryOp::NotEqual:
        return x != y;
      case BinaryOp::Less:
        return x < y;
      case BinaryOp::LessEqual:
        return x <= y;
      case BinaryOp::Greater:
        return x > y;
      case BinaryOp::GreaterEqual:
        return x >= y;
      default:
        return false;
    }
  };
  return Result::ok(scalar_bool(bool_type, f ? cmp(a.f, b.f) : cmp(a.i, b.i)));
}

uint32_t f32_bits(double v) {
  float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
double from_f32_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

double round_float(const Type* t, double v) {
  if (t->kind == TypeKind::F32) return static_cast<double>(static_cast<float>(v));
  if (t->kind == TypeKind::F16) return round_to_f16(v);
  return v;
}

Value scalar_int(const Type* type, int64_t v) {
  Value out;
  out.type = type;
  out.i = v;
  return out;
}
Value scalar_float(const Type* type, double v) {
  Value out;
  out.type = type;
  out.f = v;
  return out;
}
Value scalar_bool(const Type* bool_type, bool v) {
  Value out;
  out.type = bool_type;
  out.i = v ? 1 : 0;
  return out;
}

Value splat(const Type* vector_type, const Value& scalar) {
  Value out;
  out.type = vector_type;
  out.elements.assign(vector_type->count, scalar);
  return out;
}

Value zero(TypeTable& types, const Type* type) {
  Value out;
  out.type = type;
  switch (type->kind) {
    case TypeKind::Vector:
    case TypeKind::Matrix:
    case TypeKind::Array:
      for (uint32_t i = 0; i < type->count; ++i) out.elements.push_back(zero(types, type->elem));
      break;
    case TypeKind::Struct:
      for (const auto& m : type->members) out.elements.push_back(zero(types, m.type));
      break;
    default:
      break;
  }
  return out;
}

Result materialize(TypeTable& types, const Value& v, const Type* target) {
  if (v.type == target) return Result::ok(v);
  if (!v.elements.empty()) {
    Value out;
    out.type = target;
    for (size_t i = 0; i < v.elements.size(); ++i) {
      const Type* elem = target->kind == TypeKind::Struct ? target->members[i].type : target->elem;
      Result r = materialize(types, v.elements[i], elem);
      if (!r.value) return r;
      out.elements.push_back(std::move(*r.value));
    }
    return Result::ok(std::move(out));
  }
  const Type* from = v.type;
  if (from->kind == TypeKind::AbstractInt) {
    if (is_int_kind(target->kind)) {
      if (!fits(target, v.i)) {
        return Result::fail("value " + std::to_string(v.i) + " cannot be represented as '" +
                            to_string(target) + "'");
      }
      return Result::ok(scalar_int(target, v.i));
    }
    if (is_float_kind(target->kind)) return float_result(target, static_cast<double>(v.i));
  }
  if (from->kind == TypeKind::AbstractFloat && is_float_kind(target->kind)) return float_result(target, v.f);
  return Result::fail("cannot convert '" + to_string(from) + "' to '" + to_string(target) + "'");
}

Result convert(TypeTable& types, const Value& v, const Type* target) {
  if (!v.elements.empty()) {
    Value out;
    out.type = target;
    for (const Value& e : v.elements) {
      Result r = convert(types, e, target->elem);
      if (!r.value) return r;
      out.elements.push_back(std::move(*r.value));
    }
    return Result::ok(std::move(out));
  }
  TypeKind from = v.type->kind;
  switch (target->kind) {
    case TypeKind::Bool:
      return Result::ok(scalar_bool(target, is_float_kind(from) ? v.f != 0.0 : v.i != 0));
    case TypeKind::I32:
    case TypeKind::U32:
      if (is_float_kind(from)) {
        // Float to integer conversion saturates (and truncates toward zero).
        double lo = target->kind == TypeKind::I32 ? -2147483648.0 : 0.0;
        double hi = target->kind == TypeKind::I32 ? 2147483520.0 : 4294967040.0;
        double c = std::isnan(v.f) ? 0.0 : std::min(std::max(std::trunc(v.f), lo), hi);
        return Result::ok(scalar_int(target, static_cast<int64_t>(c)));
      }
      if (from == TypeKind::AbstractInt) return materialize(types, v, target);
      return Result::ok(scalar_int(target, wrap_to(target, v.i)));
    case TypeKind::F32:
    case TypeKind::F16:
    case TypeKind::AbstractFloat:
      if (from == TypeKind::Bool) return Result::ok(scalar_float(target, v.i ? 1.0 : 0.0));
      if (is_int_kind(from)) return float_result(target, static_cast<double>(v.i));
      return float_result(target, v.f);
    case TypeKind::AbstractInt:
      return Result::ok(scalar_int(target, is_float_kind(from) ? static_cast<int64_t>(v.f) : v.i));
    default:
      break;
  }
  return Result::fail("cannot convert '" + to_string(v.type) + "' to '" + to_string(target) + "'");
}

Result bitcast(TypeTable& types, const Value& v, const Type* target) {
  (void)types;
  // Only 32-bit scalar-to-scalar (component-wise) bitcasts are evaluated at const time.
  if (!v.elements.empty()) {
    if (target->kind != TypeKind::Vector || target->count != v.elements.size()) return Result{};
    Value out;
    out.type = target;
    for (const Value& e : v.elements) {
      Result r = bitcast(types, e, target->elem);
      if (!r.value) return r;
      out.elements.push_back(std::move(*r.value));
    }
    return Result::ok(std::move(out));
  }
  uint32_t bits = 0;
  switch (v.type->kind) {
    case TypeKind::I32:
    case TypeKind::U32:
      bits = static_cast<uint32_t>(v.i);
      break;
    case TypeKind::F32:
      bits = f32_bits(v.f);
      break;
    default:
      return Result{};
  }
  switch (target->kind) {
    case TypeKind::I32:
      return Result::ok(scalar_int(target, static_cast<int32_t>(bits)));
    case TypeKind::U32:
      return Result::ok(scalar_int(target, bits));
    case TypeKind::F32: {
      double f = from_f32_bits(bits);
      if (!std::isfinite(f)) return Result::fail("bitcast result is not a finite f32 value");
      return Result::ok(scalar_float(target, f));
    }
    default:
      return Result{};
  }
}

Result binary(TypeTable& types, BinaryOp op, const Value& a, const Value& b, const Type* result_type) {
  // Matrix products are not evaluated at const time.
  if (op == BinaryOp::Mul && (a.type->kind == TypeKind::Matrix || b.type->kind == TypeKind::Matrix))
    return Result{};
  switch (op) {
    case BinaryOp::Equal:
    case BinaryOp::NotEqual:
    case BinaryOp::Less:
    case BinaryOp::LessEqual:
    case BinaryOp::Greater:
    case BinaryOp::GreaterEqual:
      return componentwise2(a, b, result_type, [&](const Value& x, const Value& y, const Type*) {
        return compare(op, x, y, types.bool_type());
      });
    case BinaryOp::LogicalAnd:
      return Result::ok(scalar_bool(types.bool_type(), a.i && b.i));
    case BinaryOp::LogicalOr:
      return Result::ok(scalar_bool(types.bool_type(), a.i || b.i));
    default:
      break;
  }
  return componentwise2(a, b, result_type, [&](const Value& x, const Value& y, const Type* t) -> Result {
    if (t->kind == TypeKind::Bool) {
      if (op == BinaryOp::And) return Result::ok(scalar_bool(t, x.i && y.i));
      if (op == BinaryOp::Or) return Result::ok(scalar_bool(t, x.i || y.i));
      return Result::fail("invalid boolean operation");
    }
    if (is_int_kind(t->kind)) return int_binary(op, x, y, t);
    return float_binary(op, x, y, t);
  });
}

Result unary(TypeTable& types, UnaryOp op, const Value& a, const Type* result_type) {
  (void)types;
  return componentwise1(a, result_type, [&](const Value& x, const Type* t) -> Result {
    switch (op) {
      case UnaryOp::Negate:
        if (is_float_kind(t->kind)) return Result::ok(scalar_float(t, -x.f));
        if (t->kind == TypeKind::AbstractInt && x.i == INT64_MIN) {
          return Result::fail("'-" + std::to_string(x.i) + "' cannot be represented as 'abstract-int'");
        }
        return Result::ok(scalar_int(t, wrap_to(t, -x.i)));
      case UnaryOp::Not:
        return Result::ok(scalar_bool(t, !x.i));
      case UnaryOp::Complement:
        return Result::ok(scalar_int(t, wrap_to(t, ~x.i)));
      default:
        break;
    }
    return Result::fail("invalid unary operation");
  });
}

bool is_const_builtin(BuiltinFn fn) {
  switch (fn) {
    case BuiltinFn::Abs:
    case BuiltinFn::Min:
    case BuiltinFn::Max:
    case BuiltinFn::Clamp:
    case BuiltinFn::Sign:
    case BuiltinFn::Sqrt:
    case BuiltinFn::InverseSqrt:
    case BuiltinFn::Sin:
    case BuiltinFn::Cos:
    case BuiltinFn::Tan:
    case BuiltinFn::Exp:
    case BuiltinFn::Exp2:
    case BuiltinFn::Log:
    case BuiltinFn::Log2:
    case BuiltinFn::Floor:
    case BuiltinFn::Ceil:
    case BuiltinFn::Round:
    case BuiltinFn::Trunc:
    case BuiltinFn::Fract:
    case BuiltinFn::Pow:
    case BuiltinFn::Select:
    case BuiltinFn::All:
    case BuiltinFn::Any:
    case BuiltinFn::CountOneBits:
    case BuiltinFn::ReverseBits:
    case BuiltinFn::Dot:
    case BuiltinFn::Radians:
    case BuiltinFn::Degrees:
    case BuiltinFn::Saturate:
    case BuiltinFn::Fma:
    case BuiltinFn::Step:
    case BuiltinFn::Atan2:
    case BuiltinFn::Asin:
    case BuiltinFn::Acos:
    case BuiltinFn::Atan:
    case BuiltinFn::Sinh:
    case BuiltinFn::Cosh:
    case BuiltinFn::Tanh:
    case BuiltinFn::Mix:
    case BuiltinFn::Length:
      return true;
    default:
      return false;
  }
}

Result builtin(TypeTable& types, BuiltinFn fn, const std::vector<Value>& args, const Type* result_type) {
  if (!is_const_builtin(fn)) return Result{};
  auto float1 = [&](auto f, auto domain_ok, const char* name) {
    return componentwise1(args[0], result_type, [&](const Value& x, const Type* t) -> Result {
      if (!domain_ok(x.f))
        return Result::fail(std::string(name) + "(" + std::to_string(x.f) + ") is out of domain");
      return float_result(t, f(x.f));
    });
  };
  auto any_domain = [](double) { return true; };
  switch (fn) {
    case BuiltinFn::Sqrt:
      return float1([](double x) { return std::sqrt(x); }, [](double x) { return x >= 0; }, "sqrt");
    case BuiltinFn::InverseSqrt:
      return float1([](double x) { return 1.0 / std::sqrt(x); }, [](double x) { return x > 0; },
                    "inverseSqrt");
    case BuiltinFn::Sin:
      return float1([](double x) { return std::sin(x); }, any_domain, "sin");
    case BuiltinFn::Cos:
      return float1([](double x) { return std::cos(x); }, any_domain, "cos");
    case BuiltinFn::Tan:
      return float1([](double x) { return std::tan(x); }, any_domain, "tan");
    case BuiltinFn::Asin:
      return float1([](double x) { return std::asin(x); }, [](double x) { return std::fabs(x) <= 1; },
                    "asin");
    case BuiltinFn::Acos:
      return float1([](double x) { return std::acos(x); }, [](double x) { return std::fabs(x) <= 1; },
                    "acos");
    case BuiltinFn::Atan:
      return float1([](double x) { return std::atan(x); }, any_domain, "atan");
    case BuiltinFn::Sinh:
      return float1([](double x) { return std::sinh(x); }, any_domain, "sinh");
    case BuiltinFn::Cosh:
      return float1([](double x) { return std::cosh(x); }, any_domain, "cosh");
    case BuiltinFn::Tanh:
      return float1([](double x) { return std::tanh(x); }, any_domain, "tanh");
    case BuiltinFn::Exp:
      return float1([](double x) { return std::exp(x); }, any_domain, "exp");
    case BuiltinFn::Exp2:
      return float1([](double x) { return std::exp2(x); }, any_domain, "exp2");
    case BuiltinFn::Log:
      return float1([](double x) { return std::log(x); }, [](double x) { return x > 0; }, "log");
    case BuiltinFn::Log2:
      return float1([](double x) { return std::log2(x); }, [](double x) { return x > 0; }, "log2");
    case BuiltinFn::Floor:
      return float1([](double x) { return std::floor(x); }, any_domain, "floor");
    case BuiltinFn::Ceil:
      return float1([](double x) { return std::ceil(x); }, any_domain, "ceil");
    case BuiltinFn::Round:
      return float1([](double x) { return std::nearbyint(x); }, any_domain, "round");
    case BuiltinFn::Trunc:
      return float1([](double x) { return std::trunc(x); }, any_domain, "trunc");
    case BuiltinFn::Fract:
      return float1([](double x) { return x - std::floor(x); }, any_domain, "fract");
    case BuiltinFn::Radians:
      return float1([](double x) { return x * M_PI / 180.0; }, any_domain, "radians");
    case BuiltinFn::Degrees:
      return float1([](double x) { return x * 180.0 / M_PI; }, any_domain, "degrees");
    case BuiltinFn::Saturate:
      return float1([](double x) { return std::min(std::max(x, 0.0), 1.0); }, any_domain, "saturate");
    case BuiltinFn::Abs:
      return componentwise1(args[0], result_type, [&](const Value& x, const Type* t) -> Result {
        if (is_float_kind(t->kind)) return Result::ok(scalar_float(t, std::fabs(x.f)));
        if (t->kind == TypeKind::U32) return Result::ok(x);
        if (t->kind == TypeKind::AbstractInt && x.i == INT64_MIN)
          return Result::fail("abs overflows abstract-int");
        return Result::ok(scalar_int(t, wrap_to(t, x.i < 0 ? -x.i : x.i)));
      });
    case BuiltinFn::Sign:
      return componentwise1(args[0], result_type, [&](const Value& x, const Type* t) -> Result {
        if (is_float_kind(t->kind)) return Result::ok(scalar_float(t, x.f > 0 ? 1.0 : x.f < 0 ? -1.0 : 0.0));
        return Result::ok(scalar_int(t, x.i > 0 ? 1 : x.i < 0 ? -1 : 0));
      });
    case BuiltinFn::Min:
    case BuiltinFn::Max: {
      bool is_min = fn == BuiltinFn::Min;
      return componentwise2(
          args[0], args[1], result_type, [&](const Value& x, const Value& y, const Type* t) {
            if (is_float_kind(t->kind))
              return Result::ok(scalar_float(t, is_min ? std::fmin(x.f, y.f) : std::fmax(x.f, y.f)));
            return Result::ok(scalar_int(t, is_min ? std::min(x.i, y.i) : std::max(x.i, y.i)));
          });
    }
    case BuiltinFn::Clamp: {
      Result lo = builtin(types, BuiltinFn::Max, {args[0], args[1]}, result_type);
      if (!lo.value) return lo;
      return builtin(types, BuiltinFn::Min, {*lo.value, args[2]}, result_type);
    }
    case BuiltinFn::Pow:
      return componentwise2(args[0], args[1], result_type,
                            [&](const Value& x, const Value& y, const Type* t) {
                              if (x.f < 0 || (x.f == 0 && y.f <= 0))
                                return Result::fail("pow(" + std::to_string(x.f) + ", " +
                                                    std::to_string(y.f) + ") is out of domain");
                              return float_result(t, std::pow(x.f, y.f));
                            });
    case BuiltinFn::Atan2:
      return componentwise2(args[0], args[1], result_type,
                            [&](const Value& y, const Value& x, const Type* t) {
                              return float_result(t, std::atan2(y.f, x.f));
                            });
    case BuiltinFn::Step:
      return componentwise2(args[0], args[1], result_type,
                            [&](const Value& edge, const Value& x, const Type* t) {
                              return Result::ok(scalar_float(t, x.f >= edge.f ? 1.0 : 0.0));
                            });
    case BuiltinFn::Fma: {
      Result ab = componentwise2(
          args[0], args[1], result_type,
          [&](const Value& x, const Value& y, const Type* t) { return float_result(t, x.f * y.f); });
      if (!ab.value) return ab;
      return componentwise2(
          *ab.value, args[2], result_type,
          [&](const Value& x, const Value& y, const Type* t) { return float_result(t, x.f + y.f); });
    }
    case BuiltinFn::Mix: {
      // mix(a, b, t) = a * (1 - t) + b * t
      Result r1 =
          componentwise2(args[0], args[2], result_type, [&](const Value& a, const Value& t, const Type* ty) {
            return float_result(ty, a.f * (1.0 - t.f));
          });
      Result r2 = componentwise2(
          args[1], args[2], result_type,
          [&](const Value& b, const Value& t, const Type* ty) { return float_result(ty, b.f * t.f); });
      if (!r1.value) return r1;
      if (!r2.value) return r2;
      return componentwise2(
          *r1.value, *r2.value, result_type,
          [&](const Value& x, const Value& y, const Type* ty) { return float_result(ty, x.f + y.f); });
    }
    case BuiltinFn::Select: {
      // select(f, t, cond)
      if (args[2].elements.empty()) return Result::ok(args[2].i ? args[1] : args[0]);
      Value out;
      out.type = result_type;
      for (size_t i = 0; i < args[2].elements.size(); ++i) {
        out.elements.push_back(args[2].elements[i].i ? args[1].elements[i] : args[0].elements[i]);
      }
      return Result::ok(std::move(out));
    }
    case BuiltinFn::All:
    case BuiltinFn::Any: {
      if (args[0].elements.empty()) return Result::ok(args[0]);
      bool all = true, any = false;
      for (const Value& e : args[0].elements) {
        all = all && e.i;
        any = any || e.i;
      }
      return Result::ok(scalar_bool(types.bool_type(), fn == BuiltinFn::All ? all : any));
    }
    case BuiltinFn::CountOneBits:
      return componentwise1(args[0], result_type, [&](const Value& x, const Type* t) {
        return Result::ok(scalar_int(t, std::popcount(static_cast<uint32_t>(x.i))));
      });
    case BuiltinFn::ReverseBits:
      return componentwise1(args[0], result_type, [&](const Value& x, const Type* t) {
        uint32_t v = static_cast<uint32_t>(x.i), r = 0;
        for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
        return Result::ok(scalar_int(t, wrap_to(t, r)));
      });
    case BuiltinFn::Dot: {
      const Type* t = result_type;
      if (is_float_kind(t->kind)) {
        double sum = 0;
        for (size_t i = 0; i < args[0].elements.size(); ++i)
          sum += args[0].elements[i].f * args[1].elements[i].f;
        return float_result(t, sum);
      }
      int64_t sum = 0;
      for (size_t i = 0; i < args[0].elements.size(); ++i)
        sum += args[0].elements[i].i * args[1].elements[i].i;
      if (t->kind == TypeKind::AbstractInt) return Result::ok(scalar_int(t, sum));
      return Result::ok(scalar_int(t, wrap_to(t, sum)));
    }
    case BuiltinFn::Length: {
      if (args[0].elements.empty()) return float_result(result_type, std::fabs(args[0].f));
      double sum = 0;
      for (const Value& e : args[0].elements) sum += e.f * e.f;
      return float_result(result_type, std::sqrt(sum));
    }
    default:
      break;
  }
  return Result{};
}

std::string value_to_string(const Value& v) {
  if (!v.elements.empty()) {
    std::string s = to_string(v.type) + "(";
    for (size_t i = 0; i < v.elements.size(); ++i) s += (i ? ", " : "") + value_to_string(v.elements[i]);
    return s + ")";
  }
  if (v.type->kind == TypeKind::Bool) return v.i ? "true" : "false";
  if (is_float_kind(v.type->kind)) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.9g", v.f);
    return buf;
  }
  return std::to_string(v.i);
}

}  // namespace vkgemm::wgsl::const_eval
