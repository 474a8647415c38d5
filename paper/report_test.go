package paper

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReport checks the report of a (tiny) grid run: a summary row per
// finding, each finding's verdict, the figures and a statement wherever a
// claim does not hold.
func TestReport(t *testing.T) {
	p := energyError.Params("quick")
	for name, v := range map[string]string{"d": "16", "k": "10", "beta": "5,10", "y": "100,200"} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	res, err := energyError.Run(context.Background(), p, filepath.Join(t.TempDir(), "energy-error"), Observer{})
	if err != nil {
		t.Fatal(err)
	}
	res.Findings[0].Verdict = DoesNotHold // as a report would show it
	rep := Report([]*Result{res}, "quick", "test", Machine{Host: "h", CPU: "c", Cores: 2}, time.Minute)
	for _, want := range []string{"| energy-error | Obs. 1 |", "| energy-error | Obs. 3 |", "**Differs from the paper (Obs. 1):**",
		"![fig3-energy](energy-error/fig3-energy.png)", "Rerun: `drdam experiment energy-error", "were not run"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
}
