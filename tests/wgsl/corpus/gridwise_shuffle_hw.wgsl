// Gridwise (seed 002), "hw" configuration of the same kernel: `enable subgroups;` and the real
// subgroupShuffle. Reverses each subgroup's block of `input` (lane i reads lane sgsz - 1 - i).
enable subgroups;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(subgroup_invocation_id) sgid: u32,
        @builtin(subgroup_size) sgsz: u32) {
  let n = arrayLength(&input);
  let i = gid.x;
  let mine = select(0u, input[min(i, n - 1u)], i < n);
  let reversed = subgroupShuffle(mine, sgsz - 1u - sgid);
  if (i < n) {
    output[i] = reversed;
  }
}
