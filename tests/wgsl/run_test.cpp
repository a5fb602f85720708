// WGSL compiled at run time and executed on the device (lavapipe in CI) with the Khronos validation layer on:
// the seed kernels against a double-precision CPU reference on random data and odd shapes, plus statement,
// built-in, atomic, workgroup-memory, override and subgroup semantics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

#include "test_support.hpp"
#include "test_util.hpp"
#include "wgsl/run.hpp"

namespace vkgemm::wgsl {
namespace {

using test::GpuTest;
using test::kPoison;
using test::near_reference;
using test::random_floats;
using test::reference_gemm;
using test::reference_gemm_abs;
using wgsl::testing::shader;

struct Shape {
  uint32_t m, n, k;
};

std::string shape_name(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

uint32_t ceil_div(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}

class WgslGpu : public GpuTest {
 protected:
  Buffer storage(const std::vector<float>& data) {
    Buffer b = ctx().create_buffer(std::max<size_t>(data.size(), 1) * 4, BufferUsage::Storage);
    if (!data.empty()) ctx().upload(b, data.data(), data.size() * 4);
    return b;
  }
  Buffer storage_u32(const std::vector<uint32_t>& data) {
    Buffer b = ctx().create_buffer(std::max<size_t>(data.size(), 1) * 4, BufferUsage::Storage);
    if (!data.empty()) ctx().upload(b, data.data(), data.size() * 4);
    return b;
  }
  Buffer output(size_t count) {
    Buffer b = ctx().create_buffer(count * 4, BufferUsage::Storage);
    ctx().fill(b, kPoison);
    return b;
  }
  Buffer uniform(const std::vector<uint32_t>& words) {
    Buffer b = ctx().create_buffer(words.size() * 4, BufferUsage::Uniform);
    ctx().upload(b, words.data(), words.size() * 4);
    return b;
  }

  // Runs a Surfgrad kernel (bindings: dims uniform {M, K, N}, a, b, result) and checks against the reference.
  void run_surfgrad(const std::string& file, const Shape& s, std::array<uint32_t, 3> groups,
                    bool robust = false) {
    Program p(ctx(), shader(file), {.file_name = file, .robust_access = robust});
    auto a = random_floats(size_t{s.m} * s.k, 1 + s.m);
    auto b = random_floats(size_t{s.k} * s.n, 2 + s.n);
    Buffer dims = uniform({s.m, s.k, s.n, 0});
    Buffer ab = storage(a), bb = storage(b), out = output(size_t{s.m} * s.n);
    p.run({{0, 0, &dims}, {0, 1, &ab}, {0, 2, &bb}, {0, 3, &out}}, groups);
    auto got = ctx().download<float>(out, size_t{s.m} * s.n);
    EXPECT_TRUE(near_reference(got, reference_gemm(a, b, s.m, s.n, s.k),
                               reference_gemm_abs(a, b, s.m, s.n, s.k), s.k))
        << file << " " << shape_name(s);
  }
};

const Shape kOddShapes[] = {{1, 1, 1}, {3, 17, 63}, {17, 65, 3}, {63, 127, 17}, {65, 3, 127}, {127, 63, 65}};

TEST_F(WgslGpu, Surfgrad01Naive) {
  for (const Shape& s : kOddShapes) run_surfgrad("surfgrad_01_naive.wgsl", s, {s.m * s.n, 1, 1});
}

TEST_F(WgslGpu, Surfgrad02Threads) {
  for (const Shape& s : kOddShapes)
    run_surfgrad("surfgrad_02_threads.wgsl", s, {ceil_div(s.m * s.n, 256), 1, 1});
}

TEST_F(WgslGpu, Surfgrad03TwoD) {
  for (const Shape& s : kOddShapes)
    run_surfgrad("surfgrad_03_2d.wgsl", s, {ceil_div(s.m, 8), ceil_div(s.n, 8), 1});
}

TEST_F(WgslGpu, Surfgrad03bTwoDRowY) {
  for (const Shape& s : kOddShapes) {
    run_surfgrad("surfgrad_03b_2d_rowy.wgsl", s, {ceil_div(s.n, 8), ceil_div(s.m, 8), 1});
  }
}

TEST_F(WgslGpu, Surfgrad04Tile1x4) {
  // As written, kernel 4 needs N % 4 == 0 (it stores 4 columns after checking the first); M and K are free.
  const Shape shapes[] = {{1, 4, 1}, {3, 68, 17}, {17, 4, 63}, {63, 128, 3}, {65, 36, 127}, {127, 64, 65}};
  for (const Shape& s : shapes) {
    run_surfgrad("surfgrad_04_tile1x4.wgsl", s, {ceil_div(s.n, 4 * 16), ceil_div(s.m, 16), 1});
  }
}

TEST_F(WgslGpu, Surfgrad05Tile4x4) {
  // As written, kernel 5 loads without bounds checks: M and N must be multiples of 4; K is free.
  const Shape shapes[] = {{4, 4, 1}, {4, 68, 17}, {16, 4, 63}, {64, 128, 3}, {68, 36, 127}, {128, 64, 65}};
  for (const Shape& s : shapes) {
    run_surfgrad("surfgrad_05_tile4x4.wgsl", s, {ceil_div(s.n, 64), ceil_div(s.m, 64), 1});
  }
}

TEST_F(WgslGpu, Surfgrad05Tile4x4OddShapesWithRobustAccess) {
  // The document's kernel 5 reads past the matrices when M or N is not a multiple of 4 (it relies on WebGPU's
  // robust buffer access). Compiled with robust_access, the same WGSL is correct on every shape.
  for (const Shape& s : kOddShapes) {
    run_surfgrad("surfgrad_05_tile4x4.wgsl", s, {ceil_div(s.n, 64), ceil_div(s.m, 64), 1}, /*robust=*/true);
  }
}

TEST_F(WgslGpu, IstanbulMatmul) {
  // Host contract of the document: K % 4 == 0 and N % 4 == 0; M is free. Edge tiles in every dimension.
  const Shape shapes[] = {{1, 4, 4}, {3, 20, 8}, {17, 68, 16}, {63, 132, 20}, {65, 64, 124}, {127, 128, 68}};
  Program p(ctx(), shader("istanbul_matmul.wgsl"), {.file_name = "istanbul_matmul.wgsl"});
  for (const Shape& s : shapes) {
    auto x = random_floats(size_t{s.m} * s.k, 10 + s.m);
    auto w = random_floats(size_t{s.k} * s.n, 20 + s.n);
    Buffer xb = storage(x), wb = storage(w), yb = output(size_t{s.m} * s.n);
    Buffer dims = uniform({s.m, s.n, s.k, 0});
    p.run({{0, 0, &xb}, {0, 1, &wb}, {0, 2, &yb}, {0, 3, &dims}}, {ceil_div(s.n, 64), ceil_div(s.m, 64), 1});
    auto got = ctx().download<float>(yb, size_t{s.m} * s.n);
    EXPECT_TRUE(near_reference(got, reference_gemm(x, w, s.m, s.n, s.k),
                               reference_gemm_abs(x, w, s.m, s.n, s.k), s.k))
        << shape_name(s);
  }
}

TEST_F(WgslGpu, GridwiseShuffleEmulation) {
  Program p(ctx(), shader("gridwise_shuffle_emu.wgsl"));
  for (uint32_t n : {1u, 3u, 255u, 256u, 257u, 1000u}) {
    std::vector<uint32_t> in(n);
    std::iota(in.begin(), in.end(), 100u);
    Buffer ib = storage_u32(in), ob = output(n);
    p.run({{0, 0, &ib}, {0, 1, &ob}}, {ceil_div(n, 256), 1, 1});
    auto got = ctx().download<uint32_t>(ob, n);
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t src = (i / 256) * 256 + (255 - i % 256);
      uint32_t want = src < n ? in[src] : 0u;
      ASSERT_EQ(got[i], want) << "n=" << n << " i=" << i;
    }
  }
}

TEST_F(WgslGpu, GridwiseShuffleHardware) {
  if (!ctx().info().has_subgroup_ops(VK_SUBGROUP_FEATURE_SHUFFLE_BIT)) GTEST_SKIP() << "no subgroup shuffle";
  Program p(ctx(), shader("gridwise_shuffle_hw.wgsl"));
  const uint32_t sg = ctx().info().subgroup_size;
  if (64 % sg != 0) GTEST_SKIP() << "subgroup size " << sg << " does not divide the workgroup";
  for (uint32_t n : {64u, 100u, 1000u}) {
    std::vector<uint32_t> in(n);
    std::iota(in.begin(), in.end(), 7u);
    Buffer ib = storage_u32(in), ob = output(n);
    p.run({{0, 0, &ib}, {0, 1, &ob}}, {ceil_div(n, 64), 1, 1});
    auto got = ctx().download<uint32_t>(ob, n);
    // Compute subgroups are made of consecutive invocation indices on the devices we run on.
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t src = (i / sg) * sg + (sg - 1 - i % sg);
      ASSERT_EQ(got[i], src < n ? in[src] : 0u) << "n=" << n << " i=" << i;
    }
  }
}

// ---- statement and built-in semantics on the device ----

TEST_F(WgslGpu, ControlFlowStatements) {
  const char* src = R"(
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

fn collatz_steps(start: i32) -> i32 {
  var n = start;
  var steps = 0;
  loop {
    if (n == 1) { break; }
    if (n % 2 == 0) { n = n / 2; } else { n = 3 * n + 1; }
    continuing {
      steps++;
      break if steps >= 1000;
    }
  }
  return steps;
}

fn classify(v: i32) -> i32 {
  switch v % 4 {
    case 0: { return 10; }
    case 1, 2: { return 20; }
    default: { return 30; }
  }
}

fn add_into(p: ptr<function, i32>, v: i32) { *p += v; }

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = i32(gid.x);
  var acc = 0;
  for (var k = 0; k < i; k++) {
    if (k % 3 == 0) { continue; }
    acc += k;
  }
  var w = 0;
  while w * w < i { w++; }
  var x = i;
  add_into(&x, 100);
  out[gid.x * 5u + 0u] = collatz_steps(i + 1);
  out[gid.x * 5u + 1u] = classify(i);
  out[gid.x * 5u + 2u] = acc;
  out[gid.x * 5u + 3u] = w;
  out[gid.x * 5u + 4u] = x;
}
)";
  Program p(ctx(), src);
  const uint32_t n = 64;
  Buffer ob = output(n * 5);
  p.run({{0, 0, &ob}}, {2, 1, 1});
  auto got = ctx().download<int32_t>(ob, n * 5);
  for (int32_t i = 0; i < static_cast<int32_t>(n); ++i) {
    int32_t c = i + 1, steps = 0;
    while (c != 1 && steps < 1000) c = (c % 2 == 0) ? c / 2 : 3 * c + 1, ++steps;
    int32_t cls = (i % 4 == 0) ? 10 : (i % 4 <= 2) ? 20 : 30;
    int32_t acc = 0;
    for (int32_t k = 0; k < i; ++k)
      if (k % 3 != 0) acc += k;
    int32_t w = 0;
    while (w * w < i) ++w;
    EXPECT_EQ(got[i * 5 + 0], steps) << i;
    EXPECT_EQ(got[i * 5 + 1], cls) << i;
    EXPECT_EQ(got[i * 5 + 2], acc) << i;
    EXPECT_EQ(got[i * 5 + 3], w) << i;
    EXPECT_EQ(got[i * 5 + 4], i + 100) << i;
  }
}

