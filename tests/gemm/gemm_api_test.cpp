// The public API's contract: argument checking before anything is recorded, several operations in one
// submission with barriers only where needed, asynchronous submit/wait, f16 conversion, and the benchmark.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "gemm/bench_istanbul.hpp"
#include "gemm/gemm.hpp"
#include "gemm_reference.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {

Tensor random_tensor(Context& ctx, uint32_t rows, uint32_t cols, uint32_t seed, DType dtype = DType::f32) {
  return Tensor::from_floats(ctx, rows, cols, random_floats(size_t(rows) * cols, seed), dtype);
}

// Expects `call` to throw InvalidArgument whose message contains every string in `needles`, and `rec` to have
// queued nothing.
template <typename F>
void expect_rejected(GemmRecorder& rec, F&& call, std::vector<std::string> needles) {
  size_t before = rec.kernels().size();
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning " << needles.at(0);
  } catch (const InvalidArgument& e) {
    std::string msg = e.what();
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "message: " << msg;
  }
  EXPECT_EQ(rec.kernels().size(), before) << "something was queued before the error";
}

class GemmApi : public GpuTest {};

TEST_F(GemmApi, ShapeAndDtypeMismatchesThrowBeforeRecording) {
  Context& c = ctx();
  Tensor a = random_tensor(c, 3, 5, 1), b = random_tensor(c, 4, 7, 2), b_ok = random_tensor(c, 5, 7, 3);
  Tensor out(c, 3, 7), out_bad(c, 7, 3), a16 = random_tensor(c, 3, 5, 4, DType::f16);
  Tensor out16(c, 3, 7, DType::f16), bias_bad = random_tensor(c, 1, 6, 5),
                                     res_bad = random_tensor(c, 3, 6, 6);
  Tensor sq = random_tensor(c, 5, 5, 7), none;
  GemmRecorder rec(c);
  expect_rejected(rec, [&] { gemm(rec, a, b, out); },
                  {"gemm", "A (3x5 f32)", "B (4x7 f32)", "inner dimensions"});
  expect_rejected(rec, [&] { gemm(rec, a, b_ok, out_bad); }, {"C (7x3 f32)", "must be 3x7"});
  expect_rejected(rec, [&] { gemm(rec, a16, b_ok, out); }, {"A (3x5 f16)", "must be f32"});
  expect_rejected(rec, [&] { gemm(rec, a, b_ok, out16); }, {"C (3x7 f16)", "must be f32"});
  expect_rejected(rec, [&] { gemm(rec, a, b_ok, out, {.bias = &bias_bad}); },
                  {"bias (1x6 f32)", "must be 1x7"});
  expect_rejected(rec, [&] { gemm(rec, a, b_ok, out, {.residual = &res_bad}); },
                  {"residual (3x6 f32)", "must be 3x7"});
  expect_rejected(rec, [&] { gemm(rec, a, b_ok, out, {.transpose_a = true}); }, {"op(A) = A^T", "5x3"});
  expect_rejected(rec, [&] { gemm(rec, sq, sq, sq); }, {"output C", "same tensor as input A"});
  expect_rejected(rec, [&] { gemm(rec, none, b_ok, out); }, {"A is an unallocated tensor"});
  // Named operations name their own operands.
  Tensor dy = random_tensor(c, 3, 7, 8), w = random_tensor(c, 6, 7, 9), dx(c, 3, 5);
  expect_rejected(rec, [&] { matmul_t(rec, dy, w, dx); }, {"matmul_t", "dX (3x5 f32)", "must be 3x6"});
  expect_rejected(rec, [&] { matmul_at(rec, a, dy, dx, true); },
                  {"matmul_at_acc", "dW (3x5 f32)", "must be 5x7"});
  Tensor gate = random_tensor(c, 3, 5, 10), up_bad = random_tensor(c, 3, 4, 11);
  expect_rejected(rec, [&] { matmul_residual_swiglu_a(rec, gate, up_bad, b_ok, out, out); },
                  {"GATE (3x5 f32)", "UP (3x4 f32)", "same shape"});
  Tensor h(c, 3, 5);
  expect_rejected(rec, [&] { swiglu(rec, gate, up_bad, h); }, {"swiglu", "UP (3x4 f32)", "must be 3x5"});
  Tensor dg(c, 3, 5), du(c, 3, 5);
  expect_rejected(rec, [&] { swiglu_backward(rec, gate, gate, h, dg, dg); }, {"dUP", "same tensor", "dGATE"});
  EXPECT_TRUE(rec.kernels().empty());
  // Tensor construction and upload.
  EXPECT_THROW(Tensor(c, 0, 4), InvalidArgument);
  EXPECT_THROW(out.upload(std::vector<float>(5)), InvalidArgument);
}

