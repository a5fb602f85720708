// Every istanbul kernel through the public API, against a double-precision CPU reference on random data and
// odd shapes; each test also checks which kernel ran (the vec4 kernel where its constraints hold, else the
// general kernel), so both paths of every operation are exercised.
#include <gtest/gtest.h>

#include <set>

#include "gemm/gemm.hpp"
#include "gemm_reference.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {

// GEMM dimensions of the product computed: C[M,N] = op(A)[M,K] @ op(B)[K,N].
struct Shape {
  uint32_t m, n, k;
};

std::string to_string(Shape s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// Odd sizes (1, 3, 17, 63, 65, 127, 1000) in every position, and vec4-friendly shapes with tile edges.
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {
      {1, 1, 1},      {3, 3, 3},      {17, 17, 17},   {63, 63, 63},   {65, 65, 65},   {127, 127, 127},
      {1000, 17, 63}, {17, 1000, 65}, {65, 63, 1000}, {3, 127, 17},   {127, 1, 65},   {1, 65, 3},
      {1, 4, 4},      {3, 68, 20},    {17, 132, 64},  {63, 64, 1000}, {65, 1000, 68}, {127, 260, 36},
      {1000, 20, 12}, {64, 64, 64},   {4, 1000, 3},   {1000, 4, 127}};
  return s;
}

enum class Op { Gemm, Matmul, MatmulResidual, SwigluA, MatmulT, MatmulAt, MatmulAtSwiglu };

struct Spec {
  Op op = Op::Gemm;
  bool ta = false, tb = false;
  float alpha = 1.0f, beta = 0.0f;
  bool bias = false, residual = false;
  bool swiglu = false;  // A = silu(GATE) * UP
  DType b_dtype = DType::f32;
  uint32_t split_k = 1;  // gemm() only; 1 keeps the single-kernel paths these tests are about
};

