package experiment

import (
	"context"
	"fmt"
	"github.com/drdam/drdam/metrics"
	"math"
	"time"

	"github.com/drdam/drdam/dam"
)

// Completion configures an image-completion run (Fig. 1, 2 and 4B): the
// Stored patterns are stored in an MrDAM and in a DrDAM, the Queries are
// occluded (their hidden coordinates set by Fill: 0 by default, as in the
// paper) and both models descend from them with the visible coordinates
// clamped.
type Completion struct {
	D       int
	Stored  []float64 // K×D patterns in [0, 1/√D]^D
	Queries []float64 // B×D originals of the queries, usually stored ones
	Visible []bool    // length D: true where the query is kept and clamped
	// Fill is what the hidden coordinates start at; Channels (0 or 1: one)
	// is the number of interleaved channels of a pattern (3 for the
	// H×W×3 images), coordinate i being of channel i mod Channels, for the
	// fills that average per channel.
	Fill     Fill
	Channels int
	// DrDAM is the configuration of the DrDAM (D and β are set from
	// here). Beta is the inverse temperature of both models.
	DrDAM dam.Config
	Beta  float64
	// Step, MaxSteps and Tol configure the descent (the paper: 0.1, 300
	// steps for Fig. 1). Box, if set, clips free coordinates to
	// [0, 1/√D] after each step, the range of the patterns.
	Step     float64
	MaxSteps int
	Tol      float64
	Box      bool
	// SkipMrDAM leaves MrDAM out (Fig. 4B draws one MrDAM column per β).
	SkipMrDAM bool
	// Mr, if not nil, is MrDAM's descent from these queries with these
	// options, from an earlier run: it is reused instead of descending
	// again (MrDAM is deterministic; only DrDAM's projection changes with
	// the seed), and its time is not counted.
	Mr *dam.Result
}

// Fill is what the hidden coordinates of an occluded query start at.
type Fill int

// The fills. FillZero is the paper's (black pixels); at a high β it can
// put a DrDAM's φ(x)·T under its clip floor, where the query stalls (see
// dam.Stalled): the farther the hidden part of the stored pattern is from
// 0 (bright images), the likelier. The other two start nearer to every
// stored pattern.
const (
	FillZero       Fill = iota // 0
	FillMean                   // the mean of the query's visible coordinates of the same channel
	FillStoredMean             // the mean of the stored patterns at that coordinate (which a DrDAM alone does not know)
)

var fillNames = []string{FillZero: "zero", FillMean: "mean", FillStoredMean: "stored-mean"}

// String returns the fill's name: zero, mean or stored-mean.
func (f Fill) String() string {
	if f >= 0 && int(f) < len(fillNames) {
		return fillNames[f]
	}
	return fmt.Sprintf("Fill(%d)", int(f))
}

