#include "gemm/gemm.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace vkgemm {

namespace {

constexpr uint32_t kTile = 64;
// gemm() switches plain f32 products with at least this many outputs to the 128x128-tile kernel.
constexpr uint64_t kLargeTileMinOutputs = uint64_t(2048) * 2048;
constexpr uint32_t kFlagTransA = 1, kFlagTransB = 2, kFlagBias = 4, kFlagResidual = 8;

uint32_t ceil_div(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>((uint64_t(a) + b - 1) / b);
}

std::string named(const std::string& name, const Tensor& t) {
  return name + " (" + (t ? t.shape_string() : std::string("unallocated")) + ")";
}

// The operand names an operation uses in its messages ("A", "B", "C" for gemm; "dY", "W", "dX" for matmul_t).
struct Names {
  std::string a, b, c, up = "UP";
};

struct Checker {
  std::string op;
  [[noreturn]] void fail(const std::string& what) const { throw InvalidArgument(op + ": " + what); }
  void allocated(const std::string& name, const Tensor& t) const {
    if (!t) fail(name + " is an unallocated tensor");
  }
  void f32(const std::string& name, const Tensor& t, const char* why) const {
    allocated(name, t);
    if (t.dtype() != DType::f32) fail(named(name, t) + " must be f32 (" + why + ")");
  }
  void shape(const std::string& name, const Tensor& t, uint32_t rows, uint32_t cols,
             const std::string& why) const {
    allocated(name, t);
    if (t.rows() != rows || t.cols() != cols)
      fail(named(name, t) + " must be " + std::to_string(rows) + "x" + std::to_string(cols) + " (" + why +
           ")");
  }
  void distinct(const std::string& out_name, const Tensor& out, const std::string& in_name,
                const Tensor& in) const {
    if (out.buffer().handle() == in.buffer().handle())
      fail("output " + out_name + " must not be the same tensor as input " + in_name +
           " (other workgroups still read it)");
  }
  void device_supports(const Context& ctx, const std::string& name, const Tensor& t) const {
    if (auto why = dtype_unsupported_reason(ctx.info(), t.dtype()))
      throw UnsupportedError(op + ": " + named(name, t) + ": " + *why);
  }
  // The kernels index with 32 bits and the grid is (ceil(N/64), ceil(M/64)).
  void fits(const Context& ctx, uint32_t m, uint32_t n, uint32_t k) const {
    if (uint64_t(m) * n > UINT32_MAX || uint64_t(m) * k > UINT32_MAX || uint64_t(k) * n > UINT32_MAX)
      fail("operands with 2^32 or more elements are not supported (32-bit indexing), M=" + std::to_string(m) +
           " N=" + std::to_string(n) + " K=" + std::to_string(k));
    const auto& lim = ctx.info().max_workgroup_count;
    if (ceil_div(n, kTile) > lim[0] || ceil_div(m, kTile) > lim[1])
      fail("M=" + std::to_string(m) + " N=" + std::to_string(n) + " needs a grid of " +
           std::to_string(ceil_div(n, kTile)) + "x" + std::to_string(ceil_div(m, kTile)) +
           " workgroups, over the device's maxComputeWorkGroupCount");
  }
};

void set_params(KernelCall& call, uint32_t m, uint32_t n, uint32_t k, uint32_t flags, float alpha,
                float beta) {
  call.params = {m, n, k, flags, std::bit_cast<uint32_t>(alpha), std::bit_cast<uint32_t>(beta), 0, 0};
}

// Plans one matmul-family dispatch: C = alpha * op(A) @ op(B) + beta * C + bias + residual, where A is either
// a tensor or silu(GATE) * UP (up != nullptr; `a` is then GATE). Validates everything and picks the kernel.
KernelCall plan_matmul(const Context& ctx, const std::string& op, const Names& names, const Tensor& a,
                       const Tensor* up, const Tensor& b, const Tensor& c, const GemmOptions& o) {
  Checker chk{op};
  const char* why_f32 = "only the weight operand may be f16";
  chk.f32(names.a, a, why_f32);
  if (up) {
    chk.f32(names.up, *up, why_f32);
    if (up->rows() != a.rows() || up->cols() != a.cols())
      chk.fail(named(names.a, a) + " and " + named(names.up, *up) + " must have the same shape");
  }
  chk.allocated(names.b, b);
  chk.device_supports(ctx, names.b, b);
  chk.f32(names.c, c, "outputs are f32");

  uint32_t m = o.transpose_a ? a.cols() : a.rows();
  uint32_t k = o.transpose_a ? a.rows() : a.cols();
  uint32_t kb = o.transpose_b ? b.cols() : b.rows();
  uint32_t n = o.transpose_b ? b.rows() : b.cols();
  std::string a_desc = up ? "silu(" + named(names.a, a) + ") * " + names.up : named(names.a, a);
  if (k != kb)
    chk.fail("inner dimensions differ: " + std::string(o.transpose_a ? "op(A) = A^T" : "op(A) = A") + " is " +
             std::to_string(m) + "x" + std::to_string(k) + " with A = " + a_desc + ", but " +
             (o.transpose_b ? "op(B) = B^T" : "op(B) = B") + " is " + std::to_string(kb) + "x" +
             std::to_string(n) + " with B = " + named(names.b, b));
  chk.shape(names.c, c, m, n, "the product is " + std::to_string(m) + "x" + std::to_string(n));
  chk.distinct(names.c, c, names.a, a);
  if (up) chk.distinct(names.c, c, names.up, *up);
  chk.distinct(names.c, c, names.b, b);
  if (o.bias) {
    chk.f32("bias", *o.bias, "epilogue operands are f32");
    chk.shape("bias", *o.bias, 1, n, "one value per output column");
    chk.distinct(names.c, c, "bias", *o.bias);
  }
  if (o.residual) {
    chk.f32("residual", *o.residual, "epilogue operands are f32");
    chk.shape("residual", *o.residual, m, n, "same shape as " + names.c);
  }
  chk.fits(ctx, m, n, k);

  const bool w16 = b.dtype() == DType::f16;
  const bool plain = o.alpha == 1.0f && !o.bias;
  const bool acc = o.beta == 1.0f;
  std::string kernel;
  KernelCall call;
  auto in = [](const Tensor& t) { return KernelCall::Operand{&t.buffer(), false}; };
  auto out = KernelCall::Operand{&c.buffer(), true};
  std::vector<KernelCall::Operand> a_ops = {in(a)};
  if (up) a_ops.push_back(in(*up));

  if (plain && !o.transpose_a && !o.transpose_b && k % 4 == 0 && n % 4 == 0 && o.beta == 0.0f &&
      (o.residual || !up)) {
    // Forward: matmul / matmul_residual / matmul_residual_swiglu_a (+ _w16).
    kernel = up ? "matmul_residual_swiglu_a" : o.residual ? "matmul_residual" : "matmul";
    if (w16) kernel += "_w16";
    call.operands = a_ops;
    call.operands.push_back(in(b));
    if (o.residual) call.operands.push_back(in(*o.residual));
    call.operands.push_back(out);
  } else if (plain && !up && !w16 && !o.transpose_a && o.transpose_b && k % 4 == 0 && !o.residual &&
             (o.beta == 0.0f || acc)) {
    kernel = acc ? "matmul_t_acc" : "matmul_t";
    call.operands = {in(a), in(b), out};
  } else if (plain && !w16 && o.transpose_a && !o.transpose_b && m % 4 == 0 && n % 4 == 0 && !o.residual &&
             (o.beta == 0.0f || acc)) {
    kernel = std::string(acc ? "matmul_at_acc" : "matmul_at") + (up ? "_swiglu_a" : "");
    call.operands = a_ops;
    call.operands.push_back(in(b));
    call.operands.push_back(out);
  } else {
    kernel = std::string("gemm_general") + (up ? "_swiglu_a" : "") + (w16 ? "_w16" : "");
    call.operands = a_ops;
    call.operands.push_back(in(b));
    // Absent epilogue operands are bound to A (never read: the flags say so).
    call.operands.push_back(in(o.residual ? *o.residual : a));
    call.operands.push_back(in(o.bias ? *o.bias : a));
    call.operands.push_back(out);
  }
  uint32_t flags = (o.transpose_a ? kFlagTransA : 0) | (o.transpose_b ? kFlagTransB : 0) |
                   (o.bias ? kFlagBias : 0) | (o.residual ? kFlagResidual : 0);
  call.kernel = "istanbul_" + kernel;
  set_params(call, m, n, k, flags, o.alpha, o.beta);
  call.groups = {ceil_div(n, kTile), ceil_div(m, kTile), 1};
  return call;
}

// Grid-stride element-wise kernels: one element per thread up to 4096 workgroups (about a million threads,
// enough to fill a GPU), more elements per thread beyond that.
std::array<uint32_t, 3> elementwise_groups(const Context& ctx, uint64_t count) {
  uint64_t groups = std::min<uint64_t>({(count + 255) / 256, 4096, ctx.info().max_workgroup_count[0]});
  return {static_cast<uint32_t>(groups), 1, 1};
}

KernelCall plan_swiglu(const Context& ctx, const Tensor& gate, const Tensor& up, const Tensor& hidden) {
  Checker chk{"swiglu"};
  chk.f32("GATE", gate, "element-wise kernels are f32");
  chk.f32("UP", up, "element-wise kernels are f32");
  chk.f32("H", hidden, "element-wise kernels are f32");
  std::string why = "same shape as GATE (" + gate.shape_string() + ")";
  chk.shape("UP", up, gate.rows(), gate.cols(), why);
  chk.shape("H", hidden, gate.rows(), gate.cols(), why);
  chk.distinct("H", hidden, "GATE", gate);
  chk.distinct("H", hidden, "UP", up);
  chk.fits(ctx, gate.rows(), gate.cols(), 1);
  KernelCall call;
  call.kernel = "istanbul_swiglu";
  call.operands = {{&gate.buffer(), false}, {&up.buffer(), false}, {&hidden.buffer(), true}};
  set_params(call, gate.rows(), gate.cols(), 0, 0, 0, 0);
  call.groups = elementwise_groups(ctx, gate.elements());
  return call;
}

KernelCall plan_swiglu_backward(const Context& ctx, const Tensor& gate, const Tensor& up, const Tensor& dh,
                                const Tensor& dgate, const Tensor& dup) {
  Checker chk{"swiglu_backward"};
  for (auto [name, t] : {std::pair<const char*, const Tensor*>{"GATE", &gate},
                         {"UP", &up},
                         {"dH", &dh},
                         {"dGATE", &dgate},
                         {"dUP", &dup}}) {
    chk.f32(name, *t, "element-wise kernels are f32");
    chk.shape(name, *t, gate.rows(), gate.cols(),
              std::string("same shape as GATE (") + gate.shape_string() + ")");
  }
  for (auto [oname, o] : {std::pair<const char*, const Tensor*>{"dGATE", &dgate}, {"dUP", &dup}})
    for (auto [iname, i] : {std::pair<const char*, const Tensor*>{"GATE", &gate}, {"UP", &up}, {"dH", &dh}})
      chk.distinct(oname, *o, iname, *i);
  chk.distinct("dUP", dup, "dGATE", dgate);
  chk.fits(ctx, gate.rows(), gate.cols(), 1);
  KernelCall call;
  call.kernel = "istanbul_swiglu_backward";
  call.operands = {{&gate.buffer(), false},
                   {&up.buffer(), false},
                   {&dh.buffer(), false},
                   {&dgate.buffer(), true},
                   {&dup.buffer(), true}};
  set_params(call, gate.rows(), gate.cols(), 0, 0, 0, 0);
  call.groups = elementwise_groups(ctx, gate.elements());
  return call;
}

KernelCall plan_matmul_t(const Context& ctx, const Tensor& dy, const Tensor& w, const Tensor& dx,
                         bool accumulate) {
  GemmOptions o;
  o.transpose_b = true;
  o.beta = accumulate ? 1.0f : 0.0f;
  return plan_matmul(ctx, accumulate ? "matmul_t_acc" : "matmul_t", {"dY", "W", "dX"}, dy, nullptr, w, dx, o);
}

KernelCall plan_matmul_at(const Context& ctx, const Tensor& x, const Tensor& dy, const Tensor& dw,
                          bool accumulate) {
  GemmOptions o;
  o.transpose_a = true;
  o.beta = accumulate ? 1.0f : 0.0f;
  return plan_matmul(ctx, accumulate ? "matmul_at_acc" : "matmul_at", {"X", "dY", "dW"}, x, nullptr, dy, dw,
                     o);
}

KernelCall plan_matmul_at_swiglu_a(const Context& ctx, const Tensor& gate, const Tensor& up, const Tensor& dy,
                                   const Tensor& dw, bool accumulate) {
  GemmOptions o;
  o.transpose_a = true;
  o.beta = accumulate ? 1.0f : 0.0f;
  return plan_matmul(ctx, accumulate ? "matmul_at_acc_swiglu_a" : "matmul_at_swiglu_a", {"GATE", "dY", "dW"},
                     gate, &up, dy, dw, o);
}

void check_ffn_weights(const std::string& op, const Tensor& x, const FfnWeights& w) {
  Checker chk{op};
  if (!w.w_gate || !w.w_up || !w.w_down) chk.fail("FfnWeights needs w_gate, w_up and w_down");
  chk.allocated("X", x);
  chk.allocated("Wg", *w.w_gate);
  uint32_t d = x.cols(), f = w.w_gate->cols();
  chk.shape("Wg", *w.w_gate, d, f, "D x F with D = X.cols");
  chk.shape("Wu", *w.w_up, d, f, "same shape as Wg");
  chk.shape("Wd", *w.w_down, f, d, "F x D: the down projection back to X's width");
}

// gemm() = one kernel, or split-K: the partial kernel into a workspace of `splits` M x N slices + the
// reduction.
struct GemmPlan {
  KernelCall single;
  uint32_t splits = 1;
  KernelCall partial, reduce;  // operand 2 of partial and 0 of reduce: the workspace, bound at enqueue
};

GemmPlan plan_gemm(const Context& ctx, const Tensor& a, const Tensor& b, const Tensor& c,
                   const GemmOptions& o) {
  GemmPlan plan;
  plan.single = plan_matmul(ctx, "gemm", {"A", "B", "C"}, a, nullptr, b, c, o);
  const uint32_t m = plan.single.params[0], n = plan.single.params[1], k = plan.single.params[2];
  const uint32_t tiles = ceil_div(k, 16);
  const uint64_t groups = uint64_t(ceil_div(n, kTile)) * ceil_div(m, kTile);
  uint32_t splits = 1;
  if (o.split_k == 0) {
    // Too few output tiles for a large GPU and a long K: aim at ~512 workgroups, >= 512 of K per range.
    if (groups < 256 && tiles >= 64)
      splits = static_cast<uint32_t>(std::min<uint64_t>({(512 + groups - 1) / groups, tiles / 32, 16}));
  } else {
    splits = std::min(o.split_k, tiles);
  }
  splits = std::min(splits, ctx.info().max_workgroup_count[2]);
  while (splits > 1 && uint64_t(splits) * m * n > UINT32_MAX) --splits;  // 32-bit workspace indices
  if (splits > 1) splits = ceil_div(tiles, ceil_div(tiles, splits));     // no empty K range
  plan.splits = splits;
  if (splits == 1) {
    // Large plain f32 products: the ladder's 128x128-tile kernel (12) has the same operands and dims block
    // and measured 35 vs 22 TFLOP/s on an H200 from 2048^2 outputs up; below that its 4x fewer workgroups
    // lose.
    if (plan.single.kernel == "istanbul_matmul" && uint64_t(m) * n >= kLargeTileMinOutputs) {
      plan.single.kernel = "ladder_12_tile128_vec4";
      plan.single.groups = {ceil_div(n, 128), ceil_div(m, 128), 1};
    }
    return plan;
  }

  const bool w16 = b.dtype() == DType::f16;
  auto in = [](const Tensor& t) { return KernelCall::Operand{&t.buffer(), false}; };
  uint32_t trans = (o.transpose_a ? kFlagTransA : 0) | (o.transpose_b ? kFlagTransB : 0);
  // The partial products use the vec4 loaders where the layout constraints hold (the epilogue is the
  // reduction's).
  if (!w16 && !o.transpose_a && !o.transpose_b && k % 4 == 0 && n % 4 == 0)
    plan.partial.kernel = "istanbul_matmul_splitk";
  else if (!w16 && !o.transpose_a && o.transpose_b && k % 4 == 0)
    plan.partial.kernel = "istanbul_matmul_t_splitk";
  else if (!w16 && o.transpose_a && !o.transpose_b && m % 4 == 0 && n % 4 == 0)
    plan.partial.kernel = "istanbul_matmul_at_splitk";
  else
    plan.partial.kernel = w16 ? "istanbul_gemm_splitk_w16" : "istanbul_gemm_splitk";
  plan.partial.operands = {in(a), in(b), {nullptr, true}};
  set_params(plan.partial, m, n, k, trans, 1.0f, 0.0f);
  plan.partial.groups = {ceil_div(n, kTile), ceil_div(m, kTile), splits};
  plan.reduce.kernel = "istanbul_splitk_reduce";
  // Absent residual / bias are bound to the workspace too (never read: the flags say so).
  plan.reduce.operands = {{nullptr, false},
                          {o.residual ? &o.residual->buffer() : nullptr, false},
                          {o.bias ? &o.bias->buffer() : nullptr, false},
                          {&c.buffer(), true}};
  set_params(plan.reduce, m, n, splits, (o.bias ? kFlagBias : 0) | (o.residual ? kFlagResidual : 0), o.alpha,
             o.beta);
  plan.reduce.groups = elementwise_groups(ctx, uint64_t(m) * n);
  return plan;
}

}  // namespace

