package serve

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/drdam/drdam/serve/api"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data []byte
}

// readEvents posts body to url and reads the event stream to its end.
func readEvents(t *testing.T, url string, body any) (int, []sseEvent) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	var evs []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			evs = append(evs, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			cur.data = append(cur.data, line[len("data: "):]...)
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return 200, evs
}

// TestRecallStream: the stream of a descent has a step event per step, in
// order, with x every `every` steps and at the last; the energies do not
// increase (a small step); and its final state, steps and outcome are
// those POST …/recall answers for the same request (relative 1e-12: the
// same descent).
func TestRecallStream(t *testing.T) {
	_, url := testServer(t, t.TempDir(), Options{})
	const d = 16
	call(t, "PUT", url+"/v1/memories/m", map[string]any{"d": d, "beta": 30, "y": 4000, "projection": "structured", "seed": 3}, nil)
	x := patterns(12, d, 4)
	if st, b := call(t, "POST", url+"/v1/memories/m/patterns", map[string]any{"patterns": api.RowsOf(x, d)}, nil); st != 200 {
		t.Fatalf("add: %d %s", st, b)
	}
	q := append([]float64(nil), x[3*d:4*d]...)
	mask := make([]int, d)
	for j := range d {
		if j < d/2 {
			mask[j] = 1
		} else {
			q[j] = 0
		}
	}
	req := map[string]any{"queries": [][]float64{q}, "mask": mask, "step": 0.05, "max_steps": 47, "box": []float64{0, 1}}
	var rec RecallResult
	if st, b := call(t, "POST", url+"/v1/memories/m/recall", req, &rec); st != 200 {
		t.Fatalf("recall: %d %s", st, b)
	}
	req["every"] = 5
	st, evs := readEvents(t, url+"/v1/memories/m/recall:stream", req)
	if st != 200 || len(evs) < 2 {
		t.Fatalf("stream: %d, %d events", st, len(evs))
	}
	steps := evs[:len(evs)-1]
	if len(steps) != rec.Steps[0]+1 {
		t.Errorf("%d step events, want %d (steps 0 to %d)", len(steps), rec.Steps[0]+1, rec.Steps[0])
	}
	prev := 0.0
	for i, ev := range steps {
		var s api.StepEvent
		if ev.name != "step" || json.Unmarshal(ev.data, &s) != nil {
			t.Fatalf("event %d: %s %s", i, ev.name, ev.data)
		}
		if s.Step != i {
			t.Errorf("event %d is of step %d", i, s.Step)
		}
		if wantX := i%5 == 0 || i == len(steps)-1; (s.X != nil) != wantX || (wantX && len(s.X) != d) {
			t.Errorf("step %d: x of %d values, want it: %v", i, len(s.X), wantX)
		}
		if i > 0 && s.Energy > prev+1e-12 {
			t.Errorf("step %d: energy %v > %v at the step before", i, s.Energy, prev)
		}
		if i == 0 && relDiff(s.X, q) != 0 {
			t.Errorf("step 0: x is not the query")
		}
		prev = s.Energy
	}
	last := evs[len(evs)-1]
	var done api.DoneEvent
	if last.name != "done" || json.Unmarshal(last.data, &done) != nil {
		t.Fatalf("last event %s %s", last.name, last.data)
	}
	if relDiff(done.X, rec.X[0]) > 1e-12 || done.Steps != rec.Steps[0] || done.Outcome != rec.Outcome[0] || done.Energy != rec.Energy[0] {
		t.Errorf("stream ends at %+v, recall %+v", done, rec)
	}
	var ls api.StepEvent
	json.Unmarshal(steps[len(steps)-1].data, &ls)
	if relDiff(ls.X, done.X) != 0 || ls.Energy != done.Energy {
		t.Errorf("the last step event is not the final state")
	}
	var first api.StepEvent
	json.Unmarshal(steps[0].data, &first)
	if !(done.Energy < first.Energy) {
		t.Errorf("energy %v at the end, %v at the start: no descent", done.Energy, first.Energy)
	}

	// Refusals, as JSON errors before any event.
	for _, c := range []struct {
		path  string
		body  map[string]any
		code  int
		field string
	}{
		{"m", map[string]any{"queries": [][]float64{q, q}}, 400, "queries"},
		{"m", map[string]any{"queries": [][]float64{q}, "every": -1}, 400, "every"},
		{"m", map[string]any{"queries": [][]float64{q}, "max_steps": 1 << 30}, 422, "max_steps"},
		{"m", map[string]any{"queries": [][]float64{q[:3]}}, 400, "queries"},
		{"none", map[string]any{"queries": [][]float64{q}}, 404, "name"},
		{"empty", map[string]any{"queries": [][]float64{q}}, 409, "name"},
	} {
		call(t, "PUT", url+"/v1/memories/empty", map[string]any{"d": d, "rep": "mrdam"}, nil)
		var eb ErrorBody
		st, b := call(t, "POST", url+"/v1/memories/"+c.path+"/recall:stream", c.body, nil)
		json.Unmarshal(b, &eb)
		if st != c.code || eb.Error.Field != c.field || eb.Error.Status != c.code {
			t.Errorf("%v: %d %s, want %d on %q", c.body, st, b, c.code, c.field)
		}
	}
}

