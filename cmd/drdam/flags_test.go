package main

import (
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
)

// TestFlagErrors: a bad value of any flag gives a one-line usage error
// (status 2) that names the flag as it is typed (--name, never -name),
// quotes the value and says what was wanted; an empty value of a required
// path is refused before anything is opened.
func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		// counts defined with fs.Count, in the commands of this file's package
		{[]string{"demo", "--y", "1e12.5"}, []string{`--y "1e12.5": want a whole number`}},
		{[]string{"demo", "--d", "2.5"}, []string{`--d "2.5": want a whole number from 1 to`}},
		{[]string{"demo", "--k", "1e30"}, []string{`--k "1e30": out of range; want a whole number from 1 to 1073741824`}},
		{[]string{"demo", "--max-steps", "0"}, []string{`--max-steps "0": out of range`}},
		{[]string{"experiment", "energy-error", "--seeds", "x"}, []string{`--seeds "x": want a whole number`, "'drdam experiment energy-error --help'"}},
		// the flag package's Int, Float64 and Uint64, read by cli.Forms
		{[]string{"recall", "--max-steps", "1e12.5"}, []string{`--max-steps "1e12.5": want a whole number`}},
		{[]string{"compute", "--alpha", "abc"}, []string{`--alpha "abc": want a number`}},
		{[]string{"demo", "--seed", "-1"}, []string{`--seed "-1": want a whole number from 0 to 18446744073709551615`}},
		// encode's configuration flags: the codec's errors (dam.Config.Set)
		{[]string{"encode", "--y", "1e12.5"}, []string{`--y: want a whole number from 0 to 1073741824, found "1e12.5"`}},
		{[]string{"encode", "--y", "1e12"}, []string{`--y: out of range; want a whole number from 0 to 1073741824, found "1e12"`}},
		{[]string{"encode", "--y", "-3"}, []string{`--y: out of range`}},
		{[]string{"encode", "--beta", "abc"}, []string{`--beta: want a number, found "abc"`}},
		{[]string{"encode", "--seed", "-1"}, []string{`--seed: want a whole number from 0 to 18446744073709551615, found "-1"`}},
		{[]string{"encode", "--basis", "sine"}, []string{`--basis: unknown basis "sine"`}},
		// numbers
		{[]string{"demo", "--beta", "abc"}, []string{`--beta "abc": want a number > 0`}},
		{[]string{"demo", "--beta", "-1"}, []string{`--beta "-1": want a number > 0`}},
		{[]string{"demo", "--beta", "inf"}, []string{`--beta "inf": want a number > 0`}},
		{[]string{"recall", "--model", "m.drdam", "--queries", "q.csv", "--out", "o.npy", "--step", "-0.1"}, []string{`--step "-0.1": want a number > 0`}},
		{[]string{"demo", "--flip", "2"}, []string{`--flip "2": want a number from 0 to 1`}},
		{[]string{"demo", "--tol", "-1"}, []string{`--tol "-1": want a number ≥ 0`}},
		// lists name the flag, the list and the element
		{[]string{"demo", "--y", "1000,x"}, []string{`--y "1000,x": element 2, "x": want a whole number`}},
		{[]string{"experiment", "fig4b", "--betas", "10,x"}, []string{`--betas "10,x": element 2, "x": want a number > 0`}},
		{[]string{"experiment", "energy-error", "--d", ""}, []string{`--d "": empty list`}},
		// the flag package's own messages, with two dashes
		{[]string{"demo", "--bogus"}, []string{"unknown flag --bogus"}},
		{[]string{"demo", "--y"}, []string{"--y needs a value"}},
		{[]string{"encode", "--on-demand=maybe"}, []string{`--on-demand: want true or false, found "maybe" (a bare --on-demand means true`}},
		// empty values of required (or refused-empty) paths
		{[]string{"info", "--model", ""}, []string{"--model: empty path"}},
		{[]string{"encode", "--patterns", "", "--out", "m"}, []string{"--patterns: empty path"}},
		{[]string{"bench", "--config", "", "--phase", "dr_eg"}, []string{"--config: empty value"}},
		{[]string{"experiment", "energy-error", "--out", ""}, []string{"--out: empty path"}},
	} {
		st, out, errOut := drdam(t, c.args...)
		line := strings.Join(c.args, " ")
		if st != 2 || out != "" {
			t.Errorf("drdam %s: status %d, stdout %q; want 2 and nothing", line, st, out)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("drdam %s: error is not one line: %q", line, errOut)
		}
		if strings.Contains(errOut, " -"+strings.TrimPrefix(c.args[len(c.args)-1], "--")+" ") {
			t.Errorf("drdam %s: error names a flag with one dash: %q", line, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("drdam %s: error %q does not contain %q", line, errOut, w)
			}
		}
	}
}

