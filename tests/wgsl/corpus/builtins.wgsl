@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let x = out[gid.x];
  out[0] = sqrt(abs(x)) + clamp(x, 0.0, 1.0) + dot(vec3(x), vec3(1.0)) + f32(countOneBits(gid.x));
  out[1] = f32(extractBits(gid.x, 1u, 3u)) + mix(x, 2.0, 0.5) + length(vec2(x, 1.0));
}
