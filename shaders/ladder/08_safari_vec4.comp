#version 450
// Kernel 8 (seed 003, Safari): sizes baked into the kernel (specialization constants play the role of the seed's
// generated source) and a vec4 FMA over N: B and C are read and written as vec4, A as scalars.
// Needs N % 4 == 0. Each invocation computes C[m, 4n..4n+3]; n runs along x so neighbours touch neighbouring
// vec4s of B and C.
layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const uint M = 1;
layout(constant_id = 1) const uint N = 4;
layout(constant_id = 2) const uint K = 1;
layout(std430, set = 0, binding = 0) readonly buffer ABuffer { float A[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 B[]; };
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { vec4 C[]; };

void main() {
  uint n = gl_GlobalInvocationID.x;
  uint m = gl_GlobalInvocationID.y;
  if (m >= M || n >= N / 4u) return;
  vec4 result = vec4(0.0);
  for (uint k = 0u; k < K; k++) {
    result = fma(vec4(A[m * K + k]), B[k * (N / 4u) + n], result);
  }
  C[m * (N / 4u) + n] = result;
}