TEST_F(WgslGpu, IntegerSemantics) {
  // WGSL defines x / 0 = x, x % 0 = 0, MIN / -1 = MIN, and masks shift amounts to 5 bits.
  const char* src = R"(
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&a)) { return; }
  let x = a[i]; let y = b[i];
  out[i * 6u + 0u] = x / y;
  out[i * 6u + 1u] = x % y;
  out[i * 6u + 2u] = x << u32(y);
  out[i * 6u + 3u] = x >> u32(y);
  out[i * 6u + 4u] = i32(u32(x) / u32(y));
  out[i * 6u + 5u] = i32(countOneBits(x) + firstLeadingBit(x) + countTrailingZeros(x) + extractBits(x, 4u, 8u) + reverseBits(x));
}
)";
  std::vector<int32_t> a = {7, -7, 7, INT32_MIN, 5, 0, 12345, -1, 1 << 20, 99};
  std::vector<int32_t> b = {2, 2, 0, -1, 33, 3, -4, 0, 7, 64};
  Program p(ctx(), src);
  Buffer ab = ctx().create_buffer(a.size() * 4), bb = ctx().create_buffer(b.size() * 4);
  ctx().upload(ab, a.data(), a.size() * 4);
  ctx().upload(bb, b.data(), b.size() * 4);
  Buffer ob = output(a.size() * 6);
  p.run({{0, 0, &ab}, {0, 1, &bb}, {0, 2, &ob}}, {1, 1, 1});
  auto got = ctx().download<int32_t>(ob, a.size() * 6);
  auto first_leading = [](int32_t v) -> int32_t {
    uint32_t u = v < 0 ? ~static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
    if (u == 0) return -1;
    return 31 - __builtin_clz(u);
  };
  for (size_t i = 0; i < a.size(); ++i) {
    int32_t x = a[i], y = b[i];
    bool bad = y == 0 || (x == INT32_MIN && y == -1);
    int32_t div = bad ? x : x / y;
    int32_t rem = bad ? 0 : x % y;
    uint32_t s = static_cast<uint32_t>(y) & 31u;
    int32_t shl = static_cast<int32_t>(static_cast<uint32_t>(x) << s);
    int32_t shr = x >> s;
    uint32_t ux = static_cast<uint32_t>(x), uy = static_cast<uint32_t>(y);
    int32_t udiv = static_cast<int32_t>(uy == 0 ? ux : ux / uy);
    uint32_t rev = 0;
    for (int bit = 0; bit < 32; ++bit) rev |= ((ux >> bit) & 1u) << (31 - bit);
    int32_t ctz = ux == 0 ? 32 : __builtin_ctz(ux);
    int32_t field =
        static_cast<int32_t>(static_cast<uint32_t>(x) << 20) >> 24;  // signed extract of bits 4..11
    int32_t bits = static_cast<int32_t>(static_cast<uint32_t>(__builtin_popcount(ux) + first_leading(x) +
                                                              ctz + field + static_cast<int32_t>(rev)));
    EXPECT_EQ(got[i * 6 + 0], div) << x << " / " << y;
    EXPECT_EQ(got[i * 6 + 1], rem) << x << " % " << y;
    EXPECT_EQ(got[i * 6 + 2], shl) << x << " << " << y;
    EXPECT_EQ(got[i * 6 + 3], shr) << x << " >> " << y;
    EXPECT_EQ(got[i * 6 + 4], udiv) << x << " u/ " << y;
    EXPECT_EQ(got[i * 6 + 5], bits) << x;
  }
}

