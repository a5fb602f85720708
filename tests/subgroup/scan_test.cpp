// Device-wide exclusive scan and reduction in both builds against CPU references: u32 (wrapping) and f32
// (small integers, so every prefix is exact in f32, plus one real-valued case with a rounding bound), lengths
// 1, 7, 1000, 65537 and 2^20 + 3, workgroup sizes 32, 64, 128, 256.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>
#include <tuple>

#include "subgroup/subgroup.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {

using subgroup::Build;
using subgroup::DType;

std::vector<uint32_t> make_data(DType dtype, uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = dtype == DType::U32 ? rng() : std::bit_cast<uint32_t>(float(rng() & 15u));
  return v;
}

// Exclusive prefix sums (u32 wrapping; f32 in double, exact for the small-integer data).
std::vector<uint32_t> reference_scan(DType dtype, const std::vector<uint32_t>& in) {
  std::vector<uint32_t> out(in.size());
  uint32_t acc = 0;
  double facc = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = dtype == DType::U32 ? acc : std::bit_cast<uint32_t>(float(facc));
    acc += in[i];
    facc += std::bit_cast<float>(in[i]);
  }
  return out;
}

subgroup::Options options_for(Build build, uint32_t wg) {
  subgroup::Options o;
  o.workgroup_size = wg;
  o.force_emulation = build == Build::Emulated;
  return o;
}

::testing::AssertionResult equal_words(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want,
                                       DType dtype) {
  int bad = 0;
  std::ostringstream msg;
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (bad++ < 5) {
      msg << "\n  [" << i << "] got ";
      if (dtype == DType::F32)
        msg << std::bit_cast<float>(got[i]) << " want " << std::bit_cast<float>(want[i]);
      else
        msg << got[i] << " want " << want[i];
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << want.size() << " wrong" << msg.str();
}

// One test per (build, dtype, workgroup size) runs every length (one process per case under ctest).
using ScanParam = std::tuple<Build, DType, uint32_t>;  // build, dtype, workgroup size

const uint32_t kCounts[] = {1u, 7u, 1000u, 65537u, (1u << 20) + 3u};

class DeviceScanTest : public GpuTest, public ::testing::WithParamInterface<ScanParam> {};

TEST_P(DeviceScanTest, ExclusiveScanMatchesCpu) {
  auto [build, dtype, wg] = GetParam();
  for (uint32_t n : kCounts) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto data = make_data(dtype, n, n * 31 + wg);
    Buffer in = ctx().create_buffer(size_t(n) * 4), out = ctx().create_buffer(size_t(n + 1) * 4);
    ctx().upload(in, data.data(), data.size() * 4);
    ctx().fill(out, kPoison);
    subgroup::DeviceScan scan(ctx(), n, dtype, options_for(build, wg));
    if (build == Build::Hardware && scan.build() != build)
      GTEST_SKIP() << "no hw subgroup path for this case";
    EXPECT_EQ(scan.build(), build);
    Recorder rec(ctx());
    scan.record(rec, in, out);
    rec.run();
    auto got = ctx().download<uint32_t>(out, n + 1);
    EXPECT_EQ(got[n], kPoison) << "wrote past the end";
    got.resize(n);
    EXPECT_TRUE(equal_words(got, reference_scan(dtype, data), dtype))
        << subgroup::build_name(build) << " " << scan.partitions() << " partitions";
  }
}

TEST_P(DeviceScanTest, ReduceMatchesCpu) {
  auto [build, dtype, wg] = GetParam();
  for (uint32_t n : kCounts) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto data = make_data(dtype, n, n * 17 + wg);
    Buffer in = ctx().create_buffer(size_t(n) * 4), out = ctx().create_buffer(8);
    ctx().upload(in, data.data(), data.size() * 4);
    ctx().fill(out, kPoison);
    subgroup::DeviceReduce reduce(ctx(), n, dtype, options_for(build, wg));
    if (build == Build::Hardware && reduce.build() != build)
      GTEST_SKIP() << "no hw subgroup path for this case";
    EXPECT_EQ(reduce.build(), build);
    Recorder rec(ctx());
    reduce.record(rec, in, out);
    rec.run();
    auto got = ctx().download<uint32_t>(out, 2);
    data.push_back(0);  // the exclusive scan's last element is then the total
    uint32_t want = reference_scan(dtype, data).back();
    EXPECT_TRUE(equal_words({got[0]}, {want}, dtype));
    EXPECT_EQ(got[1], kPoison);
  }
}

