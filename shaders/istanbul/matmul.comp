#version 450
// The llm.istanbul matmul family (seed 001, 03_linear.wgsl) from one source: C[M,N] = op(A)[M,K] @ op(B)[K,N].
// Same tile engine as ladder kernel 10: 64x64 output tile per workgroup, 16x16 threads, 4x4 accumulators per
// thread, K in steps of TK=16 through double-buffered shared memory (A rows padded to TK_PAD=17); the prefetch
// is staged through registers two K-steps ahead (see fetch_a / convert_staged / store_a). Grid
// (ceil(N/64), ceil(M/64)); the uniform block starts with dims = uvec4(M, N, K, flags) of the GEMM computed.
//
// Variants (compile-time defines, see CMakeLists.txt):
//   A_LAYOUT  0: A is [M,K] row-major, vec4 loads along K (K % 4 == 0)
//             1: A is stored [K,M] (op(A) = stored^T, the backward dW = X^T @ dY), vec4 loads along M (M % 4 == 0)
//             2: scalar loads, transpose chosen at run time by flags bit 0 (any shape)
//   A_SWIGLU  1: A = silu(GATE) * UP, computed while loading the tile (two inputs, same layout as A)
//   B_LAYOUT  0: B is [K,N] row-major, vec4 loads along N (N % 4 == 0)
//             1: B is stored [N,K] (op(B) = stored^T, the backward dX = dY @ W^T), vec4 loads along K (K % 4 == 0)
//             2: scalar loads, transpose chosen at run time by flags bit 1 (any shape)
//   B_F16     1: B stored as f16 (f16vec4 / float16_t loads), converted to f32; accumulation stays f32
//   SPLIT_K   1: grid z splits K; slice z of C (then [z][M][N]) gets that range's partial sums (EPILOGUE 0)
//   EPILOGUE  0: C = acc   1: C = acc + R   2: C += acc
//             3: C = alpha * acc + beta * C + bias[n] + R (flags bit 2: bias, bit 3: residual; C read iff beta != 0)
//
// Bindings, in order: A (or GATE, UP), B, [R], [BIAS], C, uniform. This keeps the seed's ABIs:
//   matmul X=0 W=1 Y=2 dims=3; matmul_residual X=0 W=1 R=2 Y=3 dims=4;
//   matmul_residual_swiglu_a GATE=0 UP=1 W=2 R=3 Y=4 dims=5.
// The seed relies on WebGPU's robust buffer access for loads past the edge; Vulkan gives no such guarantee, so
// every load clamps its index to a valid element and the masks zero what lies outside the matrix.
#ifndef SPLIT_K
#define SPLIT_K 0
#endif
#if B_F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#if A_LAYOUT == 2
#define A_T float
#else
#define A_T vec4
#endif
#if B_LAYOUT == 2
#if B_F16
#define B_T float16_t
#else
#define B_T float
#endif
#else
#if B_F16
#define B_T f16vec4
#else
#define B_T vec4
#endif
#endif

#if A_SWIGLU
layout(std430, set = 0, binding = 0) readonly buffer GateBuffer { A_T GATE[]; };
layout(std430, set = 0, binding = 1) readonly buffer UpBuffer { A_T UP[]; };
#define BINDING_B 2
#else
layout(std430, set = 0, binding = 0) readonly buffer ABuffer { A_T A[]; };
#define BINDING_B 1
#endif
layout(std430, set = 0, binding = BINDING_B) readonly buffer BBuffer { B_T B[]; };

#if EPILOGUE == 1
#define BINDING_R (BINDING_B + 1)
#define BINDING_C (BINDING_B + 2)
#elif EPILOGUE == 3
#define BINDING_R (BINDING_B + 1)
#define BINDING_BIAS (BINDING_B + 2)
#define BINDING_C (BINDING_B + 3)
#else
#define BINDING_C (BINDING_B + 1)
#endif
#define BINDING_DIMS (BINDING_C + 1)

