// A finite-difference gradient check of a SwiGLU feed-forward block: forward and backward on the GPU (the
// istanbul kernels through ffn_forward / ffn_backward) against central differences of a double-precision
// CPU forward pass.
#include <gtest/gtest.h>

#include "gemm/gemm.hpp"
#include "gemm_reference.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {

struct Block {
  uint32_t t, d, f;
  std::vector<double> x, wg, wu, wd;  // T x D, D x F, D x F, F x D
};

// Y = (silu(X Wg) * (X Wu)) Wd + X, in double.
std::vector<double> forward(const Block& b) {
  std::vector<double> y(size_t(b.t) * b.d);
  std::vector<double> h(b.f);
  for (uint32_t i = 0; i < b.t; ++i) {
    for (uint32_t j = 0; j < b.f; ++j) {
      double g = 0, u = 0;
      for (uint32_t p = 0; p < b.d; ++p) {
        g += b.x[size_t(i) * b.d + p] * b.wg[size_t(p) * b.f + j];
        u += b.x[size_t(i) * b.d + p] * b.wu[size_t(p) * b.f + j];
      }
      h[j] = silu(g) * u;
    }
    for (uint32_t j = 0; j < b.d; ++j) {
      double s = b.x[size_t(i) * b.d + j];
      for (uint32_t p = 0; p < b.f; ++p) s += h[p] * b.wd[size_t(p) * b.d + j];
      y[size_t(i) * b.d + j] = s;
    }
  }
  return y;
}

// L = sum(Y * P): its gradient with respect to Y is P, which is what the GPU backward receives as dY.
double loss(const Block& b, const std::vector<double>& p) {
  auto y = forward(b);
  double l = 0;
  for (size_t i = 0; i < y.size(); ++i) l += y[i] * p[i];
  return l;
}

std::vector<double> numeric_gradient(Block& b, std::vector<double>& param, const std::vector<double>& p) {
  std::vector<double> grad(param.size());
  const double h = 1e-5;
  for (size_t i = 0; i < param.size(); ++i) {
    double keep = param[i];
    param[i] = keep + h;
    double up = loss(b, p);
    param[i] = keep - h;
    double down = loss(b, p);
    param[i] = keep;
    grad[i] = (up - down) / (2 * h);
  }
  return grad;
}

std::vector<double> to_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

class FfnGradient : public GpuTest,
                    public ::testing::WithParamInterface<std::tuple<uint32_t, uint32_t, uint32_t, DType>> {};

TEST_P(FfnGradient, BackwardMatchesFiniteDifferences) {
  auto [T, D, F, wdtype] = GetParam();
  Context& c = ctx();
  auto x = random_floats(size_t(T) * D, 11), wg = random_floats(size_t(D) * F, 12, -0.8f, 0.8f),
       wu = random_floats(size_t(D) * F, 13), wd = random_floats(size_t(F) * D, 14),
       dy = random_floats(size_t(T) * D, 15);
  Tensor tx = Tensor::from_floats(c, T, D, x), twg = Tensor::from_floats(c, D, F, wg, wdtype),
         twu = Tensor::from_floats(c, D, F, wu, wdtype), twd = Tensor::from_floats(c, F, D, wd, wdtype),
         tdy = Tensor::from_floats(c, T, D, dy);
  // With f16 weights the block being differentiated is the one with the rounded weights.
  if (wdtype == DType::f16) wg = round_to_half(wg), wu = round_to_half(wu), wd = round_to_half(wd);
  Tensor gate(c, T, F), up(c, T, F), y(c, T, D), dx(c, T, D), dwg(c, D, F), dwu(c, D, F), dwd(c, F, D);
  for (Tensor* t : {&gate, &up, &y, &dx, &dwg, &dwu, &dwd}) t->fill_bits(kPoison);

  // Forward and backward recorded into one submission (the backward reads what the forward wrote).
  GemmRecorder rec(c);
  FfnWeights w{&twg, &twu, &twd};
  ffn_forward(rec, tx, w, gate, up, y);
  ffn_backward(rec, tx, w, gate, up, tdy, {&dx, &dwg, &dwu, &dwd});
  rec.run();

  Block b{T, D, F, to_double(x), to_double(wg), to_double(wu), to_double(wd)};
  auto p = to_double(dy);
  auto y_ref = forward(b);
  auto y_got = y.download();
  for (size_t i = 0; i < y_ref.size(); ++i)
    EXPECT_NEAR(y_got[i], y_ref[i], 1e-4 * (1 + std::abs(y_ref[i]))) << i;

  struct Check {
    const char* name;
    Tensor* gpu;
    std::vector<double>* param;
  } checks[] = {{"dX", &dx, &b.x}, {"dWg", &dwg, &b.wg}, {"dWu", &dwu, &b.wu}, {"dWd", &dwd, &b.wd}};
  for (auto& ch : checks) {
    auto num = numeric_gradient(b, *ch.param, p);
    auto got = ch.gpu->download();
    double norm = 0;
    for (double v : num) norm = std::max(norm, std::abs(v));
    for (size_t i = 0; i < num.size(); ++i)
      // f32 products of length <= max(T, D, F) against a double reference with O(h^2) truncation error.
      EXPECT_NEAR(got[i], num[i], 2e-4 * (1 + norm)) << ch.name << "[" << i << "]";
  }

  // Accumulating backward: gradients of two identical micro-batches add up to twice the gradient.
  auto dwg1 = dwg.download(), dwd1 = dwd.download();
  GemmRecorder again(c);
  ffn_backward(again, tx, w, gate, up, tdy, {&dx, &dwg, &dwu, &dwd}, true);
  again.run();
  auto dwg2 = dwg.download(), dwd2 = dwd.download();
  for (size_t i = 0; i < dwg1.size(); ++i) EXPECT_NEAR(dwg2[i], 2 * dwg1[i], 1e-5 * (1 + std::abs(dwg1[i])));
  for (size_t i = 0; i < dwd1.size(); ++i) EXPECT_NEAR(dwd2[i], 2 * dwd1[i], 1e-5 * (1 + std::abs(dwd1[i])));
}

// (T, D, F, weights): vec4-friendly widths (the istanbul kernels), odd ones (the general kernel), f16 weights
// (the _w16 kernels forward, the general f16 kernel for the transposed weight reads backward).
INSTANTIATE_TEST_SUITE_P(Shapes, FfnGradient,
                         ::testing::Values(std::make_tuple(5u, 8u, 12u, DType::f32),
                                           std::make_tuple(3u, 7u, 9u, DType::f32),
                                           std::make_tuple(17u, 20u, 36u, DType::f32),
                                           std::make_tuple(5u, 8u, 12u, DType::f16),
                                           std::make_tuple(3u, 7u, 9u, DType::f16)));

}  // namespace
}  // namespace vkgemm::test