TEST_F(WgslGpu, Packed4x8IntegerBuiltins) {
  const char* src = R"(
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
  let a = x[0]; let b = x[1];
  out[0] = dot4U8Packed(a, b);
  out[1] = bitcast<u32>(dot4I8Packed(a, b));
  out[2] = pack4xU8(unpack4xU8(a));
  out[3] = pack4xI8(unpack4xI8(b));
  out[4] = pack4xU8Clamp(vec4<u32>(1u, 300u, 255u, 7u));
  out[5] = pack4xI8Clamp(vec4<i32>(-200, 100, 127, -1));
  out[6] = bitcast<u32>(unpack4xI8(a).w);
}
)";
  const uint32_t a = 0x80ff7f01u, b = 0x02fe8003u;
  Program p(ctx(), src);
  Buffer xb = storage_u32({a, b}), ob = output(7);
  p.run({{0, 0, &xb}, {0, 1, &ob}}, {1, 1, 1});
  auto got = ctx().download<uint32_t>(ob, 7);
  uint32_t du = 0;
  int32_t di = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t ua = (a >> (8 * i)) & 0xff, ub = (b >> (8 * i)) & 0xff;
    du += ua * ub;
    di += static_cast<int8_t>(ua) * static_cast<int8_t>(ub);
  }
  EXPECT_EQ(got[0], du);
  EXPECT_EQ(static_cast<int32_t>(got[1]), di);
  EXPECT_EQ(got[2], a);
  EXPECT_EQ(got[3], b);
  EXPECT_EQ(got[4], 0x07ffff01u);
  EXPECT_EQ(got[5], 0xff7f6480u);
  EXPECT_EQ(static_cast<int32_t>(got[6]), -128);
}

