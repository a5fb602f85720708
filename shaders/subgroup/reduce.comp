#version 450
// Device-wide add reduction, pass over partitions: workgroup g sums elements [g * partition_size, min(n, (g + 1) *
// partition_size)) of `values` into partials[g] (workgroup reduction through subgroup operations). Run once over the
// input and once (one workgroup) over the partials. T from T_U32 / T_F32; hw or emu via SG_EMULATE.
#include "subgroup.glsl"

#if defined(T_U32)
#define T uint
#elif defined(T_F32)
#define T float
#else
#error "define T_U32 or T_F32"
#endif
#include "workgroup_add.glsl"

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Values { T values[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Partials { T partials[]; };
layout(push_constant) uniform Push {
  uint n;
  uint partition_size;
} pc;

void main() {
  SG_INIT();
  uint wg_size = gl_WorkGroupSize.x;
  uint tid = SG_GROUP * SG_SIZE + SG_ID;
  uint begin = gl_WorkGroupID.x * pc.partition_size;
  uint end = min(pc.n, begin + pc.partition_size);
  // Strided by the workgroup size so that neighbouring invocations read neighbouring elements.
  T sum = T(0);
  for (uint i = begin + tid; i < end; i += wg_size) sum += values[i];
  T total = workgroup_reduce_add(sum);
  if (tid == 0u) partials[gl_WorkGroupID.x] = total;
}
