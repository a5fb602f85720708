// Gridwise subgroup emulation (seed 002): `subgroupShuffle` shadowed by a user function that communicates
// through workgroup memory, with the emulated subgroup size equal to the workgroup size (256). The kernel
// reverses each workgroup's block of `input` (lane i reads lane 255 - i) using only the shadowed built-in.
// No `enable subgroups;`: this is the "emu" configuration.

var<workgroup> wg_sw_subgroups: array<u32, 256>;
const sgsz: u32 = 256;
var<private> sgid: u32;

fn subgroupShuffle(x: u32, source: u32) -> u32 {
  /* subgroup emulation must pass through wg_sw_subgroups */
  /* write my value to workgroup memory */
  wg_sw_subgroups[sgid] = bitcast<u32>(x);
  workgroupBarrier();
  var shuffled: u32 = bitcast<u32>(wg_sw_subgroups[source]);
  workgroupBarrier();
  return shuffled;
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lidx: u32,
        @builtin(workgroup_id) wgid: vec3<u32>) {
  sgid = lidx;  // initializeSubgroupVars(): the emulated subgroup invocation id
  let n = arrayLength(&input);
  let i = gid.x;
  // Every invocation takes part in the shuffle (it contains barriers); out-of-range lanes contribute 0.
  let mine = select(0u, input[min(i, n - 1u)], i < n);
  let reversed = subgroupShuffle(mine, sgsz - 1u - sgid);
  let src = wgid.x * sgsz + (sgsz - 1u - sgid);
  if (i < n) {
    output[i] = select(0u, reversed, src < n);
  }
}
