package peers

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/internal/cli"
	"github.com/drdam/drdam/npy"
)

// Params are the parameters of the peers' compute command, with the same
// names (dam_io.DEFAULT_PARAMS); DefaultParams has their defaults.
type Params struct {
	Beta    float64  `json:"beta"`
	Alpha   float64  `json:"alpha"`
	Steps   int      `json:"steps"`
	AddBias bool     `json:"add_bias"`
	Kernels []string `json:"kernels"`
}

// Kernels are the DrDAM kernels of numpy_dam.py, in its order. They are the
// peers' list, not drdam's registry of bases (features.Bases): a basis
// added to drdam has no oracle in the peers.
var Kernels = []string{"sincos", "cos", "exp", "expexp"}

// DefaultParams returns the defaults of dam_io.DEFAULT_PARAMS: β = 40,
// α = 0.1, 10 steps, the shift added, all four kernels.
func DefaultParams() Params {
	return Params{Beta: 40, Alpha: 0.1, Steps: 10, AddBias: true, Kernels: Kernels}
}

// UsesBias reports whether one of p's kernels adds the shift b, so that
// b.npy is read.
func (p Params) UsesBias() bool {
	for _, k := range p.Kernels {
		if b, err := features.ParseBasis(k); err == nil && b.UsesBias() && p.AddBias {
			return true
		}
	}
	return false
}

// CheckKernels returns an error naming the first kernel of p that the
// peers do not have.
func (p Params) CheckKernels() error {
	for _, k := range p.Kernels {
		if !slices.ContainsFunc(Kernels, func(n string) bool { return strings.EqualFold(n, k) }) {
			return fmt.Errorf("kernel %q: want one of %s", k, strings.Join(Kernels, ", "))
		}
	}
	return nil
}

// ResolvePaths returns the input files of a compute run: those given
// (keys xi, queries, S, b, mask, as the command's flags), else the files
// of numpy_dam.py's input directory in (Xi.npy, Q.npy, S.npy, b.npy,
// mask.npy if it exists, unless noMask). S is dropped when p has no
// kernel, b when no kernel adds it. A missing input gives an error that
// names it.
func ResolvePaths(in string, given map[string]string, noMask bool, p Params) (map[string]string, error) {
	files := map[string]string{"xi": "Xi.npy", "queries": "Q.npy", "S": "S.npy", "b": "b.npy", "mask": "mask.npy"}
	paths := map[string]string{}
	for key, name := range files {
		paths[key] = given[key]
		if paths[key] != "" || in == "" {
			continue
		}
		paths[key] = filepath.Join(in, name)
		if _, err := os.Stat(paths[key]); key == "mask" && err != nil {
			paths[key] = "" // optional
		}
	}
	if noMask {
		paths["mask"] = ""
	}
	need := []string{"xi", "queries"}
	if len(p.Kernels) > 0 {
		need = append(need, "S")
		if p.UsesBias() {
			need = append(need, "b")
		}
	}
	for _, k := range need {
		if paths[k] == "" {
			return nil, fmt.Errorf("missing input %s: give --%s or --in DIR", k, k)
		}
	}
	if !p.UsesBias() {
		paths["b"] = ""
	}
	if len(p.Kernels) == 0 {
		paths["S"] = ""
	}
	return paths, nil
}

// Run is numpy_dam.py compute: it reads the inputs at paths (see
// ResolvePaths), runs MrDAM (unless skipMR) and every kernel of p on them
// in float64, and writes every output array as OUT/NAME.npy and
// OUT/summary.json, whose "versions" name drdam's version. Log lines of
// timings go to log. It returns the number of arrays written.
func Run(paths map[string]string, p Params, skipMR bool, out, version string, log io.Writer) (int, error) {
	t0 := time.Now()
	in, err := LoadInputs(paths)
	if err != nil {
		return 0, err
	}
	results, timings, err := compute(log, in, p, skipMR)
	if err != nil {
		return 0, err
	}
	meta := map[string]any{
		"impl": "drdam compute", "dtype": "float64", "params": p, "inputs": paths,
		"shapes":         map[string]any{"K": in.k, "D": in.d, "Q": in.nq, "Y": in.y},
		"clamped_coords": in.clamped(), "timings_s": timings, "total_s": time.Since(t0).Seconds(),
		"versions": map[string]string{"drdam": version, "go": runtime.Version()},
	}
	if in.y == 0 {
		meta["shapes"].(map[string]any)["Y"] = nil
	}
	if err := WriteOutputs(out, results, meta); err != nil {
		return 0, err
	}
	return len(results), nil
}

