package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cifarBatch writes a CIFAR-10 binary batch of n generated records.
func cifarBatch(t *testing.T, dir string, n int) string {
	t.Helper()
	var b []byte
	for k := range n {
		b = append(b, byte(k))
		for i := range 3072 {
			b = append(b, byte((i*7+k*101)%256))
		}
	}
	p := filepath.Join(dir, "batch.bin")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSweepSingleValues: fig4b takes --beta and --y as a grid of one row
// or column (they were silently ignored), refuses them beside --betas and
// --ys, and refuses --queries, which it does not use.
func TestSweepSingleValues(t *testing.T) {
	dir := t.TempDir()
	batch := cifarBatch(t, dir, 3)
	out := filepath.Join(dir, "out")
	mustRun(t, "experiment", "fig4b", "--cifar", batch, "--beta", "55", "--y", "1e3", "--steps", "20", "--seeds", "1", "--out", out)
	b, err := os.ReadFile(filepath.Join(out, "rmse.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "55 ") || len(strings.Fields(lines[1])) != 2 || !strings.Contains(lines[0], "1000") {
		t.Errorf("--beta 55 --y 1e3: rmse.txt is not a 1×1 grid at β = 55, Y = 1000:\n%s", b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--beta", "55", "--betas", "40,60"}, "--beta: exclusive with --betas"},
		{[]string{"--y", "1000", "--ys", "1000,2000"}, "--y: exclusive with --ys"},
		{[]string{"--queries", "2"}, "--queries: fig4b completes one image; choose it with --query"},
	} {
		args := append([]string{"experiment", "fig4b", "--cifar", batch, "--out", out}, c.args...)
		st, _, errOut := drdam(t, args...)
		if st != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("drdam %s: status %d, %q; want 2 and %q", strings.Join(args, " "), st, errOut, c.want)
		}
	}
	if help := mustRun(t, "experiment", "fig4b", "--help"); !strings.Contains(help, "--beta β and --y Y are a grid of one row") {
		t.Errorf("fig4b --help does not say what --beta and --y do:\n%s", help)
	}
}
