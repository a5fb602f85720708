// Surfgrad matmul ladder (seed 000), bindings as written in the document.
struct Dimensions {
  M: u32,
  K: u32,
  N: u32,
}

@group(0) @binding(0) var<uniform> dimensions: Dimensions;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> result: array<f32>;

// Kernel 4: 1x4 register tile per invocation, 16x16 workgroups. Requires N % 4 == 0 (as in the document).
// Dispatch (ceil(N / 64), ceil(M / 16)).
const BLOCKSIZE: u32 = 16;
const TILESIZE: u32 = 4;

@compute @workgroup_size(BLOCKSIZE, BLOCKSIZE)
fn main(@builtin(global_invocation_id) global_id: vec3<u32>) {
  let row = global_id.y;
  let col = global_id.x * TILESIZE;
  if (row >= dimensions.M || col >= dimensions.N) {
    return;
  }
  var sum00: f32 = 0.0;
  var sum01: f32 = 0.0;
  var sum02: f32 = 0.0;
  var sum03: f32 = 0.0;
  for (var i: u32 = 0u; i < dimensions.K; i = i + 1u) {
    let a_elem = a[row * dimensions.K + i];
    sum00 = sum00 + a_elem * b[i * dimensions.N + col];
    sum01 = sum01 + a_elem * b[i * dimensions.N + col + 1u];
    sum02 = sum02 + a_elem * b[i * dimensions.N + col + 2u];
    sum03 = sum03 + a_elem * b[i * dimensions.N + col + 3u];
  }
  result[row * dimensions.N + col] = sum00;
  result[row * dimensions.N + col + 1u] = sum01;
  result[row * dimensions.N + col + 2u] = sum02;
  result[row * dimensions.N + col + 3u] = sum03;
}
