#!/usr/bin/env bash
# Patterns per second of a streamed drdam encode (the file read a chunk at
# a time, the whole command timed: start-up, reading, encoding, writing)
# against the library's in-process Add of the same patterns already in
# memory (scripts/streamcheck: only Add is timed), on the same model,
# interleaved, in one sitting; and the peak resident memory of each.
# Prints one Markdown row per run, with the exact command, for
# BENCHMARKS.md:
#
#   | program | patterns | seconds | patterns/s | peak RSS | command |
#
#   scripts/bench-stream.sh [--k 100000] [--d 784] [--y 100000] [--reps 3] [--dir DIR]
#
# The patterns are DIR/patterns-KxD.npy (float32, scripts/genpatterns
# --seed 2), written once and kept. The model: SinCos, structured, β = 60,
# float64 (drdam encode's default precision).
set -euo pipefail
cd "$(dirname "$0")/.."
k=100000 d=784 y=100000 reps=3 dir=${TMPDIR:-/tmp}/drdam-bench-stream
while [ $# -gt 0 ]; do
  case "$1" in
    --k) k=$2; shift 2 ;;
    --d) d=$2; shift 2 ;;
    --y) y=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "bench-stream.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$dir/bin"
go build -o "$dir/bin/drdam" ./cmd/drdam
go build -o "$dir/bin/streamcheck" ./scripts/streamcheck
go build -o "$dir/bin/genpatterns" ./scripts/genpatterns
p="$dir/patterns-${k}x${d}.npy"
[ -f "$p" ] || "$dir/bin/genpatterns" --k "$k" --d "$d" --seed 2 --out "$p" >/dev/null
flags=(--y "$y" --basis sincos --projection structured --beta 60)
echo "| program | patterns | seconds | patterns/s | peak RSS | command |"
echo "|---|---:|---:|---:|---:|---|"
for _ in $(seq 1 "$reps"); do
  cmd=("$dir/bin/drdam" encode --patterns "$p" --out "$dir/stream.drdam" "${flags[@]}")
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$dir/rss" "${cmd[@]}" >/dev/null
  t1=$(date +%s.%N)
  awk -v k="$k" -v a="$t0" -v b="$t1" -v r="$(cat "$dir/rss")" -v c="$(printf '%q ' "${cmd[@]}")" \
    'BEGIN { s = b - a; printf "| drdam encode (streamed, whole command) | %d | %.2f | %.0f | %.0f MB | `%s` |\n", k, s, k / s, r / 1024, c }'
  cmd=("$dir/bin/streamcheck" --patterns "$p" --model "$dir/stream.drdam" "${flags[@]:0:2}" --beta 60)
  /usr/bin/time -f "%M" -o "$dir/rss" "${cmd[@]}" >"$dir/check.json"
  field() { grep -o "\"$1\":[^,}]*" "$dir/check.json" | cut -d: -f2; }
  [ "$(field t_bit_equal)" = true ] || { echo "bench-stream.sh: T of the streamed encode differs from Add's" >&2; exit 1; }
  awk -v k="$(field rows)" -v s="$(field add_s)" -v r="$(cat "$dir/rss")" -v c="$(printf '%q ' "${cmd[@]}")" \
    'BEGIN { printf "| in-process Add (data in memory; Add timed) | %d | %.2f | %.0f | %.0f MB | `%s` |\n", k, s, k / s, r / 1024, c }'
done
