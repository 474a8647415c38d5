package plots_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/drdam/drdam/plots"
)

// Example draws two log-log panels of an error against the number of
// random features Y, one line per β with error bars and a fitted Y^(-1/2)
// curve, under a random-guess baseline, and saves the figure as PNG and
// SVG.
func Example() {
	ys := []float64{1e2, 1e3, 1e4, 1e5}
	panel := func(d int) plots.Panel {
		p := plots.Panel{
			Title:  fmt.Sprintf("D = %d", d),
			XLabel: "random features Y", YLabel: "energy MAE",
			LogX: true, LogY: true,
			HLines: []plots.HLine{{Label: "random guess", Y: 1}},
		}
		for i, beta := range []float64{1, 10, 30} {
			var mae, stderr, fit []float64
			for _, y := range ys {
				c := beta / math.Sqrt(float64(d))
				mae = append(mae, c/math.Sqrt(y))
				stderr = append(stderr, 0.2*c/math.Sqrt(y))
				fit = append(fit, 1.1*c/math.Sqrt(y))
			}
			label := fmt.Sprintf("β = %g", beta)
			p.Series = append(p.Series,
				plots.Series{Label: label, X: ys, Y: mae, Err: stderr, Style: i},
				plots.Series{Label: "fit, " + label, X: ys, Y: fit, Style: i, Dashed: true},
			)
		}
		return p
	}
	fig := &plots.Figure{
		Title:  "Energy error against Y",
		Rows:   1,
		Cols:   2,
		Panels: []plots.Panel{panel(16), panel(64)},
		ShareY: true,
	}

	dir, err := os.MkdirTemp("", "plots-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := fig.SaveAll(filepath.Join(dir, "energy")); err != nil {
		log.Fatal(err)
	}
	fmt.Println("ok")
	// Output: ok
}