// TestCountForms: a count may be written as users type it (20000, 2e4,
// 20_000, 2.0e4) when it is a whole number; the value is then the same.
func TestCountForms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"20000", 20000, true},
		{"2e4", 20000, true},
		{"20_000", 20000, true},
		{"2.0e4", 20000, true},
		{" 7 ", 7, true},
		{"1e9", 1e9, true},
		{"2e4.5", 0, false},
		{"2.5", 0, false},
		{"0x10", 0, false}, // not a count as users write it
		{"_1", 0, false},
		{"nan", 0, false},
		{"1e300", 0, false},
		{"99999999999999999999", 0, false},
		{"0", 0, false}, // below the range [1, maxCount]
		{"1073741825", 0, false},
	} {
		fs := newFlags("t", "", "")
		v := fs.Count("y", 0, 1, maxCount, "")
		err := fs.parse(&env{}, []string{"--y", c.in})
		if (err == nil) != c.ok || *v != c.want {
			t.Errorf("--y %q: %d, %v; want %d, ok %v", c.in, *v, err, c.want, c.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), `--y "`+c.in+`": `) {
			t.Errorf("--y %q: error %q does not name --y and the value", c.in, err)
		}
	}
}

// TestVersionFlag: --version, -version and -v print what `drdam version`
// prints.
func TestVersionFlag(t *testing.T) {
	want := mustRun(t, "version")
	if !strings.HasPrefix(want, "drdam ") {
		t.Fatalf("drdam version: %q", want)
	}
	for _, a := range []string{"--version", "-version", "-v"} {
		if got := mustRun(t, a); got != want {
			t.Errorf("drdam %s: %q, want %q", a, got, want)
		}
	}
}

// TestConfigFileErrors: a bad value read from a --config file (which the
// flags do not check) is reported naming the one flag it stands for,
// not a list of five.
func TestConfigFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		json, want string
	}{
		{`{"experiment":"retrieval-error","scale":"quick","precision":"float64","basis":"sincos","projection":"gaussian","flip":0.1,"seeds":1,"d":[30],"k":[10],"beta":[10],"y":[100],"step":0.03,"max_steps":0,"tol":1e-8}`, "--steps 0: want at least 1"},
		{`{"experiment":"retrieval-error","scale":"quick","precision":"float64","basis":"sincos","projection":"gaussian","flip":0.1,"seeds":1,"d":[30],"k":[10],"beta":[10],"y":[100],"step":-1,"max_steps":10,"tol":1e-8}`, "--step -1: want a number > 0"},
	} {
		cfg := writeCSV(t, dir, "config.json", c.json)
		st, _, errOut := drdam(t, "experiment", "retrieval-error", "--config", cfg, "--estimate")
		if st != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "--tol") {
			t.Errorf("--config %s: status %d, %q; want 2 and %q alone", c.json, st, errOut, c.want)
		}
	}
	// complete: the image settings are checked flag by flag too.
	st, _, errOut := drdam(t, "complete", "--images", dir, "--steps", "0")
	if st != 2 || !strings.Contains(errOut, `--steps "0": out of range`) {
		t.Errorf("complete --steps 0: status %d, %q", st, errOut)
	}
}

// TestEncodeHelpFields: drdam encode --help names every field of the
// codec (dam.Fields): as its flag where they are equal, else in the
// flag's help as `config field "no_bias"`.
func TestEncodeHelpFields(t *testing.T) {
	st, out, _ := drdam(t, "encode", "--help")
	if st != 0 {
		t.Fatalf("encode --help: status %d", st)
	}
	for _, f := range dam.Fields() {
		if !strings.Contains(out, "  --"+f.Name+" ") && !strings.Contains(out, `(config field "`+f.Name+`")`) {
			t.Errorf("encode --help does not name the field %s", f.Name)
		}
	}
}
