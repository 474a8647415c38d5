package datasets

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNormalizeUnitBox(t *testing.T) {
	for _, tc := range []struct {
		name   string
		x      []float64
		d      int
		want   []float64
		lo, hi float64
	}{
		// Global min 0 and max 4, √4 = 2: (x − 0)/(4·2).
		{"2×4", []float64{0, 1, 2, 4, 4, 3, 2, 1}, 4, []float64{0, 0.125, 0.25, 0.5, 0.5, 0.375, 0.25, 0.125}, 0, 4},
		// Min −1, max 3: (x + 1)/4, d = 1.
		{"column", []float64{-1, 3, 1}, 1, []float64{0, 1, 0.5}, -1, 3},
		// Global, not per column: column 2 does not reach the maximum.
		{"global", []float64{0, 1, 16, 1}, 2, []float64{0, 1.0 / 16 / math.Sqrt2, 1 / math.Sqrt2, 1.0 / 16 / math.Sqrt2}, 0, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := make([]float64, len(tc.x))
			lo, hi, err := NormalizeUnitBox(dst, tc.x, tc.d)
			if err != nil {
				t.Fatal(err)
			}
			if lo != tc.lo || hi != tc.hi {
				t.Errorf("lo, hi = %v, %v; want %v, %v", lo, hi, tc.lo, tc.hi)
			}
			for k := range dst {
				if math.Abs(dst[k]-tc.want[k]) > 1e-15 {
					t.Errorf("got %v, want %v", dst, tc.want)
					break
				}
			}
			// In place.
			x := slices.Clone(tc.x)
			if _, _, err := NormalizeUnitBox(x, x, tc.d); err != nil || !slices.Equal(x, dst) {
				t.Errorf("in place: %v, %v; want %v", x, err, dst)
			}
		})
	}

	// The Letter data: every entry in [0, 1/√16], both ends reached, and
	// no two rows more than 1 apart (checked on the first 300 rows).
	x, _, err := Letter()
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, err := NormalizeUnitBox(x.Data, x.Data, x.Cols)
	if err != nil || lo != 0 || hi != 15 {
		t.Fatalf("Letter: lo, hi = %v, %v, %v; want 0, 15", lo, hi, err)
	}
	if mn, mx := slices.Min(x.Data), slices.Max(x.Data); mn != 0 || mx != 0.25 {
		t.Errorf("Letter normalized into [%v, %v], want [0, 0.25]", mn, mx)
	}
	for i := range 300 {
		for k := range i {
			var s float64
			for j := range 16 {
				d := x.Data[i*16+j] - x.Data[k*16+j]
				s += d * d
			}
			if s > 1 {
				t.Fatalf("rows %d and %d are %v apart", k, i, math.Sqrt(s))
			}
		}
	}

	// An awkward range: the result stays within [0, 1/√d] exactly.
	y := []float64{0.1, 0.7, 0.3, 1.0 / 3, 0.7, 0.1}
	if _, _, err := NormalizeUnitBox(y, y, 3); err != nil {
		t.Fatal(err)
	}
	if s := 1 / math.Sqrt(3); slices.Max(y) != s || slices.Min(y) != 0 {
		t.Errorf("normalized into [%v, %v], want [0, %v]", slices.Min(y), slices.Max(y), s)
	}
}

func TestNormalizeUnitBoxErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dst, x []float64
		d      int
		want   string
	}{
		{"constant", make([]float64, 4), []float64{2, 2, 2, 2}, 2, "NormalizeUnitBox: all 4 values are 2; the range max − min is 0"},
		{"NaN", make([]float64, 4), []float64{1, 2, math.NaN(), 4}, 2, "NormalizeUnitBox: row 2, column 1: NaN is not finite"},
		{"Inf", make([]float64, 3), []float64{1, math.Inf(-1), 3}, 3, "NormalizeUnitBox: row 1, column 2: -Inf is not finite"},
		{"overflow", make([]float64, 2), []float64{-math.MaxFloat64, math.MaxFloat64}, 2, "NormalizeUnitBox: the range max − min = 1.7976931348623157e+308 − (-1.7976931348623157e+308) overflows float64"},
		{"d = 0", nil, nil, 0, "NormalizeUnitBox: dimension d = 0, want d > 0"},
		{"empty", nil, nil, 2, "NormalizeUnitBox: no data"},
		{"ragged", make([]float64, 3), []float64{1, 2, 3}, 2, "NormalizeUnitBox: len(x) = 3 is not a multiple of d = 2"},
		{"short dst", make([]float64, 1), []float64{1, 2}, 2, "NormalizeUnitBox: len(dst) = 1, want len(x) = 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.dst)
			_, _, err := NormalizeUnitBox(tc.dst, tc.x, tc.d)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if !slices.Equal(tc.dst, before) {
				t.Errorf("dst changed to %v", tc.dst)
			}
		})
	}
}

func TestUnique(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, tc := range []struct {
		name string
		x    []float64
		d    int
		want []int
	}{
		{"empty", nil, 2, nil},
		{"one row", []float64{1, 2}, 2, []int{0}},
		{"duplicates", []float64{
			1, 2, // 0
			3, 4, // 1
			1, 2, // 2: as 0
			2, 1, // 3
			3, 4, // 4: as 1
			1, 3, // 5
		}, 2, []int{0, 1, 3, 5}},
		{"all the same", []float64{7, 7, 7}, 1, []int{0}},
		{"minus zero", []float64{0, 1, negZero, 1, 0, negZero}, 2, []int{0, 2}},
		{"columns", []float64{1, 2, 1, 2, 1, 2}, 3, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unique(tc.x, tc.d); !slices.Equal(got, tc.want) {
				t.Errorf("Unique = %v, want %v", got, tc.want)
			}
		})
	}
	for _, d := range []int{0, -1, 2} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "datasets.Unique") {
					t.Errorf("d = %d: recovered %v, want a panic naming datasets.Unique", d, r)
				}
			}()
			Unique([]float64{1, 2, 3}, d)
		}()
	}
}
