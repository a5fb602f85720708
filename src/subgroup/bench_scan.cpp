#include "subgroup/bench_scan.hpp"

#include <algorithm>
#include <functional>
#include <random>

#include "kernels/embedded.hpp"
#include "kernels/gemm_kernel.hpp"
#include "runtime/recorder.hpp"
#include "subgroup/subgroup.hpp"

namespace vkgemm::subgroup {

namespace {

// Median GPU time of `record`: warm-up submissions until config.warmup repetitions and at least
// config.warmup_ms of GPU time have passed (so the clocks have ramped up), then one submission of config.reps
// repetitions separated by barriers, with timestamps around each (no host round trips between them).
double median_ms(Context& ctx, const BenchScanConfig& config, const std::function<void(Recorder&)>& record) {
  uint32_t batch = std::max(config.warmup, 1u);
  double warm_ms = 0;
  for (int submissions = 0; submissions < 100 && (submissions == 0 || warm_ms < config.warmup_ms);
       ++submissions) {
    Recorder rec(ctx, 2);
    uint32_t t0 = rec.timestamp();
    for (uint32_t i = 0; i < batch; ++i) {
      record(rec);
      rec.barrier();
    }
    uint32_t t1 = rec.timestamp();
    rec.run();
    warm_ms += rec.elapsed_ms(t0, t1);
  }
  uint32_t reps = std::max(config.reps, 1u);
  Recorder rec(ctx, 2 * reps);
  std::vector<std::pair<uint32_t, uint32_t>> marks;
  for (uint32_t i = 0; i < reps; ++i) {
    uint32_t t0 = rec.timestamp();
    record(rec);
    uint32_t t1 = rec.timestamp();
    rec.barrier();
    marks.emplace_back(t0, t1);
  }
  rec.run();
  std::vector<double> times;
  for (auto [t0, t1] : marks) times.push_back(rec.elapsed_ms(t0, t1));
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  return n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

}  // namespace

std::vector<BenchRow> bench_scan(Context& ctx, const BenchScanConfig& config) {
  std::vector<BenchRow> rows;
  uint64_t max_elems = ctx.info().max_storage_buffer_range / 4;
  uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(config.scan_count, max_elems));
  if (n == 0) throw InvalidArgument("bench_scan: scan_count must be at least 1");

  // Small integers keep f32 sums exact, so f32 and u32 scans do the same work on comparable data.
  std::vector<uint32_t> data(n);
  std::mt19937 rng(4);
  for (auto& v : data) v = rng() & 15u;
  Buffer in = ctx.create_buffer(size_t(n) * 4), out = ctx.create_buffer(size_t(n) * 4);
  ctx.upload(in, data.data(), data.size() * 4);
  double bytes = 2.0 * 4.0 * n;

  auto add_row = [&](std::string name, std::string size, double ms, double elements, double bytes_moved,
                     std::string baseline, double baseline_ms) {
    BenchRow r;
    r.name = std::move(name);
    r.size = std::move(size);
    r.median_ms = ms;
    r.elements_per_s = elements / (ms * 1e-3);
    r.gb_per_s = bytes_moved > 0 ? bytes_moved / (ms * 1e-3) / 1e9 : 0;
    r.baseline = std::move(baseline);
    r.ratio = baseline_ms > 0 ? ms / baseline_ms : 1.0;
    rows.push_back(std::move(r));
  };