TEST_F(GemmApi, FfnChecksEveryStepBeforeQueueingAny) {
  Context& c = ctx();
  const uint32_t T = 4, D = 8, F = 12;
  Tensor x = random_tensor(c, T, D, 1), wg = random_tensor(c, D, F, 2), wu = random_tensor(c, D, F, 3);
  Tensor wd_bad = random_tensor(c, F, D + 1, 4), wd = random_tensor(c, F, D, 5);
  Tensor gate(c, T, F), up(c, T, F), y(c, T, D), y_bad(c, T, D + 4);
  GemmRecorder rec(c);
  expect_rejected(rec,
                  [&] {
                    ffn_forward(rec, x, {&wg, &wu, &wd_bad}, gate, up, y);
                  },
                  {"ffn_forward", "Wd (12x9 f32)", "must be 12x8"});
  // The first two projections are fine; the third one's output is wrong: still nothing may be queued.
  expect_rejected(rec,
                  [&] {
                    ffn_forward(rec, x, {&wg, &wu, &wd}, gate, up, y_bad);
                  },
                  {"down projection", "Y (4x12 f32)", "must be 4x8"});
  Tensor dy_bad = random_tensor(c, T, D + 4, 6), dx(c, T, D), dwg(c, D, F), dwu(c, D, F), dwd(c, F, D);
  expect_rejected(rec,
                  [&] {
                    ffn_backward(rec, x, {&wg, &wu, &wd}, gate, up, dy_bad, {&dx, &dwg, &dwu, &dwd});
                  },
                  {"ffn_backward", "dY (4x12 f32)", "must be 4x8"});
  Tensor dwd_bad(c, D, F);
  Tensor dy = random_tensor(c, T, D, 7);
  expect_rejected(rec,
                  [&] {
                    ffn_backward(rec, x, {&wg, &wu, &wd}, gate, up, dy, {&dx, &dwg, &dwu, &dwd_bad});
                  },
                  {"dW (8x12 f32)", "must be 12x8"});
}

TEST_F(GemmApi, SeveralOpsInOneSubmissionWithBarriersOnlyWhereNeeded) {
  Context& c = ctx();
  const uint32_t M = 33, K = 20, N = 24;
  auto x = random_floats(size_t(M) * K, 1), w1 = random_floats(size_t(K) * N, 2),
       w2 = random_floats(size_t(N) * N, 3);
  Tensor tx = Tensor::from_floats(c, M, K, x), tw1 = Tensor::from_floats(c, K, N, w1),
         tw2 = Tensor::from_floats(c, N, N, w2);
  Tensor y1(c, M, N), y2(c, M, N), z(c, M, N);
  GemmRecorder rec(c);
  matmul(rec, tx, tw1, y1);  // independent of the next one
  matmul(rec, tx, tw1, z);
  matmul(rec, y1, tw2, y2);  // reads y1: needs a barrier
  EXPECT_FALSE(rec.submitted());
  rec.submit();
  EXPECT_TRUE(rec.submitted());
  EXPECT_THROW(matmul(rec, tx, tw1, y1), InvalidArgument);  // recording is closed once submitted
  rec.wait();
  // One barrier after the uniform upload, one before the dependent matmul; none between the independent two.
  EXPECT_EQ(rec.barrier_count(), 2u);
  auto y1_ref = reference_gemm(x, w1, M, N, K);
  std::vector<float> y1_f(y1_ref.begin(), y1_ref.end());
  auto y2_ref = reference_gemm(y1_f, w2, M, N, N);
  auto got = y2.download();
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], y2_ref[i], 1e-4 * (1 + std::abs(y2_ref[i]))) << i;
  EXPECT_EQ(z.download(), y1.download());
}

TEST_F(GemmApi, ContextOverloadRunsSynchronously) {
  Context& c = ctx();
  auto a = random_floats(7 * 9, 1), b = random_floats(9 * 5, 2);
  Tensor ta = Tensor::from_floats(c, 7, 9, a), tb = Tensor::from_floats(c, 9, 5, b), tc(c, 7, 5);
  gemm(c, ta, tb, tc);
  auto want = reference_gemm(a, b, 7, 5, 9);
  EXPECT_TRUE(near_reference(tc.download(), want, reference_gemm_abs(a, b, 7, 5, 9), 9));
  EXPECT_EQ(gemm_kernel_name(c, ta, tb, tc), "istanbul_gemm_general");  // N = 5: no vec4 rows
}