#if EPILOGUE == 1 || EPILOGUE == 3
layout(std430, set = 0, binding = BINDING_R) readonly buffer RBuffer { float R[]; };
#endif
#if EPILOGUE == 3
layout(std430, set = 0, binding = BINDING_BIAS) readonly buffer BiasBuffer { float BIAS[]; };
#endif
#if EPILOGUE == 0 || EPILOGUE == 1
layout(std430, set = 0, binding = BINDING_C) writeonly buffer CBuffer { float C[]; };
#else
layout(std430, set = 0, binding = BINDING_C) buffer CBuffer { float C[]; };
#endif
// The seed's 16-byte dims block; the general epilogue appends alpha and beta.
layout(std140, set = 0, binding = BINDING_DIMS) uniform Dims {
  uvec4 dims;  // M, N, K, flags
#if EPILOGUE == 3
  vec4 scalars;  // alpha, beta
#endif
};

const uint TM = 64u;
const uint TN = 64u;
const uint TK = 16u;
const uint TK_PAD = 17u;
const uint TA_DB_HALF = TM * TK_PAD;  // 1088 floats
const uint TB_DB_HALF = TK * TN;      // 1024 floats
const uint FLAG_TRANS_A = 1u;
const uint FLAG_TRANS_B = 2u;
const uint FLAG_BIAS = 4u;
const uint FLAG_RESIDUAL = 8u;
shared float tileA_db[2u * TA_DB_HALF];
shared float tileB_db[2u * TB_DB_HALF];

// silu(g) * u; for very negative g, exp(-g) overflows to inf and the product correctly goes to -0.
// (Measured on an H200: tanh-based and Newton-reciprocal forms were slower than exp + division.)
A_T swiglu(A_T g, A_T u) { return g / (1.0 + exp(-g)) * u; }

// Register staging for the prefetch: fetch_*() issues the global loads of a later K-step into registers before
// the FMAs of step t, convert_staged() applies SwiGLU / widens f16 halfway through them, store_*() masks the
// values into the other shared half after them, so load latency and the activation's exp hide behind the
// arithmetic. On an H200 (M=512) the two-step-deep prefetch with the conversion at k=8 made matmul 10-15%
// faster than the seed's load-then-compute order, and is what makes the fused SwiGLU kernel beat the unfused
// pair (1.08x at the FFN down projection) rather than lose to it (0.96x).
#if A_LAYOUT == 2
#define A_REGS 4
#else
#define A_REGS 1
#endif
#if B_LAYOUT == 2
#define B_REGS 4
#else
#define B_REGS 1
#endif
#ifndef PREFETCH_DEPTH
#define PREFETCH_DEPTH 2
#endif
// PREFETCH_DEPTH 1: K-step t+1 is loaded during step t. 2: step t+2 is loaded during step t, into a second set of
// registers, so the values converted during step t (those of step t+1) arrived a whole step earlier.
A_T a_reg[PREFETCH_DEPTH][A_REGS];
#if A_SWIGLU
A_T u_reg[PREFETCH_DEPTH][A_REGS];
#endif
B_T b_reg[PREFETCH_DEPTH][B_REGS];
// The staged values converted to what the tiles hold: SwiGLU applied, f16 widened to f32. convert_staged()
// runs halfway through the FMAs, so these special-function and conversion instructions (quarter-rate units on
// NVIDIA) issue between FMAs instead of in a burst before the barrier, where nothing else could overlap them.
A_T a_val[A_REGS];
#if B_LAYOUT == 2
float b_val[B_REGS];
#else
vec4 b_val[B_REGS];
#endif
#ifndef STAGE_AT
#define STAGE_AT 8
#endif

void convert_staged(uint slot) {
  for (uint r = 0u; r < A_REGS; r++) {
#if A_SWIGLU
    a_val[r] = swiglu(a_reg[slot][r], u_reg[slot][r]);
#else
    a_val[r] = a_reg[slot][r];
#endif
  }
#if B_LAYOUT == 2
  for (uint r = 0u; r < B_REGS; r++) b_val[r] = float(b_reg[slot][r]);
#else
  for (uint r = 0u; r < B_REGS; r++) b_val[r] = vec4(b_reg[slot][r]);
#endif
}

