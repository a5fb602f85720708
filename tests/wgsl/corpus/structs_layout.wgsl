enable f16;
struct S { a: f32, @align(16) b: vec3<f32>, @size(32) c: u32, h: vec2<f16>, m: mat2x4<f32>, rt: array<vec4<f32>> }
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(1) fn main() { s.rt[arrayLength(&s.rt) - 1u] = s.m[1] * f32(s.h.x); }
