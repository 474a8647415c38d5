package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve"
)

func runServe(e *env, args []string) error {
	fs := newFlags("serve", "", `
Serve the memories kept under --data over HTTP: create named memories,
add and remove patterns (each acknowledged once it is in the memory's
synced write-ahead log, so it survives kill -9), evaluate energies and
recall by energy descent, from many clients at once. The API is under /v1
(GET /v1/openapi.json describes it); /healthz and /metrics (Prometheus)
beside it. SIGTERM or SIGINT shut it down gracefully: requests under way
finish, every memory is snapshotted and its log closed.

Without a token (--token-file, or the environment variable DRDAM_TOKEN) it
listens only on a loopback address.

One server owns a data folder (DIR/.lock): a second one on it exits at
once, naming the first's process. Every open memory, request body,
evaluation and descent is counted against one memory budget
(--max-memory); what would pass it is answered 507. A memory whose files
are corrupt (a bad record followed by valid ones: not a crash) is not
opened: it answers 503 and the others are served. --check reports every
memory's files and exits (1 if one is damaged); --salvage rebuilds the
damaged ones from every intact record, moving the damaged files aside
(never deleting them), and exits.

Example:
  drdam serve --data memories &
  curl -X PUT localhost:7077/v1/memories/letters -d '{"d": 16, "beta": 30, "y": 50000}'`)
	data := fs.String("data", "", "folder of the memories (created if absent)")
	addr := fs.String("addr", "127.0.0.1:7077", "address to listen on")
	tokenFile := fs.String("token-file", "", "file holding the bearer token that every request must carry (or DRDAM_TOKEN)")
	snapEvery := fs.Count("snapshot-every", 1000, 1, maxCount, "writes after which a memory is snapshotted and its log started anew")
	wave := fs.Duration("wave", serve.DefaultWave, "apply writes to a DrDAM in waves of about this long, so that queries arriving during a write are read within a wave (0: in one piece, which keeps queries waiting for a whole write)")
	maxMem := addBudget(fs)
	fs.Lookup("max-memory").Usage = fmt.Sprintf("memory budget of the whole server, e.g. 8GiB: every open memory, request body, evaluation and descent; what would pass it is answered 507 (default %s: three quarters of this machine's memory or of the cgroup's limit; under ulimit -v what the address space has left after the runtime's reservations)", dam.Bytes(float64(dam.DefaultBudget())))
	maxOpen := fs.Count("max-open", 128, 0, maxCount, "memories open at once (0: no bound); at start the first in name order are opened, the others when a request names them; past it the least recently used idle memory is closed (snapshotted)")
	check := fs.Bool("check", false, "check every memory's files (configuration, snapshot, write-ahead log) against their checksums, print what each holds or what is damaged, and exit: status 1 if a memory is damaged")
	accessLog := fs.String("access-log", "", "a line per request on standard error (method, path, route, status, bytes, duration, remote address): text or json (default none)")
	salvage := fs.Bool("salvage", false, "rebuild every damaged memory from its intact records (the damaged files moved aside, never deleted), print what was kept and lost, and exit; the server must be stopped")
	fs.require("data")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	if *wave < 0 {
		return usagef("--wave %v: want a duration ≥ 0, such as 4ms", *wave)
	}
	if *accessLog != "" && *accessLog != "text" && *accessLog != "json" {
		return usagef("--access-log %q: want text or json (or nothing, for no access log)", *accessLog)
	}
	if *check && *salvage {
		return usagef("--check and --salvage are exclusive: check first, then salvage")
	}
	if *check {
		return checkData(e, *data)
	}
	if *salvage {
		return salvageData(e, *data)
	}
	token, err := serveToken(*tokenFile, *addr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	w := *wave
	if w == 0 {
		w = -1 // serve.Options: in one piece
	}
	budget := int64(*maxMem)
	if budget == 0 {
		budget = dam.DefaultBudget()
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The runtime collects harder as the heap nears the budget, so
		// that garbage does not take the process past it.
		debug.SetMemoryLimit(budget)
	}
	var access *slog.Logger
	switch *accessLog {
	case "text":
		access = log
	case "json":
		access = slog.New(slog.NewJSONHandler(e.stderr, nil))
	}
	srv, err := serve.New(serve.Options{Dir: *data, Token: token, SnapshotEvery: *snapEvery, Wave: w, Log: log, AccessLog: access, MaxMemory: budget, MaxOpen: *maxOpen})
	if err != nil {
		return err
	}
	return listenAndServe(srv, *addr, log, "data", *data, "token", token != "", "max-memory", dam.Bytes(float64(budget)))
}

// serveToken returns the bearer token of --token-file or DRDAM_TOKEN ("" for
// none), refusing an empty or spaced one, and no token on an address that
// is not loopback.
func serveToken(tokenFile, addr string) (string, error) {
	token, src := os.Getenv("DRDAM_TOKEN"), "DRDAM_TOKEN"
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		token, src = strings.TrimSpace(string(b)), "--token-file "+tokenFile
		if token == "" {
			return "", usagef("--token-file %s is empty", tokenFile)
		}
	} else if _, set := os.LookupEnv("DRDAM_TOKEN"); set {
		if strings.TrimSpace(token) == "" {
			return "", usagef("DRDAM_TOKEN is set but empty or white space: unset it to serve without a token (loopback only), or set a token")
		}
		token = strings.TrimSpace(token)
	}
	if strings.ContainsFunc(token, unicode.IsSpace) || strings.ContainsFunc(token, unicode.IsControl) {
		return "", usagef("the token of %s holds white space or a control character: a bearer token is one word", src)
	}
	if token == "" && !loopback(addr) {
		return "", usagef("--addr %s: without a token (--token-file or DRDAM_TOKEN) drdam serve listens only on a loopback address (127.0.0.1, ::1, localhost)", addr)
	}
	return token, nil
}

