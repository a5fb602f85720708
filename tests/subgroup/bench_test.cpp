// bench_scan() on tiny sizes: every row present, timed or explained, ratios against the named baselines.
#include <gtest/gtest.h>

#include <map>

#include "subgroup/bench_scan.hpp"
#include "test_support.hpp"

namespace vkgemm::test {
namespace {

class SubgroupBench : public GpuTest {};

TEST_F(SubgroupBench, ProducesEveryRowWithConsistentRatios) {
  subgroup::BenchScanConfig config;
  config.scan_count = 5000;
  config.gemm_size = 64;
  config.warmup = 1;
  config.warmup_ms = 0;
  config.reps = 3;
  auto rows = subgroup::bench_scan(ctx(), config);
  std::map<std::string, subgroup::BenchRow> by_name;
  for (const auto& r : rows) by_name[r.name] = r;
  for (const char* name : {"copy_cmd", "copy_shader", "scan_u32_hw", "scan_u32_emu", "scan_f32_hw",
                           "scan_f32_emu", "gemm_10_istanbul", "gemm_11_subgroup", "gemm_11_subgroup_emu"})
    ASSERT_TRUE(by_name.count(name)) << name;
  for (const auto& r : rows) {
    if (!r.note.empty()) continue;  // unsupported on this device, explained
    EXPECT_GT(r.median_ms, 0) << r.name;
    EXPECT_GT(r.elements_per_s, 0) << r.name;
    if (!r.baseline.empty() && by_name.count(r.baseline) && r.baseline.rfind("copy", 0) != 0) {
      EXPECT_NEAR(r.ratio, r.median_ms / by_name[r.baseline].median_ms, 1e-9) << r.name;
    }
  }
  EXPECT_EQ(by_name["scan_u32_emu"].baseline,
            by_name["scan_u32_hw"].note.empty() ? "scan_u32_hw" : "copy_cmd");
  EXPECT_EQ(by_name["scan_u32_hw"].size, "5000");
  EXPECT_EQ(by_name["gemm_11_subgroup"].size, "64x64x64");
}

}  // namespace
}  // namespace vkgemm::test
