package paper

import (
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/imageio"
)

// TestRegistry walks the registry: names are unique and found by Lookup,
// every experiment says what it is, and its defaults are valid for its
// kind. A grid experiment's Spec plans at both scales (nothing is run); an
// image experiment's size and occlusion parse; a comparison's grid
// checks. What the command offers (flags, --help) walks the same registry
// in cmd/drdam's tests, and drdam reproduce runs the experiments marked
// Reproduce.
func TestRegistry(t *testing.T) {
	var names []string
	for _, x := range All() {
		if slices.Contains(names, x.Name) {
			t.Errorf("%s is registered twice", x.Name)
		}
		names = append(names, x.Name)
		if y, ok := Lookup(x.Name); !ok || y != x {
			t.Errorf("Lookup(%q) = %v, %v", x.Name, y, ok)
		}
		if x.Summary == "" || strings.TrimSpace(x.Help) == "" || (x.Reproduce && x.Figure == "") {
			t.Errorf("%s: summary %q, help %q, figure %q", x.Name, x.Summary, x.Help, x.Figure)
		}
		switch x.Kind {
		case KindGrid:
			checkGrid(t, x)
		case KindCompletion, KindSweep, KindCompression:
			s := x.Images
			h, w, err := imageio.ParseSize(s.Size)
			if err == nil {
				_, err = s.mask(h, w)
			}
			if _, derr := s.drdam(); err != nil || derr != nil || x.Photos == "" {
				t.Errorf("%s: defaults %+v: %v, %v", x.Name, s, err, derr)
			}
			if x.Kind == KindCompletion && x.Judge == nil || x.Kind == KindSweep && len(x.Sweep.Betas)*len(x.Sweep.Ys) == 0 ||
				x.Kind == KindCompression && len(x.Compression.Ratios) == 0 {
				t.Errorf("%s: nothing to judge or sweep", x.Name)
			}
		case KindComparison:
			if err := x.Comparison.check(); err != nil {
				t.Errorf("%s: %v", x.Name, err)
			}
		default:
			t.Errorf("%s: unknown kind %d", x.Name, x.Kind)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup found nope")
	}
}

func checkGrid(t *testing.T, x *Experiment) {
	if x.Spec == nil || x.Plan == nil || x.Figures == nil || x.Observe == nil || x.Context == "" {
		t.Errorf("%s: a grid experiment without spec, plan, figures, observations or context", x.Name)
		return
	}
	for _, scale := range Scales {
		s := x.Spec(scale)
		prec, err := s.precision()
		if err != nil || s.Experiment != x.Name || s.Scale != scale {
			t.Fatalf("%s %s: %+v: %v", x.Name, scale, s, err)
		}
		p, err := x.Plan(s, prec, experiment.DefaultRates(), nil)
		if err != nil || len(p.Tasks) == 0 {
			t.Errorf("%s %s: plan %v", x.Name, scale, err)
		}
	}
}