// Where element r of this thread's share of the A tile comes from: tile position (m, k) and, clamped to the
// matrix, the index in the stored array. 1024 elements per tile: one vec4 (layouts 0, 1) or 4 scalars (2).
void a_slot(uint tid, uint r, uint M, uint K, uint flags, out uint m, out uint k) {
#if A_LAYOUT == 0
  m = tid / 4u;
  k = (tid % 4u) * 4u;
#elif A_LAYOUT == 1
  k = tid / 16u;
  m = (tid % 16u) * 4u;  // stored [K,M]: a vec4 holds 4 consecutive rows m of one column k
#else
  uint e = tid + 256u * r;
  // Consecutive threads walk the stored matrix's contiguous dimension.
  bool trans = (flags & FLAG_TRANS_A) != 0u;
  m = trans ? e % TM : e / TK;
  k = trans ? e / TM : e % TK;
#endif
}

void fetch_a(uint slot, uint tid, uint block_row, uint kBase, uint M, uint K, uint flags) {
  for (uint r = 0u; r < A_REGS; r++) {
    uint m, k;
    a_slot(tid, r, M, K, flags, m, k);
    uint gr = min(block_row + m, M - 1u), gc = min(kBase + k, K - 1u);
#if A_LAYOUT == 0
    uint idx = gr * (K / 4u) + gc / 4u;
#elif A_LAYOUT == 1
    uint idx = gc * (M / 4u) + gr / 4u;
#else
    uint idx = (flags & FLAG_TRANS_A) != 0u ? gc * M + gr : gr * K + gc;
#endif
#if A_SWIGLU
    a_reg[slot][r] = GATE[idx];
    u_reg[slot][r] = UP[idx];
#else
    a_reg[slot][r] = A[idx];
#endif
  }
}

void store_a(uint tid, uint block_row, uint kBase, uint a_off, uint M, uint K, uint flags) {
  for (uint r = 0u; r < A_REGS; r++) {
    uint m, k;
    a_slot(tid, r, M, K, flags, m, k);
    uint gr = block_row + m, gc = kBase + k;
    A_T v = a_val[r];
#if A_LAYOUT == 0
    bool r_in = gr < M;
    tileA_db[a_off + m * TK_PAD + k + 0u] = (r_in && gc + 0u < K) ? v.x : 0.0;
    tileA_db[a_off + m * TK_PAD + k + 1u] = (r_in && gc + 1u < K) ? v.y : 0.0;
    tileA_db[a_off + m * TK_PAD + k + 2u] = (r_in && gc + 2u < K) ? v.z : 0.0;
    tileA_db[a_off + m * TK_PAD + k + 3u] = (r_in && gc + 3u < K) ? v.w : 0.0;
#elif A_LAYOUT == 1
    bool c_in = gc < K;
    tileA_db[a_off + (m + 0u) * TK_PAD + k] = (c_in && gr + 0u < M) ? v.x : 0.0;
    tileA_db[a_off + (m + 1u) * TK_PAD + k] = (c_in && gr + 1u < M) ? v.y : 0.0;
    tileA_db[a_off + (m + 2u) * TK_PAD + k] = (c_in && gr + 2u < M) ? v.z : 0.0;
    tileA_db[a_off + (m + 3u) * TK_PAD + k] = (c_in && gr + 3u < M) ? v.w : 0.0;
#else
    tileA_db[a_off + m * TK_PAD + k] = (gr < M && gc < K) ? v : 0.0;
#endif
  }
}

// The same for B: tile position (k, n).
void b_slot(uint tid, uint r, uint flags, out uint k, out uint n) {
#if B_LAYOUT == 0
  k = tid / 16u;
  n = (tid % 16u) * 4u;
#elif B_LAYOUT == 1
  n = tid / 4u;
  k = (tid % 4u) * 4u;  // stored [N,K]: a vec4 holds 4 consecutive k of one column n
#else
  uint e = tid + 256u * r;
  bool trans = (flags & FLAG_TRANS_B) != 0u;
  k = trans ? e % TK : e / TN;
  n = trans ? e / TK : e % TN;
#endif
}

void fetch_b(uint slot, uint tid, uint block_col, uint kBase, uint N, uint K, uint flags) {
  for (uint r = 0u; r < B_REGS; r++) {
    uint k, n;
    b_slot(tid, r, flags, k, n);
    uint gr = min(kBase + k, K - 1u), gc = min(block_col + n, N - 1u);
#if B_LAYOUT == 0
    uint idx = gr * (N / 4u) + gc / 4u;
#elif B_LAYOUT == 1
    uint idx = gc * (K / 4u) + gr / 4u;
#else
    uint idx = (flags & FLAG_TRANS_B) != 0u ? gc * K + gr : gr * N + gc;
#endif
    b_reg[slot][r] = B[idx];
  }
}

