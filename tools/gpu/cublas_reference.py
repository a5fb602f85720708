"""cuBLAS reference timings (through PyTorch) to put beside vkgemm's numbers on the same GPU.

Usage: python3 tools/gpu/cublas_reference.py 1024 2048 4096   (prints JSON lines: dtype, n, median ms, TFLOP/s)
"""
import json
import sys

import torch


def time_matmul(n, dtype, reps=20):
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    for _ in range(3):
        a @ b
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        a @ b
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def main():
    torch.backends.cuda.matmul.allow_tf32 = False  # true fp32 SGEMM
    for n in [int(x) for x in sys.argv[1:]] or [4096]:
        for name, dtype in (("fp32", torch.float32), ("fp16", torch.float16)):
            ms = time_matmul(n, dtype)
            print(json.dumps({"library": "cuBLAS (torch " + torch.__version__ + ")", "dtype": name, "n": n,
                              "median_ms": ms, "tflops": 2 * n**3 / (ms * 1e9)}))


if __name__ == "__main__":
    main()
