package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/rng"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/synth"
)

// benchConfig is one configuration of the peers' benchmark harness.
type benchConfig struct {
	Name        string
	D, K, Y, B  int
	Beta, Alpha float64
	Data        string  // "binary" or "gray"
	Clamp       float64 // gray: the first floor(Clamp·D) coordinates are clamped; 0: no clamp
	Float32Only bool    // bench.py's table runs it in float32 only
}

// benchConfigs is copied from CONFIGS in ../shared/peers/bench.py (keep the
// two in step): SinCos kernel with bias for DrDAM, β and α as in the paper's
// experiments. cfull is c at the paper's Tiny-ImageNet Y; its float64
// projection would not leave room for anything else in 24 GiB, so bench.py
// runs it in float32 only, and so does drdam bench.
var benchConfigs = map[string]benchConfig{
	"a":     {Name: "a", D: 1000, K: 500, Y: 100_000, B: 500, Beta: 40, Alpha: 0.1, Data: "binary"},
	"b":     {Name: "b", D: 3072, K: 10, Y: 50_000, B: 10, Beta: 60, Alpha: 0.1, Data: "gray", Clamp: 0.5},
	"c":     {Name: "c", D: 12288, K: 4, Y: 20_000, B: 4, Beta: 60, Alpha: 0.1, Data: "gray", Clamp: 0.33},
	"cfull": {Name: "cfull", D: 12288, K: 4, Y: 180_000, B: 4, Beta: 60, Alpha: 0.1, Data: "gray", Clamp: 0.33, Float32Only: true},
}

// benchSteps is bench.py's STEPS: the retrieval steps of a recall phase.
const benchSteps = 10

// benchPhases are the phases bench.py runs for both of its implementations.
var benchPhases = []string{"encode", "mr_eg", "dr_eg", "mr_recall", "dr_recall"}

func runBench(e *env, args []string) error {
	fs := newFlags("bench", "", `
Time one phase of one configuration, as `+"`bench.py run`"+` of the peers
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
  (compare with: bench.py run --config a --impl torch --phase dr_eg)`)
	cfgName := fs.String("config", "", "configuration: a, b, c or cfull")
	phase := fs.String("phase", "", "phase: "+strings.Join(benchPhases, ", "))
	dtype := fs.String("dtype", "float32", "compute precision: float32 or float64")
	repeats := fs.Int("repeats", 5, "timed runs (≥ 1)")
	warmup := fs.Int("warmup", 1, "untimed runs before them (≥ 0)")
	threads := fs.Int("threads", 2, "GOMAXPROCS (≥ 1)")
	seed := fs.Uint64("seed", 0, "seed of the data and of the random projection (bench.py uses 0)")
	proj := fs.String("projection", "dense", "DrDAM projection: dense (iid Gaussian, stored; bench.py's), ondemand (iid Gaussian regenerated at every step, O(Y+D) memory), orf (orthogonal, stored), or sorf (structured, O(Y log D) per product, O(Y) memory)")
	steps := fs.Int("steps", benchSteps, "descent steps of the recall phases (bench.py: 10)")
	fs.require("config", "phase")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	cfg, ok := benchConfigs[*cfgName]
	if !ok {
		return usagef("--config %q: unknown configuration (want %s)", *cfgName, strings.Join(benchConfigNames(), ", "))
	}
	if !slices.Contains(benchPhases, *phase) {
		return usagef("--phase %q: unknown phase (want %s; bench.py's torch- and numpy-only phases have no drdam counterpart)",
			*phase, strings.Join(benchPhases, ", "))
	}
	prec, err := dam.ParsePrecision(*dtype)
	if err != nil {
		return usageError{"--dtype: " + err.Error()}
	}
	if _, ok := benchProjections[*proj]; !ok {
		return usagef("--projection %q: want dense, ondemand, orf or sorf", *proj)
	}
	if *steps < 1 {
		return usagef("--steps %d: want at least 1", *steps)
	}
	if cfg.Float32Only && prec != dam.Float32 && (*proj == "dense" || *proj == "orf") {
		return usagef("--dtype %s: config %s runs in float32 only, as in bench.py (its float64 projection alone would take %.1f GiB)",
			prec, cfg.Name, float64(cfg.Y)*float64(cfg.D)*8/(1<<30))
	}
	if *repeats < 1 {
		return usagef("--repeats %d: want at least 1", *repeats)
	}
	if *warmup < 0 {
		return usagef("--warmup %d: want at least 0", *warmup)
	}
	if *threads < 1 {
		return usagef("--threads %d: want at least 1", *threads)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*threads))
	res, err := measureBench(cfg, *phase, prec, benchOptions{Repeats: *repeats, Warmup: *warmup, Seed: *seed, Projection: *proj, Steps: *steps}, e.stderr)
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