TEST_F(WgslGpu, FloatBuiltins) {
  const char* src = R"(
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= arrayLength(&x)) { return; }
  let v = x[i];
  let o = i * 12u;
  out[o + 0u] = sqrt(abs(v));
  out[o + 1u] = exp(v);
  out[o + 2u] = sin(v) + cos(v);
  out[o + 3u] = floor(v) + fract(v) * 10.0;
  out[o + 4u] = clamp(v, -0.5, 0.5);
  out[o + 5u] = pow(abs(v) + 1.0, 1.5);
  out[o + 6u] = fma(v, 2.0, 1.0);
  out[o + 7u] = length(vec3<f32>(v, 1.0, 2.0));
  out[o + 8u] = dot(vec4<f32>(v), vec4<f32>(1.0, 2.0, 3.0, 4.0));
  out[o + 9u] = f32(i32(v * 100.0));
  out[o + 10u] = select(-1.0, 1.0, v > 0.0);
  out[o + 11u] = unpack2x16float(pack2x16float(vec2<f32>(v, 0.0))).x;
}
)";
  std::vector<float> x = {0.0f, 0.5f, -0.75f, 1.25f, -2.5f, 3.0f, 0.1f, -0.2f};
  Program p(ctx(), src);
  Buffer xb = storage(x), ob = output(x.size() * 12);
  p.run({{0, 0, &xb}, {0, 1, &ob}}, {1, 1, 1});
  auto got = ctx().download<float>(ob, x.size() * 12);
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    double want[12] = {std::sqrt(std::fabs(v)),
                       std::exp(v),
                       std::sin(v) + std::cos(v),
                       std::floor(v) + (v - std::floor(v)) * 10.0,
                       std::clamp(v, -0.5, 0.5),
                       std::pow(std::fabs(v) + 1.0, 1.5),
                       v * 2.0 + 1.0,
                       std::sqrt(v * v + 5.0),
                       v * 10.0,
                       std::trunc(static_cast<float>(v * 100.0)),
                       v > 0 ? 1.0 : -1.0,
                       v};
    for (int k = 0; k < 12; ++k) {
      double tol = k == 11 ? 1e-3 * std::fabs(v) + 1e-7 : 1e-5 * (1.0 + std::fabs(want[k]));
      EXPECT_NEAR(got[i * 12 + k], want[k], tol) << "x=" << v << " result " << k;
    }
  }
}

TEST_F(WgslGpu, AtomicsAndWorkgroupZeroInit) {
  const char* src = R"(
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>, 16>;
@group(0) @binding(2) var<storage, read_write> zeros: array<u32>;
var<workgroup> local_hist: array<atomic<u32>, 16>;
var<workgroup> never_written: array<u32, 100>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lidx: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
  if (gid.x < arrayLength(&keys)) {
    atomicAdd(&local_hist[keys[gid.x] % 16u], 1u);
  }
  workgroupBarrier();
  if (lidx < 16u) {
    atomicAdd(&hist[lidx], atomicLoad(&local_hist[lidx]));
  }
  zeros[wg.x * 64u + lidx] = never_written[lidx] + never_written[99u - lidx % 36u];
}
)";
  const uint32_t n = 1000;
  std::vector<uint32_t> keys(n);
  for (uint32_t i = 0; i < n; ++i) keys[i] = (i * 2654435761u) >> 7;
  Program p(ctx(), src);
  const uint32_t groups = ceil_div(n, 64);
  Buffer kb = storage_u32(keys), hb = storage_u32(std::vector<uint32_t>(16, 0)), zb = output(groups * 64);
  p.run({{0, 0, &kb}, {0, 1, &hb}, {0, 2, &zb}}, {groups, 1, 1});
  auto hist = ctx().download<uint32_t>(hb, 16);
  std::vector<uint32_t> want(16, 0);
  for (uint32_t k : keys) ++want[k % 16];
  EXPECT_EQ(hist, want);
  auto zeros = ctx().download<uint32_t>(zb, groups * 64);
  EXPECT_EQ(zeros, std::vector<uint32_t>(groups * 64, 0u)) << "workgroup memory must start zeroed";
}

