package main

import (
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/drdam/drdam/internal/cli"
	"github.com/drdam/drdam/paper"
)

// TestParamFlagErrors: a value that an experiment's parameter refuses is
// reported as the command's own flags report theirs (parseCounts,
// parsePositives, Count), naming the flag.
func TestParamFlagErrors(t *testing.T) {
	x, _ := paper.Lookup("energy-error")
	for _, c := range []struct {
		name, value string
		want        func() error
	}{
		{"beta", "1,x", func() error { _, err := parsePositives("--beta", "1,x"); return err }},
		{"beta", "-2", func() error { _, err := parsePositives("--beta", "-2"); return err }},
		{"d", "16,0", func() error { _, err := parseCounts("--d", "16,0"); return err }},
		{"y", "", func() error { _, err := parseCounts("--y", ""); return err }},
		{"seeds", "1e12", func() error {
			var n int
			fs := flag.NewFlagSet("experiment", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Var(cli.Count{P: &n, Min: 1, Max: cli.MaxCount}, "seeds", "")
			return usageError{cli.Message(fs, fs.Parse([]string{"--seeds", "1e12"}))}
		}},
	} {
		want := c.want()
		err := paramUsage(x.Params("quick").Set(c.name, c.value))
		if err == nil || want == nil || err.Error() != want.Error() || !errors.As(err, new(usageError)) {
			t.Errorf("--%s %q: %v, want %v", c.name, c.value, err, want)
		}
		// The command's own path: the flag bound by bindParams.
		f := newFlags("experiment", "", "")
		f.SetOutput(io.Discard)
		bindParams(f, x.Params("quick"))
		err = f.Parse([]string{"--" + c.name, c.value})
		if got := cli.Message(f.FlagSet, err); err == nil || got != want.Error() {
			t.Errorf("--%s %q through the flag: %v, want %v", c.name, c.value, got, want)
		}
	}
}

// TestFlagNames: the parameters a message of package paper names become
// flags.
func TestFlagNames(t *testing.T) {
	got := flagNames(`exclusive with parameter "betas"; parameter "tiny-imagenet" too`)
	if want := "exclusive with --betas; --tiny-imagenet too"; got != want {
		t.Errorf("flagNames: %q, want %q", got, want)
	}
}
