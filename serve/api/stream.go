package api

// StreamRequest is the body of POST …/recall:stream: a RecallRequest of
// one query, and Every: the current state is sent every Every steps (and
// at the end; 0: every step).
type StreamRequest struct {
	RecallRequest
	Every int `json:"every,omitempty"`
}

// StepEvent is the data of an "event: step" of …/recall:stream, one per
// step t = 0, 1, …: the energy E(xᵗ), and xᵗ itself every Every steps and
// at the last step.
type StepEvent struct {
	Step   int       `json:"step"`
	Energy float64   `json:"energy"`
	X      []float64 `json:"x,omitempty"`
}

// DoneEvent is the data of the last event of …/recall:stream, "event:
// done": the final state, the steps taken, the final energy and the
// outcome (converged, max-steps or stalled), as POST …/recall answers
// them. A failure once the stream started is an "event: error" whose
// data is an ErrorBody.
type DoneEvent struct {
	X       []float64 `json:"x"`
	Steps   int       `json:"steps"`
	Energy  float64   `json:"energy"`
	Outcome string    `json:"outcome"`
}

// Gallery is the answer of GET …/gallery: how many patterns the memory
// keeps for the web page (the first Max added).
type Gallery struct {
	Count int `json:"count"`
	Max   int `json:"max"`
}

// GalleryPattern is the answer of GET …/gallery?i=K: the K-th kept
// pattern (from 0).
type GalleryPattern struct {
	I       int       `json:"i"`
	Pattern []float64 `json:"pattern"`
}
