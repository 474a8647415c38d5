package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
