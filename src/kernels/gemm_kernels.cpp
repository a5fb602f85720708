// The GEMM kernel table: the seed ladder (000 Surfgrad, 003 Safari, 001 llm.istanbul) in order.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "kernels/embedded.hpp"
#include "kernels/gemm_kernel.hpp"

namespace vkgemm::kernels {

namespace {

uint32_t ceil_div(uint64_t a, uint64_t b) {
  uint64_t q = (a + b - 1) / b;
  return q > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(q);
}

// Grid of (ceil(N / tile_n), ceil(M / tile_m)) workgroups.
std::function<std::array<uint32_t, 3>(GemmShape)> grid2d(uint32_t tile_n, uint32_t tile_m) {
  return [=](GemmShape s) {
    return std::array<uint32_t, 3>{ceil_div(s.n, tile_n), ceil_div(s.m, tile_m), 1};
  };
}

// The seeds' WGSL kernels, compiled at build time by our own wgslc (shaders/wgsl), each placed right after
// its GLSL twin: same bindings, same dispatch. Their constraints are the documents': the WGSL as written
// reads past the edge where a shape is not a multiple of the tile (it relies on WebGPU's robust buffer
// access).
std::vector<GemmKernel> with_wgsl_twins(std::vector<GemmKernel> glsl) {
  struct Twin {
    const char* glsl_id;
    const char* spirv;
    const char* entry;
    uint32_t m_multiple, n_multiple;
  };
  static const Twin twins[] = {
      {"01", "wgsl_surfgrad_01_naive", "main", 1, 1},    {"02", "wgsl_surfgrad_02_threads", "main", 1, 1},
      {"03", "wgsl_surfgrad_03b_2d_rowy", "main", 1, 1},  // the document's row = global_id.y version
      {"03b", "wgsl_surfgrad_03_2d", "main", 1, 1},       // the document's first (row = global_id.x) version
      {"04", "wgsl_surfgrad_04_tile1x4", "main", 1, 4},  {"05", "wgsl_surfgrad_05_tile4x4", "main", 64, 64},
      {"10", "wgsl_istanbul_matmul", "matmul", 1, 4},
  };
  std::vector<GemmKernel> out;
  for (auto& g : glsl) {
    out.push_back(g);
    for (const auto& t : twins) {
      if (g.id != t.glsl_id) continue;
      GemmKernel w = g;
      w.id = "w" + g.id;
      w.name = g.name + "_wgsl";
      w.title = "the seed's WGSL for " + g.label() + ", compiled by wgslc";
      w.spirv = t.spirv;
      w.entry = t.entry;
      w.m_multiple = std::max(g.m_multiple, t.m_multiple);
      w.n_multiple = std::max(g.n_multiple, t.n_multiple);
      w.twin = g.label();
      out.push_back(std::move(w));
    }
  }
  return out;
}

std::vector<GemmKernel> make_kernels() {
  std::vector<GemmKernel> k;
  auto surfgrad = [&](std::string id, std::string name, std::string title,
                      std::function<std::array<uint32_t, 3>(GemmShape)> groups) {
    GemmKernel g;
    g.id = id;
    g.name = name;
    g.title = std::move(title);
    g.spirv = "ladder_" + id + "_" + name;
    g.groups = std::move(groups);
    k.push_back(std::move(g));
  };
  surfgrad("01", "naive", "1 thread per workgroup, 1 output per thread", [](GemmShape s) {
    return std::array<uint32_t, 3>{ceil_div(uint64_t(s.m) * s.n, 1), 1, 1};
  });
  surfgrad("02", "threads256", "256 threads per workgroup (1D)", [](GemmShape s) {
    return std::array<uint32_t, 3>{ceil_div(uint64_t(s.m) * s.n, 256), 1, 1};
  });
  surfgrad("03", "2d_rowy", "2D 8x8 workgroups, row = global_id.y", grid2d(8, 8));
  surfgrad("03b", "2d_rowx", "2D 8x8 workgroups, row = global_id.x (transposed mapping)", [](GemmShape s) {
    return std::array<uint32_t, 3>{ceil_div(s.m, 8), ceil_div(s.n, 8), 1};
  });
  surfgrad("04", "tile1x4", "1x4 register tile per thread", grid2d(64, 16));
  surfgrad("05", "tile4x4_loop", "4x4 register tile, loops", grid2d(64, 64));
  surfgrad("06", "tile4x4_unrolled", "4x4 register tile, unrolled", grid2d(64, 64));
  surfgrad("07", "tile8x8_unrolled", "8x8 register tile, unrolled", grid2d(128, 128));

  auto safari = [&](std::string id, std::string name, std::string title, uint32_t rows_per_thread) {
    GemmKernel g;
    g.id = id;
    g.name = name;
    g.title = std::move(title);
    g.spirv = "ladder_" + id + "_" + name;
    g.sizes = SizeAbi::SpecConstants;
    g.a_binding = 0;
    g.b_binding = 1;
    g.c_binding = 2;
    g.n_multiple = 4;
    g.groups = grid2d(8 * 4, 8 * rows_per_thread);
    k.push_back(std::move(g));
  };
  safari("08", "safari_vec4", "Safari: sizes baked in, vec4 FMA over N", 1);
  safari("09", "safari_4row", "Safari: 4 rows x vec4 register tile", 4);

  GemmKernel ist;
  ist.id = "10";
  ist.name = "istanbul";
  ist.title = "llm.istanbul: 64x64 tile, 4x4/thread, TK=16, double-buffered shared memory, vec4 loads";
  ist.spirv = "ladder_10_istanbul";
  ist.sizes = SizeAbi::IstanbulUniform;
  ist.a_binding = 0;
  ist.b_binding = 1;
  ist.c_binding = 2;
  ist.size_binding = 3;
  ist.n_multiple = 4;
  ist.k_multiple = 4;
  ist.groups = grid2d(64, 64);
  k.push_back(ist);

  GemmKernel sg;
  sg.id = "11";
  sg.name = "subgroup";
  sg.title = "operands shared through subgroup shuffles, not shared memory: 128x128 tile, 8x8/thread";
  sg.spirv = "sg_gemm_hw";  // shaders/subgroup/gemm_subgroup.comp; emu build: vkgemm::subgroup
  sg.sizes = SizeAbi::PushConstants;
  sg.a_binding = 0;
  sg.b_binding = 1;
  sg.c_binding = 2;
  sg.subgroup_ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  sg.subgroup_size_multiple = 8;
  sg.groups = grid2d(128, 128);
  k.push_back(std::move(sg));

  // Beyond the seeds: 128x128 tiles, 8x8 per thread, vec4 shared-memory reads (same ABI and constraints as
  // 10).
  GemmKernel big = ist;
  big.id = "12";
  big.name = "tile128_vec4";
  big.title = "128x128 tile, 8x8/thread, A transposed in shared memory, vec4 shared reads, BK=8";
  big.spirv = "ladder_12_tile128_vec4";
  big.groups = grid2d(128, 128);
  k.push_back(big);
  big.id = "12b";
  big.name = "tile128_bk16";
  big.title = "kernel 12 with BK=16 (half the barriers, twice the shared memory)";
  big.spirv = "ladder_12b_tile128_bk16";
  k.push_back(big);

  // Tensor cores: f16 inputs, f16 accumulation promoted to f32 every 64 K-elements (see the shader).
  GemmKernel tc = ist;
  tc.id = "13";
  tc.name = "coopmat_f16";
  tc.title = "tensor cores (NV cooperative matrix 16x8x16), f16 inputs, f16 sums promoted to f32 every 64 K";
  tc.spirv = "ladder_13_coopmat_f16";
  tc.groups = grid2d(128, 128);
  tc.needs_coopmat = true;
  tc.subgroup_ops = VK_SUBGROUP_FEATURE_BASIC_BIT;
  tc.subgroup_size_multiple = 32;
  // Worst case: rounding A and B to f16 (2^-10 per product), 64 f16 additions (64 * 2^-11), f32 additions.
  tc.error_bound = [](GemmShape s) {
    return std::ldexp(1.0, -10) + 64 * std::ldexp(1.0, -11) + 2.0 * s.k * std::ldexp(1.0, -24);
  };
  k.push_back(tc);
  tc.id = "13b";
  tc.name = "coopmat_bk64";
  tc.title = "kernel 13 with BK=64 (half the barriers and K steps)";
  tc.spirv = "ladder_13b_coopmat_bk64";
  k.push_back(tc);
  // The same tensor-core kernel on f16 operands: one conversion pass per operand (timed with it), then half
  // the bytes per K step and no conversion in the main loop.
  tc.id = "13c";
  tc.name = "coopmat_f16_operands";
  tc.title = "f32 -> f16 conversion pass, then tensor cores on f16 operands, BK=64";
  tc.spirv = "ladder_13c_coopmat_f16in";
  tc.f16_operands = true;
  tc.n_multiple = 8;
  tc.k_multiple = 8;
  k.push_back(tc);
  return with_wgsl_twins(std::move(k));
}

}  // namespace

const std::vector<GemmKernel>& gemm_kernels() {
  static const std::vector<GemmKernel> kernels = make_kernels();
  return kernels;
}

const GemmKernel& find_gemm_kernel(const std::string& key) {
  auto strip_zeros = [](const std::string& s) {
    return s.substr(std::min(s.find_first_not_of('0'), s.size()));
  };
  for (const auto& k : gemm_kernels())
    if (k.id == key || k.name == key || k.label() == key ||
        (!key.empty() && strip_zeros(k.id) == strip_zeros(key)))
      return k;
  std::ostringstream s;
  s << "unknown kernel \"" << key << "\"; choose one of:";
  for (const auto& k : gemm_kernels()) s << " " << k.label();
  throw InvalidArgument(s.str());
}

std::optional<std::string> unsupported_reason(const GemmKernel& kernel, GemmShape shape,
                                              const DeviceInfo& device) {
  if (shape.m == 0 || shape.n == 0 || shape.k == 0)
    return "M, N and K must be at least 1 (got " + std::to_string(shape.m) + "x" + std::to_string(shape.n) +
           "x" + std::to_string(shape.k) + ")";
  if (shape.m % kernel.m_multiple != 0)
    return kernel.label() + " needs M % " + std::to_string(kernel.m_multiple) +
           " == 0 (M = " + std::to_string(shape.m) + ")";
  if (shape.n % kernel.n_multiple != 0)
    return kernel.label() + " needs N % " + std::to_string(kernel.n_multiple) +
           " == 0 (N = " + std::to_string(shape.n) + ")";
  if (shape.k % kernel.k_multiple != 0)
    return kernel.label() + " needs K % " + std::to_string(kernel.k_multiple) +
           " == 0 (K = " + std::to_string(shape.k) + ")";
  // 32-bit indices inside the kernels: every operand must have fewer than 2^32 elements.
  if (uint64_t(shape.m) * shape.k > UINT32_MAX || uint64_t(shape.k) * shape.n > UINT32_MAX ||
      uint64_t(shape.m) * shape.n > UINT32_MAX)
    return "operands with 2^32 or more elements are not supported (32-bit indexing)";
  if (kernel.needs_coopmat && device.coopmat_shapes.empty())
    return device.name + " has no cooperative-matrix support (VK_NV_cooperative_matrix)";
  if (kernel.subgroup_ops != 0 && !device.has_subgroup_ops(kernel.subgroup_ops))
    return device.name + " lacks the subgroup operations " + kernel.label() +
           " needs in compute shaders (has: " + device.subgroup_ops_string() + ")";
  if (kernel.subgroup_ops != 0 && device.subgroup_size % kernel.subgroup_size_multiple != 0)
    return kernel.label() + " needs a subgroup size that is a multiple of " +
           std::to_string(kernel.subgroup_size_multiple) + " (" + device.name + ": " +
           std::to_string(device.subgroup_size) + ")";
  auto g = kernel.groups(shape);
  const char* axis = "xyz";
  for (int i = 0; i < 3; ++i) {
    if (g[i] > device.max_workgroup_count[i])
      return kernel.label() + " needs " + std::to_string(g[i]) + " workgroups along " + axis[i] + " for " +
             std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k) +
             ", but " + device.name + " allows " + std::to_string(device.max_workgroup_count[i]) +
             " (maxComputeWorkGroupCount)";
  }
  return std::nullopt;
}

