package experiment

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/sysinfo"
)

// Task is one unit of work of a Plan: one (D, K, Y, basis, projection),
// measured at the β values of Keys (those not already done when the plan
// was made).
type Task struct {
	Label string  // e.g. "D=100 K=500 Y=20000 sincos gaussian"
	Keys  []Key   // the configurations it measures, one per β
	Cost  float64 // estimated cost in seconds, from the Rates the plan was made with
	// run does the work, calling part (if not nil) with the fraction of
	// the task done so far, and stopping with the error part returns.
	run func(part partFunc) ([]Row, error)
}

// partFunc reports the fraction of a task done so far; a non-nil error
// (the context's) stops the task, which returns it at once, its rows
// discarded: a task's rows are all or nothing.
type partFunc func(frac float64) error

// report calls part, if not nil, and returns its error.
func (part partFunc) report(frac float64) error {
	if part == nil {
		return nil
	}
	return part(frac)
}

// Plan is the work of one experiment run: its tasks in order.
type Plan struct {
	Name    string
	Tasks   []Task
	Skipped int // configurations left out because they were done already
}

// Cost returns the estimated run time of the plan.
func (p *Plan) Cost() time.Duration {
	var s float64
	for _, t := range p.Tasks {
		s += t.Cost
	}
	return time.Duration(s * float64(time.Second))
}

// Run runs the tasks in order. After each, it passes the task's rows to
// sink (which may save them: a run stopped later keeps them). It checks
// ctx before each task and within them (after each β, descent or
// projection kind): a cancelled run stops there, with ctx's error, having
// passed the rows of every task done to sink. It reports
// progress, if not nil, as estimated seconds of work done out of the
// total, with the label of the task under way: after each task, and
// within long ones (after each β, and during descents).
func (p *Plan) Run(ctx context.Context, sink func([]Row) error, progress func(done, total float64, label string)) error {
	var total, done float64
	for _, t := range p.Tasks {
		total += t.Cost
	}
	for _, t := range p.Tasks {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: stopped before %s: %w", p.Name, t.Label, err)
		}
		part := func(f float64) error {
			if progress != nil {
				progress(done+f*t.Cost, total, t.Label)
			}
			return ctx.Err()
		}
		rows, err := t.run(part)
		if err != nil {
			return fmt.Errorf("%s %s: %w", p.Name, t.Label, err)
		}
		if err := sink(rows); err != nil {
			return err
		}
		done += t.Cost
		if progress != nil {
			progress(done, total, t.Label)
		}
	}
	return nil
}

// Rates are the measured speeds of this machine that turn a plan into an
// estimated run time.
type Rates struct {
	DenseNs float64 // ns per multiply-add of a dense projection (Y·D per query and direction)
	GenNs   float64 // ns to generate one Gaussian projection entry
	// SORFNs is the time of a structured evaluation (energy and gradient)
	// per feature and query, in ns, at the SORF block sizes N of
	// SORFSizes (64, 256, 1024); between them it is interpolated in
	// log₂N, beyond them extrapolated from the last two. The cost is not
	// proportional to log₂N: the transforms go through memory in sweeps of
	// up to four stages, a block of 1024 lines no longer fits the L1
	// cache, and the basis functions, copies and scales cost per feature
	// whatever N.
	SORFNs [3]float64
	TrigNs float64 // ns per feature per query for the basis functions of a dense projection
}

// SORFSizes returns the block sizes N at which Calibrate times a
// structured evaluation (the dimensions 64, 256 and 1000 pad to them).
func SORFSizes() [3]int { return [3]int{64, 256, 1024} }

// DefaultRates returns rough speeds of a recent two-core x86 machine in
// float64, used when no calibration is made. GenNs is that of generator
// version 2 (Calibrate measured 1.4–1.9 ns on the machine of
// BENCHMARKS.md; version 1 took about 9).
func DefaultRates() Rates {
	return Rates{DenseNs: 0.03, GenNs: 1.5, SORFNs: [3]float64{2.5, 3.5, 5.5}, TrigNs: 2}
}

