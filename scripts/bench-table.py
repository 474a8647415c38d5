#!/usr/bin/python3
"""Markdown table of drdam vs the peers from the JSON lines of scripts/bench-vs-peers.sh."""
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def get(cfg, phase, impl, dtype):
    for r in rows:
        if (r["config"], r["phase"], r["impl"], r["dtype"]) == (cfg, phase, impl, dtype):
            return r
print("| config | phase | dtype | drdam | numpy | torch | drdam / numpy | drdam / torch | peak RSS drdam / numpy / torch (MiB) |")
print("|---|---|---|---|---|---|---|---|---|")
seen = set()
for r in rows:
    if r["impl"] != "drdam":
        continue
    key = (r["config"], r["phase"], r["dtype"])
    if key in seen:
        continue
    seen.add(key)
    n = get(r["config"], r["phase"], "numpy", r["dtype"])
    t = get(r["config"], r["phase"], "torch", r["dtype"]) or (get(r["config"], "mr_eg_expand", "torch", r["dtype"]) if r["phase"] == "mr_eg" else None)
    f = lambda x: "%.4g s" % x["median_s"] if x else "–"
    ratio = lambda x: "**%.2f×**" % (r["median_s"] / x["median_s"]) if x else "–"
    rss = lambda x: "%.0f" % x["phase_peak_rss_mib"] if x and x.get("phase_peak_rss_mib") else "–"
    tname = "" if not t or t["phase"] == r["phase"] else " (%s)" % t["phase"]
    print(f"| {r['config']} | {r['phase']} | {r['dtype']} | {f(r)} | {f(n)} | {f(t)}{tname} | {ratio(n)} | {ratio(t)} | {rss(r)} / {rss(n)} / {rss(t)} |")
