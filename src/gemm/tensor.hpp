#pragma once
// A matrix on the device: a storage buffer plus its shape (rows x cols, row-major) and element type.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/buffer.hpp"
#include "runtime/context.hpp"

namespace vkgemm {

enum class DType { f32, f16 };

const char* to_string(DType dtype);
size_t dtype_bytes(DType dtype);

// IEEE binary16 conversions (round to nearest even; overflow goes to infinity, NaN stays NaN).
uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);
// Rounds every value to the nearest f16 and back (what storing a weight as f16 does to it).
std::vector<float> round_to_half(std::span<const float> values);

// Why `device` cannot hold and compute with tensors of `dtype` (f16 needs storageBuffer16BitAccess and
// shaderFloat16), or nothing. Creating such a tensor throws UnsupportedError with this text.
std::optional<std::string> dtype_unsupported_reason(const DeviceInfo& device, DType dtype);

class Tensor {
 public:
  Tensor() = default;
  // Allocates rows x cols elements (contents undefined). Throws InvalidArgument for an empty shape and
  // UnsupportedError for f16 on a device without 16-bit storage buffers.
  Tensor(Context& ctx, uint32_t rows, uint32_t cols, DType dtype = DType::f32);
  // Allocates and uploads `values` (rows * cols floats, converted to dtype).
  static Tensor from_floats(Context& ctx, uint32_t rows, uint32_t cols, std::span<const float> values,
                            DType dtype = DType::f32);

  // Synchronous copies; values are floats whatever the dtype (f16 tensors convert on the way).
  void upload(std::span<const float> values);
  std::vector<float> download() const;
  // Fills every element with the same 32-bit pattern (f32 tensors; used to poison outputs).
  void fill_bits(uint32_t pattern);

  uint32_t rows() const { return rows_; }
  uint32_t cols() const { return cols_; }
  DType dtype() const { return dtype_; }
  uint64_t elements() const { return uint64_t(rows_) * cols_; }
  // Bytes the elements occupy (the buffer may be up to 3 bytes larger: sizes are rounded to 4).
  uint64_t bytes() const { return elements() * dtype_bytes(dtype_); }
  const Buffer& buffer() const { return buffer_; }
  Buffer& buffer() { return buffer_; }
  Context& context() const { return *ctx_; }
  explicit operator bool() const { return static_cast<bool>(buffer_); }
  // "rows x cols dtype", e.g. "512x768 f32".
  std::string shape_string() const;

 private:
  Context* ctx_ = nullptr;
  Buffer buffer_;
  uint32_t rows_ = 0, cols_ = 0;
  DType dtype_ = DType::f32;
};

}  // namespace vkgemm
