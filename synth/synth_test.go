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

// TestGray: values in [0, 1/√d), the same for the same seed, a prefix for
// fewer rows, and a mean near the uniform's 1/(2√d) (600 values: the
// standard error of the mean is 1/√(12·600)/√d ≈ 0.012/√d, so 0.05/√d is
// four of them).
func TestGray(t *testing.T) {
	const n, d = 20, 30
	x, err := Gray(3, n, d)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := Gray(3, n/2, d)
	top := 1 / math.Sqrt(d)
	var mean float64
	for i, v := range x {
		if !(v >= 0 && v < top) {
			t.Fatalf("value %d = %v outside [0, %v)", i, v, top)
		}
		if i < len(y) && y[i] != v {
			t.Fatalf("10 rows are not a prefix of 20 at %d", i)
		}
		mean += v / (n * d)
	}
	if math.Abs(mean-top/2) > 0.05*top {
		t.Errorf("mean %v, want about %v", mean, top/2)
	}
	if _, err := Gray(1, 0, 3); err == nil {
		t.Error("n = 0 accepted")
	}
}
