package paper

import (
	"math"
	"testing"

	"github.com/drdam/drdam/experiment"
)

// The rules' tests build rows by hand for three seeds, in three
// scenarios each: the claim true by a wide margin (Holds), false by a
// wide margin (DoesNotHold), and a tie or a value on the edge of the
// claim, with replicate noise that straddles it (Inconclusive). The noise
// across seeds is a ±10% factor (jitter) or a ±δ shift (shift; δ = 0.02 for
// exponents): with three
// seeds the 95% interval is mean ± 4.30·s.e., wide enough that a tie
// cannot pass and narrow enough that a 10× effect cannot be missed.

var (
	testSeeds = []uint64{1, 101, 201}
	jitter    = []float64{1.1, 0.9, 1.0}
	shift     = []float64{1, -1, 0}
)

// row makes one row; mean is also the median.
func row(seed uint64, d, k, y int, beta float64, basis, proj string, q experiment.QuerySet, m string, mean float64) experiment.Row {
	return experiment.Row{Seed: seed, D: d, K: k, Y: y, Beta: beta, Basis: basis, Projection: proj, Queries: q, Metric: m, Mean: mean, SE: 0.01 * mean, Median: mean, Count: 100}
}

// energyRows returns the rows of an energy-error grid (D ∈ {30, 100,
// 1000}, K = 500, the given β and Y, at/near/far/guess, energy and
// gradient, and the bound rows) whose means f gives, for replicate i.
func energyRows(bs []float64, ys []int, f func(i int, d int, b float64, y int, q experiment.QuerySet, m string) float64) []experiment.Row {
	var rows []experiment.Row
	for i, s := range testSeeds {
		for _, d := range []int{30, 100, 1000} {
			for _, b := range bs {
				for _, y := range ys {
					for _, q := range append(experiment.QuerySets(), experiment.Guess) {
						for _, m := range []string{experiment.MetricEnergy, experiment.MetricGradient, experiment.MetricBound} {
							if m == experiment.MetricBound && q == experiment.Guess {
								continue
							}
							rows = append(rows, row(s, d, 500, y, b, "sincos", "gaussian", q, m, f(i, d, b, y, q, m)))
						}
					}
				}
			}
		}
	}
	return rows
}

type scenario struct {
	name string
	rows []experiment.Row
	want string
}

func checkScenarios(t *testing.T, observe func([]experiment.Row) Finding, cases []scenario) {
	t.Helper()
	for _, c := range cases {
		f := observe(c.rows)
		if f.Verdict != c.want {
			t.Errorf("%s, %s: verdict %q, want %q\n  %v", f.Name, c.name, f.Verdict, c.want, f.Details)
		}
	}
	// One seed gives no interval: never a verdict either way.
	one := experiment.Select(cases[0].rows, func(r experiment.Row) bool { return r.Seed == testSeeds[0] })
	if f := observe(one); f.Verdict != Inconclusive {
		t.Errorf("%s with one seed: verdict %q, want %q", f.Name, f.Verdict, Inconclusive)
	}
}

func TestRuleNearFar(t *testing.T) {
	mk := func(ratio float64) []experiment.Row {
		return energyRows([]float64{10, 50}, []int{1000, 4000}, func(i, d int, b float64, y int, q experiment.QuerySet, m string) float64 {
			if q == experiment.Far {
				return ratio * jitter[i]
			}
			return 1
		})
	}
	checkScenarios(t, observeNearFar, []scenario{{"far 10×", mk(10), Holds}, {"far 0.1×", mk(0.1), DoesNotHold}, {"tie", mk(1), Inconclusive}})
}

func TestRuleBeta(t *testing.T) {
	mk := func(p float64) []experiment.Row {
		return energyRows([]float64{10, 50}, []int{1000, 4000}, func(i, d int, b float64, y int, q experiment.QuerySet, m string) float64 {
			return math.Pow(b, p) * jitter[i]
		})
	}
	checkScenarios(t, observeBeta, []scenario{{"grows 5×", mk(1), Holds}, {"falls 5×", mk(-1), DoesNotHold}, {"flat", mk(0), Inconclusive}})
}

