package experiment

import (
	"math"
	"slices"

	"github.com/drdam/drdam/metrics"
)

// SeedStride is the distance between the seeds of successive replicates
// of a run: replicate i of a run with --seed s uses the seed s + 100·i.
// One replicate draws from several consecutive seeds (patterns, flipped
// bits, the random-guess queries, control projections: up to s + 2 + the
// number of projections pooled), so replicates one apart would share
// draws; 100 apart they share none. Running with --seed s + 100·i and
// --seeds 1 repeats replicate i alone.
const SeedStride = 100

// ReplicateSeed returns the seed of replicate i (from 0) of a run whose
// first seed is seed.
func ReplicateSeed(seed uint64, i int) uint64 { return seed + uint64(i)*SeedStride }

// Level is the confidence level of the intervals of Summary and of the
// verdicts built on them.
const Level = 0.95

// Summary is one configuration, query set and metric over the seeds that
// measured it: what figures and tables show.
type Summary struct {
	// Row holds the mean over seeds of the rows' means (Mean), the
	// median of their medians (Median), the total number of queries
	// (Count) and, as SE, the standard error across seeds (two or more
	// seeds) or the one seed's own standard error over its queries. Its
	// Seed is the first seed.
	Row
	Seeds int // the number of seeds (replicates) that measured it
	// Lo and Hi bound the 95% interval for the mean: Student's t across
	// the seeds' means with two or more seeds; with one seed, Mean ± 1.96
	// SE over its queries, which leaves out the variation between
	// projections and pattern sets and so is narrower than it should be.
	Lo, Hi float64
}

// Seeds returns the distinct seeds of rows, in increasing order.
func Seeds(rows []Row) []uint64 {
	var s []uint64
	for _, r := range rows {
		if !slices.Contains(s, r.Seed) {
			s = append(s, r.Seed)
		}
	}
	slices.Sort(s)
	return s
}

// OverSeeds summarizes rows over their seeds: one Summary per
// configuration (Key without its seed), query set and metric, in order of
// first appearance. A NaN mean (nothing measured) in any seed makes the
// summary's mean NaN.
func OverSeeds(rows []Row) []Summary {
	type id struct {
		k Key
		q QuerySet
		m string
	}
	var order []id
	groups := map[id][]Row{}
	for _, r := range rows {
		k := r.Key()
		k.Seed = 0
		g := id{k, r.Queries, r.Metric}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], r)
	}
	out := make([]Summary, 0, len(order))
	for _, g := range order {
		rs := groups[g]
		s := Summary{Row: rs[0], Seeds: len(rs)}
		if len(rs) == 1 {
			s.Lo, s.Hi = s.Mean-1.96*s.SE, s.Mean+1.96*s.SE
			out = append(out, s)
			continue
		}
		means, medians := make([]float64, len(rs)), make([]float64, len(rs))
		s.Count = 0
		for i, r := range rs {
			means[i], medians[i] = r.Mean, r.Median
			s.Count += r.Count
			s.Seed = min(s.Seed, r.Seed)
		}
		iv := metrics.MeanInterval(means, Level)
		_, s.SE = metrics.MeanStdErr(means)
		s.Mean, s.Lo, s.Hi, s.Median = iv.Mean, iv.Lo, iv.Hi, metrics.Median(medians)
		if math.IsNaN(s.Mean) {
			s.Lo, s.Hi = math.NaN(), math.NaN()
		}
		out = append(out, s)
	}
	return out
}

// SummaryRows returns the rows of summaries (each Row with the mean over
// seeds and the standard error across them), for code that draws or
// tabulates rows.
func SummaryRows(s []Summary) []Row {
	rows := make([]Row, len(s))
	for i, x := range s {
		rows[i] = x.Row
	}
	return rows
}