void store_b(uint tid, uint block_col, uint kBase, uint b_off, uint N, uint K, uint flags) {
  for (uint r = 0u; r < B_REGS; r++) {
    uint k, n;
    b_slot(tid, r, flags, k, n);
    uint gr = kBase + k, gc = block_col + n;
#if B_LAYOUT == 2
    float v = b_val[r];
    tileB_db[b_off + k * TN + n] = (gr < K && gc < N) ? v : 0.0;
#elif B_LAYOUT == 0
    vec4 v = b_val[r];
    bool r_in = gr < K;
    tileB_db[b_off + k * TN + n + 0u] = (r_in && gc + 0u < N) ? v.x : 0.0;
    tileB_db[b_off + k * TN + n + 1u] = (r_in && gc + 1u < N) ? v.y : 0.0;
    tileB_db[b_off + k * TN + n + 2u] = (r_in && gc + 2u < N) ? v.z : 0.0;
    tileB_db[b_off + k * TN + n + 3u] = (r_in && gc + 3u < N) ? v.w : 0.0;
#else
    vec4 v = b_val[r];
    bool c_in = gc < N;
    tileB_db[b_off + (k + 0u) * TN + n] = (c_in && gr + 0u < K) ? v.x : 0.0;
    tileB_db[b_off + (k + 1u) * TN + n] = (c_in && gr + 1u < K) ? v.y : 0.0;
    tileB_db[b_off + (k + 2u) * TN + n] = (c_in && gr + 2u < K) ? v.z : 0.0;
    tileB_db[b_off + (k + 3u) * TN + n] = (c_in && gr + 3u < K) ? v.w : 0.0;
#endif
  }
}

float acc[4][4];
uint kOff = 0u;  // first K index of this workgroup's range (non-zero only with SPLIT_K)

// One k of the 4x4 outer product from the current shared half.
void fma_step(uint k, uint cur_a_off, uint cur_b_off, uint tx, uint ty) {
  float a0 = tileA_db[cur_a_off + (4u * ty + 0u) * TK_PAD + k];
  float a1 = tileA_db[cur_a_off + (4u * ty + 1u) * TK_PAD + k];
  float a2 = tileA_db[cur_a_off + (4u * ty + 2u) * TK_PAD + k];
  float a3 = tileA_db[cur_a_off + (4u * ty + 3u) * TK_PAD + k];
  float b0 = tileB_db[cur_b_off + k * TN + (4u * tx + 0u)];
  float b1 = tileB_db[cur_b_off + k * TN + (4u * tx + 1u)];
  float b2 = tileB_db[cur_b_off + k * TN + (4u * tx + 2u)];
  float b3 = tileB_db[cur_b_off + k * TN + (4u * tx + 3u)];
  acc[0][0] = fma(a0, b0, acc[0][0]); acc[0][1] = fma(a0, b1, acc[0][1]);
  acc[0][2] = fma(a0, b2, acc[0][2]); acc[0][3] = fma(a0, b3, acc[0][3]);
  acc[1][0] = fma(a1, b0, acc[1][0]); acc[1][1] = fma(a1, b1, acc[1][1]);
  acc[1][2] = fma(a1, b2, acc[1][2]); acc[1][3] = fma(a1, b3, acc[1][3]);
  acc[2][0] = fma(a2, b0, acc[2][0]); acc[2][1] = fma(a2, b1, acc[2][1]);
  acc[2][2] = fma(a2, b2, acc[2][2]); acc[2][3] = fma(a2, b3, acc[2][3]);
  acc[3][0] = fma(a3, b0, acc[3][0]); acc[3][1] = fma(a3, b1, acc[3][1]);
  acc[3][2] = fma(a3, b2, acc[3][2]); acc[3][3] = fma(a3, b3, acc[3][3]);
}

