package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drdam/drdam/client"
	"github.com/drdam/drdam/serve/api"
)

// seen is one request as a flaky server read it: when it arrived, its
// method and path, its Idempotency-Key (and whether it had one) and its
// body, read whole.
type seen struct {
	at           time.Time
	method, path string
	key          string
	hasKey       bool
	body         []byte
}

// flaky is a fake drdam server on loopback that answers its first
// requests as script says, then ok's answer (200 and the JSON of a
// Written, or of a Health, …). A script's step is a status (answered
// with a drdam JSON error body), "status:retry-after" for a status with
// a Retry-After header of that many seconds, "cut" (a 200 whose JSON
// body stops after 9 of its 100 bytes, the connection closed: a
// connection lost mid-answer), "close" (the connection closed before
// any answer: only as the first step, on a fresh connection, as
// net/http's transport would itself replay a keyed request whose reused
// connection closed like that) or "hang" (no answer until the request
// is abandoned).
type flaky struct {
	t      *testing.T
	url    string
	script []string
	ok     any

	mu   sync.Mutex
	reqs []seen
	hit  chan struct{} // a value for each request, if not nil
}

func newFlaky(t *testing.T, ok any, script ...string) *flaky {
	f := &flaky{t: t, script: script, ok: ok}
	hs := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(hs.Close)
	f.url = hs.URL
	return f
}

func (f *flaky) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("reading a request's body: %v", err)
	}
	f.mu.Lock()
	_, hasKey := r.Header["Idempotency-Key"]
	f.reqs = append(f.reqs, seen{time.Now(), r.Method, r.URL.Path, r.Header.Get("Idempotency-Key"), hasKey, body})
	step := "200"
	if n := len(f.reqs); n <= len(f.script) {
		step = f.script[n-1]
	}
	f.mu.Unlock()
	if f.hit != nil {
		f.hit <- struct{}{}
	}
	switch step {
	case "200":
		if r.URL.Path == "/metrics" || strings.HasSuffix(r.URL.Path, "/snapshot") && r.Method == "GET" {
			io.WriteString(w, "the file")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(f.ok)
	case "cut", "close":
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			f.t.Errorf("hijack: %v", err)
			return
		}
		if step == "cut" {
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"added\":")
			buf.Flush()
		}
		conn.Close()
	case "hang":
		<-r.Context().Done()
	default:
		status, after, _ := strings.Cut(step, ":")
		st, err := strconv.Atoi(status)
		if err != nil {
			f.t.Fatalf("bad step %q", step)
		}
		if after != "" {
			w.Header().Set("Retry-After", after)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st)
		json.NewEncoder(w).Encode(api.ErrorBody{Error: api.ErrorDetail{Status: st, Message: "scripted " + step}})
	}
}

// requests returns the requests seen so far.
func (f *flaky) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

// fast retries up to 5 times from a 1 ms wait: the scripts' retries
// take milliseconds.
var fast = client.WithRetry(5, time.Millisecond)

