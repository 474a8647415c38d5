package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/drdam/drdam/paper"
)

// paramValue is the flag.Value of a parameter of an experiment: the flag
// --NAME sets the parameter NAME. (Not flag.TextVar's value: the help
// names the kind of value, which TypeName gives, and a refused value is
// worded as the other flags' are.)
type paramValue struct{ p *paper.Param }

// Set sets the parameter from the flag's text.
func (v *paramValue) Set(s string) error {
	err := v.p.Set(s)
	var pe *paper.ParamError
	if errors.As(err, &pe) {
		// The flag package words it `--NAME "VALUE": MSG` (cli.Message).
		return errors.New(flagNames(pe.Msg))
	}
	return err
}

// String returns the parameter's value as text.
func (v *paramValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

// TypeName names the kind of value in the help.
func (v *paramValue) TypeName() string { return v.p.Type }

// IsBoolFlag reports whether the flag is a switch (flag's boolFlag).
func (v *paramValue) IsBoolFlag() bool { return v.p.IsSwitch() }

// bindParams defines the flag --NAME of every parameter NAME of ps, with
// its help and the default it shows.
func bindParams(fs *flags, ps *paper.Params) {
	for _, p := range ps.List() {
		fs.Var(&paramValue{p}, p.Name, p.Help)
		fs.Lookup(p.Name).DefValue = p.Default
	}
}

// paramUsage turns a parameter refused (*paper.ParamError) into a usage
// error that names its flag: parameter "seeds" is --seeds.
func paramUsage(err error) error {
	var pe *paper.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	if pe.Value != "" {
		return usagef("--%s %s: %s", pe.Name, pe.Value, flagNames(pe.Msg))
	}
	return usagef("--%s: %s", pe.Name, flagNames(pe.Msg))
}

// paramName is a parameter named in a message of package paper.
var paramName = regexp.MustCompile(`parameter "([a-z0-9-]+)"`)

// flagNames rewrites the parameters a message names as their flags:
// parameter "fresh" is --fresh.
func flagNames(msg string) string { return paramName.ReplaceAllString(msg, "--$1") }

// interruptedError is a run stopped by SIGINT, SIGTERM or SIGHUP, cleanly:
// what was written is whole, and a grid experiment rerun into the same
// directory goes on from the points measured.
type interruptedError struct{ err error }

// Error says that the run was interrupted and how to go on.
func (e interruptedError) Error() string {
	return fmt.Sprintf("interrupted (%v); a grid experiment run again into the same --out goes on from the points measured", e.err)
}

// Unwrap returns the run's error (context.Canceled in its chain).
func (e interruptedError) Unwrap() error { return e.err }

// ownSignals are the commands that handle SIGINT, SIGTERM and SIGHUP
// themselves: serve shuts down gracefully; the experiments stop cleanly
// (interruptible).
var ownSignals = map[string]bool{"serve": true, "experiment": true, "reproduce": true}

// interruptible returns a context cancelled by the first SIGINT, SIGTERM
// or SIGHUP: the run stops at its next check, cleanly. A second signal
// exits at once (exitOnSignal). stop releases the signals.
func interruptible() (ctx context.Context, stop func()) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			select {
			case <-finished: // stop cancelled it: no signal
				return
			default:
			}
			cancel()
			exitOnSignal()
			fmt.Fprintln(os.Stderr, "drdam: stopping at the next check (a second signal stops at once)")
		case <-finished:
		}
	}()
	return ctx, func() { close(finished); cancel() }
}
