package client

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The retry policy's defaults (WithRetry) and the longest wait between
// two attempts, a Retry-After header's included.
const (
	DefaultRetries = 5
	DefaultBackoff = 100 * time.Millisecond
	MaxBackoff     = 5 * time.Second
)

// WithRetry sets how many times a call is sent again after an answer or
// a failure worth retrying (see the package's documentation), retries,
// and the wait before the first retry, base (≤ 0: DefaultBackoff),
// doubled at each retry up to MaxBackoff. retries ≤ 0 disables retries:
// one attempt a call. Without WithRetry: DefaultRetries, DefaultBackoff.
func WithRetry(retries int, base time.Duration) Option {
	return func(c *Client) {
		c.retries, c.backoff = max(retries, 0), base
		if base <= 0 {
			c.backoff = DefaultBackoff
		}
	}
}

// WithoutIdempotencyKeys makes the writes (Add, Remove, AddFlat,
// RemoveFlat, Merge) go without an Idempotency-Key header, unless their
// context has one (WithIdempotencyKey). A retry of such a write may then
// apply it twice: see the package's documentation.
func WithoutIdempotencyKeys() Option { return func(c *Client) { c.noKeys = true } }

// keyCtx is the context key of WithIdempotencyKey's value.
type keyCtx struct{}

// WithIdempotencyKey returns a copy of ctx that makes a write (Add,
// Remove, AddFlat, RemoveFlat, Merge) called with it send key as its
// Idempotency-Key instead of a random key of its own: 1–255 printable
// ASCII characters, no spaces (another key fails the call before it is
// sent). Every write called with the context sends the key, so give each
// write its own: the server answers a second write of the same key with
// the first one's answer (and changes nothing), or with a 422 if its body
// differs. Reads ignore it.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyCtx{}, key)
}

// checkKey returns an error if key is not 1–255 printable ASCII
// characters without spaces.
func checkKey(key string) error {
	ok := len(key) >= 1 && len(key) <= 255
	for i := 0; ok && i < len(key); i++ {
		ok = key[i] > ' ' && key[i] < 0x7f
	}
	if !ok {
		return fmt.Errorf("idempotency key %q: want 1–255 printable ASCII characters, no spaces", key)
	}
	return nil
}

// keyOf returns the Idempotency-Key of a call of r: none for a read, the
// context's if it has one (WithIdempotencyKey), none if the Client sends
// none, else 128 random bits in hexadecimal.
func (c *Client) keyOf(ctx context.Context, r request) (string, error) {
	if !r.keyed {
		return "", nil
	}
	if k, ok := ctx.Value(keyCtx{}).(string); ok {
		return k, checkKey(k)
	}
	if c.noKeys {
		return "", nil
	}
	var b [16]byte
	crand.Read(b[:]) // never fails (crypto/rand's documentation)
	return hex.EncodeToString(b[:]), nil
}

// retryStatus is the statuses worth another attempt: a request cut for
// its slow body (408), too many requests (429), a server failure (500),
// a proxy's (502, 504), a memory being opened or damaged (503) and a full
// disk or memory budget (507).
var retryStatus = map[int]bool{408: true, 429: true, 500: true, 502: true, 503: true, 504: true, 507: true}

// retryable reports whether an attempt that failed with err is worth
// another: an answer of a status of retryStatus, or a failure of the
// connection (refused, reset, closed before the answer's end, a timeout
// of the attempt). The caller checks its context first: an error of a
// context done is not retried.
func retryable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return retryStatus[e.Status]
	}
	var ue *url.Error // a net.Error itself: look inside
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return true // http.Client.Timeout, or a dial's or a read's
		}
		err = ue.Err
	}
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// retryAfter returns the wait a Retry-After header asks for (seconds, or
// an HTTP date), or -1 if h has none that parses.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return -1
		}
		if s > int64(MaxBackoff/time.Second) {
			return MaxBackoff
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return -1
}

// delay returns the wait before attempt n+1 after n attempts: wait if it
// is not negative (a Retry-After), else base·2ⁿ⁻¹ with equal jitter (a
// random point of its upper half, so that clients failed together do not
// retry together, and each wait is at least the previous one's longest);
// both at most MaxBackoff.
func delay(n int, base, wait time.Duration) time.Duration {
	if wait >= 0 {
		return min(wait, MaxBackoff)
	}
	d := base
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// sleep waits d, or until ctx is done (its error then).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gaveUp is the error of a call that ends after n attempts with last, its
// last attempt's error, stopped by its context's error stop if not nil:
// last alone after one attempt, else prefixed with their number; and stop
// too unless last wraps it already.
func gaveUp(n int, last, stop error) error {
	what := fmt.Sprintf("%d attempts", n)
	if n == 1 {
		what = "1 attempt"
	}
	switch {
	case stop != nil && !errors.Is(last, stop):
		return fmt.Errorf("%s, then %w; the last: %w", what, stop, last)
	case n == 1:
		return last
	}
	return fmt.Errorf("%s, the last: %w", what, last)
}
