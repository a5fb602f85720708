#pragma once
// The public GEMM API over the llm.istanbul kernel family (shaders/istanbul/matmul.comp).
//
//   C = alpha * op(A) @ op(B) + beta * C + bias + residual      (op = optional transpose)
//
// A, C, bias and residual are f32; B may be f32 or f16 (weights stored as f16, f32 accumulation). gemm()
// picks the fastest kernel that handles the request (the vec4 istanbul kernels where the shape, transposes
// and epilogue allow; otherwise the general scalar-load tile kernel, which takes any shape), so a valid
// request never fails for its shape. Every operation validates its operands first and throws InvalidArgument
// (naming the operands and their shapes) or UnsupportedError (f16 on a device without 16-bit storage) before
// anything is recorded.
//
// Operations taking a GemmRecorder queue work into one submission; the Context overloads run it and wait.
#include <string>

#include "gemm/gemm_recorder.hpp"
#include "gemm/tensor.hpp"

namespace vkgemm {

struct GemmOptions {
  bool transpose_a = false;  // op(A) = A^T: A is stored K x M
  bool transpose_b = false;  // op(B) = B^T: B is stored N x K
  float alpha = 1.0f;
  float beta = 0.0f;                 // 0: C is only written (its old contents, even NaN, are ignored)
  const Tensor* bias = nullptr;      // 1 x N, added to every row
  const Tensor* residual = nullptr;  // M x N
  // Split-K (the general kernel over K ranges into a workspace, then a reducing epilogue) for grids too small
  // to fill a GPU: 0 = automatic (fewer than 256 output tiles and K >= 1024), 1 = never, n > 1 = n ranges.
  uint32_t split_k = 0;
};

// The kernel gemm() would use (embedded module name; "istanbul_gemm_splitk..." then also runs
// "istanbul_splitk_reduce"), after validating like gemm() does.
std::string gemm_kernel_name(const Context& ctx, const Tensor& a, const Tensor& b, const Tensor& c,
                             const GemmOptions& options = {});
void gemm(GemmRecorder& rec, const Tensor& a, const Tensor& b, Tensor& c, const GemmOptions& options = {});
void gemm(Context& ctx, const Tensor& a, const Tensor& b, Tensor& c, const GemmOptions& options = {});

// ---- Named llm.istanbul operations (seed 001). Shapes: tokens T, input width K_in, output width N_out. ----
// Each uses the seed's vec4 kernel (and its grid) when the shape allows and otherwise the general kernel
// (same result); they never split K.

// Y[T,N] = X[T,K] @ W[K,N] (+ R[T,N]); W f32 or f16 (matmul / matmul_residual and their _w16 twins).
void matmul(GemmRecorder& rec, const Tensor& x, const Tensor& w, Tensor& y);
void matmul_residual(GemmRecorder& rec, const Tensor& x, const Tensor& w, const Tensor& residual, Tensor& y);
// Y[T,N] = (silu(GATE) * UP)[T,F] @ W[F,N] + R[T,N] without storing the hidden matrix
// (matmul_residual_swiglu_a, _w16 for an f16 W).
void matmul_residual_swiglu_a(GemmRecorder& rec, const Tensor& gate, const Tensor& up, const Tensor& w,
                              const Tensor& residual, Tensor& y);
// H = silu(GATE) * UP, stored (the unfused path's first step).
void swiglu(GemmRecorder& rec, const Tensor& gate, const Tensor& up, Tensor& hidden);
// dGATE = dH * UP * silu'(GATE), dUP = dH * silu(GATE).
void swiglu_backward(GemmRecorder& rec, const Tensor& gate, const Tensor& up, const Tensor& d_hidden,
                     Tensor& d_gate, Tensor& d_up);
// dX[T,K] (+)= dY[T,N] @ W[K,N]^T (matmul_t / matmul_t_acc).
void matmul_t(GemmRecorder& rec, const Tensor& dy, const Tensor& w, Tensor& dx, bool accumulate = false);
// dW[K,N] (+)= X[T,K]^T @ dY[T,N] (matmul_at / matmul_at_acc).
void matmul_at(GemmRecorder& rec, const Tensor& x, const Tensor& dy, Tensor& dw, bool accumulate = false);
// dW[F,N] (+)= (silu(GATE) * UP)[T,F]^T @ dY[T,N], recomputing the activation while loading
// (matmul_at_swiglu_a / matmul_at_acc_swiglu_a).
void matmul_at_swiglu_a(GemmRecorder& rec, const Tensor& gate, const Tensor& up, const Tensor& dy, Tensor& dw,
                        bool accumulate = false);

// ---- A SwiGLU feed-forward block: Y = (silu(X @ Wg) * (X @ Wu)) @ Wd + X. X: T x D, Wg/Wu: D x F, Wd: F x
// D.
struct FfnWeights {
  const Tensor* w_gate = nullptr;  // D x F
  const Tensor* w_up = nullptr;    // D x F
  const Tensor* w_down = nullptr;  // F x D (f32 or f16)
};
// Forward: gate = X @ Wg, up = X @ Wu (kept for the backward pass), y = fused down projection + residual X.
void ffn_forward(GemmRecorder& rec, const Tensor& x, const FfnWeights& w, Tensor& gate, Tensor& up,
                 Tensor& y);
struct FfnGradients {
  Tensor* dx = nullptr;       // T x D
  Tensor* dw_gate = nullptr;  // D x F
  Tensor* dw_up = nullptr;    // D x F
  Tensor* dw_down = nullptr;  // F x D
};
// Backward from dY (T x D) given the forward's gate and up. Overwrites dX; overwrites the weight gradients,
// or adds to them with accumulate = true (as over micro-batches). Intermediates (dH, dGATE, dUP) live in the
// recorder.
void ffn_backward(GemmRecorder& rec, const Tensor& x, const FfnWeights& w, const Tensor& gate,
                  const Tensor& up, const Tensor& dy, const FfnGradients& grads, bool accumulate = false);

}  // namespace vkgemm
