package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/drdam/drdam/npy"
	"github.com/drdam/drdam/serve/api"
)

// Client is a client of one drdam server. It is safe for concurrent use.
type Client struct {
	base  string
	token string
	hc    *http.Client

	retries int           // attempts after the first (WithRetry)
	backoff time.Duration // the wait before the first retry
	noKeys  bool          // writes without an Idempotency-Key
}

// Option configures a Client (New).
type Option func(*Client)

// WithToken makes every request carry "Authorization: Bearer token", as a
// server started with a token requires.
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithHTTPClient makes the Client send its requests with hc (its
// transport, timeout, …) instead of the default (see NewTransport).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// NewTransport returns a transport with http.DefaultTransport's settings
// and a write buffer of 64 KiB instead of 4 KiB, so that a request of a
// few queries (15 KB of JSON for one of D = 784) leaves in one write:
// split in four, it made a busy server's handler wait for the rest of its
// body, up to 0.9 ms at the 99th percentile under the service's load test
// (BENCHMARKS.md), 0.08 ms in one write. Clients made by New without
// WithHTTPClient share one.
func NewTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.WriteBufferSize = 64 << 10
	return t
}

// defaultHTTP is the http.Client of the Clients made without
// WithHTTPClient.
var defaultHTTP = &http.Client{Transport: NewTransport()}

// New returns a client of the server at baseURL (http://127.0.0.1:7077;
// a trailing slash is ignored).
func New(baseURL string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), hc: defaultHTTP, retries: DefaultRetries, backoff: DefaultBackoff}
	for _, o := range opts {
		o(c)
	}
	if c.hc == nil {
		c.hc = defaultHTTP
	}
	return c
}

// Error is an error status answered by the server: the HTTP status, the
// field of the request it is about (empty if none: "name", "patterns",
// "queries", "Authorization", …) and the server's message. It is returned
// wrapped with the method and the memory's name: use errors.As.
type Error struct {
	Status  int
	Field   string
	Message string
}

// Error returns "drdam: 404 Not Found (name): no memory \"x\"".
func (e *Error) Error() string {
	s := fmt.Sprintf("drdam: %d %s", e.Status, http.StatusText(e.Status))
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	return s + ": " + e.Message
}

// maxErrorBody bounds what is read of an error's body.
const maxErrorBody = 1 << 16

// errorOf builds the Error of a response with an error status from its
// JSON error body, or, if the body is not one, from the status and the
// body's first line.
func errorOf(resp *http.Response) *Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var eb api.ErrorBody
	if json.Unmarshal(b, &eb) == nil && eb.Error.Message != "" {
		e := &Error{Status: eb.Error.Status, Field: eb.Error.Field, Message: eb.Error.Message}
		if e.Status == 0 {
			e.Status = resp.StatusCode
		}
		return e
	}
	msg := strings.TrimSpace(string(b))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = "no error body"
	}
	return &Error{Status: resp.StatusCode, Message: "not a drdam error body: " + msg}
}

// request is one call: its method's name and memory (for errors), the
// HTTP method and path, the body (sent again by a retry) and its type,
// and whether it is a write that takes an Idempotency-Key.
type request struct {
	op, name     string
	method, path string
	body         []byte
	stream       io.Reader // the body instead, if the Client makes no retries
	ctype        string
	keyed        bool
}

// send sends r, and again after a failure worth retrying (retryable) as
// the Client's policy says, with the same Idempotency-Key every time
// (keyOf). It returns the first response of a status below 300: if read,
// with its body read whole (a body cut short is retried too) and closed;
// else with its body for the caller to read and close, not retried. A
// response of another status is closed. Errors are wrapped with r.op and
// r.name, and with the number of attempts if more than one (gaveUp).
func (c *Client) send(ctx context.Context, r request, read bool) (*http.Response, []byte, error) {
	key, err := c.keyOf(ctx, r)
	if err != nil {
		return nil, nil, r.wrap(err)
	}
	for n := 1; ; n++ {
		resp, body, wait, err := c.attempt(ctx, r, key, read)
		if err == nil {
			return resp, body, nil
		}
		if ctx.Err() != nil {
			return nil, nil, r.wrap(gaveUp(n, err, ctx.Err()))
		}
		if n > c.retries || !retryable(err) {
			return nil, nil, r.wrap(gaveUp(n, err, nil))
		}
		if stop := sleep(ctx, delay(n, c.backoff, wait)); stop != nil {
			return nil, nil, r.wrap(gaveUp(n, err, stop))
		}
	}
}