TEST_F(GemmApi, F16TensorsRoundTrip) {
  Context& c = ctx();
  std::vector<float> v = {1.0f, -2.5f, 65504.0f, 1e-8f, 0.1f, 3.0f, -0.0f};  // odd count: padded buffer
  Tensor t = Tensor::from_floats(c, 1, 7, v, DType::f16);
  EXPECT_EQ(t.bytes(), 14u);
  EXPECT_EQ(t.download(), round_to_half(v));
}

// f16 on a device without 16-bit storage: the reason Tensor's constructor throws (as UnsupportedError) names
// the missing features. (Every device the suite runs on has them, so the check is exercised on edited facts.)
TEST_F(GemmApi, F16UnsupportedReasonNamesTheMissingFeature) {
  DeviceInfo device = ctx().info();
  EXPECT_FALSE(dtype_unsupported_reason(device, DType::f32));
  device.storage_16bit = false;
  auto why = dtype_unsupported_reason(device, DType::f16);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("storageBuffer16BitAccess"), std::string::npos) << *why;
  EXPECT_NE(why->find(device.name), std::string::npos) << *why;
  device.storage_16bit = true;
  device.shader_f16 = false;
  ASSERT_TRUE(dtype_unsupported_reason(device, DType::f16));
  EXPECT_NE(dtype_unsupported_reason(device, DType::f16)->find("shaderFloat16"), std::string::npos);
  EXPECT_EQ(dtype_unsupported_reason(ctx().info(), DType::f16).has_value(),
            !(ctx().info().storage_16bit && ctx().info().shader_f16));
}

TEST(HalfConversion, KnownValuesAndRoundTrip) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);                  // rounds up to infinity
  EXPECT_EQ(float_to_half(5.9604644775390625e-08f), 0x0001);   // smallest subnormal
  EXPECT_EQ(float_to_half(2.98023223876953125e-08f), 0x0000);  // half of it: ties to even (0)
  EXPECT_EQ(float_to_half(8.940696716308594e-08f), 0x0002);    // 1.5 ulp: ties to even (2)
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3c00);        // tie between 1 and 1+2^-10: even
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048), 0x3c02);
  EXPECT_EQ(float_to_half(6.103515625e-05f), 0x0400);  // smallest normal
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaNs
    float f = half_to_float(static_cast<uint16_t>(h));
    ASSERT_EQ(float_to_half(f), h) << std::hex << h;
  }
}

// The benchmark at small shapes: every variant runs, times are positive and every check passes.
TEST_F(GemmApi, BenchRunsEveryVariantCorrectly) {
  std::vector<std::string> lines;
  auto rows = run_istanbul_bench(ctx(), 2, [&](const std::string& l) { lines.push_back(l); },
                                 {{64, 64, 64}, {33, 68, 20}});
  size_t per_shape = ctx().info().storage_16bit && ctx().info().shader_f16 ? 15 : 12;
  ASSERT_EQ(rows.size(), 2 * per_shape);
  for (const auto& r : rows) {
    EXPECT_TRUE(r.correct) << r.name << " " << r.check;
    EXPECT_GT(r.median_ms, 0.0) << r.name;
    EXPECT_GT(r.gflops, 0.0) << r.name;
    EXPECT_FALSE(r.kernels.empty()) << r.name;
  }
  auto table = format_istanbul_bench(rows);
  EXPECT_NE(table.find("fused speed-up"), std::string::npos);
  EXPECT_NE(table.find("matmul_at_acc_swiglu_a"), std::string::npos);
}

// The full benchmark at the llm.istanbul shapes, on the default device without validation (run by hand:
// test_gemm --gtest_also_run_disabled_tests --gtest_filter='*FullIstanbulBench*'; VKGEMM_BENCH_REPS sets
// reps).
TEST(IstanbulBench, DISABLED_FullIstanbulBench) {
  ContextOptions options;
  options.validation = false;
  Context c(options);
  const char* reps_env = std::getenv("VKGEMM_BENCH_REPS");
  int reps = reps_env ? std::atoi(reps_env) : 10;
  std::cout << c.info().name << ", reps " << reps << "\n";
  auto rows = run_istanbul_bench(c, reps, [](const std::string& line) { std::cout << line << std::endl; });
  std::cout << format_istanbul_bench(rows);
  for (const auto& r : rows) EXPECT_TRUE(r.correct) << r.name << " " << r.check;
}

}  // namespace
}  // namespace vkgemm::test
