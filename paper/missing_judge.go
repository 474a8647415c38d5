package paper

import (
	"fmt"
	"slices"
	"strings"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/metrics"
)

// The claims of the completion comparison, stated before it was first
// run at full scale (docs/completion/README.md gives the commit): the
// settings where a DAM was expected to beat every baseline, and drdam's
// own claims about its methods.

// missingGroup is one group of a claim: its label and the per-seed
// statistic, with the sense and reference of the claim.
type missingGroup struct {
	label string
	xs    []float64
	sense sense
	ref   float64
	// clear, if set, are the per-seed values of the two methods compared
	// (the DAM's and a baseline's): a group that holds must also have
	// their 95% intervals apart (the DAM's wholly below).
	clear [2][]float64
}

// judgeGroups judges a claim's groups (see StatRule; a group that
// compares two methods holds only if their intervals are also apart).
func judgeGroups(name, claim, rule string, gs []missingGroup) Finding {
	f := Finding{Name: name, Claim: claim, Rule: rule, Ours: true}
	var vs []string
	for _, gr := range gs {
		t := decide(gr.xs, gr.sense, gr.ref, gr.ref, len(gs))
		note := ""
		if gr.clear[0] != nil {
			a := metrics.MeanInterval(gr.clear[0], experiment.Level)
			b := metrics.MeanInterval(gr.clear[1], experiment.Level)
			if t.verdict == Holds && !(a.Hi < b.Lo) {
				t.verdict = Inconclusive
				note = "; the intervals overlap"
			}
			note = fmt.Sprintf(" (DAM %s, baseline %s%s)", fmtInterval(a), fmtInterval(b), note)
		}
		vs = append(vs, t.verdict)
		f.Details = append(f.Details, fmt.Sprintf("%s: %s%s", gr.label, t, note))
	}
	if len(gs) == 0 {
		f.Details = append(f.Details, "not measured in this run")
	}
	f.Verdict = combine(vs...)
	return f
}

// missingIndex holds the per-seed RMSE and retrieval of every cell.
type missingIndex struct {
	rmse, ret map[cellKey][]float64
	rows      []missingRow
	k         map[string]int // each data set's main K
}

func newMissingIndex(rows []missingRow, wantK int) *missingIndex {
	ix := &missingIndex{rmse: bySeed(rows, func(r missingRow) float64 { return r.RMSE }), ret: bySeed(rows, func(r missingRow) float64 { return r.Retrieved }),
		rows: rows, k: map[string]int{}}
	for _, d := range dataOrder(rows) {
		ix.k[d] = mainK(rows, d, wantK)
	}
	return ix
}

// get returns the per-seed RMSE of a method at the main K.
func (ix *missingIndex) get(data, corr, set, m string) []float64 {
	return ix.rmse[cellKey{data, corr, set, m, ix.k[data]}]
}