// attempt sends r once, with the Idempotency-Key key if not empty, and
// returns the response and, if read, its body; or the error and, for an
// error status, the wait its Retry-After header asks for (-1 if none).
func (c *Client) attempt(ctx context.Context, r request, key string, read bool) (resp *http.Response, body []byte, wait time.Duration, err error) {
	rd := r.stream
	if r.body != nil {
		rd = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.base+r.path, rd)
	if err != nil {
		return nil, nil, -1, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", r.ctype)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err = c.hc.Do(req)
	if err != nil {
		return nil, nil, -1, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, nil, retryAfter(resp.Header), errorOf(resp)
	}
	if !read {
		return resp, nil, -1, nil
	}
	defer resp.Body.Close()
	if body, err = io.ReadAll(resp.Body); err != nil {
		return nil, nil, -1, fmt.Errorf("reading the answer: %w", err)
	}
	return resp, body, -1, nil
}

// do sends r and decodes the JSON answer into out (if not nil); it
// returns the status.
func (c *Client) do(ctx context.Context, r request, out any) (int, error) {
	resp, body, err := c.send(ctx, r, true)
	if err != nil {
		return 0, err
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			return resp.StatusCode, r.wrap(fmt.Errorf("decoding the answer: %w", err))
		}
	}
	return resp.StatusCode, nil
}

// wrap prefixes err with the method and the memory.
func (r request) wrap(err error) error {
	if r.name == "" {
		return fmt.Errorf("drdam client: %s: %w", r.op, err)
	}
	return fmt.Errorf("drdam client: %s %q: %w", r.op, r.name, err)
}

// jsonRequest is a request with v, marshalled, as its body.
func jsonRequest(op, name, method, path string, v any) (request, error) {
	r := request{op: op, name: name, method: method, path: path}
	b, err := json.Marshal(v)
	if err != nil {
		return r, r.wrap(err)
	}
	r.body, r.ctype = b, "application/json"
	return r, nil
}

// memPath returns the path of memory name, followed by rest.
func memPath(name, rest string) string {
	return "/v1/memories/" + url.PathEscape(name) + rest
}

// Health is the answer of GET /healthz.
type Health struct {
	Status   string `json:"status"`   // "ok"
	Memories int    `json:"memories"` // memories open
}

// Health asks whether the server is up (GET /healthz, which needs no
// token).
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	_, err := c.do(ctx, request{op: "Health", method: "GET", path: "/healthz"}, &h)
	return h, err
}

// Create creates the memory name of configuration cfg (PUT
// /v1/memories/{name}; cfg.D is required, zero fields take drdam
// encode's defaults). created is false if the memory existed already with
// the same configuration; with another, the error is a 409.
func (c *Client) Create(ctx context.Context, name string, cfg api.Config) (info api.MemoryInfo, created bool, err error) {
	r, err := jsonRequest("Create", name, "PUT", memPath(name, ""), cfg)
	if err != nil {
		return info, false, err
	}
	st, err := c.do(ctx, r, &info)
	return info, st == http.StatusCreated, err
}

// List returns every memory of the server, by name.
func (c *Client) List(ctx context.Context) ([]api.MemoryInfo, error) {
	var out struct {
		Memories []api.MemoryInfo `json:"memories"`
	}
	_, err := c.do(ctx, request{op: "List", method: "GET", path: "/v1/memories"}, &out)
	return out.Memories, err
}

// Limits returns what one request may ask of the server (GET
// /v1/limits): the rows of a batch, the bytes of a body, …, so that a
// large batch can be split before it is sent.
func (c *Client) Limits(ctx context.Context) (api.Limits, error) {
	var l api.Limits
	_, err := c.do(ctx, request{op: "Limits", method: "GET", path: "/v1/limits"}, &l)
	return l, err
}

// Get returns the configuration and count of the memory name.
func (c *Client) Get(ctx context.Context, name string) (api.MemoryInfo, error) {
	var info api.MemoryInfo
	_, err := c.do(ctx, request{op: "Get", name: name, method: "GET", path: memPath(name, "")}, &info)
	return info, err
}

