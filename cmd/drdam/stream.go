package main

import (
	"fmt"
	"io"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/cli"
)

// chunkValues is about the number of values of a chunk of patterns that
// encode and add read at a time (8 MiB of float64; tests lower it).
var chunkValues = 1 << 20

// chunkRows returns the rows of a chunk of patterns of dimension d: a
// multiple of the 256 patterns that a DrDAM encodes at a time, so that T
// is the same bit for bit as when the patterns are added in one call
// (for the L2 energy; a DrDAM of the dot energy rescales T when a pattern
// of larger weight comes, so its T is the same to rounding). Rows wider
// than chunkValues/256 go fewer at a time, at least one.
func chunkRows(d int) int {
	if d <= chunkValues/256 {
		return 256 * (chunkValues / (256 * d))
	}
	return max(1, chunkValues/d)
}

// storeRows adds (or, with remove set, removes) the patterns of rows to
// m, a chunk at a time, reading the next chunk while m stores the last,
// with a progress line (patterns/s and the time left). A bad row is an
// error naming its file, row and column; m is then partly updated, and
// the caller must not save it. It returns the number of patterns stored.
func storeRows(e *env, m dam.Memory, rows *dataio.Rows, label string, remove bool, budget *byteSize) (int64, error) {
	d := rows.Cols()
	if d != m.Dim() {
		return 0, fmt.Errorf("%s: patterns have %d columns, but the model has dimension D = %d", rows.Name(), d, m.Dim())
	}
	// Two chunks take at most a quarter of the budget (a header may
	// declare rows of any width): fewer rows under a small budget, and an
	// error if one row is too wide.
	n, b := chunkRows(d), budgetOf(budget)
	if fit := b / 4 / (16 * int64(d)); int64(n) > fit {
		n = int(fit)
		if n > 256 {
			n -= n % 256
		}
	}
	if n < 1 {
		return 0, fmt.Errorf("%s: rows of %d values take %s to read (two chunks of a row), more than a quarter of the memory budget of %s; raise --max-memory",
			rows.Name(), d, dam.Bytes(16*float64(d)), dam.Bytes(float64(b)))
	}
	op, verb := m.Add, "adding"
	if remove {
		op, verb = m.Remove, "removing"
	}
	c := m.Config()
	// Two buffers: one filled by the reader while the other is stored.
	// A buffer is filled whole, from as many files as it takes, so that
	// the chunks start at the same rows as those of one file.
	type chunk struct {
		data []float64
		k    int
		read [2]int64 // rows.Progress() after the chunk
		err  error
	}
	free := make(chan []float64, 2)
	free <- make([]float64, n*d)
	free <- make([]float64, n*d)
	full := make(chan chunk, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(full)
		for {
			var buf []float64
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			k, err := cli.Fill(rows, buf, c)
			done, all := rows.Progress()
			select {
			case full <- chunk{buf, k, [2]int64{done, all}, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	pr := newProgress(e)
	defer pr.done()
	var stored int64
	for ch := range full {
		if ch.err != nil && ch.err != io.EOF {
			return stored, ch.err
		}
		if ch.k == 0 {
			break
		}
		if err := op(ch.data[:ch.k*d]); err != nil {
			return stored, fmt.Errorf("%s: %w", label, budgetHint(err))
		}
		stored += int64(ch.k)
		free <- ch.data
		pr.rate(verb+" the patterns of "+label, stored, ch.read[0], ch.read[1])
	}
	return stored, nil
}
