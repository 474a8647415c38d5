package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/npy"
)

// computeParams are the parameters of the peers' compute command, with the
// same names and defaults (dam_io.DEFAULT_PARAMS).
type computeParams struct {
	Beta    float64  `json:"beta"`
	Alpha   float64  `json:"alpha"`
	Steps   int      `json:"steps"`
	AddBias bool     `json:"add_bias"`
	Kernels []string `json:"kernels"`
}

var computeKernels = []string{"sincos", "cos", "exp", "expexp"}

func runCompute(e *env, args []string) error {
	fs := newFlags("compute", "", `
Compute what `+"`numpy_dam.py compute`"+` of the peers computes, on the same
input files, and write the same output files (see ../shared/peers/README.md,
"File interface"), all in float64:

  inputs  IN/Xi.npy (K×D memories), IN/Q.npy (Q×D queries), IN/S.npy (Y×D
          projections), IN/b.npy (Y shifts), IN/mask.npy (optional, D,
          nonzero = clamped), IN/params.json (optional: beta, alpha, steps,
          add_bias, kernels)
  outputs OUT/mr_{E,grad,Etraj,final,Efinal}.npy,
          OUT/dr_<kernel>_{T,E,grad,Etraj,final,Efinal}.npy, OUT/summary.json

A flag overrides params.json, which overrides the defaults (beta 40, alpha
0.1, steps 10, add_bias true, all four kernels). Energies are logged before
each of the L retrieval steps (Etraj is L×Q); the gradients of the initial
queries are unmasked. Compare with the oracle by
  python3 dam_io.py compare OUT_NUMPY OUT_DRDAM --tol 1e-9`)
	in := fs.String("in", "", "input directory holding Xi.npy Q.npy S.npy b.npy [mask.npy] [params.json]")
	xiPath := fs.String("xi", "", "memories, shape (K, D) [default: IN/Xi.npy]")
	qPath := fs.String("queries", "", "queries, shape (Q, D) [default: IN/Q.npy]")
	sPath := fs.String("S", "", "random projections, shape (Y, D) [default: IN/S.npy]")
	bPath := fs.String("b", "", "random shifts, shape (Y,) [default: IN/b.npy]")
	maskPath := fs.String("mask", "", "clamp mask, shape (D,), nonzero/True = clamped [default: IN/mask.npy if it exists]")
	noMask := fs.Bool("no-mask", false, "ignore IN/mask.npy even if present")
	out := fs.String("out", "", "output directory (created)")
	beta := fs.Float64("beta", 40, "inverse temperature [params.json or 40]")
	alpha := fs.Float64("alpha", 0.1, "retrieval step size [params.json or 0.1]")
	steps := fs.Int("steps", 10, "retrieval depth L [params.json or 10]")
	kernels := fs.String("kernels", "", "comma list from sincos,cos,exp,expexp [params.json or all four]")
	bias := fs.Bool("bias", false, "add b inside cos/sin (reference default) [params.json or on]")
	noBias := fs.Bool("no-bias", false, "do not add b")
	skipMR := fs.Bool("skip-mr", false, "do not compute MrDAM outputs")
	fs.Int("chunk", 512, "memories per chunk when encoding T (accepted for compatibility; drdam chooses its own blocks, which only changes the summation order)")
	fs.require("out")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["bias"] && set["no-bias"] {
		return usagef("--bias and --no-bias are exclusive")
	}

	p := computeParams{Beta: 40, Alpha: 0.1, Steps: 10, AddBias: true, Kernels: computeKernels}
	if *in != "" {
		if err := readParams(filepath.Join(*in, "params.json"), &p); err != nil {
			return err
		}
	}
	if set["beta"] {
		p.Beta = *beta
	}
	if set["alpha"] {
		p.Alpha = *alpha
	}
	if set["steps"] {
		p.Steps = *steps
	}
	if set["bias"] {
		p.AddBias = *bias
	}
	if set["no-bias"] {
		p.AddBias = !*noBias
	}
	if set["kernels"] {
		p.Kernels = splitList(*kernels)
	}
	for _, k := range p.Kernels {
		if _, err := features.ParseBasis(k); err != nil {
			return usagef("kernel %q: want one of sincos, cos, exp, expexp", k)
		}
	}

	path := func(flagVal, name string, optional bool) string {
		if flagVal != "" || *in == "" {
			return flagVal
		}
		c := filepath.Join(*in, name)
		if optional {
			if _, err := os.Stat(c); err != nil {
				return ""
			}
		}
		return c
	}
	paths := map[string]string{
		"xi": path(*xiPath, "Xi.npy", false), "queries": path(*qPath, "Q.npy", false),
		"S": path(*sPath, "S.npy", false), "b": path(*bPath, "b.npy", false),
		"mask": path(*maskPath, "mask.npy", true),
	}
	if *noMask {
		paths["mask"] = ""
	}
	need := []string{"xi", "queries"}
	usesBias := false
	for _, k := range p.Kernels {
		b, _ := features.ParseBasis(k)
		usesBias = usesBias || b.UsesBias()
	}
	if len(p.Kernels) > 0 {
		need = append(need, "S")
		if p.AddBias && usesBias {
			need = append(need, "b")
		}
	}
	for _, k := range need {
		if paths[k] == "" {
			return usagef("missing input %s: give --%s or --in DIR", k, k)
		}
	}
	if !p.AddBias || !usesBias || len(p.Kernels) == 0 {
		paths["b"] = ""
	}
	if len(p.Kernels) == 0 {
		paths["S"] = ""
	}

	t0 := time.Now()
	in2, err := loadComputeInputs(paths)
	if err != nil {
		return err
	}
	results, timings, err := compute(e, in2, p, *skipMR)
	if err != nil {
		return err
	}
	meta := map[string]any{
		"impl": "drdam compute", "dtype": "float64", "params": p, "inputs": paths,
		"shapes":         map[string]any{"K": in2.k, "D": in2.d, "Q": in2.nq, "Y": in2.y},
		"clamped_coords": in2.clamped(), "timings_s": timings, "total_s": time.Since(t0).Seconds(),
		"versions": map[string]string{"drdam": versionString(), "go": runtime.Version()},
	}
	if in2.y == 0 {
		meta["shapes"].(map[string]any)["Y"] = nil
	}
	if err := writeComputeOutputs(*out, results, meta); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %d arrays to %s\n", len(results), *out)
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// readParams updates p from a params.json file if it exists; keys other
// than those of computeParams (e.g. "_gen") are ignored, and "kernels" may
// be a list or a comma-separated string.
func readParams(path string, p *computeParams) error {
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
			list = splitList(s)
		}
		p.Kernels = list
	}
	return nil
}