std::string gemm_kernel_name(const Context& ctx, const Tensor& a, const Tensor& b, const Tensor& c,
                             const GemmOptions& options) {
  GemmPlan plan = plan_gemm(ctx, a, b, c, options);
  return plan.splits > 1 ? plan.partial.kernel : plan.single.kernel;
}

void gemm(GemmRecorder& rec, const Tensor& a, const Tensor& b, Tensor& c, const GemmOptions& options) {
  GemmPlan plan = plan_gemm(rec.context(), a, b, c, options);
  if (plan.splits == 1) {
    rec.enqueue(plan.single);
    return;
  }
  Tensor& workspace = rec.scratch(plan.splits * plan.single.params[0], plan.single.params[1]);
  plan.partial.operands[2].buffer = &workspace.buffer();
  for (int i = 0; i < 3; ++i)
    if (!plan.reduce.operands[i].buffer) plan.reduce.operands[i].buffer = &workspace.buffer();
  rec.enqueue(plan.partial);
  rec.enqueue(plan.reduce);
}

void gemm(Context& ctx, const Tensor& a, const Tensor& b, Tensor& c, const GemmOptions& options) {
  GemmRecorder rec(ctx);
  gemm(rec, a, b, c, options);
  rec.run();
}

void matmul(GemmRecorder& rec, const Tensor& x, const Tensor& w, Tensor& y) {
  rec.enqueue(plan_matmul(rec.context(), "matmul", {"X", "W", "Y"}, x, nullptr, w, y, {}));
}

