package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/internal/cli"
	"github.com/drdam/drdam/serve/api"
)

// Config is the configuration of a memory as the API gives it (see
// api.Config).
type Config = api.Config

// configFields are the JSON fields of a configuration, and the encode
// flag of each (d has none: the patterns give it to drdam encode).
var configFields = map[string]string{"rep": "rep", "beta": "beta", "similarity": "similarity", "basis": "basis", "projection": "projection",
	"y": "y", "seed": "seed", "generator": "generator", "no_bias": "no-bias", "eps": "eps", "on_demand": "on-demand", "precision": "precision"}

// FieldError is an error about one field of a request, which the API
// answers with its status and the field's name.
type FieldError struct {
	Status int
	Field  string
	Msg    string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func fieldErr(status int, field, format string, args ...any) error {
	return &FieldError{Status: status, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// parseConfig reads a configuration from a JSON object: d, and the fields
// of drdam encode's flags, each set through the flag that drdam encode
// defines (package internal/cli), so that the names, defaults and checks
// are that command's. Unknown fields are an error naming them.
func parseConfig(body []byte, limits Limits) (dam.Config, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return dam.Config{}, fieldErr(400, "", "the body is not a JSON object: %v", err)
	}
	if dec.More() {
		return dam.Config{}, fieldErr(400, "", "the body holds more than one JSON value")
	}
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	enc := cli.EncodeFlags(fs)
	d := 0
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return dam.Config{}, fieldErr(400, k, "%v", err)
		}
		if k == "d" {
			n, ok := x.(float64)
			if !ok || n != float64(int(n)) || n < 1 {
				return dam.Config{}, fieldErr(400, "d", "want a whole number ≥ 1, found %s", v)
			}
			if int(n) > limits.MaxD {
				return dam.Config{}, fieldErr(422, "d", "%d is more than this server's limit of %d", int(n), limits.MaxD)
			}
			d = int(n)
			continue
		}
		name, ok := configFields[k]
		if !ok {
			return dam.Config{}, fieldErr(400, k, "unknown field (the fields are d, %s)", strings.Join(slices.Sorted(maps.Keys(configFields)), ", "))
		}
		var s string
		switch x := x.(type) {
		case string:
			s = x
		case bool:
			s = strconv.FormatBool(x)
		case float64:
			s = strconv.FormatFloat(x, 'g', -1, 64)
			if n := strings.TrimSpace(string(v)); !strings.ContainsAny(n, ".eE") {
				s = n // a whole number as written: seeds above 2⁵³
			}
		default:
			return dam.Config{}, fieldErr(400, k, "want a string, a number or a boolean, found %s", v)
		}
		if err := fs.Set(name, s); err != nil {
			return dam.Config{}, fieldErr(400, k, "%q: %v", s, err)
		}
	}
	if d == 0 {
		return dam.Config{}, fieldErr(400, "d", "missing: the dimension of the patterns")
	}
	c, err := enc.Config()
	if err != nil {
		return dam.Config{}, flagToField(400, err)
	}
	if c.Rep == dam.RepDrDAM && c.Y > limits.MaxY {
		return dam.Config{}, fieldErr(422, "y", "%d is more than this server's limit of %d", c.Y, limits.MaxY)
	}
	c.D = d
	c, err = c.Validate()
	if err != nil {
		return dam.Config{}, flagToField(422, cli.FlagError(err))
	}
	return c, nil
}

// flagToField turns an error that names an encode flag ("--y: ...") into
// a FieldError naming the JSON field.
func flagToField(status int, err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "--"); ok {
		if name, m, ok := strings.Cut(rest, ": "); ok {
			for f, fl := range configFields {
				if fl == name {
					return &FieldError{Status: status, Field: f, Msg: m}
				}
			}
		}
		if strings.Contains(rest, "only apply to a drdam") {
			return &FieldError{Status: status, Field: "rep", Msg: strings.ReplaceAll(msg, "--", "")}
		}
	}
	var ce *dam.ConfigError
	if errors.As(err, &ce) {
		return &FieldError{Status: status, Field: strings.ToLower(ce.Field), Msg: msg}
	}
	return &FieldError{Status: status, Msg: msg}
}

// apiConfig returns the API form of c.
func apiConfig(c dam.Config) Config {
	a := Config{Rep: c.Rep.String(), D: c.D, Beta: c.Beta, Similarity: c.Similarity.String(), Precision: c.Precision.String()}
	if c.Rep == dam.RepDrDAM {
		a.Basis, a.Projection, a.Y, a.Seed = c.Basis.String(), c.Projection.String(), c.Y, c.Seed
		a.Generator, a.NoBias, a.Eps, a.OnDemand = int(c.Generator), c.NoBias, c.Epsilon, c.OnDemand
	}
	return a
}
