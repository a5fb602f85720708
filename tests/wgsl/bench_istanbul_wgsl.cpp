// Times the llm.istanbul `matmul` compiled by wgslc (embedded wgsl_istanbul_matmul, and the same WGSL
// compiled at run time through vkgemm_wgsl_run) against its GLSL twin (ladder_10_istanbul, same ABI and
// tiling).
//   wgsl_bench_istanbul [size=4096] [iterations=20] [device]
// Prints GPU ms and TFLOP/s per variant and the largest difference between the WGSL and GLSL results.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/embedded.hpp"
#include "runtime/context.hpp"
#include "runtime/recorder.hpp"
#include "wgsl/run.hpp"

using namespace vkgemm;

extern const char* kIstanbulWgsl;  // shaders/wgsl/istanbul_matmul.wgsl, embedded at configure time

namespace {

struct Timing {
  double ms = 0;
  std::vector<float> result;
};

Timing time_pipeline(Context& ctx, const Pipeline& p, Buffer& x, Buffer& w, Buffer& y, Buffer& dims,
                     uint32_t n, int iterations) {
  std::vector<BufferBinding> b = {{0, 0, &x}, {0, 1, &w}, {0, 2, &y}, {0, 3, &dims}};
  std::array<uint32_t, 3> groups{(n + 63) / 64, (n + 63) / 64, 1};
  {
    Recorder warm(ctx);
    warm.dispatch(p, b, groups);
    warm.run();
  }
  std::vector<double> runs;
  for (int r = 0; r < 3; ++r) {
    Recorder rec(ctx, 2);
    uint32_t t0 = rec.timestamp();
    for (int i = 0; i < iterations; ++i) rec.dispatch(p, b, groups);
    uint32_t t1 = rec.timestamp();
    rec.run();
    runs.push_back(rec.elapsed_ms(t0, t1) / iterations);
  }
  Timing t;
  t.ms = *std::min_element(runs.begin(), runs.end());
  t.result = ctx.download<float>(y, size_t{n} * n);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t n = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 4096;
  int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
  ContextOptions co;
  if (argc > 3) co.device = argv[3];
  co.validation = false;
  Context ctx(co);
  std::printf("device: %s, %ux%ux%u, %d iterations\n", ctx.info().name.c_str(), n, n, n, iterations);

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> xs(size_t{n} * n), ws(size_t{n} * n);
  for (auto& v : xs) v = dist(rng);
  for (auto& v : ws) v = dist(rng);
  Buffer x = ctx.create_buffer(xs.size() * 4), w = ctx.create_buffer(ws.size() * 4);
  Buffer y = ctx.create_buffer(xs.size() * 4);
  ctx.upload(x, xs.data(), xs.size() * 4);
  ctx.upload(w, ws.data(), ws.size() * 4);
  uint32_t dims_words[8] = {n, n, n, 0, 0, 0, 0, 0};
  Buffer dims = ctx.create_buffer(32, BufferUsage::Uniform);
  ctx.upload(dims, dims_words, 32);

  std::vector<BindingDesc> layout = {{0, 0, BindingKind::StorageBuffer},
                                     {0, 1, BindingKind::StorageBuffer},
                                     {0, 2, BindingKind::StorageBuffer},
                                     {0, 3, BindingKind::UniformBuffer}};
  const double flops = 2.0 * n * n * n;
  auto report = [&](const char* name, const Timing& t) {
    std::printf("%-34s %9.3f ms %8.2f TFLOP/s\n", name, t.ms, flops / (t.ms * 1e-3) / 1e12);
  };

  PipelineDesc glsl{
      kernels::embedded_spirv("ladder_10_istanbul"), "main", layout, 0, {}, "ladder_10_istanbul"};
  Timing tg = time_pipeline(ctx, ctx.pipeline(glsl), x, w, y, dims, n, iterations);
  report("GLSL ladder_10_istanbul (glslc -O)", tg);

  PipelineDesc wgsl{
      kernels::embedded_spirv("wgsl_istanbul_matmul"), "matmul", layout, 0, {}, "wgsl_istanbul_matmul"};
  Timing tw = time_pipeline(ctx, ctx.pipeline(wgsl), x, w, y, dims, n, iterations);
  report("WGSL istanbul (wgslc -O, build time)", tw);

  // The same WGSL compiled now, through the run-time API (compile time included in the report).
  auto start = std::chrono::steady_clock::now();
  wgsl::Program program(ctx, kIstanbulWgsl, {.file_name = "istanbul_matmul.wgsl"});
  double compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  Timing tr = time_pipeline(ctx, program.pipeline(), x, w, y, dims, n, iterations);
  report("WGSL istanbul (run-time compile)", tr);
  std::printf("run-time compile + pipeline creation: %.1f ms\n", compile_ms);

  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < tg.result.size(); ++i) {
    max_diff = std::max(max_diff, static_cast<double>(std::fabs(tg.result[i] - tw.result[i])));
    max_diff = std::max(max_diff, static_cast<double>(std::fabs(tg.result[i] - tr.result[i])));
    max_ref = std::max(max_ref, static_cast<double>(std::fabs(tg.result[i])));
  }
  std::printf("max |WGSL - GLSL| = %.3g (max |C| = %.3g)\n", max_diff, max_ref);
  std::printf("WGSL / GLSL time: build-time %.3f, run-time %.3f\n", tw.ms / tg.ms, tr.ms / tg.ms);
  return max_diff <= 1e-3 * std::max(1.0, max_ref) ? 0 : 1;
}
