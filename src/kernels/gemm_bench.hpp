#pragma once
// Measures one GEMM kernel at one shape: random inputs, poisoned output, a correctness check against a
// double-precision CPU reference, then GPU time from timestamp queries (median of many runs after warm-up).
#include <optional>
#include <string>

#include "kernels/gemm_kernel.hpp"

namespace vkgemm::kernels {

struct GemmMeasurement {
  std::string kernel;  // label, e.g. "10_istanbul"
  GemmShape shape;
  std::optional<std::string> skipped;  // why it did not run (constraint, device limit)
  int reps = 0;                        // timed runs
  double median_ms = 0, min_ms = 0;
  double gflops = 0;         // from the median
  double max_rel_error = 0;  // max |C - ref| / sum_k |A||B| over the checked entries
  double error_bound = 0;    // the f32 bound that max_rel_error must stay under
  size_t checked = 0;        // entries compared with the reference (all, or a sample for large shapes)
  bool correct = false;
};

struct GemmBenchOptions {
  int max_reps = 50;                          // upper bound on timed runs
  int min_reps = 3;                           // lower bound, even for slow kernels
  double budget_ms = 1500;                    // aim for about this much GPU time per measurement
  size_t full_check_limit = size_t(1) << 27;  // M*N*K up to this is checked in full; above, a sample
  size_t sample_count = 4096;
  uint32_t seed = 1;
};

GemmMeasurement measure_gemm(Context& ctx, const GemmKernel& kernel, GemmShape shape,
                             const GemmBenchOptions& options = {});

}  // namespace vkgemm::kernels
