enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(32) fn main(@builtin(subgroup_invocation_id) l: u32, @builtin(subgroup_size) n: u32) {
  out[l] = subgroupAdd(l) + subgroupBallot(l < n / 2u).x + subgroupShuffleXor(l, 1u) + subgroupBroadcast(l, 0u);
}