type computeInputs struct {
	xi, q, s, b []float64
	mask        []bool
	k, d, nq, y int
}

func (c *computeInputs) clamped() int {
	n := 0
	for _, m := range c.mask {
		if m {
			n++
		}
	}
	return n
}

func loadComputeInputs(paths map[string]string) (*computeInputs, error) {
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
	c := &computeInputs{xi: xi.Data, q: q.Data, k: xi.Shape[0], d: xi.Shape[1], nq: q.Shape[0]}
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

// array is one output: its shape and float64 data.
type array struct {
	shape []int
	data  []float64
}

// compute runs MrDAM and every DrDAM kernel as numpy_dam.compute does.
func compute(e *env, in *computeInputs, p computeParams, skipMR bool) (map[string]array, map[string]float64, error) {
	out := map[string]array{}
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
		for b, tr := range res.Energy {
			for t := range l {
				etraj[t*nq+b] = tr[t]
			}
			efinal[b] = tr[l]
		}
		out[prefix+"_E"] = array{[]int{nq}, en}
		out[prefix+"_grad"] = array{[]int{nq, d}, g}
		out[prefix+"_Etraj"] = array{[]int{l, nq}, etraj}
		out[prefix+"_final"] = array{[]int{nq, d}, append([]float64(nil), res.X...)}
		out[prefix+"_Efinal"] = array{[]int{nq}, efinal}
		fmt.Fprintf(e.stdout, "[drdam] %-6s E+grad %.3fs  recall(%d) %.3fs\n", logName,
			timings[prefix+"_energy_grad"], l, timings[prefix+"_recall"])
		return nil
	}
	if !skipMR {
		mr, err := dam.NewMrDAM(dam.Config{D: d, Beta: p.Beta})
		if err != nil {
			return nil, nil, err
		}
		if err := mr.Add(in.xi); err != nil {
			return nil, nil, fmt.Errorf("Xi: %w", err)
		}
		if err := run("mr", mr, "mrdam"); err != nil {
			return nil, nil, err
		}
	}
	var proj features.Projection
	if len(p.Kernels) > 0 {
		var err error
		if proj, err = features.NewDense(in.s, in.y, d); err != nil {
			return nil, nil, fmt.Errorf("S: %w", err)
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
			return nil, nil, fmt.Errorf("Xi: %w", err)
		}
		prefix := "dr_" + k
		timings[prefix+"_encode"] = time.Since(t0).Seconds()
		out[prefix+"_T"] = array{[]int{dr.Config().FeatureDim()}, dr.T(nil)}
		if err := run(prefix, dr, k); err != nil {
			return nil, nil, err
		}
	}
	return out, timings, nil
}

func writeComputeOutputs(dir string, results map[string]array, meta map[string]any) error {
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
