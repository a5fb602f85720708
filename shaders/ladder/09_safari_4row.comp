#version 450
// Kernel 9 (seed 003, Safari "tiling"): each invocation computes a 4-row x vec4 register tile, so every B vec4
// loaded feeds four FMAs. Sizes are specialization constants. Needs N % 4 == 0.
layout(local_size_x = 8, local_size_y = 8) in;
layout(constant_id = 0) const uint M = 1;
layout(constant_id = 1) const uint N = 4;
layout(constant_id = 2) const uint K = 1;
layout(std430, set = 0, binding = 0) readonly buffer ABuffer { float A[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 B[]; };
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { vec4 C[]; };

void main() {
  uint n = gl_GlobalInvocationID.x;
  uint m = gl_GlobalInvocationID.y * 4u;
  if (m >= M || n >= N / 4u) return;
  // Rows past M read row M-1 (a valid address); their results are not stored.
  uint r1 = min(m + 1u, M - 1u), r2 = min(m + 2u, M - 1u), r3 = min(m + 3u, M - 1u);
  vec4 result0 = vec4(0.0), result1 = vec4(0.0), result2 = vec4(0.0), result3 = vec4(0.0);
  for (uint k = 0u; k < K; k++) {
    vec4 b = B[k * (N / 4u) + n];
    result0 = fma(vec4(A[m * K + k]), b, result0);
    result1 = fma(vec4(A[r1 * K + k]), b, result1);
    result2 = fma(vec4(A[r2 * K + k]), b, result2);
    result3 = fma(vec4(A[r3 * K + k]), b, result3);
  }
  uint c = m * (N / 4u) + n;
  C[c] = result0;
  if (m + 1u < M) C[c + N / 4u] = result1;
  if (m + 2u < M) C[c + 2u * (N / 4u)] = result2;
  if (m + 3u < M) C[c + 3u * (N / 4u)] = result3;
}
