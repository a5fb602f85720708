#version 450
// Kernel 12 (beyond the seeds, after siboehm/SGEMM_CUDA's 2D block tiling + vectorized + double-buffered steps):
// a 128x128 output tile per workgroup of 256 threads, 8x8 accumulators per thread, K in steps of BK.
// - A is stored transposed in shared memory (As[k][m]) so both operands are read from shared memory as vec4:
//   per k a thread does 4 vec4 shared loads for 64 FMAs (kernel 10 does 8 scalar loads for 16 FMAs).
// - Each thread's 8x8 outputs are two 4-row bands x two 4-column bands, 64 apart, so the vec4 reads of a warp hit
//   consecutive addresses (no bank conflicts, broadcast for A).
// - Global loads for step t+1 are issued into registers before step t's FMAs, and stored to the other shared
//   buffer after them: one barrier per K step.
// Row-major f32, C = A @ B; ABI: A=0, B=1, C=2 (vec4 arrays), dims uniform (M, N, K, _) at 3, like kernel 10.
// Needs K % 4 == 0 and N % 4 == 0. Edge tiles clamp their load index and zero the value.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 A[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 B[]; };
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { vec4 C[]; };
layout(std140, set = 0, binding = 3) uniform Dims { uvec4 dims; };

#ifndef BK
#define BK 8u
#endif
const uint BM = 128u, BN = 128u;
const uint A_VEC4_PER_THREAD = BM * BK / 4u / 256u;  // vec4 loads of A per thread per K step
const uint B_VEC4_PER_THREAD = BK * BN / 4u / 256u;
shared vec4 As[2][BK][BM / 4u];  // As[buf][k][m/4]: A transposed
shared vec4 Bs[2][BK][BN / 4u];  // Bs[buf][k][n/4]

vec4 a_reg[A_VEC4_PER_THREAD];
vec4 b_reg[B_VEC4_PER_THREAD];

void load_global(uint tid, uint row0, uint col0, uint k0, uint M, uint N, uint K) {
  uint K4 = K / 4u, N4 = N / 4u;
  [[unroll]] for (uint i = 0u; i < A_VEC4_PER_THREAD; i++) {
    uint idx = tid + i * 256u;          // which vec4 of the BM x BK tile
    uint r = idx / (BK / 4u);           // row within tile
    uint c4 = idx % (BK / 4u);          // vec4 column within tile
    uint gr = row0 + r, gc4 = k0 / 4u + c4;
    vec4 v = A[min(gr, M - 1u) * K4 + min(gc4, K4 - 1u)];
    a_reg[i] = (gr < M && gc4 < K4) ? v : vec4(0.0);
  }
  [[unroll]] for (uint i = 0u; i < B_VEC4_PER_THREAD; i++) {
    uint idx = tid + i * 256u;
    uint r = idx / (BN / 4u);
    uint c4 = idx % (BN / 4u);
    uint gr = k0 + r, gc4 = col0 / 4u + c4;
    vec4 v = B[min(gr, K - 1u) * N4 + min(gc4, N4 - 1u)];
    b_reg[i] = (gr < K && gc4 < N4) ? v : vec4(0.0);
  }
}

void store_shared(uint tid, uint buf) {
  [[unroll]] for (uint i = 0u; i < A_VEC4_PER_THREAD; i++) {
    uint idx = tid + i * 256u;
    uint r = idx / (BK / 4u);
    uint c = (idx % (BK / 4u)) * 4u;
    // Transpose: the 4 k-values of row r go to As[k][r].
    As[buf][c + 0u][r / 4u][r % 4u] = a_reg[i].x;
    As[buf][c + 1u][r / 4u][r % 4u] = a_reg[i].y;
    As[buf][c + 2u][r / 4u][r % 4u] = a_reg[i].z;
    As[buf][c + 3u][r / 4u][r % 4u] = a_reg[i].w;
  }
  [[unroll]] for (uint i = 0u; i < B_VEC4_PER_THREAD; i++) {
    uint idx = tid + i * 256u;
    Bs[buf][idx / (BN / 4u)][idx % (BN / 4u)] = b_reg[i];
  }
}

void main() {
  uint M = dims.x, N = dims.y, K = dims.z;
  uint tid = gl_LocalInvocationID.x;
  uint tx = tid % 16u, ty = tid / 16u;
  uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
  uint nTiles = (K + BK - 1u) / BK;

  vec4 acc[8][2];  // acc[row][col band]: rows ty*4+{0..3} and 64+ty*4+{0..3}; cols tx*4 and 64+tx*4
  [[unroll]] for (uint i = 0u; i < 8u; i++) {
    acc[i][0] = vec4(0.0);
    acc[i][1] = vec4(0.0);
  }

  load_global(tid, row0, col0, 0u, M, N, K);
  store_shared(tid, 0u);
  barrier();

  for (uint t = 0u; t < nTiles; t++) {
    uint cur = t & 1u;
    if (t + 1u < nTiles) load_global(tid, row0, col0, (t + 1u) * BK, M, N, K);
    [[unroll]] for (uint k = 0u; k < BK; k++) {
      vec4 a0 = As[cur][k][ty];
      vec4 a1 = As[cur][k][16u + ty];
      vec4 b0 = Bs[cur][k][tx];
      vec4 b1 = Bs[cur][k][16u + tx];
      float a[8] = float[8](a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w);
      [[unroll]] for (uint i = 0u; i < 8u; i++) {
        acc[i][0] = fma(vec4(a[i]), b0, acc[i][0]);
        acc[i][1] = fma(vec4(a[i]), b1, acc[i][1]);
      }
    }
    if (t + 1u < nTiles) store_shared(tid, 1u - cur);
    barrier();
  }

  uint N4 = N / 4u;
  [[unroll]] for (uint i = 0u; i < 8u; i++) {
    uint row = row0 + (i < 4u ? ty * 4u + i : 64u + ty * 4u + (i - 4u));
    if (row >= M) continue;
    uint c0 = col0 / 4u + tx, c1 = col0 / 4u + 16u + tx;
    if (c0 < N4) C[row * N4 + c0] = acc[i][0];
    if (c1 < N4) C[row * N4 + c1] = acc[i][1];
  }
}