var hexKey = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestRetryWrites: each write (Add, Remove, AddFlat, RemoveFlat, Merge)
// answered by a connection closed before any answer, a 503, a 507 and an
// answer cut mid-body, then a 200, makes 5 attempts and returns the
// 200's answer; every attempt carries the same Idempotency-Key (32
// hexadecimal digits) and the same body, whole (the first attempt's
// equals what the call sends); the next call of the write has another
// key.
func TestRetryWrites(t *testing.T) {
	ctx := context.Background()
	rowsIn := [][]float64{{0.5, 0.25}, {0.125, 1}}
	model := bytes.Repeat([]byte("a model file "), 1000) // 13 kB
	writes := []struct {
		name string
		call func(*client.Client) (api.Written, error)
		path string
		want func(t *testing.T, body []byte)
	}{
		{"Add", func(c *client.Client) (api.Written, error) { return c.Add(ctx, "m", rowsIn) }, "/v1/memories/m/patterns", wantRows(rowsIn)},
		{"Remove", func(c *client.Client) (api.Written, error) { return c.Remove(ctx, "m", rowsIn) }, "/v1/memories/m/patterns:remove", wantRows(rowsIn)},
		{"AddFlat", func(c *client.Client) (api.Written, error) { return c.AddFlat(ctx, "m", flat(rowsIn), 2) }, "/v1/memories/m/patterns", wantNpy},
		{"RemoveFlat", func(c *client.Client) (api.Written, error) { return c.RemoveFlat(ctx, "m", flat(rowsIn), 2) }, "/v1/memories/m/patterns:remove", wantNpy},
		{"Merge", func(c *client.Client) (api.Written, error) { return c.Merge(ctx, "m", bytes.NewReader(model)) }, "/v1/memories/m/merge", func(t *testing.T, b []byte) {
			if !bytes.Equal(b, model) {
				t.Errorf("the model arrived as %d bytes, want %d", len(b), len(model))
			}
		}},
	}
	for _, wr := range writes {
		t.Run(wr.name, func(t *testing.T) {
			f := newFlaky(t, api.Written{Added: 2, Count: 7}, "close", "503", "507", "cut")
			c := client.New(f.url, fast)
			w, err := wr.call(c)
			if err != nil || w.Added != 2 || w.Count != 7 {
				t.Fatalf("%s: %+v, %v; want the 200's answer", wr.name, w, err)
			}
			reqs := f.requests()
			if len(reqs) != 5 {
				t.Fatalf("%d attempts, want 5", len(reqs))
			}
			wr.want(t, reqs[0].body)
			for i, r := range reqs {
				if r.path != wr.path {
					t.Errorf("attempt %d: path %s, want %s", i+1, r.path, wr.path)
				}
				if !hexKey.MatchString(r.key) || r.key != reqs[0].key {
					t.Errorf("attempt %d: Idempotency-Key %q, the first's %q: want the same 32 hexadecimal digits", i+1, r.key, reqs[0].key)
				}
				if !bytes.Equal(r.body, reqs[0].body) {
					t.Errorf("attempt %d: a body of %d bytes, the first's %d", i+1, len(r.body), len(reqs[0].body))
				}
			}
			if _, err := wr.call(c); err != nil {
				t.Fatal(err)
			}
			if reqs = f.requests(); len(reqs) != 6 || reqs[5].key == reqs[0].key || !hexKey.MatchString(reqs[5].key) {
				t.Errorf("the next call's key %q, the first call's %q: want another", reqs[len(reqs)-1].key, reqs[0].key)
			}
		})
	}
}

// wantRows checks that a body is the JSON of rows as patterns.
func wantRows(rows [][]float64) func(*testing.T, []byte) {
	return func(t *testing.T, b []byte) {
		t.Helper()
		var p api.Patterns
		if err := json.Unmarshal(b, &p); err != nil || fmt.Sprint(p.Patterns) != fmt.Sprint(rows) {
			t.Errorf("the body %s (%v), want the patterns %v", b, err, rows)
		}
	}
}

// wantNpy checks that a body is a .npy file of 2 rows of 2 values: its
// header and 32 bytes of data.
func wantNpy(t *testing.T, b []byte) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("\x93NUMPY")) || len(b) < 10 || len(b) != 10+int(b[8])+int(b[9])<<8+32 {
		t.Errorf("the body is not a whole .npy file of 2×2 values (%d bytes)", len(b))
	}
}