// Runs one case, checks every output element, returns the kernel that ran.
std::string run_case(Context& ctx, const Spec& sp, Shape s, uint32_t seed) {
  const uint32_t M = s.m, N = s.n, K = s.k;
  const uint32_t a_rows = sp.ta ? K : M, a_cols = sp.ta ? M : K;
  const uint32_t b_rows = sp.tb ? N : K, b_cols = sp.tb ? K : N;
  // GATE spans [-4, 4) so that silu's curved part is exercised.
  auto a =
      random_floats(size_t(a_rows) * a_cols, seed + 1, sp.swiglu ? -4.0f : -1.0f, sp.swiglu ? 4.0f : 1.0f);
  auto up = random_floats(size_t(a_rows) * a_cols, seed + 2);
  auto b = random_floats(size_t(b_rows) * b_cols, seed + 3);
  auto b_used = sp.b_dtype == DType::f16 ? round_to_half(b) : b;
  auto c0 = random_floats(size_t(M) * N, seed + 4);
  auto bias = random_floats(N, seed + 5);
  auto res = random_floats(size_t(M) * N, seed + 6);

  Tensor ta = Tensor::from_floats(ctx, a_rows, a_cols, a);
  Tensor tup = sp.swiglu ? Tensor::from_floats(ctx, a_rows, a_cols, up) : Tensor();
  Tensor tb = Tensor::from_floats(ctx, b_rows, b_cols, b, sp.b_dtype);
  Tensor tbias = Tensor::from_floats(ctx, 1, N, bias);
  Tensor tres = Tensor::from_floats(ctx, M, N, res);
  Tensor tc(ctx, M, N);
  if (sp.beta != 0.0f)
    tc.upload(c0);
  else
    tc.fill_bits(kPoison);

  GemmRecorder rec(ctx);
  const bool acc = sp.beta == 1.0f;
  switch (sp.op) {
    case Op::Gemm: {
      GemmOptions o;
      o.transpose_a = sp.ta;
      o.transpose_b = sp.tb;
      o.alpha = sp.alpha;
      o.beta = sp.beta;
      o.bias = sp.bias ? &tbias : nullptr;
      o.residual = sp.residual ? &tres : nullptr;
      o.split_k = sp.split_k;
      gemm(rec, ta, tb, tc, o);
      break;
    }
    case Op::Matmul:
      matmul(rec, ta, tb, tc);
      break;
    case Op::MatmulResidual:
      matmul_residual(rec, ta, tb, tres, tc);
      break;
    case Op::SwigluA:
      matmul_residual_swiglu_a(rec, ta, tup, tb, tres, tc);
      break;
    case Op::MatmulT:
      matmul_t(rec, ta, tb, tc, acc);
      break;
    case Op::MatmulAt:
      matmul_at(rec, ta, tb, tc, acc);
      break;
    case Op::MatmulAtSwiglu:
      matmul_at_swiglu_a(rec, ta, tup, tb, tc, acc);
      break;
  }
  rec.run();
  auto got = tc.download();

  Expected want, want_unrounded;
  want.value.resize(size_t(M) * N);
  want.tol.resize(want.value.size());
  want_unrounded = want;
  std::vector<double> a_eff(size_t(M) * K);
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t p = 0; p < K; ++p) {
      size_t idx = sp.ta ? size_t(p) * M + i : size_t(i) * K + p;
      a_eff[size_t(i) * K + p] = sp.swiglu ? silu(a[idx]) * up[idx] : a[idx];
    }
  // Each dot product: K rounded fused multiply-adds (2u per term is a safe bound), plus the activation's own
  // error for SwiGLU (exp and a division in f32), plus a few roundings in the epilogue.
  const double per_term = (K + 4) * 2 * kF32Unit + (sp.swiglu ? 1e-5 : 0.0);
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      double sum = 0, scale = 0, sum_unrounded = 0, scale_unrounded = 0;
      for (uint32_t p = 0; p < K; ++p) {
        size_t bi = sp.tb ? size_t(j) * K + p : size_t(p) * N + j;
        double av = a_eff[size_t(i) * K + p];
        sum += av * b_used[bi];
        scale += std::abs(av * b_used[bi]);
        sum_unrounded += av * b[bi];
        scale_unrounded += std::abs(av * b[bi]);
      }
      size_t o = size_t(i) * N + j;
      double extra = 0, extra_scale = 0;
      auto add = [&](double v) {
        extra += v;
        extra_scale += std::abs(v);
      };
      if (sp.beta != 0.0f) add(double(sp.beta) * c0[o]);
      if (sp.bias) add(bias[j]);
      if (sp.residual || sp.op == Op::MatmulResidual || sp.op == Op::SwigluA) add(res[o]);
      double alpha = sp.alpha;
      want.value[o] = alpha * sum + extra;
      want.tol[o] = per_term * (std::abs(alpha) * scale + extra_scale) + 1e-30;
      // Against the unrounded f16 weights: each weight moved by at most 2^-11 relative (2^-25 absolute in the
      // subnormal range).
      want_unrounded.value[o] = alpha * sum_unrounded + extra;
      want_unrounded.tol[o] = want.tol[o] + std::abs(alpha) * (kF16Unit * scale_unrounded + K * 3e-8);
    }
  std::string kernel = rec.kernels().at(0);
  EXPECT_TRUE(matches(got, want, N)) << kernel << " " << to_string(s);
  if (sp.b_dtype == DType::f16) {
    EXPECT_TRUE(matches(got, want_unrounded, N)) << kernel << " " << to_string(s) << " vs unrounded weights";
  }
  return kernel;
}