// listenAndServe serves srv on addr until SIGTERM or SIGINT, then shuts
// down gracefully: requests under way finish (a minute at most), and srv
// is closed (its memories snapshotted). The log's "serving" line has the
// address listened on and attrs.
func listenAndServe(srv *serve.Server, addr string, log *slog.Logger, attrs ...any) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		srv.Close()
		return err
	}
	// Headers within 10 s; a body at 64 KiB/s at least (the handler's
	// deadline, serve.Limits.MinBodyRate); an idle keep-alive connection 2 min.
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	log.Info("serving", append([]any{"addr", ln.Addr().String()}, attrs...)...)
	select {
	case err := <-done:
		srv.Close()
		return err
	case s := <-sig:
		log.Info("shutting down", "signal", s.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = hs.Shutdown(ctx)
	if cerr := srv.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("stopped")
	return err
}

// checkData prints what serve.Check finds in the data folder dir; a
// damaged memory makes it fail (status 1).
func checkData(e *env, dir string) error {
	checks, err := serve.Check(dir)
	if err != nil {
		return err
	}
	bad := 0
	for _, mc := range checks {
		state := "ok"
		if mc.Damaged {
			state, bad = "DAMAGED", bad+1
		}
		fmt.Fprintf(e.stdout, "memory %s: %s\n", mc.Name, state)
		for _, n := range mc.Notes {
			fmt.Fprintf(e.stdout, "  %s\n", n)
		}
	}
	fmt.Fprintf(e.stdout, "%d memories, %d damaged\n", len(checks), bad)
	if bad > 0 {
		return fmt.Errorf("%d damaged memories in %s: 'drdam serve --data %s --salvage' keeps every intact record (the damaged files are moved aside, not deleted)", bad, dir, dir)
	}
	return nil
}

// salvageData runs serve.Salvage on dir and prints what it did.
func salvageData(e *env, dir string) error {
	reps, err := serve.Salvage(dir)
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range reps {
		fmt.Fprintf(e.stdout, "memory %s:\n", r.Name)
		for _, n := range r.Notes {
			fmt.Fprintf(e.stdout, "  %s\n", n)
			if strings.HasPrefix(n, "NOT SALVAGED") {
				failed++
			}
		}
	}
	fmt.Fprintf(e.stdout, "%d damaged memories, %d salvaged\n", len(reps), len(reps)-failed)
	if failed > 0 {
		return fmt.Errorf("%d memories could not be salvaged (see above)", failed)
	}
	return nil
}

// loopback reports whether addr (host:port) names a loopback address.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
