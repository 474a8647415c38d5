package serve

import (
	"log/slog"
	"net/http"
	"time"
)

// accessLog wraps next with a line per request on log (Options.AccessLog),
// after the response: its method, path, route pattern (the API's, or "" for
// a request refused before routing), status, bytes received (the
// Content-Length, −1 if unknown) and sent, duration and remote address.
// Every request is logged, those refused for the token (401) too; the
// token itself never is.
func accessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		aw := &accessWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(aw, r)
		log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("route", r.Pattern),
			slog.Int("status", aw.code),
			slog.Int64("bytes_in", r.ContentLength),
			slog.Int64("bytes_out", aw.n),
			slog.Duration("duration", time.Since(t0)),
			slog.String("remote", r.RemoteAddr))
	})
}

// accessWriter counts what a response writes and remembers its status.
type accessWriter struct {
	http.ResponseWriter
	code int
	n    int64
}

func (w *accessWriter) WriteHeader(code int) { w.code = code; w.ResponseWriter.WriteHeader(code) }

func (w *accessWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// Unwrap gives http.ResponseController the connection's writer.
func (w *accessWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *accessWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