GemmLaunch::GemmLaunch(Context& ctx, const GemmKernel& kernel, GemmShape shape, const Buffer& a,
                       const Buffer& b, Buffer& c)
    : kernel_(kernel), shape_(shape) {
  if (auto why = unsupported_reason(kernel, shape, ctx.info())) {
    if (kernel.needs_coopmat && ctx.info().coopmat_shapes.empty()) throw UnsupportedError(*why);
    if (kernel.subgroup_ops != 0 && (!ctx.info().has_subgroup_ops(kernel.subgroup_ops) ||
                                     ctx.info().subgroup_size % kernel.subgroup_size_multiple != 0))
      throw UnsupportedError(*why);
    throw InvalidArgument(*why);
  }
  auto need = [&](const Buffer& buf, uint64_t elems, const char* what) {
    if (!buf) throw InvalidArgument(kernel.label() + ": operand " + what + " has no buffer");
    if (buf.size() < elems * sizeof(float))
      throw InvalidArgument(kernel.label() + ": operand " + what + " needs " + std::to_string(elems * 4) +
                            " bytes for " + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                            std::to_string(shape.k) + ", buffer has " + std::to_string(buf.size()));
  };
  need(a, uint64_t(shape.m) * shape.k, "A");
  need(b, uint64_t(shape.k) * shape.n, "B");
  need(c, uint64_t(shape.m) * shape.n, "C");

  PipelineDesc desc;
  desc.spirv = embedded_spirv(kernel.spirv);
  desc.entry = kernel.entry;
  desc.debug_name = kernel.label();
  desc.bindings = {{0, kernel.a_binding, BindingKind::StorageBuffer},
                   {0, kernel.b_binding, BindingKind::StorageBuffer},
                   {0, kernel.c_binding, BindingKind::StorageBuffer}};
  bindings_ = {{0, kernel.a_binding, &a}, {0, kernel.b_binding, &b}, {0, kernel.c_binding, &c}};
  if (kernel.f16_operands) {
    a_ = &a;
    b_ = &b;
    a16_ = ctx.create_buffer(size_t(shape.m) * shape.k * 2);
    b16_ = ctx.create_buffer(size_t(shape.k) * shape.n * 2);
    bindings_[0].buffer = &a16_;
    bindings_[1].buffer = &b16_;
    PipelineDesc convert;
    convert.spirv = embedded_spirv("ladder_convert_f16");
    convert.debug_name = "convert_f16";
    convert.bindings = {{0, 0, BindingKind::StorageBuffer}, {0, 1, BindingKind::StorageBuffer}};
    convert.push_constant_bytes = 4;
    convert_ = &ctx.pipeline(convert);
  }
  switch (kernel.sizes) {
    case SizeAbi::SurfgradUniform:
    case SizeAbi::IstanbulUniform: {
      uint32_t block[4] = {shape.m, shape.k, shape.n, 0};
      if (kernel.sizes == SizeAbi::IstanbulUniform) {
        block[1] = shape.n;
        block[2] = shape.k;
      }
      sizes_ = ctx.create_buffer(sizeof(block), BufferUsage::Uniform);
      ctx.upload(sizes_, block, sizeof(block));
      desc.bindings.push_back({0, kernel.size_binding, BindingKind::UniformBuffer});
      bindings_.push_back({0, kernel.size_binding, &sizes_});
      break;
    }
    case SizeAbi::SpecConstants:
      desc.specialization = {{0, shape.m}, {1, shape.n}, {2, shape.k}};
      break;
    case SizeAbi::PushConstants:
      desc.push_constant_bytes = sizeof(push_);
      push_ = {shape.m, shape.n, shape.k};
      break;
  }
  pipeline_ = &ctx.pipeline(desc);
  groups_ = kernel.groups(shape);
}

void GemmLaunch::record(Recorder& recorder) const {
  if (convert_) {
    auto convert = [&](const Buffer& src, const Buffer& dst, uint64_t elements) {
      uint32_t count4 = static_cast<uint32_t>(elements / 4);
      uint32_t groups = std::min<uint32_t>((count4 + 255) / 256, 65535);
      recorder.dispatch(*convert_, {{0, 0, &src}, {0, 1, &dst}}, {groups, 1, 1}, &count4, 4);
    };
    convert(*a_, a16_, uint64_t(shape_.m) * shape_.k);
    convert(*b_, b16_, uint64_t(shape_.k) * shape_.n);
    recorder.barrier();
  }
  recorder.dispatch(*pipeline_, bindings_, groups_,
                    kernel_.sizes == SizeAbi::PushConstants ? push_.data() : nullptr,
                    kernel_.sizes == SizeAbi::PushConstants ? sizeof(push_) : 0);
}

}  // namespace vkgemm::kernels
