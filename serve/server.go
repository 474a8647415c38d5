package serve

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/serve/api"
)

// Limits bound what one request may ask, so that no request can exhaust
// the server's memory or run for ever.
type Limits struct {
	MaxBody  int64         // bytes of a request body (413 above)
	MaxBatch int           // rows of patterns or queries in one request (413 above)
	MaxD     int           // dimension of a memory (422 above)
	MaxY     int           // Y of a DrDAM (422 above)
	MaxSteps int           // max_steps of a recall (422 above)
	Timeout  time.Duration // of a request's computation (408 after)
	// A body must arrive at MinBodyRate bytes a second at least, after
	// BodyGrace: the first n bytes within BodyGrace + 1 s + n/MinBodyRate
	// (the largest body, 64 MiB, 17 minutes); a slower one is cut with 408, so that
	// a client that trickles its body (or stops) holds neither memory nor
	// a connection for ever. The server must allow read deadlines
	// (net/http's does).
	MinBodyRate int64
	BodyGrace   time.Duration
}

// DefaultLimits returns the limits of drdam serve: bodies of 64 MiB, 4096
// rows a request, D ≤ 65536, Y ≤ 4·10⁶, 10 000 descent steps, 60 s,
// bodies at 64 KiB/s after 5 s. It is a function, so that no caller can
// change what another gets.
func DefaultLimits() Limits {
	return Limits{MaxBody: 64 << 20, MaxBatch: 4096, MaxD: 1 << 16, MaxY: 4_000_000, MaxSteps: 10_000, Timeout: time.Minute,
		MinBodyRate: 64 << 10, BodyGrace: 5 * time.Second}
}

// unlimited are the limits of a configuration read from the server's own
// files.
var unlimited = Limits{MaxD: 1 << 30, MaxY: 1 << 30}

// Options configure a Server.
type Options struct {
	// Dir holds the memories, a folder each (created if absent).
	Dir string
	// Token, if not empty, is the bearer token that every request but
	// GET /healthz must carry ("Authorization: Bearer TOKEN").
	Token string
	// Limits; zero fields take those of DefaultLimits().
	Limits Limits
	// SnapshotEvery is the number of logged writes after which a memory
	// writes a snapshot and starts its log anew (0: 1000).
	SnapshotEvery int
	// Wave applies each write to a DrDAM in waves of about that long
	// (dam.DrDAM.SetWave): after each wave a core is idle for a moment,
	// and Go's scheduler reads the requests that arrived meanwhile;
	// without waves a query that arrives during a write waits for all of
	// it (or for Go's network poll, every 10 ms). 0 takes DefaultWave; a
	// negative Wave applies a write in one piece. What waves do to the
	// tail latency of queries and to the rate of additions is measured in
	// BENCHMARKS.md ("The memory service under load").
	Wave time.Duration
	// MaxMemory is the server's memory budget in bytes (0: three
	// quarters of the machine's memory, of the cgroup's limit or of
	// ulimit -v; under ulimit -v at most what the address space has left
	// once the runtime's and the C library's reservations are counted:
	// dam.DefaultBudget). Every open memory
	// holds its model's footprint of it, and every request what its body,
	// evaluation or descent may allocate, before allocating it; what
	// would pass it is refused with 507.
	MaxMemory int64
	// MaxOpen bounds the memories open at once (0: no bound). Past it,
	// the least recently used idle memory is closed (snapshotted) to open
	// another; a closed memory opens again when a request names it. At
	// start, memories are opened in name order up to MaxOpen and while
	// the budget allows; the others stay closed until named.
	MaxOpen int
	// IdleClose is how long a memory must have been idle before it is
	// closed to make room in the budget for another (0: one minute).
	// MaxOpen closes the least recently used idle memory whatever its
	// idle time.
	IdleClose time.Duration
	// Log receives a line per memory opened, closed, damaged or repaired
	// and per temporary file removed (nil: slog.Default()).
	Log *slog.Logger
	// AccessLog, if not nil, receives a line per request (accessLog:
	// method, path, route, status, bytes, duration, remote address).
	AccessLog *slog.Logger
}

