@group(0) @binding(0) var<storage, read_write> out: array<f32>;
fn f(p: ptr<function, i32>) -> i32 { *p += 1; return *p; }
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  var i = 0; loop { if (i > 3) { break; } continuing { i++; break if i > 10; } }
  for (var j = 0u; j < 4u; j++) { if (j == 2u) { continue; } out[j] = f32(j); }
  while i < 20 { i += 2; }
  switch i { case 1, 2: { out[0] = 1.0; } default: { } }
  var k = 5; _ = f(&k); out[1] = f32(k);
}