// ReadParams updates p from a params.json file if it exists; keys other
// than those of Params (e.g. "_gen") are ignored, and "kernels" may
// be a list or a comma-separated string.
func ReadParams(path string, p *Params) error {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	field := func(key string, dst any) error {
		if v, ok := raw[key]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return fmt.Errorf("%s: field %q: %w", path, key, err)
			}
		}
		return nil
	}
	steps := float64(p.Steps)
	for _, f := range []struct {
		key string
		dst any
	}{{"beta", &p.Beta}, {"alpha", &p.Alpha}, {"steps", &steps}, {"add_bias", &p.AddBias}} {
		if err := field(f.key, f.dst); err != nil {
			return err
		}
	}
	if steps != float64(int(steps)) {
		return fmt.Errorf("%s: field \"steps\": %v is not an integer", path, steps)
	}
	p.Steps = int(steps)
	if v, ok := raw["kernels"]; ok {
		var list []string
		if json.Unmarshal(v, &list) != nil {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("%s: field \"kernels\": want a list of names or a comma-separated string", path)
			}
			list = cli.SplitList(s)
		}
		p.Kernels = list
	}
	return nil
}

// Inputs are the arrays of a compute run, in float64: memories (K×D),
// queries (Q×D), projections (Y×D) and shifts (Y), and the clamped
// coordinates (D, nil for none).
type Inputs struct {
	xi, q, s, b []float64
	mask        []bool
	k, d, nq, y int
}

func (c *Inputs) clamped() int {
	n := 0
	for _, m := range c.mask {
		if m {
			n++
		}
	}
	return n
}

// LoadInputs reads the arrays at paths (see ResolvePaths), checking their
// shapes and that their values are finite; errors name the file.
func LoadInputs(paths map[string]string) (*Inputs, error) {
	read := func(key string, dims int) (*npy.Array, error) {
		a, err := npy.ReadFile(paths[key])
		if err != nil {
			return nil, err
		}
		if len(a.Shape) != dims {
			return nil, fmt.Errorf("%s: shape %v has %d dimensions, want %d", paths[key], a.Shape, len(a.Shape), dims)
		}
		for i, v := range a.Data {
			if v != v || v > 1e308 || v < -1e308 {
				return nil, fmt.Errorf("%s: value %d is %v", paths[key], i, v)
			}
		}
		return a, nil
	}
	xi, err := read("xi", 2)
	if err != nil {
		return nil, err
	}
	q, err := read("queries", 2)
	if err != nil {
		return nil, err
	}
	c := &Inputs{xi: xi.Data, q: q.Data, k: xi.Shape[0], d: xi.Shape[1], nq: q.Shape[0]}
	if q.Shape[1] != c.d || c.k == 0 || c.nq == 0 || c.d == 0 {
		return nil, fmt.Errorf("bad shapes Xi%v Q%v: want (K,D) and (Q,D) with K, Q, D > 0", xi.Shape, q.Shape)
	}
	if paths["S"] != "" {
		s, err := read("S", 2)
		if err != nil {
			return nil, err
		}
		if s.Shape[1] != c.d || s.Shape[0] == 0 {
			return nil, fmt.Errorf("%s: bad shape S%v: want (Y,%d)", paths["S"], s.Shape, c.d)
		}
		c.s, c.y = s.Data, s.Shape[0]
	}
	if paths["b"] != "" {
		b, err := read("b", 1)
		if err != nil {
			return nil, err
		}
		if c.s != nil && b.Shape[0] != c.y {
			return nil, fmt.Errorf("%s: bad shape b%v: want (%d,)", paths["b"], b.Shape, c.y)
		}
		c.b = b.Data
	}
	if paths["mask"] != "" {
		m, err := npy.ReadFile(paths["mask"])
		if err != nil {
			return nil, err
		}
		if len(m.Shape) != 1 || m.Shape[0] != c.d {
			return nil, fmt.Errorf("%s: bad shape mask%v: want (%d,)", paths["mask"], m.Shape, c.d)
		}
		c.mask = make([]bool, c.d)
		for i, v := range m.Data {
			c.mask[i] = v != 0
		}
	}
	return c, nil
}

// Array is one output: its shape and float64 data.
type Array struct {
	shape []int
	data  []float64
}

