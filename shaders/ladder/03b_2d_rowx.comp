#version 450
// Kernel 3b (seed 000): the seed's first 2D attempt, row = global_id.x. Neighbouring invocations read different
// rows of A and write a column of C: slower than kernel 2, which is what the seed measured.
layout(local_size_x = 8, local_size_y = 8) in;
#include "surfgrad_abi.glsl"

void main() {
  uint row = gl_GlobalInvocationID.x;
  uint col = gl_GlobalInvocationID.y;
  if (row < dimensions.M && col < dimensions.N) {
    float sum = 0.0;
    for (uint i = 0u; i < dimensions.K; i = i + 1u) {
      sum = sum + a[row * dimensions.K + i] * b[i * dimensions.N + col];
    }
    result[row * dimensions.N + col] = sum;
  }
}
