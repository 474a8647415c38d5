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
		i := x.Info()
		if slices.Contains(names, i.Name) {
			t.Errorf("%s is registered twice", i.Name)
		}
		names = append(names, i.Name)
		if y, ok := Lookup(i.Name); !ok || y != x {
			t.Errorf("Lookup(%q) = %v, %v", i.Name, y, ok)
		}
		if i.Summary == "" || strings.TrimSpace(i.Help) == "" || (i.Reproduce && i.Figure == "") {
			t.Errorf("%s: summary %q, help %q, figure %q", i.Name, i.Summary, i.Help, i.Figure)
		}
		checkParams(t, x)
		switch x := x.(type) {
		case *gridExperiment:
			checkGrid(t, x)
		case *completionExperiment:
			checkImages(t, i, x.images)
			if x.judge == nil {
				t.Errorf("%s: nothing to judge", i.Name)
			}
		case *sweepExperiment:
			checkImages(t, i, x.images)
			if len(x.sweep.Betas)*len(x.sweep.Ys) == 0 {
				t.Errorf("%s: nothing to sweep", i.Name)
			}
		case *compressionExperiment:
			checkImages(t, i, x.images)
			if len(x.compression.Ratios) == 0 {
				t.Errorf("%s: no ratios", i.Name)
			}
		case *missingExperiment:
			c := x.Params("quick").cfg.(*missingSpec)
			if len(c.Data) == 0 || len(c.Corruptions) == 0 || len(c.Betas) == 0 || len(c.DAMBetas) == 0 {
				t.Errorf("%s: nothing to measure: %+v", i.Name, c)
			}
		case *comparisonExperiment:
			if err := x.comparison.check(); err != nil {
				t.Errorf("%s: %v", i.Name, err)
			}
		default:
			t.Errorf("%s: unknown kind %T", i.Name, x)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup found nope")
	}
}

// checkParams checks the parameters of x at both scales: unique names,
// each with help, and each default reads back as itself.
func checkParams(t *testing.T, x Experiment) {
	for _, scale := range Scales() {
		ps := x.Params(scale)
		seen := map[string]bool{}
		for _, p := range ps.List() {
			if seen[p.Name] || p.Help == "" || p.Name == "" || strings.HasPrefix(p.Name, "-") {
				t.Errorf("%s %s: parameter %q twice, or without help", x.Info().Name, scale, p.Name)
			}
			seen[p.Name] = true
			if p.IsSet() {
				t.Errorf("%s %s: %s set before any Set", x.Info().Name, scale, p.Name)
			}
			if text := p.Default; text != "" {
				if err := p.Set(text); err != nil || p.String() != text {
					t.Errorf("%s %s: %s's default %q reads back as %q: %v", x.Info().Name, scale, p.Name, text, p.String(), err)
				}
			}
		}
	}
}

func checkImages(t *testing.T, i Info, s ImageSpec) {
	h, w, err := imageio.ParseSize(s.Size)
	if err == nil {
		_, err = s.mask(h, w)
	}
	if _, derr := s.drdam(); err != nil || derr != nil || i.Photos == "" {
		t.Errorf("%s: defaults %+v: %v, %v", i.Name, s, err, derr)
	}
}

func checkGrid(t *testing.T, x *gridExperiment) {
	if x.spec == nil || x.plan == nil || x.figures == nil || x.observe == nil || x.info.Context == "" {
		t.Errorf("%s: a grid experiment without spec, plan, figures, observations or context", x.info.Name)
		return
	}
	for _, scale := range Scales() {
		s := x.spec(scale)
		prec, err := s.precision()
		if err != nil || s.Experiment != x.info.Name || s.Scale != scale {
			t.Fatalf("%s %s: %+v: %v", x.info.Name, scale, s, err)
		}
		p, err := x.plan(s, prec, experiment.DefaultRates(), nil)
		if err != nil || len(p.Tasks) == 0 {
			t.Errorf("%s %s: plan %v", x.info.Name, scale, err)
		}
	}
}
