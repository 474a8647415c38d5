package dam

import (
	"fmt"
	"math"
	"testing"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/cpuid"
)

// TestLevelsAgree evaluates the same models with every kernel level this
// machine supports (portable Go, AVX2, AVX-512): energies and gradients
// agree with the portable level's to 1e-11 relative (float64 rounding in
// another order), and the portable level agrees with the naive float64
// definitions of energy_test.go (TestEnergyMatchesNaive checks the best
// level the same way). The sizes cross several blocks and groups, and D, K,
// Y and B are not multiples of any panel or tile size.
func TestLevelsAgree(t *testing.T) {
	const d, k, b = 37, 29, 19
	xi, x := grayQueries(301, k, b, d, 0.3)
	defer cpuid.Set(cpuid.Current())
	var models []Model
	for _, sim := range []Similarity{L2, Dot} {
		models = append(models, mustMrDAM(t, Config{D: d, Beta: 20, Similarity: sim}, xi))
		for _, basis := range allBases {
			models = append(models, mustDrDAM(t, Config{D: d, Beta: 20, Y: 5003, Basis: basis, Seed: 2, Similarity: sim}, xi))
		}
	}
	for _, m := range models {
		cpuid.Set(cpuid.Portable)
		e0, g0 := energies(t, m, x)
		switch mm := m.(type) {
		case *MrDAM:
			if want := naiveMrEnergy(xi, x[:d], d, 20, mm.cfg.Similarity); math.Abs(e0[0]-want) > 1e-11*math.Max(1, math.Abs(want)) {
				t.Errorf("portable MrDAM %v: %v, naive %v", mm.cfg.Similarity, e0[0], want)
			}
		case *DrDAM:
			if want := naiveDrEnergy(mm, xi, x[:d]); math.Abs(e0[0]-want) > 1e-11*math.Max(1, math.Abs(want)) {
				t.Errorf("portable %v: %v, naive %v", mm.cfg, e0[0], want)
			}
		}
		for _, lv := range cpuid.Supported()[1:] {
			cpuid.Set(lv)
			e, g := energies(t, m, x)
			if r := relDiff(e, e0); r > 1e-11 {
				t.Errorf("%v %v: energies differ from the portable level by %.2g", lv, m.(Memory).Config(), r)
			}
			if r := relDiff(g, g0); r > 1e-10 {
				t.Errorf("%v %v: gradients differ from the portable level by %.2g", lv, m.(Memory).Config(), r)
			}
		}
	}
}

// TestFloat32 compares float32 models with float64 ones on the same inputs,
// at every kernel level. In float32 the phases h = √β·Σ_d W·x carry a
// rounding error of about u·√D·|h| (u = 6e-8, a random walk of D rounded
// products; |h| ≲ 30 here), a few 1e-6 at D = 200, which moves the kernel
// estimates and hence E = −(1/β) log s by about that much relative to s and
// the gradient by a little more (it divides by s). Measured up to D = 3072,
// β = 40: |ΔE| ≤ 4.4e-7 and ‖Δ∇E‖/‖∇E‖ ≤ 2.3e-5, the range the peers'
// README reports between float32 torch and the numpy oracle. The
// tolerances, 1e-5 on E and 3e-4 on the gradient, leave an order of
// magnitude and fail on any real error (a wrong term changes E by ≥ 1e-3).
func TestFloat32(t *testing.T) {
	const d, k, b = 200, 20, 17
	xi, x := grayQueries(311, k, b, d, 0.2)
	defer cpuid.Set(cpuid.Current())
	for _, lv := range cpuid.Supported() {
		cpuid.Set(lv)
		type pair struct {
			name     string
			m64, m32 Memory
		}
		pairs := []pair{{"MrDAM", mustMrDAM(t, Config{D: d, Beta: 30}, xi), mustMrDAM(t, Config{D: d, Beta: 30, Precision: Float32}, xi)}}
		for _, basis := range allBases {
			c := Config{D: d, Beta: 30, Y: 3000, Basis: basis, Seed: 3}
			m64 := mustDrDAM(t, c, xi)
			c.Precision = Float32
			pairs = append(pairs, pair{basis.String(), m64, mustDrDAM(t, c, xi)})
		}
		for _, p := range pairs {
			e64, g64 := energies(t, p.m64, x)
			e32, g32 := energies(t, p.m32, x)
			for q := range b {
				if de := math.Abs(e32[q] - e64[q]); de > 1e-5 {
					t.Errorf("%v %s query %d: float32 E %v, float64 %v", lv, p.name, q, e32[q], e64[q])
				}
				if r := relDiff(g32[q*d:(q+1)*d], g64[q*d:(q+1)*d]); r > 3e-4 {
					t.Errorf("%v %s query %d: float32 gradient off by %.2g relative", lv, p.name, q, r)
				}
			}
		}
	}
}

// TestAllocsLarge: a descent step allocates nothing, in both precisions and
// both representations, at sizes that use several blocks, groups and the
// worker pool (Y·D = 8·10⁵, B = 40).
func TestAllocsLarge(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const d, k, b = 100, 30, 40
	xi, x := grayQueries(321, k, k, d, 0.2)
	x = append(x, x[:(b-k)*d]...)
	for _, prec := range []Precision{Float32, Float64} {
		models := []Model{mustMrDAM(t, Config{D: d, Beta: 10, Precision: prec}, xi)}
		for _, basis := range allBases {
			models = append(models, mustDrDAM(t, Config{D: d, Beta: 10, Y: 8000, Basis: basis, Seed: 1, Precision: prec}, xi))
		}
		for _, m := range models {
			ds, err := NewDescent(m, RecallOptions{Step: 1e-3, MaxSteps: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if err := ds.Start(x); err != nil {
				t.Fatal(err)
			}
			ds.Step()
			if a := testing.AllocsPerRun(20, func() { ds.Step() }); a != 0 {
				t.Errorf("%v %T: %v allocations per step", prec, m, a)
			}
		}
	}
}

func ExampleConfig_precision() {
	c := Config{D: 64, Beta: 30, Y: 20000, Precision: Float32, Basis: features.SinCos}
	v, _ := c.Validate()
	fmt.Println(v)
	// Output: drdam D=64 β=30 l2 basis=sincos projection=gaussian Y=20000 (F=40000) seed=0 generator=v2 ε=1e-05 bias float32
}

// TestConcurrentEnergyGrad: models are safe for concurrent EnergyGrad
// calls (the second caller gets its own workspace; both share the worker
// pool), and concurrent results equal serial ones bit for bit. Run it with
// -race to check the claim.
func TestConcurrentEnergyGrad(t *testing.T) {
	const d, k, b = 24, 10, 9
	xi, x := grayQueries(331, k, b, d, 0.2)
	for _, m := range []Model{
		mustMrDAM(t, Config{D: d, Beta: 10}, xi),
		mustDrDAM(t, Config{D: d, Beta: 10, Y: 3000, Seed: 1, Precision: Float32}, xi),
		mustDrDAM(t, Config{D: d, Beta: 10, Y: 3000, Seed: 1, Basis: features.ExpExp}, xi),
	} {
		e0, g0 := energies(t, m, x)
		done := make(chan error, 4)
		for range 4 {
			go func() {
				for range 5 {
					e, g := make([]float64, b), make([]float64, b*d)
					if err := m.EnergyGrad(e, g, x); err != nil {
						done <- err
						return
					}
					if relDiff(e, e0) != 0 || relDiff(g, g0) != 0 {
						done <- fmt.Errorf("%T: a concurrent result differs from the serial one", m)
						return
					}
				}
				done <- nil
			}()
		}
		for range 4 {
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	}
}
