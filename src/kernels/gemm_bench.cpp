#include "kernels/gemm_bench.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace vkgemm::kernels {

namespace {

std::vector<float> random_matrix(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Compares C with the double reference at the given entries; returns max normalized error (inf for NaN).
double max_relative_error(const std::vector<float>& a, const std::vector<float>& b,
                          const std::vector<float>& c, GemmShape s, const std::vector<size_t>& entries) {
  double worst = 0;
  for (size_t e : entries) {
    size_t i = e / s.n, j = e % s.n;
    double ref = 0, scale = 0;
    for (size_t p = 0; p < s.k; ++p) {
      double prod = double(a[i * s.k + p]) * double(b[p * s.n + j]);
      ref += prod;
      scale += std::fabs(prod);
    }
    double err = std::fabs(double(c[e]) - ref) / std::max(scale, 1e-300);
    if (std::isnan(err)) return INFINITY;
    worst = std::max(worst, err);
  }
  return worst;
}

}  // namespace

GemmMeasurement measure_gemm(Context& ctx, const GemmKernel& kernel, GemmShape s,
                             const GemmBenchOptions& options) {
  GemmMeasurement m;
  m.kernel = kernel.label();
  m.shape = s;
  if (auto why = unsupported_reason(kernel, s, ctx.info())) {
    m.skipped = *why;
    return m;
  }
  auto a = random_matrix(size_t(s.m) * s.k, options.seed);
  auto b = random_matrix(size_t(s.k) * s.n, options.seed + 1);
  Buffer da = ctx.create_buffer(a.size() * 4), db = ctx.create_buffer(b.size() * 4),
         dc = ctx.create_buffer(size_t(s.m) * s.n * 4);
  ctx.upload(da, a.data(), a.size() * 4);
  ctx.upload(db, b.data(), b.size() * 4);
  ctx.fill(dc, 0x7fc00000u);  // NaN: any element the kernel fails to write is caught by the check
  GemmLaunch launch(ctx, kernel, s, da, db, dc);

  // First run: correctness, and an estimate of one run's time to size the timed batch.
  double first_ms;
  {
    Recorder rec(ctx, 2);
    uint32_t t0 = rec.timestamp();
    launch.record(rec);
    uint32_t t1 = rec.timestamp();
    rec.run();
    first_ms = rec.elapsed_ms(t0, t1);
  }
  auto c = ctx.download<float>(dc, size_t(s.m) * s.n);
  std::vector<size_t> entries;
  size_t total = size_t(s.m) * s.n;
  if (double(s.m) * s.n * s.k <= double(options.full_check_limit)) {
    entries.resize(total);
    for (size_t i = 0; i < total; ++i) entries[i] = i;
  } else {
    // A random sample plus the four corners and the last row/column ends (where edge handling lives).
    std::mt19937_64 rng(options.seed + 2);
    std::uniform_int_distribution<size_t> pick(0, total - 1);
    for (size_t i = 0; i < options.sample_count; ++i) entries.push_back(pick(rng));
    entries.insert(entries.end(), {0, size_t(s.n - 1), total - s.n, total - 1});
  }
  m.checked = entries.size();
  m.max_rel_error = max_relative_error(a, b, c, s, entries);
  m.error_bound = kernel.error_bound ? kernel.error_bound(s) : 2.0 * s.k * std::ldexp(1.0, -24);
  m.correct = m.max_rel_error <= m.error_bound;

  // Timed batch: warm-up, then reps dispatches, each between barriers and timestamps, in one submission.
  int reps = options.max_reps;
  if (first_ms > 0) reps = static_cast<int>(std::min<double>(reps, options.budget_ms / first_ms));
  reps = std::max(reps, options.min_reps);
  Recorder rec(ctx, 2 * reps);
  launch.record(rec);  // warm-up
  std::vector<std::pair<uint32_t, uint32_t>> stamps;
  for (int r = 0; r < reps; ++r) {
    rec.barrier();
    uint32_t t0 = rec.timestamp();
    launch.record(rec);
    rec.barrier();
    uint32_t t1 = rec.timestamp();
    stamps.emplace_back(t0, t1);
  }
  rec.run();
  std::vector<double> times;
  for (auto [t0, t1] : stamps) times.push_back(rec.elapsed_ms(t0, t1));
  std::sort(times.begin(), times.end());
  m.reps = reps;
  m.min_ms = times.front();
  m.median_ms = times.size() % 2 ? times[times.size() / 2]
                                 : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  m.gflops = m.median_ms > 0 ? s.flops() / (m.median_ms * 1e6) : 0;
  return m;
}

}  // namespace vkgemm::kernels
