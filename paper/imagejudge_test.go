package paper

import (
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/imageio"
)

// The three cases every rule is tested on, as replicate values around a
// reference ref (the claim's side being below ref for sign −1, above for
// +1): clearly on the claim's side, clearly on the other, and a tie
// (symmetric about ref, so the interval straddles it).
func threeCases(ref, sign float64) map[string][]float64 {
	return map[string][]float64{
		Holds:        {ref + sign*5, ref + sign*5.1, ref + sign*4.9},
		DoesNotHold:  {ref - sign*5, ref - sign*5.1, ref - sign*4.9},
		Inconclusive: {ref - 1, ref, ref + 1},
	}
}

// fakeRuns returns a completion of n images and runs over len(free) seeds
// whose per-seed values are free (DrDAM–MrDAM RMSE on the occluded part),
// margin and gap (final energy gap over MrDAM's drop of 1), the same for
// every image.
func fakeRuns(n int, free, margin, gap []float64) (*Completion, *Runs) {
	c := &Completion{Queries: n}
	for q := range n {
		c.Images = append(c.Images, &imageio.Image{Name: "im" + string(rune('a'+q))})
	}
	runs := &Runs{}
	for i := range free {
		c.Seeds = append(c.Seeds, experiment.ReplicateSeed(0, i))
		r := &experiment.CompletionResult{Dr: &dam.Result{Outcome: make([]dam.Outcome, n), Steps: make([]int, n)}, Mr: &dam.Result{}}
		for range n {
			r.DrToMrFree = append(r.DrToMrFree, free[i])
			r.DrToMr = append(r.DrToMr, free[i])
			r.DrToOriginalFree = append(r.DrToOriginalFree, free[i])
			r.MrToOriginalFree = append(r.MrToOriginalFree, 1)
			r.DrMargin = append(r.DrMargin, margin[i])
			r.MrMargin = append(r.MrMargin, 1)
			r.FinalMr = append(r.FinalMr, -1)
			r.FinalDr = append(r.FinalDr, -1+gap[i])
			r.Mr.Energy = append(r.Mr.Energy, []float64{0, -1})
		}
		runs.Res = append(runs.Res, r)
	}
	runs.Seeds = c.Seeds
	return c, runs
}

// TestImageRules: the match, retrieval and energy rules of fig1 and fig2
// return each outcome on constructed values: RMSEs around matchRMSE,
// margins around 0, energy gaps around energyGap.
func TestImageRules(t *testing.T) {
	ones := []float64{1, 1, 1}
	for want, free := range threeCases(matchRMSE, -1) {
		c, runs := fakeRuns(2, free, ones, ones)
		requireVerdict(t, matchFinding(c, runs, "match", ""), want)
	}
	for want, m := range threeCases(0, 1) {
		c, runs := fakeRuns(2, ones, m, ones)
		requireVerdict(t, retrievalFinding(c, runs, "retrieval", ""), want)
	}
	for want, g := range threeCases(energyGap, -1) {
		g = []float64{energyGap + (g[0]-energyGap)/1000, energyGap + (g[1]-energyGap)/1000, energyGap + (g[2]-energyGap)/1000}
		c, runs := fakeRuns(2, ones, ones, g)
		fs := judgeFixedPoints(c, []*Runs{runs})
		requireVerdict(t, fs[len(fs)-1], want)
	}
	// One image failing makes the claim fail; one tie among holds makes
	// it inconclusive.
	c, runs := fakeRuns(2, []float64{5, 5.1, 4.9}, ones, ones)
	runs.Res[0].DrToMrFree[1], runs.Res[1].DrToMrFree[1], runs.Res[2].DrToMrFree[1] = 9, 10, 11
	requireVerdict(t, matchFinding(c, runs, "one tie", ""), Inconclusive)
	runs.Res[0].DrToMrFree[1], runs.Res[1].DrToMrFree[1], runs.Res[2].DrToMrFree[1] = 50, 51, 49
	requireVerdict(t, matchFinding(c, runs, "one fails", ""), DoesNotHold)
}

// sweepOf returns sweep cells of 3 seeds over betas × ys with the RMSE
// rmse(bi, yi) + a seed's offset (−0.1, 0, +0.1 relative).
func sweepOf(nb, ny int, rmse func(bi, yi int) float64) sweepCells {
	var c sweepCells
	for bi := range nb {
		var f, w [][]float64
		var st [][]bool
		for s := range 3 {
			var fr, wr []float64
			for yi := range ny {
				v := rmse(bi, yi) * (1 + 0.1*float64(s-1))
				fr, wr = append(fr, v), append(wr, v)
			}
			f, w, st = append(f, fr), append(w, wr), append(st, make([]bool, ny))
		}
		c.Free, c.Whole, c.Stalled = append(c.Free, f), append(c.Whole, w), append(c.Stalled, st)
	}
	return c
}

