package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/drdam/drdam/cmd/drdam/internal/peers"
	"github.com/drdam/drdam/internal/cli"
)

// computeHelp is the --help of drdam compute.
const computeHelp = `
Compute what ` + "`numpy_dam.py compute`" + ` of the peers computes, on the same
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
  python3 dam_io.py compare OUT_NUMPY OUT_DRDAM --tol 1e-9`

func runCompute(e *env, args []string) error {
	fs := newFlags("compute", "", computeHelp)
	in := fs.String("in", "", "input directory holding Xi.npy Q.npy S.npy b.npy [mask.npy] [params.json]")
	xiPath := fs.String("xi", "", "memories, shape (K, D) [default: IN/Xi.npy]")
	qPath := fs.String("queries", "", "queries, shape (Q, D) [default: IN/Q.npy]")
	sPath := fs.String("S", "", "random projections, shape (Y, D) [default: IN/S.npy]")
	bPath := fs.String("b", "", "random shifts, shape (Y,) [default: IN/b.npy]")
	maskPath := fs.String("mask", "", "clamp mask, shape (D,), nonzero/True = clamped [default: IN/mask.npy if it exists]")
	noMask := fs.Bool("no-mask", false, "ignore IN/mask.npy even if present")
	out := fs.String("out", "", "output directory (created)")
	beta := fs.Float64("beta", 40, "inverse temperature [params.json or 40, numpy_dam.py's default]")
	alpha := fs.Float64("alpha", 0.1, "retrieval step size [params.json or 0.1, numpy_dam.py's default]")
	steps := fs.Int("steps", 10, "retrieval depth L [params.json or 10, numpy_dam.py's default]")
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
	p := peers.DefaultParams()
	if *in != "" {
		if err := peers.ReadParams(filepath.Join(*in, "params.json"), &p); err != nil {
			return err
		}
	}
	for name, apply := range map[string]func(){
		"beta": func() { p.Beta = *beta }, "alpha": func() { p.Alpha = *alpha }, "steps": func() { p.Steps = *steps },
		"bias": func() { p.AddBias = *bias }, "no-bias": func() { p.AddBias = !*noBias }, "kernels": func() { p.Kernels = cli.SplitList(*kernels) },
	} {
		if set[name] {
			apply()
		}
	}
	if err := p.CheckKernels(); err != nil {
		return usageError{err.Error()}
	}
	paths, err := peers.ResolvePaths(*in, map[string]string{"xi": *xiPath, "queries": *qPath, "S": *sPath, "b": *bPath, "mask": *maskPath}, *noMask, p)
	if err != nil {
		return usageError{err.Error()}
	}
	n, err := peers.Run(paths, p, *skipMR, *out, versionString(), e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %d arrays to %s\n", n, *out)
	return nil
}
