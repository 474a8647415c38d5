// Command streamcheck is the in-process half of the streaming-encode
// measurement (BENCHMARKS.md, "Streaming encode"): it reads a pattern
// file whole into memory, stores it with one call of the library's Add
// in a DrDAM of the given configuration, timed, and compares the T it
// gets with that of a model file written by `drdam encode` from the same
// file (which streams it). It prints one JSON row.
//
//	go run ./scripts/streamcheck --patterns /tmp/p.npy --model /tmp/p.drdam --y 100000 --beta 60
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/features"
)

func main() {
	patterns := flag.String("patterns", "", "pattern file, read whole")
	model := flag.String("model", "", "model written by drdam encode from --patterns (optional: without it only the rate is measured)")
	y := flag.Int("y", 100_000, "Y")
	beta := flag.Float64("beta", 60, "β")
	basis := flag.String("basis", "sincos", "basis")
	proj := flag.String("projection", "structured", "projection")
	seed := flag.Uint64("seed", 0, "seed")
	flag.Parse()
	if err := run(*patterns, *model, *y, *beta, *basis, *proj, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "streamcheck:", err)
		os.Exit(1)
	}
}

func run(patterns, model string, y int, beta float64, basisName, projName string, seed uint64) error {
	t0 := time.Now()
	p, err := dataio.ReadMatrix(patterns)
	if err != nil {
		return err
	}
	read := time.Since(t0)
	basis, err := features.ParseBasis(basisName)
	if err != nil {
		return err
	}
	proj, err := features.ParseProjectionKind(projName)
	if err != nil {
		return err
	}
	m, err := dam.NewDrDAM(dam.Config{D: p.Cols, Beta: beta, Y: y, Basis: basis, Projection: proj, Seed: seed})
	if err != nil {
		return err
	}
	t1 := time.Now()
	if err := m.Add(p.Data); err != nil {
		return err
	}
	add := time.Since(t1)
	row := map[string]any{
		"patterns": patterns, "rows": p.Rows, "cols": p.Cols, "config": m.Config().String(),
		"read_s": read.Seconds(), "add_s": add.Seconds(), "add_patterns_per_s": float64(p.Rows) / add.Seconds(),
		"gomaxprocs": runtime.GOMAXPROCS(0),
	}
	if model != "" {
		mm, err := dam.Load(model)
		if err != nil {
			return err
		}
		o, ok := mm.(*dam.DrDAM)
		if !ok || mm.Len() != p.Rows {
			return fmt.Errorf("%s: not a DrDAM of %d patterns", model, p.Rows)
		}
		a, b := m.T(nil), o.T(nil)
		var diff, norm float64
		same := 0
		for i := range a {
			diff = max(diff, math.Abs(a[i]-b[i]))
			norm = max(norm, math.Abs(a[i]))
			if math.Float64bits(a[i]) == math.Float64bits(b[i]) {
				same++
			}
		}
		row["model"] = model
		row["t_max_rel_diff"] = diff / norm
		row["t_bit_equal"] = same == len(a)
	}
	return json.NewEncoder(os.Stdout).Encode(row)
}
