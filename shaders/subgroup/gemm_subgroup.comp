#version 450
// Kernel 11: C[M,N] = A[M,K] @ B[K,N] (row-major f32) with operand fragments shared through subgroup shuffles
// instead of shared memory (the step after kernel 10). Written once for the hw and emu builds of subgroup.glsl.
//
// 256 invocations compute a 128x128 tile; each computes 8x8 outputs: rows ty + 16 i (i < 8) and columns
// 4 tx + 64 h + e (h < 2, e < 4: two vec4, so B loads and C stores are 16-byte vectors). Invocations form
// clusters of 8 consecutive subgroup lanes arranged 2 (rows) x 4 (columns); K advances in chunks of 8:
//   - lane (r, c) loads A at k = 2c, 2c + 1 of the chunk for its 8 rows (a vec2 per row): the 4 lanes of a
//     cluster row together hold all 8 k of their shared rows;
//   - lane (r, c) loads B at k = r, r + 2, r + 4, r + 6 for its 8 columns: the 2 lanes of a cluster column hold
//     all 8 k of their shared columns;
//   - for each k, every lane fetches its 8 A and 8 B values from the owning lanes with 4 vec4 subgroupShuffles.
// Whole tiles with K even and N % 4 == 0 use vector loads; edge tiles and other shapes load scalars with bounds
// checks. Needs a subgroup size that is a multiple of 8 (hw) - the emu build has one subgroup of 256.
// Sizes: push constants {M, N, K}; bindings A = 0, B = 1, C = 2; grid (ceil(N / 128), ceil(M / 128)).
#extension GL_EXT_control_flow_attributes : require
#define SG_MAX_WORKGROUP_SIZE 256
#include "subgroup.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer ABuffer { float A[]; };
layout(std430, set = 0, binding = 0) readonly buffer A2Buffer { vec2 A2[]; };  // same buffer, vec2 view
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { float B[]; };
layout(std430, set = 0, binding = 1) readonly buffer B4Buffer { vec4 B4[]; };  // same buffer, vec4 view
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { float C[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C4Buffer { vec4 C4[]; };
layout(push_constant) uniform Sizes {
  uint M;
  uint N;
  uint K;
} sizes;

const uint TILE = 128u;
const uint THREADS = 16u;  // per tile side
const uint KC = 8u;        // K chunk = cluster size

// Element (row, col) of a rows x cols matrix, or 0 outside it (index clamped so the load stays in bounds).
float load_a(uint row, uint k) {
  uint M = sizes.M, K = sizes.K;
  float v = A[min(row, M - 1u) * K + min(k, K - 1u)];
  return (row < M && k < K) ? v : 0.0;
}
float load_b(uint k, uint col) {
  uint N = sizes.N, K = sizes.K;
  float v = B[min(k, K - 1u) * N + min(col, N - 1u)];
  return (k < K && col < N) ? v : 0.0;
}

void main() {
  SG_INIT();
  uint M = sizes.M, N = sizes.N, K = sizes.K;
  // Position from the subgroup ids (the mapping of gl_LocalInvocationIndex to lanes is not specified).
  uint tid = SG_GROUP * SG_SIZE + SG_ID;
  uint cluster = tid >> 3u;
  uint lr = (tid >> 2u) & 1u;  // cluster row
  uint lc = tid & 3u;          // cluster column
  uint ty = (cluster >> 2u) * 2u + lr;
  uint tx = (cluster & 3u) * 4u + lc;
  uint cluster_base = SG_ID & ~7u;
  uint row0 = gl_WorkGroupID.y * TILE + ty;
  uint col0 = gl_WorkGroupID.x * TILE + 4u * tx;  // columns col0 + 64 h + e, h < 2, e < 4

  vec4 acc[8][2];
  [[unroll]] for (uint i = 0u; i < 8u; ++i) {
    acc[i][0] = vec4(0.0);
    acc[i][1] = vec4(0.0);
  }

  // Vector loads need K even (vec2 of A) and N % 4 == 0 (vec4 of B) and whole tiles; otherwise scalar loads.
  bool interior = gl_WorkGroupID.y * TILE + TILE <= M && gl_WorkGroupID.x * TILE + TILE <= N &&
                  (K & 1u) == 0u && (N & 3u) == 0u;
  for (uint k0 = 0u; k0 < K; k0 += KC) {
    bool fast = interior && k0 + KC <= K;
    // A fragment: a_frag[i] = row i at k = k0 + 2 lc + {0, 1}.
    vec2 a_frag[8];
    // B fragment: b_frag[q][h] = columns col0 + 64 h + {0..3} at k = k0 + lr + 2q.
    vec4 b_frag[4][2];
    if (fast) {
      [[unroll]] for (uint i = 0u; i < 8u; ++i) a_frag[i] = A2[((row0 + THREADS * i) * K + k0 + 2u * lc) >> 1u];
      [[unroll]] for (uint q = 0u; q < 4u; ++q)
        [[unroll]] for (uint h = 0u; h < 2u; ++h) b_frag[q][h] = B4[((k0 + lr + 2u * q) * N + col0 + 64u * h) >> 2u];
    } else {
      [[unroll]] for (uint i = 0u; i < 8u; ++i) {
        uint row = row0 + THREADS * i, k = k0 + 2u * lc;
        a_frag[i] = vec2(load_a(row, k), load_a(row, k + 1u));
      }
      [[unroll]] for (uint q = 0u; q < 4u; ++q) {
        uint k = k0 + lr + 2u * q;
        [[unroll]] for (uint h = 0u; h < 2u; ++h) {
          uint col = col0 + 64u * h;
          b_frag[q][h] = vec4(load_b(k, col), load_b(k, col + 1u), load_b(k, col + 2u), load_b(k, col + 3u));
        }
      }
    }
    [[unroll]] for (uint kk = 0u; kk < KC; ++kk) {
      uint a_src = cluster_base + lr * 4u + (kk >> 1u);
      uint b_src = cluster_base + (kk & 1u) * 4u + lc;
      uint c = kk & 1u;
      vec4 a_lo = subgroupShuffle(vec4(a_frag[0][c], a_frag[1][c], a_frag[2][c], a_frag[3][c]), a_src);
      vec4 a_hi = subgroupShuffle(vec4(a_frag[4][c], a_frag[5][c], a_frag[6][c], a_frag[7][c]), a_src);
      vec4 b_lo = subgroupShuffle(b_frag[kk >> 1u][0], b_src);
      vec4 b_hi = subgroupShuffle(b_frag[kk >> 1u][1], b_src);
      float a[8] = float[8](a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w);
      [[unroll]] for (uint i = 0u; i < 8u; ++i) {
        acc[i][0] = fma(vec4(a[i]), b_lo, acc[i][0]);
        acc[i][1] = fma(vec4(a[i]), b_hi, acc[i][1]);
      }
    }
  }

  [[unroll]] for (uint i = 0u; i < 8u; ++i) {
    uint row = row0 + THREADS * i;
    if (row >= M) break;
    [[unroll]] for (uint h = 0u; h < 2u; ++h) {
      uint col = col0 + 64u * h;
      if ((N & 3u) == 0u && col + 4u <= N) {
        C4[(row * N + col) >> 2u] = acc[i][h];
      } else {
        [[unroll]] for (uint e = 0u; e < 4u; ++e)
          if (col + e < N) C[row * N + col + e] = acc[i][h][e];
      }
    }
  }
}
