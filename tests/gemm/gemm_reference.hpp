#pragma once
// Double-precision CPU references and error bounds for the GEMM-library tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace vkgemm::test {

inline double silu(double g) {
  return g / (1.0 + std::exp(-g));
}
inline double silu_grad(double g) {
  double s = 1.0 / (1.0 + std::exp(-g));
  return s * (1.0 + g * (1.0 - s));
}

// An expected output: values and, per element, the error budget it is checked against.
struct Expected {
  std::vector<double> value;
  std::vector<double> tol;
};

// Unit roundoff of f32 and of f16.
constexpr double kF32Unit = 5.9604644775390625e-08;  // 2^-24
constexpr double kF16Unit = 4.8828125e-04;           // 2^-11

// Compares every element; NaN (an unwritten poisoned element) always fails. Reports the first few misses.
inline ::testing::AssertionResult matches(const std::vector<float>& got, const Expected& want,
                                          uint32_t cols) {
  if (got.size() != want.value.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.value.size();
  size_t bad = 0;
  std::string first;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::abs(double(got[i]) - want.value[i]);
    if (!(err <= want.tol[i])) {
      if (++bad <= 4)
        first += "\n  [" + std::to_string(i / cols) + "," + std::to_string(i % cols) + "] got " +
                 std::to_string(got[i]) + " want " + std::to_string(want.value[i]) + " tol " +
                 std::to_string(want.tol[i]);
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements off:" << first;
}

}  // namespace vkgemm::test
