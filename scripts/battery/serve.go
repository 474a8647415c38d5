package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The service's cases: every bad request of serve/bad_test.go and
// docs/serve.md against one `drdam serve` with a token (the limits are the
// command's defaults, not the test's lowered ones), then the faults, each
// on a data folder and a server of its own. Servers listen on 127.0.0.1
// only, on a port that was free a moment before.

const token = "s3cret"

// server is a running (or ended) drdam serve.
type server struct {
	pid    int
	addr   string
	dir    string
	stderr *limitedBuffer
	done   chan struct{}
	exit   int
	sig    syscall.Signal
}

// serversStarted lists every server the battery started, to end those still
// running when it stops.
var serversStarted struct {
	sync.Mutex
	list []*server
}

// killServers ends every server still running.
func killServers() {
	serversStarted.Lock()
	defer serversStarted.Unlock()
	for _, s := range serversStarted.list {
		if s.alive() && s.pid > 0 {
			syscall.Kill(-s.pid, syscall.SIGKILL)
		}
	}
}

// freeAddr returns a loopback address whose port is free at the moment.
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:17077"
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer starts drdam serve on dir (at addr, or a free loopback port
// if addr is ""), under ulimit -v limitKB if not 0, and waits until it
// answers /healthz (20 s at most). The error says why it did not come up;
// the server is returned either way, to read its output.
func (b *battery) startServer(dir, addr string, limitKB int, env []string, extra ...string) (*server, error) {
	if addr == "" {
		addr = freeAddr()
	}
	args := append([]string{"serve", "--data", dir, "--addr", addr}, extra...)
	var cmd *exec.Cmd
	if limitKB > 0 {
		cmd = exec.Command("bash", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$@"`, limitKB), "bash", b.drdam}, args...)...)
	} else {
		cmd = exec.Command(b.drdam, args...)
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s := &server{addr: addr, dir: dir, stderr: &limitedBuffer{max: 4 << 20}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		close(s.done)
		return s, err
	}
	s.pid = cmd.Process.Pid
	serversStarted.Lock()
	serversStarted.list = append(serversStarted.list, s)
	serversStarted.Unlock()
	b.logf("$ drdam %s  (pid %d, ulimit -v %d, env %v)", quoteArgs(args), s.pid, limitKB, env)
	go func() {
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			if ws.Signaled() {
				s.exit, s.sig = -1, ws.Signal()
			} else {
				s.exit = ws.ExitStatus()
			}
		}
		close(s.done)
	}()
	hc := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !s.alive() {
			return s, fmt.Errorf("drdam serve exited (%s): %s", s.status(), excerpt(s.stderr.String(), 300))
		}
		if resp, err := hc.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return s, nil
		}
	}
	s.kill()
	return s, fmt.Errorf("drdam serve did not answer /healthz within 20 s: %s", excerpt(s.stderr.String(), 300))
}

func (s *server) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

func (s *server) status() string {
	if s.sig != 0 {
		return "killed by " + s.sig.String()
	}
	return fmt.Sprintf("exit %d", s.exit)
}

// kill ends the server with SIGKILL and waits for it.
func (s *server) kill() {
	if s.alive() && s.pid > 0 {
		syscall.Kill(-s.pid, syscall.SIGKILL)
	}
	<-s.done
}

// stop ends the server with SIGTERM (SIGKILL after 20 s) and reports
// whether it stopped by itself.
func (s *server) stop() bool {
	if !s.alive() {
		return false
	}
	syscall.Kill(s.pid, syscall.SIGTERM)
	select {
	case <-s.done:
		return true
	case <-time.After(20 * time.Second):
		s.kill()
		return false
	}
}

// crashed classifies a dead or panicking server from its output: fatal,
// panic, or "".
func (s *server) crashed() (string, string) {
	out := s.stderr.String()
	switch {
	case strings.Contains(out, "fatal error:"):
		return fatal, "server: " + firstLineWith(out, "fatal error:")
	case strings.Contains(out, "panic"):
		return panicked, "server: " + firstLineWith(out, "panic")
	case !s.alive() && s.sig != 0:
		return fatal, "server killed by " + s.sig.String()
	case !s.alive():
		return fatal, "the server exited: " + s.status() + ": " + excerpt(out, 200)
	}
	return "", ""
}

// answer is a response.
type answer struct {
	status int
	hdr    http.Header
	body   []byte
	err    error
	took   time.Duration
}

