// vkgemm: runs the GEMM kernel ladder (and the other kernel families) on a Vulkan device, checks every result
// against a CPU reference and reports GPU time from timestamp queries.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gemm/bench_istanbul.hpp"
#include "kernels/gemm_bench.hpp"
#include "subgroup/bench_scan.hpp"
#include "table.hpp"

namespace vkgemm::cli {
namespace {

struct Options {
  std::string mode = "ladder";
  std::vector<std::string> sizes;  // "N" (square) or "MxNxK"
  std::vector<std::string> kernels;
  int reps = 50;
  std::string device;
  std::string json_path;
  std::string csv_path;
  bool list_devices = false;
  bool validation = false;
};

kernels::GemmShape parse_shape(const std::string& text) {
  kernels::GemmShape s;
  unsigned long a = 0, b = 0, c = 0;
  char x1 = 0, x2 = 0, extra = 0;
  std::istringstream in(text);
  if (text.find('x') == std::string::npos) {
    if (!(in >> a) || in >> extra) throw CLI::ValidationError("--sizes", "bad size \"" + text + "\"");
    b = c = a;
  } else if (!(in >> a >> x1 >> b >> x2 >> c) || x1 != 'x' || x2 != 'x' || in >> extra) {
    throw CLI::ValidationError("--sizes", "bad shape \"" + text + "\" (want N or MxNxK)");
  }
  if (a == 0 || b == 0 || c == 0 || a > 1u << 20 || b > 1u << 20 || c > 1u << 20)
    throw CLI::ValidationError("--sizes", "\"" + text + "\": each dimension must be in 1..1048576");
  s.m = static_cast<uint32_t>(a);
  s.n = static_cast<uint32_t>(b);
  s.k = static_cast<uint32_t>(c);
  return s;
}

std::string shape_string(kernels::GemmShape s) {
  if (s.m == s.n && s.n == s.k) return std::to_string(s.m);
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

nlohmann::json device_json(const DeviceInfo& d) {
  return {{"index", d.index},
          {"name", d.name},
          {"type", d.type_name()},
          {"driver", d.driver},
          {"subgroup_size", d.subgroup_size},
          {"subgroup_ops", d.subgroup_ops_string()},
          {"shared_memory_bytes", d.shared_memory_bytes},
          {"max_workgroup_invocations", d.max_workgroup_invocations},
          {"shader_f16", d.shader_f16},
          {"storage_16bit", d.storage_16bit},
          {"coopmat_shapes", d.coopmat_shapes.size()}};
}

void write_json(const std::string& path, const nlohmann::json& j) {
  if (path.empty()) return;
  std::ofstream out(path);
  if (!out) throw InvalidArgument("cannot write " + path);
  out << j.dump(2) << "\n";
}

int run_ladder(Context& ctx, const Options& opt) {
  std::vector<kernels::GemmShape> shapes;
  for (const auto& s : opt.sizes) shapes.push_back(parse_shape(s));
  if (shapes.empty()) {
    // A size that suits the device: CPU implementations (lavapipe) are ~1000x slower than a GPU. 240, not
    // 256, so that kernel 01's M*N workgroups fit lavapipe's 65535 limit and the speed-up column has its
    // baseline.
    uint32_t n = ctx.info().type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 240 : 2048;
    shapes.push_back({n, n, n});
  }
  std::vector<const kernels::GemmKernel*> list;
  if (opt.kernels.empty()) {
    for (const auto& k : kernels::gemm_kernels()) list.push_back(&k);
  } else {
    for (const auto& key : opt.kernels) list.push_back(&kernels::find_gemm_kernel(key));
  }

  std::cout << "vkgemm ladder on " << ctx.info().name << " (" << ctx.info().type_name() << ")\n\n";
  Table table({"kernel", "size", "GPU ms (median)", "GFLOP/s", "vs 01", "max rel err", "checked", "result"});
  nlohmann::json rows = nlohmann::json::array();
  std::ofstream csv;
  if (!opt.csv_path.empty()) {
    csv.open(opt.csv_path);
    if (!csv) throw InvalidArgument("cannot write " + opt.csv_path);
    csv << "kernel,m,n,k,median_ms,min_ms,gflops,max_rel_error,correct,skipped\n";
  }
  std::vector<std::string> notes;  // skip reasons, printed under the table
  bool all_correct = true;
  const size_t total = shapes.size() * list.size();
  size_t done = 0;
  kernels::GemmBenchOptions bench;
  bench.max_reps = opt.reps;
  for (const auto& shape : shapes) {
    double naive_ms = 0;
    for (const auto* k : list) {
      ++done;
      std::fprintf(stderr, "[%zu/%zu] %s at %s ...\n", done, total, k->label().c_str(),
                   shape_string(shape).c_str());
      auto m = kernels::measure_gemm(ctx, *k, shape, bench);
      nlohmann::json row = {
          {"kernel", m.kernel}, {"title", k->title}, {"m", shape.m}, {"n", shape.n}, {"k", shape.k}};
      if (m.skipped) {
        notes.push_back(*m.skipped);
        table.add(
            {m.kernel, shape_string(shape), "-", "-", "-", "-", "-", format("skipped [%zu]", notes.size())});
        row["skipped"] = *m.skipped;
        if (csv)
          csv << m.kernel << "," << shape.m << "," << shape.n << "," << shape.k << ",,,,,,\"" << *m.skipped
              << "\"\n";
      } else {
        if (k->id == "01") naive_ms = m.median_ms;
        all_correct = all_correct && m.correct;
        std::string speedup = naive_ms > 0 ? format("%.1fx", naive_ms / m.median_ms) : "n/a";
        table.add({m.kernel, shape_string(shape), format("%.4f", m.median_ms), format("%.1f", m.gflops),
                   speedup, format("%.2e", m.max_rel_error), std::to_string(m.checked),
                   m.correct ? "ok" : "WRONG"});
        row.update({{"median_ms", m.median_ms},
                    {"min_ms", m.min_ms},
                    {"reps", m.reps},
                    {"gflops", m.gflops},
                    {"max_rel_error", m.max_rel_error},
                    {"error_bound", m.error_bound},
                    {"checked", m.checked},
                    {"correct", m.correct}});
        if (naive_ms > 0) row["speedup_vs_01"] = naive_ms / m.median_ms;
        if (csv)
          csv << m.kernel << "," << shape.m << "," << shape.n << "," << shape.k << "," << m.median_ms << ","
              << m.min_ms << "," << m.gflops << "," << m.max_rel_error << "," << (m.correct ? 1 : 0) << ",\n";
      }
      rows.push_back(row);
    }
  }
  table.print(std::cout);
  for (size_t i = 0; i < notes.size(); ++i) std::cout << "[" << i + 1 << "] " << notes[i] << "\n";
  write_json(opt.json_path, {{"mode", "ladder"}, {"device", device_json(ctx.info())}, {"results", rows}});
  if (!all_correct) {
    std::cerr << "vkgemm: some results were WRONG\n";
    return 1;
  }
  return 0;
}

// llm.istanbul family at the seed's shapes: forward variants, fused vs unfused, w16 vs f32, backward kernels.
int run_istanbul(Context& ctx, const Options& opt) {
  std::cout << "vkgemm istanbul on " << ctx.info().name << " (" << ctx.info().type_name() << ")\n\n";
  auto progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  int reps = std::min(opt.reps, 1000);
  std::vector<IstanbulBenchRow> rows;
  if (ctx.info().type == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    // A CPU device would take minutes per variant at the real shapes: run them scaled by 1/8 in every
    // dimension.
    std::cout << "(CPU device: llm.istanbul shapes scaled by 1/8)\n";
    rows =
        run_istanbul_bench(ctx, reps, progress, {{64, 96, 96}, {64, 384, 96}, {64, 2048, 96}, {64, 96, 384}});
  } else {
    rows = run_istanbul_bench(ctx, reps, progress);
  }
  std::cout << format_istanbul_bench(rows);
  nlohmann::json out = nlohmann::json::array();
  bool ok = true;
  for (const auto& r : rows) {
    ok = ok && r.correct;
    out.push_back({{"name", r.name},
                   {"kernels", r.kernels},
                   {"m", r.m},
                   {"n", r.n},
                   {"k", r.k},
                   {"median_ms", r.median_ms},
                   {"gflops", r.gflops},
                   {"weight_bytes", r.weight_bytes},
                   {"correct", r.correct},
                   {"check", r.check}});
  }
  write_json(opt.json_path, {{"mode", "istanbul"}, {"device", device_json(ctx.info())}, {"results", out}});
  if (!ok) std::cerr << "vkgemm: some results were WRONG\n";
  return ok ? 0 : 1;
}

// Subgroups: scan throughput hw vs emu next to the copy bandwidth, and the subgroup matmul vs kernel 10.
int run_subgroup(Context& ctx, const Options& opt) {
  std::cout << "vkgemm subgroup on " << ctx.info().name << " (" << ctx.info().type_name() << ")\n\n";
  subgroup::BenchScanConfig config;
  bool cpu = ctx.info().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (cpu) {  // lavapipe: sizes that finish in seconds
    config.scan_count = 1u << 20;
    config.gemm_size = 256;
  }
  if (!opt.sizes.empty()) config.gemm_size = parse_shape(opt.sizes.front()).m;
  config.reps = static_cast<uint32_t>(std::min(opt.reps, 1000));
  std::fprintf(stderr, "running scan and matmul rows (scan of %u elements, matmul %u^3) ...\n",
               config.scan_count, config.gemm_size);
  auto rows = subgroup::bench_scan(ctx, config);
  Table table({"row", "size", "GPU ms (median)", "elements/s or FLOP/s", "GB/s", "ratio", "vs", "note"});
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    table.add({r.name, r.size, r.median_ms > 0 ? format("%.4f", r.median_ms) : "-",
               r.median_ms > 0 ? format("%.3g", r.elements_per_s) : "-",
               r.gb_per_s > 0 ? format("%.1f", r.gb_per_s) : "-",
               r.ratio > 0 ? format("%.2fx", r.ratio) : "-", r.baseline, r.note});
    out.push_back({{"name", r.name},
                   {"size", r.size},
                   {"median_ms", r.median_ms},
                   {"elements_per_s", r.elements_per_s},
                   {"gb_per_s", r.gb_per_s},
                   {"ratio", r.ratio},
                   {"baseline", r.baseline},
                   {"note", r.note}});
  }
  table.print(std::cout);
  write_json(opt.json_path, {{"mode", "subgroup"}, {"device", device_json(ctx.info())}, {"results", out}});
  return 0;
}

}  // namespace
}  // namespace vkgemm::cli

