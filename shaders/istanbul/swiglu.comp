#version 450
// SwiGLU, element-wise over M x N values (dims = uvec4(M, N, _, _)); any count, 256 threads per workgroup and a
// grid-stride loop, so any grid of at least one workgroup covers everything.
//   forward  (default):     H = silu(GATE) * UP.  Bindings GATE=0 UP=1 H=2 dims=3.
//   backward (BACKWARD=1):  dGATE = dH * UP * silu'(GATE), dUP = dH * silu(GATE).
//                           Bindings GATE=0 UP=1 dH=2 dGATE=3 dUP=4 dims=5.
// silu(g) = g * s(g) with s the logistic function; silu'(g) = s(g) * (1 + g * (1 - s(g))).
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer GateBuffer { float GATE[]; };
layout(std430, set = 0, binding = 1) readonly buffer UpBuffer { float UP[]; };
#if BACKWARD
layout(std430, set = 0, binding = 2) readonly buffer DHBuffer { float DH[]; };
layout(std430, set = 0, binding = 3) writeonly buffer DGateBuffer { float DGATE[]; };
layout(std430, set = 0, binding = 4) writeonly buffer DUpBuffer { float DUP[]; };
layout(std140, set = 0, binding = 5) uniform Dims { uvec4 dims; };
#else
layout(std430, set = 0, binding = 2) writeonly buffer HBuffer { float H[]; };
layout(std140, set = 0, binding = 3) uniform Dims { uvec4 dims; };
#endif

void main() {
  uint count = dims.x * dims.y;  // the host keeps M * N below 2^32
  uint stride = gl_NumWorkGroups.x * 256u;
  // i + stride could wrap past 2^32 for counts near the limit, so the loop stops on the remaining count.
  for (uint i = gl_GlobalInvocationID.x; i < count; i = count - i > stride ? i + stride : count) {
    float g = GATE[i];
    float s = 1.0 / (1.0 + exp(-g));
#if BACKWARD
    float dh = DH[i];
    DGATE[i] = dh * UP[i] * s * (1.0 + g * (1.0 - s));
    DUP[i] = dh * g * s;
#else
    H[i] = g * s * UP[i];
#endif
  }
}
