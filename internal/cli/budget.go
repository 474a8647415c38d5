package cli

import (
	"flag"

	"github.com/drdam/drdam/dam"
)

// BudgetFlag defines --max-memory on fs, for the commands that load
// models rather than configure one: the memory budget of the models they
// build or load (the codec's field max_memory, with its help; 0, the
// default, means dam.DefaultBudget()).
func BudgetFlag(fs *flag.FlagSet) *Bytes {
	b := new(Bytes)
	fs.Var(b, flagName("max_memory"), fieldOf("max_memory").Help)
	return b
}

// fieldOf returns the codec's field named name; it panics if there is
// none (a programmer's mistake).
func fieldOf(name string) dam.Field {
	for _, f := range dam.Fields() {
		if f.Name == name {
			return f
		}
	}
	panic("cli: no configuration field " + name)
}
