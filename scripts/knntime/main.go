// Command knntime is the Go half of the comparison of baseline.Imputer
// with scikit-learn's KNNImputer (BENCHMARKS.md, "Completion baselines"):
// it reads the stored rows and the queries (NaN = missing) from .npy
// files, times NewImputer and Complete (KNNImputer's fit and transform)
// with k neighbours and uniform weights, writes the completed rows to
// --out if given, and prints one JSON row. Its peak RSS is measured from
// outside (/usr/bin/time -v).
//
//	go run ./scripts/knntime --fit d64-fit.npy --query d64-query.npy --k 5 --out d64-go.npy
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/drdam/drdam/baseline"
	"github.com/drdam/drdam/npy"
)

func main() {
	fitPath := flag.String("fit", "", "stored rows, a K×D .npy file")
	qPath := flag.String("query", "", "queries, a B×D .npy file, NaN where missing")
	k := flag.Int("k", 5, "neighbours")
	out := flag.String("out", "", "write the completed queries here (.npy; optional)")
	flag.Parse()
	if err := run(*fitPath, *qPath, *k, *out); err != nil {
		fmt.Fprintln(os.Stderr, "knntime:", err)
		os.Exit(1)
	}
}

func run(fitPath, qPath string, k int, out string) error {
	if fitPath == "" || qPath == "" {
		return fmt.Errorf("want --fit and --query")
	}
	fit, err := npy.ReadFile(fitPath)
	if err != nil {
		return err
	}
	q, err := npy.ReadFile(qPath)
	if err != nil {
		return err
	}
	if len(fit.Shape) != 2 || len(q.Shape) != 2 || fit.Shape[1] != q.Shape[1] {
		return fmt.Errorf("want two matrices of the same width, found shapes %v (%s) and %v (%s)", fit.Shape, fitPath, q.Shape, qPath)
	}
	d := fit.Shape[1]
	t0 := time.Now()
	m, err := baseline.NewImputer(fit.Data, d, k, baseline.Uniform)
	if err != nil {
		return err
	}
	dst := make([]float64, len(q.Data))
	if err := m.Complete(dst, q.Data, nil); err != nil {
		return err
	}
	el := time.Since(t0)
	hidden := 0
	for _, v := range q.Data {
		if math.IsNaN(v) {
			hidden++
		}
	}
	if out != "" {
		if err := npy.WriteFile(out, q.Shape, dst); err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"K": fit.Shape[0], "D": d, "B": q.Shape[0], "k": k, "weights": "uniform", "imputed": hidden, "seconds": el.Seconds()})
}
