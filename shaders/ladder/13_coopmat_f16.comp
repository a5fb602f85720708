#version 450 core
// Kernel 13 (beyond the seeds): tensor cores through VK_NV_cooperative_matrix.
// f32 in, f32 out; A and B are rounded to f16 while being copied to shared memory, multiplied on tensor cores with
// the 16x8x16 f16-accumulating shape (the fast path on Hopper's Vulkan driver, see shared/references.md), and every
// PROMOTE_K elements of K the f16 partial sums are added into f32 accumulators, which bounds the f16 rounding error
// to PROMOTE_K terms. BM x BN tile per workgroup (default 128x128), 8 subgroups of 32 (default 2 x 4, each a 64x32
// warp tile of 4x4 fragments). With INPUT_F16 the operands arrive in f16 (the host converts them in one pass).
// Same ABI and constraints as kernel 10 (A=0, B=1, C=2, dims uniform (M, N, K, _) at 3; K % 4 == 0, N % 4 == 0).
// Needs subgroup size 32 (NVIDIA).
#pragma use_vulkan_memory_model
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
#ifdef INPUT_F16
// Operands already in f16 (8 halves per uvec4): K % 8 == 0 and N % 8 == 0.
layout(std430, set = 0, binding = 0) readonly buffer ABuffer { uvec4 A16[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { uvec4 B16[]; };
#else
layout(std430, set = 0, binding = 0) readonly buffer ABuffer { vec4 A[]; };
layout(std430, set = 0, binding = 1) readonly buffer BBuffer { vec4 B[]; };
#endif
layout(std430, set = 0, binding = 2) writeonly buffer CBuffer { float C[]; };
layout(std140, set = 0, binding = 3) uniform Dims { uvec4 dims; };

#ifndef BK
#define BK 32u
#endif
#ifndef BM
#define BM 128u
#endif
#ifndef BN
#define BN 128u
#endif
#ifndef WARPS_N
#define WARPS_N 4u  // subgroups across N; 8 / WARPS_N across M
#endif
#ifndef PROMOTE_K
#define PROMOTE_K 64u
#endif
const uint LM = 16u, LN = 8u, LK = 16u;   // fragment shape
const uint WARPS_M = 8u / WARPS_N;
const uint FRAG_ROWS = BM / WARPS_M / LM;  // fragments per subgroup
const uint FRAG_COLS = BN / WARPS_N / LN;
const uint PAD = 8u;                      // halves of padding per shared row (bank spread)
const uint A_STRIDE = (BK + PAD) / 8u;    // shared A row stride in uvec4 (8 halves each)
const uint B_STRIDE = (BN + PAD) / 8u;
shared uvec4 As[BM * A_STRIDE];
shared uvec4 Bs[BK * B_STRIDE];
shared float scratch[8u * LM * LN];       // per-subgroup staging for edge fragments
const uint A_PER_THREAD = BM * BK / 8u / 256u;  // uvec4 (8 halves) of A per thread per K step
const uint B_PER_THREAD = BK * BN / 8u / 256u;

uvec4 a_reg[A_PER_THREAD], b_reg[B_PER_THREAD];

// Packs 8 floats (two vec4) into 8 halves.
uvec4 pack8(vec4 lo, vec4 hi) {
  return uvec4(packHalf2x16(lo.xy), packHalf2x16(lo.zw), packHalf2x16(hi.xy), packHalf2x16(hi.zw));
}

#ifdef INPUT_F16
uvec4 load_a8(uint r, uint c8, uint M, uint K8) {
  uvec4 v = A16[min(r, M - 1u) * K8 + min(c8, K8 - 1u)];
  return (r < M && c8 < K8) ? v : uvec4(0u);
}
uvec4 load_b8(uint r, uint c8, uint K, uint N8) {
  uvec4 v = B16[min(r, K - 1u) * N8 + min(c8, N8 - 1u)];
  return (r < K && c8 < N8) ? v : uvec4(0u);
}
#else
vec4 load_a(uint r, uint c4, uint M, uint K4) {
  vec4 v = A[min(r, M - 1u) * K4 + min(c4, K4 - 1u)];
  return (r < M && c4 < K4) ? v : vec4(0.0);
}
vec4 load_b(uint r, uint c4, uint K, uint N4) {
  vec4 v = B[min(r, K - 1u) * N4 + min(c4, N4 - 1u)];
  return (r < K && c4 < N4) ? v : vec4(0.0);
}
#endif

// Global -> registers for K step k0: A is BM rows x BK/8 uvec4, B is BK rows x BN/8 uvec4.
void fetch(uint tid, uint row0, uint col0, uint k0, uint M, uint N, uint K) {
  uint K4 = K / 4u, N4 = N / 4u;
  [[unroll]] for (uint i = 0u; i < A_PER_THREAD; i++) {
    uint idx = tid + 256u * i;
    uint r = idx / (BK / 8u), c8 = idx % (BK / 8u);  // row, group of 8 k
#ifdef INPUT_F16
    a_reg[i] = load_a8(row0 + r, k0 / 8u + c8, M, K / 8u);
#else
    uint c4 = k0 / 4u + 2u * c8;
    a_reg[i] = pack8(load_a(row0 + r, c4, M, K4), load_a(row0 + r, c4 + 1u, M, K4));
#endif
  }
  [[unroll]] for (uint i = 0u; i < B_PER_THREAD; i++) {
    uint idx = tid + 256u * i;
    uint kr = idx / (BN / 8u), n8 = idx % (BN / 8u);  // k row, group of 8 n
#ifdef INPUT_F16
    b_reg[i] = load_b8(k0 + kr, col0 / 8u + n8, K, N / 8u);
#else
    uint n4 = col0 / 4u + 2u * n8;
    b_reg[i] = pack8(load_b(k0 + kr, n4, K, N4), load_b(k0 + kr, n4 + 1u, K, N4));
#endif
  }
}

void stash(uint tid) {
  [[unroll]] for (uint i = 0u; i < A_PER_THREAD; i++) {
    uint idx = tid + 256u * i;
    As[(idx / (BK / 8u)) * A_STRIDE + idx % (BK / 8u)] = a_reg[i];
  }
  [[unroll]] for (uint i = 0u; i < B_PER_THREAD; i++) {
    uint idx = tid + 256u * i;
    Bs[(idx / (BN / 8u)) * B_STRIDE + idx % (BN / 8u)] = b_reg[i];
  }
}

void main() {
  uint M = dims.x, N = dims.y, K = dims.z;
  uint tid = gl_LocalInvocationID.x;
  uint warp = gl_SubgroupID;
  uint warp_m = warp / WARPS_N, warp_n = warp % WARPS_N;
  uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;

  fcoopmatNV<16, gl_ScopeSubgroup, LM, LN> acc16[FRAG_ROWS][FRAG_COLS];
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc32[FRAG_ROWS][FRAG_COLS];
  [[unroll]] for (uint i = 0u; i < FRAG_ROWS; i++) {
    [[unroll]] for (uint j = 0u; j < FRAG_COLS; j++) {
      acc16[i][j] = fcoopmatNV<16, gl_ScopeSubgroup, LM, LN>(0.0);
      acc32[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);
    }
  }

  fetch(tid, row0, col0, 0u, M, N, K);
  for (uint k0 = 0u; k0 < K; k0 += BK) {
    barrier();  // everyone is done reading the previous step's tiles
    stash(tid);
    barrier();
    if (k0 + BK < K) fetch(tid, row0, col0, k0 + BK, M, N, K);  // overlaps the math below

    [[unroll]] for (uint kk = 0u; kk < BK; kk += LK) {
      fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> a[FRAG_ROWS];
      [[unroll]] for (uint i = 0u; i < FRAG_ROWS; i++) {
        uint r = (warp_m * FRAG_ROWS + i) * LM;
        coopMatLoadNV(a[i], As, r * A_STRIDE + kk / 8u, A_STRIDE, false);
      }
      [[unroll]] for (uint j = 0u; j < FRAG_COLS; j++) {
        fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> b;
        uint c = (warp_n * FRAG_COLS + j) * LN;
        coopMatLoadNV(b, Bs, kk * B_STRIDE + c / 8u, B_STRIDE, false);
        [[unroll]] for (uint i = 0u; i < FRAG_ROWS; i++) acc16[i][j] = coopMatMulAddNV(a[i], b, acc16[i][j]);
      }
    }
    if ((k0 + BK) % PROMOTE_K == 0u || k0 + BK >= K) {
      [[unroll]] for (uint i = 0u; i < FRAG_ROWS; i++) {
        [[unroll]] for (uint j = 0u; j < FRAG_COLS; j++) {
          acc32[i][j] = acc32[i][j] + fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(acc16[i][j]);
          acc16[i][j] = fcoopmatNV<16, gl_ScopeSubgroup, LM, LN>(0.0);
        }
      }
    }
  }

  // Full fragments go straight to C; fragments on the M/N edge go through shared memory with bounds checks.
  uint lane = gl_SubgroupInvocationID;
  [[unroll]] for (uint i = 0u; i < FRAG_ROWS; i++) {
    [[unroll]] for (uint j = 0u; j < FRAG_COLS; j++) {
      uint gi = row0 + (warp_m * FRAG_ROWS + i) * LM;
      uint gj = col0 + (warp_n * FRAG_COLS + j) * LN;
      if (gi >= M || gj >= N) continue;  // uniform across the subgroup
      if (gi + LM <= M && gj + LN <= N) {
        coopMatStoreNV(acc32[i][j], C, gi * N + gj, N, false);
      } else {
        coopMatStoreNV(acc32[i][j], scratch, warp * LM * LN, LN, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        [[unroll]] for (uint e = lane; e < LM * LN; e += 32u) {
          uint r = gi + e / LN, c = gj + e % LN;
          if (r < M && c < N) C[r * N + c] = scratch[warp * LM * LN + e];
        }
        subgroupBarrier();
      }
    }
  }
}
