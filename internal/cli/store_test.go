package cli

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
)

// TestChunkRows: chunks are whole multiples of 256 rows when a row fits
// 256 times, else as many rows as fit, at least one.
func TestChunkRows(t *testing.T) {
	for _, c := range []struct{ d, values, want int }{
		{4, 1 << 20, 262144}, {1000, 1 << 20, 1024}, {4096, 1 << 20, 256}, {5000, 1 << 20, 209}, {1 << 21, 1 << 20, 1}, {4, 1024, 256},
	} {
		if got := ChunkRows(c.d, c.values); got != c.want {
			t.Errorf("ChunkRows(%d, %d) = %d, want %d", c.d, c.values, got, c.want)
		}
	}
}

// TestStore: patterns stored in chunks of 256 rows (the last partial)
// give the DrDAM's T bit for bit that one Add of them all gives, with a
// progress call per chunk; a row too wide for the budget, and an error of
// the model's Remove (a *StoreError), are refused.
func TestStore(t *testing.T) {
	const d, k = 4, 700
	dir := t.TempDir()
	var sb strings.Builder
	all := make([]float64, 0, k*d)
	for r := range k {
		for j := range d {
			v := float64((r*d+j)*7919%1000) / 2000
			all = append(all, v)
			if j > 0 {
				sb.WriteString(",")
			}
			fmt.Fprint(&sb, v)
		}
		sb.WriteString("\n")
	}
	path := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := dam.Config{D: d, Beta: 10, Y: 500}
	want, _ := dam.NewDrDAM(cfg)
	if err := want.Add(all); err != nil {
		t.Fatal(err)
	}
	got, _ := dam.NewDrDAM(cfg)
	rows, err := dataio.OpenRows(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	calls := 0
	n, err := Store{ChunkValues: 1024, Progress: func(stored, read, size int64) { calls++ }}.Run(got, rows, false)
	if err != nil || n != k || calls != 3 {
		t.Fatalf("Run: %d stored, %d progress calls, %v; want %d, 3, nil", n, calls, err, k)
	}
	tw, tg := want.T(nil), got.T(nil)
	for i := range tw {
		if math.Float64bits(tw[i]) != math.Float64bits(tg[i]) {
			t.Fatalf("T[%d] = %v stored in chunks, %v in one Add", i, tg[i], tw[i])
		}
	}

	// A budget whose quarter holds not even two rows of d values.
	rows2, _ := dataio.OpenRows(path)
	defer rows2.Close()
	if _, err := (Store{Budget: 100}).Run(got, rows2, false); err == nil || !strings.Contains(err.Error(), "raise --max-memory") {
		t.Errorf("a row too wide for the budget: %v", err)
	}

	// Removing from an MrDAM rows it does not store: the model's error.
	mr, _ := dam.NewMrDAM(dam.Config{D: d, Beta: 10})
	rows3, _ := dataio.OpenRows(path)
	defer rows3.Close()
	_, err = Store{}.Run(mr, rows3, true)
	var se *StoreError
	if !errors.As(err, &se) {
		t.Errorf("Remove of rows never added: %v (%T), want a *StoreError", err, err)
	}
}
