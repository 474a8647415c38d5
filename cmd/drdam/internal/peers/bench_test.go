package peers

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
)

// tinyBench are configurations small enough for tests, one per data kind.
var tinyBench = []Config{
	{Name: "tiny-binary", D: 16, K: 4, Y: 64, B: 3, Beta: 8, Alpha: 0.1, Data: "binary"},
	{Name: "tiny-gray", D: 16, K: 4, Y: 64, B: 3, Beta: 8, Alpha: 0.1, Data: "gray", Clamp: 0.5},
}

// benchKeys are the keys of bench.py's result line, then drdam's.
var benchKeys = []string{"config", "impl", "dtype", "phase", "threads", "repeats", "warmup",
	"median_s", "min_s", "max_s", "times_s", "setup_s", "rss_after_setup_mib", "phase_peak_rss_mib",
	"process_peak_rss_mib", "cfg", "steps", "go", "kernels", "cpu"}

// checkBenchLine decodes one result line and checks it against c.
func checkBenchLine(t *testing.T, line string, c Config, phase, dtype string, repeats, warmup int) {
	t.Helper()
	if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
		t.Fatalf("want one line, got %q", line)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &raw); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	for _, k := range benchKeys {
		if _, ok := raw[k]; !ok {
			t.Errorf("key %q missing: %s", k, line)
		}
	}
	var r struct {
		Config, Impl, Dtype, Phase, Go, Kernels string
		Threads, Repeats, Warmup, Steps         int
		MedianS                                 float64   `json:"median_s"`
		MinS                                    float64   `json:"min_s"`
		MaxS                                    float64   `json:"max_s"`
		TimesS                                  []float64 `json:"times_s"`
		SetupS                                  float64   `json:"setup_s"`
		RSS                                     *float64  `json:"rss_after_setup_mib"`
		Peak                                    *float64  `json:"phase_peak_rss_mib"`
		ProcPeak                                *float64  `json:"process_peak_rss_mib"`
		Cfg                                     map[string]any
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.Config != c.Name || r.Impl != "drdam" || r.Dtype != dtype || r.Phase != phase ||
		r.Repeats != repeats || r.Warmup != warmup || r.Steps != 10 || r.Threads < 1 || r.Go == "" || r.Kernels == "" {
		t.Errorf("fields do not echo the run: %s", line)
	}
	if len(r.TimesS) != repeats {
		t.Fatalf("%d times for %d repeats", len(r.TimesS), repeats)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range r.TimesS {
		if !(v > 0) {
			t.Errorf("time %v", v)
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if r.MinS != lo || r.MaxS != hi || !(lo <= r.MedianS && r.MedianS <= hi) || r.SetupS <= 0 {
		t.Errorf("min %v median %v max %v setup %v, times %v", r.MinS, r.MedianS, r.MaxS, r.SetupS, r.TimesS)
	}
	// The three memory figures are read from the kernel at different times
	// (and ru_maxrss follows the reset of VmHWM), so they are not ordered.
	for _, v := range []*float64{r.RSS, r.Peak, r.ProcPeak} {
		if v != nil && !(*v > 0) {
			t.Errorf("memory figure %v MiB: %s", *v, line)
		}
	}
	if r.RSS == nil || r.ProcPeak == nil {
		t.Errorf("RSS after setup or process peak missing: %s", line)
	}
	var clamp any
	if c.Clamp != 0 {
		clamp = c.Clamp
	}
	want := map[string]any{"D": float64(c.D), "K": float64(c.K), "Y": float64(c.Y), "B": float64(c.B),
		"beta": c.Beta, "alpha": c.Alpha, "data": c.Data, "clamp": clamp}
	if len(r.Cfg) != len(want) {
		t.Errorf("cfg %v, want %v", r.Cfg, want)
	}
	for k, v := range want {
		if got, ok := r.Cfg[k]; !ok || got != v {
			t.Errorf("cfg[%s] = %v, want %v", k, got, v)
		}
	}
}

// TestMeasureBench runs every phase of both tiny configurations in both
// precisions and checks the result line.
func TestMeasureBench(t *testing.T) {
	for _, c := range tinyBench {
		for _, phase := range Phases {
			for _, prec := range []dam.Precision{dam.Float64, dam.Float32} {
				t.Run(c.Name+"/"+phase+"/"+prec.String(), func(t *testing.T) {
					res, err := Measure(c, phase, prec, Options{Repeats: 3, Warmup: 1, Seed: 7}, io.Discard)
					if err != nil {
						t.Fatal(err)
					}
					b, err := json.Marshal(res)
					if err != nil {
						t.Fatal(err)
					}
					checkBenchLine(t, string(b)+"\n", c, phase, prec.String(), 3, 1)
					if enc := res.SetupEncodeS != nil; enc != (phase == "dr_eg" || phase == "dr_recall") {
						t.Errorf("setup_encode_s = %v for %s", res.SetupEncodeS, phase)
					}
				})
			}
		}
	}
}

// TestBenchData checks the queries and mask against bench.py's recipe.
func TestBenchData(t *testing.T) {
	bin := Config{Name: "bin", D: 40, K: 3, B: 7, Data: "binary"}
	d, err := makeData(bin, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d.mask != nil {
		t.Error("binary data have a mask")
	}
	for r := range bin.B {
		k := r % bin.K
		diff := 0
		for i := range bin.D {
			if d.q[r*bin.D+i] != d.xi[k*bin.D+i] {
				diff++
			}
		}
		if diff != bin.D/10 {
			t.Errorf("query %d differs from memory %d in %d coordinates, want D//10 = %d", r, k, diff, bin.D/10)
		}
	}
	gray := Config{Name: "gray", D: 30, K: 2, B: 5, Data: "gray", Clamp: 0.33}
	d, err = makeData(gray, 1)
	if err != nil {
		t.Fatal(err)
	}
	cut := 9 // floor(0.33·30)
	for i, m := range d.mask {
		if m != (i < cut) {
			t.Fatalf("mask %v, want the first %d coordinates", d.mask, cut)
		}
	}
	top := 1 / math.Sqrt(float64(gray.D))
	for _, v := range d.xi {
		if v < 0 || v >= top {
			t.Fatalf("memory value %v outside [0, 1/√D)", v)
		}
	}
	for r := range gray.B {
		for i := range gray.D {
			want := 0.0
			if i < cut {
				want = d.xi[(r%gray.K)*gray.D+i]
			}
			if d.q[r*gray.D+i] != want {
				t.Fatalf("query %d coordinate %d = %v, want %v", r, i, d.q[r*gray.D+i], want)
			}
		}
	}
	if _, err := makeData(Config{Name: "x", D: 4, K: 1, B: 1, Data: "noise"}, 0); err == nil {
		t.Error("unknown data kind accepted")
	}
}

// TestBenchConfigs: the table is bench.py's CONFIGS.
func TestBenchConfigs(t *testing.T) {
	want := map[string][4]int{"a": {1000, 500, 100000, 500}, "b": {3072, 10, 50000, 10},
		"c": {12288, 4, 20000, 4}, "cfull": {12288, 4, 180000, 4}}
	if len(Configs) != len(want) {
		t.Errorf("%d configurations, want %d", len(Configs), len(want))
	}
	for n, w := range want {
		c := Configs[n]
		if c.Name != n || [4]int{c.D, c.K, c.Y, c.B} != w || c.Alpha != 0.1 || c.Float32Only != (n == "cfull") {
			t.Errorf("config %s: %+v", n, c)
		}
	}
}
