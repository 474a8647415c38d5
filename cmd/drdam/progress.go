package main

import (
	"fmt"
	"strings"
	"time"
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

func newProgress(e *env) *progress {
	now := time.Now()
	return &progress{e: e, start: now, last: now, every: 30 * time.Second}
}

// update shows "label: done/total" and the estimated time left.
func (p *progress) update(label string, done, total int) {
	p.show(label, done, total, fmt.Sprintf("%d/%d", done, total))
}

// bar shows "label [=====>    ] 43%" for work measured in any unit (here
// estimated seconds), and the estimated time left.
func (p *progress) bar(label string, done, total float64) {
	const width = 24
	frac := 0.0
	if total > 0 {
		frac = min(1, done/total)
	}
	n := int(frac * width)
	b := strings.Repeat("=", n)
	if n < width {
		b += ">" + strings.Repeat(" ", width-n-1)
	}
	p.show(label, int(frac*1e6), 1e6, fmt.Sprintf("[%s] %3.0f%%", b, 100*frac))
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