// diff returns a − b per seed (nil if either is missing or their seeds
// differ in number).
func diff(a, b []float64) []float64 {
	if a == nil || b == nil || len(a) != len(b) {
		return nil
	}
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// winSetting returns the data set of the pre-stated settings: MNIST if
// measured, else the first measured.
func (ix *missingIndex) winSetting() string {
	ds := dataOrder(ix.rows)
	if slices.Contains(ds, "mnist") {
		return "mnist"
	}
	if len(ds) == 0 {
		return ""
	}
	return ds[0]
}

// beatsAll is the claim that the DAM method beats every baseline of the
// cell (data, corr, set).
func (ix *missingIndex) beatsAll(name, dam, data, corr, set string) Finding {
	claim := fmt.Sprintf("%s beats every baseline on %s queries of %s, %s (stated before measuring)", dam, set, data, corr)
	rule := "for each baseline, the per-seed difference of RMSE (baseline − DAM) judged by the statistical rule; a group holds only if, " +
		"in addition, the DAM's 95% interval of RMSE lies wholly below the baseline's"
	d := ix.get(data, corr, set, dam)
	var gs []missingGroup
	for _, b := range []string{"as is", "mean", "1-NN", "5-NN", "KNNImputer", "kernel"} {
		bx := ix.get(data, corr, set, b)
		if bx == nil || d == nil {
			continue
		}
		gs = append(gs, missingGroup{label: b, xs: diff(bx, d), sense: above, clear: [2][]float64{d, bx}})
	}
	return judgeGroups(name, claim, rule, gs)
}

// judgeMissing judges the comparison's claims.
func judgeMissing(rows []missingRow, c *missingSpec) []Finding {
	ix := newMissingIndex(rows, c.K)
	data := ix.winSetting()
	masks := []string{"bottom", "random", "box"}
	fs := []Finding{
		ix.beatsAll("W1", "MrDAM", data, "gaussian", "held-out"),
		ix.beatsAll("W2", "MrDAM, kernel start", data, "random", "held-out"),
		ix.beatsAll("W3", "MrDAM, early stop", data, "gaussian", "held-out"),
	}
	// C1: DrDAM within 10% of MrDAM at ≤ 25% of K·D.
	var gs []missingGroup
	for _, dt := range dataOrder(rows) {
		k := ix.k[dt]
		dr := ""
		var best int64
		for _, m := range methodOrder(rows) {
			if !strings.HasPrefix(m, "DrDAM SORF") {
				continue
			}
			v := stateOf(rows, dt, k, m)
			d := stateOf(rows, dt, k, "1-NN") / int64(k)
			if v > 0 && d > 0 && 4*v <= int64(k)*d && v > best {
				dr, best = m, v
			}
		}
		if dr == "" {
			continue
		}
		for _, set := range []string{"held-out", "stored"} {
			a, b := ix.get(dt, "bottom", set, dr), ix.get(dt, "bottom", set, "MrDAM, mean start")
			if a == nil || b == nil {
				continue
			}
			ratio := make([]float64, len(a))
			for i := range a {
				ratio[i] = a[i]/b[i] - 1
			}
			gs = append(gs, missingGroup{label: fmt.Sprintf("%s, %s queries, %s (%.0f%% of K·D) against MrDAM from the means", dt, set, dr, 100*float64(best)/float64(k*int(stateOf(rows, dt, k, "1-NN")/int64(k)))),
				xs: ratio, sense: below, ref: 0.1})
		}
	}
	fs = append(fs, judgeGroups("C1", "DrDAM at ≤ 25% of K·D values is within 10% of MrDAM's RMSE (bottom half hidden, both from the means)",
		"the per-seed ratio DrDAM/MrDAM − 1 of RMSE, below 0.1, per data set and query set", gs))
	// C2: 1-NN retrieves stored queries under masks.
	gs = nil
	for _, dt := range dataOrder(rows) {
		for _, corr := range masks {
			if xs := ix.ret[cellKey{dt, corr, "stored", "1-NN", ix.k[dt]}]; xs != nil {
				gs = append(gs, missingGroup{label: dt + ", " + corr, xs: xs, sense: above, ref: 0.99})
			}
		}
	}
	fs = append(fs, judgeGroups("C2", "1-NN on the visible coordinates retrieves at least 99% of stored queries under every mask",
		"the per-seed share retrieved (RMSE ≤ 0.02), above 0.99, per data set and mask", gs))
	// C3–C5: pairwise comparisons over data sets and masks.
	pair := func(name, claim, set, better, worse string) Finding {
		var gs []missingGroup
		for _, dt := range dataOrder(rows) {
			for _, corr := range masks {
				if xs := diff(ix.get(dt, corr, set, worse), ix.get(dt, corr, set, better)); xs != nil {
					gs = append(gs, missingGroup{label: dt + ", " + corr, xs: xs, sense: above})
				}
			}
		}
		return judgeGroups(name, claim, fmt.Sprintf("the per-seed difference of RMSE (%s − %s), above 0, per data set and mask", worse, better), gs)
	}
	fs = append(fs,
		pair("C3", "on held-out queries the distance-weighted 5-NN mean beats 1-NN", "held-out", "5-NN", "1-NN"),
		pair("C4", "MrDAM retrieves stored queries better from the kernel readout than from 0", "stored", "MrDAM, kernel start", "MrDAM"),
		pair("C5", "annealing (β/16, β/4, β) beats MrDAM's plain descent from the means on stored queries", "stored", "MrDAM annealed", "MrDAM, mean start"),
	)
	return fs
}