// compute runs MrDAM and every DrDAM kernel as numpy_dam.compute does.
func compute(log io.Writer, in *Inputs, p Params, skipMR bool) (map[string]Array, map[string]float64, error) {
	out := map[string]Array{}
	timings := map[string]float64{}
	d, nq, l := in.d, in.nq, p.Steps
	if l < 0 {
		return nil, nil, fmt.Errorf("steps = %d: want ≥ 0", l)
	}
	opt := dam.RecallOptions{Step: p.Alpha, MaxSteps: l, Clamp: in.mask}
	run := func(prefix string, m dam.Memory, logName string) error {
		t0 := time.Now()
		en, g := make([]float64, nq), make([]float64, nq*d)
		if err := m.EnergyGrad(en, g, in.q); err != nil {
			return fmt.Errorf("%s: %w", logName, err)
		}
		timings[prefix+"_energy_grad"] = time.Since(t0).Seconds()
		t0 = time.Now()
		res, err := dam.Recall(m, in.q, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", logName, err)
		}
		timings[prefix+"_recall"] = time.Since(t0).Seconds()
		etraj := make([]float64, l*nq)
		efinal := make([]float64, nq)
		// numpy_dam.recall runs every query for l steps; a query that
		// stalled at DrDAM's clip floor (dam.Stalled) stopped earlier,
		// where its step would not have moved it, so every later energy
		// is its last one, bit for bit.
		for b, tr := range res.Energy {
			for t := range l {
				etraj[t*nq+b] = tr[min(t, len(tr)-1)]
			}
			efinal[b] = tr[len(tr)-1]
		}
		out[prefix+"_E"] = Array{[]int{nq}, en}
		out[prefix+"_grad"] = Array{[]int{nq, d}, g}
		out[prefix+"_Etraj"] = Array{[]int{l, nq}, etraj}
		out[prefix+"_final"] = Array{[]int{nq, d}, append([]float64(nil), res.X...)}
		out[prefix+"_Efinal"] = Array{[]int{nq}, efinal}
		fmt.Fprintf(log, "[drdam] %-6s E+grad %.3fs  recall(%d) %.3fs\n", logName,
			timings[prefix+"_energy_grad"], l, timings[prefix+"_recall"])
		return nil
	}
	if !skipMR {
		mr, err := dam.NewMrDAM(dam.Config{D: d, Beta: p.Beta})
		if err != nil {
			return nil, nil, err
		}
		if err := mr.Add(in.xi); err != nil {
			return nil, nil, fmt.Errorf("the memories Xi: %w", err)
		}
		if err := run("mr", mr, "mrdam"); err != nil {
			return nil, nil, err
		}
	}
	var proj features.Projection
	if len(p.Kernels) > 0 {
		var err error
		if proj, err = features.NewDense(in.s, in.y, d); err != nil {
			return nil, nil, fmt.Errorf("the projection S: %w", err)
		}
	}
	for _, k := range p.Kernels {
		basis, _ := features.ParseBasis(k)
		var bias []float64
		if p.AddBias && basis.UsesBias() {
			bias = in.b
		}
		fm, err := features.NewMap(basis, p.Beta, proj, bias)
		if err != nil {
			return nil, nil, err
		}
		t0 := time.Now()
		dr, err := dam.NewDrDAMWithMap(dam.Config{}, fm)
		if err != nil {
			return nil, nil, err
		}
		if err := dr.Add(in.xi); err != nil {
			return nil, nil, fmt.Errorf("the memories Xi: %w", err)
		}
		prefix := "dr_" + k
		timings[prefix+"_encode"] = time.Since(t0).Seconds()
		out[prefix+"_T"] = Array{[]int{dr.Config().FeatureDim()}, dr.T(nil)}
		if err := run(prefix, dr, k); err != nil {
			return nil, nil, err
		}
	}
	return out, timings, nil
}

// WriteOutputs writes every result as DIR/NAME.npy and meta, with the
// files' shapes and the energies added, as DIR/summary.json.
func WriteOutputs(dir string, results map[string]Array, meta map[string]any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string][]int{}
	energies := map[string][]float64{}
	for name, a := range results {
		if err := npy.WriteFile(filepath.Join(dir, name+".npy"), a.shape, a.data); err != nil {
			return err
		}
		files[name] = a.shape
		if strings.HasSuffix(name, "_E") || strings.HasSuffix(name, "_Efinal") {
			energies[name] = a.data
		}
	}
	meta["files"] = files
	meta["energies"] = energies
	b, err := json.MarshalIndent(meta, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "summary.json"), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
