#!/usr/bin/env python3
"""Compare two points.csv of the same grid experiment run two ways (for
example --precision float64 and float32): for each metric, how many points
are identical, the mean and largest difference (second − first), per query
set. Standard library only.

    scripts/compare-points.py A/points.csv B/points.csv [metric ...]
"""
import csv
import statistics
import sys

KEY = ("seed", "D", "K", "Y", "beta", "basis", "queries", "metric")


def load(path):
    with open(path) as f:
        return {tuple(r[k] for k in KEY if k in r): r for r in csv.DictReader(f)}


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    metrics = sys.argv[3:] or sorted({k[-1] for k in a})
    common = [k for k in a if k in b]
    print(f"{len(common)} points in both ({len(a)} and {len(b)} in each)")
    for m in metrics:
        for s in ["all", "at", "near", "far"]:
            ks = [k for k in common if k[-1] == m and (s == "all" or k[-2] == s)]
            if not ks:
                continue
            d = [float(b[k]["mean"]) - float(a[k]["mean"]) for k in ks]
            same = sum(1 for x in d if x == 0)
            print(f"{m:16s} {s:4s} n={len(d):4d} identical={same:4d} mean diff={statistics.mean(d):+.5f} max |diff|={max(abs(x) for x in d):.5f}")


if __name__ == "__main__":
    main()
