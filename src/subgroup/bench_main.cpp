// Standalone driver for bench_scan() until the vkgemm CLI wires `--mode subgroup`:
//   vkgemm_subgroup_bench [--count N] [--gemm N] [--reps N] [--warmup N] [--warmup-ms MS] [--wg N] [--no-emu]
//   [--device S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "subgroup/bench_scan.hpp"
#include "subgroup/subgroup.hpp"

namespace {

// Returns the number of mismatching elements of the exclusive scan in `build` (prints the first).
size_t verify_scan(vkgemm::Context& ctx, uint32_t n, vkgemm::subgroup::DType dtype,
                   vkgemm::subgroup::Build build, uint32_t workgroup_size) {
  using vkgemm::subgroup::DType;
  std::vector<uint32_t> data(n);
  std::mt19937 rng(n);
  for (auto& v : data) v = dtype == DType::U32 ? rng() : std::bit_cast<uint32_t>(float(rng() & 3u));
  vkgemm::Buffer in = ctx.create_buffer(size_t(n) * 4), out = ctx.create_buffer(size_t(n) * 4);
  ctx.upload(in, data.data(), data.size() * 4);
  vkgemm::subgroup::Options options;
  options.workgroup_size = workgroup_size;
  options.force_emulation = build == vkgemm::subgroup::Build::Emulated;
  auto ran = vkgemm::subgroup::exclusive_scan(ctx, in, out, n, dtype, options);
  auto got = ctx.download<uint32_t>(out, n);
  size_t bad = 0;
  uint32_t acc = 0;
  // f32: small integers, exact while the sums stay below 2^24; beyond, within the rounding of the ~2000
  // sequential additions a prefix goes through (tile carries and partition sums): 2048 x 2^-24 relative.
  double facc = 0;
  for (uint32_t i = 0; i < n; ++i) {
    bool ok = dtype == DType::U32
                  ? got[i] == acc
                  : std::fabs(double(std::bit_cast<float>(got[i])) - facc) <= facc * 2048 * 0x1p-24;
    if (!ok && bad++ == 0)
      std::printf("  first mismatch at %u: got 0x%08x (%.1f), want %.1f\n", i, got[i],
                  double(std::bit_cast<float>(got[i])), dtype == DType::U32 ? double(acc) : facc);
    acc += data[i];
    facc += std::bit_cast<float>(data[i]);
  }
  std::printf("verify scan %s %s n=%u: %s (%zu wrong)\n", vkgemm::subgroup::dtype_name(dtype),
              vkgemm::subgroup::build_name(ran), n, bad == 0 ? "OK" : "MISMATCH", bad);
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  vkgemm::subgroup::BenchScanConfig config;
  vkgemm::ContextOptions options;
  uint32_t verify_count = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> uint32_t {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 0));
    };
    if (a == "--count") {
      config.scan_count = next();
    } else if (a == "--gemm") {
      config.gemm_size = next();
    } else if (a == "--reps") {
      config.reps = next();
    } else if (a == "--warmup") {
      config.warmup = next();
    } else if (a == "--warmup-ms") {
      config.warmup_ms = next();
    } else if (a == "--wg") {
      config.workgroup_size = next();
    } else if (a == "--verify") {
      verify_count = next();
    } else if (a == "--no-emu") {
      config.include_emulated = false;
    } else if (a == "--device" && i + 1 < argc) {
      options.device = argv[++i];
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  try {
    vkgemm::Context ctx(options);
    std::printf("device: %s (subgroup size %u: %s)\n", ctx.info().name.c_str(), ctx.info().subgroup_size,
                ctx.info().subgroup_ops_string().c_str());
    if (verify_count > 0) {
      size_t bad = 0;
      for (auto dtype : {vkgemm::subgroup::DType::U32, vkgemm::subgroup::DType::F32})
        for (auto build : {vkgemm::subgroup::Build::Hardware, vkgemm::subgroup::Build::Emulated})
          bad += verify_scan(ctx, verify_count, dtype, build, config.workgroup_size);
      if (bad != 0) return 1;
    }
    std::printf("%-26s %-16s %12s %14s %10s %8s  %s\n", "name", "size", "median_ms", "elements/s", "GB/s",
                "ratio", "baseline / note");
    for (const auto& r : vkgemm::subgroup::bench_scan(ctx, config))
      std::printf("%-26s %-16s %12.4f %14.4g %10.2f %8.3f  %s%s\n", r.name.c_str(), r.size.c_str(),
                  r.median_ms, r.elements_per_s, r.gb_per_s, r.ratio, r.baseline.c_str(), r.note.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
