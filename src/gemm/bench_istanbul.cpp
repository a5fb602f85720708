#include "gemm/bench_istanbul.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "gemm/gemm.hpp"

namespace vkgemm {

namespace {

// Deterministic uniform floats in [-1, 1).
std::vector<float> random_values(size_t count, uint64_t seed) {
  std::vector<float> v(count);
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>((s >> 40) * (1.0 / (1ull << 24))) * 2.0f - 1.0f;
  }
  return v;
}

double silu_mul(float g, float u) {
  return double(g) / (1.0 + std::exp(-double(g))) * double(u);
}

struct Reference {
  double value = 0;
  double scale = 0;  // sum of |terms|: the scale of the rounding error
};

struct Variant {
  std::string name;
  std::function<void(GemmRecorder&)> record;
  Tensor* out = nullptr;
  const std::vector<float>* init = nullptr;  // starting contents of the output (accumulating variants)
  std::function<Reference(uint32_t row, uint32_t col)> reference;
  uint32_t reduction = 0;  // length of the dot products
  bool swiglu = false;     // the activation's exp adds rounding error of its own
  uint64_t weight_bytes = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::vector<IstanbulShape> istanbul_bench_shapes() {
  return {{512, 768, 768}, {512, 3072, 768}, {512, 16384, 768}, {512, 768, 3072}};
}

std::vector<IstanbulBenchRow> run_istanbul_bench(Context& ctx, int reps,
                                                 std::function<void(const std::string&)> progress) {
  return run_istanbul_bench(ctx, reps, std::move(progress), istanbul_bench_shapes());
}

std::vector<IstanbulBenchRow> run_istanbul_bench(Context& ctx, int reps,
                                                 std::function<void(const std::string&)> progress,
                                                 const std::vector<IstanbulShape>& shapes) {
  if (reps < 1)
    throw InvalidArgument("run_istanbul_bench: reps must be at least 1 (got " + std::to_string(reps) + ")");
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  const bool f16_ok = !dtype_unsupported_reason(ctx.info(), DType::f16);
  if (!f16_ok) say("f16 weights unsupported on " + ctx.info().name + ": skipping the _w16 variants");
  std::vector<IstanbulBenchRow> rows;

  for (const IstanbulShape& s : shapes) {
    const uint32_t M = s.m, N = s.n, K = s.k;
    uint64_t seed = uint64_t(M) * 1000003u + N * 101u + K;
    auto x = random_values(size_t(M) * K, seed + 1), w = random_values(size_t(K) * N, seed + 2),
         r = random_values(size_t(M) * N, seed + 3), gate = random_values(size_t(M) * K, seed + 4),
         up = random_values(size_t(M) * K, seed + 5), dy = random_values(size_t(M) * N, seed + 6),
         dx0 = random_values(size_t(M) * K, seed + 7), dw0 = random_values(size_t(K) * N, seed + 8);
    auto w_half = round_to_half(w);  // what the _w16 kernels read
    Tensor tx = Tensor::from_floats(ctx, M, K, x), tw = Tensor::from_floats(ctx, K, N, w),
           tr = Tensor::from_floats(ctx, M, N, r), tgate = Tensor::from_floats(ctx, M, K, gate),
           tup = Tensor::from_floats(ctx, M, K, up), tdy = Tensor::from_floats(ctx, M, N, dy);
    Tensor tw16 = f16_ok ? Tensor::from_floats(ctx, K, N, w, DType::f16) : Tensor();
    Tensor ty(ctx, M, N), th(ctx, M, K), tdx(ctx, M, K), tdw(ctx, K, N);

    // References for output entry (row, col), per variant family.
    auto fwd = [&](bool half, bool residual, bool swiglu_a) {
      return [&, half, residual, swiglu_a](uint32_t i, uint32_t j) {
        const auto& wv = half ? w_half : w;
        Reference ref;
        for (uint32_t k = 0; k < K; ++k) {
          size_t ai = size_t(i) * K + k;
          double a = swiglu_a ? silu_mul(gate[ai], up[ai]) : double(x[ai]);
          double t = a * wv[size_t(k) * N + j];
          ref.value += t;
          ref.scale += std::abs(t);
        }
        if (residual) {
          ref.value += r[size_t(i) * N + j];
          ref.scale += std::abs(r[size_t(i) * N + j]);
        }
        return ref;
      };
    };
    auto bwd_t = [&](bool acc) {  // dX[i,k] = sum_n dY[i,n] W[k,n]
      return [&, acc](uint32_t i, uint32_t kk) {
        Reference ref;
        for (uint32_t n = 0; n < N; ++n) {
          double t = double(dy[size_t(i) * N + n]) * w[size_t(kk) * N + n];
          ref.value += t;
          ref.scale += std::abs(t);
        }
        if (acc) {
          ref.value += dx0[size_t(i) * K + kk];
          ref.scale += std::abs(dx0[size_t(i) * K + kk]);
        }
        return ref;
      };
    };
    auto bwd_at = [&](bool acc, bool swiglu_a) {  // dW[k,n] = sum_i A[i,k] dY[i,n]
      return [&, acc, swiglu_a](uint32_t kk, uint32_t n) {
        Reference ref;
        for (uint32_t i = 0; i < M; ++i) {
          size_t ai = size_t(i) * K + kk;
          double a = swiglu_a ? silu_mul(gate[ai], up[ai]) : double(x[ai]);
          double t = a * dy[size_t(i) * N + n];
          ref.value += t;
          ref.scale += std::abs(t);
        }
        if (acc) {
          ref.value += dw0[size_t(kk) * N + n];
          ref.scale += std::abs(dw0[size_t(kk) * N + n]);
        }
        return ref;
      };
    };

    const uint64_t w32_bytes = uint64_t(K) * N * 4, w16_bytes = uint64_t(K) * N * 2;
    std::vector<Variant> variants;
    variants.push_back({"matmul", [&](GemmRecorder& rec) { matmul(rec, tx, tw, ty); }, &ty, nullptr,
                        fwd(false, false, false), K, false, w32_bytes});
    variants.push_back({"matmul_residual", [&](GemmRecorder& rec) { matmul_residual(rec, tx, tw, tr, ty); },
                        &ty, nullptr, fwd(false, true, false), K, false, w32_bytes});
    variants.push_back({"matmul_residual_swiglu_a",
                        [&](GemmRecorder& rec) { matmul_residual_swiglu_a(rec, tgate, tup, tw, tr, ty); },
                        &ty, nullptr, fwd(false, true, true), K, true, w32_bytes});
    variants.push_back({"unfused: swiglu + matmul_residual",
                        [&](GemmRecorder& rec) {
                          swiglu(rec, tgate, tup, th);
                          matmul_residual(rec, th, tw, tr, ty);
                        },
                        &ty, nullptr, fwd(false, true, true), K, true, w32_bytes});
    if (f16_ok) {
      variants.push_back({"matmul_w16", [&](GemmRecorder& rec) { matmul(rec, tx, tw16, ty); }, &ty, nullptr,
                          fwd(true, false, false), K, false, w16_bytes});
      variants.push_back({"matmul_residual_w16",
                          [&](GemmRecorder& rec) { matmul_residual(rec, tx, tw16, tr, ty); }, &ty, nullptr,
                          fwd(true, true, false), K, false, w16_bytes});
      variants.push_back({"matmul_residual_swiglu_a_w16",
                          [&](GemmRecorder& rec) { matmul_residual_swiglu_a(rec, tgate, tup, tw16, tr, ty); },
                          &ty, nullptr, fwd(true, true, true), K, true, w16_bytes});
    }
    variants.push_back({"matmul_t", [&](GemmRecorder& rec) { matmul_t(rec, tdy, tw, tdx, false); }, &tdx,
                        nullptr, bwd_t(false), N, false, w32_bytes});
    variants.push_back({"matmul_t_acc", [&](GemmRecorder& rec) { matmul_t(rec, tdy, tw, tdx, true); }, &tdx,
                        &dx0, bwd_t(true), N, false, w32_bytes});
    variants.push_back({"matmul_at", [&](GemmRecorder& rec) { matmul_at(rec, tx, tdy, tdw, false); }, &tdw,
                        nullptr, bwd_at(false, false), M, false, w32_bytes});
    variants.push_back({"matmul_at_acc", [&](GemmRecorder& rec) { matmul_at(rec, tx, tdy, tdw, true); }, &tdw,
                        &dw0, bwd_at(true, false), M, false, w32_bytes});
    variants.push_back({"matmul_at_swiglu_a",
                        [&](GemmRecorder& rec) { matmul_at_swiglu_a(rec, tgate, tup, tdy, tdw, false); },
                        &tdw, nullptr, bwd_at(false, true), M, true, w32_bytes});
    variants.push_back({"matmul_at_acc_swiglu_a",
                        [&](GemmRecorder& rec) { matmul_at_swiglu_a(rec, tgate, tup, tdy, tdw, true); }, &tdw,
                        &dw0, bwd_at(true, true), M, true, w32_bytes});
    // The general scalar-load kernel on the same layer (what gemm() falls back to for odd shapes).
    variants.push_back({"gemm_general (matmul)",
                        [&](GemmRecorder& rec) {
                          // alpha != 1 has no vec4 kernel, so gemm() takes the general kernel here.
                          GemmOptions o;
                          o.residual = &tr;
                          o.alpha = 0.5f;
                          o.split_k = 1;
                          gemm(rec, tx, tw, ty, o);
                        },
                        &ty, nullptr,
                        [&](uint32_t i, uint32_t j) {
                          Reference ref = fwd(false, false, false)(i, j);
                          ref.value = 0.5 * ref.value + r[size_t(i) * N + j];
                          ref.scale = 0.5 * ref.scale + std::abs(r[size_t(i) * N + j]);
                          return ref;
                        },
                        K, false, w32_bytes});

    // gemm() on the matmul_t problem: splits K where the grid is small (the lm_head's dX: 12x8 tiles, K =
    // 16384).
    variants.push_back({"gemm auto (dX = dY W^T)",
                        [&](GemmRecorder& rec) {
                          GemmOptions o;
                          o.transpose_b = true;
                          gemm(rec, tdy, tw, tdx, o);
                        },
                        &tdx, nullptr, bwd_t(false), N, false, w32_bytes});

    // Correctness first (each check run doubles as that variant's warm-up).
    const size_t first_row = rows.size();
    for (Variant& v : variants) {
      // Poisoned or initialised output, one submission, sampled entries against the CPU.
      if (v.init)
        v.out->upload(*v.init);
      else
        v.out->fill_bits(0x7fc00000u);
      std::string kernel_list;
      {
        GemmRecorder warm(ctx);
        v.record(warm);
        warm.run();
        for (const auto& name : warm.kernels()) kernel_list += (kernel_list.empty() ? "" : " + ") + name;
      }
      auto got = v.out->download();
      const uint32_t out_rows = v.out->rows(), out_cols = v.out->cols();
      uint64_t pick = seed ^ 0x9e3779b97f4a7c15ull;
      double worst = 0;
      bool finite = true;
      const int samples = 64;
      for (int sample = 0; sample < samples; ++sample) {
        pick = pick * 6364136223846793005ull + 1442695040888963407ull;
        // Include the last row and column (the tile edges) among the samples.
        uint32_t i = sample == 0 ? out_rows - 1 : static_cast<uint32_t>((pick >> 33) % out_rows);
        uint32_t j = sample == 0 ? out_cols - 1 : static_cast<uint32_t>((pick >> 13) % out_cols);
        Reference ref = v.reference(i, j);
        // Worst-case f32 accumulation bound, plus the activation's own error for the SwiGLU variants.
        double tol = ((v.reduction + 4) * 1.2e-7 + (v.swiglu ? 1e-5 : 0.0)) * ref.scale + 1e-30;
        double g = got[size_t(i) * out_cols + j];
        if (!std::isfinite(g)) finite = false;
        worst = std::max(worst, std::abs(g - ref.value) / tol);
      }
      IstanbulBenchRow row;
      row.name = v.name;
      row.kernels = kernel_list;
      row.m = M;
      row.n = N;
      row.k = K;
      row.weight_bytes = v.weight_bytes;
      row.correct = finite && worst <= 1.0;
      char buf[96];
      std::snprintf(buf, sizeof buf, "%d samples, max |err|/tol %.3g%s", samples, worst,
                    finite ? "" : ", non-finite output");
      row.check = buf;
      rows.push_back(std::move(row));
    }

    // Timing in interleaved rounds (every variant once per round), so that a clock or thermal drift during
    // the run spreads over all variants instead of favouring whichever ran first; median of all samples.
    const int rounds = std::min(reps, 5);
    std::vector<std::vector<double>> samples(variants.size());
    for (int round = 0; round < rounds; ++round) {
      const int in_round = reps / rounds + (round < reps % rounds ? 1 : 0);
      for (size_t vi = 0; vi < variants.size(); ++vi) {
        GemmRecorder rec(ctx);
        std::vector<uint32_t> stamps{rec.timestamp()};
        for (int i = 0; i < in_round; ++i) {
          variants[vi].record(rec);
          stamps.push_back(rec.timestamp());
        }
        rec.run();
        for (int i = 0; i < in_round; ++i) samples[vi].push_back(rec.elapsed_ms(stamps[i], stamps[i + 1]));
      }
    }
    for (size_t vi = 0; vi < variants.size(); ++vi) {
      IstanbulBenchRow& row = rows[first_row + vi];
      row.median_ms = median(samples[vi]);
      row.gflops = row.median_ms > 0 ? 2.0 * M * N * K / (row.median_ms * 1e6) : 0;
      char buf[128];
      std::snprintf(buf, sizeof buf, "%-36s M=%u N=%u K=%u %10.4f ms %9.1f GFLOP/s ", row.name.c_str(), M, N,
                    K, row.median_ms, row.gflops);
      say(buf + std::string(row.correct ? "ok" : "WRONG") + " (" + row.check + ")");
    }
  }
  return rows;
}

std::string format_istanbul_bench(const std::vector<IstanbulBenchRow>& rows) {
  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-36s %5s %6s %5s %10s %10s %10s  %s\n", "variant", "M", "N", "K",
                "median ms", "GFLOP/s", "W MiB", "check");
  out << buf;
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof buf, "%-36s %5u %6u %5u %10.4f %10.1f %10.2f  %s (%s)\n", r.name.c_str(), r.m,
                  r.n, r.k, r.median_ms, r.gflops, r.weight_bytes / 1048576.0, r.correct ? "ok" : "WRONG",
                  r.check.c_str());
    out << buf;
  }
  // Ratios per shape.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::map<std::string, const IstanbulBenchRow*>> by_shape;
  for (const auto& r : rows) by_shape[{r.m, r.n, r.k}][r.name] = &r;
  for (const auto& [shape, named] : by_shape) {
    auto [m, n, k] = shape;
    auto ratio = [&](const std::string& slow, const std::string& fast, const char* label) {
      auto a = named.find(slow), b = named.find(fast);
      if (a == named.end() || b == named.end() || b->second->median_ms <= 0) return;
      std::snprintf(buf, sizeof buf, "M=%u N=%u K=%u  %s: %.3fx\n", m, n, k, label,
                    a->second->median_ms / b->second->median_ms);
      out << buf;
    };
    ratio("unfused: swiglu + matmul_residual", "matmul_residual_swiglu_a",
          "fused speed-up (unfused / fused time)");
    ratio("matmul", "matmul_w16", "w16 speed-up (f32 / w16 time)");
    ratio("matmul_residual_swiglu_a", "matmul_residual_swiglu_a_w16", "fused w16 speed-up (f32 / w16 time)");
  }
  return out.str();
}

}  // namespace vkgemm
