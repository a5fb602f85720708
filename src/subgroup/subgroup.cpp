#include "subgroup/subgroup.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "kernels/embedded.hpp"

namespace vkgemm::subgroup {

namespace {

// Upper bound of the workgroup size the modules were built for (SG_MAX_WORKGROUP_SIZE).
constexpr uint32_t kMaxWorkgroupSize = 256;
constexpr uint32_t kMaxEmulatedBallotWorkgroupSize = 128;
// Elements per invocation per tile in scan.comp (ITEMS).
constexpr uint32_t kScanItems = 4;
// At most this many partitions (workgroups) per pass: enough to fill a large GPU, few enough for one
// workgroup to scan the partition sums.
constexpr uint32_t kMaxPartitions = 1024;
constexpr uint32_t kMaxCount = 1u << 30;

constexpr VkSubgroupFeatureFlags kScanOps =
    VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT;
constexpr VkSubgroupFeatureFlags kReduceOps =
    VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
constexpr VkSubgroupFeatureFlags kGemmOps = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;

uint32_t ceil_div(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>((a + b - 1) / b);
}

void check_workgroup_size(uint32_t workgroup_size, uint32_t max) {
  if (workgroup_size == 0 || workgroup_size > max)
    throw InvalidArgument("subgroup kernels: workgroup size must be 1.." + std::to_string(max) + " (got " +
                          std::to_string(workgroup_size) + ")");
}

const Pipeline& make_pipeline(Context& ctx, const std::string& module, uint32_t bindings, uint32_t push_bytes,
                              uint32_t workgroup_size) {
  PipelineDesc desc;
  desc.spirv = kernels::embedded_spirv(module);
  desc.debug_name = module;
  for (uint32_t b = 0; b < bindings; ++b) desc.bindings.push_back({0, b, BindingKind::StorageBuffer});
  desc.push_constant_bytes = push_bytes;
  desc.specialization = {{0, workgroup_size}};
  return ctx.pipeline(desc);
}

std::string module_name(const char* kernel, Build build, const char* type) {
  return std::string("sg_") + kernel + "_" + build_name(build) + "_" + type;
}

void check_buffer(const Buffer& buffer, uint64_t bytes, const char* what) {
  if (!buffer) throw InvalidArgument(std::string("subgroup: ") + what + " has no buffer");
  if (buffer.size() < bytes)
    throw InvalidArgument(std::string("subgroup: ") + what + " needs " + std::to_string(bytes) +
                          " bytes, buffer has " + std::to_string(buffer.size()));
}

// Partitioning shared by scan and reduce: partitions of whole tiles, at most kMaxPartitions of them.
struct Plan {
  uint32_t partition_size = 0;
  uint32_t partitions = 0;
};

Plan plan(uint32_t count, uint32_t tile) {
  Plan p;
  if (count == 0) return p;
  uint32_t tiles = ceil_div(count, tile);
  uint32_t tiles_per_partition = ceil_div(tiles, kMaxPartitions);
  p.partition_size = tiles_per_partition * tile;
  p.partitions = ceil_div(count, p.partition_size);
  return p;
}

void check_count(const Context& ctx, uint32_t count) {
  if (count > kMaxCount)
    throw InvalidArgument("subgroup scan/reduce: at most 2^30 elements (got " + std::to_string(count) + ")");
  if (uint64_t(count) * 4 > ctx.info().max_storage_buffer_range)
    throw UnsupportedError("subgroup scan/reduce: " + std::to_string(count) + " elements need " +
                           std::to_string(uint64_t(count) * 4) + " bytes in one binding, but " +
                           ctx.info().name + " allows " +
                           std::to_string(ctx.info().max_storage_buffer_range) + " (maxStorageBufferRange)");
}

struct ReducePush {
  uint32_t n, partition_size;
};
struct ScanPush {
  uint32_t n, partition_size, has_carry;
};

BufferBinding bind(uint32_t binding, const Buffer& buffer, uint32_t count) {
  return {0, binding, &buffer, 0, VkDeviceSize(std::max<uint32_t>(count, 1)) * 4};
}

}  // namespace

const char* build_name(Build build) {
  return build == Build::Hardware ? "hw" : "emu";
}
const char* dtype_name(DType dtype) {
  return dtype == DType::U32 ? "u32" : "f32";
}

bool emulation_forced_by_environment() {
  const char* v = std::getenv("VKGEMM_FORCE_SUBGROUP_EMULATION");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

Build choose_build(const DeviceInfo& device, VkSubgroupFeatureFlags ops, uint32_t workgroup_size,
                   const Options& options, uint32_t subgroup_size_multiple) {
  if (options.force_emulation || emulation_forced_by_environment()) return Build::Emulated;
  if (!device.has_subgroup_ops(ops)) return Build::Emulated;
  uint32_t s = device.subgroup_size;
  if (s == 0 || workgroup_size % s != 0 || s % subgroup_size_multiple != 0) return Build::Emulated;
  return Build::Hardware;
}

uint32_t effective_subgroup_size(const DeviceInfo& device, Build build, uint32_t workgroup_size) {
  return build == Build::Hardware ? device.subgroup_size : workgroup_size;
}

// ------------------------------------------------------------------------------------------------ scan
DeviceScan::DeviceScan(Context& ctx, uint32_t count, DType dtype, const Options& options)
    : ctx_(ctx), count_(count), dtype_(dtype), workgroup_size_(options.workgroup_size) {
  check_workgroup_size(workgroup_size_, kMaxWorkgroupSize);
  check_count(ctx, count);
  build_ = choose_build(ctx.info(), kScanOps, workgroup_size_, options);
  Plan p = plan(count, workgroup_size_ * kScanItems);
  partition_size_ = p.partition_size;
  partitions_ = p.partitions;
  reduce_ = &make_pipeline(ctx, module_name("reduce", build_, dtype_name(dtype)), 2, sizeof(ReducePush),
                           workgroup_size_);
  scan_ = &make_pipeline(ctx, module_name("scan", build_, dtype_name(dtype)), 3, sizeof(ScanPush),
                         workgroup_size_);
  if (partitions_ > 1) {
    partials_ = ctx.create_buffer(size_t(partitions_) * 4);
    carries_ = ctx.create_buffer(size_t(partitions_) * 4);
  }
}

void DeviceScan::record(Recorder& recorder, const Buffer& in, Buffer& out) const {
  check_buffer(in, uint64_t(count_) * 4, "scan input");
  check_buffer(out, uint64_t(count_) * 4, "scan output");
  if (in.handle() == out.handle()) throw InvalidArgument("subgroup scan: output may not alias the input");
  if (count_ == 0) return;
  if (partitions_ == 1) {
    // One workgroup scans everything; the carry binding is unused (has_carry = 0).
    ScanPush push{count_, count_, 0};
    recorder.dispatch(*scan_, {bind(0, in, count_), bind(1, out, count_), bind(2, in, 1)}, {1, 1, 1}, &push,
                      sizeof(push));
    return;
  }
  ReducePush reduce_push{count_, partition_size_};
  recorder.dispatch(*reduce_, {bind(0, in, count_), bind(1, partials_, partitions_)}, {partitions_, 1, 1},
                    &reduce_push, sizeof(reduce_push));
  recorder.barrier();
  ScanPush partials_push{partitions_, partitions_, 0};
  recorder.dispatch(*scan_,
                    {bind(0, partials_, partitions_), bind(1, carries_, partitions_), bind(2, partials_, 1)},
                    {1, 1, 1}, &partials_push, sizeof(partials_push));
  recorder.barrier();
  ScanPush scan_push{count_, partition_size_, 1};
  recorder.dispatch(*scan_, {bind(0, in, count_), bind(1, out, count_), bind(2, carries_, partitions_)},
                    {partitions_, 1, 1}, &scan_push, sizeof(scan_push));
}

// ---------------------------------------------------------------------------------------------- reduce
DeviceReduce::DeviceReduce(Context& ctx, uint32_t count, DType dtype, const Options& options)
    : ctx_(ctx), count_(count), dtype_(dtype), workgroup_size_(options.workgroup_size) {
  check_workgroup_size(workgroup_size_, kMaxWorkgroupSize);
  check_count(ctx, count);
  build_ = choose_build(ctx.info(), kReduceOps, workgroup_size_, options);
  Plan p = plan(count, workgroup_size_ * kScanItems);
  partition_size_ = p.partition_size;
  partitions_ = p.partitions;
  reduce_ = &make_pipeline(ctx, module_name("reduce", build_, dtype_name(dtype)), 2, sizeof(ReducePush),
                           workgroup_size_);
  if (partitions_ > 1) partials_ = ctx.create_buffer(size_t(partitions_) * 4);
}

void DeviceReduce::record(Recorder& recorder, const Buffer& in, Buffer& out) const {
  check_buffer(in, uint64_t(std::max<uint32_t>(count_, 1)) * 4, "reduce input");
  check_buffer(out, 4, "reduce output");
  if (partitions_ <= 1) {
    // Also covers count == 0: one workgroup writes the empty sum.
    ReducePush push{count_, count_};
    recorder.dispatch(*reduce_, {bind(0, in, count_), bind(1, out, 1)}, {1, 1, 1}, &push, sizeof(push));
    return;
  }
  ReducePush push{count_, partition_size_};
  recorder.dispatch(*reduce_, {bind(0, in, count_), bind(1, partials_, partitions_)}, {partitions_, 1, 1},
                    &push, sizeof(push));
  recorder.barrier();
  ReducePush final_push{partitions_, partitions_};
  recorder.dispatch(*reduce_, {bind(0, partials_, partitions_), bind(1, out, 1)}, {1, 1, 1}, &final_push,
                    sizeof(final_push));
}

Build exclusive_scan(Context& ctx, const Buffer& in, Buffer& out, uint32_t count, DType dtype,
                     const Options& options) {
  DeviceScan scan(ctx, count, dtype, options);
  Recorder recorder(ctx);
  scan.record(recorder, in, out);
  recorder.run();
  return scan.build();
}

Build reduce(Context& ctx, const Buffer& in, Buffer& out, uint32_t count, DType dtype,
             const Options& options) {
  DeviceReduce r(ctx, count, dtype, options);
  Recorder recorder(ctx);
  r.record(recorder, in, out);
  recorder.run();
  return r.build();
}

// ------------------------------------------------------------------------------------------------ gemm
const kernels::GemmKernel& subgroup_gemm_kernel(Build build) {
  const kernels::GemmKernel& hw = kernels::find_gemm_kernel("11");
  if (build == Build::Hardware) return hw;
  static const kernels::GemmKernel emu = [&] {
    kernels::GemmKernel k = hw;
    k.name = hw.name + "_emu";
    k.title = hw.title + " (workgroup-memory emulation)";
    k.spirv = "sg_gemm_emu";
    k.subgroup_ops = 0;
    k.subgroup_size_multiple = 1;
    return k;
  }();
  return emu;
}

Build choose_gemm_build(const DeviceInfo& device, const Options& options) {
  const kernels::GemmKernel& hw = subgroup_gemm_kernel(Build::Hardware);
  return choose_build(device, kGemmOps, 256, options, hw.subgroup_size_multiple);
}

// ------------------------------------------------------------------------------------------- single ops
const char* op_name(Op op) {
  static const char* const names[kOpCount] = {"Shuffle",      "Broadcast",    "BroadcastFirst",
                                              "Elect",        "All",          "Any",
                                              "Add",          "Mul",          "Min",
                                              "Max",          "InclusiveAdd", "ExclusiveAdd",
                                              "InclusiveMul", "ExclusiveMul", "InclusiveMin",
                                              "ExclusiveMin", "InclusiveMax", "ExclusiveMax",
                                              "Ballot",       "ShuffleVec4"};
  auto i = static_cast<uint32_t>(op);
  return i < kOpCount ? names[i] : "?";
}

VkSubgroupFeatureFlags required_ops(Op op) {
  VkSubgroupFeatureFlags basic = VK_SUBGROUP_FEATURE_BASIC_BIT;
  switch (op) {
    case Op::Shuffle:
    case Op::ShuffleVec4:
      return basic | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    case Op::Broadcast:
    case Op::BroadcastFirst:
    case Op::Ballot:
      return basic | VK_SUBGROUP_FEATURE_BALLOT_BIT;
    case Op::Elect:
      return basic;
    case Op::All:
    case Op::Any:
      return basic | VK_SUBGROUP_FEATURE_VOTE_BIT;
    default:
      return basic | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  }
}

const char* op_type_name(OpType type) {
  switch (type) {
    case OpType::U32:
      return "u32";
    case OpType::I32:
      return "i32";
    case OpType::F32:
      return "f32";
  }
  return "?";
}

std::vector<uint32_t> run_op(Context& ctx, const OpRun& run, std::span<const uint32_t> values,
                             std::span<const uint32_t> args) {
  if (static_cast<uint32_t>(run.op) >= kOpCount) throw InvalidArgument("run_op: unknown operation");
  uint32_t wg = run.workgroup_size;
  std::string module;
  if (run.build == Build::Hardware) {
    check_workgroup_size(wg, kMaxWorkgroupSize);
    const DeviceInfo& info = ctx.info();
    if (!info.has_subgroup_ops(required_ops(run.op)))
      throw UnsupportedError(info.name + " lacks the subgroup operations for " + op_name(run.op) +
                             " in compute shaders (has: " + info.subgroup_ops_string() + ")");
    if (info.subgroup_size == 0 || wg % info.subgroup_size != 0)
      throw InvalidArgument("run_op: hw workgroup size " + std::to_string(wg) +
                            " is not a multiple of the subgroup size " + std::to_string(info.subgroup_size));
    module = std::string("sg_ops_hw_") + op_type_name(run.type);
  } else if (run.op == Op::Ballot) {
    // The emulated ballot's uvec4 holds 128 bits: only the module built for <= 128 invocations has it.
    check_workgroup_size(wg, kMaxEmulatedBallotWorkgroupSize);
    if (run.type != OpType::U32) throw InvalidArgument("run_op: emulated Ballot is built for u32 only");
    module = "sg_ops_emu128_u32";
  } else {
    check_workgroup_size(wg, kMaxWorkgroupSize);
    module = std::string("sg_ops_emu_") + op_type_name(run.type);
  }
  if (values.empty() || values.size() % wg != 0 || args.size() != values.size())
    throw InvalidArgument(
        "run_op: values and args must have the same, non-zero multiple of the workgroup size");
  size_t n = values.size();
  Buffer in = ctx.create_buffer(n * 4), arg_buffer = ctx.create_buffer(n * 4),
         out = ctx.create_buffer(n * 16);
  ctx.upload(in, values.data(), n * 4);
  ctx.upload(arg_buffer, args.data(), n * 4);
  const uint32_t push[2] = {static_cast<uint32_t>(run.op), run.broadcast_lane};
  const Pipeline& pipeline = make_pipeline(ctx, module, 3, sizeof(push), wg);
  Recorder recorder(ctx);
  recorder.dispatch(pipeline, {{0, 0, &in}, {0, 1, &arg_buffer}, {0, 2, &out}},
                    {static_cast<uint32_t>(n / wg), 1, 1}, push, sizeof(push));
  recorder.run();
  return ctx.download<uint32_t>(out, n * 4);
}

}  // namespace vkgemm::subgroup
