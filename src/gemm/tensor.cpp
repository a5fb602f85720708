#include "gemm/tensor.hpp"

#include <bit>
#include <cmath>
#include <cstring>

namespace vkgemm {

const char* to_string(DType dtype) {
  return dtype == DType::f16 ? "f16" : "f32";
}

size_t dtype_bytes(DType dtype) {
  return dtype == DType::f16 ? 2 : 4;
}

uint16_t float_to_half(float value) {
  uint32_t x = std::bit_cast<uint32_t>(value);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xffu) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));  // inf / NaN
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow
  if (e <= 0) {
    // Subnormal half (or zero): shift the full mantissa (with its hidden bit) into place, round to even.
    if (e < -10) return static_cast<uint16_t>(sign);
    uint32_t m = mant | 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = m >> shift;
    uint32_t rest = m & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

float half_to_float(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  if (exp == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

std::vector<float> round_to_half(std::span<const float> values) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = half_to_float(float_to_half(values[i]));
  return out;
}

std::optional<std::string> dtype_unsupported_reason(const DeviceInfo& device, DType dtype) {
  if (dtype != DType::f16 || (device.storage_16bit && device.shader_f16)) return std::nullopt;
  std::string missing = !device.storage_16bit && !device.shader_f16
                            ? "storageBuffer16BitAccess and shaderFloat16"
                        : !device.storage_16bit ? "storageBuffer16BitAccess"
                                                : "shaderFloat16";
  return device.name + " lacks " + missing + ", which f16 tensors (the _w16 kernels) need; use f32 weights";
}

Tensor::Tensor(Context& ctx, uint32_t rows, uint32_t cols, DType dtype)
    : ctx_(&ctx), rows_(rows), cols_(cols), dtype_(dtype) {
  if (rows == 0 || cols == 0)
    throw InvalidArgument("tensor shape " + std::to_string(rows) + "x" + std::to_string(cols) +
                          " is empty; rows and cols must be at least 1");
  if (auto why = dtype_unsupported_reason(ctx.info(), dtype)) throw UnsupportedError(*why);
  // Rounded up to 4 bytes so that odd-sized f16 tensors can be filled and copied as 32-bit words.
  buffer_ = ctx.create_buffer((bytes() + 3) / 4 * 4, BufferUsage::Storage);
}

Tensor Tensor::from_floats(Context& ctx, uint32_t rows, uint32_t cols, std::span<const float> values,
                           DType dtype) {
  Tensor t(ctx, rows, cols, dtype);
  t.upload(values);
  return t;
}

std::string Tensor::shape_string() const {
  return std::to_string(rows_) + "x" + std::to_string(cols_) + " " + to_string(dtype_);
}

void Tensor::upload(std::span<const float> values) {
  if (!buffer_) throw InvalidArgument("upload to an unallocated tensor");
  if (values.size() != elements())
    throw InvalidArgument("upload of " + std::to_string(values.size()) + " values to a " + shape_string() +
                          " tensor (" + std::to_string(elements()) + " elements)");
  if (dtype_ == DType::f32) {
    ctx_->upload(buffer_, values.data(), values.size_bytes());
    return;
  }
  std::vector<uint16_t> halves(values.size() + 1, 0);  // +1: the padded tail word is zeroed too
  for (size_t i = 0; i < values.size(); ++i) halves[i] = float_to_half(values[i]);
  ctx_->upload(buffer_, halves.data(), buffer_.size());
}

std::vector<float> Tensor::download() const {
  if (!buffer_) throw InvalidArgument("download from an unallocated tensor");
  if (dtype_ == DType::f32) return ctx_->download<float>(buffer_, elements());
  auto halves = ctx_->download<uint16_t>(buffer_, elements());
  std::vector<float> out(halves.size());
  for (size_t i = 0; i < halves.size(); ++i) out[i] = half_to_float(halves[i]);
  return out;
}

void Tensor::fill_bits(uint32_t pattern) {
  if (!buffer_) throw InvalidArgument("fill of an unallocated tensor");
  ctx_->fill(buffer_, pattern);
}

}  // namespace vkgemm
