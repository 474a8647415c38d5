package main

import (
	"encoding/json"
	"io"

	"github.com/drdam/drdam/serve"
)

// jsonFlag adds --json to fs: the command's summary printed as one JSON
// object on standard output instead of its text, for scripts.
func jsonFlag(fs *flags) *bool {
	return fs.Bool("json", false, "print the summary as one JSON object on standard output instead of text (for scripts)")
}

// printJSON writes v as one line of JSON.
func printJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// infoJSON is drdam info --json: the model file, its configuration as the
// service gives it, and its sizes.
type infoJSON struct {
	File          string       `json:"file"`
	Bytes         int64        `json:"bytes"`
	FormatVersion int          `json:"format_version"`
	Config        serve.Config `json:"config"` // as GET /v1/memories/{name} gives it
	Patterns      uint64       `json:"patterns"`
	TValues       int          `json:"t_values,omitempty"` // DrDAM: the values of T
	PatternValues float64      `json:"pattern_values"`     // K·D
	LoadBytes     float64      `json:"load_bytes"`         // the memory loading it takes
	LoadLargest   string       `json:"load_largest"`       // its largest part
	BudgetBytes   int64        `json:"budget_bytes"`       // the default memory budget
}

// descentJSON is the summary of drdam recall --json and drdam complete
// --json: how the queries' descents ended.
type descentJSON struct {
	Queries          int64   `json:"queries"`
	Converged        int64   `json:"converged"`
	MaxSteps         int64   `json:"max_steps"` // stopped at the step limit
	Stalled          int64   `json:"stalled"`   // at a DrDAM's clip floor
	Tol              float64 `json:"tol"`
	StepLimit        int     `json:"step_limit"`
	StepsMean        float64 `json:"steps_mean"`
	StepsMax         int     `json:"steps_max"`
	MeanEnergyChange float64 `json:"mean_energy_change"`
	Out              string  `json:"out"`
}

// energyJSON is drdam energy --json: the energies (unless written to
// --out) and the rows (from 1) under a DrDAM's clip floor.
type energyJSON struct {
	Queries  int       `json:"queries"`
	Energies []float64 `json:"energies,omitempty"`
	Out      string    `json:"out,omitempty"`
	Floored  []int     `json:"floored_rows"`
}