class IstanbulKernels : public GpuTest {
 protected:
  // Runs `spec` on every shape; `fast` (the vec4 kernel) must run exactly where `vec4_ok` holds, the general
  // kernel `general` elsewhere, and both must have been exercised.
  void run_family(const Spec& spec, const std::string& fast, const std::string& general,
                  const std::function<bool(Shape)>& vec4_ok) {
    std::set<std::string> seen;
    uint32_t seed = 7;
    for (Shape s : shapes()) {
      SCOPED_TRACE(fast + " " + to_string(s));
      std::string kernel = run_case(ctx(), spec, s, seed += 100);
      EXPECT_EQ(kernel, vec4_ok(s) ? fast : general);
      seen.insert(kernel);
    }
    EXPECT_TRUE(seen.count(fast)) << fast << " never ran";
    EXPECT_TRUE(seen.count(general)) << general << " never ran";
  }
};

bool kn4(Shape s) {
  return s.k % 4 == 0 && s.n % 4 == 0;
}
bool k4(Shape s) {
  return s.k % 4 == 0;
}
bool mn4(Shape s) {
  return s.m % 4 == 0 && s.n % 4 == 0;
}

TEST_F(IstanbulKernels, Matmul) {
  run_family({.op = Op::Matmul}, "istanbul_matmul", "istanbul_gemm_general", kn4);
}
TEST_F(IstanbulKernels, MatmulResidual) {
  run_family({.op = Op::MatmulResidual}, "istanbul_matmul_residual", "istanbul_gemm_general", kn4);
}
TEST_F(IstanbulKernels, MatmulResidualSwigluA) {
  run_family({.op = Op::SwigluA, .swiglu = true}, "istanbul_matmul_residual_swiglu_a",
             "istanbul_gemm_general_swiglu_a", kn4);
}
TEST_F(IstanbulKernels, MatmulW16) {
  run_family({.op = Op::Matmul, .b_dtype = DType::f16}, "istanbul_matmul_w16", "istanbul_gemm_general_w16",
             kn4);
}
TEST_F(IstanbulKernels, MatmulResidualW16) {
  run_family({.op = Op::MatmulResidual, .b_dtype = DType::f16}, "istanbul_matmul_residual_w16",
             "istanbul_gemm_general_w16", kn4);
}
TEST_F(IstanbulKernels, MatmulResidualSwigluAW16) {
  run_family({.op = Op::SwigluA, .swiglu = true, .b_dtype = DType::f16},
             "istanbul_matmul_residual_swiglu_a_w16", "istanbul_gemm_general_swiglu_a_w16", kn4);
}
TEST_F(IstanbulKernels, MatmulT) {
  run_family({.op = Op::MatmulT, .tb = true}, "istanbul_matmul_t", "istanbul_gemm_general", k4);
}
TEST_F(IstanbulKernels, MatmulTAccumulates) {
  run_family({.op = Op::MatmulT, .tb = true, .beta = 1.0f}, "istanbul_matmul_t_acc", "istanbul_gemm_general",
             k4);
}
TEST_F(IstanbulKernels, MatmulAt) {
  run_family({.op = Op::MatmulAt, .ta = true}, "istanbul_matmul_at", "istanbul_gemm_general", mn4);
}
TEST_F(IstanbulKernels, MatmulAtAccumulates) {
  run_family({.op = Op::MatmulAt, .ta = true, .beta = 1.0f}, "istanbul_matmul_at_acc",
             "istanbul_gemm_general", mn4);
}
TEST_F(IstanbulKernels, MatmulAtSwigluA) {
  run_family({.op = Op::MatmulAtSwiglu, .ta = true, .swiglu = true}, "istanbul_matmul_at_swiglu_a",
             "istanbul_gemm_general_swiglu_a", mn4);
}
TEST_F(IstanbulKernels, MatmulAtAccumulatesSwigluA) {
  run_family({.op = Op::MatmulAtSwiglu, .ta = true, .beta = 1.0f, .swiglu = true},
             "istanbul_matmul_at_acc_swiglu_a", "istanbul_gemm_general_swiglu_a", mn4);
}