TEST_F(WgslGpu, OverridesSpecializeWorkgroupSizeAndValues) {
  const char* src = R"(
@id(0) override block: u32 = 64;
@id(1) override scale: f32 = 1.0;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(block)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lidx: u32) {
  if (gid.x < arrayLength(&out)) { out[gid.x] = scale * f32(lidx); }
}
)";
  Program p(ctx(), src, {.overrides = {{"block", 32.0}, {"scale", 0.5}}});
  EXPECT_EQ(p.workgroup_size()[0], 32u);
  const uint32_t n = 96;
  Buffer ob = output(n);
  p.run({{0, 0, &ob}}, {n / 32, 1, 1});
  auto got = ctx().download<float>(ob, n);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(got[i], 0.5f * static_cast<float>(i % 32)) << i;
}

TEST_F(WgslGpu, OverrideExpressionsSizeWorkgroupArraysAndWorkgroupSize) {
  const char* src = R"(
override BLOCK: u32 = 16;
override TILE = BLOCK * 4u;
override SIGNED: i32 = 8;
override HALF = select(BLOCK / 2u, 1u, BLOCK < 2u);
var<workgroup> tile: array<f32, TILE * BLOCK>;
var<workgroup> small: array<u32, HALF>;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(BLOCK, 2)
fn main(@builtin(local_invocation_index) i: u32) {
  tile[i] = f32(i + TILE);
  small[i % HALF] = i % HALF;
  workgroupBarrier();
  out[i] = tile[(i + 1u) % (TILE * BLOCK)] + f32(small[0]) + f32(SIGNED);
}
)";
  for (uint32_t block : {16u, 8u}) {
    Program p(ctx(), src, {.overrides = {{"BLOCK", static_cast<double>(block)}, {"SIGNED", -3.0}}});
    ASSERT_EQ(p.workgroup_size()[0], block);
    const uint32_t invocations = block * 2, tile = block * 4;
    Buffer ob = output(invocations);
    p.run({{0, 0, &ob}}, {1, 1, 1});
    auto got = ctx().download<float>(ob, invocations);
    for (uint32_t i = 0; i < invocations; ++i) {
      // Elements no invocation wrote must read as zero (workgroup memory is zero-initialized).
      float next = i + 1 < invocations ? static_cast<float>(i + 1 + tile) : 0.0f;
      EXPECT_EQ(got[i], next - 3.0f) << "BLOCK=" << block << " i=" << i;
    }
  }
  EXPECT_THROW(Program(ctx(), src, {.overrides = {{"TILE", 4.0}}}), InvalidArgument);
}

TEST_F(WgslGpu, SubgroupReductionsAndBallot) {
  if (!ctx().info().has_subgroup_ops(VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT)) {
    GTEST_SKIP() << "no subgroup arithmetic/ballot";
  }
  const char* src = R"(
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lidx: u32, @builtin(subgroup_size) sg: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
  let v = lidx + 1u;
  out[lidx * 4u + 0u] = subgroupAdd(v);
  out[lidx * 4u + 1u] = subgroupExclusiveAdd(v);
  out[lidx * 4u + 2u] = countOneBits(subgroupBallot(lane % 2u == 0u).x);
  out[lidx * 4u + 3u] = subgroupBroadcastFirst(v) + sg * 1000u;
}
)";
  Program p(ctx(), src);
  Buffer ob = output(64 * 4);
  p.run({{0, 0, &ob}}, {1, 1, 1});
  auto got = ctx().download<uint32_t>(ob, 64 * 4);
  const uint32_t sg = ctx().info().subgroup_size;
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t base = (i / sg) * sg;
    uint32_t sum = 0, prefix = 0;
    for (uint32_t j = base; j < base + sg; ++j) {
      sum += j + 1;
      if (j < i) prefix += j + 1;
    }
    EXPECT_EQ(got[i * 4 + 0], sum) << i;
    EXPECT_EQ(got[i * 4 + 1], prefix) << i;
    EXPECT_EQ(got[i * 4 + 2], std::min(sg, 32u) / 2) << i;
    EXPECT_EQ(got[i * 4 + 3], base + 1 + sg * 1000u) << i;
  }
}

