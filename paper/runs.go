package paper

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/metrics"
)

// Runs are the replicates of a completion: one CompletionResult per seed
// of DrDAM's projection (MrDAM, deterministic, descends once and is
// shared), all with the box on or all with it off.
type Runs struct {
	Box   bool
	Seeds []uint64
	Res   []*experiment.CompletionResult // Res[i] is of Seeds[i]
}

// across returns, for query q, the values stat gives across the seeds.
func (r *Runs) across(q int, stat func(*experiment.CompletionResult) []float64) []float64 {
	xs := make([]float64, len(r.Res))
	for i, res := range r.Res {
		xs[i] = stat(res)[q]
	}
	return xs
}

// The per-query statistics of a CompletionResult the tables and judges
// read.
var (
	drToMrFree   = func(r *experiment.CompletionResult) []float64 { return r.DrToMrFree }
	drToOrigFree = func(r *experiment.CompletionResult) []float64 { return r.DrToOriginalFree }
	drToMr       = func(r *experiment.CompletionResult) []float64 { return r.DrToMr }
	drMargin     = func(r *experiment.CompletionResult) []float64 { return r.DrMargin }
)

// meanIv formats the mean of xs with its 95% interval, "8.29 [7.90, 8.61]",
// or the mean alone for one value.
func meanIv(xs []float64) string {
	iv := metrics.MeanInterval(xs, experiment.Level)
	if iv.N < 2 {
		return fmt.Sprintf("%.2f", iv.Mean)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", iv.Mean, iv.Lo, iv.Hi)
}

// retrieved counts the seeds whose DrDAM completion of query q is nearer
// its own photo than any other on the occluded part (margin > 0).
func (r *Runs) retrieved(q int) int {
	n := 0
	for _, m := range r.across(q, drMargin) {
		if m > 0 {
			n++
		}
	}
	return n
}

// Text is what drdam complete prints of a completion written into dir:
// its Table and the files written.
func (c *Completion) Text(all []*Runs, dir string) string {
	return c.Table(all) + fmt.Sprintf("wrote %s, %s and %s\n", filepath.Join(dir, "grid.png"), filepath.Join(dir, "energy.png"), filepath.Join(dir, "rmse.csv"))
}

// Table formats the RMSEs of every run of a completion: per image, the
// mean over seeds with its 95% interval of the RMSE (0–255 units) over the
// occluded part, the headline, and over the whole image beside it.
func (c *Completion) Table(all []*Runs) string {
	var w strings.Builder
	for _, runs := range all {
		fmt.Fprintf(&w, "%s, %d seeds (mean [95%% interval] over seeds; RMSE in 0–255 units, occluded part, whole image in the last column):\n", descentName(runs.Box), len(runs.Seeds))
		fmt.Fprintf(&w, "%-24s %22s %22s %12s %22s %10s %8s\n", "image", "DrDAM–MrDAM", "DrDAM–orig.", "MrDAM–orig.", "DrDAM–MrDAM (whole)", "retrieved", "stalled")
		for q := range c.Queries {
			st := 0
			for _, res := range runs.Res {
				if slices.Contains(res.Stalled(), q) {
					st++
				}
			}
			fmt.Fprintf(&w, "%-24s %22s %22s %12.2f %22s %10s %8d\n", c.Images[q].Name, meanIv(runs.across(q, drToMrFree)), meanIv(runs.across(q, drToOrigFree)),
				runs.Res[0].MrToOriginalFree[q], meanIv(runs.across(q, drToMr)), fmt.Sprintf("%d/%d", runs.retrieved(q), len(runs.Seeds)), st)
		}
	}
	res := all[0].Res[0]
	conv, atMax, stalled := res.Dr.Count()
	fmt.Fprintf(&w, "DrDAM: %d of %d queries stalled at the clip floor (%d converged, %d ran every step; first seed, %s).\n",
		stalled, c.Queries, conv, atMax, descentName(all[0].Box))
	fmt.Fprintf(&w, "\"retrieved\": seeds whose completion is nearer its own photo than any other stored one on the occluded part; \"stalled\": seeds whose DrDAM query stalled at the clip floor; hidden pixels started from --fill %v.\n", c.Run.Fill)
	fmt.Fprintf(&w, "T has %d values, the memory matrix %d (%.0f%%). First seed: DrDAM encode %v, descent %v; MrDAM descent %v.\n",
		res.TSize, res.MemorySize, 100*float64(res.TSize)/float64(res.MemorySize),
		res.EncodeTime.Round(time.Millisecond), res.DrTime.Round(time.Millisecond), res.MrTime.Round(time.Millisecond))
	return w.String()
}

// finite returns xs without NaN and infinite values.
func finite(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}
