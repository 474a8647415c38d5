package main

import (
	"fmt"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/internal/cli"
	"github.com/drdam/drdam/serve"
)

func runEncode(e *env, args []string) error {
	fs := newFlags("encode", "", `
Store the patterns of a file (one per row) in a new model file. A DrDAM
keeps only T = Σ φ(ξ) (F values, whatever the number of patterns) and
regenerates its random projection from the seed; an MrDAM keeps the
patterns themselves.

The flags of the model's configuration are the fields of drdam serve's
configurations (PUT /v1/memories/{name}), with "-" for "_": the same
names, defaults and forms.

Example:
  drdam encode --patterns letters.csv --beta 30 --y 50000 --out letters.drdam`)
	enc := cli.EncodeFlags(fs.FlagSet)
	patterns, out := &enc.Patterns, &enc.Out
	fs.require("patterns", "out")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	c, err := enc.Config()
	if err != nil {
		return usageError{err.Error()}
	}
	budget := byteSize(c.MaxMemory)
	if err := checkFiles([]file{{"patterns", *patterns}}, []file{{"out", *out}}); err != nil {
		return err
	}
	rows, err := dataio.OpenRows(*patterns)
	if err != nil {
		return err
	}
	defer rows.Close()
	c.D = rows.Cols()
	m, err := dam.NewContext(e.context(), c)
	if err != nil {
		return budgetHint(flagError(err))
	}
	k, err := storeRows(e, m, rows, *patterns, false, &budget)
	if err != nil {
		return err
	}
	if err := dam.Save(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "stored %d patterns of dimension %d in %s: %s\n", k, c.D, *out, m.Config())
	return nil
}

func runAdd(e *env, args []string) error    { return runUpdate(e, args, "add") }
func runRemove(e *env, args []string) error { return runUpdate(e, args, "remove") }

func runUpdate(e *env, args []string, verb string) error {
	help := `
Add the patterns of a file (one per row) to a model. A DrDAM's T grows by
their features and keeps its size.`
	if verb == "remove" {
		help = `
Remove the patterns of a file (one per row) from a model. An MrDAM deletes
one stored copy of each (it is an error if one is not stored); a DrDAM
subtracts their features from T and cannot check that they were stored.`
	}
	fs := newFlags(verb, "", help)
	model := fs.String("model", "", "model file")
	patterns := fs.String("patterns", "", "file of patterns, one per row")
	out := fs.String("out", "", "where to write the updated model (default: replace --model, atomically; concurrent updates of one model wait for each other)")
	budget := addBudget(fs)
	fs.require("model", "patterns")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	if *out == "" {
		*out = *model
	}
	if err := checkFiles([]file{{"patterns", *patterns}}, []file{{"out", *out}}); err != nil {
		return err
	}
	unlock, err := lockModel(e, *model)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := loadModel(e, *model, budget)
	if err != nil {
		return err
	}
	rows, err := dataio.OpenRows(*patterns)
	if err != nil {
		return err
	}
	defer rows.Close()
	before := m.Len()
	if _, err := storeRows(e, m, rows, *patterns, verb == "remove", budget); err != nil {
		return err
	}
	if err := dam.Save(*out, m); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %d patterns (was %d), written to %s\n", verb, m.Len(), before, *out)
	return nil
}

func runMerge(e *env, args []string) error {
	fs := newFlags("merge", "", `
Merge two models of the same configuration (representation, dimension, β,
and for DrDAM basis, projection, Y, seed, bias and ε): T = T₁ + T₂, or the
patterns of both for MrDAM. Models encoded separately, on several machines
for instance, can be combined this way.`)
	a := fs.String("model", "", "first model file")
	b := fs.String("with", "", "second model file")
	out := fs.String("out", "", "merged model file to write (it may be --model or --with: it is replaced atomically)")
	budget := addBudget(fs)
	fs.require("model", "with", "out")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	if err := checkFiles(nil, []file{{"out", *out}}); err != nil {
		return err
	}
	unlock, err := lockModel(e, *out)
	if err != nil {
		return err
	}
	defer unlock()
	m1, err := loadModel(e, *a, budget)
	if err != nil {
		return err
	}
	m2, err := loadModel(e, *b, budget)
	if err != nil {
		return err
	}
	if err := m1.Merge(m2); err != nil {
		return fmt.Errorf("merge %s and %s: %w", *a, *b, err)
	}
	if err := dam.Save(*out, m1); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "merged %d patterns into %s\n", m1.Len(), *out)
	return nil
}

