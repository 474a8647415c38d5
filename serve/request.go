package serve

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/drdam/drdam/dam"
)

// A request's body must arrive at MinBodyRate at least, after a grace of
// BodyGrace: a body slower than that is cut and answered 408, so that a
// client that trickles its body (or stops sending it) cannot hold the
// server's memory and a connection for ever. A body of n bytes may take
// BodyGrace + n/MinBodyRate: 64 MiB, the largest by default, 17 minutes.
const (
	MinBodyRate = 64 << 10 // bytes per second
	BodyGrace   = 5 * time.Second
)

// errSlowBody is the error of a body that arrived slower than MinBodyRate.
var errSlowBody = fmt.Errorf("the body arrived slower than %d KiB/s (after %v of grace): it was cut; send it faster, or in smaller requests", MinBodyRate>>10, BodyGrace)

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
	next     int64 // the deadline is moved on once read passes next
	deadline bool  // a read deadline is set
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

// bodyRead notes that n more bytes of the body arrived, and moves the
// read deadline to BodyGrace + (bytes read + 64 KiB)/MinBodyRate after the
// request started (every 64 KiB; where the connection allows deadlines).
func (st *reqState) bodyRead(n int64) {
	st.read += n
	if st.read < st.next {
		return
	}
	st.next = st.read + 64<<10
	d := st.start.Add(BodyGrace + time.Duration(float64(st.next)/MinBodyRate*float64(time.Second)))
	if st.rc.SetReadDeadline(d) == nil {
		st.deadline = true
	}
}

// done releases what the request held.
func (st *reqState) done() {
	for _, f := range st.releases {
		f()
	}
	st.s.budget.release(st.held)
	st.held = 0
	if st.deadline {
		st.rc.SetReadDeadline(time.Time{})
	}
}

// bodyError turns the error of reading a body into what the request is
// answered: a read past the deadline is errSlowBody (408).
func bodyError(err error) error {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w (%v)", errSlowBody, err)
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