var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// do sends a request to s; auth adds the bearer token.
func (b *battery) do(s *server, method, path, ct string, body []byte, hdr map[string]string, auth bool) answer {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://"+s.addr+path, rd)
	if err != nil {
		return answer{err: err}
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if auth {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	t0 := time.Now()
	resp, err := client.Do(req)
	a := answer{err: err}
	if err == nil {
		a.body, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		a.status, a.hdr = resp.StatusCode, resp.Header
	}
	a.took = time.Since(t0)
	b.logf("> %s %s (%s, %d bytes) -> %d %v in %v: %s", method, excerpt(path, 100), ct, len(body), a.status, a.err, a.took.Round(time.Millisecond), excerpt(string(a.body), 600))
	return a
}

// jsonBody marshals v.
func jsonBody(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// errBody is the JSON error of the API.
type errBody struct {
	Error struct {
		Status  int    `json:"status"`
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"error"`
}

// memInfo is what GET /v1/memories/NAME answers.
type memInfo struct {
	Count int    `json:"count"`
	Seq   uint64 `json:"seq"`
}

// info returns the count and sequence number of memory name on s.
func (b *battery) info(s *server, name string, auth bool) (memInfo, answer) {
	a := b.do(s, "GET", "/v1/memories/"+name, "", nil, nil, auth)
	var mi memInfo
	if a.err == nil && a.status == 200 {
		json.Unmarshal(a.body, &mi)
	}
	return mi, a
}

// reqCase is a bad request and what it must be answered.
type reqCase struct {
	id, method, path, ct string
	body                 []byte
	hdr                  map[string]string
	noAuth               bool
	status               int
	alt                  []int  // other statuses taken as right
	field                string // the error's field
	anyField             bool
	msg                  string // the message must say this
	mem                  string // memory whose count and seq must not change ("" none)
}

// main is the shared server of the request cases (started by the first).
type mainServer struct {
	s     *server
	err   error
	dir   string
	fresh int // memories made for the cases
}

var shared mainServer

// mainServer starts the server with a token, creates memory m (D = 4,
// Y = 500, structured) with 2 patterns, and e (empty).
func (b *battery) mainServer() (*server, error) {
	if shared.s != nil || shared.err != nil {
		if shared.err == nil && !shared.s.alive() {
			return shared.s, fmt.Errorf("the shared server died earlier: %s", shared.s.status())
		}
		return shared.s, shared.err
	}
	shared.dir = filepath.Join(b.work, "serve-main")
	os.RemoveAll(shared.dir)
	s, err := b.startServer(shared.dir, "", 0, []string{"DRDAM_TOKEN=" + token})
	shared.s = s
	if err != nil {
		shared.err = err
		return s, err
	}
	for _, r := range []struct {
		method, path string
		body         string
		want         int
	}{
		{"PUT", "/v1/memories/m", `{"d": 4, "y": 500, "projection": "structured"}`, 201},
		{"POST", "/v1/memories/m/patterns", `{"patterns": [[0.1,0.2,0.3,0.4],[0.2,0.1,0,0]]}`, 200},
		{"PUT", "/v1/memories/e", `{"d": 4, "rep": "mrdam"}`, 201},
	} {
		if a := b.do(s, r.method, r.path, "application/json", []byte(r.body), nil, true); a.err != nil || a.status != r.want {
			shared.err = fmt.Errorf("setting up the shared server: %s %s: %d %v %s", r.method, r.path, a.status, a.err, excerpt(string(a.body), 200))
			return s, shared.err
		}
	}
	return s, nil
}

func (rc reqCase) tcase() tcase {
	return tcase{id: rc.id, cat: "serve/request", run: rc.run}
}

func (rc reqCase) run(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		if s != nil {
			if cl, note := s.crashed(); cl != "" {
				return result{class: cl, msg: note}
			}
		}
		return result{class: unclear, msg: err.Error(), note: "no server to send the request to"}
	}
	// A request on memory m is sent to a fresh copy of it (the same
	// configuration and patterns), and one that creates n to a name of
	// its own, so that a write wrongly taken by one case does not change
	// what the next ones find.
	if rc.path == "/v1/memories/m" || strings.HasPrefix(rc.path, "/v1/memories/m/") {
		shared.fresh++
		name := fmt.Sprintf("t%03d", shared.fresh)
		for _, r := range []struct{ method, path, body string }{
			{"PUT", "/v1/memories/" + name, `{"d": 4, "y": 500, "projection": "structured"}`},
			{"POST", "/v1/memories/" + name + "/patterns", `{"patterns": [[0.1,0.2,0.3,0.4],[0.2,0.1,0,0]]}`},
		} {
			if a := b.do(s, r.method, r.path, "application/json", []byte(r.body), nil, true); a.err != nil || a.status >= 300 {
				return result{class: unclear, msg: fmt.Sprintf("%s %s: %d %v", r.method, r.path, a.status, a.err), note: "the battery could not make the memory of the case"}
			}
		}
		rc.path = "/v1/memories/" + name + strings.TrimPrefix(rc.path, "/v1/memories/m")
		if rc.mem != "" {
			rc.mem = name
		}
	}
	if rc.path == "/v1/memories/n" {
		rc.path = "/v1/memories/" + strings.TrimPrefix(rc.id, "req/")
	}
	var before memInfo
	if rc.mem != "" {
		var a answer
		before, a = b.info(s, rc.mem, true)
		if a.status != 200 {
			return result{class: unclear, msg: fmt.Sprintf("GET %s before: %d %v", rc.mem, a.status, a.err), note: "the battery could not read the memory"}
		}
	}
	logLen := len(s.stderr.String())
	a := b.do(s, rc.method, rc.path, rc.ct, rc.body, rc.hdr, !rc.noAuth)
	return b.judge(s, rc, a, before, logLen)
}

// judge classifies the answer a to rc.
func (b *battery) judge(s *server, rc reqCase, a answer, before memInfo, logLen int) result {
	var eb errBody
	jerr := json.Unmarshal(a.body, &eb)
	msg := fmt.Sprintf("%d %s", a.status, eb.Error.Message)
	if jerr != nil || eb.Error.Message == "" {
		msg = fmt.Sprintf("%d %s", a.status, string(a.body))
	}
	if a.err != nil {
		if cl, note := s.crashed(); cl != "" {
			return result{class: cl, msg: note, note: "no answer: " + a.err.Error()}
		}
		if os.IsTimeout(a.err) || strings.Contains(a.err.Error(), "Client.Timeout") {
			return result{class: hang, msg: a.err.Error()}
		}
		return result{class: unclear, msg: a.err.Error(), note: "no answer (connection error)"}
	}
	if tail := s.stderr.String()[logLen:]; strings.Contains(tail, "panic") {
		return result{class: panicked, msg: msg, note: "server: " + firstLineWith(tail, "panic")}
	}
	if !s.alive() {
		cl, note := s.crashed()
		return result{class: cl, msg: msg, note: note}
	}
	if a.status < 300 && rc.status >= 400 {
		return result{class: silentWrong, msg: msg, note: fmt.Sprintf("%d: must be refused with %d", a.status, rc.status)}
	}
	if rc.mem != "" {
		after, ia := b.info(s, rc.mem, true)
		if ia.status != 200 {
			return result{class: unclear, msg: msg, note: fmt.Sprintf("GET %s after: %d", rc.mem, ia.status)}
		}
		if after != before {
			return result{class: silentWrong, msg: msg, note: fmt.Sprintf("memory %s changed by a refused write: count %d→%d, seq %d→%d", rc.mem, before.Count, after.Count, before.Seq, after.Seq)}
		}
	}
	right := a.status == rc.status
	for _, st := range rc.alt {
		right = right || a.status == st
	}
	if !right {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("status %d, want %d", a.status, rc.status)}
	}
	if rc.status < 400 {
		return result{class: ok, msg: msg}
	}
	if jerr != nil || eb.Error.Message == "" {
		return result{class: unclear, msg: msg, note: `not a JSON {"error": {"status", "field", "message"}} body`}
	}
	if eb.Error.Status != a.status {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("the body says status %d, the answer %d", eb.Error.Status, a.status)}
	}
	if !rc.anyField && eb.Error.Field != rc.field {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("field %q, want %q", eb.Error.Field, rc.field)}
	}
	if strings.Contains(eb.Error.Message, "row 0") || strings.Contains(eb.Error.Message, "column 0") {
		return result{class: unclear, msg: msg, note: "counts rows or columns from 0 (docs/reliability.md: from 1 in every message)"}
	}
	if rc.msg != "" && !strings.Contains(eb.Error.Message, rc.msg) {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("the message does not say %q", rc.msg)}
	}
	return result{class: ok, msg: msg}
}

func serveCases() []tcase {
	const j = "application/json"
	row := `[0.1,0.2,0.3,0.4]`
	rows := func(n int) string { return strings.TrimSuffix(strings.Repeat(row+",", n), ",") }
	nan := npyF8([]int{1, 4}, []float64{0.1, 0, math.NaN(), 0})
	inf := npyF8([]int{1, 4}, []float64{0.1, math.Inf(1), 0, 0})
	// A body past 64 MiB: valid JSON rows, 65 MiB of them.
	var big bytes.Buffer
	big.WriteString(`{"patterns": [`)
	for big.Len() < 65<<20 {
		big.WriteString(row + ",")
	}
	big.WriteString(row + "]}")
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	R := func(id, method, path, ct, body string, status int, field string) reqCase {
		rc := reqCase{id: "req/" + id, method: method, path: path, ct: ct, status: status, field: field}
		if body != "" {
			rc.body = []byte(body)
		}
		if method == "POST" && strings.HasPrefix(path, "/v1/memories/m/patterns") || method == "PUT" && strings.HasPrefix(path, "/v1/memories/m/") {
			rc.mem = "m"
		}
		return rc
	}
	with := func(rc reqCase, f func(*reqCase)) reqCase { f(&rc); return rc }
	rcs := []reqCase{
		with(R("no-token", "GET", "/v1/memories", "", "", 401, "Authorization"), func(r *reqCase) { r.noAuth = true }),
		with(R("wrong-token", "GET", "/v1/memories", "", "", 401, "Authorization"), func(r *reqCase) { r.hdr = map[string]string{"Authorization": "Bearer nope"} }),
		with(R("token-without-bearer", "GET", "/v1/memories", "", "", 401, "Authorization"), func(r *reqCase) { r.hdr = map[string]string{"Authorization": token} }),
		with(R("add-no-token", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`]}`, 401, "Authorization"), func(r *reqCase) { r.noAuth = true }),
		with(R("healthz-no-token", "GET", "/healthz", "", "", 200, ""), func(r *reqCase) { r.noAuth = true }),
		R("unknown-memory", "GET", "/v1/memories/nope", "", "", 404, "name"),
		R("add-to-unknown-memory", "POST", "/v1/memories/nope/patterns", j, `{"patterns": [`+row+`]}`, 404, "name"),
		R("delete-unknown-memory", "DELETE", "/v1/memories/nope", "", "", 404, "name"),
		R("snapshot-unknown-memory", "POST", "/v1/memories/nope/snapshot", "", "", 404, "name"),
		R("name-dot-first", "PUT", "/v1/memories/.hidden", j, `{"d": 4}`, 400, "name"),
		R("name-too-long", "PUT", "/v1/memories/"+strings.Repeat("a", 65), j, `{"d": 4}`, 400, "name"),
		R("name-path-escape", "PUT", "/v1/memories/..%2Fetc", j, `{"d": 4}`, 400, "name"),
		R("name-space", "PUT", "/v1/memories/a%20b", j, `{"d": 4}`, 400, "name"),
		R("name-nul", "PUT", "/v1/memories/a%00b", j, `{"d": 4}`, 400, "name"),
		R("name-unicode", "PUT", "/v1/memories/caf%C3%A9", j, `{"d": 4}`, 400, "name"),
		R("unknown-route", "GET", "/v2/memories", "", "", 404, ""),
		R("wrong-method", "PATCH", "/v1/memories/m", j, `{}`, 405, ""),
		R("create-bad-json", "PUT", "/v1/memories/n", j, `{"d": 4,`, 400, ""),
		R("create-two-values", "PUT", "/v1/memories/n", j, `{"d": 4} {}`, 400, ""),
		R("create-no-d", "PUT", "/v1/memories/n", j, `{"y": 100}`, 400, "d"),
		R("create-d-string", "PUT", "/v1/memories/n", j, `{"d": "four"}`, 400, "d"),
		R("create-d-over-limit", "PUT", "/v1/memories/n", j, `{"d": 65537}`, 422, "d"),
		with(R("create-d-zero", "PUT", "/v1/memories/n", j, `{"d": 0}`, 400, "d"), func(r *reqCase) { r.alt = []int{422} }),
		with(R("create-d-negative", "PUT", "/v1/memories/n", j, `{"d": -4}`, 400, "d"), func(r *reqCase) { r.alt = []int{422} }),
		with(R("create-d-1e20", "PUT", "/v1/memories/n", j, `{"d": 1e20}`, 400, "d"), func(r *reqCase) { r.alt = []int{422} }),
		R("create-huge-y", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 1000000000}`, 422, "y"),
		R("create-y-over-limit", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 4000001}`, 422, "y"),
		R("create-unknown-field", "PUT", "/v1/memories/n", j, `{"d": 4, "colour": "red"}`, 400, "colour"),
		R("create-unknown-basis", "PUT", "/v1/memories/n", j, `{"d": 4, "basis": "sine"}`, 400, "basis"),
		R("create-unknown-precision", "PUT", "/v1/memories/n", j, `{"d": 4, "precision": "float16"}`, 400, "precision"),
		R("create-negative-beta", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "beta": -1}`, 422, "beta"),
		R("create-beta-string", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "beta": "inf"}`, 400, "beta"),
		with(R("create-beta-1e308", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "beta": 1e308}`, 422, "beta"), func(r *reqCase) {
			r.msg = "the largest β at which this memory could store a pattern of unit norm"
		}),
		with(R("create-dot-beta-2000", "PUT", "/v1/memories/n", j, `{"d": 4, "y": 500, "similarity": "dot", "beta": 2000}`, 422, "beta"), func(r *reqCase) { r.msg = "exp(700)" }),
		R("create-y-with-mrdam", "PUT", "/v1/memories/n", j, `{"d": 4, "rep": "mrdam", "y": 100}`, 400, "rep"),
		R("create-not-json", "PUT", "/v1/memories/n", "text/plain", `d=4`, 415, "Content-Type"),
		R("create-deep-nesting", "PUT", "/v1/memories/n", j, deep, 400, ""),
		R("create-other-config", "PUT", "/v1/memories/m", j, `{"d": 4, "y": 600, "projection": "structured"}`, 409, "name"),
		R("create-same-config", "PUT", "/v1/memories/m", j, `{"d": 4, "y": 500, "projection": "structured"}`, 200, ""),
		R("add-bad-json", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,`, 400, ""),
		R("add-no-patterns-field", "POST", "/v1/memories/m/patterns", j, `{"rows": [`+row+`]}`, 400, "patterns"),
		R("add-patterns-null", "POST", "/v1/memories/m/patterns", j, `{"patterns": null}`, 400, "patterns"),
		R("add-patterns-object", "POST", "/v1/memories/m/patterns", j, `{"patterns": {"a": 1}}`, 400, "patterns"),
		R("add-wrong-length", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,0.2,0.3]]}`, 400, "patterns"),
		R("add-ragged", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`,[1,2]]}`, 400, "patterns"),
		R("add-strings", "POST", "/v1/memories/m/patterns", j, `{"patterns": [["a","b","c","d"]]}`, 400, "patterns"),
		R("add-no-rows", "POST", "/v1/memories/m/patterns", j, `{"patterns": []}`, 400, "patterns"),
		R("add-4097-rows", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+rows(4097)+`]}`, 413, "patterns"),
		{id: "req/add-body-65MiB", method: "POST", path: "/v1/memories/m/patterns", ct: j, body: big.Bytes(), status: 413, field: "", mem: "m"},
		{id: "req/add-npy-nan", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: nan, status: 400, field: "patterns", mem: "m", msg: "row 1, column 3"},
		{id: "req/add-npy-inf", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: inf, status: 400, field: "patterns", mem: "m", msg: "row 1, column 2"},
		{id: "req/add-npy-wrong-d", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: npyF8([]int{1, 3}, []float64{0.1, 0.2, 0.3}), status: 400, field: "patterns", mem: "m"},
		{id: "req/add-npy-truncated", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: npyF8([]int{2, 4}, make([]float64, 8))[:100], status: 400, field: "patterns", mem: "m"},
		{id: "req/add-npy-huge-claim", method: "POST", path: "/v1/memories/m/patterns", ct: "application/x-npy", body: npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", make([]byte, 24)), status: 400, alt: []int{413}, anyField: true, mem: "m"},
		R("add-not-npy", "POST", "/v1/memories/m/patterns", "application/x-npy", "NUMPY?", 400, "patterns"),
		R("add-value-too-large", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[1e300,0,0,0]]}`, 422, "patterns"),
		R("add-wrong-content-type", "POST", "/v1/memories/m/patterns", "text/csv", "1,2,3,4", 415, "Content-Type"),
		with(R("add-null-in-row", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,null,0.3,0.4]]}`, 400, "patterns"), func(r *reqCase) { r.msg = "row 1, column 2" }),
		with(R("add-string-in-row-2", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`,[0.1,0.2,"x",0.4]]}`, 400, "patterns"), func(r *reqCase) { r.msg = "row 2, column 3" }),
		with(R("add-boolean-in-row", "POST", "/v1/memories/m/patterns", j, `{"patterns": [[0.1,0.2,0.3,true]]}`, 400, "patterns"), func(r *reqCase) { r.msg = "row 1, column 4" }),
		with(R("add-flat-row", "POST", "/v1/memories/m/patterns", j, `{"patterns": [0.1,0.2,0.3,true]}`, 400, "patterns"), func(r *reqCase) { r.msg = "row 1" }),
		with(R("add-key-with-space", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`]}`, 400, "Idempotency-Key"), func(r *reqCase) { r.hdr = map[string]string{"Idempotency-Key": "a b"} }),
		with(R("add-key-256-chars", "POST", "/v1/memories/m/patterns", j, `{"patterns": [`+row+`]}`, 400, "Idempotency-Key"), func(r *reqCase) { r.hdr = map[string]string{"Idempotency-Key": strings.Repeat("k", 256)} }),
		R("remove-more-than-stored", "POST", "/v1/memories/m/patterns:remove", j, `{"patterns": [`+rows(3)+`]}`, 422, "patterns"),
		with(R("remove-never-added", "POST", "/v1/memories/m/patterns:remove", j, `{"patterns": [[0.3,0.3,0.3,0.3]]}`, 409, "patterns"), func(r *reqCase) { r.msg = "row 1 was never added" }),
		R("remove-force-not-bool", "POST", "/v1/memories/m/patterns:remove?force=yes", j, `{"patterns": [`+row+`]}`, 400, "force"),
		R("remove-wrong-length", "POST", "/v1/memories/m/patterns:remove", j, `{"patterns": [[0.1,0.2]]}`, 400, "patterns"),
		R("energy-wrong-length", "POST", "/v1/memories/m/energy", j, `{"queries": [[1,2]]}`, 400, "queries"),
		R("energy-no-queries", "POST", "/v1/memories/m/energy", j, `{}`, 400, "queries"),
		R("energy-grad-not-bool", "POST", "/v1/memories/m/energy", j, `{"queries": [`+row+`], "grad": "yes"}`, 400, "grad"),
		with(R("energy-null-in-query", "POST", "/v1/memories/m/energy", j, `{"queries": [[null,0,0,0]]}`, 400, "queries"), func(r *reqCase) { r.msg = "row 1, column 1" }),
		R("energy-value-too-large", "POST", "/v1/memories/m/energy", j, `{"queries": [[1e300,0,0,0]]}`, 422, "queries"),
		R("energy-4097-queries", "POST", "/v1/memories/m/energy", j, `{"queries": [`+rows(4097)+`]}`, 413, "queries"),
		R("energy-empty-memory", "POST", "/v1/memories/e/energy", j, `{"queries": [`+row+`]}`, 409, "name"),
		R("recall-max-steps-over", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "max_steps": 10001}`, 422, "max_steps"),
		R("recall-negative-step", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "step": -0.1}`, 422, "step"),
		R("recall-empty-box", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "box": [1, 0]}`, 422, "box"),
		R("recall-box-of-three", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "box": [0, 1, 2]}`, 400, "box"),
		R("recall-mask-length", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "mask": [true, false]}`, 400, "mask"),
		R("recall-mask-rows-not-b", "POST", "/v1/memories/m/recall", j, `{"queries": [`+rows(3)+`], "mask": [[1,0,0,0],[1,0,0,0]]}`, 400, "mask"),
		R("recall-mask-strings", "POST", "/v1/memories/m/recall", j, `{"queries": [`+row+`], "mask": ["a","b","c","d"]}`, 400, "mask"),
		R("recall-stream-bad-json", "POST", "/v1/memories/m/recall:stream", j, `{"queries": [`, 400, ""),
		R("merge-not-a-model", "PUT", "/v1/memories/m/merge", "application/octet-stream", "not a model", 400, "body"),
		{id: "req/merge-huge-header", method: "PUT", path: "/v1/memories/m/merge", ct: "application/octet-stream", body: craftedModel(1, 21_000_000, 200, nil), status: 409, alt: []int{400, 422, 507}, field: "body", mem: "m"},
		{id: "req/merge-other-config", method: "PUT", path: "/v1/memories/m/merge", ct: "application/octet-stream", body: craftedModel(4, 4, 500, nil), status: 409, field: "body", mem: "m"},
	}
	var cs []tcase
	for _, rc := range rcs {
		cs = append(cs, rc.tcase())
	}
	cs = append(cs,
		tcase{"req/slow-body-1-byte-per-s", "serve/request", slowBody},
		tcase{"idem/retry-same-key", "serve/idem", idemRetry},
		tcase{"idem/same-key-other-body", "serve/idem", idemOtherBody},
		tcase{"idem/remove-retry", "serve/idem", idemRemove},
		tcase{"fault/sigterm-graceful", "serve/fault", sigtermMain},
		tcase{"fault/check-clean-folder", "serve/fault", checkClean},
		tcase{"fault/token-blank", "serve/fault", tokenRefused("DRDAM_TOKEN=   ", "DRDAM_TOKEN")},
		tcase{"fault/token-with-space", "serve/fault", tokenRefused("DRDAM_TOKEN=a b", "DRDAM_TOKEN")},
		tcase{"fault/token-file-empty", "serve/fault", tokenFileEmpty},
		tcase{"fault/data-is-a-file", "serve/fault", dataIsFile},
		tcase{"fault/check-and-salvage", "serve/fault", checkAndSalvage},
		tcase{"fault/second-server", "serve/fault", secondServer},
	)
	cs = append(cs, walCases()...)
	cs = append(cs,
		tcase{"fault/torn-tail", "serve/fault", tornTail},
		tcase{"fault/temporary-files", "serve/fault", tempFiles},
	)
	cs = append(cs, garbledCases()...)
	cs = append(cs, budgetCases()...)
	cs = append(cs, tcase{"fault/sigkill-loop-20", "serve/fault", killLoop})
	return cs
}

// slowBody: a body trickled at 1 byte/s is cut with 408 within about
// 10 s (5 s of grace, then 64 KiB/s), and the memory is unchanged.
func slowBody(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	before, _ := b.info(s, "m", true)
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		return result{class: unclear, msg: err.Error()}
	}
	defer conn.Close()
	t0 := time.Now()
	fmt.Fprintf(conn, "POST /v1/memories/m/patterns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", token)
	done := make(chan string, 1)
	go func() {
		buf := make([]byte, 8192)
		n, _ := io.ReadAtLeast(conn, buf, 1)
		done <- string(buf[:n])
	}()
	body := `{"patterns": [[0.1,0.2,0.3,0.4]`
	var resp string
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	limit := time.After(20 * time.Second)
	i := 0
loop:
	for {
		select {
		case resp = <-done:
			break loop
		case <-tick.C:
			conn.Write([]byte{body[i%len(body)]})
			i++
		case <-limit:
			return result{class: hang, msg: fmt.Sprintf("no answer after 20 s of a body at 1 byte/s (%d bytes sent)", i)}
		}
	}
	el := time.Since(t0)
	b.logf("slow body: answered after %v: %s", el, excerpt(resp, 500))
	st := firstLine(resp)
	if !strings.HasPrefix(resp, "HTTP/1.1 408") {
		if strings.HasPrefix(resp, "HTTP/1.1 2") {
			return result{class: silentWrong, msg: st}
		}
		return result{class: unclear, msg: st, note: fmt.Sprintf("after %v, want 408", el.Round(time.Millisecond))}
	}
	if after, _ := b.info(s, "m", true); after != before {
		return result{class: silentWrong, msg: st, note: "the memory changed"}
	}
	msg := st
	if k := strings.Index(resp, "{"); k >= 0 {
		msg += " " + resp[k:]
	}
	if el > 12*time.Second {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("cut after %v, want about 10 s at most", el.Round(time.Millisecond))}
	}
	return result{class: ok, msg: fmt.Sprintf("cut after %v: %s", el.Round(100*time.Millisecond), msg)}
}

// idemRetry: a retry with the same Idempotency-Key is answered the same
// body with Idempotent-Replayed: true, and changes nothing.
func idemRetry(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	body := []byte(`{"patterns": [[0.3,0.1,0.2,0.1],[0.1,0.3,0.1,0.2]]}`)
	key := map[string]string{"Idempotency-Key": "battery-retry-1"}
	a0, _ := b.info(s, "m", true)
	a1 := b.do(s, "POST", "/v1/memories/m/patterns", "application/json", body, key, true)
	if a1.err != nil || a1.status != 200 {
		return result{class: unclear, msg: fmt.Sprintf("%d %v %s", a1.status, a1.err, a1.body), note: "the first keyed addition failed"}
	}
	m1, _ := b.info(s, "m", true)
	a2 := b.do(s, "POST", "/v1/memories/m/patterns", "application/json", body, key, true)
	m2, _ := b.info(s, "m", true)
	msg := fmt.Sprintf("%d %s Idempotent-Replayed=%q", a2.status, strings.TrimSpace(string(a2.body)), a2.hdr.Get("Idempotent-Replayed"))
	if a2.err != nil {
		return result{class: unclear, msg: a2.err.Error()}
	}
	if m2.Count != m1.Count {
		return result{class: silentWrong, msg: msg, note: fmt.Sprintf("the retry added again: count %d → %d → %d", a0.Count, m1.Count, m2.Count)}
	}
	if a2.status != 200 || !bytes.Equal(bytes.TrimSpace(a1.body), bytes.TrimSpace(a2.body)) || a2.hdr.Get("Idempotent-Replayed") != "true" {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("want 200, the first body %s and Idempotent-Replayed: true", strings.TrimSpace(string(a1.body)))}
	}
	return result{class: ok, msg: msg}
}

// idemOtherBody: another body under a used key is 422, changing nothing.
func idemOtherBody(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	before, _ := b.info(s, "m", true)
	logLen := len(s.stderr.String())
	a := b.do(s, "POST", "/v1/memories/m/patterns", "application/json", []byte(`{"patterns": [[0.2,0.2,0.2,0.2]]}`), map[string]string{"Idempotency-Key": "battery-retry-1"}, true)
	return b.judge(s, reqCase{status: 422, field: "Idempotency-Key", anyField: true, mem: "m"}, a, before, logLen)
}

// idemRemove: a removal retried under its key removes once.
func idemRemove(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	body := []byte(`{"patterns": [[0.3,0.1,0.2,0.1]]}`)
	key := map[string]string{"Idempotency-Key": "battery-remove-1"}
	a1 := b.do(s, "POST", "/v1/memories/m/patterns:remove", "application/json", body, key, true)
	if a1.err != nil || a1.status != 200 {
		return result{class: unclear, msg: fmt.Sprintf("%d %v %s", a1.status, a1.err, a1.body), note: "the first keyed removal failed"}
	}
	m1, _ := b.info(s, "m", true)
	a2 := b.do(s, "POST", "/v1/memories/m/patterns:remove", "application/json", body, key, true)
	m2, _ := b.info(s, "m", true)
	msg := fmt.Sprintf("%d %s Idempotent-Replayed=%q", a2.status, strings.TrimSpace(string(a2.body)), a2.hdr.Get("Idempotent-Replayed"))
	if m2.Count != m1.Count {
		return result{class: silentWrong, msg: msg, note: fmt.Sprintf("the retry removed again: count %d → %d", m1.Count, m2.Count)}
	}
	if a2.status != 200 || a2.hdr.Get("Idempotent-Replayed") != "true" {
		return result{class: unclear, msg: msg, note: "want the first answer, replayed"}
	}
	return result{class: ok, msg: msg}
}

// sigtermMain: SIGTERM stops the shared server with status 0 after a
// snapshot of each memory.
func sigtermMain(b *battery) result {
	s, err := b.mainServer()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "no server"}
	}
	t0 := time.Now()
	if !s.stop() {
		return result{class: hang, msg: "SIGTERM did not stop the server within 20 s"}
	}
	msg := fmt.Sprintf("%s after %v", s.status(), time.Since(t0).Round(time.Millisecond))
	if cl, note := s.crashed(); cl != "" && cl != fatal {
		return result{class: cl, msg: msg, note: note}
	}
	if s.exit != 0 || s.sig != 0 {
		return result{class: unclear, msg: msg + ": " + excerpt(s.stderr.String(), 200), note: "want exit 0"}
	}
	snaps, _ := filepath.Glob(filepath.Join(shared.dir, "m", "snapshot-*.drdam"))
	if len(snaps) == 0 {
		return result{class: silentWrong, msg: msg, note: "no snapshot after a graceful stop"}
	}
	return result{class: ok, msg: msg + ", " + filepath.Base(snaps[len(snaps)-1])}
}

// checkClean: --check on the folder of the stopped shared server: exit 0.
func checkClean(b *battery) result {
	if shared.dir == "" {
		return result{class: unclear, msg: "no folder"}
	}
	p := b.run(runOpts{dir: b.work}, "serve", "--data", shared.dir, "--check")
	if cl, note := crashClass(p); cl != "" {
		return result{class: cl, msg: note}
	}
	if p.exit != 0 {
		return result{class: unclear, msg: errLine(p), note: fmt.Sprintf("exit %d on a clean folder, want 0", p.exit)}
	}
	return result{class: ok, msg: lastLine(p.stdout)}
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

// refusedToStart runs drdam serve with env and extra flags for at most 8 s:
// it must exit non-zero naming one of names; running on is silent-wrong.
func (b *battery) refusedToStart(dir string, env []string, names []string, extra ...string) result {
	args := append([]string{"serve", "--data", filepath.Join(dir, "data"), "--addr", freeAddr()}, extra...)
	p := b.run(runOpts{dir: dir, env: env, timeout: 8 * time.Second}, args...)
	if p.timedOut {
		return result{class: silentWrong, msg: "started and served: " + firstLine(p.stderr), note: "must refuse to start"}
	}
	if cl, note := crashClass(p); cl != "" {
		return result{class: cl, msg: note}
	}
	if p.exit == 0 {
		return result{class: silentWrong, msg: errLine(p), note: "exit 0"}
	}
	for _, n := range names {
		if strings.Contains(p.stderr, n) {
			return result{class: ok, msg: errLine(p)}
		}
	}
	return result{class: unclear, msg: errLine(p), note: "names none of " + strings.Join(quoteAll(names), ", ")}
}

func tokenRefused(env, name string) func(b *battery) result {
	return func(b *battery) result { return b.refusedToStart(b.caseDir(b.cur), []string{env}, []string{name}) }
}

func tokenFileEmpty(b *battery) result {
	dir := b.caseDir(b.cur)
	os.WriteFile(filepath.Join(dir, "empty.txt"), []byte("  \n"), 0o600)
	return b.refusedToStart(dir, nil, []string{"empty.txt"}, "--token-file", filepath.Join(dir, "empty.txt"))
}

func dataIsFile(b *battery) result {
	dir := b.caseDir(b.cur)
	f := filepath.Join(dir, "afile")
	os.WriteFile(f, []byte("x"), 0o644)
	p := b.run(runOpts{dir: dir, timeout: 8 * time.Second}, "serve", "--data", f, "--addr", freeAddr())
	if p.timedOut {
		return result{class: silentWrong, msg: "started and served", note: "must refuse a --data that is a file"}
	}
	if cl, note := crashClass(p); cl != "" {
		return result{class: cl, msg: note}
	}
	if p.exit == 0 {
		return result{class: silentWrong, msg: errLine(p)}
	}
	if !strings.Contains(p.stderr, "afile") {
		return result{class: unclear, msg: errLine(p), note: "does not name the folder"}
	}
	return result{class: ok, msg: errLine(p)}
}

func checkAndSalvage(b *battery) result {
	return b.refusedToStart(b.caseDir(b.cur), nil, []string{"--check", "--salvage"}, "--check", "--salvage")
}

// secondServer: a second drdam serve on the same --data exits non-zero at
// once, naming the folder and the first's process id.
func secondServer(b *battery) result {
	dir := filepath.Join(b.caseDir(b.cur), "data")
	s1, err := b.startServer(dir, "", 0, nil)
	defer s1.stop()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "the first server did not start"}
	}
	p := b.run(runOpts{dir: b.work, timeout: 8 * time.Second}, "serve", "--data", dir, "--addr", freeAddr())
	if p.timedOut {
		return result{class: silentWrong, msg: "the second server started on the same folder: " + firstLine(p.stderr), note: "two servers on one folder"}
	}
	if cl, note := crashClass(p); cl != "" {
		return result{class: cl, msg: note}
	}
	if p.exit == 0 {
		return result{class: silentWrong, msg: errLine(p), note: "exit 0"}
	}
	msg := errLine(p)
	if !strings.Contains(p.stderr, dir) || !strings.Contains(p.stderr, strconv.Itoa(s1.pid)) {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("want the folder and pid %d named", s1.pid)}
	}
	return result{class: ok, msg: msg}
}

// addBatch adds the 4-row batch (seed k) of dimension d to memory name.
func (b *battery) addBatch(s *server, name string, d, k int, key string) answer {
	x := batch(d, k)
	var hdr map[string]string
	if key != "" {
		hdr = map[string]string{"Idempotency-Key": key}
	}
	return b.do(s, "POST", "/v1/memories/"+name+"/patterns", "application/json", jsonBody(map[string]any{"patterns": x}), hdr, false)
}

// batch returns 4 distinct rows of dimension d, small norm, for seed k.
func batch(d, k int) [][]float64 {
	rows := make([][]float64, 4)
	for r := range rows {
		rows[r] = make([]float64, d)
		for j := range rows[r] {
			rows[r][j] = float64((k*7919+r*104729+j*15485863)%1000) / 1000 / math.Sqrt(float64(d))
		}
	}
	return rows
}

// walOffsets returns the offsets of the records of a write-ahead log
// (after the 10-byte magic: u32 n | u32 crc | n bytes each).
func walOffsets(b []byte) []int {
	var offs []int
	if len(b) < 10 || !bytes.HasPrefix(b, []byte("DRDAMWAL")) {
		return nil
	}
	for off := 10; off+8 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off:]))
		if off+8+n > len(b) {
			break
		}
		offs = append(offs, off)
		off += 8 + n
	}
	return offs
}

// walState is what the byte-flip cases share: a folder with memories bad
// (5 acknowledged additions, 20 patterns) and good (2, 8 patterns), the
// server killed, one byte flipped in the middle of bad's log.
type walState struct {
	once    sync.Once
	dir     string
	err     error
	flipped int // offset of the flipped byte
	rec     int // the record it is in
	srv     *server
	srvErr  error
}

var wal walState

func (b *battery) walSetup() *walState {
	wal.once.Do(func() {
		wal.dir = filepath.Join(b.work, "serve-wal")
		os.RemoveAll(wal.dir)
		s, err := b.startServer(wal.dir, "", 0, nil)
		if err != nil {
			s.kill()
			wal.err = err
			return
		}
		for _, n := range []string{"bad", "good"} {
			if a := b.do(s, "PUT", "/v1/memories/"+n, "application/json", []byte(`{"d": 8, "y": 1000, "projection": "structured"}`), nil, false); a.status != 201 {
				wal.err = fmt.Errorf("PUT %s: %d %v", n, a.status, a.err)
			}
		}
		for k := range 5 {
			if a := b.addBatch(s, "bad", 8, 10+k, ""); a.status != 200 {
				wal.err = fmt.Errorf("add: %d %v", a.status, a.err)
			}
		}
		for k := range 2 {
			if a := b.addBatch(s, "good", 8, 50+k, ""); a.status != 200 {
				wal.err = fmt.Errorf("add: %d %v", a.status, a.err)
			}
		}
		s.kill()
		if wal.err != nil {
			return
		}
		p := filepath.Join(wal.dir, "bad", "wal.log")
		data, err := os.ReadFile(p)
		if err != nil {
			wal.err = err
			return
		}
		offs := walOffsets(data)
		wal.rec = len(offs) / 2
		if len(offs) >= 4 {
			wal.flipped = offs[wal.rec] + 40
		} else {
			wal.flipped = len(data) / 2
		}
		b.logf("wal.log: %d bytes, records at %v; flipping byte %d (record %d)", len(data), offs, wal.flipped, wal.rec)
		data[wal.flipped] ^= 0x10
		wal.err = os.WriteFile(p, data, 0o644)
		if wal.err == nil {
			wal.srv, wal.srvErr = b.startServer(wal.dir, "", 0, nil)
		}
	})
	return &wal
}

func walCases() []tcase {
	return []tcase{
		{"fault/wal-flip-503", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil {
				return result{class: unclear, msg: w.err.Error(), note: "setup failed"}
			}
			if w.srvErr != nil {
				cl, note := w.srv.crashed()
				if cl == "" || cl == fatal && w.srv.sig == 0 {
					cl = unclear
				}
				return result{class: cl, msg: w.srvErr.Error(), note: "the server did not start: " + note}
			}
			mi, a := b.info(w.srv, "bad", false)
			var eb errBody
			json.Unmarshal(a.body, &eb)
			msg := fmt.Sprintf("%d %s", a.status, eb.Error.Message)
			switch {
			case a.status == 200 && mi.Count < 20:
				return result{class: lost, msg: fmt.Sprintf("200, count %d", mi.Count), note: "acknowledged additions dropped with the corrupt record and those after it (20 acknowledged)"}
			case a.status == 200:
				return result{class: silentWrong, msg: fmt.Sprintf("200, count %d", mi.Count), note: "a corrupt log served as if intact"}
			case a.status != 503:
				return result{class: unclear, msg: msg, note: "want 503"}
			case !strings.Contains(eb.Error.Message, "wal.log") || !strings.Contains(eb.Error.Message, "byte"):
				return result{class: unclear, msg: msg, note: "does not name wal.log and the byte"}
			}
			return result{class: ok, msg: msg}
		}},
		{"fault/wal-flip-others-served", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil || w.srvErr != nil {
				return result{class: unclear, msg: fmt.Sprint(w.err, w.srvErr), note: "no server"}
			}
			mi, a := b.info(w.srv, "good", false)
			if a.status != 200 || mi.Count != 8 {
				return result{class: lost, msg: fmt.Sprintf("%d count %d %s", a.status, mi.Count, excerpt(string(a.body), 100)), note: "want 200 with its 8 patterns"}
			}
			logs := w.srv.stderr.String()
			msg := fmt.Sprintf("good: 200, count %d; log: %s", mi.Count, firstLineWith(logs, "damaged"))
			w.srv.stop()
			return result{class: ok, msg: msg}
		}},
		{"fault/wal-flip-check", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil {
				return result{class: unclear, msg: w.err.Error(), note: "setup failed"}
			}
			if w.srv != nil {
				w.srv.stop()
			}
			p := b.run(runOpts{dir: b.work}, "serve", "--data", w.dir, "--check")
			if cl, note := crashClass(p); cl != "" {
				return result{class: cl, msg: note}
			}
			out := p.stdout + p.stderr
			msg := firstLineWith(out, "DAMAGED")
			if p.exit == 0 {
				return result{class: silentWrong, msg: msg, note: "exit 0 on a corrupt log"}
			}
			if p.exit != 1 || !strings.Contains(out, "wal.log") {
				return result{class: unclear, msg: errLine(p), note: fmt.Sprintf("exit %d; want 1, naming wal.log", p.exit)}
			}
			return result{class: ok, msg: msg}
		}},
		{"fault/wal-flip-salvage", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil {
				return result{class: unclear, msg: w.err.Error(), note: "setup failed"}
			}
			if w.srv != nil {
				w.srv.stop()
			}
			p := b.run(runOpts{dir: b.work}, "serve", "--data", w.dir, "--salvage")
			if cl, note := crashClass(p); cl != "" {
				return result{class: cl, msg: note}
			}
			if p.exit != 0 {
				return result{class: unclear, msg: errLine(p), note: fmt.Sprintf("exit %d, want 0", p.exit)}
			}
			aside, _ := filepath.Glob(filepath.Join(w.dir, "bad", "wal.log.damaged-*"))
			if len(aside) == 0 {
				return result{class: silentWrong, msg: firstLineWith(p.stdout, "kept"), note: "no wal.log.damaged-* kept"}
			}
			return result{class: ok, msg: firstLineWith(p.stdout, "kept") + "; " + filepath.Base(aside[0])}
		}},
		{"fault/wal-flip-after-salvage", "serve/fault", func(b *battery) result {
			w := b.walSetup()
			if w.err != nil {
				return result{class: unclear, msg: w.err.Error(), note: "setup failed"}
			}
			s, err := b.startServer(w.dir, "", 0, nil)
			defer s.stop()
			if err != nil {
				return result{class: unclear, msg: err.Error(), note: "the server did not start after --salvage"}
			}
			mi, a := b.info(s, "bad", false)
			msg := fmt.Sprintf("%d count %d %s", a.status, mi.Count, excerpt(string(a.body), 120))
			// The flipped record held 4 patterns (one addition): the 4 other
			// additions are intact, 16 patterns.
			switch {
			case a.status != 200:
				return result{class: unclear, msg: msg, note: "the salvaged memory is not served"}
			case mi.Count < 16:
				return result{class: lost, msg: msg, note: "want the 16 patterns of the 4 intact additions"}
			case mi.Count > 16:
				return result{class: silentWrong, msg: msg, note: "more than the 16 patterns of the intact additions"}
			}
			if a := b.addBatch(s, "bad", 8, 99, ""); a.status != 200 {
				return result{class: unclear, msg: msg, note: fmt.Sprintf("an addition after the salvage: %d", a.status)}
			}
			return result{class: ok, msg: msg}
		}},
	}
}

// tornTail: the last record cut after 30 bytes (a crash while appending)
// is cut off at start, silently for the clients but logged.
func tornTail(b *battery) result {
	dir := filepath.Join(b.caseDir(b.cur), "data")
	s, err := b.startServer(dir, "", 0, nil)
	if err != nil {
		s.kill()
		return result{class: unclear, msg: err.Error(), note: "setup"}
	}
	b.do(s, "PUT", "/v1/memories/m", "application/json", []byte(`{"d": 8, "rep": "mrdam"}`), nil, false)
	for k := range 3 {
		b.addBatch(s, "m", 8, k, "")
	}
	s.kill()
	p := filepath.Join(dir, "m", "wal.log")
	data, _ := os.ReadFile(p)
	offs := walOffsets(data)
	if len(offs) < 3 {
		return result{class: unclear, msg: fmt.Sprintf("wal.log: %d records", len(offs)), note: "setup"}
	}
	last := offs[len(offs)-1]
	os.WriteFile(p, data[:last+30], 0o644)
	s, err = b.startServer(dir, "", 0, nil)
	defer s.stop()
	if err != nil {
		cl, note := s.crashed()
		if cl == "" || cl == fatal && s.sig == 0 {
			cl = unclear
		}
		return result{class: cl, msg: err.Error(), note: "did not start after a torn tail: " + note}
	}
	mi, a := b.info(s, "m", false)
	msg := fmt.Sprintf("%d count %d", a.status, mi.Count)
	if a.status != 200 {
		return result{class: unclear, msg: msg + " " + excerpt(string(a.body), 150), note: "want 200 with the 8 patterns of the 2 whole records"}
	}
	if mi.Count != 8 {
		return result{class: lost, msg: msg, note: "want the 8 patterns of the 2 whole records"}
	}
	logs := s.stderr.String()
	l := firstLineWith(logs, "torn")
	if !strings.Contains(logs, "torn") {
		return result{class: unclear, msg: msg, note: "the cut was not logged"}
	}
	return result{class: ok, msg: msg + "; log: " + l}
}

// tempFiles: temporary files that killed writes left are removed at start,
// and each logged.
func tempFiles(b *battery) result {
	dir := filepath.Join(b.caseDir(b.cur), "data")
	s, err := b.startServer(dir, "", 0, nil)
	if err != nil {
		s.kill()
		return result{class: unclear, msg: err.Error(), note: "setup"}
	}
	b.do(s, "PUT", "/v1/memories/m", "application/json", []byte(`{"d": 4, "rep": "mrdam"}`), nil, false)
	s.stop()
	temps := []string{filepath.Join(dir, ".x.tmp-1"), filepath.Join(dir, "m", ".wal.log.tmp-9"), filepath.Join(dir, "m", ".snapshot-00000000000000000001.drdam.tmp-123")}
	for _, t := range temps {
		os.WriteFile(t, []byte("partial"), 0o644)
	}
	s, err = b.startServer(dir, "", 0, nil)
	defer s.stop()
	if err != nil {
		return result{class: unclear, msg: err.Error(), note: "did not start"}
	}
	var left []string
	for _, t := range temps {
		if _, err := os.Stat(t); err == nil {
			left = append(left, filepath.Base(t))
		}
	}
	logs := s.stderr.String()
	n := strings.Count(logs, "temporary")
	msg := fmt.Sprintf("%d of 3 removed, %d logged: %s", 3-len(left), n, firstLineWith(logs, "temporary"))
	if len(left) > 0 {
		return result{class: silentWrong, msg: msg, note: "left: " + strings.Join(left, ", ")}
	}
	if n < 3 {
		return result{class: unclear, msg: msg, note: "not every removal logged"}
	}
	return result{class: ok, msg: msg}
}

// garbled: a garbled memory.json makes that memory 503 (naming the file),
// and the others are served.
type garbledState struct {
	once sync.Once
	s    *server
	err  error
}

var garbled garbledState

func garbledCases() []tcase {
	setup := func(b *battery) *garbledState {
		garbled.once.Do(func() {
			dir := filepath.Join(b.work, "serve-garbled")
			os.RemoveAll(dir)
			s, err := b.startServer(dir, "", 0, nil)
			if err != nil {
				s.kill()
				garbled.err = err
				return
			}
			b.do(s, "PUT", "/v1/memories/m", "application/json", []byte(`{"d": 4, "rep": "mrdam"}`), nil, false)
			b.do(s, "PUT", "/v1/memories/n", "application/json", []byte(`{"d": 4, "rep": "mrdam"}`), nil, false)
			b.addBatch(s, "m", 4, 1, "")
			s.stop()
			os.WriteFile(filepath.Join(dir, "n", "memory.json"), []byte("{garbled"), 0o644)
			garbled.s, garbled.err = b.startServer(dir, "", 0, nil)
		})
		return &garbled
	}
	return []tcase{
		{"fault/garbled-memory-json-503", "serve/fault", func(b *battery) result {
			g := setup(b)
			if g.err != nil {
				return result{class: unclear, msg: g.err.Error(), note: "the server did not start with one garbled memory.json"}
			}
			_, a := b.info(g.s, "n", false)
			var eb errBody
			json.Unmarshal(a.body, &eb)
			msg := fmt.Sprintf("%d %s", a.status, eb.Error.Message)
			if a.status == 200 {
				return result{class: silentWrong, msg: msg + excerpt(string(a.body), 100), note: "a garbled memory served"}
			}
			if a.status != 503 || !strings.Contains(eb.Error.Message, "memory.json") {
				return result{class: unclear, msg: msg, note: "want 503 naming memory.json"}
			}
			return result{class: ok, msg: msg}
		}},
		{"fault/garbled-memory-json-others", "serve/fault", func(b *battery) result {
			g := setup(b)
			if g.err != nil {
				return result{class: unclear, msg: g.err.Error(), note: "the server did not start: the other memories are not served"}
			}
			defer g.s.stop()
			mi, a := b.info(g.s, "m", false)
			if a.status != 200 || mi.Count != 4 {
				return result{class: lost, msg: fmt.Sprintf("%d count %d", a.status, mi.Count), note: "want the other memory with its 4 patterns"}
			}
			return result{class: ok, msg: fmt.Sprintf("m: 200, count %d", mi.Count)}
		}},
	}
}

// budget: 20 PUTs of memories of about 400 MB under ulimit -v 4000000:
// 201 until the budget, 507 after, the server alive and answering.
type budgetState struct {
	once        sync.Once
	s           *server
	err         error
	made, full  int
	other       []string
	firstRefuse string
}

var budgetSt budgetState

func budgetCases() []tcase {
	setup := func(b *battery) *budgetState {
		budgetSt.once.Do(func() {
			dir := filepath.Join(b.work, "serve-budget")
			os.RemoveAll(dir)
			s, err := b.startServer(dir, "", 4000000, nil)
			budgetSt.s = s
			if err != nil {
				budgetSt.err = err
				return
			}
			for i := range 20 {
				a := b.do(s, "PUT", fmt.Sprintf("/v1/memories/m%02d", i), "application/json", []byte(`{"d": 100, "y": 450000}`), nil, false)
				switch {
				case a.err != nil:
					budgetSt.err = fmt.Errorf("PUT %d: %v", i, a.err)
					return
				case a.status == 201 && budgetSt.full == 0:
					budgetSt.made++
				case a.status == 507:
					budgetSt.full++
					if budgetSt.firstRefuse == "" {
						budgetSt.firstRefuse = string(a.body)
					}
				default:
					budgetSt.other = append(budgetSt.other, fmt.Sprintf("PUT %d: %d %s", i, a.status, excerpt(string(a.body), 100)))
				}
			}
		})
		return &budgetSt
	}
	dead := func(bs *budgetState) result {
		if cl, note := bs.s.crashed(); cl != "" {
			return result{class: cl, msg: note, note: fmt.Sprintf("after %d memories made", bs.made)}
		}
		return result{class: unclear, msg: fmt.Sprint(bs.err)}
	}
	return []tcase{
		{"fault/budget-20-puts-400MB", "serve/fault", func(b *battery) result {
			bs := setup(b)
			if bs.err != nil {
				return dead(bs)
			}
			msg := fmt.Sprintf("%d made, %d refused 507: %s", bs.made, bs.full, excerpt(bs.firstRefuse, 160))
			if len(bs.other) > 0 {
				return result{class: unclear, msg: msg, note: strings.Join(bs.other, "; ")}
			}
			if bs.made < 2 || bs.full == 0 {
				return result{class: unclear, msg: msg, note: "want some made and the rest 507"}
			}
			if !strings.Contains(bs.firstRefuse, "budget") {
				return result{class: unclear, msg: msg, note: "the 507 does not name the budget"}
			}
			return result{class: ok, msg: msg}
		}},
		{"fault/budget-healthz-after", "serve/fault", func(b *battery) result {
			bs := setup(b)
			if bs.err != nil {
				return dead(bs)
			}
			a := b.do(bs.s, "GET", "/healthz", "", nil, nil, false)
			if a.err != nil || a.status != 200 {
				return dead(bs)
			}
			return result{class: ok, msg: fmt.Sprintf("%d %s", a.status, strings.TrimSpace(string(a.body)))}
		}},
		{"fault/budget-add-energy-after", "serve/fault", func(b *battery) result {
			bs := setup(b)
			defer bs.s.stop()
			if bs.err != nil {
				return dead(bs)
			}
			a := b.addBatch(bs.s, "m00", 100, 1, "")
			e := b.do(bs.s, "POST", "/v1/memories/m00/energy", "application/json", jsonBody(map[string]any{"queries": batch(100, 1)}), nil, false)
			msg := fmt.Sprintf("add %d, energy %d %s", a.status, e.status, excerpt(string(e.body), 100))
			if a.err != nil || e.err != nil {
				return dead(bs)
			}
			if a.status != 200 || e.status != 200 {
				return result{class: unclear, msg: msg, note: "the memories made do not answer"}
			}
			if cl, note := bs.s.crashed(); cl != "" {
				return result{class: cl, msg: msg, note: note}
			}
			return result{class: ok, msg: msg}
		}},
	}
}

// killLoop: SIGKILL the server 20 times while a client adds batches, each
// with an Idempotency-Key, retrying a batch under its key until it is
// acknowledged; the final count is exactly the acknowledged additions.
func killLoop(b *battery) result {
	dir := filepath.Join(b.caseDir(b.cur), "data")
	s, err := b.startServer(dir, "", 0, nil)
	if err != nil {
		s.kill()
		return result{class: unclear, msg: err.Error(), note: "setup"}
	}
	addr := s.addr
	if a := b.do(s, "PUT", "/v1/memories/m", "application/json", []byte(`{"d": 8, "y": 512, "projection": "structured", "seed": 3}`), nil, false); a.status != 201 {
		s.kill()
		return result{class: unclear, msg: fmt.Sprintf("PUT: %d %v", a.status, a.err), note: "setup"}
	}
	var mu sync.Mutex
	acked, retries, others := 0, 0, []string{}
	stop := make(chan struct{})
	clientDone := make(chan struct{})
	target := &server{addr: addr}
	go func() {
		defer close(clientDone)
		for k := 0; ; k++ {
			key := fmt.Sprintf("battery-kill-%d", k)
			body := jsonBody(map[string]any{"patterns": batch(8, k)})
			for try := 0; ; try++ {
				a := b.doQuiet(target, "POST", "/v1/memories/m/patterns", body, map[string]string{"Idempotency-Key": key})
				if a.err == nil && a.status == 200 {
					mu.Lock()
					acked++
					mu.Unlock()
					break
				}
				if a.err == nil && a.status < 500 {
					mu.Lock()
					others = append(others, fmt.Sprintf("batch %d: %d %s", k, a.status, excerpt(string(a.body), 100)))
					mu.Unlock()
					break
				}
				mu.Lock()
				retries++
				mu.Unlock()
				if try > 400 {
					return
				}
				time.Sleep(25 * time.Millisecond)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	rng := rand.New(rand.NewPCG(27, 20))
	kills := 0
	for range 20 {
		time.Sleep(time.Duration(40+rng.IntN(160)) * time.Millisecond)
		s.kill()
		kills++
		if cl, note := s.crashed(); cl != "" && cl != fatal {
			close(stop)
			<-clientDone
			return result{class: cl, msg: note}
		}
		s, err = b.startServer(dir, addr, 0, nil)
		if err != nil {
			close(stop)
			<-clientDone
			cl, note := s.crashed()
			if cl == "" || cl == fatal && s.sig == 0 {
				cl = unclear
			}
			return result{class: cl, msg: err.Error(), note: fmt.Sprintf("the server did not restart after kill %d: %s", kills, note)}
		}
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	<-clientDone
	defer s.stop()
	mi, a := b.info(s, "m", false)
	mu.Lock()
	defer mu.Unlock()
	msg := fmt.Sprintf("%d kills, %d batches acknowledged (%d patterns), %d retries; count %d", kills, acked, 4*acked, retries, mi.Count)
	if a.status != 200 {
		return result{class: unclear, msg: msg, note: fmt.Sprintf("GET m: %d", a.status)}
	}
	if len(others) > 0 {
		return result{class: unclear, msg: msg, note: strings.Join(others, "; ")}
	}
	switch {
	case mi.Count < 4*acked:
		return result{class: lost, msg: msg, note: fmt.Sprintf("%d acknowledged patterns missing", 4*acked-mi.Count)}
	case mi.Count > 4*acked:
		return result{class: silentWrong, msg: msg, note: fmt.Sprintf("%d patterns more than acknowledged: retried batches stored twice", mi.Count-4*acked)}
	}
	return result{class: ok, msg: msg}
}

// doQuiet is do without the log line (the kill loop's client sends
// hundreds) and with a shorter timeout.
func (b *battery) doQuiet(s *server, method, path string, body []byte, hdr map[string]string) answer {
	req, err := http.NewRequest(method, "http://"+s.addr+path, bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(bufio.NewReader(resp.Body))
	return answer{status: resp.StatusCode, body: rb, hdr: resp.Header}
}
