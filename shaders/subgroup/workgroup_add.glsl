// Workgroup-wide add reduction and exclusive add scan of T built on the subgroup operations of
// subgroup.glsl (include that first and define T). Call in workgroup-uniform control flow; the workgroup size
// must be a multiple of the subgroup size (always true in the emu build, where SG_COUNT == 1 and the
// cross-subgroup step folds away).
#ifndef VKGEMM_WORKGROUP_ADD_GLSL
#define VKGEMM_WORKGROUP_ADD_GLSL

shared T wg_subgroup_totals[SG_MAX_SUBGROUPS];

// Combines per-subgroup totals: returns the sum of the totals of subgroups before this one in `prefix` and
// of all subgroups as the result.
T workgroup_combine_totals(T subgroup_total, out T prefix) {
  prefix = T(0);
  if (SG_COUNT == 1u) return subgroup_total;
  if (subgroupElect()) wg_subgroup_totals[SG_GROUP] = subgroup_total;
  memoryBarrierShared();
  barrier();
  T total = T(0);
  for (uint base = 0u; base < SG_COUNT; base += SG_SIZE) {
    uint i = base + SG_ID;
    T v = i < SG_COUNT ? wg_subgroup_totals[i] : T(0);
    prefix += subgroupAdd(i < SG_GROUP ? v : T(0));
    total += subgroupAdd(v);
  }
  // The totals are rewritten by the next call.
  barrier();
  return total;
}

T workgroup_reduce_add(T x) {
  T prefix;
  return workgroup_combine_totals(subgroupAdd(x), prefix);
}

// Exclusive prefix sum over the workgroup in subgroup-major order (SG_GROUP, SG_ID); `total` receives the sum.
T workgroup_exclusive_add(T x, out T total) {
  T excl = subgroupExclusiveAdd(x);
  // The last lane's inclusive value is the subgroup total.
  T subgroup_total = subgroupBroadcast(excl + x, SG_SIZE - 1u);
  T prefix;
  total = workgroup_combine_totals(subgroup_total, prefix);
  return prefix + excl;
}

#endif