// TestSweepRules: fig4b's two rules return each outcome. (Y): RMSE ∝ Y^p
// for p = −½ (holds), +½ (does not hold), and a flat series with seeds
// whose slopes are −0.1, 0, +0.1 (tie). (β): Y* ∝ β² (holds), β^−2 (does
// not hold), and seeds with exponents −1, 0, +1 (tie).
func TestSweepRules(t *testing.T) {
	sw := sweepSpec{Betas: []float64{40, 60, 80}, Ys: []int{1000, 4000, 16000, 64000}}
	seeds := []uint64{0, 100, 200}
	for _, c := range []struct {
		want string
		rmse func(bi, yi int) float64
	}{
		{Holds, func(bi, yi int) float64 { return 100 * math.Pow(float64(sw.Ys[yi]), -0.5) }},
		{DoesNotHold, func(bi, yi int) float64 { return math.Pow(float64(sw.Ys[yi]), 0.5) }},
	} {
		requireVerdict(t, judgeSweep(sw, seeds, sweepOf(3, 4, c.rmse))[0], c.want)
	}
	tie := sweepOf(3, 4, func(bi, yi int) float64 { return 20 })
	for bi := range 3 {
		for s, p := range []float64{-0.1, 0, 0.1} {
			for yi, y := range sw.Ys {
				tie.Free[bi][s][yi] = 20 * math.Pow(float64(y), p)
			}
		}
	}
	requireVerdict(t, judgeSweep(sw, seeds, tie)[0], Inconclusive)

	// (β): RMSE = 10·(Y/Y*(β))^−½ reaches 10 at Y*(β), inside the grid.
	ystar := func(p float64) func(bi, yi int) float64 {
		return func(bi, yi int) float64 {
			ys := 8000 * math.Pow(sw.Betas[bi]/60, p)
			return matchRMSE * math.Sqrt(ys/float64(sw.Ys[yi]))
		}
	}
	requireVerdict(t, judgeSweep(sw, seeds, sweepOf(3, 4, ystar(2)))[1], Holds)
	requireVerdict(t, judgeSweep(sw, seeds, sweepOf(3, 4, ystar(-2)))[1], DoesNotHold)
	// sweepOf scales each seed's RMSE alike at every β, which moves Y* by
	// the same factor at every β and leaves p alone; build the tie by hand.
	tieB := sweepOf(3, 4, ystar(0))
	for s, p := range []float64{-1, 0, 1} {
		for bi := range 3 {
			for yi := range sw.Ys {
				tieB.Free[bi][s][yi] = ystar(p)(bi, yi)
			}
		}
	}
	requireVerdict(t, judgeSweep(sw, seeds, tieB)[1], Inconclusive)
	// A β whose RMSE never reaches the reference leaves every seed out.
	never := judgeSweep(sw, seeds, sweepOf(3, 4, func(bi, yi int) float64 { return 50 }))[1]
	requireVerdict(t, never, NotMeasured)
}

// TestCrossing checks the log-log interpolation of the first crossing.
func TestCrossing(t *testing.T) {
	xs := []float64{1000, 4000, 16000}
	// 20 → 5 between 1000 and 4000: halfway in log, so at 2000.
	if got := crossing(xs, []float64{20, 5, 2}, 10); math.Abs(got-2000) > 1e-6 {
		t.Errorf("crossing = %v, want 2000", got)
	}
	for _, v := range [][]float64{{9, 5, 2}, {20, 15, 11}} {
		if got := crossing(xs, v, 10); !math.IsNaN(got) {
			t.Errorf("crossing(%v) = %v, want NaN (outside the grid)", v, got)
		}
	}
}

// TestCompressionRule: the compression finding takes the verdict of
// retrieval at the largest ratio below 1 and names where retrieval holds
// from; each outcome on constructed margins.
func TestCompressionRule(t *testing.T) {
	ones := []float64{1, 1, 1}
	cs := compressionSpec{Ratios: []float64{0.25, 0.5, 1, 2}}
	for want, at50 := range threeCases(0, 1) {
		var cells [][]compressionCell
		var c *Completion
		for _, r := range cs.Ratios {
			m := []float64{1, 1.1, 0.9}
			switch {
			case r < 0.5:
				m = []float64{-1, -1.1, -0.9}
			case r == 0.5:
				m = at50
			}
			var runs *Runs
			c, runs = fakeRuns(2, ones, m, ones)
			var row []compressionCell
			for _, res := range runs.Res {
				row = append(row, compressionCell{Y: int(r * 1000), Res: res})
			}
			cells = append(cells, row)
		}
		f := c.judgeCompressionCurve(cs, cells)[0]
		requireVerdict(t, f, want)
		from := map[string]string{Holds: "from T at 50%", DoesNotHold: "from T at 100%", Inconclusive: "from T at 100%"}[want]
		if !strings.Contains(f.Details[0], from) {
			t.Errorf("%s: threshold line %q lacks %q", want, f.Details[0], from)
		}
	}
	if l := thresholdLine("x", []float64{1, 2}, []string{Holds, DoesNotHold}); !strings.Contains(l, "does not hold at the largest ratio of the grid (200%") {
		t.Errorf("thresholdLine = %q", l)
	}
}
