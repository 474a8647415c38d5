#!/usr/bin/python3
"""Data for the measurement of drdam complete --model (BENCHMARKS.md,
"Completing rows with missing entries"): K stored rows of D values, each
uniform in [0, 1/sqrt(D)) so that a row's norm is at most 1, and B
queries, each a stored row (drawn with replacement) with a fraction of its
entries hidden (NaN), as .npy float64 files.

    python3 scripts/gencomplete.py --k 60000 --b 100000 --d 64 --hide 0.5 --out /tmp/cc
"""
import argparse
import os

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--k", type=int, default=60000)
p.add_argument("--b", type=int, default=100000)
p.add_argument("--d", type=int, default=64)
p.add_argument("--hide", type=float, default=0.5)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--out", required=True)
a = p.parse_args()
rng = np.random.default_rng(a.seed)
stored = rng.random((a.k, a.d)) / np.sqrt(a.d)
q = stored[rng.integers(0, a.k, a.b)].copy()
q[rng.random(q.shape) < a.hide] = np.nan
np.save(os.path.join(a.out, "stored.npy"), stored)
np.save(os.path.join(a.out, "queries.npy"), q)
print(f"wrote {a.k}x{a.d} stored rows and {a.b} queries ({np.isnan(q).mean():.3f} hidden) to {a.out}")