// Delete deletes the memory name, its files and all.
func (c *Client) Delete(ctx context.Context, name string) error {
	_, err := c.do(ctx, request{op: "Delete", name: name, method: "DELETE", path: memPath(name, "")}, nil)
	return err
}

// Add adds the patterns rows (each of D values) to the memory name, as
// JSON; it returns once they are in the memory's synced log, with the
// number added and the memory's count.
func (c *Client) Add(ctx context.Context, name string, rows [][]float64) (api.Written, error) {
	return c.writeRows(ctx, "Add", name, "/patterns", rows)
}

// Remove removes the patterns rows from the memory name (a DrDAM
// subtracts their features; an MrDAM removes stored rows equal to them).
func (c *Client) Remove(ctx context.Context, name string, rows [][]float64) (api.Written, error) {
	return c.writeRows(ctx, "Remove", name, "/patterns:remove", rows)
}

// AddFlat adds the patterns x, row-major rows of d values, as a .npy body:
// 8 bytes a value, read without parsing text, for large batches. The
// memory ends the same as after Add of the same rows.
func (c *Client) AddFlat(ctx context.Context, name string, x []float64, d int) (api.Written, error) {
	return c.writeFlat(ctx, "AddFlat", name, "/patterns", x, d)
}

// AddBatches adds the patterns x (row-major rows of d values) in batches
// that the server takes (GET /v1/limits: at most max_batch rows and
// max_body bytes of .npy each), each an AddFlat with its own idempotency
// key and retries, calling progress (if not nil) with the rows added so
// far and their total after each batch. It returns the rows added and the
// memory's count after the last batch. On an error the batches before the
// failing one are stored (Added says how many rows), the rest are not.
func (c *Client) AddBatches(ctx context.Context, name string, x []float64, d int, progress func(done, total int)) (api.Written, error) {
	var w api.Written
	if d <= 0 || len(x)%d != 0 {
		return w, fmt.Errorf("drdam: AddBatches %s: %d values are not rows of d = %d", name, len(x), d)
	}
	l, err := c.Limits(ctx)
	if err != nil {
		return w, err
	}
	const header = 256 // a .npy header, with room
	per := min(l.MaxBatch, int((l.MaxBody-header)/int64(8*d)))
	if per < 1 {
		return w, fmt.Errorf("drdam: AddBatches %s: one row of d = %d (%d bytes) does not fit the server's body limit of %d bytes", name, d, 8*d, l.MaxBody)
	}
	n := len(x) / d
	for lo := 0; lo < n; lo += per {
		hi := min(n, lo+per)
		b, err := c.AddFlat(ctx, name, x[lo*d:hi*d], d)
		if err != nil {
			return w, fmt.Errorf("after %d of %d rows: %w", lo, n, err)
		}
		w.Added += b.Added
		w.Count = b.Count
		if progress != nil {
			progress(hi, n)
		}
	}
	return w, nil
}

// RemoveFlat removes the patterns x, row-major rows of d values, as a .npy
// body.
func (c *Client) RemoveFlat(ctx context.Context, name string, x []float64, d int) (api.Written, error) {
	return c.writeFlat(ctx, "RemoveFlat", name, "/patterns:remove", x, d)
}

func (c *Client) writeRows(ctx context.Context, op, name, rest string, rows [][]float64) (api.Written, error) {
	var w api.Written
	r, err := jsonRequest(op, name, "POST", memPath(name, rest), api.Patterns{Patterns: rows})
	if err != nil {
		return w, err
	}
	r.keyed = true
	_, err = c.do(ctx, r, &w)
	return w, err
}

func (c *Client) writeFlat(ctx context.Context, op, name, rest string, x []float64, d int) (api.Written, error) {
	var w api.Written
	r := request{op: op, name: name, method: "POST", path: memPath(name, rest), ctype: "application/x-npy", keyed: true}
	if d <= 0 || len(x)%d != 0 {
		return w, r.wrap(fmt.Errorf("%d values are not rows of d = %d", len(x), d))
	}
	var b bytes.Buffer
	b.Grow(128 + 8*len(x))
	if err := npy.Write(&b, []int{len(x) / d, d}, x); err != nil {
		return w, r.wrap(err)
	}
	r.body = b.Bytes()
	_, err := c.do(ctx, r, &w)
	return w, err
}

