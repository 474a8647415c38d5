package metrics

import (
	"math"
	"testing"
)

func TestTQuantile(t *testing.T) {
	// Reference values from printed t tables (4 significant digits), so
	// a tolerance of 5e-4 relative covers their rounding.
	for _, c := range []struct {
		p    float64
		nu   int
		want float64
	}{
		{0.975, 1, 12.706}, {0.975, 2, 4.303}, {0.975, 4, 2.776}, {0.975, 30, 2.042},
		{0.995, 2, 9.925}, {0.95, 10, 1.812},
	} {
		if got := TQuantile(c.p, c.nu); math.Abs(got-c.want) > 5e-4*c.want {
			t.Errorf("TQuantile(%g, %d) = %.4f, want %.3f", c.p, c.nu, got, c.want)
		}
	}
}

func TestMeanInterval(t *testing.T) {
	// 1, 2, 3: mean 2, s = 1, s.e. 1/√3, t(0.975, 2) = 4.3027.
	iv := MeanInterval([]float64{1, 2, 3}, 0.95)
	h := 4.302653 / math.Sqrt(3)
	if iv.N != 3 || iv.Mean != 2 || math.Abs(iv.Lo-(2-h)) > 1e-5 || math.Abs(iv.Hi-(2+h)) > 1e-5 {
		t.Errorf("MeanInterval(1, 2, 3) = %+v, want 2 ± %.5f", iv, h)
	}
	if !iv.Above(-0.5) || iv.Above(0) || !iv.Below(4.5) || iv.Below(4) {
		t.Errorf("Above/Below wrong for %+v", iv)
	}
	if !iv.Within(-1, 5) || iv.Within(0, 5) || !iv.Outside(5, 6) || iv.Outside(3, 6) {
		t.Errorf("Within/Outside wrong for %+v", iv)
	}
	one := MeanInterval([]float64{7}, 0.95)
	if one.Mean != 7 || !math.IsInf(one.Lo, -1) || !math.IsInf(one.Hi, 1) || one.Above(0) || one.Below(100) {
		t.Errorf("one value: %+v, want an unbounded interval that decides nothing", one)
	}
	if none := MeanInterval(nil, 0.95); !math.IsNaN(none.Mean) || none.Above(0) {
		t.Errorf("no value: %+v", none)
	}
}