func runInfo(e *env, args []string) error {
	fs := newFlags("info", "", `
Describe a model file: its configuration, the number of patterns it stores,
its size against that of the patterns themselves, and the memory that
loading it takes. Only the header is read (and the checksum of the whole
file checked): nothing is built.`)
	model := fs.String("model", "", "model file")
	asJSON := jsonFlag(fs)
	fs.require("model")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	h, err := dam.StatModel(*model)
	if err != nil {
		return err
	}
	c := h.Config
	count := int(min(h.Count, 1<<31))
	if *asJSON {
		fp := dam.EstimateFootprint(c, count)
		j := infoJSON{File: *model, Bytes: h.Size, FormatVersion: int(h.Version), Config: serve.APIConfig(c), Patterns: uint64(h.Count),
			PatternValues: float64(h.Count) * float64(c.D), LoadBytes: fp.Bytes, LoadLargest: fp.Largest, BudgetBytes: dam.DefaultBudget()}
		if c.Rep == dam.RepDrDAM {
			j.TValues = c.FeatureDim()
		}
		return printJSON(e.stdout, j)
	}
	w := e.stdout
	fmt.Fprintf(w, "file            %s (%d bytes, format version %d, checksum OK)\n", *model, h.Size, h.Version)
	fmt.Fprintf(w, "representation  %v\n", c.Rep)
	fmt.Fprintf(w, "energy          %v, β = %g\n", c.Similarity, c.Beta)
	fmt.Fprintf(w, "precision       %v (compute)\n", c.Precision)
	fmt.Fprintf(w, "dimension D     %d\n", c.D)
	fmt.Fprintf(w, "patterns K      %d\n", h.Count)
	patterns := float64(h.Count) * float64(c.D)
	if c.Rep == dam.RepDrDAM {
		bias := "b ~ U(0, 2π)"
		if c.NoBias {
			bias = "none"
		}
		fmt.Fprintf(w, "basis           %v (%s shift)\n", c.Basis, bias)
		od := ""
		if c.OnDemand {
			od = " (rows regenerated on demand)"
		}
		fmt.Fprintf(w, "projection      %v%s, Y = %d, seed %d\n", c.Projection, od, c.Y, c.Seed)
		if c.Projection == features.Gaussian || c.Projection == features.Orthogonal {
			fmt.Fprintf(w, "generator       version %d (%s)\n", int(c.Generator), c.Generator.Summary())
		}
		fmt.Fprintf(w, "clip floor ε    %g\n", c.Epsilon)
		fmt.Fprintf(w, "parameters      T has %d values; the patterns would take K·D = %.0f (ratio %.3g)\n",
			c.FeatureDim(), patterns, float64(c.FeatureDim())/max(patterns, 1))
	} else {
		fmt.Fprintf(w, "parameters      K·D = %.0f pattern values\n", patterns)
	}
	fp := dam.EstimateFootprint(c, count)
	fmt.Fprintf(w, "memory          %s to load (mostly %s); budget %s\n", dam.Bytes(fp.Bytes), fp.Largest, dam.Bytes(float64(dam.DefaultBudget())))
	return nil
}

// lockModel takes the lock of the model file at path for a
// read–modify–write, saying on stderr when it has to wait for another
// drdam.
func lockModel(e *env, path string) (func(), error) {
	return atomicfile.Lock(path, func() {
		fmt.Fprintf(e.stderr, "drdam: waiting for %s, which another drdam is updating\n", path)
	})
}

// flagError prefixes a configuration error with the encode flag that set
// the field (cli.FlagError).
func flagError(err error) error { return cli.FlagError(err) }