int main(int argc, char** argv) {
  using namespace vkgemm;
  using namespace vkgemm::cli;
  Options opt;
  CLI::App app{
      "vkgemm: GEMM kernels of the WebGPU world, natively on Vulkan. With no arguments, runs the whole "
      "kernel ladder on the default device, checks each result and prints a table."};
  app.add_option("--mode", opt.mode,
                 "What to run: ladder (GEMM kernel ladder), istanbul (llm.istanbul family at its shapes), "
                 "subgroup (scan hw vs emu, subgroup matmul)")
      ->check(CLI::IsMember({"ladder", "istanbul", "subgroup"}));
  app.add_option("--sizes", opt.sizes,
                 "Sizes: N (square) or MxNxK, comma-separated (default: 2048 on a GPU, 240 "
                 "on a CPU device)")
      ->delimiter(',');
  app.add_option("--kernels", opt.kernels, "Kernels by id, name or label, comma-separated (default: all)")
      ->delimiter(',');
  app.add_option("--reps", opt.reps, "Most timed runs per measurement (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--device", opt.device,
                 "Device index or name substring (default: $VKGEMM_DEVICE, else the best)");
  app.add_option("--json", opt.json_path, "Write results as JSON to this file");
  app.add_option("--csv", opt.csv_path, "Write results as CSV to this file");
  app.add_flag("--list-devices", opt.list_devices, "List Vulkan devices with their facts and exit");
  app.add_flag("--validation", opt.validation, "Enable the Khronos validation layer");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (opt.list_devices) {
      for (const auto& d : Context::list_devices()) std::cout << d.describe();
      return 0;
    }
    // Validate kernel names and sizes before touching the device.
    for (const auto& key : opt.kernels) kernels::find_gemm_kernel(key);
    for (const auto& s : opt.sizes) parse_shape(s);
    ContextOptions co;
    co.device = opt.device;
    if (opt.validation) co.validation = true;
    Context ctx(co);
    if (opt.mode == "istanbul") return run_istanbul(ctx, opt);
    if (opt.mode == "subgroup") return run_subgroup(ctx, opt);
    return run_ladder(ctx, opt);
  } catch (const CLI::ValidationError& e) {
    std::cerr << "vkgemm: " << e.what() << "\n" << app.help();
    return 2;
  } catch (const InvalidArgument& e) {
    std::cerr << "vkgemm: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "vkgemm: " << e.what() << "\n";
    return 3;
  }
}
