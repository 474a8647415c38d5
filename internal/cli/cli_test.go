package cli

import (
	"errors"
	"flag"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
)

func parse(t *testing.T, args ...string) *Encode {
	t.Helper()
	fs := flag.NewFlagSet("encode", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	e := EncodeFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return e
}

// TestEncodeConfig: the defaults are drdam encode's, every flag reaches its
// field, and the paths and the budget are kept.
func TestEncodeConfig(t *testing.T) {
	e := parse(t)
	c, err := e.Config()
	if err != nil {
		t.Fatal(err)
	}
	want := dam.Config{Rep: dam.RepDrDAM, Similarity: dam.L2, Precision: dam.Float64, Beta: 10, Y: 20000,
		Basis: features.SinCos, Projection: features.Gaussian, Generator: features.DefaultGenerator}
	if c != want {
		t.Errorf("defaults: %+v, want %+v", c, want)
	}
	e = parse(t, "--patterns", "p.npy", "--out", "m.drdam", "--beta", "30", "--similarity", "dot", "--basis", "expexp",
		"--y", "500", "--projection", "structured", "--seed", "7", "--generator", "1", "--no-bias", "--eps", "0.01",
		"--precision", "float32", "--max-memory", "2GiB", "--on-demand")
	c, err = e.Config()
	if err != nil {
		t.Fatal(err)
	}
	want = dam.Config{Rep: dam.RepDrDAM, Similarity: dam.Dot, Precision: dam.Float32, Beta: 30, Y: 500, Basis: features.ExpExp,
		Projection: features.Structured, Seed: 7, Generator: 1, NoBias: true, Epsilon: 0.01, OnDemand: true, MaxMemory: 2 << 30}
	if c != want || e.Patterns != "p.npy" || e.Out != "m.drdam" {
		t.Errorf("flags: %+v (%q, %q), want %+v", c, e.Patterns, e.Out, want)
	}
	e = parse(t, "--rep", "mrdam", "--beta", "3")
	if c, err = e.Config(); err != nil || c.Rep != dam.RepMrDAM || c.Beta != 3 {
		t.Errorf("mrdam: %+v, %v", c, err)
	}
}

// TestEncodeConfigErrors: each error names its flag as typed.
func TestEncodeConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rep", "x"}, `--rep: unknown representation "x"`},
		{[]string{"--similarity", "cosine"}, `--similarity: unknown similarity "cosine"`},
		{[]string{"--precision", "half"}, `--precision: unknown precision "half"`},
		{[]string{"--basis", "sine"}, `--basis: unknown basis "sine"`},
		{[]string{"--projection", "x"}, `--projection: `},
		{[]string{"--no-bias=maybe"}, `--no-bias: want true or false, found "maybe" (a bare --no-bias means true`},
		{[]string{"--max-memory", "lots"}, `--max-memory: want a size such as 8GiB`},
	} {
		fs := flag.NewFlagSet("encode", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		EncodeFlags(fs)
		err := fs.Parse(tc.args)
		if err == nil || !strings.HasPrefix(Message(fs, err), tc.want) {
			t.Errorf("%v: err = %v, want it to start with %q", tc.args, err, tc.want)
		}
	}
	// A DrDAM-only flag with --rep mrdam, in either order: the error
	// names it.
	for _, args := range [][]string{{"--rep", "mrdam", "--y", "100", "--seed", "2"}, {"--seed", "2", "--y", "100", "--rep", "mrdam"}} {
		e := parse(t, args...)
		if _, err := e.Config(); err == nil || !strings.HasPrefix(err.Error(), "--y: only applies to a drdam, and rep is mrdam") {
			t.Errorf("%v: err = %v", args, err)
		}
	}
}

// TestFlagError: a configuration error is prefixed with the flag of its
// field; other errors are left alone.
func TestFlagError(t *testing.T) {
	_, err := dam.Config{D: 3, Beta: 1, Y: 0}.Validate()
	if got := FlagError(err); !strings.HasPrefix(got.Error(), "--y: ") || !errors.Is(got, err) {
		t.Errorf("FlagError(%v) = %v", err, got)
	}
	_, err = dam.Config{D: 3, Beta: 1, Y: 5, Projection: features.Orthogonal, OnDemand: true}.Validate()
	if got := FlagError(err); !strings.HasPrefix(got.Error(), "--on-demand: ") {
		t.Errorf("FlagError(%v) = %v", err, got)
	}
	plain := errors.New("x")
	if FlagError(plain) != plain {
		t.Error("FlagError changed an error that is not a ConfigError")
	}
}

