package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/drdam/drdam/dam"
)

// errSlowBody is the error of a body that arrived slower than
// Limits.MinBodyRate.
var errSlowBody = errors.New("the body arrived slower than this server's minimum rate: it was cut; send it faster, or in smaller requests")

// reqState is what the server keeps of a request under way: the budget it
// holds (released when it ends), the memories it holds open, and its
// body's read deadline.
type reqState struct {
	s        *Server
	held     int64
	releases []func()
	rc       *http.ResponseController
	start    time.Time
	read     int64 // body bytes read
	next     int64 // the deadline is moved on once read reaches next (0: not set yet)
	deadline bool  // a read deadline is set
	eof      bool  // the body was read to its end
	hasBody  bool  // the request has a body
	length   int64 // its Content-Length (−1: unknown)
}

// bodyDone notes that the body was read to its end, and lifts the read
// deadline (net/http lifts it too when its body meets the end).
func (st *reqState) bodyDone() {
	if st.eof {
		return
	}
	st.eof = true
	if st.deadline {
		st.rc.SetReadDeadline(time.Time{})
		st.deadline = false
	}
}

type reqKey struct{}

// stateOf returns the request's state (nil for a request that did not
// come through the handler table).
func stateOf(r *http.Request) *reqState {
	st, _ := r.Context().Value(reqKey{}).(*reqState)
	return st
}

// reserve takes n bytes of the server's budget for what, until the
// request ends.
func (st *reqState) reserve(n int64, what string) error {
	if err := st.s.budget.reserve(n, what); err != nil {
		return err
	}
	st.held += n
	return nil
}

// reserveFor reserves n bytes for the request r (nothing for a request
// outside the handler table).
func reserveFor(r *http.Request, n float64, what string) error {
	if st := stateOf(r); st != nil {
		return st.reserve(int64(n), what)
	}
	return nil
}

// moveDeadline moves the body's read deadline to BodyGrace + 1 s +
// (bytes read)/MinBodyRate after the request started (Limits), each time a
// quarter of a second's worth more has arrived (where the connection
// allows deadlines), until the body's end.
func (st *reqState) moveDeadline() {
	if st.read < st.next || st.eof {
		return
	}
	l := st.s.opt.Limits
	st.next = st.read + max(1, l.MinBodyRate/4)
	d := st.start.Add(l.BodyGrace + time.Second + time.Duration(float64(st.read)/float64(l.MinBodyRate)*float64(time.Second)))
	if st.rc.SetReadDeadline(d) == nil {
		st.deadline = true
	}
}

// done releases what the request held, and settles the body's read
// deadline: net/http reads what is left of a small body before it answers
// (so that the connection may carry the next request), and a client that
// stopped sending would hold the answer for ever. So what is left (up to
// 256 KiB, as net/http) is read here under the deadline (set now if the
// handler read nothing): a body read to its end lifts the deadline; one
// that is not keeps it, and net/http closes the connection after the
// answer.
func (st *reqState) done(body io.Reader) {
	for _, f := range st.releases {
		f()
	}
	st.s.budget.release(st.held)
	st.held = 0
	if st.hasBody && !st.eof {
		if !st.deadline && st.rc.SetReadDeadline(time.Now().Add(st.s.opt.Limits.BodyGrace)) == nil {
			st.deadline = true
		}
		if _, err := io.CopyN(io.Discard, body, 256<<10); err == io.EOF {
			st.bodyDone()
		}
	}
}

// bodyError turns the error of reading a body into what the request is
// answered: a read past the deadline is errSlowBody (408).
func (st *reqState) bodyError(err error) error {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		l := st.s.opt.Limits
		return fmt.Errorf("%w (%d KiB/s after %v of grace; %d bytes arrived in %v: %v)", errSlowBody, l.MinBodyRate>>10, l.BodyGrace, st.read, time.Since(st.start).Round(time.Millisecond), err)
	}
	return err
}

// evalNeed is what evaluating b queries of a memory of k patterns (with
// gradients if grad) may allocate, with the JSON of the answer (at most 25 bytes a
// number).
func evalNeed(c dam.Config, k, b int, grad bool) float64 {
	out := float64(b) * 25
	if grad {
		out += float64(b) * float64(c.D) * (25 + 8)
	}
	return dam.EstimateEval(c, k, b, grad) + out + float64(b)*8
}
