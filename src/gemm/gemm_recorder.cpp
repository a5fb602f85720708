#include "gemm/gemm_recorder.hpp"

#include <algorithm>
#include <cstring>
#include <set>

#include "kernels/embedded.hpp"

namespace vkgemm {

namespace {
// Uniform blocks are packed at this stride: the largest minUniformBufferOffsetAlignment Vulkan allows.
constexpr VkDeviceSize kParamStride = 256;
}  // namespace

GemmRecorder::GemmRecorder(Context& ctx) : ctx_(ctx) {}

GemmRecorder::~GemmRecorder() = default;  // ~Recorder waits for a pending submission

void GemmRecorder::check_recording(const char* what) const {
  if (recorder_) throw InvalidArgument(std::string(what) + ": this GemmRecorder was already submitted");
}

void GemmRecorder::enqueue(const KernelCall& call) {
  check_recording(call.kernel.c_str());
  PipelineDesc desc;
  desc.spirv = kernels::embedded_spirv(call.kernel);
  desc.debug_name = call.kernel;
  uint32_t n = static_cast<uint32_t>(call.operands.size());
  for (uint32_t i = 0; i < n; ++i) {
    if (!call.operands[i].buffer || !*call.operands[i].buffer)
      throw InvalidArgument(call.kernel + ": operand at binding " + std::to_string(i) + " has no buffer");
    desc.bindings.push_back({0, i, BindingKind::StorageBuffer});
  }
  desc.bindings.push_back({0, n, BindingKind::UniformBuffer});
  for (int i = 0; i < 3; ++i)
    if (call.groups[i] == 0 || call.groups[i] > ctx_.info().max_workgroup_count[i])
      throw InvalidArgument(call.kernel + ": " + std::to_string(call.groups[i]) + " workgroups along " +
                            "xyz"[i] + " is outside the device's range 1.." +
                            std::to_string(ctx_.info().max_workgroup_count[i]));
  Command c;
  c.kind = Command::Kind::Dispatch;
  c.pipeline = &ctx_.pipeline(desc);
  c.operands = call.operands;
  c.groups = call.groups;
  c.param_slot = params_.size();
  params_.push_back(call.params);
  commands_.push_back(std::move(c));
  kernel_names_.push_back(call.kernel);
}

void GemmRecorder::copy(const Tensor& src, Tensor& dst) {
  check_recording("copy");
  if (!src || !dst) throw InvalidArgument("copy: source or destination tensor is unallocated");
  if (src.rows() != dst.rows() || src.cols() != dst.cols() || src.dtype() != dst.dtype())
    throw InvalidArgument("copy: source (" + src.shape_string() + ") and destination (" + dst.shape_string() +
                          ") differ");
  Command c;
  c.kind = Command::Kind::Copy;
  c.src = &src.buffer();
  c.dst = &dst.buffer();
  c.bytes = std::min(src.buffer().size(), dst.buffer().size());
  c.operands = {{c.src, false}, {c.dst, true}};
  commands_.push_back(std::move(c));
}

uint32_t GemmRecorder::timestamp() {
  check_recording("timestamp");
  if (ctx_.info().timestamp_valid_bits == 0)
    throw UnsupportedError(ctx_.info().name + " has no timestamp support on its compute queue");
  Command c;
  c.kind = Command::Kind::Timestamp;
  commands_.push_back(std::move(c));
  return timestamps_++;
}

Tensor& GemmRecorder::scratch(uint32_t rows, uint32_t cols, DType dtype) {
  scratch_.emplace_back(ctx_, rows, cols, dtype);
  return scratch_.back();
}

void GemmRecorder::submit() {
  check_recording("submit");
  auto rec = std::make_unique<Recorder>(ctx_, timestamps_);
  if (!params_.empty()) {
    VkDeviceSize bytes = kParamStride * params_.size();
    params_staging_ = ctx_.create_buffer(bytes, BufferUsage::Staging);
    params_uniform_ = ctx_.create_buffer(bytes, BufferUsage::Uniform);
    auto* dst = static_cast<uint8_t*>(params_staging_.mapped());
    std::memset(dst, 0, bytes);
    for (size_t i = 0; i < params_.size(); ++i)
      std::memcpy(dst + i * kParamStride, params_[i].data(), sizeof(params_[i]));
    rec->copy(params_staging_, params_uniform_, bytes);
    rec->barrier();
    ++barriers_;
  }
  // Hazard tracking since the last barrier: read-after-write, write-after-write and write-after-read.
  std::set<VkBuffer> written, read;
  for (const Command& c : commands_) {
    if (c.kind == Command::Kind::Timestamp) {
      rec->timestamp();
      continue;
    }
    bool hazard = false;
    for (const auto& op : c.operands) {
      VkBuffer h = op.buffer->handle();
      if (written.count(h) || (op.written && read.count(h))) hazard = true;
    }
    if (hazard) {
      rec->barrier();
      ++barriers_;
      written.clear();
      read.clear();
    }
    for (const auto& op : c.operands) (op.written ? written : read).insert(op.buffer->handle());
    if (c.kind == Command::Kind::Copy) {
      rec->copy(*c.src, *c.dst, c.bytes);
      continue;
    }
    std::vector<BufferBinding> bindings;
    uint32_t n = static_cast<uint32_t>(c.operands.size());
    for (uint32_t i = 0; i < n; ++i) bindings.push_back({0, i, c.operands[i].buffer});
    bindings.push_back({0, n, &params_uniform_, kParamStride * c.param_slot, 32});
    rec->dispatch(*c.pipeline, bindings, c.groups);
  }
  rec->submit();
  recorder_ = std::move(rec);
}

void GemmRecorder::wait() {
  if (!recorder_) throw InvalidArgument("wait: nothing was submitted");
  recorder_->wait();
}

double GemmRecorder::elapsed_ms(uint32_t from, uint32_t to) const {
  if (!recorder_) throw InvalidArgument("elapsed_ms: nothing was submitted");
  return recorder_->elapsed_ms(from, to);
}

}  // namespace vkgemm
