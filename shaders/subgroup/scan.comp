#version 450
// Device-wide exclusive prefix sum, scan pass: workgroup g scans its partition [g * partition_size, min(n, (g + 1) *
// partition_size)) tile by tile (tile = workgroup size x ITEMS contiguous elements, ITEMS per invocation), carrying the
// running total across tiles, and adds carries[g] when has_carry != 0 (the scanned partition sums from the
// reduce pass). With one workgroup and no carry it is a complete scan (used for the partials themselves).
// T from T_U32 / T_F32; hw or emu via SG_EMULATE.
#include "subgroup.glsl"

#if defined(T_U32)
#define T uint
#elif defined(T_F32)
#define T float
#else
#error "define T_U32 or T_F32"
#endif
#include "workgroup_add.glsl"

#ifndef ITEMS
#define ITEMS 4u
#endif

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Values { T values[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Scanned { T scanned[]; };
layout(std430, set = 0, binding = 2) readonly buffer Carries { T carries[]; };
layout(push_constant) uniform Push {
  uint n;
  uint partition_size;
  uint has_carry;
} pc;

void main() {
  SG_INIT();
  uint tile = gl_WorkGroupSize.x * ITEMS;
  uint tid = SG_GROUP * SG_SIZE + SG_ID;
  uint begin = gl_WorkGroupID.x * pc.partition_size;
  uint end = min(pc.n, begin + pc.partition_size);
  T carry = pc.has_carry != 0u ? carries[gl_WorkGroupID.x] : T(0);
  for (uint tile_begin = begin; tile_begin < end; tile_begin += tile) {
    uint first = tile_begin + tid * ITEMS;
    T items[ITEMS];
    T local_sum = T(0);
    for (uint j = 0u; j < ITEMS; ++j) {
      uint i = first + j;
      items[j] = local_sum;
      local_sum += i < end ? values[i] : T(0);
    }
    T tile_total;
    T offset = carry + workgroup_exclusive_add(local_sum, tile_total);
    for (uint j = 0u; j < ITEMS; ++j) {
      uint i = first + j;
      if (i < end) scanned[i] = offset + items[j];
    }
    carry += tile_total;
  }
}
