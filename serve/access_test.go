package serve

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// TestAccessLog: with Options.AccessLog, every request gets one JSON line
// after its response, the route pattern and status as answered: a 200 on
// /healthz, a 401 without the token (no route: refused before routing,
// and the token not logged), a created memory (201, its body's length in
// bytes_in), a 404.
func TestAccessLog(t *testing.T) {
	var buf syncBuffer
	const token = "s3cret-token"
	_, url := testServer(t, t.TempDir(), Options{Token: token, AccessLog: slog.New(slog.NewJSONHandler(&buf, nil))})
	auth := []string{"Authorization", "Bearer " + token}
	body := `{"rep": "mrdam", "d": 4, "beta": 10}`
	for _, c := range []struct {
		method, path, body string
		header             []string
		want               int
	}{
		{"GET", "/healthz", "", nil, 200},
		{"GET", "/v1/memories", "", nil, 401},
		{"PUT", "/v1/memories/m", body, auth, 201},
		{"GET", "/v1/memories/nope", "", auth, 404},
	} {
		var b any
		if c.body != "" {
			b = c.body
		}
		if st, out := call(t, c.method, url+c.path, b, nil, c.header...); st != c.want {
			t.Fatalf("%s %s: %d %s, want %d", c.method, c.path, st, out, c.want)
		}
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), buf.String())
	}
	want := []struct {
		method, path, route string
		status              float64
	}{
		{"GET", "/healthz", "GET /healthz", 200},
		{"GET", "/v1/memories", "", 401},
		{"PUT", "/v1/memories/m", "PUT /v1/memories/{name}", 201},
		{"GET", "/v1/memories/nope", "GET /v1/memories/{name}", 404},
	}
	for i, w := range want {
		l := lines[i]
		if l["msg"] != "request" || l["method"] != w.method || l["path"] != w.path || l["route"] != w.route || l["status"] != w.status {
			t.Errorf("line %d: %v, want %+v", i, l, w)
		}
		if _, ok := l["duration"]; !ok || l["remote"] == "" {
			t.Errorf("line %d: no duration or remote address: %v", i, l)
		}
	}
	if lines[2]["bytes_in"] != float64(len(body)) || lines[3]["bytes_out"].(float64) <= 0 {
		t.Errorf("bytes: in %v (want %d), out %v (want > 0)", lines[2]["bytes_in"], len(body), lines[3]["bytes_out"])
	}
	if strings.Contains(buf.String(), token) {
		t.Error("the token is in the access log")
	}
}
