#pragma once
// Benchmark of the llm.istanbul matmul family at the seed's shapes (M = 512 tokens; K = 768 with
// N in {768, 3072, 16384}; the FFN down projection K = 3072, N = 768): every forward variant (f32 and f16
// weights, residual, fused SwiGLU), the unfused SwiGLU + matmul_residual sequence, the backward kernels and
// the general fallback kernel. Each variant first runs once as its correctness check (sampled output entries
// against a double-precision CPU reference; this is also its warm-up), then is timed with GPU timestamps:
// `reps` samples taken in up to 5 rounds that interleave all variants of a shape; the row gives the median.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/context.hpp"

namespace vkgemm {

struct IstanbulBenchRow {
  std::string name;     // variant, e.g. "matmul_residual_swiglu_a_w16" or "unfused: swiglu + matmul_residual"
  std::string kernels;  // the kernels that ran, e.g. "istanbul_swiglu + istanbul_matmul_residual"
  uint32_t m = 0, n = 0, k = 0;  // the layer: Y[M,N] = X[M,K] @ W[K,N] (backward rows use the same layer)
  double median_ms = 0;
  double gflops = 0;          // 2*M*N*K / median time (the matmul's flops, also for the unfused sequence)
  uint64_t weight_bytes = 0;  // bytes of the weight matrix W (or dW) this variant reads or writes
  bool correct = false;
  std::string check;  // what the check found, e.g. "64 samples, max |err|/tol 0.02"
};

struct IstanbulShape {
  uint32_t m = 0, n = 0, k = 0;
};

// The llm.istanbul shapes listed above.
std::vector<IstanbulShape> istanbul_bench_shapes();

// Runs every variant at every llm.istanbul shape. progress (may be empty) receives one line per variant.
std::vector<IstanbulBenchRow> run_istanbul_bench(Context& ctx, int reps,
                                                 std::function<void(const std::string&)> progress);
// The same at chosen shapes (tests use small ones).
std::vector<IstanbulBenchRow> run_istanbul_bench(Context& ctx, int reps,
                                                 std::function<void(const std::string&)> progress,
                                                 const std::vector<IstanbulShape>& shapes);

// A text table of the rows plus, per shape, the fused/unfused and w16/f32 time ratios.
std::string format_istanbul_bench(const std::vector<IstanbulBenchRow>& rows);

}  // namespace vkgemm
