struct C { n: atomic<u32>, m: atomic<i32> }
@group(0) @binding(0) var<storage, read_write> c: C;
var<workgroup> w: array<atomic<u32>, 4>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {
  atomicAdd(&w[i % 4u], 1u); workgroupBarrier();
  let r = atomicCompareExchangeWeak(&c.n, 0u, atomicLoad(&w[0]));
  atomicMax(&c.m, i32(r.old_value));
}
