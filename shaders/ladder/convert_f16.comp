#version 450
// f32 -> f16 conversion pass for the f16-operand tensor-core kernels: vec4 in, 4 halves (uvec2) out.
// Grid-stride loop so any length fits under maxComputeWorkGroupCount.
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uvec2 dst[]; };
layout(push_constant) uniform Push { uint count4; };  // number of vec4s

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < count4; i += stride) {
    vec4 v = src[i];
    dst[i] = uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw));
  }
}
