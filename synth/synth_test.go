package synth

import (
	"math"
	"testing"
)

func TestBinary(t *testing.T) {
	const n, d = 1000, 12 // 4096 patterns exist: duplicates would be drawn often
	x, err := Binary(1, n, d)
	if err != nil {
		t.Fatal(err)
	}
	v := 1 / math.Sqrt(d)
	seen := map[string]bool{}
	ones := 0
	for r := range n {
		key := ""
		for _, u := range x[r*d : (r+1)*d] {
			switch u {
			case 0:
				key += "0"
			case v:
				key += "1"
				ones++
			default:
				t.Fatalf("row %d holds %v, not 0 or 1/√D", r, u)
			}
		}
		if seen[key] {
			t.Fatalf("row %d repeats an earlier pattern", r)
		}
		seen[key] = true
	}
	// Half the coordinates are 1/√D: 12000 fair bits, s.e. 55; 5 s.e.
	if math.Abs(float64(ones)-n*d/2) > 5*math.Sqrt(n*d/4) {
		t.Errorf("%d of %d coordinates are 1/√D", ones, n*d)
	}
	y, _ := Binary(1, n, d)
	z, _ := Binary(2, n, d)
	same := 0
	for i := range x {
		if x[i] != y[i] {
			t.Fatal("the same seed gave different patterns")
		}
		if x[i] == z[i] {
			same++
		}
	}
	if same == len(x) {
		t.Error("seeds 1 and 2 gave the same patterns")
	}
	if _, err := Binary(1, 17, 4); err == nil {
		t.Error("17 distinct patterns of dimension 4 accepted")
	}
}

func TestFlip(t *testing.T) {
	const n, d = 50, 40
	x, _ := Binary(3, n, d)
	y, err := Flip(4, x, d, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for r := range n {
		diff := 0
		for i := range d {
			if x[r*d+i] != y[r*d+i] {
				diff++
			}
		}
		if diff != 4 {
			t.Fatalf("row %d: %d coordinates flipped, want 4", r, diff)
		}
	}
	if _, err := Flip(4, x, d, 1.5); err == nil {
		t.Error("flip fraction 1.5 accepted")
	}
}
