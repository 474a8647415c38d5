package paper

import (
	"context"
	"io"
	"strings"
)

// Experiment is one of the paper's experiments (or drdam's own): what it
// is, its parameters at a scale, and how it runs. Each kind of experiment
// implements it in the file that defines the kind: grids of configurations
// (grid.go), image completions (images.go), a completion over β × Y
// (sweep.go), completions over the size of T (compression.go), the
// comparison of projections (projections.go) and completion against the
// baselines users reach for (missing.go).
type Experiment interface {
	// Info says what the experiment is, for the command, drdam reproduce
	// and the report.
	Info() Info
	// Params returns its parameters with their defaults at scale ("quick"
	// or "paper"; see Scales), ready to be set.
	Params(scale string) *Params
	// Run runs the experiment with p (made by its Params) into dir,
	// reporting to obs, and returns what it measured. It stops, with
	// ctx's error, soon after ctx is cancelled; the experiments that
	// resume (the grids) go on from what is done when run again into dir.
	// A parameter out of range is a *ParamError.
	Run(ctx context.Context, p *Params, dir string, obs Observer) (*Result, error)
}

// Info describes an experiment.
type Info struct {
	Name    string // as the command spells it: drdam experiment NAME
	Figure  string // the paper's figure, e.g. "Fig. 3"; "" for drdam's own
	Summary string // one line for the list of experiments
	Help    string // what it does and measures, for its --help
	// Context says, for the report, what the paper reports and what the
	// quick grid leaves out.
	Context string
	// Reproduce is set for the experiments that drdam reproduce runs and
	// reports, in the order of the registry.
	Reproduce bool
	// Deviations lists, one Markdown line each, where the experiment
	// differs from the paper or its reference code, with the measured
	// effect; findings.md and the report print them.
	Deviations []string
	// Photos names the shared photos (a folder, or a CIFAR-10 batch ending
	// in .bin, under SharedPhotos) it reads by default; "" for none.
	Photos string
}

// Available reports whether the experiment can run with its defaults
// here: when it reads no photos by default, or they are present.
func (i Info) Available() bool { return i.Photos == "" || Photos(i.Photos) != "" }

// Observer receives what a run reports as it goes. Its fields may be nil.
type Observer struct {
	// Progress reports done of total units of work (estimated seconds, or
	// completions), with the label of the work under way.
	Progress func(done, total float64, label string)
	// Log receives lines about the run: its plan, warnings.
	Log io.Writer
}

// progress reports to o.Progress, if set.
func (o Observer) progress(done, total float64, label string) {
	if o.Progress != nil {
		o.Progress(done, total, label)
	}
}

// log returns o.Log, or a writer that discards.
func (o Observer) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// registry lists every experiment, in the order drdam reproduce runs
// them. Adding an experiment is a file that defines it and a line here.
var registry = []Experiment{
	energyError, errorVsK, basisAblation, retrievalError,
	theorem1,
	fig1, fig2, compression, fig4b,
	projections,
	breakEven,
	completion,
}

// All returns every experiment of the registry, in the order drdam
// reproduce runs them.
func All() []Experiment { return registry }

// Lookup returns the experiment called name.
func Lookup(name string) (Experiment, bool) {
	for _, x := range registry {
		if x.Info().Name == name {
			return x, true
		}
	}
	return nil, false
}

// Scales returns the scales every experiment offers: quick (minutes) and
// paper (the paper's grids).
func Scales() []string { return []string{"quick", "paper"} }

// capitalized returns s with its first letter in upper case.
func capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