// Calibration bounds: Calibrate takes the minimum of at least
// calibMinReps timings of each measurement, repeating them until
// calibMinTime has passed, and times each by the process's CPU time spread
// over its threads (see timed). Single wall-clock timings made the
// estimate of a plan vary by 2× and more between runs on a shared machine
// (another process takes a core, the collector runs); the kernels keep every
// thread busy (wall/(CPU/threads) measured at 1.01–1.15 undisturbed), so
// the CPU time is what an undisturbed run takes, and it does not grow
// when others take the cores.
const (
	calibMinReps = 5
	calibMinTime = 800 * time.Millisecond
)

// Calibrate measures Rates on this machine with small DrDAM evaluations in
// precision p (about two seconds): the fastest of several timings of each,
// as an undisturbed run would take them. The estimates made from them
// assume that the run has the machine's cores to itself. It checks ctx
// between timings and returns its error when it is cancelled.
func Calibrate(ctx context.Context, p dam.Precision) (Rates, error) {
	const d, y, b = 256, 8192, 256
	r := DefaultRates()
	sizes := SORFSizes()
	maxD := sizes[len(sizes)-1]
	x := make([]float64, b*maxD)
	for i := range x {
		x[i] = float64(i%7) / 7 / 16
	}
	e, g := make([]float64, b), make([]float64, b*maxD)
	build := func(kind features.ProjectionKind, d int) (m *dam.DrDAM, sec float64, err error) {
		defer timed(&sec)()
		m, err = dam.NewDrDAM(dam.Config{D: d, Y: y, Beta: 10, Projection: kind, Precision: p, Seed: 1})
		if err == nil {
			err = m.Add(x[:d])
		}
		return m, sec, err
	}
	// eval times n evaluations and returns the time of one: a structured
	// evaluation takes milliseconds, below the resolution of the CPU time
	// on some kernels, so several are timed together.
	eval := func(m *dam.DrDAM, n int) (sec float64, err error) {
		xb := x[:b*m.Dim()]
		func() {
			defer timed(&sec)()
			for range n {
				if err = m.EnergyGrad(e, g[:len(xb)], xb); err != nil {
					return
				}
			}
		}()
		return sec / float64(n), err
	}
	start := time.Now()
	var dense *dam.DrDAM
	var sorf [len(sizes)]*dam.DrDAM
	gen, geval := math.Inf(1), math.Inf(1)
	sev := [len(sizes)]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	for i := 0; i < calibMinReps || time.Since(start) < calibMinTime; i++ {
		if err := ctx.Err(); err != nil {
			return r, fmt.Errorf("calibration: %w", err)
		}
		// Generation (a few ms with generator version 2) is timed five
		// times, each after a collection has freed the last model, so that
		// its panels reuse the same memory instead of faulting in new
		// pages, whose cost varies by 2× and more.
		if i < 5 {
			dense = nil
			runtime.GC()
			m, t, err := build(features.Gaussian, d)
			if err != nil {
				return r, err
			}
			dense, gen = m, min(gen, t)
		}
		// Alternate the kinds, so that all see the same conditions.
		t, err := eval(dense, 1)
		if err != nil {
			return r, err
		}
		geval = min(geval, t)
		for j, n := range sizes {
			if sorf[j] == nil {
				if sorf[j], _, err = build(features.Structured, min(n, 1000)); err != nil {
					return r, err
				}
			}
			if t, err = eval(sorf[j], 4); err != nil {
				return r, err
			}
			sev[j] = min(sev[j], t)
		}
	}
	// An evaluation is two dense products (forward and transposed) and the
	// basis functions; attribute a fixed share to the latter, as measured
	// on the machines of BENCHMARKS.md.
	trig := geval * 0.15
	r.TrigNs = trig * 1e9 / (y * b)
	r.DenseNs = (geval - trig) * 1e9 / (2 * y * d * b)
	r.GenNs = gen * 1e9 / (y * d)
	for j, t := range sev {
		r.SORFNs[j] = t * 1e9 / (y * b)
	}
	return r, nil
}

