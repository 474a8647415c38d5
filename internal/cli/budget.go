package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dam"
)

// Bytes is a flag.Value for a number of bytes written with an optional
// binary or decimal unit: 512MiB, 8GiB, 8G (GiB), 2e9 (bytes). A bare K,
// M, G or T is binary.
type Bytes int64

// String writes the size with a binary unit, or "" for 0.
func (b *Bytes) String() string {
	if b == nil || *b == 0 {
		return ""
	}
	return dam.Bytes(float64(*b))
}

// Set parses a size.
func (b *Bytes) Set(s string) error {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 0) || v*mult > 1<<62 {
		return errors.New("want a size such as 8GiB, 512MiB or 2e9 (bytes)")
	}
	*b = Bytes(v * mult)
	return nil
}

// BudgetFlag defines --max-memory on fs: the memory budget of the models
// a command builds or loads (dam.Config.MaxMemory; 0, the default, means
// dam.DefaultBudget()).
func BudgetFlag(fs *flag.FlagSet) *Bytes {
	b := new(Bytes)
	fs.Var(b, "max-memory", fmt.Sprintf("memory budget of the model, e.g. 8GiB: a model that needs more is refused before it is built (default %s: three quarters of this machine's memory or of ulimit -v)", dam.Bytes(float64(dam.DefaultBudget()))))
	return b
}
