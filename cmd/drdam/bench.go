package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/drdam/drdam/cmd/drdam/internal/peers"
	"github.com/drdam/drdam/dam"
)

// benchHelp is the --help of drdam bench.
const benchHelp = `
Time one phase of one configuration, as ` + "`bench.py run`" + ` of the peers
(../shared/peers/bench.py) does for torch and numpy, and print one JSON line
with the same keys and units: median_s, min_s, max_s and times_s over the
repeats (after the warm-up runs), setup_s, rss_after_setup_mib,
phase_peak_rss_mib (VmHWM during the repeats, after resetting it through
/proc/self/clear_refs; null if that is not possible), process_peak_rss_mib
(getrusage), cfg and steps, plus go, kernels, cpu, seed and setup_encode_s
(the part of setup_s spent encoding T, which bench.py does not count in its
setup_s). Notes go to stderr.

Configurations (bench.py's CONFIGS; DrDAM: SinCos basis with bias, Gaussian
projection):
  a      D=1000  K=500 Y=100000 B=500 β=40 binary memories; queries: memories
                                           with D//10 coordinates flipped
  b      D=3072  K=10  Y=50000  B=10  β=60 gray memories; queries: memories with
                                           the first half clamped, the rest zeroed
  c      D=12288 K=4   Y=20000  B=4   β=60 same, first third (floor(0.33·D)) clamped
  cfull  c with Y=180000, float32 only
Phases: encode (T from scratch), mr_eg / dr_eg (energy and gradient of the
B queries), mr_recall / dr_recall (10 descent steps, α = 0.1).

Example:
  drdam bench --config a --phase dr_eg
  (compare with: bench.py run --config a --impl torch --phase dr_eg)`

func runBench(e *env, args []string) error {
	fs := newFlags("bench", "", benchHelp)
	cfgName := fs.String("config", "", "configuration: a, b, c or cfull")
	phase := fs.String("phase", "", "phase: "+strings.Join(peers.Phases, ", "))
	dtype := fs.String("dtype", "float32", "compute precision: float32 (torch's default, and that of the README's speed comparison) or float64 (numpy's)")
	repeats := fs.Count("repeats", 5, 1, maxCount, "timed runs (≥ 1)")
	warmup := fs.Count("warmup", 1, 0, maxCount, "untimed runs before them (≥ 0)")
	threads := fs.Count("threads", 2, 1, 4096, "GOMAXPROCS (≥ 1)")
	seed := fs.Uint64("seed", 0, "seed of the data and of the random projection (bench.py uses 0)")
	proj := fs.String("projection", "dense", "DrDAM projection: dense (iid Gaussian, stored; bench.py's), ondemand (iid Gaussian regenerated at every step, O(Y+D) memory), orf (orthogonal, stored), or sorf (structured, O(Y log D) per product, O(Y) memory)")
	steps := fs.Count("steps", peers.Steps, 1, maxCount, "descent steps of the recall phases (bench.py: 10)")
	fs.require("config", "phase")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	cfg, ok := peers.Configs[*cfgName]
	if !ok {
		return usagef("--config %q: unknown configuration (want %s)", *cfgName, strings.Join(peers.ConfigNames(), ", "))
	}
	if !slices.Contains(peers.Phases, *phase) {
		return usagef("--phase %q: unknown phase (want %s; bench.py's torch- and numpy-only phases have no drdam counterpart)",
			*phase, strings.Join(peers.Phases, ", "))
	}
	prec, err := dam.ParsePrecision(*dtype)
	if err != nil {
		return usageError{"--dtype: " + err.Error()}
	}
	if _, ok := peers.Projections[*proj]; !ok {
		return usagef("--projection %q: want dense, ondemand, orf or sorf", *proj)
	}
	if cfg.Float32Only && prec != dam.Float32 && (*proj == "dense" || *proj == "orf") {
		return usagef("--dtype %s: config %s runs in float32 only, as in bench.py (its float64 projection alone would take %.1f GiB)",
			prec, cfg.Name, float64(cfg.Y)*float64(cfg.D)*8/(1<<30))
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*threads))
	res, err := peers.Measure(cfg, *phase, prec, peers.Options{Repeats: *repeats, Warmup: *warmup, Seed: *seed, Projection: *proj, Steps: *steps}, e.stderr)
	if err != nil {
		return err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, string(b))
	return err
}