void matmul_residual(GemmRecorder& rec, const Tensor& x, const Tensor& w, const Tensor& residual, Tensor& y) {
  GemmOptions o;
  o.residual = &residual;
  rec.enqueue(plan_matmul(rec.context(), "matmul_residual", {"X", "W", "Y"}, x, nullptr, w, y, o));
}

void matmul_residual_swiglu_a(GemmRecorder& rec, const Tensor& gate, const Tensor& up, const Tensor& w,
                              const Tensor& residual, Tensor& y) {
  GemmOptions o;
  o.residual = &residual;
  rec.enqueue(plan_matmul(rec.context(), "matmul_residual_swiglu_a", {"GATE", "W", "Y"}, gate, &up, w, y, o));
}

void swiglu(GemmRecorder& rec, const Tensor& gate, const Tensor& up, Tensor& hidden) {
  rec.enqueue(plan_swiglu(rec.context(), gate, up, hidden));
}

void swiglu_backward(GemmRecorder& rec, const Tensor& gate, const Tensor& up, const Tensor& d_hidden,
                     Tensor& d_gate, Tensor& d_up) {
  rec.enqueue(plan_swiglu_backward(rec.context(), gate, up, d_hidden, d_gate, d_up));
}

void matmul_t(GemmRecorder& rec, const Tensor& dy, const Tensor& w, Tensor& dx, bool accumulate) {
  rec.enqueue(plan_matmul_t(rec.context(), dy, w, dx, accumulate));
}

