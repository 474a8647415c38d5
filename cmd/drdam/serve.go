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
	"strings"
	"syscall"
	"time"

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

Example:
  drdam serve --data memories &
  curl -X PUT localhost:7077/v1/memories/letters -d '{"d": 16, "beta": 30, "y": 50000}'`)
	data := fs.String("data", "", "folder of the memories (created if absent)")
	addr := fs.String("addr", "127.0.0.1:7077", "address to listen on")
	tokenFile := fs.String("token-file", "", "file holding the bearer token that every request must carry (or DRDAM_TOKEN)")
	snapEvery := fs.Count("snapshot-every", 1000, 1, maxCount, "writes after which a memory is snapshotted and its log emptied")
	wave := fs.Duration("wave", serve.DefaultWave, "apply writes to a DrDAM in waves of about this long, so that queries arriving during a write are read within a wave (0: in one piece, which keeps queries waiting for a whole write)")
	fs.require("data")
	if err := fs.parse(e, args); err != nil {
		return err
	}
	if *wave < 0 {
		return usagef("--wave %v: want a duration ≥ 0, such as 4ms", *wave)
	}
	token := os.Getenv("DRDAM_TOKEN")
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return usagef("--token-file %s is empty", *tokenFile)
		}
	}
	if token == "" && !loopback(*addr) {
		return usagef("--addr %s: without a token (--token-file or DRDAM_TOKEN) drdam serve listens only on a loopback address (127.0.0.1, ::1, localhost)", *addr)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	w := *wave
	if w == 0 {
		w = -1 // serve.Options: in one piece
	}
	srv, err := serve.New(serve.Options{Dir: *data, Token: token, SnapshotEvery: *snapEvery, Wave: w, Log: log})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Close()
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	log.Info("serving", "addr", ln.Addr().String(), "data", *data, "token", token != "")
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
