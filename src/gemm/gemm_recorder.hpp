#pragma once
// Records several GEMM-library operations into one submission. Operations are validated and queued when
// they are called (so a bad argument throws before anything is recorded); submit() then records them all into
// one command buffer - the kernels' uniform blocks are uploaded by one copy at its start - and returns
// without waiting; wait() blocks until the GPU is done. Barriers go only where a later operation touches a
// buffer an earlier one wrote (or writes one it read), so independent operations may overlap.
//
// Every tensor passed to an operation must stay alive until wait() returns (or the recorder is destroyed).
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "gemm/tensor.hpp"
#include "runtime/recorder.hpp"

namespace vkgemm {

// One kernel dispatch, fully described: storage bindings 0..n-1 in order, then the uniform block at binding
// n.
struct KernelCall {
  struct Operand {
    const Buffer* buffer = nullptr;
    bool written = false;
  };
  std::string kernel;                // embedded SPIR-V module name, e.g. "istanbul_matmul"
  std::vector<Operand> operands;     // storage buffers, binding order
  std::array<uint32_t, 8> params{};  // uniform block: uvec4 dims + vec4 scalars (bit patterns)
  std::array<uint32_t, 3> groups{1, 1, 1};
};

class GemmRecorder {
 public:
  explicit GemmRecorder(Context& ctx);
  ~GemmRecorder();
  GemmRecorder(const GemmRecorder&) = delete;
  GemmRecorder& operator=(const GemmRecorder&) = delete;

  Context& context() const { return ctx_; }

  // Queues a dispatch (creates its pipeline now; throws InvalidArgument if already submitted).
  void enqueue(const KernelCall& call);
  // Queues a device copy of src into dst (same shape and dtype).
  void copy(const Tensor& src, Tensor& dst);
  // Queues a GPU timestamp after all earlier work; returns its index for elapsed_ms.
  uint32_t timestamp();
  // A tensor owned by the recorder (alive until it is destroyed), for intermediates.
  Tensor& scratch(uint32_t rows, uint32_t cols, DType dtype = DType::f32);

  // Records everything queued into one command buffer and submits it; does not wait.
  void submit();
  // Waits for the submission (throws InvalidArgument if nothing was submitted).
  void wait();
  void run() {
    submit();
    wait();
  }
  bool submitted() const { return recorder_ != nullptr; }
  // GPU milliseconds between two timestamps (after wait()).
  double elapsed_ms(uint32_t from, uint32_t to) const;

  // The kernels queued so far, in order (which kernel an operation chose is visible here).
  const std::vector<std::string>& kernels() const { return kernel_names_; }
  size_t barrier_count() const { return barriers_; }

 private:
  struct Command {
    enum class Kind { Dispatch, Copy, Timestamp } kind = Kind::Dispatch;
    const Pipeline* pipeline = nullptr;
    std::vector<KernelCall::Operand> operands;
    std::array<uint32_t, 3> groups{};
    size_t param_slot = 0;
    const Buffer* src = nullptr;
    Buffer* dst = nullptr;
    VkDeviceSize bytes = 0;
  };
  void check_recording(const char* what) const;

  Context& ctx_;
  std::vector<Command> commands_;
  std::vector<std::array<uint32_t, 8>> params_;
  std::vector<std::string> kernel_names_;
  uint32_t timestamps_ = 0;
  size_t barriers_ = 0;
  std::deque<Tensor> scratch_;
  Buffer params_staging_, params_uniform_;
  std::unique_ptr<Recorder> recorder_;
};

}  // namespace vkgemm
