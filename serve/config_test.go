package serve

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve/api"
)

// TestConfigFieldsAreAPI: the fields of the API's configuration are the
// codec's (dam.Fields) but max_memory, and api.Config has a JSON field of
// each name.
func TestConfigFieldsAreAPI(t *testing.T) {
	var tags []string
	rt := reflect.TypeOf(api.Config{})
	for i := range rt.NumField() {
		tags = append(tags, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
	}
	slices.Sort(tags)
	got := apiFields()
	slices.Sort(got)
	if !slices.Equal(tags, got) {
		t.Errorf("api.Config's JSON fields %v; the codec's fields in the API %v", tags, got)
	}
}

// TestConfigErrorsAreCodecs: a bad field of PUT /v1/memories/{name} is
// answered with the codec's field name and message (dam.Config.Set,
// SetAll and Validate), with 400 for a value the codec cannot read and
// 422 for one that Validate refuses.
func TestConfigErrorsAreCodecs(t *testing.T) {
	_, url := testServer(t, t.TempDir(), Options{})
	codec := func(set func(c *dam.Config) error) string {
		c := dam.DefaultConfig()
		err := set(&c)
		if err == nil {
			c.D = 4
			_, err = c.Validate()
		}
		var ce *dam.ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("the codec accepted the case: %v", err)
		}
		return ce.Msg
	}
	for _, tc := range []struct {
		body   string
		status int
		field  string
		msg    string
	}{
		{`{"d":4,"y":"many"}`, 400, "y", codec(func(c *dam.Config) error { return c.Set("y", "many") })},
		{`{"d":4,"y":2.5}`, 400, "y", codec(func(c *dam.Config) error { return c.Set("y", "2.5") })},
		{`{"d":4,"basis":"sine"}`, 400, "basis", codec(func(c *dam.Config) error { return c.Set("basis", "sine") })},
		{`{"d":4,"rep":"mrdam","y":100}`, 400, "y", codec(func(c *dam.Config) error {
			return c.SetAll(map[string]string{"d": "4", "rep": "mrdam", "y": "100"})
		})},
		{`{"d":4,"no_bias":"maybe"}`, 400, "no_bias", codec(func(c *dam.Config) error { return c.Set("no_bias", "maybe") })},
		{`{"d":4,"seed":-1}`, 400, "seed", codec(func(c *dam.Config) error { return c.Set("seed", "-1") })},
		{`{"d":4,"beta":-1}`, 422, "beta", codec(func(c *dam.Config) error { c.Beta = -1; return nil })},
		{`{"d":4,"y":0}`, 422, "y", codec(func(c *dam.Config) error { c.Y = 0; return nil })},
		{`{"d":4,"eps":-1}`, 422, "eps", codec(func(c *dam.Config) error { c.Epsilon = -1; return nil })},
		{`{"d":4,"projection":"orthogonal","on_demand":true}`, 422, "on_demand", codec(func(c *dam.Config) error {
			return c.SetAll(map[string]string{"projection": "orthogonal", "on_demand": "true"})
		})},
		{`{"d":0}`, 400, "d", codec(func(c *dam.Config) error { return c.Set("d", "0") })},
	} {
		st, b := call(t, "PUT", url+"/v1/memories/x", tc.body, nil)
		e := errorOf(t, b)
		if st != tc.status || e.Field != tc.field || e.Message != tc.msg {
			t.Errorf("%s: %d %q %q; want %d %q %q", tc.body, st, e.Field, e.Message, tc.status, tc.field, tc.msg)
		}
	}
	for _, tc := range []struct{ body, field string }{{`{"d":4,"max_memory":"1GiB"}`, "max_memory"}, {`{"d":4,"colour":"red"}`, "colour"}} {
		if st, b := call(t, "PUT", url+"/v1/memories/x", tc.body, nil); st != 400 || errorOf(t, b).Field != tc.field {
			t.Errorf("%s: %d %s; want 400 on %s", tc.body, st, b, tc.field)
		}
	}
}

// TestConfigForms: numbers, strings and booleans as the codec reads them:
// a seed above 2⁵³ keeps every digit, a count may be written 2e2 or
// "2e2", a boolean as true or "true".
func TestConfigForms(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   func(c dam.Config) bool
	}{
		{`{"d":4,"seed":18446744073709551615}`, func(c dam.Config) bool { return c.Seed == math.MaxUint64 }},
		{`{"d":4,"seed":9007199254740993}`, func(c dam.Config) bool { return c.Seed == 1<<53+1 }},
		{`{"d":4,"y":2e2}`, func(c dam.Config) bool { return c.Y == 200 }},
		{`{"d":4,"y":"2e2","beta":"3"}`, func(c dam.Config) bool { return c.Y == 200 && c.Beta == 3 }},
		{`{"d":4,"no_bias":true,"on_demand":"true"}`, func(c dam.Config) bool { return c.NoBias && c.OnDemand }},
		{`{"d":4}`, func(c dam.Config) bool { return c.Y == 20000 && c.Beta == 10 && c.Rep == dam.RepDrDAM }},
		{`{"d":4,"rep":"mrdam","beta":2}`, func(c dam.Config) bool { return c.Rep == dam.RepMrDAM && c.Beta == 2 }},
	} {
		c, err := parseConfig([]byte(tc.body), DefaultLimits())
		if err != nil || !tc.ok(c) {
			t.Errorf("%s: %+v, %v", tc.body, c, err)
		}
	}
}