// TestGallery: a memory keeps its first GalleryMax added patterns, in
// order, across a restart; GET …/gallery counts them and ?i=K answers one.
func TestGallery(t *testing.T) {
	dir := t.TempDir()
	const d = 4
	x := patterns(100, d, 6)
	func() {
		s, url := testServer(t, dir, Options{})
		defer s.Close() // before the next server takes the folder
		call(t, "PUT", url+"/v1/memories/g", map[string]any{"d": d, "rep": "mrdam"}, nil)
		var g api.Gallery
		if call(t, "GET", url+"/v1/memories/g/gallery", nil, &g); g.Count != 0 || g.Max != GalleryMax {
			t.Errorf("empty gallery: %+v", g)
		}
		call(t, "POST", url+"/v1/memories/g/patterns", map[string]any{"patterns": api.RowsOf(x[:40*d], d)}, nil)
		call(t, "POST", url+"/v1/memories/g/patterns", npyBytes(t, 60, d, x[40*d:]), nil)
	}()
	_, url := testServer(t, dir, Options{})
	var g api.Gallery
	if st, b := call(t, "GET", url+"/v1/memories/g/gallery", nil, &g); st != 200 || g.Count != GalleryMax {
		t.Fatalf("gallery after restart: %d %s", st, b)
	}
	for _, i := range []int{0, 39, 40, GalleryMax - 1} {
		var p api.GalleryPattern
		if st, b := call(t, "GET", url+"/v1/memories/g/gallery?i="+itoa(i), nil, &p); st != 200 || p.I != i || relDiff(p.Pattern, x[i*d:(i+1)*d]) != 0 {
			t.Errorf("gallery?i=%d: %d %s", i, st, b)
		}
	}
	for q, code := range map[string]int{"64": 404, "-1": 404, "x": 400} {
		var eb ErrorBody
		st, b := call(t, "GET", url+"/v1/memories/g/gallery?i="+q, nil, nil)
		if json.Unmarshal(b, &eb); st != code || eb.Error.Field != "i" {
			t.Errorf("gallery?i=%s: %d %s, want %d", q, st, b, code)
		}
	}
	if st, _ := call(t, "GET", url+"/v1/memories/nope/gallery", nil, nil); st != 404 {
		t.Errorf("gallery of no memory: %d", st)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestPage: GET / lists the memories, HTML-escaped, and its assets are
// served from the binary; with a token, the page and its assets load
// without it but list nothing, and the API still wants it.
func TestPage(t *testing.T) {
	dir := t.TempDir()
	_, url := testServer(t, dir, Options{})
	call(t, "PUT", url+"/v1/memories/digits", map[string]any{"d": 784, "y": 2000, "projection": "structured"}, nil)
	call(t, "PUT", url+"/v1/memories/vectors", map[string]any{"d": 10, "rep": "mrdam"}, nil)
	st, b := call(t, "GET", url+"/", nil, nil)
	page := string(b)
	for _, want := range []string{`data-name="digits"`, "28×28 gray", `data-name="vectors"`, "MrDAM", "/web/app.js", "31.2 KiB"} {
		if st != 200 || !strings.Contains(page, want) {
			t.Errorf("GET /: %d, no %q in the page", st, want)
		}
	}
	for _, c := range []struct{ path, ct string }{{"/web/app.js", "javascript"}, {"/web/style.css", "text/css"}} {
		resp, err := http.Get(url + c.path)
		if err != nil || resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), c.ct) {
			t.Errorf("GET %s: %v %v", c.path, resp, err)
		}
		resp.Body.Close()
	}
	for _, p := range []string{"/web/nope.js", "/web/index.html", "/nope"} {
		if st, _ := call(t, "GET", url+p, nil, nil); st != 404 {
			t.Errorf("GET %s: %d, want 404", p, st)
		}
	}
	if st, _ := call(t, "POST", url+"/", nil, nil); st != 405 {
		t.Errorf("POST /: %d, want 405", st)
	}
	for d, want := range map[int][2]int{784: {28, 1}, 3072: {32, 3}, 12288: {64, 3}, 10: {0, 0}, 1: {0, 0}, 12: {2, 3}} {
		if h, c := imageShape(d); h != want[0] || c != want[1] {
			t.Errorf("imageShape(%d) = %d, %d, want %v", d, h, c, want)
		}
	}

	_, turl := testServer(t, t.TempDir(), Options{Token: "s3cret"})
	call(t, "PUT", turl+"/v1/memories/hidden", map[string]any{"d": 4, "rep": "mrdam"}, nil, "Authorization", "Bearer s3cret")
	st, b = call(t, "GET", turl+"/", nil, nil)
	if st != 200 || strings.Contains(string(b), `data-name="hidden"`) || !strings.Contains(string(b), "needs a token") {
		t.Errorf("GET / without the token: %d %s", st, b)
	}
	if st, b = call(t, "GET", turl+"/", nil, nil, "Authorization", "Bearer s3cret"); st != 200 || !strings.Contains(string(b), `data-name="hidden"`) {
		t.Errorf("GET / with the token: %d", st)
	}
	for _, p := range []string{"/v1/memories", "/v1/memories/hidden/gallery", "/web/../v1/memories"} {
		if st, _ := call(t, "GET", turl+p, nil, nil); st != 401 && st != 404 {
			t.Errorf("GET %s without the token: %d", p, st)
		}
	}
}