// Energy returns the energies of the queries (rows of D values) under the
// memory name, and their gradients if grad.
func (c *Client) Energy(ctx context.Context, name string, queries [][]float64, grad bool) (api.EnergyResult, error) {
	var out api.EnergyResult
	r, err := jsonRequest("Energy", name, "POST", memPath(name, "/energy"), api.EnergyRequest{Queries: queries, Grad: grad})
	if err != nil {
		return out, err
	}
	_, err = c.do(ctx, r, &out)
	return out, err
}

// Recall descends the energy of the memory name from req.Queries (see
// api.RecallRequest for the mask, step, max_steps, tol and box) and
// returns the final states. Cancelling ctx abandons the request, and the
// server stops the descent at its next step.
func (c *Client) Recall(ctx context.Context, name string, req api.RecallRequest) (api.RecallResult, error) {
	var out api.RecallResult
	r, err := jsonRequest("Recall", name, "POST", memPath(name, "/recall"), req)
	if err != nil {
		return out, err
	}
	_, err = c.do(ctx, r, &out)
	return out, err
}

// Complete completes the rows of req.Rows, in which NaN is a missing
// entry (sent as null: api.MissingRows), by a descent of the energy of
// the memory name with the visible entries clamped and the missing ones
// started at req.Fill (or 0); see api.CompleteRequest for the step,
// max_steps, tol and box, a recall's. It returns the completed rows
// (their visible entries as sent, bit for bit), the steps, the final
// energies and the outcomes. It is a read: retried as Recall is, with no
// Idempotency-Key. ±Inf fails before anything is sent (JSON has none).
func (c *Client) Complete(ctx context.Context, name string, req api.CompleteRequest) (api.CompleteResult, error) {
	var out api.CompleteResult
	r, err := jsonRequest("Complete", name, "POST", memPath(name, "/complete"), req)
	if err != nil {
		return out, err
	}
	_, err = c.do(ctx, r, &out)
	return out, err
}

// Snapshot makes the server write a snapshot of the memory name now (a
// model file on the server's disk, and its log emptied) and returns its
// path and count.
func (c *Client) Snapshot(ctx context.Context, name string) (api.Snapshot, error) {
	var out api.Snapshot
	_, err := c.do(ctx, request{op: "Snapshot", name: name, method: "POST", path: memPath(name, "/snapshot")}, &out)
	return out, err
}

// Download writes the model file of the memory name, as of now, to w: a
// file that drdam info, recall and dam.Read open. It is retried until
// the file's first byte; a failure while the file is copied to w is
// returned, not retried (w has part of it).
func (c *Client) Download(ctx context.Context, name string, w io.Writer) error {
	r := request{op: "Download", name: name, method: "GET", path: memPath(name, "/snapshot")}
	resp, _, err := c.send(ctx, r, false)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return r.wrap(err)
	}
	return nil
}

// Merge adds the memories of a model file (read from model: a Download,
// or drdam encode's output) to the memory name, whose configuration it
// must have (409 otherwise). model is read whole first, to be sent again
// by a retry (streamed instead if retries are disabled: WithRetry).
func (c *Client) Merge(ctx context.Context, name string, model io.Reader) (api.Written, error) {
	var w api.Written
	r := request{op: "Merge", name: name, method: "PUT", path: memPath(name, "/merge"), ctype: "application/octet-stream", keyed: true}
	if c.retries == 0 {
		r.stream = model
	} else {
		b, err := io.ReadAll(model)
		if err != nil {
			return w, r.wrap(fmt.Errorf("reading the model: %w", err))
		}
		r.body = b
	}
	_, err := c.do(ctx, r, &w)
	return w, err
}

// Metrics returns the server's Prometheus metrics, in the text format.
func (c *Client) Metrics(ctx context.Context) (string, error) {
	_, b, err := c.send(ctx, request{op: "Metrics", method: "GET", path: "/metrics"}, true)
	return string(b), err
}

// IsNotFound reports whether err is a 404 answered by the server: no such
// memory.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}