func benchConfigNames() []string {
	names := make([]string, 0, len(benchConfigs))
	for n := range benchConfigs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

type benchOptions struct {
	Repeats, Warmup int
	Seed            uint64
	Projection      string // a key of benchProjections; "" means dense
	Steps           int    // recall steps; 0 means bench.py's 10
}

// benchProjections are the values of --projection: the projection kind of
// the DrDAM and whether a dense one is stored or regenerated on demand.
var benchProjections = map[string]struct {
	kind     features.ProjectionKind
	onDemand bool
}{
	"dense":    {features.Gaussian, false},
	"ondemand": {features.Gaussian, true},
	"orf":      {features.Orthogonal, false},
	"sorf":     {features.Structured, false},
}

func (o benchOptions) steps() int {
	if o.Steps > 0 {
		return o.Steps
	}
	return benchSteps
}

func (o benchOptions) projection() string {
	if o.Projection == "" {
		return "dense"
	}
	return o.Projection
}

// benchCfgJSON is a configuration with bench.py's names, in its order.
type benchCfgJSON struct {
	D     int      `json:"D"`
	K     int      `json:"K"`
	Y     int      `json:"Y"`
	B     int      `json:"B"`
	Beta  float64  `json:"beta"`
	Alpha float64  `json:"alpha"`
	Data  string   `json:"data"`
	Clamp *float64 `json:"clamp"`
}

// benchResult is the JSON line: bench.py's result (same keys, same order,
// same units), then drdam's additions.
type benchResult struct {
	Config            string       `json:"config"`
	Impl              string       `json:"impl"`
	Dtype             string       `json:"dtype"`
	Phase             string       `json:"phase"`
	Threads           int          `json:"threads"`
	Repeats           int          `json:"repeats"`
	Warmup            int          `json:"warmup"`
	MedianS           float64      `json:"median_s"`
	MinS              float64      `json:"min_s"`
	MaxS              float64      `json:"max_s"`
	TimesS            []float64    `json:"times_s"`
	SetupS            float64      `json:"setup_s"`
	RSSAfterSetupMiB  *float64     `json:"rss_after_setup_mib"`
	PhasePeakRSSMiB   *float64     `json:"phase_peak_rss_mib"`
	ProcessPeakRSSMiB *float64     `json:"process_peak_rss_mib"`
	Cfg               benchCfgJSON `json:"cfg"`
	Steps             int          `json:"steps"`
	Projection        string       `json:"projection"`

	Go           string   `json:"go"`
	Kernels      string   `json:"kernels"`
	CPU          string   `json:"cpu"`
	Seed         uint64   `json:"seed"`
	SetupEncodeS *float64 `json:"setup_encode_s"` // null if setup did not encode T
}

// benchData is what bench.py's setup_numpy/setup_torch make, but for the
// projection, which a DrDAM generates from its seed.
type benchData struct {
	xi, q []float64 // K×D memories, B×D queries
	mask  []bool    // clamped coordinates, nil for binary data
}

// makeBenchData generates the memories, queries and mask of c from seed:
// binary data are K distinct patterns in {0, 1/√D}^D (synth.Binary) and
// queries Q[r] = ξ[r mod K] with exactly D//10 coordinates flipped, as
// bench.py (synth.Flip flips round(frac·D): frac = (D//10)/D gives D//10);
// gray data are uniform in [0, 1/√D), Q[r] = ξ[r mod K] with the
// coordinates ≥ cut = floor(clamp·D) zeroed and the first cut clamped.
func makeBenchData(c benchConfig, seed uint64) (*benchData, error) {
	if c.D <= 0 || c.K <= 0 || c.B <= 0 {
		return nil, fmt.Errorf("config %s: want D, K and B > 0, found %d, %d, %d", c.Name, c.D, c.K, c.B)
	}
	d := c.D
	var xi []float64
	switch c.Data {
	case "binary":
		var err error
		if xi, err = synth.Binary(seed, c.K, d); err != nil {
			return nil, err
		}
	case "gray":
		xi = make([]float64, c.K*d)
		s, v := rng.New(seed, rng.StreamGray), 1/math.Sqrt(float64(d))
		for i := range xi {
			xi[i] = s.Float64() * v
		}
	default:
		return nil, fmt.Errorf("config %s: unknown data %q (want binary or gray)", c.Name, c.Data)
	}
	q := make([]float64, c.B*d)
	for r := range c.B {
		copy(q[r*d:(r+1)*d], xi[(r%c.K)*d:(r%c.K+1)*d])
	}
	out := &benchData{xi: xi, q: q}
	if c.Data == "binary" {
		var err error
		if out.q, err = synth.Flip(seed, q, d, float64(d/10)/float64(d)); err != nil {
			return nil, err
		}
		return out, nil
	}
	cut := int(math.Floor(c.Clamp * float64(d)))
	if c.Clamp <= 0 || cut > d {
		return nil, fmt.Errorf("config %s: gray data need a clamp fraction in (0, 1], found %v", c.Name, c.Clamp)
	}
	for r := range c.B {
		clear(q[r*d+cut : (r+1)*d])
	}
	out.mask = make([]bool, d)
	for i := range cut {
		out.mask[i] = true
	}
	return out, nil
}

// benchPhase builds the models that phase needs and returns one run of it,
// as make_phase in bench.py. It also returns the time spent encoding T, if
// any (nil if none). The MrDAM phases build no DrDAM (bench.py builds S and T
// for them anyway, and counts them in its RSS after setup).
func benchPhase(c benchConfig, phase string, prec dam.Precision, o benchOptions, data *benchData) (run func() error, encodeS *float64, err error) {
	var m dam.Memory
	seed, bp := o.Seed, benchProjections[o.projection()]
	switch phase {
	case "encode", "dr_eg", "dr_recall":
		dr, err := dam.NewDrDAM(dam.Config{Rep: dam.RepDrDAM, D: c.D, Beta: c.Beta, Y: c.Y,
			Basis: features.SinCos, Projection: bp.kind, OnDemand: bp.onDemand, Seed: seed, Precision: prec})
		if err != nil {
			return nil, nil, err
		}
		if phase == "encode" {
			return func() error { dr.Reset(); return dr.Add(data.xi) }, nil, nil
		}
		t0 := time.Now()
		if err := dr.Add(data.xi); err != nil {
			return nil, nil, err
		}
		s := time.Since(t0).Seconds()
		encodeS = &s
		m = dr
	case "mr_eg", "mr_recall":
		mr, err := dam.NewMrDAM(dam.Config{Rep: dam.RepMrDAM, D: c.D, Beta: c.Beta, Precision: prec})
		if err != nil {
			return nil, nil, err
		}
		if err := mr.Add(data.xi); err != nil {
			return nil, nil, err
		}
		m = mr
	default:
		return nil, nil, fmt.Errorf("unknown phase %q", phase)
	}
	if strings.HasSuffix(phase, "_eg") {
		e, g := make([]float64, c.B), make([]float64, c.B*c.D) // allocated once, in setup
		return func() error { return m.EnergyGrad(e, g, data.q) }, encodeS, nil
	}
	// Recall: exactly benchSteps energy+gradient evaluations and updates, as
	// bench.py's recall loop. (dam.Recall with MaxSteps 10 would also
	// evaluate the final energy: one more forward pass.)
	steps := o.steps()
	ds, err := dam.NewDescent(m, dam.RecallOptions{Step: c.Alpha, MaxSteps: steps, Tol: 0, Clamp: data.mask})
	if err != nil {
		return nil, nil, err
	}
	return func() error {
		if err := ds.Start(data.q); err != nil {
			return err
		}
		for range steps {
			if _, err := ds.Step(); err != nil {
				return err
			}
		}
		return nil
	}, encodeS, nil
}

// measureBench times phase on configuration c as cmd_run in bench.py does
// and returns the result line. Notes are written to log.
func measureBench(c benchConfig, phase string, prec dam.Precision, o benchOptions, log io.Writer) (*benchResult, error) {
	if o.Repeats < 1 || o.Warmup < 0 {
		return nil, fmt.Errorf("want repeats ≥ 1 and warmup ≥ 0, found %d and %d", o.Repeats, o.Warmup)
	}
	t0 := time.Now()
	data, err := makeBenchData(c, o.Seed)
	if err != nil {
		return nil, err
	}
	run, encodeS, err := benchPhase(c, phase, prec, o, data)
	if err != nil {
		return nil, fmt.Errorf("setup of %s: %w", phase, err)
	}
	setup := time.Since(t0)

	// bench.py's gc.collect() frees the arrays of the setup, and their
	// memory goes back to the system at once (numpy's large arrays are
	// mmapped). Go keeps freed pages until its scavenger returns them:
	// FreeOSMemory collects and returns them now, so that the RSS after
	// setup and the phase's peak do not count the setup's garbage.
	debug.FreeOSMemory()
	rssSetup := procStatusMiB("VmRSS")
	fmt.Fprintf(log, "drdam bench: config %s, %s, %v, %d threads: setup %.3g s, RSS %s MiB; %d warm-up and %d timed runs\n",
		c.Name, phase, prec, runtime.GOMAXPROCS(0), setup.Seconds(), fmtMiB(rssSetup), o.Warmup, o.Repeats)
	for range o.Warmup {
		if err := run(); err != nil {
			return nil, fmt.Errorf("%s: %w", phase, err)
		}
	}
	debug.FreeOSMemory()
	resetOK := resetHWM()
	times := make([]float64, 0, o.Repeats)
	for i := range o.Repeats {
		t1 := time.Now()
		err := run()
		dt := time.Since(t1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", phase, err)
		}
		times = append(times, dt.Seconds())
		fmt.Fprintf(log, "drdam bench: run %d of %d: %.4g s\n", i+1, o.Repeats, dt.Seconds())
	}
	var phasePeak *float64
	if resetOK {
		phasePeak = procStatusMiB("VmHWM")
	}
	res := &benchResult{
		Config: c.Name, Impl: "drdam", Dtype: prec.String(), Phase: phase,
		Threads: runtime.GOMAXPROCS(0), Repeats: o.Repeats, Warmup: o.Warmup,
		MedianS: metrics.Median(times), MinS: slices.Min(times), MaxS: slices.Max(times), TimesS: times,
		SetupS: setup.Seconds(), RSSAfterSetupMiB: rssSetup, PhasePeakRSSMiB: phasePeak,
		ProcessPeakRSSMiB: processPeakMiB(), Steps: o.steps(), Projection: o.projection(),
		Go: runtime.Version(), Kernels: cpuid.Current().String(), CPU: cpuModel(), Seed: o.Seed,
		SetupEncodeS: encodeS,
	}
	res.Cfg = benchCfgJSON{D: c.D, K: c.K, Y: c.Y, B: c.B, Beta: c.Beta, Alpha: c.Alpha, Data: c.Data}
	if c.Clamp != 0 {
		res.Cfg.Clamp = &c.Clamp
	}
	return res, nil
}

// procStatusMiB returns the field key of /proc/self/status (in kB) in MiB,
// or nil if it cannot be read.
func procStatusMiB(key string) *float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key+":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil
		}
		kb, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil
		}
		v := kb / 1024
		return &v
	}
	return nil
}

// resetHWM resets VmHWM to the current RSS, as bench.py's reset_hwm.
func resetHWM() bool {
	f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	_, err = f.WriteString("5")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err == nil
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func fmtMiB(v *float64) string {
	if v == nil {
		return "?"
	}
	return fmt.Sprintf("%.0f", *v)
}
