package peers

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/cpuid"
	"github.com/drdam/drdam/internal/sysinfo"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/synth"
)

// Config is one configuration of the peers' benchmark harness.
type Config struct {
	Name        string
	D, K, Y, B  int
	Beta, Alpha float64
	Data        string  // "binary" or "gray"
	Clamp       float64 // gray: the first floor(Clamp·D) coordinates are clamped; 0: no clamp
	Float32Only bool    // bench.py's table runs it in float32 only
}

// Configs is copied from CONFIGS in ../shared/peers/bench.py (keep the
// two in step): SinCos kernel with bias for DrDAM, β and α as in the paper's
// experiments. cfull is c at the paper's Tiny-ImageNet Y; its float64
// projection would not leave room for anything else in 24 GiB, so bench.py
// runs it in float32 only, and so does drdam bench.
var Configs = map[string]Config{
	"a":     {Name: "a", D: 1000, K: 500, Y: 100_000, B: 500, Beta: 40, Alpha: 0.1, Data: "binary"},
	"b":     {Name: "b", D: 3072, K: 10, Y: 50_000, B: 10, Beta: 60, Alpha: 0.1, Data: "gray", Clamp: 0.5},
	"c":     {Name: "c", D: 12288, K: 4, Y: 20_000, B: 4, Beta: 60, Alpha: 0.1, Data: "gray", Clamp: 0.33},
	"cfull": {Name: "cfull", D: 12288, K: 4, Y: 180_000, B: 4, Beta: 60, Alpha: 0.1, Data: "gray", Clamp: 0.33, Float32Only: true},
}

// Steps is bench.py's STEPS: the retrieval steps of a recall phase.
const Steps = 10

// Phases are the phases bench.py runs for both of its implementations.
var Phases = []string{"encode", "mr_eg", "dr_eg", "mr_recall", "dr_recall"}