// K-step t (phase = t % PREFETCH_DEPTH): issue the loads of step t + PREFETCH_DEPTH, multiply the current shared
// half, convert the staged values of step t+1 halfway through, store them into the other half, barrier.
void k_step(uint t, uint phase, uint nTiles, uint tid, uint tx, uint ty, uint block_row, uint block_col, uint M,
            uint N, uint K, uint flags) {
  uint parity = t & 1u;
  uint cur_a_off = parity * TA_DB_HALF;
  uint cur_b_off = parity * TB_DB_HALF;
  uint ahead = t + PREFETCH_DEPTH;
  if (ahead < nTiles) {
    fetch_a(phase, tid, block_row, kOff + ahead * TK, M, K, flags);
    fetch_b(phase, tid, block_col, kOff + ahead * TK, N, K, flags);
  }
  bool more = t + 1u < nTiles;
  for (uint k = 0u; k < STAGE_AT; k++) fma_step(k, cur_a_off, cur_b_off, tx, ty);
  if (more) convert_staged((phase + 1u) % PREFETCH_DEPTH);
  for (uint k = STAGE_AT; k < TK; k++) fma_step(k, cur_a_off, cur_b_off, tx, ty);
  if (more) {
    store_a(tid, block_row, kOff + (t + 1u) * TK, (1u - parity) * TA_DB_HALF, M, K, flags);
    store_b(tid, block_col, kOff + (t + 1u) * TK, (1u - parity) * TB_DB_HALF, N, K, flags);
  }
  barrier();
}

void main() {
  uint M = dims.x, N = dims.y, K = dims.z, flags = dims.w;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint tid = ty * 16u + tx;
  uint block_row = gl_WorkGroupID.y * TM;
  uint block_col = gl_WorkGroupID.x * TN;
  uint nTiles = (K + TK - 1u) / TK;
#if SPLIT_K
  // Split-K: workgroup z multiplies K-steps [z * per, z * per + nTiles) and stores its partial sums in slice z of
  // C (a workspace that the splitk_reduce kernel sums); the host makes every slice non-empty.
  uint per = (nTiles + gl_NumWorkGroups.z - 1u) / gl_NumWorkGroups.z;
  uint first = gl_WorkGroupID.z * per;
  nTiles = first < nTiles ? min(per, nTiles - first) : 0u;
  kOff = first * TK;
  uint slice = gl_WorkGroupID.z * M * N;
#else
  uint slice = 0u;
#endif

  for (uint i = 0u; i < 4u; i++)
    for (uint j = 0u; j < 4u; j++) acc[i][j] = 0.0;

  for (uint d = 0u; d < PREFETCH_DEPTH; d++) {
    if (d < nTiles) {
      fetch_a(d, tid, block_row, kOff + d * TK, M, K, flags);
      fetch_b(d, tid, block_col, kOff + d * TK, N, K, flags);
    }
  }
  convert_staged(0u);
  store_a(tid, block_row, kOff, 0u, M, K, flags);
  store_b(tid, block_col, kOff, 0u, N, K, flags);
  barrier();

  // Unrolled by PREFETCH_DEPTH so that every register slot index is a compile-time constant.
  for (uint t = 0u; t < nTiles; t += PREFETCH_DEPTH) {
    k_step(t, 0u, nTiles, tid, tx, ty, block_row, block_col, M, N, K, flags);
#if PREFETCH_DEPTH == 2
    if (t + 1u < nTiles) k_step(t + 1u, 1u, nTiles, tid, tx, ty, block_row, block_col, M, N, K, flags);
#endif
  }

#if EPILOGUE == 3
  float alpha = scalars.x, beta = scalars.y;
  bool has_bias = (flags & FLAG_BIAS) != 0u, has_residual = (flags & FLAG_RESIDUAL) != 0u;
#endif
  for (uint i = 0u; i < 4u; i++) {
    uint row = block_row + 4u * ty + i;
    if (row >= M) break;
    for (uint j = 0u; j < 4u; j++) {
      uint col = block_col + 4u * tx + j;
      if (col >= N) break;
      uint idx = row * N + col;
#if EPILOGUE == 0
      C[slice + idx] = acc[i][j];
#elif EPILOGUE == 1
      C[idx] = acc[i][j] + R[idx];
#elif EPILOGUE == 2
      C[idx] = C[idx] + acc[i][j];
#else
      float v = alpha * acc[i][j];
      // beta == 0 never reads C, so an uninitialised (NaN) C is fine, as in BLAS.
      if (beta != 0.0) v = fma(beta, C[idx], v);
      if (has_bias) v += BIAS[col];
      if (has_residual) v += R[idx];
      C[idx] = v;
#endif
    }
  }
}
