#version 450
// Kernel 3 (seed 000): 2D 8x8 workgroups with row = global_id.y, col = global_id.x. Neighbouring invocations
// (x fastest) share a row of A and read consecutive columns of B: the mapping the seed found fast.
layout(local_size_x = 8, local_size_y = 8) in;
#include "surfgrad_abi.glsl"

void main() {
  uint row = gl_GlobalInvocationID.y;
  uint col = gl_GlobalInvocationID.x;
  if (row < dimensions.M && col < dimensions.N) {
    float sum = 0.0;
    for (uint i = 0u; i < dimensions.K; i = i + 1u) {
      sum = sum + a[row * dimensions.K + i] * b[i * dimensions.N + col];
    }
    result[row * dimensions.N + col] = sum;
  }
}