TEST_F(WgslGpu, MatricesAndStructs) {
  const char* src = R"(
struct Params { m: mat4x4<f32>, v: vec4<f32>, scale: f32 }
@group(0) @binding(0) var<storage, read> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {
  let mv = p.m * p.v;
  let vm = p.v * p.m;
  let t = transpose(p.m);
  let m2 = mat2x2<f32>(p.v.x, p.v.y, p.v.z, p.v.w);
  for (var i = 0u; i < 4u; i++) {
    out[i] = mv[i];
    out[4u + i] = vm[i];
    out[8u + i] = t[i][(i + 1u) % 4u] * p.scale;
  }
  out[12] = determinant(m2);
  out[13] = determinant(p.m);
}
)";
  std::vector<float> params(16 + 4 + 4, 0.0f);  // m (column-major), v, scale + padding
  for (int i = 0; i < 16; ++i) params[i] = static_cast<float>((i * 7) % 11) - 5.0f;
  for (int i = 0; i < 4; ++i) params[16 + i] = static_cast<float>(i) + 0.5f;
  params[20] = 2.0f;
  Program prog(ctx(), src);
  Buffer pb = storage(params), ob = output(14);
  prog.run({{0, 0, &pb}, {0, 1, &ob}}, {1, 1, 1});
  auto got = ctx().download<float>(ob, 14);
  auto m = [&](int col, int row) { return static_cast<double>(params[col * 4 + row]); };
  auto v = [&](int i) { return static_cast<double>(params[16 + i]); };
  for (int r = 0; r < 4; ++r) {
    double mv = 0, vm = 0;
    for (int c = 0; c < 4; ++c) {
      mv += m(c, r) * v(c);
      vm += v(c) * m(r, c);
    }
    EXPECT_NEAR(got[r], mv, 1e-4) << r;
    EXPECT_NEAR(got[4 + r], vm, 1e-4) << r;
    EXPECT_NEAR(got[8 + r], m((r + 1) % 4, r) * 2.0, 1e-5) << r;  // transpose(m)[r][c] = m[c][r]
  }
  EXPECT_NEAR(got[12], v(0) * v(3) - v(2) * v(1), 1e-5);
  // Determinant of the 4x4 by cofactor expansion in double.
  std::function<double(std::vector<double>, int)> det = [&](std::vector<double> a, int n) -> double {
    if (n == 1) return a[0];
    double sum = 0;
    for (int c = 0; c < n; ++c) {
      std::vector<double> minor;
      for (int r = 1; r < n; ++r) {
        for (int k = 0; k < n; ++k) {
          if (k != c) minor.push_back(a[r * n + k]);
        }
      }
      sum += (c % 2 ? -1.0 : 1.0) * a[c] * det(minor, n - 1);
    }
    return sum;
  };
  std::vector<double> a(16);
  for (int i = 0; i < 16; ++i) a[i] = params[i];
  EXPECT_NEAR(got[13], det(a, 4), 1e-3 * (1.0 + std::fabs(det(a, 4))));
}

TEST_F(WgslGpu, StructValuesMoveBetweenBuffers) {
  const char* src = R"(
struct In { a: f32, b: vec2<f32> }
struct Out { i: In, arr: array<In, 2>, tail: u32 }
@group(0) @binding(0) var<storage, read_write> x: In;
@group(0) @binding(1) var<storage, read_write> y: Out;
@group(0) @binding(2) var<uniform> u: In;
@compute @workgroup_size(1)
fn main() {
  y.i = x;
  y.arr[1] = u;
  var l: In = u;
  l.a += 1.0;
  l.b = l.b.yx;
  y.arr[0] = l;
  y.tail = 7u;
  x = In(3.0, vec2<f32>(4.0, 5.0));
}
)";
  // In: a @0, b @8 (vec2 align 8), size 16. Out: i @0, arr @16 (stride 16), tail @48, size 64.
  std::vector<float> xv = {1.0f, 0.0f, 2.0f, 2.5f};
  std::vector<float> uv = {10.0f, 0.0f, 20.0f, 30.0f};
  Program p(ctx(), src);
  Buffer xb = storage(xv), yb = output(16);
  Buffer ub = ctx().create_buffer(16, BufferUsage::Uniform);
  ctx().upload(ub, uv.data(), 16);
  p.run({{0, 0, &xb}, {0, 1, &yb}, {0, 2, &ub}}, {1, 1, 1});
  auto y = ctx().download<float>(yb, 16);
  auto x = ctx().download<float>(xb, 4);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[2], 2.0f);
  EXPECT_EQ(y[3], 2.5f);
  EXPECT_EQ(y[4], 11.0f);  // arr[0] = l
  EXPECT_EQ(y[6], 30.0f);
  EXPECT_EQ(y[7], 20.0f);
  EXPECT_EQ(y[8], 10.0f);  // arr[1] = u
  EXPECT_EQ(y[10], 20.0f);
  EXPECT_EQ(y[11], 30.0f);
  uint32_t tail;
  std::memcpy(&tail, &y[12], 4);
  EXPECT_EQ(tail, 7u);
  EXPECT_EQ(x[0], 3.0f);
  EXPECT_EQ(x[2], 4.0f);
  EXPECT_EQ(x[3], 5.0f);
}

