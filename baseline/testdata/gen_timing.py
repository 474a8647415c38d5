# The input of BENCHMARKS.md's timing of baseline.Imputer against
# scikit-learn's KNNImputer: K stored rows and B queries of D standard
# normal values, 20-50% of each query hidden (NaN).
#   /usr/bin/python3 gen_timing.py K D B PREFIX   -> PREFIX-fit.npy, PREFIX-query.npy
import sys
import numpy as np
K, D, B = map(int, sys.argv[1:4])
rng = np.random.default_rng(29)
fit = rng.standard_normal((K, D))
q = rng.standard_normal((B, D))
for i in range(B):
    h = int(round(rng.uniform(0.2, 0.5) * D))
    q[i, rng.permutation(D)[:h]] = np.nan
np.save(sys.argv[4] + "-fit.npy", fit)
np.save(sys.argv[4] + "-query.npy", q)