// sorfNs returns the time of a structured evaluation per feature and
// query at dimension d, from r.SORFNs.
func (r Rates) sorfNs(d int) float64 {
	l := math.Log2(float64(features.SORFBlockSize(d)))
	sizes := SORFSizes()
	j := 0
	for j < len(sizes)-2 && l > math.Log2(float64(sizes[j+1])) {
		j++
	}
	l0, l1 := math.Log2(float64(sizes[j])), math.Log2(float64(sizes[j+1]))
	c0, c1 := r.SORFNs[j], r.SORFNs[j+1]
	return max(0, c0+(c1-c0)*(l-l0)/(l1-l0))
}

// timed starts a timing; the function it returns stores in *sec the
// seconds the machine would have taken undisturbed: the wall time, or the
// process's CPU time spread over its GOMAXPROCS threads when that is less
// (when other processes took the cores, the wall time grows and the CPU
// time does not).
func timed(sec *float64) func() {
	t0 := time.Now()
	c0, ok := sysinfo.CPUSeconds()
	return func() {
		*sec = time.Since(t0).Seconds()
		if c1, ok1 := sysinfo.CPUSeconds(); ok && ok1 {
			*sec = min(*sec, (c1-c0)/float64(runtime.GOMAXPROCS(0)))
		}
	}
}

// evalCost estimates the seconds of `evals` evaluations of b queries with
// a Y×D projection of the given kind, plus generating it gens times.
func (r Rates) evalCost(kind features.ProjectionKind, y, d, b, evals, gens int) float64 {
	fy, fd, fb := float64(y), float64(d), float64(b)
	var per, gen float64
	switch kind {
	case features.Structured:
		per = fy * fb * r.sorfNs(d)
		return per * float64(evals) * 1e-9
	case features.Orthogonal:
		per = 2 * fy * fd * fb * r.DenseNs
		gen = fy * fd * fd * r.DenseNs * 4 // QR of D×D blocks
	default:
		per = 2 * fy * fd * fb * r.DenseNs
		gen = fy * fd * r.GenNs
	}
	per += fy * fb * r.TrigNs
	return (per*float64(evals) + gen*float64(gens)) * 1e-9
}

// mrCost estimates the seconds of `evals` MrDAM evaluations of b queries
// with K memories of dimension D.
func (r Rates) mrCost(k, d, b, evals int) float64 {
	return (2*float64(k)*float64(d)*float64(b)*r.DenseNs + float64(k)*float64(b)*r.TrigNs) * float64(evals) * 1e-9
}

// WithSeed returns p with every task's keys and rows marked with the
// replicate seed (Key.Seed, Row.Seed) and its label prefixed by it: the
// plan of one replicate of a grid made with that seed.
func (p *Plan) WithSeed(seed uint64) *Plan {
	q := &Plan{Name: p.Name, Skipped: p.Skipped, Tasks: make([]Task, len(p.Tasks))}
	for i, t := range p.Tasks {
		keys := slices.Clone(t.Keys)
		for j := range keys {
			keys[j].Seed = seed
		}
		run := t.run
		q.Tasks[i] = Task{Label: fmt.Sprintf("seed %d: %s", seed, t.Label), Keys: keys, Cost: t.Cost,
			run: func(part partFunc) ([]Row, error) {
				rows, err := run(part)
				for j := range rows {
					rows[j].Seed = seed
				}
				return rows, err
			}}
	}
	return q
}

// Concat returns one plan that runs the tasks of plans in order (e.g. the
// replicates of a grid, one per seed), under name.
func Concat(name string, plans ...*Plan) *Plan {
	q := &Plan{Name: name}
	for _, p := range plans {
		q.Tasks = append(q.Tasks, p.Tasks...)
		q.Skipped += p.Skipped
	}
	return q
}