TEST_F(WgslGpu, F16StorageAndArithmetic) {
  if (!ctx().info().shader_f16 || !ctx().info().storage_16bit) GTEST_SKIP() << "no f16 arithmetic/storage";
  const char* src = R"(
enable f16;
@group(0) @binding(0) var<storage, read_write> h: array<vec2<f16>>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let v = h[gid.x];
  h[gid.x] = v * 2.0h + vec2<f16>(1.0h);
  out[gid.x] = f32(v.x) + f32(v.y);
}
)";
  // f16 bit patterns of 0.5, 1.5, -2, 0.25, 3, -0.5, 8, 0.125
  std::vector<uint16_t> bits = {0x3800, 0x3e00, 0xc000, 0x3400, 0x4200, 0xb800, 0x4800, 0x3000};
  std::vector<double> vals = {0.5, 1.5, -2.0, 0.25, 3.0, -0.5, 8.0, 0.125};
  Program p(ctx(), src);
  Buffer hb = ctx().create_buffer(bits.size() * 2), ob = output(4);
  ctx().upload(hb, bits.data(), bits.size() * 2);
  p.run({{0, 0, &hb}, {0, 1, &ob}}, {1, 1, 1});
  auto sums = ctx().download<float>(ob, 4);
  std::vector<uint16_t> after(bits.size());
  ctx().download(hb, after.data(), after.size() * 2);
  auto half_to_double = [](uint16_t b) {
    int e = (b >> 10) & 0x1f, m = b & 0x3ff;
    double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
    return (b & 0x8000) ? -v : v;
  };
  for (int i = 0; i < 4; ++i) EXPECT_EQ(sums[i], vals[2 * i] + vals[2 * i + 1]) << i;
  for (size_t i = 0; i < bits.size(); ++i) EXPECT_EQ(half_to_double(after[i]), vals[i] * 2.0 + 1.0) << i;
}

// Differential check of constant evaluation against the device: each expression is compiled once with literal
// operands (folded by the resolver) and once with the same values loaded from a buffer (computed on the GPU).
TEST_F(WgslGpu, ConstEvalAgreesWithTheDevice) {
  struct Case {
    const char* type;  // of the operands A, B and of the result
    const char* expr;  // operands $A and $B
    bool exact;        // compare bit patterns (integers, exact float ops) or with a tolerance
  };
  const Case cases[] = {
      {"i32", "$A * $B + ($A >> 3u)", true},
      {"i32", "$A - $B * 7i", true},
      {"i32", "$A / $B + $A % $B", true},
      {"u32", "$A * $B + ($A >> 5u) + ($B >> 1u)", true},
      {"u32", "$A / $B + $A % $B", true},
      {"u32", "($A ^ $B) | ($A & ~$B)", true},
      {"i32", "abs($A) + sign($B) + min($A, $B)", true},
      {"i32", "clamp($A, -100i, $B)", true},
      {"u32", "countOneBits($A) + reverseBits($B)", true},
      {"u32", "max($A, $B) - min($A, $B)", true},
      {"i32", "i32(f32($A) * 0.5)", true},
      {"u32", "u32(f32($B) * 1.5)", true},
      {"u32", "bitcast<u32>($A) + bitcast<u32>(f32($B))", true},
      {"f32", "$A * $B + $A", true},
      {"f32", "$A / $B - $B", true},
      {"f32", "floor($A) + ceil($B) + trunc($A * $B) + round($B)", true},
      {"f32", "abs($A) + min($A, $B) + max($A, $B) + clamp($A, -1.0, 1.0)", true},
      {"f32", "sqrt(abs($A)) + exp2($B * 0.25)", false},
      {"f32", "sin($A) + cos($B) + tanh($A * 0.1)", false},
      {"f32", "select($A, $B, $A < $B) + fract($B)", true},
      {"f32", "fma($A, $B, 1.25)", false},
      {"f32", "$A % $B + ($B % 0.75)", false},
      {"f32", "log2(abs($A) + 1.0) + exp($B * 0.1) + pow(abs($A) + 0.5, 1.25)", false},
      {"f32", "atan2($A, $B) + degrees($A) * 0.01 + radians($B)", false},
      {"f32", "saturate($A) + step($B, $A) + mix($A, $B, 0.25) + inverseSqrt(abs($B) + 1.0)", false},
      {"f32", "length($A) + sign($B) * asin(0.25) + sinh($A * 0.01)", false},
      {"i32", "($A >> 5u) + ($B << 2u) + (~$A)", true},
  };
  struct Inputs {
    int32_t ia, ib;
    uint32_t ua, ub;
    float fa, fb;
  };
  const Inputs inputs[] = {{123456789, -37, 4000000000u, 12345u, 2.75f, -1.5f},
                           {-2147483647, 3, 7u, 4294967295u, -0.125f, 8.0f},
                           {1000, -1000, 65536u, 3u, 100.5f, 0.75f}};
  auto literal = [](const char* type, const Inputs& in, bool first) {
    char buf[64];
    std::string t = type;
    if (t == "i32") {
      int32_t v = first ? in.ia : in.ib;
      // -2147483648 is not a valid literal; none of the inputs uses it.
      std::snprintf(buf, sizeof(buf), "(%di)", v);
    } else if (t == "u32") {
      std::snprintf(buf, sizeof(buf), "%uu", first ? in.ua : in.ub);
    } else {
      std::snprintf(buf, sizeof(buf), "(%.9gf)", static_cast<double>(first ? in.fa : in.fb));
    }
    return std::string(buf);
  };
  auto replace_all = [](std::string s, const std::string& from, const std::string& to) {
    for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
      s.replace(pos, from.size(), to);
    return s;
  };
  for (const Inputs& in : inputs) {
    std::string src =
        "struct In { ia: i32, ib: i32, ua: u32, ub: u32, fa: f32, fb: f32 }\n"
        "@group(0) @binding(0) var<storage, read> input: In;\n"
        "@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n"
        "@compute @workgroup_size(1) fn main() {\n";
    for (size_t i = 0; i < std::size(cases); ++i) {
      const Case& c = cases[i];
      std::string t = c.type;
      std::string prefix = t == "i32" ? "i" : t == "u32" ? "u" : "f";
      std::string folded =
          replace_all(replace_all(c.expr, "$A", literal(c.type, in, true)), "$B", literal(c.type, in, false));
      std::string runtime =
          replace_all(replace_all(c.expr, "$A", "input." + prefix + "a"), "$B", "input." + prefix + "b");
      src += "  const c" + std::to_string(i) + ": " + t + " = " + folded + ";\n";
      src += "  out[" + std::to_string(2 * i) + "] = bitcast<u32>(c" + std::to_string(i) + ");\n";
      src += "  out[" + std::to_string(2 * i + 1) + "] = bitcast<u32>(" + runtime + ");\n";
    }
    src += "}\n";
    Program p(ctx(), src, {.file_name = "consteval_vs_device.wgsl"});
    std::vector<uint32_t> words(6);
    std::memcpy(&words[0], &in.ia, 4);
    std::memcpy(&words[1], &in.ib, 4);
    words[2] = in.ua;
    words[3] = in.ub;
    std::memcpy(&words[4], &in.fa, 4);
    std::memcpy(&words[5], &in.fb, 4);
    Buffer ib = storage_u32(words), ob = output(2 * std::size(cases));
    p.run({{0, 0, &ib}, {0, 1, &ob}}, {1, 1, 1});
    auto got = ctx().download<uint32_t>(ob, 2 * std::size(cases));
    for (size_t i = 0; i < std::size(cases); ++i) {
      uint32_t folded = got[2 * i], device = got[2 * i + 1];
      if (cases[i].exact) {
        EXPECT_EQ(folded, device) << cases[i].expr << " with inputs #" << (&in - inputs);
      } else {
        float f, d;
        std::memcpy(&f, &folded, 4);
        std::memcpy(&d, &device, 4);
        EXPECT_NEAR(f, d, 1e-5 * (1.0 + std::fabs(d))) << cases[i].expr << " with inputs #" << (&in - inputs);
      }
    }
  }
}