// TestRetryReads: every read (Health, List, Get, Energy, Recall, Complete,
// Metrics, Download) and the other calls (Create, Delete, Snapshot)
// answered by a 503 and a 502, then a 200, make 3 attempts, carry no
// Idempotency-Key (nor does a write with WithoutIdempotencyKeys), and
// return the 200's answer; the JSON answers, cut mid-body once more,
// make 4. A Download cut mid-file is not retried.
func TestRetryReads(t *testing.T) {
	ctx := context.Background()
	q := [][]float64{{1, 2}}
	calls := []struct {
		name string
		json bool // a JSON answer, read whole within the attempt
		call func(*client.Client) error
	}{
		{"Health", true, func(c *client.Client) error { _, err := c.Health(ctx); return err }},
		{"List", true, func(c *client.Client) error { _, err := c.List(ctx); return err }},
		{"Get", true, func(c *client.Client) error { _, err := c.Get(ctx, "m"); return err }},
		{"Energy", true, func(c *client.Client) error { _, err := c.Energy(ctx, "m", q, false); return err }},
		{"Recall", true, func(c *client.Client) error { _, err := c.Recall(ctx, "m", api.RecallRequest{Queries: q}); return err }},
		{"Complete", true, func(c *client.Client) error {
			_, err := c.Complete(ctx, "m", api.CompleteRequest{Rows: api.MissingRows{{1, math.NaN()}}})
			return err
		}},
		{"Create", true, func(c *client.Client) error { _, _, err := c.Create(ctx, "m", api.Config{D: 2}); return err }},
		{"Delete", true, func(c *client.Client) error { return c.Delete(ctx, "m") }},
		{"Snapshot", true, func(c *client.Client) error { _, err := c.Snapshot(ctx, "m"); return err }},
		{"Metrics", true, func(c *client.Client) error {
			m, err := c.Metrics(ctx)
			if err == nil && m != "the file" {
				err = fmt.Errorf("the metrics %q", m)
			}
			return err
		}},
		{"Download", false, func(c *client.Client) error {
			var b bytes.Buffer
			err := c.Download(ctx, "m", &b)
			if err == nil && b.String() != "the file" {
				err = fmt.Errorf("downloaded %q", b.String())
			}
			return err
		}},
		{"Add without keys", true, func(c *client.Client) error { _, err := c.Add(ctx, "m", q); return err }},
	}
	for _, call := range calls {
		t.Run(call.name, func(t *testing.T) {
			script := []string{"503", "502"}
			if call.json {
				script = append(script, "cut")
			}
			f := newFlaky(t, map[string]any{"status": "ok"}, script...)
			opts := []client.Option{fast}
			if call.name == "Add without keys" {
				opts = append(opts, client.WithoutIdempotencyKeys())
			}
			if err := call.call(client.New(f.url, opts...)); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			if len(reqs) != len(script)+1 {
				t.Errorf("%d attempts, want %d", len(reqs), len(script)+1)
			}
			for i, r := range reqs {
				if r.hasKey {
					t.Errorf("attempt %d has an Idempotency-Key, %q", i+1, r.key)
				}
			}
		})
	}
	// A download cut mid-file is not retried: w has part of it.
	f := newFlaky(t, nil, "cut")
	var b bytes.Buffer
	err := client.New(f.url, fast).Download(ctx, "m", &b)
	if err == nil || len(f.requests()) != 1 || b.String() != `{"added":` {
		t.Errorf("a download cut short: %v, %d attempts, %q written", err, len(f.requests()), b.String())
	}
}

// TestRetryStatuses: a call answered one of 408, 429, 500, 502, 503, 504
// and 507 is sent again (2 attempts), one answered another error status
// (400, 401, 404, 409, 413, 422: the same key with another body) is not
// (1 attempt), and its error is the *client.Error of that status, its
// text unchanged (no count of attempts).
func TestRetryStatuses(t *testing.T) {
	for _, st := range []int{408, 429, 500, 502, 503, 504, 507, 400, 401, 404, 409, 413, 422} {
		f := newFlaky(t, api.Written{Added: 1}, strconv.Itoa(st))
		_, err := client.New(f.url, fast).Add(context.Background(), "m", [][]float64{{1}})
		n := len(f.requests())
		switch st {
		case 408, 429, 500, 502, 503, 504, 507:
			if err != nil || n != 2 {
				t.Errorf("%d: %d attempts (%v), want 2 and the second's answer", st, n, err)
			}
		default:
			var e *client.Error
			if !errors.As(err, &e) || e.Status != st || n != 1 || strings.Contains(err.Error(), "attempt") {
				t.Errorf("%d: %d attempts, %v; want 1, and its error", st, n, err)
			}
		}
	}
}

