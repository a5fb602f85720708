#!/usr/bin/env python3
"""Plots `vkgemm --json` output of the ladder mode: GFLOP/s per kernel, one bar group per size.

Usage: python3 tools/plot_results.py results.json [more.json ...] -o ladder.png [--reference NAME=GFLOPS ...]
Needs matplotlib (Debian: python3-matplotlib). References (e.g. cuBLAS=50300) are drawn as horizontal lines.
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("inputs", nargs="+", help="JSON files written by vkgemm --json (ladder mode)")
    parser.add_argument("-o", "--output", default="ladder.png")
    parser.add_argument("--reference", action="append", default=[], help="NAME=GFLOPS line to draw")
    parser.add_argument("--log", action="store_true", help="logarithmic GFLOP/s axis")
    args = parser.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_results.py needs matplotlib (apt-get install python3-matplotlib)")

    rows, device = [], None
    for path in args.inputs:
        with open(path) as f:
            data = json.load(f)
        if data.get("mode") != "ladder":
            sys.exit(f"{path}: not ladder-mode output")
        device = data["device"]["name"]
        rows += [r for r in data["results"] if "gflops" in r]
    if not rows:
        sys.exit("no measured rows")
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    sizes = list(dict.fromkeys(f'{r["m"]}x{r["n"]}x{r["k"]}' if not r["m"] == r["n"] == r["k"] else str(r["m"])
                               for r in rows))
    value = {(r["kernel"], f'{r["m"]}x{r["n"]}x{r["k"]}' if not r["m"] == r["n"] == r["k"] else str(r["m"])):
             r["gflops"] for r in rows}

    fig, ax = plt.subplots(figsize=(max(8, len(kernels) * 0.9), 5))
    width = 0.8 / len(sizes)
    for i, size in enumerate(sizes):
        xs = [k + (i - (len(sizes) - 1) / 2) * width for k in range(len(kernels))]
        ys = [value.get((name, size), 0) for name in kernels]
        ax.bar(xs, ys, width, label=f"size {size}")
    for ref in args.reference:
        name, gflops = ref.split("=")
        ax.axhline(float(gflops), linestyle="--", color="gray")
        ax.text(-0.5, float(gflops), f" {name}", va="bottom", ha="left", color="dimgray", fontsize=8)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(kernels, rotation=45, ha="right")
    ax.set_ylabel("GFLOP/s (GPU time, median)")
    if args.log:
        ax.set_yscale("log")
    ax.set_title(f"vkgemm ladder on {device}")
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, 0.85))
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
