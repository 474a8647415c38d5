package paper

import (
	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/plots"
)

// Kind says how an experiment runs: its parameters (the command's flags)
// and its outputs.
type Kind int

// The kinds of experiment.
const (
	// KindGrid experiments measure a grid of configurations (a Spec) as a
	// resumable plan (PrepareGrid): points.csv, figures, findings.md,
	// config.json.
	KindGrid Kind = iota + 1
	// KindCompletion experiments complete occluded images with MrDAM and
	// DrDAM (an ImageSpec, RunCompletion): grid.png, the energy traces,
	// rmse.csv, findings.md.
	KindCompletion
	// KindSweep experiments complete one occluded image over a grid of β × Y
	// (an ImageSpec and a SweepSpec, RunSweep): grid.png, rmse.txt,
	// findings.md.
	KindSweep
	// KindComparison experiments compare projection kinds on the set-up of
	// §4.1 (a ComparisonSpec, RunComparison): points.csv, table.md.
	KindComparison
	// KindCompression experiments complete occluded images with DrDAMs
	// whose T ranges over sizes relative to the memory matrix (an
	// ImageSpec and a CompressionSpec, RunCompression): curve.png and
	// .svg, table.md, rmse.csv, findings.md.
	KindCompression
)

// Experiment is one entry of the registry: one of the paper's experiments
// (or drdam's own), with everything the command, drdam reproduce and the
// report need to know about it.
type Experiment struct {
	Name    string // as the command spells it: drdam experiment NAME
	Figure  string // the paper's figure, e.g. "Fig. 3"; "" for drdam's own
	Summary string // one line for the list of experiments
	Help    string // what it does and measures, for its --help
	// Context says, for the report, what the paper reports and what the
	// quick grid leaves out.
	Context string
	Kind    Kind
	// Reproduce is set for the experiments that drdam reproduce runs and
	// reports, in the order of the registry.
	Reproduce bool
	// Deviations lists, one Markdown line each, where the experiment
	// differs from the paper or its reference code, with the measured
	// effect; findings.md and the report print them.
	Deviations []string

	// Grid experiments. Spec returns the grid at a scale ("quick" or
	// "paper"); Plan turns a Spec into the plan of what is not done;
	// Figures draws the rows, by file base name; Observe checks the
	// paper's claims against them. EstimateNote qualifies the estimated
	// run time.
	Spec func(scale string) Spec
	// FlagNotes replaces the generic help of a grid flag (by flag name,
	// without dashes) where the experiment reads the flag its own way.
	FlagNotes    map[string]string
	Plan         func(s Spec, prec dam.Precision, rates experiment.Rates, done func(experiment.Key) bool) (*experiment.Plan, error)
	Figures      func(rows []experiment.Row) map[string]*plots.Figure
	Observe      func(rows []experiment.Row) []Finding
	EstimateNote string

	// Completion and Sweep experiments. Images are the defaults of their
	// ImageSpec; Photos names the shared photos (a folder, or a CIFAR-10
	// batch ending in .bin) they read by default (see ImageDefaults);
	// Judge checks the paper's claims on a completion's runs over its
	// seeds, the default descent first (Completion experiments).
	Images ImageSpec
	Photos string
	Judge  func(c *Completion, runs []*Runs) []Finding
	// Sweep experiments: the defaults of the grid of β × Y.
	Sweep SweepSpec
	// Compression experiments: the sizes of T.
	Compression CompressionSpec
	// Comparison experiments: the defaults of the grid.
	Comparison ComparisonSpec
}

// registry lists every experiment, in the order drdam reproduce runs
// them. Adding an experiment is a file that defines it and a line here.
var registry = []*Experiment{
	energyError, errorVsK, basisAblation, retrievalError,
	theorem1,
	fig1, fig2, compression, fig4b,
	projections,
	breakEven,
}

// All returns every experiment of the registry, in the order drdam
// reproduce runs them.
func All() []*Experiment { return registry }

// Lookup returns the experiment called name.
func Lookup(name string) (*Experiment, bool) {
	for _, x := range registry {
		if x.Name == name {
			return x, true
		}
	}
	return nil, false
}

// Scales are the grids every grid experiment offers.
var Scales = []string{"quick", "paper"}