func TestRuleBetaFactors(t *testing.T) {
	// err(10), err(30), err(50) near, energy.
	mk := func(e10, e30, e50 float64, noisy bool) []experiment.Row {
		return energyRows([]float64{10, 30, 50}, []int{1000, 4000}, func(i, d int, b float64, y int, q experiment.QuerySet, m string) float64 {
			j := 1.0
			if noisy {
				j = jitter[i]
			}
			switch b {
			case 10:
				return e10
			case 30:
				return e30
			}
			return e50 * j
		})
	}
	checkScenarios(t, observeBetaFactors, []scenario{
		{"the paper's factors", mk(1, 10, 100, true), Holds},
		{"no growth", mk(1, 1, 1, true), DoesNotHold},
		{"on the edge (20× and 200×)", mk(1, 10, 200, true), Inconclusive},
	})
}

func TestRuleSaturation(t *testing.T) {
	mk := func(p float64) []experiment.Row {
		return energyRows([]float64{10, 50}, []int{1000, 4000, 16000}, func(i, d int, b float64, y int, q experiment.QuerySet, m string) float64 {
			return math.Pow(float64(y), p+0.02*shift[i])
		})
	}
	checkScenarios(t, observeSaturation, []scenario{{"flat", mk(0), Holds}, {"the random-feature rate", mk(-0.5), DoesNotHold}, {"at −0.25", mk(-0.25), Inconclusive}})
}

func TestRuleRandom(t *testing.T) {
	mk := func(ratio float64) []experiment.Row {
		return energyRows([]float64{10, 50}, []int{1000, 4000}, func(i, d int, b float64, y int, q experiment.QuerySet, m string) float64 {
			if q == experiment.Guess {
				return 1
			}
			if q == experiment.Far {
				return ratio * jitter[i]
			}
			return 0.01
		})
	}
	checkScenarios(t, observeRandom, []scenario{{"as the guess", mk(1), Holds}, {"a tenth of it", mk(0.1), DoesNotHold}, {"twice it", mk(2), Inconclusive}})
}

func TestRuleBound(t *testing.T) {
	mk := func(ratio float64) []experiment.Row {
		return energyRows([]float64{10, 50}, []int{1000, 4000}, func(i, d int, b float64, y int, q experiment.QuerySet, m string) float64 {
			if m == experiment.MetricBound {
				return 1
			}
			return ratio * jitter[i]
		})
	}
	checkScenarios(t, observeBound, []scenario{{"tight", mk(1), Holds}, {"10⁵ above", mk(1e5), DoesNotHold}, {"10× above", mk(10), Inconclusive}})
}

func TestRuleK(t *testing.T) {
	mk := func(p float64) []experiment.Row {
		var rows []experiment.Row
		for i, s := range testSeeds {
			for _, k := range []int{50, 200, 1000} {
				for _, q := range experiment.QuerySets() {
					for _, m := range errorMetrics {
						rows = append(rows, row(s, 30, k, 1000, 10, "sincos", "gaussian", q, m, math.Pow(float64(k), p+0.02*shift[i])))
					}
				}
			}
		}
		return rows
	}
	checkScenarios(t, observeK, []scenario{{"grows", mk(0.5), Holds}, {"falls", mk(-0.5), DoesNotHold}, {"flat", mk(0), Inconclusive}})
}

// basisRows returns basis-ablation rows where the positive bases' errors
// are adv(i, β) times the trigonometric ones'.
func basisRows(adv func(i int, b float64) float64) []experiment.Row {
	var rows []experiment.Row
	for i, s := range testSeeds {
		for _, b := range []float64{1, 10, 100} {
			for _, basis := range basisNames(0) {
				v := 1.0
				if basis == "exp" || basis == "expexp" {
					v = adv(i, b)
				}
				for _, q := range []experiment.QuerySet{experiment.Stored, experiment.New} {
					for _, m := range errorMetrics {
						rows = append(rows, row(s, 16, 500, 40000, b, basis, "gaussian", q, m, v))
					}
				}
			}
		}
	}
	return rows
}

