#!/bin/bash
# Interleaved pairs: base (ca8dbb2) and head (issue 28 merged), quiet machine.
out=$1; : > $out
for i in $(seq 1 6); do
  for row in "a dr_eg" "b dr_recall"; do set -- $row
    for build in base head; do
      line=$(/tmp/drdam-$build bench --config $1 --phase $2 --dtype float32 --repeats 5 2>/dev/null)
      echo "{\"pair\": $i, \"build\": \"$build\", \"load\": \"$(cut -d' ' -f1 /proc/loadavg)\", \"run\": $line}" >> $out
    done; done; done
