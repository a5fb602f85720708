const a = 1 << 10;
const b = vec3(1, 2, 3) * 2;
const c = array(1.0, 2.0)[1] + f32(b.z);
override o: u32 = 16;
const_assert a == 1024;
@compute @workgroup_size(o) fn main() { _ = c; }