std::string scan_case_name(const ::testing::TestParamInfo<ScanParam>& info) {
  auto [build, dtype, wg] = info.param;
  return std::string(subgroup::build_name(build)) + "_" + subgroup::dtype_name(dtype) + "_wg" +
         std::to_string(wg);
}

INSTANTIATE_TEST_SUITE_P(BothBuilds, DeviceScanTest,
                         ::testing::Combine(::testing::Values(Build::Hardware, Build::Emulated),
                                            ::testing::Values(DType::U32, DType::F32),
                                            ::testing::Values(32u, 64u, 128u, 256u)),
                         scan_case_name);

class DeviceScanExtra : public GpuTest {};

// Real-valued f32: every prefix within the rounding bound of a sum of that many terms.
TEST_F(DeviceScanExtra, RealValuedF32WithinRoundingBound) {
  for (Build build : {Build::Hardware, Build::Emulated}) {
    uint32_t n = 300007;
    auto values = random_floats(n, 77, -1.0f, 1.0f);
    Buffer in = ctx().create_buffer(size_t(n) * 4), out = ctx().create_buffer(size_t(n) * 4);
    ctx().upload(in, values.data(), size_t(n) * 4);
    Build ran = subgroup::exclusive_scan(ctx(), in, out, n, DType::F32, options_for(build, 128));
    if (build == Build::Hardware && ran != build) continue;
    EXPECT_EQ(ran, build);
    auto got = ctx().download<float>(out, n);
    double sum = 0, abs_sum = 0;
    int bad = 0;
    for (uint32_t i = 0; i < n; ++i) {
      // Sequential carries across tiles: the bound grows with the number of additions (n x 2^-24).
      double tol = 2.0 * 5.96e-8 * abs_sum * std::sqrt(double(i) + 1.0) + 1e-6;
      if (std::fabs(got[i] - sum) > tol && bad++ < 5) {
        ADD_FAILURE() << subgroup::build_name(build) << " [" << i << "] got " << got[i] << " want " << sum;
      }
      sum += values[i];
      abs_sum += std::fabs(values[i]);
    }
    EXPECT_EQ(bad, 0);
  }
}

TEST_F(DeviceScanExtra, EnvironmentForcesEmulation) {
  subgroup::Options o;
  o.workgroup_size = 64;
  setenv("VKGEMM_FORCE_SUBGROUP_EMULATION", "1", 1);
  EXPECT_TRUE(subgroup::emulation_forced_by_environment());
  subgroup::DeviceScan forced(ctx(), 1000, DType::U32, o);
  EXPECT_EQ(subgroup::choose_build(ctx().info(), VK_SUBGROUP_FEATURE_BASIC_BIT, 64), Build::Emulated);
  setenv("VKGEMM_FORCE_SUBGROUP_EMULATION", "0", 1);
  EXPECT_FALSE(subgroup::emulation_forced_by_environment());
  unsetenv("VKGEMM_FORCE_SUBGROUP_EMULATION");
  EXPECT_EQ(forced.build(), Build::Emulated);
  subgroup::DeviceScan chosen(ctx(), 1000, DType::U32, o);
  if (ctx().info().has_subgroup_ops(VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT) &&
      64 % ctx().info().subgroup_size == 0) {
    EXPECT_EQ(chosen.build(), Build::Hardware);
  }
}

TEST_F(DeviceScanExtra, RejectsBadArguments) {
  subgroup::Options o;
  o.workgroup_size = 512;
  EXPECT_THROW(subgroup::DeviceScan(ctx(), 10, DType::U32, o), InvalidArgument);
  subgroup::DeviceScan scan(ctx(), 100, DType::U32);
  Buffer small = ctx().create_buffer(40), big = ctx().create_buffer(400);
  Recorder rec(ctx());
  EXPECT_THROW(scan.record(rec, small, big), InvalidArgument);
  EXPECT_THROW(scan.record(rec, big, big), InvalidArgument);
}

}  // namespace
}  // namespace vkgemm::test