TEST_F(WgslGpu, CompileErrorsAndBindingMistakesAreReported) {
  try {
    Program bad(ctx(), "@compute @workgroup_size(1) fn main() { let x: u32 = -1; }",
                {.file_name = "bad.wgsl"});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.wgsl:1:"), std::string::npos) << e.what();
  }
  Program p(ctx(), shader("gridwise_shuffle_emu.wgsl"));
  Buffer ib = storage_u32({1, 2, 3});
  Recorder rec(ctx());
  EXPECT_THROW(p.dispatch(rec, {{0, 0, &ib}}, {1, 1, 1}), InvalidArgument);  // binding 1 missing
  Buffer u = uniform({1, 2, 3, 4});
  EXPECT_THROW(p.dispatch(rec, {{0, 0, &ib}, {0, 1, &u}}, {1, 1, 1}), InvalidArgument);  // wrong kind
  EXPECT_THROW(p.dispatch(rec, {{0, 0, &ib}, {0, 1, &ib}, {1, 0, &ib}}, {1, 1, 1}),
               InvalidArgument);  // extra
}

}  // namespace
}  // namespace vkgemm::wgsl

namespace vkgemm::wgsl {
namespace {

// A uniform buffer holding a 2-row matrix uses WGSL's layout (columns 8 bytes apart), which Vulkan accepts
// only with uniformBufferStandardLayout; the runtime enables it where the device has it.
TEST(WgslUniformLayout, TwoRowMatrixInAUniformBuffer) {
  Context& ctx = vkgemm::test::context();
  size_t before = vkgemm::test::validation_messages().size();
  const char* src = R"(
struct U { m: mat2x2<f32>, s: f32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {
  out[0] = u.m[0][0]; out[1] = u.m[0][1]; out[2] = u.m[1][0]; out[3] = u.m[1][1]; out[4] = u.s;
}
)";
  if (!ctx.info().uniform_standard_layout) {
    EXPECT_THROW(Program(ctx, src), UnsupportedError);
    return;
  }
  const float host[5] = {1.5f, -2.0f, 3.25f, 4.0f, 7.0f};  // columns at 0 and 8, s at 16
  Buffer ub = ctx.create_buffer(32, BufferUsage::Uniform);
  ctx.upload(ub, host, sizeof(host));
  Buffer ob = ctx.create_buffer(5 * 4);
  ctx.fill(ob, vkgemm::test::kPoison);
  Program prog(ctx, src);
  prog.run({{0, 0, &ub}, {0, 1, &ob}}, {1, 1, 1});
  auto got = ctx.download<float>(ob, 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(got[i], host[i]) << i;
  EXPECT_EQ(vkgemm::test::validation_messages().size(), before);
}

}  // namespace
}  // namespace vkgemm::wgsl
