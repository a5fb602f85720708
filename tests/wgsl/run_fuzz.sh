#!/usr/bin/env bash
# Builds the WGSL fuzzer with clang (libFuzzer + AddressSanitizer) in its own build directory and runs it for a
# bounded time over the seed corpus. Usage: tests/wgsl/run_fuzz.sh [seconds] [build-dir]
# Exit status: 0 when no crash, leak or validator failure was found; non-zero otherwise (the reproducer is
# written to the build directory as crash-*/leak-*/timeout-*).
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${2:-${root}/build-fuzz}"
jobs="${FUZZ_BUILD_JOBS:-2}"

cmake -S "${root}" -B "${build}" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,fuzzer-no-link -fno-omit-frame-pointer" \
  -DVKGEMM_BUILD_FUZZ=ON -DVKGEMM_BUILD_BENCH=OFF >/dev/null
cmake --build "${build}" --target fuzz_wgsl -j "${jobs}"

# New inputs go to a scratch corpus; the checked-in seed corpus and the seed kernels (shaders/wgsl) are only read.
work="${build}/fuzz-corpus"
mkdir -p "${work}"
cd "${build}"
# A smaller quarantine keeps RSS well under the limit on long runs (the default is 256 MiB).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:quarantine_size_mb=64}"
"${build}/tests/wgsl/fuzz_wgsl" \
  -max_total_time="${seconds}" \
  -timeout=10 \
  -rss_limit_mb=3072 \
  -max_len=8192 \
  -dict="${root}/tests/wgsl/fuzz_wgsl.dict" \
  -print_final_stats=1 \
  "${work}" "${root}/tests/wgsl/corpus" "${root}/shaders/wgsl"
