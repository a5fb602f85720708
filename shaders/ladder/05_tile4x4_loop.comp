#version 450
// Kernel 5 (seed 000): a 4x4 register tile per thread written with loops over arrays. The loops are kept as
// loops ([[dont_unroll]]), as in the seed, so the accumulators live in an indexed array: this is the step the
// seed found slower than kernel 4.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 16, local_size_y = 16) in;
#include "surfgrad_abi.glsl"

const uint TILE_M = 4u;
const uint TILE_N = 4u;

void main() {
  uint row = gl_GlobalInvocationID.y * TILE_M;
  uint col = gl_GlobalInvocationID.x * TILE_N;
  uint M = dimensions.M, N = dimensions.N, K = dimensions.K;
  float sums[TILE_M][TILE_N];
  [[dont_unroll]] for (uint i = 0u; i < TILE_M; i++) {
    [[dont_unroll]] for (uint j = 0u; j < TILE_N; j++) { sums[i][j] = 0.0; }
  }
  for (uint k = 0u; k < K; k++) {
    [[dont_unroll]] for (uint i = 0u; i < TILE_M; i++) {
      // Out-of-range rows/columns read a clamped element; their sums are never stored.
      float a_element = a[min(row + i, M - 1u) * K + k];
      [[dont_unroll]] for (uint j = 0u; j < TILE_N; j++) {
        float b_element = b[k * N + min(col + j, N - 1u)];
        sums[i][j] += a_element * b_element;
      }
    }
  }
  [[dont_unroll]] for (uint i = 0u; i < TILE_M; i++) {
    [[dont_unroll]] for (uint j = 0u; j < TILE_N; j++) {
      uint output_row = row + i;
      uint output_col = col + j;
      if (output_row < M && output_col < N) result[output_row * N + output_col] = sums[i][j];
    }
  }
}
