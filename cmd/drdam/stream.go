package main

import (
	"errors"
	"fmt"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/cli"
)

// chunkValues is about the number of values of a chunk of patterns that
// encode and add read at a time (cli.DefaultChunkValues; tests lower it).
var chunkValues = cli.DefaultChunkValues

// storeRows adds (or, with remove set, removes) the patterns of rows to
// m, a chunk at a time, reading the next chunk while m stores the last
// (cli.Store), with a progress line (patterns/s and the time left). A bad
// row is an error naming its file, row and column; m is then partly
// updated, and the caller must not save it. It returns the number of
// patterns stored.
func storeRows(e *env, m dam.Memory, rows *dataio.Rows, label string, remove bool, budget *byteSize) (int64, error) {
	verb := "adding"
	if remove {
		verb = "removing"
	}
	pr := newProgress(e)
	defer pr.done()
	st := cli.Store{ChunkValues: chunkValues, Budget: budgetOf(budget), Progress: func(stored, read, all int64) {
		pr.rate(verb+" the patterns of "+label, "patterns", stored, read, all)
	}}
	k, err := st.Run(m, rows, remove)
	var se *cli.StoreError
	if errors.As(err, &se) {
		return k, fmt.Errorf("%s: %w", label, budgetHint(se.Err))
	}
	return k, err
}
