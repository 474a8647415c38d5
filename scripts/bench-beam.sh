#!/usr/bin/env bash
# Patterns per second of drdam-beam encode on Prism (beam/, this machine,
# workers in the launcher's process) against drdam encode, on the same
# shards and model, one after the other in one sitting. Prints one
# Markdown row per run, with the exact command, for BENCHMARKS.md:
#
#   | program | patterns | seconds | patterns/s | command |
#
#   scripts/bench-beam.sh [--shards 8] [--rows 20000] [--d 784] [--y 100000]
#                         [--projection structured] [--reps 3] [--dir DIR]
#                         [-- extra encode flags, for both programs]
#
# The shards are DIR/data-SxRxD/shards/part-NNNNN.npy, --rows × --d
# float32 patterns each, uniform in [0, 1/√D) (scripts/genpatterns, seeds
# 1…--shards), written once and kept (8 × 20000 × 784 float32: 502 MB).
# drdam encode reads them as a glob, drdam-beam as a folder: the same
# 160 000 patterns; the patterns column is what each program says it
# stored. A first row times drdam-beam on one shard of 256 patterns:
# Prism's start-up and the fixed cost of a pipeline, which the rate of the
# big runs includes; the last two rows time one shard on one core
# (GOMAXPROCS=1), the per-core rate that docs/beam.md's estimate of a
# cluster uses. Both programs are built first (the beam module takes a few
# minutes to compile the first time). Times are wall-clock.
set -euo pipefail
cd "$(dirname "$0")/.."
shards=8 rows=20000 d=784 y=100000 proj=structured reps=3 dir=${TMPDIR:-/tmp}/drdam-bench-beam
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) shards=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --d) d=$2; shift 2 ;;
    --y) y=$2; shift 2 ;;
    --projection) proj=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "bench-beam.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
extra=("$@")
data="$dir/data-${shards}x${rows}x${d}"
mkdir -p "$dir/bin" "$data/shards" "$data/small"
go build -o "$dir/bin/drdam" ./cmd/drdam
(cd beam && go build -o "$dir/bin/drdam-beam" ./cmd/drdam-beam)
go build -o "$dir/bin/genpatterns" ./scripts/genpatterns
for i in $(seq 1 "$shards"); do
  f=$(printf '%s/shards/part-%05d.npy' "$data" "$i")
  [ -f "$f" ] || "$dir/bin/genpatterns" --k "$rows" --d "$d" --seed "$i" --out "$f" >/dev/null
done
[ -f "$data/small/part-00001.npy" ] || "$dir/bin/genpatterns" --k 256 --d "$d" --seed 1 --out "$data/small/part-00001.npy" >/dev/null

flags=(--projection "$proj" --y "$y" "${extra[@]}")
# run PROGRAM COMMAND...: times the command and prints its row, with the
# number of patterns that it says it stored.
run() {
  local name=$1
  shift
  local t0 t1 cmd out k
  cmd=$(printf '%q ' "$@")
  t0=$(date +%s.%N)
  out=$("$@")
  t1=$(date +%s.%N)
  k=$(sed -n 's/^stored \([0-9]*\) patterns.*/\1/p' <<<"$out")
  awk -v n="$name" -v k="$k" -v a="$t0" -v b="$t1" -v c="${cmd% }" \
    'BEGIN { s = b - a; printf "| %s | %d | %.2f | %.0f | `%s` |\n", n, k, s, k / s, c }'
}
echo "| program | patterns | seconds | patterns/s | command |"
echo "|---|---:|---:|---:|---|"
run "drdam-beam (Prism start-up)" \
  "$dir/bin/drdam-beam" encode --patterns "$data/small" --out "$dir/small.drdam" "${flags[@]}"
for _ in $(seq 1 "$reps"); do
  run "drdam encode" "$dir/bin/drdam" encode --patterns "$data/shards/*.npy" --out "$dir/drdam.drdam" "${flags[@]}"
  run "drdam-beam encode (Prism)" "$dir/bin/drdam-beam" encode --patterns "$data/shards" --out "$dir/beam.drdam" "${flags[@]}"
done
# One core: the rate per core that docs/beam.md scales out. One shard is
# enough to time it.
first=$(printf '%s/shards/part-%05d.npy' "$data" 1)
run "drdam encode, 1 core" env GOMAXPROCS=1 "$dir/bin/drdam" encode --patterns "$first" --out "$dir/drdam1.drdam" "${flags[@]}"
run "drdam-beam encode (Prism), 1 core" env GOMAXPROCS=1 "$dir/bin/drdam-beam" encode --patterns "$first" --out "$dir/beam1.drdam" "${flags[@]}"
