"""scikit-learn's KNNImputer on .npy files, for baseline's tests.

    /usr/bin/python3 sklearn_knn.py FIT.npy QUERY.npy K WEIGHTS OUT.npy [K WEIGHTS OUT.npy ...]

FIT is the K x D fit data and QUERY the B x D queries, NaN = missing (both
float64). For each (K, WEIGHTS, OUT) it fits KNNImputer(n_neighbors=K,
weights=WEIGHTS, keep_empty_features=True) on FIT, transforms QUERY and
saves the B x D result to OUT. With --time it prints one line per run:
"k weights seconds" (fit + transform, time.perf_counter), then the peak
RSS in KiB (resource.getrusage).
"""
import resource
import sys
import time

import numpy as np
from sklearn.impute import KNNImputer


def main(argv):
    timing = "--time" in argv
    argv = [a for a in argv if a != "--time"]
    if len(argv) < 5 or (len(argv) - 2) % 3 != 0:
        sys.exit(__doc__)
    fit = np.load(argv[0])
    query = np.load(argv[1])
    runs = argv[2:]
    for i in range(0, len(runs), 3):
        k, weights, out = int(runs[i]), runs[i + 1], runs[i + 2]
        t0 = time.perf_counter()
        imp = KNNImputer(n_neighbors=k, weights=weights, keep_empty_features=True)
        imp.fit(fit)
        res = imp.transform(query)
        el = time.perf_counter() - t0
        np.save(out, np.ascontiguousarray(res, dtype=np.float64))
        if timing:
            print(k, weights, "%.6f" % el)
    if timing:
        print("maxrss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


if __name__ == "__main__":
    main(sys.argv[1:])
