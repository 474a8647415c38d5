package paper

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectionsEstimate: --estimate prints one line (the name, the
// number of tasks, the estimated run time) and measures and writes
// nothing; a bad grid is still refused, naming its parameter.
func TestProjectionsEstimate(t *testing.T) {
	p := projections.Params("quick")
	for name, v := range map[string]string{"estimate": "true", "d": "16", "y": "100,200", "beta": "5", "k": "10", "seeds": "2"} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	r, err := projections.Run(context.Background(), p, dir, Observer{})
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Split(strings.TrimSpace(r.Text), "\t")
	if len(f) != 4 || f[0] != "projections" || !strings.HasSuffix(f[2], " tasks") || f[2] == "0 tasks" {
		t.Errorf("estimate: %q, want projections, -, N tasks, a duration", r.Text)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("--estimate made %s", dir)
	}
	if err := p.Set("projections", "orthogonal,gaussian"); err != nil {
		t.Fatal(err)
	}
	_, err = projections.Run(context.Background(), p, dir, Observer{})
	if pe, ok := err.(*ParamError); !ok || pe.Name != "control" {
		t.Errorf("control with orthogonal first: err = %v, want a ParamError for control", err)
	}
}
