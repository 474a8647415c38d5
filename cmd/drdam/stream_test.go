package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/npy"
)

// TestEncodeShards: encode and add read a folder or a glob of shards in
// mixed formats a chunk at a time (here of 256 rows), showing patterns/s
// and a bar, and write the model byte for byte that encode writes from
// the shards concatenated in one file; a bad value in a later shard is
// named by its shard, row and column, and nothing is written.
func TestEncodeShards(t *testing.T) {
	oldLog, oldChunk := logEvery, chunkValues
	logEvery, chunkValues = 0, 1024
	defer func() { logEvery, chunkValues = oldLog, oldChunk }()
	const d = 4
	dir := t.TempDir()
	shards := filepath.Join(dir, "shards")
	if err := os.Mkdir(shards, 0o755); err != nil {
		t.Fatal(err)
	}
	val := func(i int) float64 { return float64((i*7919)%1000) / 2000 }
	var all []float64
	// part-0.csv: 700 rows; part-1.npy: 900 rows; part-2-idx3-ubyte: 300.
	var sb strings.Builder
	for r := range 700 {
		for j := range d {
			v := val(r*d + j)
			all = append(all, v)
			sep := ","
			if j == d-1 {
				sep = "\n"
			}
			fmt.Fprintf(&sb, "%g%s", v, sep)
		}
	}
	writeCSV(t, shards, "part-0.csv", sb.String())
	x := make([]float64, 900*d)
	for i := range x {
		x[i] = val(i + 3)
	}
	all = append(all, x...)
	if err := npy.WriteFile(filepath.Join(shards, "part-1.npy"), []int{900, d}, x); err != nil {
		t.Fatal(err)
	}
	idx := []byte{0, 0, 8, 2, 0, 0, 1, 44, 0, 0, 0, d} // 300×4 unsigned bytes
	for i := range 300 * d {
		idx = append(idx, byte(i*31))
	}
	if err := os.WriteFile(filepath.Join(shards, "part-2-idx3-ubyte"), idx, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := dataio.ReadMatrix(filepath.Join(shards, "part-2-idx3-ubyte")) // scaled by 1/(255·√D)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, m.Data...)
	whole := filepath.Join(dir, "whole.npy")
	if err := dataio.WriteMatrix(whole, &dataio.Matrix{Rows: len(all) / d, Cols: d, Data: all}); err != nil {
		t.Fatal(err)
	}

	want := filepath.Join(dir, "whole.drdam")
	mustRun(t, "encode", "--patterns", whole, "--out", want, "--y", "64", "--seed", "3")
	wantBytes, _ := os.ReadFile(want)
	for _, pattern := range []string{shards, filepath.Join(shards, "part-*")} {
		out := filepath.Join(dir, "shards.drdam")
		st, stdout, stderr := drdam(t, "encode", "--patterns", pattern, "--out", out, "--y", "64", "--seed", "3")
		if st != 0 || !strings.HasPrefix(stdout, "stored 1900 patterns of dimension 4") {
			t.Fatalf("encode --patterns %s: status %d, %q, %q", pattern, st, stdout, stderr)
		}
		if !strings.Contains(stderr, "adding the patterns of "+pattern+": [") || !strings.Contains(stderr, "/s)") {
			t.Errorf("encode --patterns %s: no progress with patterns/s: %q", pattern, stderr)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, wantBytes) {
			t.Errorf("encode --patterns %s: model differs from encoding %s", pattern, whole)
		}
	}
	// add: the shards again, to the model of the whole file, equals the
	// whole file added twice.
	twice := filepath.Join(dir, "twice.drdam")
	mustRun(t, "add", "--model", want, "--patterns", whole, "--out", twice)
	mustRun(t, "add", "--model", want, "--patterns", shards)
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(twice)
	if !bytes.Equal(a, b) {
		t.Errorf("add of the shards differs from add of the whole file")
	}

	x[5*d+2] = math.NaN() // row 6 of part-1.npy
	if err := npy.WriteFile(filepath.Join(shards, "part-1.npy"), []int{900, d}, x); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bad.drdam")
	st, _, stderr := drdam(t, "encode", "--patterns", shards, "--out", out, "--y", "64")
	if st != 1 || !strings.Contains(stderr, filepath.Join(shards, "part-1.npy")+": row 6, column 3: NaN") {
		t.Errorf("NaN in a shard: status %d, %q", st, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed encode wrote %s", out)
	}
	big := make([]float64, 300*d)
	big[299*d] = 1e200
	if err := npy.WriteFile(filepath.Join(shards, "part-1.npy"), []int{300, d}, big); err != nil {
		t.Fatal(err)
	}
	st, _, stderr = drdam(t, "encode", "--patterns", shards, "--out", out, "--y", "64")
	if st != 1 || !strings.Contains(stderr, filepath.Join(shards, "part-1.npy")+": patterns: row 300 is too large") {
		t.Errorf("a row too large in the second chunk of a shard: status %d, %q", st, stderr)
	}
}
