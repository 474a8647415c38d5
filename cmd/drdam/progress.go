package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/drdam/drdam/features"
)

// progress reports a long run's status with an estimate of the time left.
// On a terminal it rewrites one line in place at most every 200 ms; on
// anything else (a log file, a pipe) it prints a full line at most every
// 30 s (the first after 30 s), so that logs show a long run advancing
// without filling up.
type progress struct {
	e     *env
	start time.Time
	last  time.Time
	shown bool
	every time.Duration // minimum interval between lines on a non-terminal
}

// logEvery is the interval between progress lines on a non-terminal
// (tests shorten it).
var logEvery = 30 * time.Second

func newProgress(e *env) *progress {
	now := time.Now()
	return &progress{e: e, start: now, last: now, every: logEvery}
}

// update shows "label: done/total" and the estimated time left.
func (p *progress) update(label string, done, total int) {
	p.show(label, done, total, fmt.Sprintf("%d/%d", done, total))
}

// rate shows "label: n units (r/s)" (units: "patterns", "queries") with
// a bar of the fraction done/all of the input read and the time left, or
// without them if all is not known (negative).
func (p *progress) rate(label, units string, n, done, all int64) {
	r := float64(n) / max(time.Since(p.start).Seconds(), 1e-9)
	count := fmt.Sprintf("%d %s (%.0f/s)", n, units, r)
	if all <= 0 {
		p.show(label, 0, 1, count)
		return
	}
	frac := min(1, float64(done)/float64(all))
	p.show(label, int(frac*1e6), 1e6, barText(frac)+", "+count)
}

// bar shows "label [=====>    ] 43%" for work measured in any unit (here
// estimated seconds), and the estimated time left.
func (p *progress) bar(label string, done, total float64) {
	frac := 0.0
	if total > 0 {
		frac = min(1, done/total)
	}
	p.show(label, int(frac*1e6), 1e6, barText(frac))
}

// barText draws the fraction frac of a bar: "[=====>    ]  43%".
func barText(frac float64) string {
	const width = 24
	n := int(frac * width)
	b := strings.Repeat("=", n)
	if n < width {
		b += ">" + strings.Repeat(" ", width-n-1)
	}
	return fmt.Sprintf("[%s] %3.0f%%", b, 100*frac)
}

func (p *progress) show(label string, done, total int, count string) {
	now := time.Now()
	if p.e.isTerminal {
		if now.Sub(p.last) < 200*time.Millisecond && done < total {
			return
		}
	} else if now.Sub(p.last) < p.every || done >= total {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	eta := ""
	if done > 0 && done < total {
		left := time.Duration(float64(el) * float64(total-done) / float64(done))
		eta = fmt.Sprintf(", about %v left", left.Round(time.Second))
	}
	msg := fmt.Sprintf("%s: %s (%v elapsed%s)", label, count, el.Round(100*time.Millisecond), eta)
	if p.e.isTerminal {
		fmt.Fprintf(p.e.stderr, "\r\033[K%s", msg)
		p.shown = true
	} else {
		fmt.Fprintln(p.e.stderr, msg)
	}
}

// done clears the status line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.e.stderr, "\r\033[K")
		p.shown = false
	}
}

// generationCommands are the commands that draw a model's projection
// without a progress display of their own (the experiments, demo, bench
// and compute show theirs, or time the drawing): they show the drawing of
// a long one (an orthogonal projection at D = 12288 takes minutes).
var generationCommands = map[string]bool{"encode": true, "add": true, "remove": true, "merge": true, "info": true,
	"energy": true, "recall": true, "complete": true}

// watchGeneration returns a context that shows the progress of the
// seeded projections of the models made or loaded with it
// (features.WithGenerationProgress), one status line per projection, as
// progress does: on a terminal after 200 ms, in a log every 30 s. After
// stop, their reports show nothing.
func watchGeneration(e *env) (ctx context.Context, stop func()) {
	type key struct {
		kind features.ProjectionKind
		seed uint64
		y, d int
	}
	var mu sync.Mutex
	type state struct {
		pr   *progress
		rows float64
	}
	live := map[key]*state{}
	stopped := false
	ctx = features.WithGenerationProgress(e.context(), func(r features.GenerationReport) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		k := key{r.Kind, r.Seed, r.Y, r.D}
		st := live[k]
		if st == nil {
			st = &state{pr: newProgress(e)}
			live[k] = st
		}
		st.rows += r.Rows
		label := fmt.Sprintf("drawing the %v projection (Y = %d, D = %d, seed %d)", r.Kind, r.Y, r.D, r.Seed)
		st.pr.bar(label, st.rows, float64(r.Y))
		if st.rows >= float64(r.Y)-0.5 {
			st.pr.done()
			delete(live, k)
		}
	})
	return ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		for _, st := range live {
			st.pr.done()
		}
	}
}
