package paper

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/plots"
	"gonum.org/v1/gonum/stat"
)

// dataOrder lists the data sets of rows in the order measured.
func dataOrder(rows []missingRow) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.Data) {
			out = append(out, r.Data)
		}
	}
	return out
}

// missingTable formats, per data set at its main K, the RMSE of every
// method under every corruption for held-out and stored queries, the
// share of stored queries retrieved, and each method's state, time and
// peak memory: means over seeds [95% interval].
func missingTable(rows []missingRow, wantK int) string {
	rmse := bySeed(rows, func(r missingRow) float64 { return r.RMSE })
	ret := bySeed(rows, func(r missingRow) float64 { return r.Retrieved })
	var b strings.Builder
	corrs := []string{}
	for _, r := range rows {
		if !slices.Contains(corrs, r.Corruption) {
			corrs = append(corrs, r.Corruption)
		}
	}
	for _, data := range dataOrder(rows) {
		k := mainK(rows, data, wantK)
		fmt.Fprintf(&b, "### %s, K = %d\n\n", data, k)
		for _, set := range []string{"held-out", "stored"} {
			fmt.Fprintf(&b, "RMSE on the damaged coordinates, %s queries (units of the range; mean over seeds [95%% interval])", set)
			if set == "stored" {
				b.WriteString(", and the share retrieved (RMSE ≤ 0.02)")
			}
			b.WriteString(":\n\n| method |")
			for _, c := range corrs {
				fmt.Fprintf(&b, " %s |", c)
			}
			b.WriteString("\n|---|")
			b.WriteString(strings.Repeat("---|", len(corrs)))
			b.WriteString("\n")
			for _, m := range methodOrder(rows) {
				fmt.Fprintf(&b, "| %s |", m)
				for _, c := range corrs {
					key := cellKey{data, c, set, m, k}
					xs, ok := rmse[key]
					if !ok {
						b.WriteString(" — |")
						continue
					}
					fmt.Fprintf(&b, " %s", ivText(xs))
					if set == "stored" {
						fmt.Fprintf(&b, "; %.0f%%", 100*stat.Mean(ret[key], nil))
					}
					b.WriteString(" |")
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
		b.WriteString("State, time and memory (over every cell of this K):\n\n| method | state values | state bytes | % of K·D | ms per query | steps | peak RSS MiB |\n|---|---|---|---|---|---|---|\n")
		for _, m := range methodOrder(rows) {
			var vals, secs, steps, peak []float64
			d := 0
			for _, r := range rows {
				if r.Data == data && r.K == k && r.Method == m {
					vals = append(vals, float64(r.Values))
					secs = append(secs, r.Seconds)
					steps = append(steps, r.Steps)
					peak = append(peak, r.PeakMiB)
				}
				if r.Data == data && r.K == k && r.Method == "1-NN" {
					d = int(r.Values) / k
				}
			}
			if len(vals) == 0 {
				continue
			}
			v := slices.Max(vals)
			fmt.Fprintf(&b, "| %s | %.0f | %s | %.1f%% | %.3g | %.1f | %.0f |\n", m, v, dam.Bytes(8*v), 100*v/float64(k*max(d, 1)),
				1000*stat.Mean(secs, nil), stat.Mean(steps, nil), slices.Max(peak))
		}
		b.WriteString("\n")
	}
	if ks := sweepKs(rows); len(ks) > 1 {
		data := sweepData(rows)
		fmt.Fprintf(&b, "### RMSE against K: %s, bottom half hidden\n\n| method | queries |", data)
		for _, k := range ks {
			fmt.Fprintf(&b, " K = %d |", k)
		}
		b.WriteString("\n|---|---|" + strings.Repeat("---|", len(ks)) + "\n")
		for _, m := range methodOrder(rows) {
			for _, set := range []string{"held-out", "stored"} {
				fmt.Fprintf(&b, "| %s | %s |", m, set)
				for _, k := range ks {
					if xs, ok := rmse[cellKey{data, "bottom", set, m, k}]; ok {
						fmt.Fprintf(&b, " %s |", ivText(xs))
					} else {
						b.WriteString(" — |")
					}
				}
				b.WriteString("\n")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// sweepData returns the data set measured at the most K with the bottom
// half hidden.
func sweepData(rows []missingRow) string {
	n := map[string]map[int]bool{}
	for _, r := range rows {
		if r.Corruption == "bottom" {
			if n[r.Data] == nil {
				n[r.Data] = map[int]bool{}
			}
			n[r.Data][r.K] = true
		}
	}
	best := ""
	for _, d := range dataOrder(rows) {
		if best == "" || len(n[d]) > len(n[best]) {
			best = d
		}
	}
	return best
}

// sweepKs returns the K measured on sweepData, increasing.
func sweepKs(rows []missingRow) []int {
	data := sweepData(rows)
	var ks []int
	for _, r := range rows {
		if r.Data == data && r.Corruption == "bottom" && !slices.Contains(ks, r.K) {
			ks = append(ks, r.K)
		}
	}
	slices.Sort(ks)
	return ks
}

// ivText formats a mean and its 95% interval over seeds.
func ivText(xs []float64) string {
	iv := metrics.MeanInterval(xs, experiment.Level)
	if iv.N < 2 {
		return fmt.Sprintf("%.4f", iv.Mean)
	}
	return fmt.Sprintf("%.4f [%.4f, %.4f]", iv.Mean, iv.Lo, iv.Hi)
}

// figureMethods are the methods the figures draw, one palette style
// each (the palette has eight): the baselines but KNNImputer (within a
// few per cent of the 5-NN mean in the table), MrDAM from the kernel
// readout and stopped early, and DrDAM's structured kind over Y. The table
// has every method.
var figureMethods = []string{"mean", "as is", "1-NN", "5-NN", "kernel", "MrDAM, kernel start", "MrDAM, early stop", "DrDAM SORF"}

// figureStyle returns the style of method m in the figures, or −1 if they
// do not draw it.
func figureStyle(m string) int {
	if strings.HasPrefix(m, "DrDAM SORF") {
		if strings.HasSuffix(m, "early stop") {
			return -1
		}
		return len(figureMethods) - 1
	}
	return slices.Index(figureMethods, m)
}

// spread is the factor between the abscissae of methods with the same
// bytes of state, drawn side by side so that their error bars show.
const spread = 1.3

// missingFigures draws RMSE against bytes of state (held-out and stored
// queries: a panel per data set and corruption) and RMSE against K, and
// returns their file names.
func missingFigures(dir string, rows []missingRow, c *missingSpec) ([]string, error) {
	rmse := bySeed(rows, func(r missingRow) float64 { return r.RMSE })
	order := methodOrder(rows)
	datas := dataOrder(rows)
	corrs := corruptionList(c.Corruptions)
	cs := strings.Split(corrs, ", ")
	var names []string
	for _, set := range []string{"held-out", "stored"} {
		f := &plots.Figure{Title: fmt.Sprintf("Completion of %s queries: RMSE against the bytes of state", set), Rows: len(datas), Cols: len(cs),
			Caption: "Each point a method at the data set's K (DrDAM's structured kind joined by a line over Y); error bars: 95% intervals over seeds. " +
				"Bytes: the values a method keeps to complete (K·D for the methods that keep the rows; the means D; DrDAM's T, 2Y, and the means), 8 bytes each; " +
				"the methods at K·D are drawn side by side (×1.3 apart) so that their bars show, and 'as is' (nothing kept) at 8 bytes. " +
				"KNNImputer, MrDAM from 0, from the means and annealed, DrDAM stopped early and the iid DrDAM are in table.md."}
		for _, data := range datas {
			k := mainK(rows, data, c.K)
			for _, corr := range cs {
				p := plots.Panel{Title: data + ", " + corr, XLabel: "bytes of state", YLabel: "RMSE (range units)", LogX: true}
				var sorf plots.Series
				sorf.Label, sorf.Style = "DrDAM SORF (over Y)", figureStyle("DrDAM SORF")
				seen := map[float64]int{}
				for _, m := range order {
					xs, ok := rmse[cellKey{data, corr, set, m, k}]
					style := figureStyle(m)
					if !ok || style < 0 {
						continue
					}
					iv := metrics.MeanInterval(xs, experiment.Level)
					bytes := 8 * float64(stateOf(rows, data, k, m))
					if bytes <= 0 {
						bytes = 8 // as is: nothing kept; drawn at 8 bytes so that the log axis shows it
					}
					if strings.HasPrefix(m, "DrDAM SORF") {
						sorf.X, sorf.Y, sorf.Err = append(sorf.X, bytes), append(sorf.Y, iv.Mean), append(sorf.Err, halfWidth(iv))
						continue
					}
					x := bytes * math.Pow(spread, float64(seen[bytes]))
					seen[bytes]++
					p.Series = append(p.Series, plots.Series{Label: m, X: []float64{x}, Y: []float64{iv.Mean}, Err: []float64{halfWidth(iv)}, Style: style, Points: true})
				}
				if len(sorf.X) > 0 {
					p.Series = append(p.Series, sorf)
				}
				f.Panels = append(f.Panels, p)
			}
		}
		name := "rmse-vs-bytes-" + strings.ReplaceAll(set, "-", "")
		if err := f.SaveAll(filepath.Join(dir, name)); err != nil {
			return nil, err
		}
		names = append(names, name+".png")
	}
	if ks := sweepKs(rows); len(ks) > 1 {
		data := sweepData(rows)
		f := &plots.Figure{Title: fmt.Sprintf("Completion against K: %s, bottom half hidden", data), Rows: 1, Cols: 2,
			Caption: "Mean RMSE on the hidden half over seeds, error bars 95% intervals; DrDAM at its largest Y. Every method at every K is in table.md."}
		for _, set := range []string{"held-out", "stored"} {
			p := plots.Panel{Title: set + " queries", XLabel: "K stored", YLabel: "RMSE (range units)", LogX: true}
			for _, m := range order {
				var s plots.Series
				s.Label, s.Style = m, figureStyle(m)
				if s.Style < 0 || (strings.HasPrefix(m, "DrDAM SORF") && m != largestSORF(order)) {
					continue
				}
				for _, k := range ks {
					if xs, ok := rmse[cellKey{data, "bottom", set, m, k}]; ok {
						iv := metrics.MeanInterval(xs, experiment.Level)
						s.X, s.Y, s.Err = append(s.X, float64(k)), append(s.Y, iv.Mean), append(s.Err, halfWidth(iv))
					}
				}
				if len(s.X) > 0 {
					p.Series = append(p.Series, s)
				}
			}
			f.Panels = append(f.Panels, p)
		}
		if err := f.SaveAll(filepath.Join(dir, "rmse-vs-k")); err != nil {
			return nil, err
		}
		names = append(names, "rmse-vs-k.png")
	}
	return names, nil
}

// largestSORF returns the name of the structured DrDAM of the largest Y
// among the methods (not stopped early).
func largestSORF(order []string) string {
	best, bestY := "", -1
	for _, m := range order {
		var y int
		if _, err := fmt.Sscanf(m, "DrDAM SORF Y=%d", &y); err == nil && !strings.HasSuffix(m, "early stop") && y > bestY {
			best, bestY = m, y
		}
	}
	return best
}

// stateOf returns the values of state of method m at (data, k).
func stateOf(rows []missingRow, data string, k int, m string) int64 {
	for _, r := range rows {
		if r.Data == data && r.K == k && r.Method == m {
			return r.Values
		}
	}
	return 0
}

// halfWidth is half an interval's width (NaN without one).
func halfWidth(iv metrics.Interval) float64 {
	if iv.N < 2 {
		return math.NaN()
	}
	return (iv.Hi - iv.Lo) / 2
}