// ParseFill returns the fill named s (zero, mean or stored-mean).
func ParseFill(s string) (Fill, error) {
	for i, n := range fillNames {
		if s == n {
			return Fill(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fill %q: want zero, mean or stored-mean", s)
}

// occlude writes the starting points of the queries into dst (B×D): the
// visible coordinates of each query, the hidden ones filled by c.Fill.
func (c *Completion) occlude(dst []float64) error {
	d, ch := c.D, max(c.Channels, 1)
	if d%ch != 0 {
		return fmt.Errorf("complete: D = %d is not a multiple of %d channels", d, ch)
	}
	var stored []float64 // FillStoredMean: the mean stored pattern
	if c.Fill == FillStoredMean {
		k := len(c.Stored) / d
		stored = make([]float64, d)
		for mu := range k {
			for i, v := range c.Stored[mu*d : (mu+1)*d] {
				stored[i] += v / float64(k)
			}
		}
	}
	sum, n := make([]float64, ch), make([]int, ch)
	for q := range len(c.Queries) / d {
		x, out := c.Queries[q*d:(q+1)*d], dst[q*d:(q+1)*d]
		clear(sum)
		clear(n)
		for i, v := range x {
			if c.Visible[i] {
				sum[i%ch] += v
				n[i%ch]++
			}
		}
		for i, v := range x {
			switch {
			case c.Visible[i]:
				out[i] = v
			case c.Fill == FillZero:
				out[i] = 0
			case c.Fill == FillStoredMean:
				out[i] = stored[i]
			case c.Fill == FillMean && n[i%ch] > 0:
				out[i] = sum[i%ch] / float64(n[i%ch])
			case c.Fill == FillMean:
				out[i] = 0 // nothing visible in this channel
			default:
				return fmt.Errorf("complete: unknown fill %v", c.Fill)
			}
		}
	}
	return nil
}

// CompletionResult is the outcome of Complete.
type CompletionResult struct {
	Occluded []float64   // B×D starting points
	Dr, Mr   *dam.Result // the descents (Mr is nil with SkipMrDAM); Dr.Outcome says which stalled at the clip floor
	// RMSEs in 0–255 pixel units over the whole pattern (the visible part
	// is clamped, so it contributes 0), one per query, after clipping the
	// fixed points to [0, 1/√D] as an image would be.
	DrToOriginal, DrToMr, MrToOriginal []float64
	// The same RMSEs over the occluded (free) coordinates alone, where
	// the models differ: the headline of the image figures.
	DrToOriginalFree, DrToMrFree, MrToOriginalFree []float64
	// Own[q] is the stored pattern nearest (RMSE over the whole pattern)
	// to query q's original: the pattern it should retrieve. DrMargin and
	// MrMargin are each model's retrieval margin on the occluded part,
	// log(RMSE to the nearest other stored pattern / RMSE to Own): above 0
	// when the completion is nearer its own pattern than any other (NaN
	// with a single stored pattern).
	Own                []int
	DrMargin, MrMargin []float64
	// FinalDr and FinalMr are the last energies of each query's descent,
	// each under its own model; TrueAtDr is MrDAM's (exact) energy at
	// DrDAM's fixed point.
	FinalDr, FinalMr, TrueAtDr []float64
	DrTime, MrTime, EncodeTime time.Duration
	TSize, MemorySize          int // parameters of T (F) and of the memory matrix (K·D)
}

// Complete runs an image completion. ctx carries, for the DrDAM's
// projection, the progress function of features.WithGenerationProgress
// (dam.NewContext); the caller checks it for cancellation between
// completions.
func Complete(ctx context.Context, c Completion) (*CompletionResult, error) {
	d := c.D
	if d <= 0 || len(c.Stored) == 0 || len(c.Stored)%d != 0 || len(c.Queries) == 0 || len(c.Queries)%d != 0 {
		return nil, fmt.Errorf("complete: %d stored and %d query values are not rows of dimension %d", len(c.Stored), len(c.Queries), d)
	}
	if len(c.Visible) != d {
		return nil, fmt.Errorf("complete: visibility mask has %d entries, want D = %d", len(c.Visible), d)
	}
	b := len(c.Queries) / d
	res := &CompletionResult{Occluded: make([]float64, len(c.Queries)), MemorySize: len(c.Stored)}
	if err := c.occlude(res.Occluded); err != nil {
		return nil, err
	}
	hi := 1 / math.Sqrt(float64(d))
	opt := dam.RecallOptions{Step: c.Step, MaxSteps: c.MaxSteps, Tol: c.Tol, Clamp: c.Visible}
	if c.Box {
		opt.Box = &dam.Box{Lo: 0, Hi: hi}
	}
	mr, err := mrdam(c.Stored, d, c.Beta)
	if err != nil {
		return nil, err
	}
	switch {
	case c.Mr != nil:
		if len(c.Mr.X) != len(c.Queries) {
			return nil, fmt.Errorf("complete: the reused MrDAM descent has %d values, want %d", len(c.Mr.X), len(c.Queries))
		}
		res.Mr = c.Mr
	case !c.SkipMrDAM:
		t0 := time.Now()
		if res.Mr, err = dam.Recall(mr, res.Occluded, opt); err != nil {
			return nil, fmt.Errorf("MrDAM descent: %w", err)
		}
		res.MrTime = time.Since(t0)
	}
	cfg := c.DrDAM
	cfg.Rep, cfg.D, cfg.Beta = dam.RepDrDAM, d, c.Beta
	t0 := time.Now()
	mem, err := dam.NewContext(ctx, cfg)
	if err != nil {
		return nil, err
	}
	dr := mem.(*dam.DrDAM)
	if err := dr.Add(c.Stored); err != nil {
		return nil, err
	}
	res.EncodeTime = time.Since(t0)
	res.TSize = dr.Config().FeatureDim()
	t0 = time.Now()
	if res.Dr, err = dam.Recall(dr, res.Occluded, opt); err != nil {
		return nil, fmt.Errorf("DrDAM descent: %w", err)
	}
	res.DrTime = time.Since(t0)
	res.TrueAtDr = make([]float64, b)
	if err := mr.EnergyGrad(res.TrueAtDr, nil, res.Dr.X); err != nil {
		return nil, err
	}
	rmse := func(a, b []float64, mask []bool) float64 {
		return metrics.RMSE255(metrics.ClipUnit(a, d), metrics.ClipUnit(b, d), d, mask)
	}
	for q := range b {
		x := c.Queries[q*d : (q+1)*d]
		xd := res.Dr.X[q*d : (q+1)*d]
		own := nearest(c.Stored, x, d, nil, -1)
		res.Own = append(res.Own, own)
		res.DrToOriginal = append(res.DrToOriginal, rmse(xd, x, nil))
		res.DrToOriginalFree = append(res.DrToOriginalFree, rmse(xd, x, c.Visible))
		res.DrMargin = append(res.DrMargin, margin(c.Stored, xd, d, c.Visible, own))
		tr := res.Dr.Energy[q]
		res.FinalDr = append(res.FinalDr, tr[len(tr)-1])
		if res.Mr != nil {
			xm := res.Mr.X[q*d : (q+1)*d]
			res.DrToMr = append(res.DrToMr, rmse(xd, xm, nil))
			res.MrToOriginal = append(res.MrToOriginal, rmse(xm, x, nil))
			res.DrToMrFree = append(res.DrToMrFree, rmse(xd, xm, c.Visible))
			res.MrToOriginalFree = append(res.MrToOriginalFree, rmse(xm, x, c.Visible))
			res.MrMargin = append(res.MrMargin, margin(c.Stored, xm, d, c.Visible, own))
			tm := res.Mr.Energy[q]
			res.FinalMr = append(res.FinalMr, tm[len(tm)-1])
		}
	}
	return res, nil
}

// nearest returns the stored pattern (K×d) nearest to x in RMSE over the
// coordinates where mask is false (all with a nil mask), leaving out
// pattern skip (-1: none), with x clipped to [0, 1/√d] as an image; -1 if
// there is none.
func nearest(stored, x []float64, d int, mask []bool, skip int) int {
	xc := metrics.ClipUnit(x, d)
	best, bestK := math.Inf(1), -1
	for k := range len(stored) / d {
		if k == skip {
			continue
		}
		if v := metrics.RMSE255(xc, stored[k*d:(k+1)*d], d, mask); v < best {
			best, bestK = v, k
		}
	}
	return bestK
}

// margin returns log(RMSE to the nearest stored pattern other than own /
// RMSE to own) of the completion x over the occluded coordinates (where
// visible is false): above 0 when x retrieves own. It is NaN with one
// stored pattern, +Inf when x equals own there.
func margin(stored, x []float64, d int, visible []bool, own int) float64 {
	other := nearest(stored, x, d, visible, own)
	if other < 0 {
		return math.NaN()
	}
	xc := metrics.ClipUnit(x, d)
	return math.Log(metrics.RMSE255(xc, stored[other*d:(other+1)*d], d, visible) / metrics.RMSE255(xc, stored[own*d:(own+1)*d], d, visible))
}

// Stalled returns the queries (counted from 0) whose DrDAM descent stalled
// at the clip floor (dam.Stalled): their completion is where they started.
func (r *CompletionResult) Stalled() []int {
	var s []int
	for q, o := range r.Dr.Outcome {
		if o == dam.Stalled {
			s = append(s, q)
		}
	}
	return s
}
