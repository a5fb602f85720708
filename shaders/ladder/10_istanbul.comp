#version 450
// Kernel 10 (seed 001, llm.istanbul `matmul`): Y[M,N] = X[M,K] @ W[K,N].
// 64x64 output tile per workgroup, 16x16 threads, 4x4 accumulators per thread, K in steps of TK=16 through
// double-buffered shared memory (A rows padded to TK_PAD=17 against bank conflicts), vec4 global loads.
// Bind-group ABI and dispatch shape as in the seed: X=0, W=1, Y=2, dims=3 (M, N, K, _); grid (ceil(N/64), ceil(M/64)).
// Needs K % 4 == 0 and N % 4 == 0 (vec4 rows).
// The seed relies on WebGPU's robust buffer access for loads past the edge; Vulkan gives no such guarantee, so
// edge loads clamp their index to a valid element and the select() masks zero them, as in the seed.
layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer XBuffer { vec4 X[]; };
layout(std430, set = 0, binding = 1) readonly buffer WBuffer { vec4 W[]; };
layout(std430, set = 0, binding = 2) writeonly buffer YBuffer { float Y[]; };
layout(std140, set = 0, binding = 3) uniform Dims { uvec4 dims; };

const uint TM = 64u;
const uint TN = 64u;
const uint TK = 16u;
const uint TK_PAD = 17u;
const uint TA_DB_HALF = TM * TK_PAD;  // 1088 floats
const uint TB_DB_HALF = TK * TN;      // 1024 floats
shared float tileA_db[2u * TA_DB_HALF];
shared float tileB_db[2u * TB_DB_HALF];

// Loads the 64x16 A tile and the 16x64 B tile of K-step `kBase` into the buffers at offsets a_off / b_off.
// 256 threads x one vec4 each = 1024 floats per tile.
void load_tiles(uint tid, uint block_row, uint block_col, uint kBase, uint a_off, uint b_off, uint M, uint N,
                uint K) {
  uint K4 = K / 4u, N4 = N / 4u;
  uint aI0 = tid * 4u;
  uint aIm = aI0 / TK, aIk = aI0 % TK;
  uint axr = block_row + aIm, axc = kBase + aIk;
  bool row_in = axr < M;
  vec4 xv = X[min(axr, M - 1u) * K4 + min(axc / 4u, K4 - 1u)];
  tileA_db[a_off + aIm * TK_PAD + aIk + 0u] = (row_in && axc + 0u < K) ? xv.x : 0.0;
  tileA_db[a_off + aIm * TK_PAD + aIk + 1u] = (row_in && axc + 1u < K) ? xv.y : 0.0;
  tileA_db[a_off + aIm * TK_PAD + aIk + 2u] = (row_in && axc + 2u < K) ? xv.z : 0.0;
  tileA_db[a_off + aIm * TK_PAD + aIk + 3u] = (row_in && axc + 3u < K) ? xv.w : 0.0;

  uint bI0 = tid * 4u;
  uint bIk = bI0 / TN, bIn = bI0 % TN;
  uint bwr = kBase + bIk, bwc = block_col + bIn;
  bool bwr_in = bwr < K;
  vec4 wv = W[min(bwr, K - 1u) * N4 + min(bwc / 4u, N4 - 1u)];
  tileB_db[b_off + bIk * TN + bIn + 0u] = (bwr_in && bwc + 0u < N) ? wv.x : 0.0;
  tileB_db[b_off + bIk * TN + bIn + 1u] = (bwr_in && bwc + 1u < N) ? wv.y : 0.0;
  tileB_db[b_off + bIk * TN + bIn + 2u] = (bwr_in && bwc + 2u < N) ? wv.z : 0.0;
  tileB_db[b_off + bIk * TN + bIn + 3u] = (bwr_in && bwc + 3u < N) ? wv.w : 0.0;
}

void main() {
  uint M = dims.x, N = dims.y, K = dims.z;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint tid = ty * 16u + tx;
  uint block_row = gl_WorkGroupID.y * TM;
  uint block_col = gl_WorkGroupID.x * TN;
  uint nTiles = (K + TK - 1u) / TK;

  float acc[4][4];
  for (uint i = 0u; i < 4u; i++)
    for (uint j = 0u; j < 4u; j++) acc[i][j] = 0.0;

  load_tiles(tid, block_row, block_col, 0u, 0u, 0u, M, N, K);
  barrier();

  for (uint t = 0u; t < nTiles; t++) {
    uint parity = t & 1u;
    uint cur_a_off = parity * TA_DB_HALF;
    uint cur_b_off = parity * TB_DB_HALF;
    // Prefetch tile t+1 into the other half while this one is consumed.
    if (t + 1u < nTiles)
      load_tiles(tid, block_row, block_col, (t + 1u) * TK, (1u - parity) * TA_DB_HALF, (1u - parity) * TB_DB_HALF,
                 M, N, K);
    for (uint k = 0u; k < TK; k++) {
      float a0 = tileA_db[cur_a_off + (4u * ty + 0u) * TK_PAD + k];
      float a1 = tileA_db[cur_a_off + (4u * ty + 1u) * TK_PAD + k];
      float a2 = tileA_db[cur_a_off + (4u * ty + 2u) * TK_PAD + k];
      float a3 = tileA_db[cur_a_off + (4u * ty + 3u) * TK_PAD + k];
      float b0 = tileB_db[cur_b_off + k * TN + (4u * tx + 0u)];
      float b1 = tileB_db[cur_b_off + k * TN + (4u * tx + 1u)];
      float b2 = tileB_db[cur_b_off + k * TN + (4u * tx + 2u)];
      float b3 = tileB_db[cur_b_off + k * TN + (4u * tx + 3u)];
      acc[0][0] = fma(a0, b0, acc[0][0]); acc[0][1] = fma(a0, b1, acc[0][1]);
      acc[0][2] = fma(a0, b2, acc[0][2]); acc[0][3] = fma(a0, b3, acc[0][3]);
      acc[1][0] = fma(a1, b0, acc[1][0]); acc[1][1] = fma(a1, b1, acc[1][1]);
      acc[1][2] = fma(a1, b2, acc[1][2]); acc[1][3] = fma(a1, b3, acc[1][3]);
      acc[2][0] = fma(a2, b0, acc[2][0]); acc[2][1] = fma(a2, b1, acc[2][1]);
      acc[2][2] = fma(a2, b2, acc[2][2]); acc[2][3] = fma(a2, b3, acc[2][3]);
      acc[3][0] = fma(a3, b0, acc[3][0]); acc[3][1] = fma(a3, b1, acc[3][1]);
      acc[3][2] = fma(a3, b2, acc[3][2]); acc[3][3] = fma(a3, b3, acc[3][3]);
    }
    barrier();
  }

  for (uint i = 0u; i < 4u; i++) {
    uint row = block_row + 4u * ty + i;
    if (row >= M) break;
    for (uint j = 0u; j < 4u; j++) {
      uint col = block_col + 4u * tx + j;
      if (col < N) Y[row * N + col] = acc[i][j];
    }
  }
}
