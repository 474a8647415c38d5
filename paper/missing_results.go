package paper

// The completion comparison's results: a row per method, cell and seed,
// results.csv written and read, and the rows grouped by cell.

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/internal/atomicfile"
)

// missingRow is one measured method of one cell and seed.
type missingRow struct {
	Data, Corruption, Set string
	K                     int
	Seed                  uint64
	Beta                  float64
	Eta                   float64 // an early stop's η (0: the spec's)
	FixedSteps            int     // an early stop's steps (0: until --tol)
	experiment.ImputeScore
}

// corruptionList joins corruptions' names.
func corruptionList(cs []experiment.Corruption) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}

// writeMissingCSV writes every row.
func writeMissingCSV(path string, rows []missingRow) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"data", "corruption", "queries", "k", "seed", "beta", "eta", "fixed_steps", "method", "rmse", "retrieved", "state_values", "state_bytes",
			"seconds_per_query", "build_seconds", "peak_mib", "steps", "stalled"})
		for _, r := range rows {
			cw.Write([]string{r.Data, r.Corruption, r.Set, strconv.Itoa(r.K), strconv.FormatUint(r.Seed, 10), g(r.Beta), g(r.Eta), strconv.Itoa(r.FixedSteps), r.Method,
				g(r.RMSE), g(r.Retrieved), strconv.FormatInt(r.Values, 10), strconv.FormatInt(8*r.Values, 10), g(r.Seconds), g(r.Build),
				g(r.PeakMiB), g(r.Steps), g(r.Stalled)})
		}
		cw.Flush()
		return cw.Error()
	})
}

// readMissingCSV reads the rows that writeMissingCSV wrote.
func readMissingCSV(path string) ([]missingRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var rows []missingRow
	for n, rec := range recs[1:] {
		var errs []error
		num := func(name string) float64 {
			i, ok := col[name]
			if !ok {
				errs = append(errs, fmt.Errorf("no column %q", name))
				return 0
			}
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("column %s: %w", name, err))
			}
			return v
		}
		str := func(name string) string {
			if i, ok := col[name]; ok {
				return rec[i]
			}
			errs = append(errs, fmt.Errorf("no column %q", name))
			return ""
		}
		r := missingRow{Data: str("data"), Corruption: str("corruption"), Set: str("queries"), K: int(num("k")), Seed: uint64(num("seed")),
			Beta: num("beta"), Eta: num("eta"), FixedSteps: int(num("fixed_steps"))}
		r.Method, r.RMSE, r.Retrieved, r.Values = str("method"), num("rmse"), num("retrieved"), int64(num("state_values"))
		r.Seconds, r.Build, r.PeakMiB, r.Steps, r.Stalled = num("seconds_per_query"), num("build_seconds"), num("peak_mib"), num("steps"), num("stalled")
		if len(errs) > 0 {
			return nil, fmt.Errorf("%s: row %d: %w", path, n+2, errs[0])
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// g formats a number exactly (the shortest text that reads back as v), so
// that --redraw draws the same table.
func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// cellKey names the cell of a row without its seed.
type cellKey struct {
	Data, Corruption, Set, Method string
	K                             int
}

// bySeed groups the rows' values of stat by cell, in seed order.
func bySeed(rows []missingRow, stat func(missingRow) float64) map[cellKey][]float64 {
	out := map[cellKey][]float64{}
	for _, r := range rows {
		k := cellKey{r.Data, r.Corruption, r.Set, r.Method, r.K}
		out[k] = append(out[k], stat(r))
	}
	return out
}

// methodRank orders the methods of the table: the baselines, MrDAM's
// kinds, then DrDAM's (in the order measured), whatever order the rows
// are in (a results.csv completed by a later run of some methods).
var methodRank = []string{"mean", "1-NN", "5-NN", "KNNImputer", "kernel", "MrDAM", "MrDAM, mean start", "MrDAM, kernel start",
	"MrDAM, 5-NN start", "MrDAM annealed", "MrDAM, early stop"}

// methodOrder lists the methods of rows: those of methodRank in its
// order, then the others in the order measured, "as is" last.
func methodOrder(rows []missingRow) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.Method) {
			out = append(out, r.Method)
		}
	}
	rank := func(m string) int {
		if i := slices.Index(methodRank, m); i >= 0 {
			return i
		}
		if m == "as is" {
			return len(methodRank) + 1
		}
		return len(methodRank)
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// mainK returns the K of each data set's main cells: the K at which its
// five corruptions were measured (the largest with more than one
// corruption, else the one nearest want).
func mainK(rows []missingRow, data string, want int) int {
	corrs := map[int]map[string]bool{}
	for _, r := range rows {
		if r.Data == data {
			if corrs[r.K] == nil {
				corrs[r.K] = map[string]bool{}
			}
			corrs[r.K][r.Corruption] = true
		}
	}
	best, bestN := 0, 0
	for k, cs := range corrs {
		if len(cs) > bestN || (len(cs) == bestN && abs(k-want) < abs(best-want)) {
			best, bestN = k, len(cs)
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
