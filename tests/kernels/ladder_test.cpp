// Every ladder kernel against a double-precision CPU reference: random data, poisoned outputs, odd shapes.
#include <gtest/gtest.h>

#include <cstring>
#include <tuple>

#include "kernels/embedded.hpp"
#include "kernels/gemm_kernel.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {

using kernels::GemmKernel;
using kernels::GemmLaunch;
using kernels::GemmShape;

// Runs `kernel` on random A, B into a poisoned C and returns C.
std::vector<float> run_gemm(Context& ctx, const GemmKernel& kernel, GemmShape s, const std::vector<float>& a,
                            const std::vector<float>& b) {
  Buffer da = ctx.create_buffer(a.size() * 4), db = ctx.create_buffer(b.size() * 4),
         dc = ctx.create_buffer(size_t(s.m) * s.n * 4);
  ctx.upload(da, a.data(), a.size() * 4);
  ctx.upload(db, b.data(), b.size() * 4);
  ctx.fill(dc, kPoison);
  GemmLaunch launch(ctx, kernel, s, da, db, dc);
  Recorder rec(ctx);
  launch.record(rec);
  rec.run();
  return ctx.download<float>(dc, size_t(s.m) * s.n);
}

class LadderShapes : public GpuTest,
                     public ::testing::WithParamInterface<std::tuple<std::string, GemmShape>> {};

TEST_P(LadderShapes, MatchesDoubleReference) {
  const auto& [id, s] = GetParam();
  const GemmKernel& kernel = kernels::find_gemm_kernel(id);
  if (auto why = kernels::unsupported_reason(kernel, s, ctx().info())) GTEST_SKIP() << *why;
  auto a = random_floats(size_t(s.m) * s.k, 1000 + s.m * 7 + s.k);
  auto b = random_floats(size_t(s.k) * s.n, 2000 + s.n * 13 + s.k);
  auto c = run_gemm(ctx(), kernel, s, a, b);
  // Kernels that round through f16 declare a wider bound; the default is the f32 bound.
  double per_term = kernel.error_bound ? kernel.error_bound(s) / s.k : 2.0 * 5.9604644775390625e-08;
  EXPECT_TRUE(near_reference(c, reference_gemm(a, b, s.m, s.n, s.k), reference_gemm_abs(a, b, s.m, s.n, s.k),
                             s.k, per_term))
      << kernel.label() << " " << s.m << "x" << s.n << "x" << s.k;
}

std::vector<GemmShape> odd_shapes() {
  std::vector<GemmShape> shapes;
  for (uint32_t d : {1u, 3u, 17u, 63u, 65u, 127u}) shapes.push_back({d, d, d});
  // Mixed: one long dimension at a time, and non-square combinations.
  shapes.push_back({1000, 17, 63});
  shapes.push_back({17, 1000, 65});
  shapes.push_back({65, 63, 1000});
  shapes.push_back({3, 127, 17});
  shapes.push_back({127, 1, 65});
  shapes.push_back({1, 65, 3});
  // Multiples of 4 in N and K, so the vec4 kernels run on odd M and tile edges too.
  for (GemmShape s :
       {GemmShape{1, 4, 4}, GemmShape{3, 68, 20}, GemmShape{17, 132, 64}, GemmShape{63, 64, 1000},
        GemmShape{65, 1000, 68}, GemmShape{127, 260, 36}, GemmShape{1000, 20, 12}})
    shapes.push_back(s);
  return shapes;
}

std::vector<std::string> kernel_ids() {
  std::vector<std::string> ids;
  for (const auto& k : kernels::gemm_kernels()) ids.push_back(k.label());
  return ids;
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, GemmShape>>& info) {
  GemmShape s = std::get<1>(info.param);
  return std::get<0>(info.param) + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

INSTANTIATE_TEST_SUITE_P(AllKernels, LadderShapes,
                         ::testing::Combine(::testing::ValuesIn(kernel_ids()),
                                            ::testing::ValuesIn(odd_shapes())),
                         case_name);

}  // namespace
}  // namespace vkgemm::test

namespace vkgemm::test {
namespace {

// IEEE half from float, round to nearest even (reference for the f16 conversion pass).
uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
  int e = int(exp) - 127 + 15;
  if (exp == 0xff) return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (e >= 31) return uint16_t(sign | 0x7c00u);
  if (e <= 0) {  // subnormal half
    if (e < -10) return uint16_t(sign);
    mant |= 0x800000u;
    uint32_t shift = uint32_t(14 - e);
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = (uint32_t(e) << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return uint16_t(sign | h);
}

class ConvertF16 : public GpuTest {};

TEST_F(ConvertF16, MatchesRoundToNearestEven) {
  // 1000 values (a multiple of 4), spanning normal and subnormal halves, with a poisoned destination.
  auto values = random_floats(1000, 9, -60000.0f, 60000.0f);
  for (size_t i = 0; i < 100; ++i) values[i] *= 1e-7f;
  Buffer src = ctx().create_buffer(values.size() * 4), dst = ctx().create_buffer(values.size() * 2);
  ctx().upload(src, values.data(), values.size() * 4);
  ctx().fill(dst, kPoison);
  PipelineDesc d;
  d.spirv = kernels::embedded_spirv("ladder_convert_f16");
  d.debug_name = "convert_f16";
  d.bindings = {{0, 0, BindingKind::StorageBuffer}, {0, 1, BindingKind::StorageBuffer}};
  d.push_constant_bytes = 4;
  uint32_t count4 = 250;
  Recorder rec(ctx());
  rec.dispatch(ctx().pipeline(d), {{0, 0, &src}, {0, 1, &dst}}, {1, 1, 1}, &count4,
               4);  // grid-stride: 1 group
  rec.run();
  auto halves = ctx().download<uint16_t>(dst, values.size());
  size_t bad = 0;
  for (size_t i = 0; i < values.size(); ++i) bad += halves[i] != to_half(values[i]);
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace vkgemm::test