// TestRetryGivesUp: a call answered 503 every time is sent 1 + the
// retries of WithRetry (4 here), all with the same key, and its error
// says "4 attempts" and wraps the last 503 (errors.As); with WithRetry(0,
// 0), one attempt, and the error as it was.
func TestRetryGivesUp(t *testing.T) {
	f := newFlaky(t, nil, "503", "503", "503", "503", "503", "503", "503")
	_, err := client.New(f.url, client.WithRetry(3, time.Millisecond)).Add(context.Background(), "m", [][]float64{{1}})
	var e *client.Error
	if !errors.As(err, &e) || e.Status != 503 || !strings.Contains(err.Error(), `Add "m": 4 attempts, the last: drdam: 503`) {
		t.Errorf("after 4 503s: %v", err)
	}
	reqs := f.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d attempts, want 4", len(reqs))
	}
	for _, r := range reqs {
		if r.key != reqs[0].key || r.key == "" {
			t.Errorf("keys %q and %q", r.key, reqs[0].key)
		}
	}
	g := newFlaky(t, nil, "503")
	_, err = client.New(g.url, client.WithRetry(0, 0)).Get(context.Background(), "m")
	if !errors.As(err, &e) || e.Status != 503 || strings.Contains(err.Error(), "attempt") || len(g.requests()) != 1 {
		t.Errorf("without retries: %d attempts, %v", len(g.requests()), err)
	}
}