// Server serves the memories kept in a folder over HTTP (see the package
// documentation). It is safe for concurrent use.
type Server struct {
	opt     Options
	mu      sync.Mutex // guards slots, open and each slot
	slots   map[string]*slot
	open    int // slots with an open memory
	budget  *budget
	env     *memEnv
	unlock  func() // releases the data folder's lock
	reg     *prometheus.Registry
	reqs    *prometheus.CounterVec
	latency *prometheus.HistogramVec
	mux     *http.ServeMux
	// gate admits the heavy computations (a descent step, a write's
	// application, an energy batch of more than gateFree queries): half
	// as many at a time as there are cores (at least one), each using
	// every core. A small energy query passes beside them, so that it is
	// not queued behind the steps of many descents. (Why half, and not
	// one per core: BENCHMARKS.md, "The memory service under load".)
	gate chan struct{}
	wr   *writing // how the memories write (write.go)
}

// DefaultWave is the waves of Options.Wave when it is 0.
const DefaultWave = 4 * time.Millisecond

// gateFree is the largest energy batch that does not wait for the gate.
const gateFree = 16

// namePattern is what a memory's name may be: it is a folder of Dir, so it
// can neither be empty, nor start with a dot, nor hold a separator.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// New opens (creating it if needed) the folder opt.Dir, taking it for
// this server alone (a lock file, dir/.lock, held until Close: a second
// server on the folder fails at once, naming the first's process),
// removes the temporary files that killed runs left, and opens the
// memories in it (see Options.MaxOpen), cutting the torn tail of a log.
// A memory whose files are damaged is logged and left closed: it answers
// 503, and the others are served.
func New(opt Options) (*Server, error) {
	if opt.Dir == "" {
		return nil, errors.New("serve: no data folder")
	}
	if opt.Token != "" && (strings.TrimSpace(opt.Token) != opt.Token || strings.ContainsFunc(opt.Token, unicode.IsControl)) {
		return nil, errors.New("the token has leading or trailing white space or a control character: it could not be sent in an Authorization header as it is")
	}
	l, d := &opt.Limits, DefaultLimits()
	orDefault(&l.MaxBody, d.MaxBody)
	orDefault(&l.MaxBatch, d.MaxBatch)
	orDefault(&l.MaxD, d.MaxD)
	orDefault(&l.MaxY, d.MaxY)
	orDefault(&l.MaxSteps, d.MaxSteps)
	orDefault(&l.Timeout, d.Timeout)
	orDefault(&l.MinBodyRate, d.MinBodyRate)
	orDefault(&l.BodyGrace, d.BodyGrace)
	if opt.SnapshotEvery <= 0 {
		opt.SnapshotEvery = 1000
	}
	switch {
	case opt.Wave == 0:
		opt.Wave = DefaultWave
	case opt.Wave < 0:
		opt.Wave = 0 // in one piece (dam.DrDAM.SetWave)
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.MaxMemory <= 0 {
		opt.MaxMemory = dam.DefaultBudget()
	}
	if opt.IdleClose <= 0 {
		opt.IdleClose = time.Minute
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	lockPath := filepath.Join(opt.Dir, ".lock")
	unlock, noLocks, err := atomicfile.Own(lockPath)
	if err != nil {
		var he *atomicfile.HeldError
		if errors.As(err, &he) {
			who := "another process"
			if he.PID > 0 {
				who = fmt.Sprintf("process %d", he.PID)
			}
			return nil, fmt.Errorf("the data folder %s is in use by %s (another drdam serve?): two servers on one folder would lose writes; stop it, or choose another --data", opt.Dir, who)
		}
		return nil, fmt.Errorf("locking the data folder: %w", err)
	}
	if noLocks {
		opt.Log.Warn("this system has no advisory locks: nothing stops a second server on the same data folder", "data", opt.Dir)
	}
	s := &Server{opt: opt, slots: map[string]*slot{}, gate: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)),
		budget: &budget{limit: opt.MaxMemory}, unlock: unlock}
	s.wr = &writing{every: opt.SnapshotEvery, wave: opt.Wave, gate: s.gate}
	s.env = &memEnv{budget: s.budget, log: opt.Log, wr: s.wr}
	if err := s.scan(); err != nil {
		unlock()
		return nil, err
	}
	s.metrics()
	s.routes()
	return s, nil
}