// ConfigNames returns the names of Configs, sorted.
func ConfigNames() []string {
	names := make([]string, 0, len(Configs))
	for n := range Configs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Options of a measurement: the timed and untimed runs, the seed of the
// data and of the projection, the DrDAM projection (a key of Projections)
// and the steps of the recall phases.
type Options struct {
	Repeats, Warmup int
	Seed            uint64
	Projection      string // a key of Projections; "" means dense
	Steps           int    // recall steps; 0 means bench.py's 10
}

// Projections are the values of --projection: the projection kind of
// the DrDAM and whether a dense one is stored or regenerated on demand.
var Projections = map[string]struct {
	kind     features.ProjectionKind
	onDemand bool
}{
	"dense":    {features.Gaussian, false},
	"ondemand": {features.Gaussian, true},
	"orf":      {features.Orthogonal, false},
	"sorf":     {features.Structured, false},
}

func (o Options) steps() int {
	if o.Steps > 0 {
		return o.Steps
	}
	return Steps
}

func (o Options) projection() string {
	if o.Projection == "" {
		return "dense"
	}
	return o.Projection
}

// CfgJSON is a configuration with bench.py's names, in its order.
type CfgJSON struct {
	D     int      `json:"D"`
	K     int      `json:"K"`
	Y     int      `json:"Y"`
	B     int      `json:"B"`
	Beta  float64  `json:"beta"`
	Alpha float64  `json:"alpha"`
	Data  string   `json:"data"`
	Clamp *float64 `json:"clamp"`
}

// Result is the JSON line: bench.py's result (same keys, same order,
// same units), then drdam's additions.
type Result struct {
	Config            string    `json:"config"`
	Impl              string    `json:"impl"`
	Dtype             string    `json:"dtype"`
	Phase             string    `json:"phase"`
	Threads           int       `json:"threads"`
	Repeats           int       `json:"repeats"`
	Warmup            int       `json:"warmup"`
	MedianS           float64   `json:"median_s"`
	MinS              float64   `json:"min_s"`
	MaxS              float64   `json:"max_s"`
	TimesS            []float64 `json:"times_s"`
	SetupS            float64   `json:"setup_s"`
	RSSAfterSetupMiB  *float64  `json:"rss_after_setup_mib"`
	PhasePeakRSSMiB   *float64  `json:"phase_peak_rss_mib"`
	ProcessPeakRSSMiB *float64  `json:"process_peak_rss_mib"`
	Cfg               CfgJSON   `json:"cfg"`
	Steps             int       `json:"steps"`
	Projection        string    `json:"projection"`

	Go           string   `json:"go"`
	Kernels      string   `json:"kernels"`
	CPU          string   `json:"cpu"`
	Seed         uint64   `json:"seed"`
	SetupEncodeS *float64 `json:"setup_encode_s"` // null if setup did not encode T
}

// data is what bench.py's setup_numpy/setup_torch make, but for the
// projection, which a DrDAM generates from its seed.
type data struct {
	xi, q []float64 // K×D memories, B×D queries
	mask  []bool    // clamped coordinates, nil for binary data
}

// makeData generates the memories, queries and mask of c from seed:
// binary data are K distinct patterns in {0, 1/√D}^D (synth.Binary) and
// queries Q[r] = ξ[r mod K] with exactly D//10 coordinates flipped, as
// bench.py (synth.Flip flips round(frac·D): frac = (D//10)/D gives D//10);
// gray data are uniform in [0, 1/√D) (synth.Gray), Q[r] = ξ[r mod K] with the
// coordinates ≥ cut = floor(clamp·D) zeroed and the first cut clamped.
func makeData(c Config, seed uint64) (*data, error) {
	if c.D <= 0 || c.K <= 0 || c.B <= 0 {
		return nil, fmt.Errorf("config %s: want D, K and B > 0, found %d, %d, %d", c.Name, c.D, c.K, c.B)
	}
	d := c.D
	var xi []float64
	var err error
	switch c.Data {
	case "binary":
		xi, err = synth.Binary(seed, c.K, d)
	case "gray":
		xi, err = synth.Gray(seed, c.K, d)
	default:
		return nil, fmt.Errorf("config %s: unknown data %q (want binary or gray)", c.Name, c.Data)
	}
	if err != nil {
		return nil, err
	}
	q := make([]float64, c.B*d)
	for r := range c.B {
		copy(q[r*d:(r+1)*d], xi[(r%c.K)*d:(r%c.K+1)*d])
	}
	out := &data{xi: xi, q: q}
	if c.Data == "binary" {
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

// makePhase builds the models that phase needs and returns one run of it,
// as make_phase in bench.py. It also returns the time spent encoding T, if
// any (nil if none). The MrDAM phases build no DrDAM (bench.py builds S and T
// for them anyway, and counts them in its RSS after setup).
func makePhase(c Config, phase string, prec dam.Precision, o Options, in *data) (run func() error, encodeS *float64, err error) {
	var m dam.Memory
	seed, bp := o.Seed, Projections[o.projection()]
	switch phase {
	case "encode", "dr_eg", "dr_recall":
		dr, err := dam.NewDrDAM(dam.Config{Rep: dam.RepDrDAM, D: c.D, Beta: c.Beta, Y: c.Y,
			Basis: features.SinCos, Projection: bp.kind, OnDemand: bp.onDemand, Seed: seed, Precision: prec})
		if err != nil {
			return nil, nil, err
		}
		if phase == "encode" {
			return func() error { dr.Reset(); return dr.Add(in.xi) }, nil, nil
		}
		t0 := time.Now()
		if err := dr.Add(in.xi); err != nil {
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
		if err := mr.Add(in.xi); err != nil {
			return nil, nil, err
		}
		m = mr
	default:
		return nil, nil, fmt.Errorf("unknown phase %q", phase)
	}
	if strings.HasSuffix(phase, "_eg") {
		e, g := make([]float64, c.B), make([]float64, c.B*c.D) // allocated once, in setup
		return func() error { return m.EnergyGrad(e, g, in.q) }, encodeS, nil
	}
	// Recall: exactly Steps energy+gradient evaluations and updates, as
	// bench.py's recall loop. (dam.Recall with MaxSteps 10 would also
	// evaluate the final energy: one more forward pass.)
	steps := o.steps()
	ds, err := dam.NewDescent(m, dam.RecallOptions{Step: c.Alpha, MaxSteps: steps, Tol: 0, Clamp: in.mask, KeepStalled: true})
	if err != nil {
		return nil, nil, err
	}
	return func() error {
		if err := ds.Start(in.q); err != nil {
			return err
		}
		for range steps {
			if _, err := ds.Step(); err != nil {
				return err
			}
		}
		// Every query takes every step, as in bench.py's loop, even those
		// at the clip floor (KeepStalled): the work timed is the same.
		if n := ds.Active(); n != c.B {
			return fmt.Errorf("%d of %d queries left the descent early, so this run did less work than bench.py's; the timing is not comparable", c.B-n, c.B)
		}
		return nil
	}, encodeS, nil
}

// Measure times phase on configuration c as cmd_run in bench.py does
// and returns the result line. Notes are written to log.
func Measure(c Config, phase string, prec dam.Precision, o Options, log io.Writer) (*Result, error) {
	if o.Repeats < 1 || o.Warmup < 0 {
		return nil, fmt.Errorf("want repeats ≥ 1 and warmup ≥ 0, found %d and %d", o.Repeats, o.Warmup)
	}
	t0 := time.Now()
	in, err := makeData(c, o.Seed)
	if err != nil {
		return nil, err
	}
	run, encodeS, err := makePhase(c, phase, prec, o, in)
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
	rssSetup := sysinfo.StatusMiB("VmRSS")
	fmt.Fprintf(log, "drdam bench: config %s, %s, %v, %d threads: setup %.3g s, RSS %s MiB; %d warm-up and %d timed runs\n",
		c.Name, phase, prec, runtime.GOMAXPROCS(0), setup.Seconds(), fmtMiB(rssSetup), o.Warmup, o.Repeats)
	for range o.Warmup {
		if err := run(); err != nil {
			return nil, fmt.Errorf("%s: %w", phase, err)
		}
	}
	debug.FreeOSMemory()
	resetOK := sysinfo.ResetHWM()
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
		phasePeak = sysinfo.StatusMiB("VmHWM")
	}
	res := &Result{
		Config: c.Name, Impl: "drdam", Dtype: prec.String(), Phase: phase,
		Threads: runtime.GOMAXPROCS(0), Repeats: o.Repeats, Warmup: o.Warmup,
		MedianS: metrics.Median(times), MinS: slices.Min(times), MaxS: slices.Max(times), TimesS: times,
		SetupS: setup.Seconds(), RSSAfterSetupMiB: rssSetup, PhasePeakRSSMiB: phasePeak,
		ProcessPeakRSSMiB: sysinfo.PeakMiB(), Steps: o.steps(), Projection: o.projection(),
		Go: runtime.Version(), Kernels: cpuid.Current().String(), CPU: sysinfo.CPUModel(), Seed: o.Seed,
		SetupEncodeS: encodeS,
	}
	res.Cfg = CfgJSON{D: c.D, K: c.K, Y: c.Y, B: c.B, Beta: c.Beta, Alpha: c.Alpha, Data: c.Data}
	if c.Clamp != 0 {
		res.Cfg.Clamp = &c.Clamp
	}
	return res, nil
}

func fmtMiB(v *float64) string {
	if v == nil {
		return "?"
	}
	return fmt.Sprintf("%.0f", *v)
}