// TestBytes: sizes with binary and decimal units.
func TestBytes(t *testing.T) {
	for s, want := range map[string]Bytes{"512MiB": 512 << 20, "8G": 8 << 30, "2e9": 2e9, "1.5 KB": 1500, "0": 0, "3B": 3} {
		var b Bytes
		if err := b.Set(s); err != nil || b != want {
			t.Errorf("Set(%q) = %d, %v; want %d", s, b, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1GiB", "1e30TiB", "NaN"} {
		var b Bytes
		if err := b.Set(s); err == nil {
			t.Errorf("Set(%q) succeeded", s)
		}
	}
	b := Bytes(3 << 30)
	if b.String() != dam.Bytes(3<<30) || new(Bytes).String() != "" {
		t.Errorf("String: %q, %q", b.String(), new(Bytes).String())
	}
}

// TestFlagMessage: the flag package's messages name flags with two dashes.
func TestFlagMessage(t *testing.T) {
	for in, want := range map[string]string{
		"flag provided but not defined: -bogus":               "unknown flag --bogus",
		"flag needs an argument: -y":                          "--y needs a value",
		`invalid value "1e5" for flag -y: parse error`:        `--y "1e5": parse error`,
		`invalid boolean value "x" for -no-bias: parse error`: `--no-bias "x": want true or false (a bare --no-bias means true; write --no-bias=false for false)`,
		"something else": "something else",
	} {
		if got := FlagMessage(in); got != want {
			t.Errorf("FlagMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNumberForms: the encode flags take whole numbers as 20000, 2e4 or
// 20_000 and seeds up to 2⁶⁴−1, on any flag set (drdam-beam's too), and
// refuse other forms with what they want, which FlagMessage puts after
// the flag and the value.
func TestNumberForms(t *testing.T) {
	for _, tc := range []struct {
		args []string
		y    int
		seed uint64
		beta float64
		err  string
	}{
		{[]string{"--y", "2e4", "--seed", "1_000", "--beta", "3.5"}, 20000, 1000, 3.5, ""},
		{[]string{"--y", "20_000", "--seed", "18446744073709551615"}, 20000, math.MaxUint64, 10, ""},
		{[]string{"--y", "2.5"}, 0, 0, 0, `--y: want a whole number from 0 to 1073741824, found "2.5"`},
		{[]string{"--y", "1e12"}, 0, 0, 0, `--y: out of range`},
		{[]string{"--seed", "-1"}, 0, 0, 0, `--seed: want a whole number from 0 to 18446744073709551615, found "-1"`},
		{[]string{"--beta", "NaN"}, 0, 0, 0, `--beta: want a number, found "NaN"`},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		e := EncodeFlags(fs)
		err := fs.Parse(tc.args)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(Message(fs, err), tc.err) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		c, cerr := e.Config()
		if err != nil || cerr != nil || c.Y != tc.y || c.Seed != tc.seed || c.Beta != tc.beta {
			t.Errorf("%v: %v %v, Y %d seed %d β %v", tc.args, err, cerr, c.Y, c.Seed, c.Beta)
		}
	}
}

// TestFlagsAreFields: every field of the codec but d is a flag, named as
// the field with "-" for "_", with the codec's help and default; a flag
// whose name is not its field's says the field's name.
func TestFlagsAreFields(t *testing.T) {
	fs := flag.NewFlagSet("encode", flag.ContinueOnError)
	EncodeFlags(fs)
	for _, f := range dam.Fields() {
		fl := fs.Lookup(strings.ReplaceAll(f.Name, "_", "-"))
		if f.Name == "d" {
			if fl != nil || !strings.Contains(fs.Lookup("patterns").Usage, `config field "d"`) {
				t.Error("d: a flag, or --patterns does not say it gives d")
			}
			continue
		}
		if fl == nil {
			t.Errorf("no flag for field %s", f.Name)
			continue
		}
		if !strings.HasPrefix(fl.Usage, f.Help[:20]) || fl.DefValue != f.Default {
			t.Errorf("--%s: usage %q, default %q; want the codec's", fl.Name, fl.Usage, fl.DefValue)
		}
		if fl.Name != f.Name && !strings.Contains(fl.Usage, `(config field "`+f.Name+`")`) {
			t.Errorf("--%s does not name its field %s", fl.Name, f.Name)
		}
	}
}

// TestForms: a flag of the flag package's Int, Float64 or Uint64 reads
// the forms of Count, Number and Seed.
func TestForms(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	n, x, s := fs.Int("n", 0, ""), fs.Float64("x", 0, ""), fs.Uint64("s", 0, "")
	fs.VisitAll(Forms)
	if err := fs.Parse([]string{"--n", "2e4", "--x", "1.5", "--s", "18446744073709551615"}); err != nil || *n != 20000 || *x != 1.5 || *s != math.MaxUint64 {
		t.Errorf("%v: %d %v %d", err, *n, *x, *s)
	}
	err := fs.Parse([]string{"--n", "1e12"})
	if err == nil || Message(fs, err) != `--n "1e12": out of range; want a whole number from 0 to 1073741824` {
		t.Errorf("--n 1e12: %v", err)
	}
}
