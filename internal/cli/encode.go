// Package cli holds what several commands share of their command lines:
// the flags of encoding a model (drdam encode and drdam-beam encode, in
// the nested module beam/, take the same flags with the same names,
// defaults and help), the memory budget flag, and errors that name the
// flag that set a configuration field.
//
// It defines flags on a *flag.FlagSet, turns their values into a
// dam.Config and words the flag package's errors as drdam does
// (FlagMessage); parsing the command line, and the forms in which numbers
// may be written, are the command's.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/features"
)

// Encode holds the values of the encode flags that EncodeFlags defines:
// the patterns to read, the model file to write and the configuration of
// the model.
type Encode struct {
	Patterns  string // --patterns: the file, glob or folder of patterns, one per row
	Out       string // --out: the model file to write
	MaxMemory *Bytes // --max-memory: the memory budget (0: dam.DefaultBudget())

	fs                          *flag.FlagSet
	rep, sim, basis, proj, prec string
	beta, eps                   float64
	y, gen                      int
	seed                        uint64
	onDemand, noBias            bool
}

// EncodeFlags defines the flags of encode on fs (--patterns, --out, --rep,
// --beta, --similarity, --basis, --y, --projection, --on-demand, --seed,
// --generator, --no-bias, --eps, --precision and --max-memory) and returns
// where their values go once fs is parsed.
func EncodeFlags(fs *flag.FlagSet) *Encode {
	e := &Encode{fs: fs}
	fs.StringVar(&e.Patterns, "patterns", "", "file of patterns, one per row (.npy, .csv, .tsv, .txt, .arff or IDX), or a glob (quoted: 'shards/part-*.npy') or a folder of such files")
	fs.StringVar(&e.Out, "out", "", "model file to write")
	fs.StringVar(&e.rep, "rep", "drdam", "representation: drdam (distributed) or mrdam (memory)")
	e.beta, e.y, e.gen = 10, 20000, int(features.DefaultGenerator)
	fs.Var(Number{P: &e.beta}, "beta", "inverse temperature β > 0 (10 is the smallest β of the paper's Fig. 3 grid: the higher β, the more features a DrDAM needs for the same error)")
	fs.StringVar(&e.sim, "similarity", "l2", "energy: l2 (−(1/β) log Σ exp(−β/2‖x−ξ‖²)) or dot (−(1/β) log Σ exp(β⟨ξ,x⟩) + ½‖x‖²)")
	fs.StringVar(&e.basis, "basis", "sincos", "DrDAM feature basis: "+features.BasisNames())
	fs.Var(Count{P: &e.y, Max: MaxCount}, "y", "DrDAM number of random projections Y (sincos and expexp have 2Y features; 20000 is the middle of the Y of Fig. 3's quick grid)")
	fs.StringVar(&e.proj, "projection", "gaussian", "DrDAM random projection: gaussian (iid, dense), orthogonal (ORF, dense) or structured (SORF: O(Y log D) per product, O(Y) memory)")
	fs.BoolVar(&e.onDemand, "on-demand", false, "DrDAM with the gaussian projection: regenerate its rows from the seed at every evaluation instead of storing them (O(Y+D) memory, much slower)")
	fs.Var(Seed{P: &e.seed}, "seed", "DrDAM seed of the random projection and shift")
	fs.Var(Count{P: &e.gen, Max: MaxCount}, "generator", "DrDAM generator version of a dense (gaussian, orthogonal) projection's Gaussians: 2 (vectorized) or 1 (the one of format-1 model files, about twenty times slower); part of the model, like the seed")
	fs.BoolVar(&e.noBias, "no-bias", false, "DrDAM: do not add the random shift b inside cos/sin")
	fs.Var(Number{P: &e.eps}, "eps", "DrDAM clip floor ε of φ(x)·T; 0 means the basis default (1e-5 for cos/sincos, 0 for exp/expexp)")
	fs.StringVar(&e.prec, "precision", "float64", "compute precision: float64 or float32 (about twice as fast; T and results stay float64)")
	e.MaxMemory = BudgetFlag(fs)
	return e
}

// Config returns the configuration that the parsed flags describe, with
// D left 0 (the patterns give it) and not yet validated: dam.New or
// Config.Validate check its numbers, and FlagError names the flag of a
// field they refuse. Its errors are mistakes on the command line, each
// naming its flag as typed: a name that is not a representation,
// similarity, precision, basis or projection ("--basis: unknown basis
// \"sine\": ..."), or flags that only apply to a DrDAM given with --rep
// mrdam.
func (e *Encode) Config() (dam.Config, error) {
	c := dam.Config{Beta: e.beta, Y: e.y, Seed: e.seed, Generator: features.Generator(e.gen), NoBias: e.noBias,
		Epsilon: e.eps, OnDemand: e.onDemand, MaxMemory: int64(*e.MaxMemory)}
	var err error
	if c.Rep, err = dam.ParseRepresentation(e.rep); err != nil {
		return c, fmt.Errorf("--rep: %w", err)
	}
	if c.Similarity, err = dam.ParseSimilarity(e.sim); err != nil {
		return c, fmt.Errorf("--similarity: %w", err)
	}
	if c.Precision, err = dam.ParsePrecision(e.prec); err != nil {
		return c, fmt.Errorf("--precision: %w", err)
	}
	if c.Rep == dam.RepMrDAM {
		var given []string
		e.fs.Visit(func(f *flag.Flag) {
			if drdamOnly[f.Name] {
				given = append(given, "--"+f.Name)
			}
		})
		if len(given) > 0 {
			return c, fmt.Errorf("%s only apply to a drdam, and --rep is mrdam", strings.Join(given, ", "))
		}
		return c, nil
	}
	if c.Basis, err = features.ParseBasis(e.basis); err != nil {
		return c, fmt.Errorf("--basis: %w", err)
	}
	if c.Projection, err = features.ParseProjectionKind(e.proj); err != nil {
		return c, fmt.Errorf("--projection: %w", err)
	}
	return c, nil
}

// drdamOnly are the flags of encode that only a DrDAM uses.
var drdamOnly = map[string]bool{"y": true, "basis": true, "projection": true, "on-demand": true, "seed": true, "generator": true, "no-bias": true, "eps": true}

// configFlags maps dam.Config fields to the flags of encode.
var configFlags = map[string]string{"MaxMemory": "--max-memory", "Beta": "--beta", "Y": "--y", "Epsilon": "--eps", "Basis": "--basis", "Projection": "--projection", "Similarity": "--similarity", "Rep": "--rep", "Precision": "--precision", "OnDemand": "--on-demand", "Generator": "--generator"}

// FlagError prefixes an error about a configuration field (a
// *dam.ConfigError, from Config.Validate, dam.New or a budget check) with
// the encode flag that set the field, as "--y: ...". Other errors are
// returned as they are.
func FlagError(err error) error {
	var ce *dam.ConfigError
	if errors.As(err, &ce) {
		if f, ok := configFlags[ce.Field]; ok {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return err
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