  // Two bandwidth references over the same buffers: vkCmdCopyBuffer and a vec4 copy shader; scans compare
  // against the faster one.
  double copy_cmd_ms = median_ms(ctx, config, [&](Recorder& rec) { rec.copy(in, out, VkDeviceSize(n) * 4); });
  add_row("copy_cmd", std::to_string(n), copy_cmd_ms, n, bytes, "", 0);
  uint32_t n4 = n / 4;
  double copy_ms = copy_cmd_ms;
  std::string copy_name = "copy_cmd";
  if (n4 > 0) {
    PipelineDesc desc;
    desc.spirv = kernels::embedded_spirv("sg_copy_u32x4");
    desc.debug_name = "sg_copy_u32x4";
    desc.bindings = {{0, 0, BindingKind::StorageBuffer}, {0, 1, BindingKind::StorageBuffer}};
    desc.push_constant_bytes = 4;
    desc.specialization = {{0, 256}};
    const Pipeline& copy = ctx.pipeline(desc);
    uint32_t groups = std::min<uint32_t>((n4 + 255) / 256, 8192);
    double shader_ms = median_ms(ctx, config, [&](Recorder& rec) {
      rec.dispatch(copy, {{0, 0, &in, 0, VkDeviceSize(n4) * 16}, {0, 1, &out, 0, VkDeviceSize(n4) * 16}},
                   {groups, 1, 1}, &n4, 4);
    });
    add_row("copy_shader", std::to_string(n4 * 4), shader_ms, n4 * 4.0, 32.0 * n4, "copy_cmd", copy_cmd_ms);
    double per_element = shader_ms / (n4 * 4.0) * n;
    if (per_element < copy_ms) {
      copy_ms = per_element;
      copy_name = "copy_shader";
    }
  }

  std::vector<Build> builds = {Build::Hardware};
  if (config.include_emulated) builds.push_back(Build::Emulated);
  for (DType dtype : {DType::U32, DType::F32}) {
    double hw_ms = 0;
    for (Build build : builds) {
      Options options;
      options.workgroup_size = config.workgroup_size;
      options.force_emulation = build == Build::Emulated;
      DeviceScan scan(ctx, n, dtype, options);
      std::string name = std::string("scan_") + dtype_name(dtype) + "_" + build_name(build);
      if (scan.build() != build) {
        BenchRow r;
        r.name = name;
        r.size = std::to_string(n);
        r.note = std::string("no hw subgroup path on this device (") + ctx.info().subgroup_ops_string() + ")";
        rows.push_back(r);
        continue;
      }
      double ms = median_ms(ctx, config, [&](Recorder& rec) { scan.record(rec, in, out); });
      if (build == Build::Hardware) {
        hw_ms = ms;
        add_row(name, std::to_string(n), ms, n, bytes, copy_name, copy_ms);
      } else {
        add_row(name, std::to_string(n), ms, n, bytes,
                hw_ms > 0 ? std::string("scan_") + dtype_name(dtype) + "_hw" : copy_name,
                hw_ms > 0 ? hw_ms : copy_ms);
      }
    }
  }

  if (config.gemm_size > 0) {
    uint32_t s = config.gemm_size;
    kernels::GemmShape shape{s, s, s};
    std::string size = std::to_string(s) + "x" + std::to_string(s) + "x" + std::to_string(s);
    size_t elems = size_t(s) * s;
    std::vector<float> host(elems);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto& v : host) v = dist(rng);
    Buffer a = ctx.create_buffer(elems * 4), b = ctx.create_buffer(elems * 4),
           c = ctx.create_buffer(elems * 4);
    ctx.upload(a, host.data(), elems * 4);
    ctx.upload(b, host.data(), elems * 4);
    std::vector<const kernels::GemmKernel*> gemms = {&kernels::find_gemm_kernel("10"),
                                                     &subgroup_gemm_kernel(Build::Hardware)};
    if (config.include_emulated) gemms.push_back(&subgroup_gemm_kernel(Build::Emulated));
    double base_ms = 0;
    std::string base_name;
    for (const kernels::GemmKernel* k : gemms) {
      std::string name = "gemm_" + k->label();
      if (auto why = kernels::unsupported_reason(*k, shape, ctx.info())) {
        BenchRow r;
        r.name = name;
        r.size = size;
        r.note = *why;
        rows.push_back(r);
        continue;
      }
      kernels::GemmLaunch launch(ctx, *k, shape, a, b, c);
      double ms = median_ms(ctx, config, [&](Recorder& rec) { launch.record(rec); });
      if (base_ms == 0) {
        base_ms = ms;
        base_name = name;
      }
      add_row(name, size, ms, shape.flops(), 0, base_name, base_ms);
    }
  }
  return rows;
}

}  // namespace vkgemm::subgroup