void matmul_at(GemmRecorder& rec, const Tensor& x, const Tensor& dy, Tensor& dw, bool accumulate) {
  rec.enqueue(plan_matmul_at(rec.context(), x, dy, dw, accumulate));
}

void matmul_at_swiglu_a(GemmRecorder& rec, const Tensor& gate, const Tensor& up, const Tensor& dy, Tensor& dw,
                        bool accumulate) {
  rec.enqueue(plan_matmul_at_swiglu_a(rec.context(), gate, up, dy, dw, accumulate));
}

void ffn_forward(GemmRecorder& rec, const Tensor& x, const FfnWeights& w, Tensor& gate, Tensor& up,
                 Tensor& y) {
  check_ffn_weights("ffn_forward", x, w);
  const Context& ctx = rec.context();
  // Everything is planned (validated) before anything is queued.
  KernelCall g =
      plan_matmul(ctx, "ffn_forward (gate projection)", {"X", "Wg", "GATE"}, x, nullptr, *w.w_gate, gate, {});
  KernelCall u =
      plan_matmul(ctx, "ffn_forward (up projection)", {"X", "Wu", "UP"}, x, nullptr, *w.w_up, up, {});
  GemmOptions o;
  o.residual = &x;
  KernelCall d =
      plan_matmul(ctx, "ffn_forward (down projection)", {"GATE", "Wd", "Y"}, gate, &up, *w.w_down, y, o);
  rec.enqueue(g);
  rec.enqueue(u);
  rec.enqueue(d);
}

