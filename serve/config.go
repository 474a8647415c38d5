package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve/api"
)

// Config is the configuration of a memory as the API gives it (see
// api.Config).
type Config = api.Config

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

// notInAPI are the fields of dam.Config's codec that a configuration of
// the API does not take: a memory's budget is the server's (--max-memory).
var notInAPI = map[string]bool{"max_memory": true}

// apiFields returns the names of the fields of a configuration of the
// API: the codec's (dam.Fields), but those of notInAPI.
func apiFields() []string {
	var names []string
	for _, n := range dam.FieldNames() {
		if !notInAPI[n] {
			names = append(names, n)
		}
	}
	return names
}

// parseConfig reads a configuration from a JSON object: each field's
// value (a string, a number as written, or a boolean) is given as text to
// dam.Config's codec (Config.SetAll, on dam.DefaultConfig), so that the
// names, defaults and forms are drdam encode's. A field the codec
// refuses, an unknown field and a missing d are 400 naming the field; a d
// or y above the limits and a configuration that Validate refuses are
// 422.
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
	text := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if !slices.Contains(apiFields(), k) {
			return dam.Config{}, fieldErr(400, k, "unknown field (the fields are %s)", strings.Join(apiFields(), ", "))
		}
		d := json.NewDecoder(bytes.NewReader(raw[k]))
		d.UseNumber()
		var x any
		if err := d.Decode(&x); err != nil {
			return dam.Config{}, fieldErr(400, k, "%v", err)
		}
		switch x := x.(type) {
		case string:
			text[k] = x
		case bool:
			text[k] = strconv.FormatBool(x)
		case json.Number:
			text[k] = x.String() // as written: a seed above 2⁵³ keeps every digit
		default:
			return dam.Config{}, fieldErr(400, k, "want a string, a number or a boolean, found %s", raw[k])
		}
	}
	c := dam.DefaultConfig()
	if err := c.SetAll(text); err != nil {
		return dam.Config{}, configError(400, err)
	}
	if _, ok := text["d"]; !ok {
		return dam.Config{}, fieldErr(400, "d", "missing: the dimension of the patterns")
	}
	if c.D > limits.MaxD {
		return dam.Config{}, fieldErr(422, "d", "%d is more than this server's limit of %d", c.D, limits.MaxD)
	}
	if c.Rep == dam.RepDrDAM && c.Y > limits.MaxY {
		return dam.Config{}, fieldErr(422, "y", "%d is more than this server's limit of %d", c.Y, limits.MaxY)
	}
	c, err := c.Validate()
	if err != nil {
		return dam.Config{}, configError(422, err)
	}
	return c, nil
}

// configError answers an error about a configuration: a
// *dam.ConfigError names its field (the codec's name, which is the
// API's) and says the codec's message; another error (a
// *dam.BudgetError) has no field.
func configError(status int, err error) error {
	var ce *dam.ConfigError
	if errors.As(err, &ce) {
		return &FieldError{Status: status, Field: ce.Field, Msg: ce.Msg}
	}
	return &FieldError{Status: status, Msg: err.Error()}
}

// APIConfig returns the API form of c (the DrDAM-only fields left out of
// an MrDAM's), as GET /v1/memories/{name} and drdam info --json give it.
func APIConfig(c dam.Config) Config {
	a := Config{Rep: c.Rep.String(), D: c.D, Beta: c.Beta, Similarity: c.Similarity.String(), Precision: c.Precision.String()}
	if c.Rep == dam.RepDrDAM {
		a.Basis, a.Projection, a.Y, a.Seed = c.Basis.String(), c.Projection.String(), c.Y, c.Seed
		a.Generator, a.NoBias, a.Eps, a.OnDemand = int(c.Generator), c.NoBias, c.Epsilon, c.OnDemand
	}
	return a
}
