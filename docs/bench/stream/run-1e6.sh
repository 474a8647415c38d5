#!/bin/bash
# The streaming-encode measurement of issue 15 (10^6 x 784 float32, Y = 1e5 sincos structured, beta 60).
# Binaries built from the repository at commit 5c508ab (go build -o /tmp/drdam ./cmd/drdam;
# go build -o /tmp/streamcheck ./scripts/streamcheck); the data by
# go run ./scripts/genpatterns --k 1000000 --d 784 --out /work/data/patterns-1e6x784.npy
set -e
P=/work/data/patterns-1e6x784.npy
echo "# $(date -u) $(uname -m) $(grep -m1 'model name' /proc/cpuinfo)"
/usr/bin/time -v /tmp/drdam encode --patterns $P --out /work/runs/stream/stream.drdam --y 100000 --basis sincos --projection structured --beta 60 > encode.out 2> encode.err
grep -E "Elapsed|Maximum resident" encode.err
cat encode.out
/usr/bin/time -v /tmp/streamcheck --patterns $P --model /work/runs/stream/stream.drdam --beta 60 > check.json 2> check.err
cat check.json
grep -E "Elapsed|Maximum resident" check.err
