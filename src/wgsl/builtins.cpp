// Names of built-in functions and values.
#include <map>
#include <string>

#include "wgsl/sem.hpp"

namespace vkgemm::wgsl::sem {
namespace {

const std::map<std::string_view, BuiltinFn>& builtin_table() {
  static const std::map<std::string_view, BuiltinFn> table = {
      {"acos", BuiltinFn::Acos},
      {"acosh", BuiltinFn::Acosh},
      {"asin", BuiltinFn::Asin},
      {"asinh", BuiltinFn::Asinh},
      {"atan", BuiltinFn::Atan},
      {"atanh", BuiltinFn::Atanh},
      {"atan2", BuiltinFn::Atan2},
      {"ceil", BuiltinFn::Ceil},
      {"cos", BuiltinFn::Cos},
      {"cosh", BuiltinFn::Cosh},
      {"degrees", BuiltinFn::Degrees},
      {"exp", BuiltinFn::Exp},
      {"exp2", BuiltinFn::Exp2},
      {"floor", BuiltinFn::Floor},
      {"fract", BuiltinFn::Fract},
      {"inverseSqrt", BuiltinFn::InverseSqrt},
      {"log", BuiltinFn::Log},
      {"log2", BuiltinFn::Log2},
      {"radians", BuiltinFn::Radians},
      {"round", BuiltinFn::Round},
      {"sin", BuiltinFn::Sin},
      {"sinh", BuiltinFn::Sinh},
      {"sqrt", BuiltinFn::Sqrt},
      {"tan", BuiltinFn::Tan},
      {"tanh", BuiltinFn::Tanh},
      {"trunc", BuiltinFn::Trunc},
      {"saturate", BuiltinFn::Saturate},
      {"quantizeToF16", BuiltinFn::QuantizeToF16},
      {"pow", BuiltinFn::Pow},
      {"step", BuiltinFn::Step},
      {"fma", BuiltinFn::Fma},
      {"mix", BuiltinFn::Mix},
      {"smoothstep", BuiltinFn::Smoothstep},
      {"ldexp", BuiltinFn::Ldexp},
      {"modf", BuiltinFn::Modf},
      {"frexp", BuiltinFn::Frexp},
      {"abs", BuiltinFn::Abs},
      {"sign", BuiltinFn::Sign},
      {"min", BuiltinFn::Min},
      {"max", BuiltinFn::Max},
      {"clamp", BuiltinFn::Clamp},
      {"dot", BuiltinFn::Dot},
      {"cross", BuiltinFn::Cross},
      {"length", BuiltinFn::Length},
      {"distance", BuiltinFn::Distance},
      {"normalize", BuiltinFn::Normalize},
      {"faceForward", BuiltinFn::FaceForward},
      {"reflect", BuiltinFn::Reflect},
      {"refract", BuiltinFn::Refract},
      {"determinant", BuiltinFn::Determinant},
      {"transpose", BuiltinFn::Transpose},
      {"countOneBits", BuiltinFn::CountOneBits},
      {"countLeadingZeros", BuiltinFn::CountLeadingZeros},
      {"countTrailingZeros", BuiltinFn::CountTrailingZeros},
      {"firstLeadingBit", BuiltinFn::FirstLeadingBit},
      {"firstTrailingBit", BuiltinFn::FirstTrailingBit},
      {"reverseBits", BuiltinFn::ReverseBits},
      {"extractBits", BuiltinFn::ExtractBits},
      {"insertBits", BuiltinFn::InsertBits},
      {"all", BuiltinFn::All},
      {"any", BuiltinFn::Any},
      {"select", BuiltinFn::Select},
      {"pack4x8snorm", BuiltinFn::Pack4x8Snorm},
      {"pack4x8unorm", BuiltinFn::Pack4x8Unorm},
      {"pack2x16snorm", BuiltinFn::Pack2x16Snorm},
      {"pack2x16unorm", BuiltinFn::Pack2x16Unorm},
      {"pack2x16float", BuiltinFn::Pack2x16Float},
      {"unpack4x8snorm", BuiltinFn::Unpack4x8Snorm},
      {"unpack4x8unorm", BuiltinFn::Unpack4x8Unorm},
      {"unpack2x16snorm", BuiltinFn::Unpack2x16Snorm},
      {"unpack2x16unorm", BuiltinFn::Unpack2x16Unorm},
      {"unpack2x16float", BuiltinFn::Unpack2x16Float},
      {"pack4xI8", BuiltinFn::Pack4xI8},
      {"pack4xU8", BuiltinFn::Pack4xU8},
      {"pack4xI8Clamp", BuiltinFn::Pack4xI8Clamp},
      {"pack4xU8Clamp", BuiltinFn::Pack4xU8Clamp},
      {"unpack4xI8", BuiltinFn::Unpack4xI8},
      {"unpack4xU8", BuiltinFn::Unpack4xU8},
      {"dot4I8Packed", BuiltinFn::Dot4I8Packed},
      {"dot4U8Packed", BuiltinFn::Dot4U8Packed},
      {"arrayLength", BuiltinFn::ArrayLength},
      {"atomicLoad", BuiltinFn::AtomicLoad},
      {"atomicStore", BuiltinFn::AtomicStore},
      {"atomicAdd", BuiltinFn::AtomicAdd},
      {"atomicSub", BuiltinFn::AtomicSub},
      {"atomicMax", BuiltinFn::AtomicMax},
      {"atomicMin", BuiltinFn::AtomicMin},
      {"atomicAnd", BuiltinFn::AtomicAnd},
      {"atomicOr", BuiltinFn::AtomicOr},
      {"atomicXor", BuiltinFn::AtomicXor},
      {"atomicExchange", BuiltinFn::AtomicExchange},
      {"atomicCompareExchangeWeak", BuiltinFn::AtomicCompareExchangeWeak},
      {"workgroupBarrier", BuiltinFn::WorkgroupBarrier},
      {"storageBarrier", BuiltinFn::StorageBarrier},
      {"workgroupUniformLoad", BuiltinFn::WorkgroupUniformLoad},
      {"subgroupAdd", BuiltinFn::SubgroupAdd},
      {"subgroupExclusiveAdd", BuiltinFn::SubgroupExclusiveAdd},
      {"subgroupInclusiveAdd", BuiltinFn::SubgroupInclusiveAdd},
      {"subgroupMul", BuiltinFn::SubgroupMul},
      {"subgroupExclusiveMul", BuiltinFn::SubgroupExclusiveMul},
      {"subgroupInclusiveMul", BuiltinFn::SubgroupInclusiveMul},
      {"subgroupMin", BuiltinFn::SubgroupMin},
      {"subgroupMax", BuiltinFn::SubgroupMax},
      {"subgroupAnd", BuiltinFn::SubgroupAnd},
      {"subgroupOr", BuiltinFn::SubgroupOr},
      {"subgroupXor", BuiltinFn::SubgroupXor},
      {"subgroupAll", BuiltinFn::SubgroupAll},
      {"subgroupAny", BuiltinFn::SubgroupAny},
      {"subgroupBallot", BuiltinFn::SubgroupBallot},
      {"subgroupElect", BuiltinFn::SubgroupElect},
      {"subgroupBroadcast", BuiltinFn::SubgroupBroadcast},
      {"subgroupBroadcastFirst", BuiltinFn::SubgroupBroadcastFirst},
      {"subgroupShuffle", BuiltinFn::SubgroupShuffle},
      {"subgroupShuffleXor", BuiltinFn::SubgroupShuffleXor},
      {"subgroupShuffleUp", BuiltinFn::SubgroupShuffleUp},
      {"subgroupShuffleDown", BuiltinFn::SubgroupShuffleDown},
      {"quadBroadcast", BuiltinFn::QuadBroadcast},
      {"quadSwapX", BuiltinFn::QuadSwapX},
      {"quadSwapY", BuiltinFn::QuadSwapY},
      {"quadSwapDiagonal", BuiltinFn::QuadSwapDiagonal},
      {"bitcast", BuiltinFn::Bitcast},
  };
  return table;
}

}  // namespace

BuiltinFn lookup_builtin(std::string_view name) {
  auto it = builtin_table().find(name);
  return it == builtin_table().end() ? BuiltinFn::None : it->second;
}

const char* to_string(BuiltinFn fn) {
  for (const auto& [name, f] : builtin_table()) {
    if (f == fn) return name.data();
  }
  return "<builtin>";
}

bool is_subgroup_builtin(BuiltinFn fn) {
  return fn >= BuiltinFn::SubgroupAdd && fn <= BuiltinFn::QuadSwapDiagonal;
}

const char* to_string(BuiltinValue b) {
  switch (b) {
    case BuiltinValue::GlobalInvocationId:
      return "global_invocation_id";
    case BuiltinValue::LocalInvocationId:
      return "local_invocation_id";
    case BuiltinValue::LocalInvocationIndex:
      return "local_invocation_index";
    case BuiltinValue::WorkgroupId:
      return "workgroup_id";
    case BuiltinValue::NumWorkgroups:
      return "num_workgroups";
    case BuiltinValue::SubgroupSize:
      return "subgroup_size";
    case BuiltinValue::SubgroupInvocationId:
      return "subgroup_invocation_id";
  }
  return "?";
}

}  // namespace vkgemm::wgsl::sem
