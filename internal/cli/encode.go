// Package cli holds what several commands share of their command lines:
// the flags of a model's configuration (drdam encode and drdam-beam
// encode, in the nested module beam/, take the same flags), a thin
// adapter over dam.Config's codec (dam.Fields, Config.Set); the one
// family of number flags (Count, Number, Seed, Bytes) that every command
// uses; and the wording of flag errors, each naming its flag as typed.
//
// The names, defaults, help and parsing of the configuration are the
// codec's; this package only turns a field's name into a flag (no_bias →
// --no-bias) and an error about a field into one about its flag
// ("--y: ...").
package cli

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"

	"github.com/drdam/drdam/dam"
)

// Encode holds the values of the encode flags that EncodeFlags defines:
// the patterns to read, the model file to write and the configuration of
// the model.
type Encode struct {
	Patterns string // --patterns: the file, glob or folder of patterns, one per row
	Out      string // --out: the model file to write

	values map[string]string // the configuration flags given: field → text
}

// EncodeFlags defines the flags of encode on fs: --patterns, --out, and a
// flag for every field of the codec (dam.Fields) but d, which the
// patterns give: --rep, --beta, --similarity, --precision, --max-memory,
// --y, --basis, --projection, --seed, --generator, --no-bias, --eps and
// --on-demand. It returns where their values go once fs is parsed.
func EncodeFlags(fs *flag.FlagSet) *Encode {
	e := &Encode{values: map[string]string{}}
	fs.StringVar(&e.Patterns, "patterns", "", `file of patterns, one per row (.npy, .csv, .tsv, .txt, .arff or IDX), or a glob (quoted: 'shards/part-*.npy') or a folder of such files; their columns are the model's D (config field "d")`)
	fs.StringVar(&e.Out, "out", "", "model file to write")
	for _, f := range dam.Fields() {
		if f.Name == "d" {
			continue
		}
		fs.Var(&fieldValue{e: e, f: f, text: f.Default}, flagName(f.Name), usage(f))
	}
	return e
}

// flagName is the flag of a configuration field: its name with "_"
// written "-".
func flagName(field string) string { return strings.ReplaceAll(field, "_", "-") }

// usage is the help of a field's flag: the codec's, and the field's name
// where it is not the flag's.
func usage(f dam.Field) string {
	if flagName(f.Name) != f.Name {
		return fmt.Sprintf("%s (config field %q)", f.Help, f.Name)
	}
	return f.Help
}

// Config returns the configuration that the parsed flags describe: the
// codec's defaults (dam.DefaultConfig), then the flags given, set by
// Config.SetAll, with D left 0 (the patterns give it) and not yet
// validated: dam.New or Config.Validate check its numbers, and FlagError
// names the flag of a field they refuse. Its error names the flag as
// typed: a DrDAM-only flag given with --rep mrdam ("--y: only applies to a
// drdam, and rep is mrdam ...").
func (e *Encode) Config() (dam.Config, error) {
	c := dam.DefaultConfig()
	if err := c.SetAll(e.values); err != nil {
		return c, FlagError(err)
	}
	return c, nil
}

// fieldValue is the flag.Value of a configuration field: Set checks the
// text with the codec (Config.Set) and keeps it for Config.
type fieldValue struct {
	e    *Encode
	f    dam.Field
	text string
	err  error // the codec's error on the last value, worded for its flag
}

// Set checks s with the codec, on the defaults, and keeps it.
func (v *fieldValue) Set(s string) error {
	c := dam.DefaultConfig()
	if err := c.Set(v.f.Name, s); err != nil {
		v.err = FlagError(err)
		if v.f.Kind == dam.KindBool {
			n := flagName(v.f.Name)
			v.err = fmt.Errorf("%w (a bare --%s means true; write --%s=false for false)", v.err, n, n)
		}
		return err
	}
	v.err = nil
	v.text = s
	v.e.values[v.f.Name] = s
	return nil
}

// String returns the text of the value (the default's, until set).
func (v *fieldValue) String() string {
	if v == nil {
		return ""
	}
	return v.text
}

// IsBoolFlag reports whether the flag may be given bare (--no-bias).
func (v *fieldValue) IsBoolFlag() bool { return v.f.Kind == dam.KindBool }

// TypeName is the type that a usage message shows ("" for a boolean).
func (v *fieldValue) TypeName() string {
	if v.f.Kind == dam.KindBool {
		return ""
	}
	return v.f.Kind.String()
}

// FlagError prefixes an error about a configuration field (a
// *dam.ConfigError, from the codec, Config.Validate, dam.New or a
// budget check) with the flag of the field, as "--y: ...". Other errors,
// and those about d (which has no flag: the patterns give it), are
// returned as they are.
func FlagError(err error) error {
	var ce *dam.ConfigError
	if errors.As(err, &ce) && ce.Field != "d" {
		return fmt.Errorf("--%s: %w", flagName(ce.Field), err)
	}
	return err
}

// Message words an error of fs.Parse as drdam does: a configuration
// flag's is the codec's error named by its flag (`--y: want a whole
// number from 0 to 1073741824, found "2.5"`); the flag package's own
// messages name the flag with two dashes (FlagMessage).
func Message(fs *flag.FlagSet, err error) string {
	var msg string
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := f.Value.(*fieldValue); ok && v.err != nil && msg == "" {
			msg = v.err.Error()
		}
	})
	if msg != "" {
		return msg
	}
	return FlagMessage(err.Error())
}

// flagRE matches the flag package's own messages, which name flags with
// one dash.
var flagRE = []struct {
	re  *regexp.Regexp
	msg string
}{
	{regexp.MustCompile(`^flag provided but not defined: -+(.*)$`), "unknown flag --$1"},
	{regexp.MustCompile(`^flag needs an argument: -+(.*)$`), "--$1 needs a value"},
	{regexp.MustCompile(`^invalid boolean value (".*") for -+(\S+): .*$`), "--$2 $1: want true or false (a bare --$2 means true; write --$2=false for false)"},
	{regexp.MustCompile(`^invalid value (".*") for flag -+(\S+): (.*)$`), "--$2 $1: $3"},
}

// FlagMessage rewrites an error of the flag package to name the flag as it
// is typed, with two dashes.
func FlagMessage(msg string) string {
	for _, r := range flagRE {
		if r.re.MatchString(msg) {
			return r.re.ReplaceAllString(msg, r.msg)
		}
	}
	return msg
}
