// The subgroup matmul (ladder rung 11) in both builds against the double reference. The hw build also runs in
// tests/kernels with every ladder shape; here both builds also get whole 128x128 tiles (the vector-load
// path).
#include <gtest/gtest.h>

#include <tuple>

#include "kernels/gemm_kernel.hpp"
#include "subgroup/subgroup.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {

using kernels::GemmShape;
using subgroup::Build;

using GemmParam = std::tuple<Build, GemmShape>;

class SubgroupGemm : public GpuTest, public ::testing::WithParamInterface<GemmParam> {};

TEST_P(SubgroupGemm, MatchesDoubleReference) {
  auto [build, s] = GetParam();
  const kernels::GemmKernel& kernel = subgroup::subgroup_gemm_kernel(build);
  if (auto why = kernels::unsupported_reason(kernel, s, ctx().info())) GTEST_SKIP() << *why;
  auto a = random_floats(size_t(s.m) * s.k, 11 + s.m);
  auto b = random_floats(size_t(s.k) * s.n, 13 + s.n);
  Buffer da = ctx().create_buffer(a.size() * 4), db = ctx().create_buffer(b.size() * 4),
         dc = ctx().create_buffer(size_t(s.m) * s.n * 4);
  ctx().upload(da, a.data(), a.size() * 4);
  ctx().upload(db, b.data(), b.size() * 4);
  ctx().fill(dc, kPoison);
  kernels::GemmLaunch launch(ctx(), kernel, s, da, db, dc);
  Recorder rec(ctx());
  launch.record(rec);
  rec.run();
  auto c = ctx().download<float>(dc, size_t(s.m) * s.n);
  EXPECT_TRUE(
      near_reference(c, reference_gemm(a, b, s.m, s.n, s.k), reference_gemm_abs(a, b, s.m, s.n, s.k), s.k))
      << kernel.label();
}

std::string gemm_case_name(const ::testing::TestParamInfo<GemmParam>& info) {
  auto [build, s] = info.param;
  return std::string(subgroup::build_name(build)) + "_" + std::to_string(s.m) + "x" + std::to_string(s.n) +
         "x" + std::to_string(s.k);
}

INSTANTIATE_TEST_SUITE_P(
    BothBuilds, SubgroupGemm,
    ::testing::Combine(::testing::Values(Build::Hardware, Build::Emulated),
                       ::testing::Values(GemmShape{1, 1, 1}, GemmShape{3, 5, 7}, GemmShape{17, 129, 33},
                                         GemmShape{130, 67, 20}, GemmShape{128, 128, 128},
                                         GemmShape{200, 257, 9},
                                         // whole tiles, partial last K chunk
                                         GemmShape{256, 260, 34}, GemmShape{129, 256, 40})),
    gemm_case_name);

class SubgroupGemmChoice : public GpuTest {};

TEST_F(SubgroupGemmChoice, HwEntryIsRungElevenAndEmuNeedsNoSubgroups) {
  const auto& hw = subgroup::subgroup_gemm_kernel(Build::Hardware);
  const auto& emu = subgroup::subgroup_gemm_kernel(Build::Emulated);
  EXPECT_EQ(&hw, &kernels::find_gemm_kernel("11"));
  EXPECT_NE(hw.subgroup_ops, 0u);
  EXPECT_EQ(emu.subgroup_ops, 0u);
  // A device without subgroups: the hw rung is refused, the emu build is not.
  DeviceInfo none = ctx().info();
  none.subgroups_in_compute = false;
  EXPECT_TRUE(kernels::unsupported_reason(hw, {64, 64, 64}, none).has_value());
  EXPECT_FALSE(kernels::unsupported_reason(emu, {64, 64, 64}, none).has_value());
  EXPECT_EQ(subgroup::choose_gemm_build(none), Build::Emulated);
  subgroup::Options forced;
  forced.force_emulation = true;
  EXPECT_EQ(subgroup::choose_gemm_build(ctx().info(), forced), Build::Emulated);
}

}  // namespace
}  // namespace vkgemm::test