// gemm() with every transpose combination and the full epilogue (alpha, beta, bias, residual) on odd shapes:
// the general kernel; and the plain combinations, which must reach the vec4 kernels where the shape allows.
TEST_F(IstanbulKernels, GemmGeneralAllOptions) {
  uint32_t seed = 50000;
  for (size_t i = 0; i < shapes().size(); i += 2) {
    Shape s = shapes()[i];
    for (int t = 0; t < 4; ++t) {
      Spec sp{.op = Op::Gemm,
              .ta = (t & 1) != 0,
              .tb = (t & 2) != 0,
              .alpha = -0.75f,
              .beta = 0.5f,
              .bias = true,
              .residual = true};
      SCOPED_TRACE(to_string(s) + " ta=" + std::to_string(sp.ta) + " tb=" + std::to_string(sp.tb));
      EXPECT_EQ(run_case(ctx(), sp, s, seed += 10), "istanbul_gemm_general");
      sp.b_dtype = DType::f16;
      EXPECT_EQ(run_case(ctx(), sp, s, seed += 10), "istanbul_gemm_general_w16");
    }
  }
}

TEST_F(IstanbulKernels, LargePlainGemmPicksTheLargeTileKernel) {
  // From 2048^2 outputs gemm() uses ladder kernel 12 (128x128 tiles); odd M exercises its edge tiles.
  // K is small to keep this quick on a CPU device.
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm}, {2049, 2048, 12}, 95000), "ladder_12_tile128_vec4");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm}, {2047, 2048, 12}, 95010), "istanbul_matmul");  // just below
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .residual = true}, {2049, 2048, 12}, 95020),
            "istanbul_matmul_residual");
}

TEST_F(IstanbulKernels, GemmPlainOptionsPickVec4Kernels) {
  uint32_t seed = 90000;
  Shape s{65, 68, 36};  // every vec4 constraint holds, M is odd
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm}, s, seed += 10), "istanbul_matmul");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .residual = true}, s, seed += 10), "istanbul_matmul_residual");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .tb = true}, s, seed += 10), "istanbul_matmul_t");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .tb = true, .beta = 1.0f}, s, seed += 10),
            "istanbul_matmul_t_acc");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .ta = true}, {68, 68, 33}, seed += 10), "istanbul_matmul_at");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .ta = true, .beta = 1.0f}, {68, 68, 33}, seed += 10),
            "istanbul_matmul_at_acc");
  // Options no vec4 kernel has: bias, alpha, other betas, both transposes.
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .bias = true}, s, seed += 10), "istanbul_gemm_general");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .alpha = 2.0f}, s, seed += 10), "istanbul_gemm_general");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .beta = -1.5f}, s, seed += 10), "istanbul_gemm_general");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .ta = true, .tb = true}, s, seed += 10),
            "istanbul_gemm_general");
}

