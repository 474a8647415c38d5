package experiment

import (
	"fmt"
	"github.com/drdam/drdam/metrics"
	"math"
	"time"

	"github.com/drdam/drdam/dam"
)

// Completion configures an image-completion run (Fig. 1, 2 and 4B): the
// Stored patterns are stored in an MrDAM and in a DrDAM, the Queries are
// occluded (their hidden coordinates set to 0, as in the paper) and both
// models descend from them with the visible coordinates clamped.
type Completion struct {
	D       int
	Stored  []float64 // K×D patterns in [0, 1/√D]^D
	Queries []float64 // B×D originals of the queries, usually stored ones
	Visible []bool    // length D: true where the query is kept and clamped
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
}

// CompletionResult is the outcome of Complete.
type CompletionResult struct {
	Occluded []float64   // B×D starting points
	Dr, Mr   *dam.Result // the descents (Mr is nil with SkipMrDAM)
	// RMSEs in 0–255 pixel units over the whole pattern (the visible part
	// is clamped, so it contributes 0), one per query, after clipping the
	// fixed points to [0, 1/√D] as an image would be.
	DrToOriginal, DrToMr, MrToOriginal []float64
	// FinalDr and FinalMr are the last energies of each query's descent,
	// each under its own model; TrueAtDr is MrDAM's (exact) energy at
	// DrDAM's fixed point.
	FinalDr, FinalMr, TrueAtDr []float64
	DrTime, MrTime, EncodeTime time.Duration
	TSize, MemorySize          int // parameters of T (F) and of the memory matrix (K·D)
}

// Complete runs an image completion.
func Complete(c Completion) (*CompletionResult, error) {
	d := c.D
	if d <= 0 || len(c.Stored) == 0 || len(c.Stored)%d != 0 || len(c.Queries) == 0 || len(c.Queries)%d != 0 {
		return nil, fmt.Errorf("complete: %d stored and %d query values are not rows of dimension %d", len(c.Stored), len(c.Queries), d)
	}
	if len(c.Visible) != d {
		return nil, fmt.Errorf("complete: visibility mask has %d entries, want D = %d", len(c.Visible), d)
	}
	b := len(c.Queries) / d
	res := &CompletionResult{Occluded: make([]float64, len(c.Queries)), MemorySize: len(c.Stored)}
	for i, v := range c.Queries {
		if c.Visible[i%d] {
			res.Occluded[i] = v
		}
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
	if !c.SkipMrDAM {
		t0 := time.Now()
		if res.Mr, err = dam.Recall(mr, res.Occluded, opt); err != nil {
			return nil, fmt.Errorf("MrDAM descent: %w", err)
		}
		res.MrTime = time.Since(t0)
	}
	cfg := c.DrDAM
	cfg.Rep, cfg.D, cfg.Beta = dam.RepDrDAM, d, c.Beta
	t0 := time.Now()
	dr, err := dam.NewDrDAM(cfg)
	if err != nil {
		return nil, err
	}
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
	rmse := func(a, b []float64) float64 {
		return metrics.RMSE255(metrics.ClipUnit(a, d), metrics.ClipUnit(b, d), d, nil)
	}
	for q := range b {
		x := c.Queries[q*d : (q+1)*d]
		xd := res.Dr.X[q*d : (q+1)*d]
		res.DrToOriginal = append(res.DrToOriginal, rmse(xd, x))
		tr := res.Dr.Energy[q]
		res.FinalDr = append(res.FinalDr, tr[len(tr)-1])
		if res.Mr != nil {
			xm := res.Mr.X[q*d : (q+1)*d]
			res.DrToMr = append(res.DrToMr, rmse(xd, xm))
			res.MrToOriginal = append(res.MrToOriginal, rmse(xm, x))
			tm := res.Mr.Energy[q]
			res.FinalMr = append(res.FinalMr, tm[len(tm)-1])
		}
	}
	return res, nil
}
