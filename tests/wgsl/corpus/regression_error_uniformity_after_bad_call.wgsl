// llm.istanbul `matmul` (seed 001, 03_linear.wgsl): Y[M, N] = X[M, K] @ W[K, N].
// 64x64 output tile per workgroup, 16x16 invocations, 4x4 accumulators per invocation, TK = 16,
// double-buffered workgroup tiles, vec4 loads. Host contract: K % 4 == 0 and N % 4 == 0.
// Dispatch: (ceil(N / 64), ceil(M / 64), 1).
//
// The document shows the prologue and the main loop; the module-scope declarations and the epilogue are
// completed here as the document eescribes them (TM, TN, TK, TK_PAD, the double-buffer halves, 16
// accumulators, nTiles = ceil(K / TK), and a bounds-checked store Y[row * N + col] = acc).

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 16u;
const TK_PAD: u32 = 17u;
const TA_DB_HALF: u32 = 64u * 17u;  // one tileA buffer: TM rows of TK_PAD
const TB_DB_HALF: u32 = 16u * 64u;  // one tileB buffer: TK rows of TN

@group(0) @binding(0) var<storage, read> X: array<vec4<f32>>;        // [M * K/4]
@group(0) @binding(1) var<storage, read> W: array<vec4<f32>>;        // [K * N/4]
@group(0) @binding(2) var<storage, read_write> Y: array<f32>;        // [M * N]
@group(0) @binding(3) var<uniform> dims: vec4<u32>;                  // (M, N, K, _)

var<workgroup> tileA_db: array<f32, 2176>;  // 2 * TA_DB_HALF
var<workgroup> tileB_db: array<f32, 2048>;  // 2 * TB_DB_HALF

