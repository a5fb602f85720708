#version 450
// Bandwidth reference for the scan benchmark: dst = src, 16 bytes per invocation per step, grid-stride loop.
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push {
  uint count4;  // number of uvec4
} pc;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count4; i += stride) dst[i] = src[i];
}