// TestRetryCancel: a context cancelled while the call waits to retry (a
// wait of at least 500 ms: base 1 s, equal jitter) ends it within 250
// ms of the cancellation, after its one attempt, with an error that
// wraps both context.Canceled and the 503; cancelled while an attempt
// waits for its answer, likewise, not retried; a context whose deadline
// passes while the server hangs, likewise.
func TestRetryCancel(t *testing.T) {
	const prompt = 250 * time.Millisecond // the wait it cuts short is ≥ 500 ms
	for _, step := range []string{"503", "hang"} {
		f := newFlaky(t, nil, step, step, step)
		f.hit = make(chan struct{}, 3)
		ctx, cancel := context.WithCancel(context.Background())
		var t0 time.Time
		go func() {
			<-f.hit
			time.Sleep(20 * time.Millisecond)
			t0 = time.Now()
			cancel()
		}()
		_, err := client.New(f.url, client.WithRetry(5, time.Second)).Add(ctx, "m", [][]float64{{1}})
		took := time.Since(t0)
		if !errors.Is(err, context.Canceled) || took > prompt || len(f.requests()) != 1 {
			t.Errorf("%s, cancelled: %v, %d attempts, ended %v after the cancellation", step, err, len(f.requests()), took)
		}
		if step == "503" && (!errors.As(err, new(*client.Error)) || !strings.Contains(err.Error(), "1 attempt, then context canceled; the last: drdam: 503")) {
			t.Errorf("the error %q does not wrap the 503", err)
		}
	}
	f := newFlaky(t, nil, "hang", "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := client.New(f.url, client.WithRetry(5, time.Second)).Get(ctx, "m")
	if took := time.Since(t0); !errors.Is(err, context.DeadlineExceeded) || took > 100*time.Millisecond+prompt || len(f.requests()) != 1 {
		t.Errorf("a deadline of 100 ms: %v, %d attempts, after %v", err, len(f.requests()), took)
	}
}

// TestRetryBackoff: the waits between the attempts of a call answered
// 503 four times, with a base of 20 ms, are within [10, 20], [20, 40],
// [40, 80] and [80, 160] ms (base·2ⁿ⁻¹ with equal jitter), measured
// between the arrivals of the attempts. The lower bounds are firm: the
// client waits at least that long after the 503 arrives, which is after
// its request did. The upper ones get 150 ms more for a loaded machine
// (2 cores, other packages' tests beside) to answer and reconnect; a
// wait that did not grow would still fail the lower bounds of the third
// and fourth (40 and 80 ms, against at most 20).
func TestRetryBackoff(t *testing.T) {
	const slack = 150 * time.Millisecond
	f := newFlaky(t, nil, "503", "503", "503", "503")
	if _, err := client.New(f.url, client.WithRetry(5, 20*time.Millisecond)).Get(context.Background(), "m"); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 5 {
		t.Fatalf("%d attempts, want 5", len(reqs))
	}
	for i := 1; i < len(reqs); i++ {
		gap := reqs[i].at.Sub(reqs[i-1].at)
		lo := 10 * time.Millisecond << (i - 1)
		if gap < lo || gap > 2*lo+slack {
			t.Errorf("wait %d: %v, want [%v, %v] (+ %v)", i, gap, lo, 2*lo, slack)
		}
		t.Logf("wait %d: %v, in [%v, %v]", i, gap.Round(time.Millisecond/10), lo, 2*lo)
	}
}

// TestRetryAfter: a 503 with "Retry-After: 1" makes the client wait 1 s
// (not its 1 ms base) before the next attempt; the bound above gets
// 400 ms for a loaded machine. The cap (MaxBackoff, 5 s) is checked
// without waiting by TestDelay.
func TestRetryAfter(t *testing.T) {
	f := newFlaky(t, nil, "503:1")
	if _, err := client.New(f.url, fast).Get(context.Background(), "m"); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d attempts, want 2", len(reqs))
	}
	if gap := reqs[1].at.Sub(reqs[0].at); gap < time.Second || gap > 1400*time.Millisecond {
		t.Errorf("waited %v after a Retry-After of 1 s", gap)
	}
}

// TestIdempotencyKey: WithIdempotencyKey's key goes with every attempt
// of a write, instead of a random one (even WithoutIdempotencyKeys), and
// not with a read; a key of no characters, of 256, or with a space or a
// character beyond ASCII fails the write before it is sent.
func TestIdempotencyKey(t *testing.T) {
	f := newFlaky(t, api.Written{Added: 1}, "503", "cut")
	ctx := client.WithIdempotencyKey(context.Background(), "batch-0042")
	c := client.New(f.url, fast)
	if _, err := c.Add(ctx, "m", [][]float64{{1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.New(f.url, fast, client.WithoutIdempotencyKeys()).Merge(ctx, "m", strings.NewReader("model")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for i, r := range reqs[:4] {
		if r.key != "batch-0042" {
			t.Errorf("write attempt %d: Idempotency-Key %q, want batch-0042", i+1, r.key)
		}
	}
	if reqs[4].hasKey {
		t.Errorf("the read has the key %q", reqs[4].key)
	}
	for _, bad := range []string{"", "a b", "clé", strings.Repeat("k", 256)} {
		_, err := c.Add(client.WithIdempotencyKey(context.Background(), bad), "m", [][]float64{{1}})
		if err == nil || !strings.Contains(err.Error(), "idempotency key") {
			t.Errorf("the key %q: %v", bad, err)
		}
	}
	if _, err := c.Add(client.WithIdempotencyKey(context.Background(), strings.Repeat("~", 255)), "m", [][]float64{{1}}); err != nil {
		t.Errorf("a key of 255 characters: %v", err)
	}
	if n := len(f.requests()); n != 6 {
		t.Errorf("%d requests, want 6: the bad keys' writes were sent", n)
	}
}
