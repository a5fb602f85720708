// Standalone driver for bench_scan() until the vkgemm CLI wires `--mode subgroup`:
//   vkgemm_subgroup_bench [--count N] [--gemm N] [--reps N] [--warmup N] [--warmup-ms MS] [--wg N] [--no-emu]
//   [--device S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "subgroup/bench_scan.hpp"

int main(int argc, char** argv) {
  vkgemm::subgroup::BenchScanConfig config;
  vkgemm::ContextOptions options;
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
