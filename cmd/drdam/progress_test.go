package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerationProgress: encode shows the drawing of its projection (an
// orthogonal one at D = 12288 was two silent minutes); here D = 256, with
// progress lines as often as they come, on stderr only; stdout is as
// without.
func TestGenerationProgress(t *testing.T) {
	old := logEvery
	logEvery = 0
	defer func() { logEvery = old }()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 2 {
		for j := range 256 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprint(&b, float64((i+j)%3)/16)
		}
		b.WriteString("\n")
	}
	pat := writeCSV(t, dir, "p.csv", b.String())
	for _, c := range []struct{ proj, want string }{
		{"orthogonal", "drawing the orthogonal projection (Y = 512, D = 256, seed 0)"},
		{"structured", ""}, // nothing to draw row by row: no progress
	} {
		st, out, errOut := drdam(t, "encode", "--patterns", pat, "--out", filepath.Join(dir, c.proj+".drdam"), "--y", "512", "--projection", c.proj)
		if st != 0 || !strings.HasPrefix(out, "stored 2 patterns") {
			t.Fatalf("encode --projection %s: status %d, stdout %q, stderr %q", c.proj, st, out, errOut)
		}
		if c.want == "" && errOut != "" || c.want != "" && !strings.Contains(errOut, c.want) {
			t.Errorf("encode --projection %s: stderr %q, want %q", c.proj, errOut, c.want)
		}
	}
}