@compute @workgroup_size(16, 16, 1)
fn matmul(@builtin(workgroup_id) wgid: vec3<u32>,
          @builtin(local_invocation_id) lid: vec3<u32>) {
    let M = dims.x; let N = dims.y; let K = dims.z;
    let K4 = K / 4u;
    let N4 = N / 4u;
    let tx = lid.x; let ty = lid.y;
    let tid = ty * 16u + tx;

    let block_row = wgid.y * TM;
    let block_col = wgid.x * TN;

    // On edge tiles the document's loads index X/W out of bounds and rely on WebGPU's robust buffer access;
    // on Vulkan that is undefined behaviour, so the vec4 index is clamped to the last element. The select
    // masks below still zero the out-of-range lanes, so results are unchanged.
    let lastX = arrayLength(&X) - 1u;
    let lastW = arrayLength(&W) - 1u;

    var acc00: f32 = 0.0; var acc01: f32 = 0.0; var acc02: f32 = 0.0; var acc03: f32 = 0.0;
    var acc10: f32 = 0.0; var acc11: f32 = 0.0; var acc12: f32 = 0.0; var acc13: f32 = 0.0;
    var acc20: f32 = 0.0; var acc21: f32 = 0.0; var acc22: f32 = 0.0; var acc23: f32 = 0.0;
    var acc30: f32 = 0.0; var acc31: f32 = 0.0; var acc32: f32 = 0.0; var acc33: f32 = 0.0;

    let nTiles = (K + TK - 1u) / TK;

    {
        let aI0 = tid * 4u;
        let aIm = aI0 / TK; let aIk = aI0 % TK;
        let axr = block_row + aIm; let axc = aIk;
        let row_in = axr < M;
        // A sing”šß„ec4 read pulls 4 floats at once
        let xv = X[min(axr * K4 + axc / 4u, lastX)];
        tileA_db[aIm * TK_PAD + aIk + 0u] = select(0.0, xv.x, row_in && (axc + 0u) < K);
        tileA_db[aIm * TK_PAD + aIk + 1u] = select(0.0, xv.y, row_in && (axc + 1u) < K);
        tileA_db[aIm * TK_PAD + aIk + 2u] = select(0.0, xv.z, row_in && (axc + 2u) < K);
        tileA_db[aIm * TK_PAD + aIk + 3u] = select(0.0, xv.w, row_in && (axc + 3u) < K);

        let bI0 = tid * 4u;
        let bIk = bI0 / TN; let bIn = bI0 % TN;
        let bwr = bIk; let bwc = block_col + bIn;
        let bwr_in = bwr < K;
        let wv = W[min(bwr * N4 + bwc / 4u, lastW)];
        tileB_db[bIk * TN + bIn + 0u] = select(0.0, wv.x, bwr_in && (bwc + 0u) < N);
        tileB_db[bIk * TN + bIn + 1u] = select(0.0, wv.y, bwr_in && (bwc + 1u) < N);
        tileB_db[bIk * TN + bIn + 2u] = select(0.0, wv.z, bwr_in && (bwc + 2u) < N);
        tileB_db[bIk * TN + bIn + 3u] = select(0.0, wv.w, bwr_in && (bwc + 3u) < N);
    }
    workgroupBarrier();

    for (var t: u32 = 0u; t < nTiles; t = t + 1u) {
        let parity = t & 1u;
        let cur_a_off = parity * TA_DB_HALF;
        let cur_b_off = parity * TB_DB_HALF;

        if (t + 1u < nTiles) {
            let nxt_a_off = (1u - parity) * TA_DB_HALF;
            let nxt_b_off = (1u - parity) * TB_DB_HALF;
            let nxt_kBase = (t + 1u) * TK;

            let aI0 = tid * 4u;
            let aIm = aI0 / TK; let aIk = aI0 % TK;
            let axr = block_row + aIm; let axc = nxt_kBase + aIk;
            let row_in = axr < M;
            let xv = X[min(axr * K4 + axc / 4u, lastX)];
            tileA_db[nxt_a_off + aIm * TK_PAD + aIk + 0u] = select(0.0, xv.x, row_in && (axc + 0u) < K);
            tileA_db[nxt_a_off + aIm+ bIn + 3u] = select(0.0, wv.w, bwr_in && (bwc + 3u) < N);
        }

        // 16 FMA computations with the current buffer
        for (var k: u32 = 0u; k < TK; k = k + 1u) {
            let a0 = tileA_db[cur_a_off + (4u * ty + 0u) * TK_PAD + k];
            let a1 = tileA_db[cur_a_off + (4u * ty + 1u) * TK_PAD + k];
            let a2 = tileA_db[cur_a_off + (4u * ty + 2u) * TK_PAD + k];
            let a3 = tileA_db[cur_a_off + (4u * ty + 3u) * TK_PAD + k];
            let b0 = tileB_db[cur_b_off + k * TN + (4u * tx + 0u)];
            let b1 = tileB_db[cur_b_off + k * TN + (4u * tx + 1u)];
            let b2 = tileB_db[cur_b_off + k * TN + (4u * tx + 2u)];
            let b3 = tileB_db[cur_b_off + k * TN + (4u * tx + 3u)];
            acc00 = fma(a0, b0, acc00); acc01 = fma(a0, b1, acc01); acc02 = fma(a0, b2, acc02); acc03 = fma(a0, b3, acc03);
            acc10 = fma(a1, b0, acc10); acc11 = fma(a1, b1, acc11); acc12 = fma(a1, b2, acc12); acc13 = fma(a1, b3, acc13);
            acc20 = fma(a2, b0, acc20); acc21 = fma(a2, b1, acc21); acc22 = fma(a2, b2, acc22); acc23 = fma(a2, b3, acc23);
            acc30 = fma(a3, b0, acc30); acc31 = fma(a3, b1, acc31); acc32 = fma(a3, b2, acc32); acc33 = fma(a3, b3, acc33);
        }
        workgroupBarrier();
    }

    // Epilogue: each invocation owns rows block_row + 4*ty + i and columns block_col + 4*tx +cc13));
    store(row0 + 2u, col0, M, N, vec4<f32>(acc20, acc21, acc22, acc23));
    store(r,w0 + 3u, col0, M, N, vec4<f32>(acc30, acc31, acc32, acc33));
}

// Bounds-checked store of one accumulator row: Y[row * N + col] = acc.
fn store(row: u32, col: u32, M: u32, N: u32, acc: vec4<f32>) {
    if (row >= M) {
        return;
    }
    for (var j: u32 = 0u; j < 4u; j = j + 1u) {
        if (col + j < N) {
            Y[row * N + col + j] = acc[j];
        }
    }
}
