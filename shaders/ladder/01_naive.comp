#version 450
// Kernel 1 (seed 000): one thread per workgroup, one output element per thread.
// The host dispatches M*N workgroups along x, so the size is bounded by maxComputeWorkGroupCount[0].
layout(local_size_x = 1) in;
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
