#pragma once
// Host-side description of a GEMM kernel (C[M,N] = A[M,K] @ B[K,N], row-major f32): its embedded SPIR-V,
// which binding holds which operand, how it receives the sizes, its constraints and its dispatch rule. Adding
// a kernel = one shader file + one GemmKernel entry.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/buffer.hpp"
#include "runtime/context.hpp"
#include "runtime/recorder.hpp"

namespace vkgemm::kernels {

struct GemmShape {
  uint32_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * m * n * k; }
};

// How a kernel receives M, N, K.
enum class SizeAbi {
  SurfgradUniform,  // uniform {M, K, N} (seed 000)
  IstanbulUniform,  // uniform uvec4(M, N, K, 0) (seed 001)
  SpecConstants,    // specialization constants 0, 1, 2 = M, N, K (seed 003's sizes baked into the kernel)
  PushConstants,    // push constants {M, N, K}
};

struct GemmKernel {
  std::string id;     // ladder number, e.g. "03b"
  std::string name;   // short name, e.g. "2d_rowx"
  std::string title;  // one line: the idea of this step
  std::string spirv;  // embedded module name
  std::string entry = "main";
  SizeAbi sizes = SizeAbi::SurfgradUniform;
  uint32_t a_binding = 1, b_binding = 2, c_binding = 3, size_binding = 0;  // size_binding: uniform sizes only
  uint32_t m_multiple = 1, n_multiple = 1, k_multiple = 1;  // M, N, K must be multiples of these
  std::string twin;  // for a WGSL kernel: the label of its GLSL twin (same ABI, same dispatch)
  bool needs_coopmat = false;
  // The kernel reads A and B as f16 (8 halves per uvec4): GemmLaunch converts the f32 operands in one pass
  // each into scratch buffers, recorded (and timed) together with the kernel.
  bool f16_operands = false;
  // Largest acceptable max |C - ref| / sum|A||B| for a shape; empty = the f32 bound 2*K*2^-24
  // (kernels that round to f16 on the way need a wider one).
  std::function<double(GemmShape)> error_bound;
  // Subgroup operations the kernel needs in compute shaders (0 = none), and a subgroup size that is a
  // multiple of subgroup_size_multiple.
  VkSubgroupFeatureFlags subgroup_ops = 0;
  uint32_t subgroup_size_multiple = 1;
  std::function<std::array<uint32_t, 3>(GemmShape)> groups;

  std::string label() const { return id + "_" + name; }
};

// The kernels, in ladder order (the seeds' progression, then the steps beyond it).
const std::vector<GemmKernel>& gemm_kernels();
// Finds a kernel by id ("10"), name ("istanbul") or label ("10_istanbul"); throws InvalidArgument listing the
// choices.
const GemmKernel& find_gemm_kernel(const std::string& key);

// Why `kernel` cannot run `shape` on this device (constraint, workgroup-count limit, missing feature), or
// nothing.
std::optional<std::string> unsupported_reason(const GemmKernel& kernel, GemmShape shape,
                                              const DeviceInfo& device);

// A kernel bound to its operands for one shape: validates everything up front (throws InvalidArgument or
// UnsupportedError before anything is recorded), then records any number of dispatches.
class GemmLaunch {
 public:
  GemmLaunch(Context& ctx, const GemmKernel& kernel, GemmShape shape, const Buffer& a, const Buffer& b,
             Buffer& c);
  void record(Recorder& recorder) const;
  const GemmKernel& kernel() const { return kernel_; }
  GemmShape shape() const { return shape_; }

 private:
  const GemmKernel& kernel_;
  GemmShape shape_;
  const Pipeline* pipeline_ = nullptr;
  Buffer sizes_;  // uniform block for uniform-size ABIs
  // f16_operands: the converted operands and the conversion pass.
  Buffer a16_, b16_;
  const Pipeline* convert_ = nullptr;
  const Buffer* a_ = nullptr;
  const Buffer* b_ = nullptr;
  std::vector<BufferBinding> bindings_;
  std::array<uint32_t, 3> groups_{};
  std::array<uint32_t, 3> push_{};
};

}  // namespace vkgemm::kernels
