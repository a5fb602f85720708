#version 450
// Device-wide exclusive prefix sum, scan pass: workgroup g scans its partition [g * partition_size, min(n, (g + 1) *
// partition_size)) tile by tile (tile = workgroup size x ITEMS contiguous elements, ITEMS per invocation), carrying the
// running total across tiles, and adds carries[g] when has_carry != 0 (the scanned partition sums from the
// reduce pass). With one workgroup and no carry it is a complete scan (used for the partials themselves).
// T from T_U32 / T_F32; hw or emu via SG_EMULATE.
#include "subgroup.glsl"

#if defined(T_U32)
#define T uint
#define T4 uvec4
#elif defined(T_F32)
#define T float
#define T4 vec4
#else
#error "define T_U32 or T_F32"
#endif
#include "workgroup_add.glsl"

// Elements per invocation per tile, contiguous; loaded and stored as vec4 where the whole vec4 is in range.
#define ITEMS 4u

layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer Values { T values[]; };
layout(std430, set = 0, binding = 0) readonly buffer Values4 { T4 values4[]; };  // same buffer, vec4 view
layout(std430, set = 0, binding = 1) writeonly buffer Scanned { T scanned[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Scanned4 { T4 scanned4[]; };
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
    // begin is 0 or a multiple of the tile (host side), so `first` is 16-byte aligned.
    bool whole = first + ITEMS <= end;
    T4 v = T4(0);
    if (whole) {
      v = values4[first / 4u];
    } else {
      for (uint j = 0u; j < ITEMS; ++j)
        if (first + j < end) v[j] = values[first + j];
    }
    T4 items = T4(T(0), v.x, v.x + v.y, v.x + v.y + v.z);  // exclusive within the invocation
    T local_sum = items.w + v.w;
    T tile_total;
    T offset = carry + workgroup_exclusive_add(local_sum, tile_total);
    items += T4(offset);
    if (whole) {
      scanned4[first / 4u] = items;
    } else {
      for (uint j = 0u; j < ITEMS; ++j)
        if (first + j < end) scanned[first + j] = items[j];
    }
    carry += tile_total;
  }
}