// Split-K: forced on odd shapes with every option (both kernels must run and agree with the reference), and
// chosen automatically where the grid is small and K long.
TEST_F(IstanbulKernels, GemmSplitK) {
  uint32_t seed = 70000;
  std::set<std::string> seen;
  for (Shape s : std::vector<Shape>{{1, 1, 17},
                                    {3, 17, 63},
                                    {65, 63, 1000},
                                    {17, 130, 127},
                                    {127, 5, 333},
                                    {68, 36, 260},
                                    {4, 8, 1000}}) {
    for (int t = 0; t < 4; ++t) {
      for (DType dtype : {DType::f32, DType::f16}) {
        for (uint32_t splits : {2u, 7u}) {
          Spec sp{.op = Op::Gemm,
                  .ta = (t & 1) != 0,
                  .tb = (t & 2) != 0,
                  .alpha = 1.25f,
                  .beta = -0.5f,
                  .bias = true,
                  .residual = true,
                  .b_dtype = dtype,
                  .split_k = splits};
          // The vec4 partial-product kernels where their layout constraints hold (the epilogue options are
          // the reduction's), the general ones elsewhere.
          std::string want = dtype == DType::f16                                ? "istanbul_gemm_splitk_w16"
                             : !sp.ta && !sp.tb && s.k % 4 == 0 && s.n % 4 == 0 ? "istanbul_matmul_splitk"
                             : !sp.ta && sp.tb && s.k % 4 == 0                  ? "istanbul_matmul_t_splitk"
                             : sp.ta && !sp.tb && s.m % 4 == 0 && s.n % 4 == 0  ? "istanbul_matmul_at_splitk"
                                                                                : "istanbul_gemm_splitk";
          SCOPED_TRACE(to_string(s) + " splits=" + std::to_string(splits) + " t=" + std::to_string(t));
          EXPECT_EQ(run_case(ctx(), sp, s, seed += 10), want);
          seen.insert(want);
        }
      }
    }
  }
  EXPECT_EQ(seen.size(), 5u) << "every split-K partial kernel must have run";
  // Automatic: 1 output tile and K = 2048 (128 K-steps) is split; split_k = 1 keeps the vec4 kernel.
  Shape s{64, 64, 2048};
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .split_k = 0}, s, seed += 10), "istanbul_matmul_splitk");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .tb = true, .beta = 1.0f, .split_k = 0}, s, seed += 10),
            "istanbul_matmul_t_splitk");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .alpha = 3.0f, .split_k = 0}, {63, 61, 2048}, seed += 10),
            "istanbul_gemm_splitk");
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .split_k = 1}, s, seed += 10), "istanbul_matmul");
  // A large grid is not split.
  EXPECT_EQ(run_case(ctx(), {.op = Op::Gemm, .split_k = 0}, {1000, 1000, 12}, seed += 10), "istanbul_matmul");
}

// The SwiGLU element-wise kernels (forward writes the hidden matrix; backward gives dGATE and dUP). 1000x1100
// is over the 4096x256 threads of the grid: the grid-stride loop takes a second lap.
TEST_F(IstanbulKernels, SwigluForwardAndBackward) {
  uint32_t seed = 123;
  for (auto [rows, cols] : std::vector<std::pair<uint32_t, uint32_t>>{
           {1, 1}, {3, 17}, {65, 127}, {1000, 3}, {63, 1000}, {1000, 1100}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    size_t n = size_t(rows) * cols;
    auto g = random_floats(n, seed += 10, -6.0f, 6.0f), u = random_floats(n, seed += 10),
         dh = random_floats(n, seed += 10);
    Tensor tg = Tensor::from_floats(ctx(), rows, cols, g), tu = Tensor::from_floats(ctx(), rows, cols, u),
           tdh = Tensor::from_floats(ctx(), rows, cols, dh);
    Tensor th(ctx(), rows, cols), tdg(ctx(), rows, cols), tdu(ctx(), rows, cols);
    for (Tensor* t : {&th, &tdg, &tdu}) t->fill_bits(kPoison);
    GemmRecorder rec(ctx());
    swiglu(rec, tg, tu, th);
    swiglu_backward(rec, tg, tu, tdh, tdg, tdu);
    rec.run();
    Expected h, dg, du;
    for (size_t i = 0; i < n; ++i) {
      double hv = silu(g[i]) * u[i];
      h.value.push_back(hv);
      h.tol.push_back(1e-5 * std::abs(hv) + 1e-30);
      double dgv = dh[i] * u[i] * silu_grad(g[i]);
      dg.value.push_back(dgv);
      dg.tol.push_back(2e-5 * std::abs(dh[i] * u[i]) + 1e-30);
      double duv = dh[i] * silu(g[i]);
      du.value.push_back(duv);
      du.tol.push_back(1e-5 * std::abs(duv) + 1e-30);
    }
    EXPECT_TRUE(matches(th.download(), h, cols)) << "swiglu";
    EXPECT_TRUE(matches(tdg.download(), dg, cols)) << "dGATE";
    EXPECT_TRUE(matches(tdu.download(), du, cols)) << "dUP";
  }
}

}  // namespace
}  // namespace vkgemm::test
