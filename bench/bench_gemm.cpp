// Google Benchmark over the GEMM kernel table. Each iteration is one dispatch; the reported time is GPU time from
// timestamp queries (manual time), so host overhead is excluded. Sizes via the benchmark argument (square N).
// Example: bench_gemm --benchmark_filter='10_istanbul/2048'
#include <benchmark/benchmark.h>

#include <memory>
#include <random>

#include "kernels/gemm_kernel.hpp"

namespace {

using namespace vkgemm;

Context& context() {
  static Context ctx;
  return ctx;
}

void run_kernel(benchmark::State& state, const kernels::GemmKernel* kernel) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  kernels::GemmShape shape{n, n, n};
  Context& ctx = context();
  if (auto why = kernels::unsupported_reason(*kernel, shape, ctx.info())) {
    state.SkipWithError(why->c_str());
    return;
  }
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> host(size_t(n) * n);
  for (auto& x : host) x = dist(rng);
  Buffer a = ctx.create_buffer(host.size() * 4), b = ctx.create_buffer(host.size() * 4),
         c = ctx.create_buffer(host.size() * 4);
  ctx.upload(a, host.data(), host.size() * 4);
  ctx.upload(b, host.data(), host.size() * 4);
  kernels::GemmLaunch launch(ctx, *kernel, shape, a, b, c);
  {
    Recorder warmup(ctx);
    launch.record(warmup);
    warmup.run();
  }
  for (auto _ : state) {
    Recorder rec(ctx, 2);
    uint32_t t0 = rec.timestamp();
    launch.record(rec);
    uint32_t t1 = rec.timestamp();
    rec.run();
    state.SetIterationTime(rec.elapsed_ms(t0, t1) * 1e-3);
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(shape.flops(), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(ctx.info().name);
}

const bool registered = [] {
  bool cpu = context().info().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  for (const auto& k : kernels::gemm_kernels()) {
    auto* b = benchmark::RegisterBenchmark(k.label().c_str(), run_kernel, &k)->UseManualTime()->Unit(
        benchmark::kMillisecond);
    if (cpu)
      b->Arg(128)->Arg(256);
    else
      b->Arg(1024)->Arg(2048)->Arg(4096);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
