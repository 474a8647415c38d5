package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/npy"
)

// TestSameAsDrdamEncode: the model that drdam-beam encode writes on Prism
// from 8 shards equals the one that the drdam command (built here from
// ../../../cmd/drdam) writes from the shards concatenated in one file: the
// same header and count, T to relative 1e-12 and energies and gradients
// at 5 probe queries to relative 1e-10. Each bundle's T is bit for bit
// that of drdam encode on its rows (both store chunks of 256-row
// multiples), and the bundles' Ts are then added in the runner's order:
// T differs by the rounding of those additions, a few ulps of its
// largest entry (≈ 1e-16 relative measured), and the energies and
// gradients, smooth functions of T, by as little.
func TestSameAsDrdamEncode(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to build drdam with (%v)", err)
	}
	tmp := t.TempDir()
	drdam := filepath.Join(tmp, "drdam")
	build := exec.Command(goTool, "build", "-o", drdam, "./cmd/drdam")
	build.Dir = filepath.Join("..", "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/drdam: %v\n%s", err, out)
	}
	const d, rows = 12, 700
	dir := filepath.Join(tmp, "shards")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var all []float64
	for i := range 8 {
		x := make([]float64, rows*d)
		for j := range x {
			x[j] = float64((j*31+i*17)%101) / 101 / math.Sqrt(d)
		}
		if err := npy.WriteFileFloat32(filepath.Join(dir, "part-"+string(rune('0'+i))+".npy"), []int{rows, d}, x); err != nil {
			t.Fatal(err)
		}
		m, err := dataio.ReadMatrix(filepath.Join(dir, "part-"+string(rune('0'+i))+".npy")) // the float32 values
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m.Data...)
	}
	whole := filepath.Join(tmp, "whole.npy")
	if err := npy.WriteFile(whole, []int{8 * rows, d}, all); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{
		{"--projection", "structured", "--y", "3000", "--beta", "30", "--seed", "5"},
		{"--projection", "gaussian", "--y", "2000", "--beta", "10", "--basis", "cos"},
	} {
		want, got := filepath.Join(tmp, "drdam.model"), filepath.Join(tmp, "beam.model")
		cmd := exec.Command(drdam, append([]string{"encode", "--patterns", whole, "--out", want}, flags...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("drdam encode %v: %v\n%s", flags, err, out)
		}
		if st, _, stderr := drdamBeam(t, append([]string{"encode", "--patterns", dir, "--out", got}, flags...)...); st != 0 {
			t.Fatalf("drdam-beam encode %v: status %d, %s", flags, st, stderr)
		}
		hw, err := dam.StatModel(want)
		if err != nil {
			t.Fatal(err)
		}
		hg, err := dam.StatModel(got)
		if err != nil {
			t.Fatal(err)
		}
		if hg.Config != hw.Config || hg.Count != hw.Count || hg.Count != 8*rows {
			t.Fatalf("%v: header %v (%d patterns), drdam encode's %v (%d)", flags, hg.Config, hg.Count, hw.Config, hw.Count)
		}
		mw, err := dam.Load(want)
		if err != nil {
			t.Fatal(err)
		}
		mg, err := dam.Load(got)
		if err != nil {
			t.Fatal(err)
		}
		rt := relDiff(mg.(*dam.DrDAM).T(nil), mw.(*dam.DrDAM).T(nil))
		t.Logf("%v: T differs by %.3g (relative)", flags, rt)
		if r := rt; r > 1e-12 {
			t.Errorf("%v: T differs from drdam encode's by %.3g (relative)", flags, r)
		}
		// Probes: stored patterns, half-way between two, and a far point.
		probes := append(append([]float64(nil), all[:2*d]...), all[5*rows*d : 6*rows*d][:d]...)
		for j := range d {
			probes = append(probes, (all[j]+all[3*rows*d+j])/2)
		}
		for j := range d {
			probes = append(probes, 0.5/math.Sqrt(d)*float64(j%3))
		}
		b := len(probes) / d
		ew, eg := make([]float64, b), make([]float64, b)
		gw, gg := make([]float64, b*d), make([]float64, b*d)
		if err := mw.EnergyGrad(ew, gw, probes); err != nil {
			t.Fatal(err)
		}
		if err := mg.EnergyGrad(eg, gg, probes); err != nil {
			t.Fatal(err)
		}
		if r := relDiff(eg, ew); r > 1e-10 {
			t.Errorf("%v: energies differ by %.3g (relative): %v, drdam encode's %v", flags, r, eg, ew)
		}
		if r := relDiff(gg, gw); r > 1e-10 {
			t.Errorf("%v: gradients differ by %.3g (relative)", flags, r)
		}
	}
}

// relDiff returns max|a−b| / max|b|.
func relDiff(a, b []float64) float64 {
	var diff, scale float64
	for i := range a {
		diff, scale = max(diff, abs(a[i]-b[i])), max(scale, abs(b[i]))
	}
	return diff / scale
}