// scan finds the memories of Dir, removes what killed runs left (temporary
// files, half-made or half-deleted folders), and opens the memories in
// name order while MaxOpen and the budget allow.
func (s *Server) scan() error {
	dir := s.opt.Dir
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	s.removeTemps(dir)
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(dir, name)
		if e.IsDir() && strings.HasPrefix(name, deletedPrefix) {
			// A memory deleted by a server killed before it removed it.
			if err := os.RemoveAll(path); err == nil {
				s.opt.Log.Info("removed the folder of a memory deleted by a server that was killed meanwhile", "folder", path)
			}
			continue
		}
		if !e.IsDir() || !namePattern.MatchString(name) {
			continue
		}
		s.removeTemps(path)
		if !fileExists(filepath.Join(path, "memory.json")) {
			if inner, err := os.ReadDir(path); err == nil && len(inner) == 0 {
				// Made by a PUT killed before it wrote the configuration.
				os.Remove(path)
				s.opt.Log.Info("removed the empty folder of a memory whose creation was interrupted", "folder", path)
			}
			continue
		}
		sl := &slot{name: name, dir: path, count: -1}
		sl.cfg, sl.err = readConfig(path)
		if sl.err != nil {
			if _, ok := sl.err.(*DamageError); !ok {
				sl.err = &DamageError{File: filepath.Join(path, "memory.json"), Off: -1, Msg: sl.err.Error()}
			}
			s.opt.Log.Error("memory damaged: not opened (it answers 503); the other memories are served", "memory", name, "err", sl.err)
		}
		s.slots[name] = sl
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sl := range s.list0() {
		if sl.err != nil {
			continue
		}
		if s.opt.MaxOpen > 0 && s.open >= s.opt.MaxOpen {
			s.opt.Log.Info("memory left closed at start (--max-open): opened when a request names it", "memory", sl.name)
			continue
		}
		if err := s.openSlot(sl); err != nil {
			var be *BudgetError
			if errors.As(err, &be) {
				s.opt.Log.Warn("memory left closed at start (the memory budget): opened when a request names it and room is made", "memory", sl.name, "err", err)
			} else if sl.err == nil {
				return fmt.Errorf("serve: memory %s: %w", sl.name, err)
			}
		}
	}
	return nil
}

// list0 is list with s.mu held.
func (s *Server) list0() []*slot {
	out := make([]*slot, 0, len(s.slots))
	for _, sl := range s.slots {
		out = append(out, sl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// deletedPrefix starts the name a memory's folder is renamed to before it
// is removed, so that a server killed while removing it leaves no
// half-memory behind (scan removes such folders).
const deletedPrefix = ".deleted-"

// removeTemps removes the temporary files in dir that an atomic write
// killed mid-way left (this server owns the folder, so no live write is
// robbed), and logs each.
func (s *Server) removeTemps(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type().IsRegular() && atomicfile.IsTemp(e.Name()) {
			p := filepath.Join(dir, e.Name())
			if err := os.Remove(p); err == nil {
				s.opt.Log.Info("removed a temporary file that a killed run left", "file", p)
			}
		}
	}
}

// orDefault sets *v to def if it is not positive.
func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Close writes a snapshot of every open memory, closes its log and
// releases the data folder. Requests must be finished
// (http.Server.Shutdown) first.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, sl := range s.slots {
		if sl.mem == nil {
			continue
		}
		if err := sl.mem.close(true); err != nil && first == nil {
			first = fmt.Errorf("memory %s: %w", sl.name, err)
		}
	}
	if s.unlock != nil {
		s.unlock()
		s.unlock = nil
	}
	return first
}

// Handler returns the server's HTTP handler: the API under /v1, /healthz
// and /metrics, behind the token if there is one, with a line per request
// on Options.AccessLog if set.
func (s *Server) Handler() http.Handler {
	if s.opt.AccessLog != nil {
		return accessLog(s.opt.AccessLog, s.auth(s.mux))
	}
	return s.auth(s.mux)
}

