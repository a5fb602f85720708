// Body of kernels 6 and 7 (seed 000 "unrolling"): a TILE x TILE register tile per thread, fully unrolled so the
// accumulators are registers and each k step is TILE loads of A, TILE loads of B and TILE*TILE independent FMAs.
// The includer defines TILE. 16x16 threads per workgroup, so a workgroup covers (16*TILE)^2 outputs.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 16, local_size_y = 16) in;
#include "surfgrad_abi.glsl"

void main() {
  uint row = gl_GlobalInvocationID.y * TILE;
  uint col = gl_GlobalInvocationID.x * TILE;
  uint M = dimensions.M, N = dimensions.N, K = dimensions.K;
  if (row >= M || col >= N) return;
  // Rows/columns past the edge read a clamped (valid) element; their sums are never stored.
  uint a_off[TILE];
  uint b_col[TILE];
  [[unroll]] for (uint i = 0u; i < TILE; i++) {
    a_off[i] = min(row + i, M - 1u) * K;
    b_col[i] = min(col + i, N - 1u);
  }
  float sums[TILE][TILE];
  [[unroll]] for (uint i = 0u; i < TILE; i++) {
    [[unroll]] for (uint j = 0u; j < TILE; j++) sums[i][j] = 0.0;
  }
  for (uint k = 0u; k < K; k++) {
    float av[TILE];
    float bv[TILE];
    [[unroll]] for (uint i = 0u; i < TILE; i++) av[i] = a[a_off[i] + k];
    [[unroll]] for (uint j = 0u; j < TILE; j++) bv[j] = b[k * N + b_col[j]];
    [[unroll]] for (uint i = 0u; i < TILE; i++) {
      [[unroll]] for (uint j = 0u; j < TILE; j++) sums[i][j] = fma(av[i], bv[j], sums[i][j]);
    }
  }
  [[unroll]] for (uint i = 0u; i < TILE; i++) {
    [[unroll]] for (uint j = 0u; j < TILE; j++) {
      if (row + i < M && col + j < N) result[(row + i) * N + col + j] = sums[i][j];
    }
  }
}
