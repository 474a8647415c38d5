package paper

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// tinyEnergy returns the parameters of a small energy-error grid: two
// seeds of four Y each, eight tasks of a few milliseconds.
func tinyEnergy(t *testing.T) *Params {
	t.Helper()
	p := energyError.Params("quick")
	for name, v := range map[string]string{"d": "16", "k": "10", "beta": "5", "y": "100,200,300,400", "seeds": "2"} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestRunCancelledResumes runs a grid experiment through Run with a
// context cancelled as soon as its first task is saved: Run
// returns within a second of the cancellation, with context.Canceled,
// having kept the points measured. A second Run into the same directory
// goes on from them, and its points.csv is byte for byte that of a run
// done in one go.
func TestRunCancelledResumes(t *testing.T) {
	dir := t.TempDir()
	stopped, whole := filepath.Join(dir, "stopped"), filepath.Join(dir, "whole")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	var cancelled time.Time
	// Cancel as soon as the first task's points are saved: the next task
	// is then under way.
	obs := Observer{Progress: func(done, total float64, label string) {
		if _, err := os.Stat(filepath.Join(stopped, "points.csv")); err == nil {
			once.Do(func() { cancelled = time.Now(); cancel() })
		}
	}}
	_, err := energyError.Run(ctx, tinyEnergy(t), stopped, obs)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: err = %v, want context.Canceled", err)
	}
	if el := time.Since(cancelled); el > time.Second {
		t.Errorf("Run returned %v after the cancellation, want within a second", el)
	}
	part, err := os.ReadFile(filepath.Join(stopped, "points.csv"))
	if err != nil {
		t.Fatalf("the cancelled run kept no points: %v", err)
	}
	if _, err := energyError.Run(context.Background(), tinyEnergy(t), stopped, Observer{}); err != nil {
		t.Fatal(err)
	}
	if _, err := energyError.Run(context.Background(), tinyEnergy(t), whole, Observer{}); err != nil {
		t.Fatal(err)
	}
	resumed, err := os.ReadFile(filepath.Join(stopped, "points.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(whole, "points.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(part) >= len(want) {
		t.Errorf("the cancelled run measured everything (%d bytes of %d): it was not stopped", len(part), len(want))
	}
	if !bytes.Equal(resumed, want) {
		t.Errorf("points.csv of the resumed run differs from that of a run in one go:\n%s\nwant\n%s", resumed, want)
	}
}

// TestParamErrors: a value refused names the parameter, not a flag.
func TestParamErrors(t *testing.T) {
	p := energyError.Params("quick")
	err := p.Set("seeds", "0")
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Name != "seeds" || err.Error() != `parameter "seeds": "0": out of range; want a whole number from 1 to 1073741824` {
		t.Errorf("Set(seeds, 0) = %v", err)
	}
	if err := p.Set("scale", "huge"); err != nil {
		t.Fatal(err)
	}
	_, err = energyError.Run(context.Background(), p, t.TempDir(), Observer{})
	if !errors.As(err, &pe) || pe.Name != "scale" {
		t.Errorf("Run at scale huge: %v, want a ParamError naming scale", err)
	}
}

// TestParamsScale: the parameters at the paper's scale carry its
// defaults: a grid's scale, and the image experiments' seeds, which drdam
// reproduce --scale paper runs.
func TestParamsScale(t *testing.T) {
	for _, c := range []struct {
		x           Experiment
		name, quick string
		paper       string
	}{
		{energyError, "scale", "quick", "paper"},
		{fig1, "seeds", "3", "5"},
		{fig4b, "seeds", "3", "5"},
		{compression, "seeds", "3", "5"},
	} {
		q, p := c.x.Params("quick").Lookup(c.name), c.x.Params("paper").Lookup(c.name)
		if q == nil || p == nil || q.String() != c.quick || p.String() != c.paper {
			t.Errorf("%s: %s at quick and paper %v, %v; want %s and %s", c.x.Info().Name, c.name, q, p, c.quick, c.paper)
		}
	}
}