void ffn_backward(GemmRecorder& rec, const Tensor& x, const FfnWeights& w, const Tensor& gate,
                  const Tensor& up, const Tensor& dy, const FfnGradients& grads, bool accumulate) {
  const std::string op = "ffn_backward";
  check_ffn_weights(op, x, w);
  Checker chk{op};
  if (!grads.dx || !grads.dw_gate || !grads.dw_up || !grads.dw_down)
    chk.fail("FfnGradients needs dx, dw_gate, dw_up and dw_down");
  uint32_t t = x.rows(), f = w.w_gate->cols();
  chk.shape("GATE", gate, t, f, "T x F from the forward pass");
  chk.shape("UP", up, t, f, "T x F from the forward pass");
  chk.shape("dY", dy, t, x.cols(), "same shape as X");
  chk.shape("dX", *grads.dx, t, x.cols(), "same shape as X");
  chk.distinct("dX", *grads.dx, "dY", dy);
  const Context& ctx = rec.context();
  Tensor& dh = rec.scratch(t, f);
  Tensor& dgate = rec.scratch(t, f);
  Tensor& dup = rec.scratch(t, f);
  std::vector<KernelCall> calls;
  calls.push_back(plan_matmul_t(ctx, dy, *w.w_down, dh, false));                            // dH = dY Wd^T
  calls.push_back(plan_matmul_at_swiglu_a(ctx, gate, up, dy, *grads.dw_down, accumulate));  // dWd
  calls.push_back(plan_swiglu_backward(ctx, gate, up, dh, dgate, dup));
  calls.push_back(plan_matmul_at(ctx, x, dgate, *grads.dw_gate, accumulate));  // dWg = X^T dGATE
  calls.push_back(plan_matmul_at(ctx, x, dup, *grads.dw_up, accumulate));      // dWu = X^T dUP
  // dX = dY (the residual path) + dGATE Wg^T + dUP Wu^T.
  calls.push_back(plan_matmul_t(ctx, dgate, *w.w_gate, *grads.dx, true));
  calls.push_back(plan_matmul_t(ctx, dup, *w.w_up, *grads.dx, true));
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i == calls.size() - 2) rec.copy(dy, *grads.dx);
    rec.enqueue(calls[i]);
  }
}

}  // namespace vkgemm
