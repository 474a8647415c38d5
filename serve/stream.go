package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/serve/api"
)

// recallStream answers POST …/recall:stream: the descent of one query,
// as /recall runs it, streamed as server-sent events (text/event-stream):
// an "event: step" per step t (api.StepEvent: t, E(xᵗ), and xᵗ every
// "every" steps and at the last one), then "event: done" (api.DoneEvent),
// or "event: error" (an ErrorBody) if the descent fails once started.
// Each event is flushed as it is written; the descent (see descend) holds
// no lock while an event is written.
func (s *Server) recallStream(w http.ResponseWriter, r *http.Request) error {
	mem, x, rest, err := s.recallBody(r)
	if err != nil {
		return err
	}
	d := mem.cfg.D
	if len(x) != d {
		return fieldErr(400, "queries", "%d queries: a stream descends one (POST …/recall takes a batch)", len(x)/d)
	}
	every := 1
	if v, ok := rest["every"]; ok {
		if err := json.Unmarshal(v, &every); err != nil || every < 0 {
			return fieldErr(400, "every", "want a whole number ≥ 0, found %s", v)
		}
		every = max(every, 1)
		delete(rest, "every")
	}
	o, err := s.recallOptions(rest, 1, d)
	if err != nil {
		return err
	}
	flusher, _ := w.(http.Flusher)
	started := false
	prev := append([]float64(nil), x...) // xᵗ, the point step t evaluated
	var cur []float64
	t := 0
	each := func(ds *dam.Descent) error {
		if !started {
			h := w.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-store")
			h.Set("X-Accel-Buffering", "no")
			w.WriteHeader(200)
			started = true
		}
		res := ds.Result()
		tr := res.Energy[0]
		ev := api.StepEvent{Step: t, Energy: tr[len(tr)-1]}
		if t%every == 0 || ds.Active() == 0 {
			ev.X = prev
		}
		if err := writeEvent(w, flusher, "step", ev); err != nil {
			return err
		}
		cur = ds.State(0, cur)
		copy(prev, cur)
		t++
		return nil
	}
	res, err := s.descend(r, mem, x, o, each)
	if err != nil {
		if !started {
			return err
		}
		if r.Context().Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			return nil // the client went away
		}
		writeEvent(w, flusher, "error", api.ErrorBody{Error: errorDetail(err)})
		return nil
	}
	tr := res.Energy[0]
	return writeEvent(w, flusher, "done", api.DoneEvent{X: res.X, Steps: res.Steps[0], Energy: tr[len(tr)-1], Outcome: res.Outcome[0].String()})
}

// writeEvent writes one server-sent event and flushes it.
func writeEvent(w http.ResponseWriter, f http.Flusher, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return err
	}
	if f != nil {
		f.Flush()
	}
	return nil
}