func TestRuleBases(t *testing.T) {
	mk := func(r float64) []experiment.Row {
		return basisRows(func(i int, b float64) float64 { return r * jitter[i] })
	}
	checkScenarios(t, observeBases, []scenario{{"trigonometric 10× better", mk(10), Holds}, {"10× worse", mk(0.1), DoesNotHold}, {"tie", mk(1), Inconclusive}})
}

func TestRuleBasesTrend(t *testing.T) {
	mk := func(p float64) []experiment.Row {
		return basisRows(func(i int, b float64) float64 { return math.Pow(b, p+0.02*shift[i]) })
	}
	checkScenarios(t, observeBasesTrend, []scenario{{"grows with β", mk(0.5), Holds}, {"shrinks with β", mk(-0.5), DoesNotHold}, {"flat", mk(0), Inconclusive}})
}

// retrievalRows returns retrieval-error rows with Δ_H far and at/near
// from f, and Δ_H of the moved far queries from moved.
func retrievalRows(far, atNear, moved func(i int) float64) []experiment.Row {
	var rows []experiment.Row
	for i, s := range testSeeds {
		for _, d := range []int{30, 100} {
			for _, b := range []float64{10, 50} {
				for _, q := range experiment.QuerySets() {
					h := atNear(i)
					if q == experiment.Far {
						h = far(i)
					}
					rows = append(rows, row(s, d, 500, 2000, b, "sincos", "gaussian", q, experiment.MetricHamming, h),
						row(s, d, 500, 2000, b, "sincos", "gaussian", q, experiment.MetricHammingMoved, moved(i)),
						row(s, d, 500, 2000, b, "sincos", "gaussian", q, experiment.MetricStalled, 0))
				}
			}
		}
	}
	return rows
}

func TestRuleRetrieval(t *testing.T) {
	c := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	noisy := func(v float64) func(int) float64 { return func(i int) float64 { return v + 0.01*shift[i] } }
	checkScenarios(t, observeRetrieval, []scenario{
		{"far 0.5, at 0.05", retrievalRows(noisy(0.5), c(0.05), c(0.5)), Holds},
		{"far 0.05, at 0.5", retrievalRows(noisy(0.05), c(0.5), c(0.5)), DoesNotHold},
		{"tie", retrievalRows(noisy(0.2), c(0.2), c(0.5)), Inconclusive},
	})
}

func TestRuleRetrievalRandom(t *testing.T) {
	c := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	noisy := func(v float64) func(int) float64 { return func(i int) float64 { return v + 0.02*shift[i] } }
	checkScenarios(t, observeRetrievalRandom, []scenario{
		{"moved far at ½", retrievalRows(c(0.5), c(0), noisy(0.5)), Holds},
		{"moved far at 0.1", retrievalRows(c(0.5), c(0), noisy(0.1)), DoesNotHold},
		{"moved far at 0.6", retrievalRows(c(0.5), c(0), noisy(0.6)), Inconclusive},
	})
}

func TestCombine(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, NotMeasured},
		{[]string{Holds, Holds}, Holds},
		{[]string{Holds, Inconclusive}, Inconclusive},
		{[]string{Holds, DoesNotHold, Inconclusive}, DoesNotHold},
		{[]string{NotMeasured, Holds}, Holds},
	} {
		if got := combine(c.in...); got != c.want {
			t.Errorf("combine(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDecideBonferroni checks that "does not hold" needs the wider
// interval of 1 − 0.05/m: values whose 95% interval lies below 0 but
// whose 99.17% interval (m = 6) does not are Inconclusive, not a
// contradiction.
func TestDecideBonferroni(t *testing.T) {
	xs := []float64{-1, -1.6, -1.3} // mean −1.3, s.e. 0.173: 95% ±0.745, 99.17% ±1.73
	if v := decide(xs, above, 0, 0, 1).verdict; v != DoesNotHold {
		t.Errorf("m = 1: %q, want %q", v, DoesNotHold)
	}
	if v := decide(xs, above, 0, 0, 6).verdict; v != Inconclusive {
		t.Errorf("m = 6: %q, want %q", v, Inconclusive)
	}
	if v := decide([]float64{math.NaN(), math.NaN()}, above, 0, 0, 1).verdict; v != NotMeasured {
		t.Errorf("NaN only: %q, want %q", v, NotMeasured)
	}
}
