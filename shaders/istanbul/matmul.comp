#version 450
// The llm.istanbul matmul family (seed 001, 03_linear.wgsl) from one source: C[M,N] = op(A)[M,K] @ op(B)[K,N].
// Same tile engine as ladder kernel 10: 64x64 output tile per workgroup, 16x16 threads, 4x4 accumulators per
// thread, K in steps of TK=16 through double-buffered shared memory (A rows padded to TK_PAD=17). Grid
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
//   EPILOGUE  0: C = acc   1: C = acc + R   2: C += acc
//             3: C = alpha * acc + beta * C + bias[n] + R (flags bit 2: bias, bit 3: residual; C read iff beta != 0)
//
// Bindings, in order: A (or GATE, UP), B, [R], [BIAS], C, uniform. This keeps the seed's ABIs:
//   matmul X=0 W=1 Y=2 dims=3; matmul_residual X=0 W=1 R=2 Y=3 dims=4;
//   matmul_residual_swiglu_a GATE=0 UP=1 W=2 R=3 Y=4 dims=5.
// The seed relies on WebGPU's robust buffer access for loads past the edge; Vulkan gives no such guarantee, so
// every load clamps its index to a valid element and the masks zero what lies outside the matrix.
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
layout(std140, set = 0, binding = BINDING_DIMS) uniform Dims {
  uvec4 dims;     // M, N, K, flags
  vec4 scalars;   // alpha, beta (EPILOGUE 3 only)
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
A_T swiglu(A_T g, A_T u) { return g / (1.0 + exp(-g)) * u; }

A_T load_a(uint i) {
#if A_SWIGLU
  return swiglu(GATE[i], UP[i]);
#else
  return A[i];
#endif
}

#if B_LAYOUT == 2
float load_b(uint i) { return float(B[i]); }
#else
vec4 load_b(uint i) { return vec4(B[i]); }
#endif

// Loads op(A)[block_row : +64, kBase : +16] into tileA_db at a_off (m * TK_PAD + k); 1024 elements, 4 per thread.
void load_a_tile(uint tid, uint block_row, uint kBase, uint a_off, uint M, uint K, uint flags) {
#if A_LAYOUT == 0
  uint m = tid / 4u, k = (tid % 4u) * 4u;
  uint r = block_row + m, c = kBase + k;
  uint K4 = K / 4u;
  vec4 v = load_a(min(r, M - 1u) * K4 + min(c / 4u, K4 - 1u));
  bool r_in = r < M;
  tileA_db[a_off + m * TK_PAD + k + 0u] = (r_in && c + 0u < K) ? v.x : 0.0;
  tileA_db[a_off + m * TK_PAD + k + 1u] = (r_in && c + 1u < K) ? v.y : 0.0;
  tileA_db[a_off + m * TK_PAD + k + 2u] = (r_in && c + 2u < K) ? v.z : 0.0;
  tileA_db[a_off + m * TK_PAD + k + 3u] = (r_in && c + 3u < K) ? v.w : 0.0;
#elif A_LAYOUT == 1
  // Stored [K,M]: a vec4 holds 4 consecutive rows m of one column k.
  uint k = tid / 16u, m = (tid % 16u) * 4u;
  uint r = block_row + m, c = kBase + k;
  uint M4 = M / 4u;
  vec4 v = load_a(min(c, K - 1u) * M4 + min(r / 4u, M4 - 1u));
  bool c_in = c < K;
  tileA_db[a_off + (m + 0u) * TK_PAD + k] = (c_in && r + 0u < M) ? v.x : 0.0;
  tileA_db[a_off + (m + 1u) * TK_PAD + k] = (c_in && r + 1u < M) ? v.y : 0.0;
  tileA_db[a_off + (m + 2u) * TK_PAD + k] = (c_in && r + 2u < M) ? v.z : 0.0;
  tileA_db[a_off + (m + 3u) * TK_PAD + k] = (c_in && r + 3u < M) ? v.w : 0.0;
#else
  bool trans = (flags & FLAG_TRANS_A) != 0u;
  for (uint i = 0u; i < 4u; i++) {
    uint e = tid + 256u * i;
    // Consecutive threads walk the stored matrix's contiguous dimension.
    uint m = trans ? e % TM : e / TK;
    uint k = trans ? e / TM : e % TK;
    uint r = block_row + m, c = kBase + k;
    uint rc = min(r, M - 1u), cc = min(c, K - 1u);
    float v = load_a(trans ? cc * M + rc : rc * K + cc);
    tileA_db[a_off + m * TK_PAD + k] = (r < M && c < K) ? v : 0.0;
  }
#endif
}

// Loads op(B)[kBase : +16, block_col : +64] into tileB_db at b_off (k * TN + n).
void load_b_tile(uint tid, uint block_col, uint kBase, uint b_off, uint N, uint K, uint flags) {
#if B_LAYOUT == 0
  uint k = tid / 16u, n = (tid % 16u) * 4u;
  uint r = kBase + k, c = block_col + n;
  uint N4 = N / 4u;
  vec4 v = load_b(min(r, K - 1u) * N4 + min(c / 4u, N4 - 1u));
  bool r_in = r < K;
  tileB_db[b_off + k * TN + n + 0u] = (r_in && c + 0u < N) ? v.x : 0.0;
  tileB_db[b_off + k * TN + n + 1u] = (r_in && c + 1u < N) ? v.y : 0.0;
  tileB_db[b_off + k * TN + n + 2u] = (r_in && c + 2u < N) ? v.z : 0.0;
  tileB_db[b_off + k * TN + n + 3u] = (r_in && c + 3u < N) ? v.w : 0.0;
#elif B_LAYOUT == 1
  // Stored [N,K]: a vec4 holds 4 consecutive k of one column n.
  uint n = tid / 4u, k = (tid % 4u) * 4u;
  uint r = kBase + k, c = block_col + n;
  uint K4 = K / 4u;
  vec4 v = load_b(min(c, N - 1u) * K4 + min(r / 4u, K4 - 1u));
  bool c_in = c < N;
  tileB_db[b_off + (k + 0u) * TN + n] = (c_in && r + 0u < K) ? v.x : 0.0;
  tileB_db[b_off + (k + 1u) * TN + n] = (c_in && r + 1u < K) ? v.y : 0.0;
  tileB_db[b_off + (k + 2u) * TN + n] = (c_in && r + 2u < K) ? v.z : 0.0;
  tileB_db[b_off + (k + 3u) * TN + n] = (c_in && r + 3u < K) ? v.w : 0.0;
#else
  bool trans = (flags & FLAG_TRANS_B) != 0u;
  for (uint i = 0u; i < 4u; i++) {
    uint e = tid + 256u * i;
    uint k = trans ? e % TK : e / TN;
    uint n = trans ? e / TK : e % TN;
    uint r = kBase + k, c = block_col + n;
    uint rc = min(r, K - 1u), cc = min(c, N - 1u);
    float v = load_b(trans ? cc * K + rc : rc * N + cc);
    tileB_db[b_off + k * TN + n] = (r < K && c < N) ? v : 0.0;
  }
#endif
}

void main() {
  uint M = dims.x, N = dims.y, K = dims.z, flags = dims.w;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint tid = ty * 16u + tx;
  uint block_row = gl_WorkGroupID.y * TM;
  uint block_col = gl_WorkGroupID.x * TN;
  uint nTiles = (K + TK - 1u) / TK;

  float acc[4][4];
  for (uint i = 0u; i < 4u; i++)
    for (uint j = 0u; j < 4u; j++) acc[i][j] = 0.0;

  load_a_tile(tid, block_row, 0u, 0u, M, K, flags);
  load_b_tile(tid, block_col, 0u, 0u, N, K, flags);
  barrier();

  for (uint t = 0u; t < nTiles; t++) {
    uint parity = t & 1u;
    uint cur_a_off = parity * TA_DB_HALF;
    uint cur_b_off = parity * TB_DB_HALF;
    // Prefetch tile t+1 into the other half while this one is consumed.
    if (t + 1u < nTiles) {
      load_a_tile(tid, block_row, (t + 1u) * TK, (1u - parity) * TA_DB_HALF, M, K, flags);
      load_b_tile(tid, block_col, (t + 1u) * TK, (1u - parity) * TB_DB_HALF, N, K, flags);
    }
    for (uint k = 0u; k < TK; k++) {
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
    barrier();
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
      C[idx] = acc[i][j];
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
