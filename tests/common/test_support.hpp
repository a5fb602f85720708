#pragma once
// Shared test support: one validated Vulkan context per test binary, a fixture that fails any test during
// which the Khronos validation layer reported something, random data and double-precision CPU references.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/context.hpp"

namespace vkgemm::test {

// The process-wide context (validation layer on; device from $VKGEMM_DEVICE, default: best available).
Context& context();
// Every validation message seen so far.
const std::vector<std::string>& validation_messages();

// Base fixture for tests that touch the device: fails the test if validation messages appeared during it.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  Context& ctx() { return context(); }

 private:
  size_t messages_before_ = 0;
};

// Uniform random floats in [lo, hi) from a fixed seed (never all zeros).
std::vector<float> random_floats(size_t count, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// C = A @ B in double; A is MxK, B is KxN, row-major.
std::vector<double> reference_gemm(const std::vector<float>& a, const std::vector<float>& b, uint32_t m,
                                   uint32_t n, uint32_t k);
// sum_k |A[i,k] * B[k,j]| for each output: the scale of the rounding error an f32 dot product may have.
std::vector<double> reference_gemm_abs(const std::vector<float>& a, const std::vector<float>& b, uint32_t m,
                                       uint32_t n, uint32_t k);

// Checks every element: |got - want| <= tol_per_term * K * abs_scale + 1e-30, where the default tolerance is
// the worst-case bound of K rounded f32 fused multiply-adds (2 * 2^-24 per term). NaN (e.g. an unwritten
// poisoned element) always fails. Reports the first few bad elements.
::testing::AssertionResult near_reference(const std::vector<float>& got, const std::vector<double>& want,
                                          const std::vector<double>& abs_scale, uint32_t k,
                                          double tol_per_term = 2.0 * 5.9604644775390625e-08);

// A NaN bit pattern used to poison outputs before a kernel runs.
constexpr uint32_t kPoison = 0x7fc00000u;

}  // namespace vkgemm::test
