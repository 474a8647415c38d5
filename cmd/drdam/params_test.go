package main

import (
	"errors"
	"testing"

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
		{"seeds", "1e12", func() error { _, err := parseCount("--seeds", "1e12", 1, maxCount); return err }},
	} {
		err := paramUsage(x.Params("quick").Set(c.name, c.value))
		want := c.want()
		if err == nil || want == nil || err.Error() != want.Error() || !errors.As(err, new(usageError)) {
			t.Errorf("--%s %q: %v, want %v", c.name, c.value, err, want)
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
