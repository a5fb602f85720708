#version 450
// Kernel 2 (seed 000): the same per-thread work, 256 threads per workgroup: 256x fewer workgroups.
layout(local_size_x = 256) in;
#include "surfgrad_abi.glsl"

void main() {
  uint index = gl_GlobalInvocationID.x;
  uint row = index / dimensions.N;
  uint col = index % dimensions.N;
  if (index < dimensions.M * dimensions.N) {
    float sum = 0.0;
    for (uint i = 0u; i < dimensions.K; i = i + 1u) {
      sum = sum + a[row * dimensions.K + i] * b[i * dimensions.N + col];
    }
    result[row * dimensions.N + col] = sum;
  }
}
