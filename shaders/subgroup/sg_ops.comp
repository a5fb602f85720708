#version 450
// Test kernel: one subgroup operation per dispatch (push constant `op`, numbered as vkgemm::subgroup::Op),
// on values of type T (define T_U32, T_I32 or T_F32), written once for the hw and emu builds.
// Invocation i of the dispatch is logical lane (workgroup, SG_GROUP, SG_ID), so data index =
// workgroup * workgroup_size + SG_GROUP * SG_SIZE + SG_ID and consecutive SG_SIZE indices form one subgroup.
// Bindings: 0 = input bits, 1 = per-lane arguments (shuffle source, predicate), 2 = output (4 words per lane).
#include "subgroup.glsl"

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Values { uint value_bits[]; };
layout(std430, set = 0, binding = 1) readonly buffer Args { uint args[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Result { uvec4 result[]; };
layout(push_constant) uniform Push {
  uint op;
  uint broadcast_lane;
} pc;

#if defined(T_U32)
#define T uint
#define FROM_BITS(x) (x)
#define TO_BITS(x) (x)
#elif defined(T_I32)
#define T int
#define FROM_BITS(x) int(x)
#define TO_BITS(x) uint(x)
#elif defined(T_F32)
#define T float
#define FROM_BITS(x) uintBitsToFloat(x)
#define TO_BITS(x) floatBitsToUint(x)
#else
#error "define T_U32, T_I32 or T_F32"
#endif

void main() {
  SG_INIT();
  uint lane = gl_WorkGroupID.x * gl_WorkGroupSize.x + SG_GROUP * SG_SIZE + SG_ID;
  T x = FROM_BITS(value_bits[lane]);
  uint arg = args[lane];
  bool pred = (arg & 1u) != 0u;
  uvec4 r = uvec4(0u);
  // pc.op is uniform, so each case runs in uniform control flow as the emu build requires.
  switch (pc.op) {
    case 0u: r.x = TO_BITS(subgroupShuffle(x, arg % SG_SIZE)); break;
    case 1u: r.x = TO_BITS(subgroupBroadcast(x, pc.broadcast_lane % SG_SIZE)); break;
    case 2u: r.x = TO_BITS(subgroupBroadcastFirst(x)); break;
    case 3u: r.x = subgroupElect() ? 1u : 0u; break;
    case 4u: r.x = subgroupAll(pred) ? 1u : 0u; break;
    case 5u: r.x = subgroupAny(pred) ? 1u : 0u; break;
    case 6u: r.x = TO_BITS(subgroupAdd(x)); break;
    case 7u: r.x = TO_BITS(subgroupMul(x)); break;
    case 8u: r.x = TO_BITS(subgroupMin(x)); break;
    case 9u: r.x = TO_BITS(subgroupMax(x)); break;
    case 10u: r.x = TO_BITS(subgroupInclusiveAdd(x)); break;
    case 11u: r.x = TO_BITS(subgroupExclusiveAdd(x)); break;
    case 12u: r.x = TO_BITS(subgroupInclusiveMul(x)); break;
    case 13u: r.x = TO_BITS(subgroupExclusiveMul(x)); break;
    case 14u: r.x = TO_BITS(subgroupInclusiveMin(x)); break;
    case 15u: r.x = TO_BITS(subgroupExclusiveMin(x)); break;
    case 16u: r.x = TO_BITS(subgroupInclusiveMax(x)); break;
    case 17u: r.x = TO_BITS(subgroupExclusiveMax(x)); break;
#ifdef WITH_BALLOT
    case 18u: r = subgroupBallot(pred); break;
#endif
    case 19u: {
      // vec4 shuffle: lane-distinct components, each from the source lane.
      vec4 v = vec4(uintBitsToFloat(value_bits[lane]), float(lane), float(arg), -float(lane));
      r = floatBitsToUint(subgroupShuffle(v, arg % SG_SIZE));
      break;
    }
    default: break;
  }
  result[lane] = r;
}
