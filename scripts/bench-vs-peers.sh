#!/usr/bin/env bash
# Runs the peers' bench.py and `drdam bench` on the same configurations and
# phases, one after the other in the same sitting, and appends one JSON line
# per measurement to OUT (default bench-results.jsonl). Each measurement is
# its own process, as in bench.py. Needs the peers' Python (see
# ../shared/peers/README.md); drdam itself never does.
#
#   scripts/bench-vs-peers.sh [OUT] [ROWS...]
#
# A row is config:phase:impl:dtype[:repeats[:projection[:steps]]], impl one
# of drdam, torch, numpy; projection (drdam only) one of drdam bench
# --projection's values (default dense), steps its --steps (recall phases).
# With no rows, the rows of issue 3's targets are run.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench-results.jsonl}
shift || true
peers=${PEERS:-../shared/peers}
py=${PYTHON:-/usr/bin/python3}
go build -o /tmp/drdam-bench ./cmd/drdam
rows=("$@")
if [ ${#rows[@]} -eq 0 ]; then
  rows=(
    a:dr_eg:drdam:float32:5 a:dr_eg:numpy:float32:3 a:dr_eg:torch:float32:5
    a:mr_eg:drdam:float32:5 a:mr_eg_expand:torch:float32:5
    a:dr_eg:drdam:float64:3 a:dr_eg:numpy:float64:3
    b:dr_recall:drdam:float32:3 b:dr_recall:torch:float32:3
    c:dr_recall:drdam:float32:3 c:dr_recall:torch:float32:3
    b:dr_eg:drdam:float32:5 b:dr_eg:torch:float32:5
    c:dr_eg:drdam:float32:5 c:dr_eg:torch:float32:5
  )
fi
for row in "${rows[@]}"; do
  IFS=: read -r cfg phase impl dtype rep proj steps <<<"$row"
  rep=${rep:-5}
  if [ "$impl" = drdam ]; then
    cmd=(/tmp/drdam-bench bench --config "$cfg" --phase "$phase" --dtype "$dtype" --repeats "$rep")
    [ -n "${proj:-}" ] && cmd+=(--projection "$proj")
    [ -n "${steps:-}" ] && cmd+=(--steps "$steps")
    line=$("${cmd[@]}")
  else
    cmd=("$py" bench.py run --config "$cfg" --impl "$impl" --phase "$phase" --dtype "$dtype" --repeats "$rep")
    line=$(cd "$peers" && "${cmd[@]}" | grep '^{')
  fi
  echo "$line" | "$py" -c 'import json,sys; r=json.loads(sys.stdin.read()); r["cmd"]=sys.argv[1]; print(json.dumps(r))' "${cmd[*]}" >>"$out"
  echo "$row: $(echo "$line" | "$py" -c 'import json,sys; r=json.loads(sys.stdin.read()); print("median %.4g s, peak RSS %s MiB" % (r["median_s"], r.get("phase_peak_rss_mib")))')" >&2
done
