#version 450
// Kernel 11: C[M,N] = A[M,K] @ B[K,N] (row-major f32) with operand fragments shared through subgroup shuffles
// instead of shared memory (the step after kernel 10). Written once for the hw and emu builds of subgroup.glsl.
//
// 256 invocations compute a 128x128 tile; each computes 8x8 outputs at rows ty + 16 i and columns tx + 16 j
// (interleaved, so that loads and stores of neighbouring invocations are neighbours). Invocations form
// clusters of 8 consecutive subgroup lanes arranged 2 (rows) x 4 (columns); K advances in chunks of 8:
//   - lane (r, c) loads A at k = c and c + 4 of the chunk for its 8 rows: the 4 lanes of a cluster row together
//     hold all 8 k of their shared rows;
//   - lane (r, c) loads B at k = r, r + 2, r + 4, r + 6 for its 8 columns: the 2 lanes of a cluster column hold
//     all 8 k of their shared columns;
//   - for each k, every lane fetches its A and B values from the owning lanes with subgroupShuffle.
// Needs a subgroup size that is a multiple of 8 (hw) - the emu build has one subgroup of 256.
// Sizes: push constants {M, N, K}; bindings A = 0, B = 1, C = 2; grid (ceil(N / 128), ceil(M / 128)).
#extension GL_EXT_control_flow_attributes : require
#define SG_MAX_WORKGROUP_SIZE 256
#include "subgroup.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer ABuffer { float A[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { float B[]; };
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { float C[]; };
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
  uint col0 = gl_WorkGroupID.x * TILE + tx;

  vec4 acc[8][2];
  [[unroll]] for (uint i = 0u; i < 8u; ++i) {
    acc[i][0] = vec4(0.0);
    acc[i][1] = vec4(0.0);
  }

  for (uint k0 = 0u; k0 < K; k0 += KC) {
    // A fragment: a_frag[p][h] = rows 4h..4h+3 at k = k0 + lc + 4p.
    vec4 a_frag[2][2];
    [[unroll]] for (uint p = 0u; p < 2u; ++p) {
      uint k = k0 + lc + 4u * p;
      [[unroll]] for (uint h = 0u; h < 2u; ++h)
        a_frag[p][h] = vec4(load_a(row0 + THREADS * (4u * h + 0u), k), load_a(row0 + THREADS * (4u * h + 1u), k),
                            load_a(row0 + THREADS * (4u * h + 2u), k), load_a(row0 + THREADS * (4u * h + 3u), k));
    }
    // B fragment: b_frag[q][h] = columns 4h..4h+3 at k = k0 + lr + 2q.
    vec4 b_frag[4][2];
    [[unroll]] for (uint q = 0u; q < 4u; ++q) {
      uint k = k0 + lr + 2u * q;
      [[unroll]] for (uint h = 0u; h < 2u; ++h)
        b_frag[q][h] = vec4(load_b(k, col0 + THREADS * (4u * h + 0u)), load_b(k, col0 + THREADS * (4u * h + 1u)),
                            load_b(k, col0 + THREADS * (4u * h + 2u)), load_b(k, col0 + THREADS * (4u * h + 3u)));
    }
    [[unroll]] for (uint kk = 0u; kk < KC; ++kk) {
      uint a_src = cluster_base + lr * 4u + (kk & 3u);
      uint b_src = cluster_base + (kk & 1u) * 4u + lc;
      vec4 a_lo = subgroupShuffle(a_frag[kk >> 2u][0], a_src);
      vec4 a_hi = subgroupShuffle(a_frag[kk >> 2u][1], a_src);
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
    [[unroll]] for (uint j = 0u; j < 8u; ++j) {
      uint col = col0 + THREADS * j;
      if (col < N) C[row * N + col] = acc[i][j >> 2u][j & 3u];
    }
  }
}
