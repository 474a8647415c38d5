#!/usr/bin/python3
"""Markdown table of drdam vs the peers from the JSON lines of scripts/bench-vs-peers.sh.

One row per drdam measurement (config, phase, dtype, projection, steps), beside
the peers' measurement of the same config, phase and dtype (their projection is
always the stored iid one, and their recall phases take bench.py's 10 steps, so
recall rows with other step counts get no ratio).
"""
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def get(cfg, phase, impl, dtype):
    for r in rows:
        if (r["config"], r["phase"], r["impl"], r["dtype"]) == (cfg, phase, impl, dtype):
            return r
print("| config | phase | dtype | projection | drdam | setup | numpy | torch | drdam / numpy | drdam / torch | peak RSS drdam (phase / process) / numpy / torch (MiB) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
seen = set()
for r in rows:
    if r["impl"] != "drdam":
        continue
    proj, steps = r.get("projection", "dense"), r.get("steps", 10)
    key = (r["config"], r["phase"], r["dtype"], proj, steps)
    if key in seen:
        continue
    seen.add(key)
    n = get(r["config"], r["phase"], "numpy", r["dtype"])
    t = get(r["config"], r["phase"], "torch", r["dtype"]) or (get(r["config"], "mr_eg_expand", "torch", r["dtype"]) if r["phase"] == "mr_eg" else None)
    if r["phase"].endswith("recall") and steps != 10:
        n = t = None
    f = lambda x: "%.4g s" % x["median_s"] if x else "–"
    def ratio(x):
        if not x:
            return "–"
        v = r["median_s"] / x["median_s"]
        return "**%.2f×**" % v if v >= 0.1 else "**1/%.0f**" % (1 / v)
    rss = lambda x, k="phase_peak_rss_mib": "%.0f" % x[k] if x and x.get(k) else "–"
    tname = "" if not t or t["phase"] == r["phase"] else " (%s)" % t["phase"]
    phase = r["phase"] + ("" if steps == 10 or not r["phase"].endswith("recall") else " (%d steps)" % steps)
    print(f"| {r['config']} | {phase} | {r['dtype']} | {proj} | {f(r)} | {r['setup_s']:.3g} s | {f(n)} | {f(t)}{tname} | {ratio(n)} | {ratio(t)} | {rss(r)} / {rss(r, 'process_peak_rss_mib')} / {rss(n)} / {rss(t)} |")
