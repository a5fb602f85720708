#pragma once
// Subgroup kernels with a workgroup-memory emulation path (the Gridwise strategy, issue 4). Every kernel
// exists in two builds of one source (shaders/subgroup/): hw uses the GL_KHR_shader_subgroup_* operations,
// emu emulates them through workgroup memory with subgroup size = workgroup size. The hw build is chosen when
// the device reports the needed operations for compute; emu otherwise, or when forced
// (Options::force_emulation or VKGEMM_FORCE_SUBGROUP_EMULATION=1).
#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/gemm_kernel.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context.hpp"
#include "runtime/recorder.hpp"

namespace vkgemm::subgroup {

enum class Build { Hardware, Emulated };
const char* build_name(Build build);  // "hw" / "emu"

enum class DType { U32, F32 };
const char* dtype_name(DType dtype);  // "u32" / "f32"

struct Options {
  bool force_emulation = false;   // also forced by VKGEMM_FORCE_SUBGROUP_EMULATION=1
  uint32_t workgroup_size = 256;  // scan and reduce kernels: 1..256 (hw: a multiple of the subgroup size)
};

// Whether $VKGEMM_FORCE_SUBGROUP_EMULATION is set to something other than "" or "0".
bool emulation_forced_by_environment();

// The build for a kernel that needs `ops` in compute shaders with `workgroup_size` invocations: hw when the
// device has them and its subgroup size divides the workgroup size (and is a multiple of
// `subgroup_size_multiple`), emu otherwise or when forced.
Build choose_build(const DeviceInfo& device, VkSubgroupFeatureFlags ops, uint32_t workgroup_size,
                   const Options& options = {}, uint32_t subgroup_size_multiple = 1);

// The subgroup size kernels of `build` see: the device's for hw, the workgroup size for emu.
uint32_t effective_subgroup_size(const DeviceInfo& device, Build build, uint32_t workgroup_size);

// ---------------------------------------------------------------------------------------------------------
// Device-wide exclusive prefix sum (reduce-then-scan: a reduce pass over partitions, a scan of the partition
// sums, a scan pass with carries; one scan pass when one partition suffices). Any count up to 2^30 elements,
// limited further by the device's maxStorageBufferRange. Owns its scratch buffers, so it can be recorded
// any number of times.
class DeviceScan {
 public:
  DeviceScan(Context& ctx, uint32_t count, DType dtype, const Options& options = {});
  // Records out[i] = sum(in[0..i)) for i < count; out may not alias in.
  void record(Recorder& recorder, const Buffer& in, Buffer& out) const;
  Build build() const { return build_; }
  uint32_t partitions() const { return partitions_; }

 private:
  Context& ctx_;
  uint32_t count_;
  DType dtype_;
  Build build_;
  uint32_t workgroup_size_;
  uint32_t partition_size_ = 0, partitions_ = 0;
  const Pipeline* reduce_ = nullptr;
  const Pipeline* scan_ = nullptr;
  Buffer partials_, carries_;
};

// Device-wide add reduction: writes sum(in[0..count)) to out[0].
class DeviceReduce {
 public:
  DeviceReduce(Context& ctx, uint32_t count, DType dtype, const Options& options = {});
  void record(Recorder& recorder, const Buffer& in, Buffer& out) const;
  Build build() const { return build_; }

 private:
  Context& ctx_;
  uint32_t count_;
  DType dtype_;
  Build build_;
  uint32_t workgroup_size_;
  uint32_t partition_size_ = 0, partitions_ = 0;
  const Pipeline* reduce_ = nullptr;
  Buffer partials_;
};

// One-shot forms: record, submit, wait. Return the build that ran.
Build exclusive_scan(Context& ctx, const Buffer& in, Buffer& out, uint32_t count, DType dtype,
                     const Options& options = {});
Build reduce(Context& ctx, const Buffer& in, Buffer& out, uint32_t count, DType dtype,
             const Options& options = {});

// ---------------------------------------------------------------------------------------------------------
// The subgroup matmul (ladder rung 11) in a given build: hw is the ladder's entry, emu a copy that runs the
// emulated module and needs no subgroup operations. GemmLaunch takes either.
const kernels::GemmKernel& subgroup_gemm_kernel(Build build);
// The build the subgroup matmul uses on `device` (hw needs basic + shuffle and a subgroup size % 8 == 0).
Build choose_gemm_build(const DeviceInfo& device, const Options& options = {});

// ---------------------------------------------------------------------------------------------------------
// Test-facing: single subgroup operations (shaders/subgroup/sg_ops.comp). Numbering matches the shader.
enum class Op : uint32_t {
  Shuffle = 0,
  Broadcast,
  BroadcastFirst,
  Elect,
  All,
  Any,
  Add,
  Mul,
  Min,
  Max,
  InclusiveAdd,
  ExclusiveAdd,
  InclusiveMul,
  ExclusiveMul,
  InclusiveMin,
  ExclusiveMin,
  InclusiveMax,
  ExclusiveMax,
  Ballot,
  ShuffleVec4,
};
constexpr uint32_t kOpCount = 20;
const char* op_name(Op op);
// The subgroup feature flags the hw build of `op` needs.
VkSubgroupFeatureFlags required_ops(Op op);

enum class OpType { U32, I32, F32 };
const char* op_type_name(OpType type);

struct OpRun {
  Op op = Op::Add;
  OpType type = OpType::U32;
  Build build = Build::Hardware;
  uint32_t workgroup_size = 64;  // 1..256 (emu ballot: ..128; hw: a multiple of the subgroup size)
  uint32_t broadcast_lane = 0;   // Broadcast: lane = broadcast_lane % subgroup size
};

// Runs one operation over values.size() invocations (a multiple of workgroup_size). Invocation i of a
// workgroup is logical lane (subgroup id, subgroup invocation id), so consecutive runs of the subgroup size
// form one subgroup. values: 32-bit patterns of `type`; args: per invocation, bit 0 is the predicate of
// All/Any/Ballot and args % subgroup size the source lane of Shuffle. Returns 4 words per invocation: the
// result bits in word 0 (Ballot: the 4 ballot words; ShuffleVec4: the shuffled vec4(value, float(i),
// float(args[i]), -float(i)) of the source lane). Throws UnsupportedError when the hw build lacks the ops,
// InvalidArgument on bad sizes.
std::vector<uint32_t> run_op(Context& ctx, const OpRun& run, std::span<const uint32_t> values,
                             std::span<const uint32_t> args);

}  // namespace vkgemm::subgroup
