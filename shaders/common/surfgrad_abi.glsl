// Bind-group ABI of the Surfgrad kernels (seed 000): dims uniform, A, B, result; row-major, f32.
layout(std140, set = 0, binding = 0) uniform Dimensions {
  uint M;
  uint K;
  uint N;
} dimensions;
layout(std430, set = 0, binding = 1) readonly buffer ABuffer { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer BBuffer { float b[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Result { float result[]; };
