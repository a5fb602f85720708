#version 450
// Split-K epilogue: C = alpha * sum_z P[z] + beta * C + bias[n] + R over the M x N outputs, where P holds the
// partial products of `splits` K ranges (matmul.comp with SPLIT_K=1). Grid-stride over the outputs.
// Bindings P=0 R=1 BIAS=2 C=3, uniform dims = uvec4(M, N, splits, flags) + vec4(alpha, beta); flags as in
// matmul.comp (4: bias, 8: residual); C is read only when beta != 0. Absent R / BIAS are bound but never read.
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer PBuffer { float P[]; };
layout(std430, set = 0, binding = 1) readonly buffer RBuffer { float R[]; };
layout(std430, set = 0, binding = 2) readonly buffer BiasBuffer { float BIAS[]; };
layout(std430, set = 0, binding = 3) buffer CBuffer { float C[]; };
layout(std140, set = 0, binding = 4) uniform Dims {
  uvec4 dims;
  vec4 scalars;
};

const uint FLAG_BIAS = 4u;
const uint FLAG_RESIDUAL = 8u;

void main() {
  uint N = dims.y, splits = dims.z, flags = dims.w;
  uint count = dims.x * N;  // the host keeps splits * M * N below 2^32
  float alpha = scalars.x, beta = scalars.y;
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < count; i = count - i > stride ? i + stride : count) {
    float sum = 0.0;
    for (uint z = 0u; z < splits; z++) sum += P[z * count + i];
    float v = alpha * sum;
    if (beta != 0.0) v = fma(beta, C[i], v);
    if ((flags & FLAG_BIAS) != 0u) v += BIAS[i % N];
    if ((flags & FLAG_RESIDUAL) != 0u) v += R[i];
    C[i] = v;
  }
}
