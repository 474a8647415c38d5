package experiment

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/metrics"
)

// The metrics a Row can hold.
const (
	MetricEnergy   = "energy"   // |E − Ê|, eq. MAE
	MetricGradient = "gradient" // ‖∇E − ∇Ê‖₂, eq. MAE
	MetricHamming  = "hamming"  // Δ_H between binarized fixed points, eq. binarize-op-hamming-err
	// MetricMrRecall is Δ_H between MrDAM's fixed points from the stored
	// patterns and the patterns themselves: 0 where they are fixed points,
	// large where β is too small for K memories to be separate minima.
	MetricMrRecall = "mrdam_recall"
	// MetricStalled is the fraction of DrDAM's descents that ended stalled
	// at the clip floor ε (dam.Stalled): their fixed points are where the
	// queries started, not retrievals.
	MetricStalled = "stalled"
	// MetricHammingMoved is Δ_H over the queries whose DrDAM descent did
	// not stall: the retrievals proper (NaN if every descent stalled).
	MetricHammingMoved = "hamming_moved"
)

// QuerySet names where queries start: at the stored patterns, near them,
// or far from them.
type QuerySet string

// The query sets of §4.1.
const (
	At   QuerySet = "at"
	Near QuerySet = "near"
	Far  QuerySet = "far"
)

// QuerySets returns the query sets of §4.1 in the order the experiments
// use.
func QuerySets() []QuerySet { return []QuerySet{At, Near, Far} }

// Query sets beyond those of §4.1: the random-guess baseline of §4.1 and
// the stored and new patterns of the basis ablation (Fig. 6).
const (
	Guess  QuerySet = "guess"  // MrDAM at the stored patterns against DrDAM at fresh random queries
	Stored QuerySet = "stored" // the stored patterns (Fig. 6)
	New    QuerySet = "new"    // patterns not stored (Fig. 6)
)

// Row is one measured value of an experiment: the mean, standard error
// and median of one metric over Count queries, at one configuration. Rows
// are the tidy table every experiment writes (one CSV row each) and every
// figure and observation is drawn from.
type Row struct {
	// Seed is the seed of the replicate that measured the row: its
	// patterns, queries and projections (see Plan.WithSeed). Rows of
	// several seeds are independent replicates of one configuration.
	Seed       uint64
	D, K, Y    int
	Beta       float64
	Basis      string // feature basis: sincos, cos, exp or expexp
	Projection string // gaussian, orthogonal or structured
	Queries    QuerySet
	Metric     string
	Mean, SE   float64
	Median     float64
	Count      int
}

// Key identifies the configuration of a Row apart from its query set and
// metric: the unit of work that is skipped when a run is resumed.
type Key struct {
	Seed       uint64
	D, K, Y    int
	Beta       float64
	Basis      string
	Projection string
}

// Key returns the configuration of r.
func (r Row) Key() Key {
	return Key{Seed: r.Seed, D: r.D, K: r.K, Y: r.Y, Beta: r.Beta, Basis: r.Basis, Projection: r.Projection}
}

// String describes the configuration, e.g. "D=100 K=500 Y=20000 β=10
// sincos gaussian seed=1".
func (k Key) String() string {
	return fmt.Sprintf("D=%d K=%d Y=%d β=%g %s %s seed=%d", k.D, k.K, k.Y, k.Beta, k.Basis, k.Projection, k.Seed)
}

var csvHeader = []string{"seed", "D", "K", "Y", "beta", "basis", "projection", "queries", "metric", "mean", "se", "median", "count"}

// WriteRows writes rows as CSV with a header to path, atomically: a
// failed write leaves any previous file in place.
func WriteRows(path string, rows []Row) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(csvHeader)
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		for _, r := range rows {
			cw.Write([]string{strconv.FormatUint(r.Seed, 10), strconv.Itoa(r.D), strconv.Itoa(r.K), strconv.Itoa(r.Y), g(r.Beta), r.Basis, r.Projection,
				string(r.Queries), r.Metric, g(r.Mean), g(r.SE), g(r.Median), strconv.Itoa(r.Count)})
		}
		cw.Flush()
		return cw.Error()
	})
}

// ReadRows reads a CSV written by WriteRows. A missing file gives an error
// for which errors.Is(err, fs.ErrNotExist) holds; any other problem names
// the file, the line and the field.
func ReadRows(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = 0 // the header's: the header is checked first
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty file, want a header %q", path, strings.Join(csvHeader, ","))
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !slices.Equal(head, csvHeader) {
		if slices.Equal(head, csvHeader[1:]) {
			return nil, fmt.Errorf("%s:1: header %q has no seed column: it was written by a drdam older than --seeds (start over with --fresh)", path, strings.Join(head, ","))
		}
		return nil, fmt.Errorf("%s:1: header %q, want %q", path, strings.Join(head, ","), strings.Join(csvHeader, ","))
	}
	var rows []Row
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		var r Row
		var perr error
		num := func(i int) float64 {
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("%s:%d: field %s: want a number, found %q", path, line, csvHeader[i], rec[i])
			}
			return v
		}
		integer := func(i int) int {
			v, err := strconv.Atoi(rec[i])
			if (err != nil || v < 0) && perr == nil {
				perr = fmt.Errorf("%s:%d: field %s: want a non-negative integer, found %q", path, line, csvHeader[i], rec[i])
			}
			return v
		}
		seed, err := strconv.ParseUint(rec[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: field seed: want a non-negative integer, found %q", path, line, rec[0])
		}
		r.Seed = seed
		r.D, r.K, r.Y = integer(1), integer(2), integer(3)
		r.Beta = num(4)
		r.Basis, r.Projection, r.Queries, r.Metric = rec[5], rec[6], QuerySet(rec[7]), rec[8]
		r.Mean, r.SE, r.Median = num(9), num(10), num(11)
		r.Count = integer(12)
		if perr != nil {
			return nil, perr
		}
		if !(r.Beta > 0) || math.IsInf(r.Beta, 0) {
			return nil, fmt.Errorf("%s:%d: field beta: want a positive number, found %q", path, line, rec[4])
		}
		rows = append(rows, r)
	}
}

// Select returns the rows for which keep is true, in order.
func Select(rows []Row, keep func(Row) bool) []Row {
	var out []Row
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Find returns the first row with the given key, query set and metric.
func Find(rows []Row, k Key, q QuerySet, metric string) (Row, bool) {
	for _, r := range rows {
		if r.Key() == k && r.Queries == q && r.Metric == metric {
			return r, true
		}
	}
	return Row{}, false
}

// summarize returns the Row of the errors v (the values of ns equal groups
// of queries, one group per projection seed) at the given configuration.
func summarize(k Key, q QuerySet, metric string, v []float64, ns int) Row {
	mean, se := meanSE(v, ns)
	return Row{Seed: k.Seed, D: k.D, K: k.K, Y: k.Y, Beta: k.Beta, Basis: k.Basis, Projection: k.Projection,
		Queries: q, Metric: metric, Mean: mean, SE: se, Median: metrics.Median(v), Count: len(v)}
}

// meanSE returns the mean of v, the values of ns equal groups in order,
// and its standard error: across the groups' means if ns ≥ 2, else across
// the values.
func meanSE(v []float64, ns int) (mean, se float64) {
	if ns < 2 {
		return metrics.MeanStdErr(v)
	}
	n := len(v) / ns
	means := make([]float64, ns)
	for r := range ns {
		means[r], _ = metrics.MeanStdErr(v[r*n : (r+1)*n])
	}
	return metrics.MeanStdErr(means)
}
