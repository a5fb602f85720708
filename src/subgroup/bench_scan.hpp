#pragma once
// Benchmark for issue 4: device-wide scan throughput, hw vs emu, next to the copy bandwidth measured in the
// same run (vkCmdCopyBuffer and a vec4 copy shader), and the subgroup matmul (rung 11, hw and emu) vs ladder
// kernel 10. GPU timestamps around each repetition (one submission each), median after warm-up.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/context.hpp"

namespace vkgemm::subgroup {

struct BenchScanConfig {
  uint32_t scan_count = 1u << 24;  // elements per scan (u32 / f32); capped by maxStorageBufferRange
  uint32_t gemm_size = 2048;       // M = N = K of the matmul rows; 0 skips the matmul rows
  uint32_t warmup = 3;             // repetitions per warm-up submission (at least one submission)
  double warmup_ms = 200;          // keep warming up until this much GPU time has passed (clock ramp-up)
  uint32_t reps = 10;              // timed repetitions, one submission
  uint32_t workgroup_size = 256;   // scan kernels
  bool include_emulated = true;    // emu rows (scan and matmul)
};

struct BenchRow {
  std::string name;  // e.g. "copy", "scan_u32_hw", "gemm_11_subgroup_emu"
  std::string size;  // "16777216" or "2048x2048x2048"
  double median_ms = 0;
  double elements_per_s = 0;  // scan / copy: elements; matmul: FLOP/s
  double gb_per_s = 0;        // bytes read + written once (2 x 4 B per element); 0 for matmul rows
  double ratio = 0;           // median_ms / median_ms of `baseline` (slowdown; 1 = equal)
  std::string baseline;       // the faster copy for hw scans (its time scaled to the scan's element count),
                              // the hw scan for emu scans, gemm_10_istanbul for matmuls
  std::string note;           // e.g. why a row was skipped
};

// Runs every row the device supports; unsupported rows come back with median_ms = 0 and a note.
std::vector<BenchRow> bench_scan(Context& ctx, const BenchScanConfig& config = {});

}  // namespace vkgemm::subgroup
