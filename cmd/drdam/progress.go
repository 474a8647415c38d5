package main

import (
	"fmt"
	"time"
)

// progress prints a one-line status to a terminal at most every 200 ms,
// rewriting it in place, with an estimate of the time left. On anything but
// a terminal it prints nothing.
type progress struct {
	e     *env
	start time.Time
	last  time.Time
	shown bool
}

func newProgress(e *env) *progress { return &progress{e: e, start: time.Now()} }

// update shows "label: done/total" and the estimated time left.
func (p *progress) update(label string, done, total int) {
	if !p.e.isTerminal {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 200*time.Millisecond && done < total {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	eta := ""
	if done > 0 && done < total {
		left := time.Duration(float64(el) * float64(total-done) / float64(done))
		eta = fmt.Sprintf(", about %v left", left.Round(time.Second))
	}
	fmt.Fprintf(p.e.stderr, "\r\033[K%s: %d/%d (%v elapsed%s)", label, done, total, el.Round(100*time.Millisecond), eta)
	p.shown = true
}

// done clears the status line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.e.stderr, "\r\033[K")
		p.shown = false
	}
}