// auth refuses a request without the token (but GET /healthz), with 401.
func (s *Server) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.opt.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opt.Token != "" && !public(r) {
			got := []byte(r.Header.Get("Authorization"))
			if subtle.ConstantTimeCompare(got, want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="drdam"`)
				writeError(w, &FieldError{Status: http.StatusUnauthorized, Field: "Authorization", Msg: "want the header Authorization: Bearer <token>"})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// metrics registers the server's Prometheus metrics (those of the writes
// in s.wr).
func (s *Server) metrics() {
	s.reg = prometheus.NewRegistry()
	s.reqs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "drdam_requests_total", Help: "HTTP requests, by route and status."}, []string{"route", "code"})
	s.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "drdam_request_seconds", Help: "Time to answer a request, by route.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 18)}, []string{"route"})
	s.wr.apply = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "drdam_write_apply_seconds", Help: "Time a write (a record of the log) takes to apply to the model, by operation: its sum over a span of time, against the span, is how busy the writes kept the server.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16)}, []string{"op"})
	s.wr.group = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "drdam_add_group_requests", Help: "Additions written as one record (group commit: the additions that arrived while another write was under way).",
		Buckets: prometheus.ExponentialBuckets(1, 2, 8)})
	s.reg.MustRegister(s.reqs, s.latency, s.wr.apply, s.wr.group, memCollector{s},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

var (
	patternsDesc = prometheus.NewDesc("drdam_memory_patterns", "Patterns stored in a memory.", []string{"memory"}, nil)
	bytesDesc    = prometheus.NewDesc("drdam_memory_bytes", "Bytes of a memory's stored state: T (8·F) for a DrDAM, the patterns (8·K·D) for an MrDAM.", []string{"memory"}, nil)
	budgetDesc   = prometheus.NewDesc("drdam_budget_bytes", "The server's memory budget (--max-memory): its limit, and what open memories and requests under way hold of it.", []string{"kind"}, nil)
	openDesc     = prometheus.NewDesc("drdam_memories", "Memories by status: ready (open), closed (opened on demand), damaged (answering 503).", []string{"status"}, nil)
)

// memCollector reports the patterns and bytes of every memory when
// scraped.
type memCollector struct{ s *Server }

func (c memCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- patternsDesc
	ch <- bytesDesc
	ch <- budgetDesc
	ch <- openDesc
}

func (c memCollector) Collect(ch chan<- prometheus.Metric) {
	states := map[string]int{"ready": 0, "closed": 0, "damaged": 0}
	for _, sl := range c.s.list() {
		in := c.s.info(sl)
		states[in.Status]++
		if in.Count < 0 {
			continue
		}
		ch <- prometheus.MustNewConstMetric(patternsDesc, prometheus.GaugeValue, float64(in.Count), in.Name)
		ch <- prometheus.MustNewConstMetric(bytesDesc, prometheus.GaugeValue, float64(in.Bytes), in.Name)
	}
	for st, n := range states {
		ch <- prometheus.MustNewConstMetric(openDesc, prometheus.GaugeValue, float64(n), st)
	}
	ch <- prometheus.MustNewConstMetric(budgetDesc, prometheus.GaugeValue, float64(c.s.budget.limit), "limit")
	ch <- prometheus.MustNewConstMetric(budgetDesc, prometheus.GaugeValue, float64(c.s.budget.inUse()), "used")
}

// stateBytes returns the bytes of the stored state of a memory of n
// patterns.
func stateBytes(c dam.Config, n int) float64 {
	if c.Rep == dam.RepDrDAM {
		return 8 * float64(c.FeatureDim())
	}
	return 8 * float64(n) * float64(c.D)
}

// routes registers the handlers.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	handle := func(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
		route := pattern
		s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			t0 := time.Now()
			rw := &statusWriter{ResponseWriter: w, code: 200}
			st := &reqState{s: s, start: t0, rc: http.NewResponseController(rw), length: r.ContentLength}
			raw := r.Body
			defer func() { st.done(raw) }()
			if r.Body != nil && r.Body != http.NoBody {
				st.hasBody = true
				r.Body = &budgetBody{ReadCloser: http.MaxBytesReader(rw, r.Body, s.opt.Limits.MaxBody), st: st, factor: bodyFactor}
			}
			ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), reqKey{}, st), s.opt.Limits.Timeout)
			defer cancel()
			if err := h(rw, r.WithContext(ctx)); err != nil {
				writeError(rw, err)
			}
			s.reqs.WithLabelValues(route, fmt.Sprint(rw.code)).Inc()
			s.latency.WithLabelValues(route).Observe(time.Since(t0).Seconds())
		})
	}
	routes := []struct {
		pattern string
		h       func(w http.ResponseWriter, r *http.Request) error
	}{
		{"GET /healthz", func(w http.ResponseWriter, r *http.Request) error {
			n, bad := 0, 0
			for _, sl := range s.list() {
				n++
				if s.info(sl).Status == "damaged" {
					bad++
				}
			}
			return writeJSON(w, 200, map[string]any{"status": "ok", "memories": n, "damaged": bad})
		}},
		{"GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Content-Type", "application/json")
			_, err := w.Write(openAPI)
			return err
		}},
		{"GET /v1/limits", func(w http.ResponseWriter, r *http.Request) error {
			l := s.opt.Limits
			return writeJSON(w, 200, api.Limits{MaxBody: l.MaxBody, MaxBatch: l.MaxBatch, MaxD: l.MaxD, MaxY: l.MaxY, MaxSteps: l.MaxSteps,
				TimeoutSeconds: l.Timeout.Seconds(), MaxMemory: s.opt.MaxMemory})
		}},
		{"GET /v1/memories", s.listMemories},
		{"PUT /v1/memories/{name}", s.createMemory},
		{"GET /v1/memories/{name}", s.getMemory},
		{"DELETE /v1/memories/{name}", s.deleteMemory},
		{"POST /v1/memories/{name}/patterns", func(w http.ResponseWriter, r *http.Request) error { return s.writePatterns(w, r, opAdd) }},
		{"POST /v1/memories/{name}/patterns:remove", func(w http.ResponseWriter, r *http.Request) error { return s.writePatterns(w, r, opRemove) }},
		{"POST /v1/memories/{name}/energy", s.energy},
		{"POST /v1/memories/{name}/recall", s.recall},
		{"POST /v1/memories/{name}/complete", s.complete},
		{"POST /v1/memories/{name}/snapshot", s.snapshot},
		{"GET /v1/memories/{name}/snapshot", s.download},
		{"PUT /v1/memories/{name}/merge", s.merge},
		{"POST /v1/memories/{name}/recall:stream", s.recallStream}, // web.go, stream.go, gallery.go
		{"GET /v1/memories/{name}/gallery", s.getGallery},
		{"GET /{$}", s.page},
		{"GET /web/{file}", s.asset},
	}
	// Each path answers the methods it does not take with a JSON 405
	// naming those it does, and any other path with a JSON 404.
	allow := map[string][]string{}
	var paths []string
	for _, rt := range routes {
		handle(rt.pattern, rt.h)
		method, path, _ := strings.Cut(rt.pattern, " ")
		if allow[path] == nil {
			paths = append(paths, path)
		}
		allow[path] = append(allow[path], method)
	}
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	allow["/metrics"] = []string{"GET"}
	paths = append(paths, "/metrics")
	for _, p := range paths {
		methods := strings.Join(allow[p], ", ")
		handle(p, func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Allow", methods)
			return fieldErr(405, "", "%s %s: this path takes %s", r.Method, r.URL.Path, methods)
		})
	}
	handle("/", func(w http.ResponseWriter, r *http.Request) error {
		return fieldErr(404, "", "no such route: %s %s (the API is under /v1: GET /v1/openapi.json describes it)", r.Method, r.URL.Path)
	})
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) { w.code = code; w.ResponseWriter.WriteHeader(code) }

// Unwrap gives http.ResponseController the connection's writer (for the
// body's read deadline).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// writeJSON writes v with the status code.
func writeJSON(w http.ResponseWriter, code int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	return json.NewEncoder(w).Encode(v)
}

// ErrorBody and ErrorDetail are the JSON body of every error (see
// api.ErrorBody).
type (
	ErrorBody   = api.ErrorBody
	ErrorDetail = api.ErrorDetail
)

// writeError answers err: a FieldError with its status, a body too large
// with 413, the budget with 507, a body too slow or a computation too long
// with 408, a damaged memory with 503, a memory closed meanwhile with 409,
// a full disk with 507, anything else with 500.
func writeError(w http.ResponseWriter, err error) {
	d := errorDetail(err)
	writeJSON(w, d.Status, ErrorBody{Error: d})
}

// errorDetail is the ErrorDetail of err (see writeError).
func errorDetail(err error) ErrorDetail {
	d := ErrorDetail{Status: 500, Message: err.Error()}
	var fe *FieldError
	var mb *http.MaxBytesError
	var be *BudgetError
	var de *DamageError
	var se *SyncError
	switch {
	case errors.As(err, &fe):
		d = ErrorDetail{Status: fe.Status, Field: fe.Field, Message: fe.Msg}
	case errors.As(err, &mb):
		d = ErrorDetail{Status: 413, Message: fmt.Sprintf("the body is larger than this server's limit of %d bytes", mb.Limit)}
	case errors.As(err, &be):
		d = ErrorDetail{Status: 507, Message: be.Error()}
	case errors.Is(err, errSlowBody):
		d = ErrorDetail{Status: 408, Message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		d = ErrorDetail{Status: 408, Message: "the request took longer than this server's limit: " + err.Error()}
	case errors.Is(err, context.Canceled):
		d = ErrorDetail{Status: 408, Message: "the request was cancelled: its client went away"}
	case errors.As(err, &de):
		d = ErrorDetail{Status: 503, Field: "name", Message: err.Error()}
	case errors.Is(err, errClosed):
		d = ErrorDetail{Status: 409, Message: err.Error()}
	case noSpace(err):
		d = ErrorDetail{Status: 507, Message: "the disk is full: " + err.Error() + "; nothing was stored (retry once there is room)"}
		if errors.As(err, &se) {
			d.Message = "the disk is full: " + se.Error()
		}
	}
	return d
}
