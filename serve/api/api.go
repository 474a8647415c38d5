// Package api holds the JSON types of drdam serve's HTTP API (package
// serve), for the server and for clients, which import this package
// alone and none of the server's dependencies.
package api

// Config is the configuration of a memory: the fields of dam.Config's
// codec (dam.Fields, which drdam encode's flags also are, with "-" for
// "_"), with their names and defaults, but max_memory (the server's). PUT /v1/memories/{name} takes it; GET
// returns it, with the DrDAM-only fields left out of an MrDAM's.
type Config struct {
	Rep        string  `json:"rep,omitempty"`        // drdam (default) or mrdam
	D          int     `json:"d"`                    // dimension of the patterns (required)
	Beta       float64 `json:"beta,omitempty"`       // inverse temperature β > 0 (default 10)
	Similarity string  `json:"similarity,omitempty"` // l2 (default) or dot
	Basis      string  `json:"basis,omitempty"`      // DrDAM: sincos (default), cos, exp, expexp
	Projection string  `json:"projection,omitempty"` // DrDAM: gaussian (default), orthogonal, structured
	Y          int     `json:"y,omitempty"`          // DrDAM: random projections (default 20000)
	Seed       uint64  `json:"seed,omitempty"`       // DrDAM: of the projection (default 0)
	Generator  int     `json:"generator,omitempty"`  // DrDAM: of a dense projection's Gaussians (default 2)
	NoBias     bool    `json:"no_bias,omitempty"`    // DrDAM: no random shift in cos/sin
	Eps        float64 `json:"eps,omitempty"`        // DrDAM: clip floor ε (0: the basis default)
	OnDemand   bool    `json:"on_demand,omitempty"`  // DrDAM: regenerate a Gaussian projection's rows
	Precision  string  `json:"precision,omitempty"`  // float64 (default) or float32
}

// MemoryInfo is what GET /v1/memories/{name} returns, and a row of GET
// /v1/memories ({"memories": [...]}).
type MemoryInfo struct {
	Name   string `json:"name"`
	Config Config `json:"config"`
	Count  int    `json:"count"` // patterns stored (closed: as of when it was last open; −1 if not since the server started)
	Bytes  int64  `json:"bytes"` // of the stored state: T (8·F), or the patterns (8·K·D)
	Seq    uint64 `json:"seq"`   // writes logged since the memory was created (0 while closed)
	// Status is "ready" (open), "closed" (on disk, opened when a request
	// names it: --max-open, or the memory budget) or "damaged" (a file is
	// corrupt: the memory answers 503; Error says which and what to do).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Rows is a batch of patterns or queries: rows of D numbers.
type Rows [][]float64

// RowsOf returns the rows of d values of the row-major x (a view: the
// rows share x's values).
func RowsOf(x []float64, d int) Rows {
	out := make(Rows, len(x)/d)
	for i := range out {
		out[i] = x[i*d : (i+1)*d]
	}
	return out
}

// Patterns is the body of POST …/patterns and …/patterns:remove (or a
// .npy body with Content-Type application/x-npy).
type Patterns struct {
	Patterns Rows `json:"patterns"`
}

// Written is the answer to an addition ({"added": n, "count": k}), a
// removal ({"removed": n, …}) or a merge ({"merged": n, …}), sent once the
// write is in the memory's synced log.
type Written struct {
	Added   int `json:"added,omitempty"`
	Removed int `json:"removed,omitempty"`
	Merged  int `json:"merged,omitempty"`
	Count   int `json:"count"`
}

// EnergyRequest is the body of POST …/energy.
type EnergyRequest struct {
	Queries Rows `json:"queries"`
	Grad    bool `json:"grad,omitempty"`
}

// EnergyResult is its answer: an energy per query, and the gradients if
// asked.
type EnergyResult struct {
	Energy []float64 `json:"energy"`
	Grad   Rows      `json:"grad,omitempty"`
}

// RecallRequest is the body of POST …/recall. Mask, if given, is one row
// of D booleans (or 0/1) for every query, or a row per query: true
// coordinates are clamped. Zero values take the defaults: step 0.1,
// max_steps 300, tol 0 (every step), no box.
type RecallRequest struct {
	Queries  Rows        `json:"queries"`
	Mask     any         `json:"mask,omitempty"`
	Step     float64     `json:"step,omitempty"`
	MaxSteps int         `json:"max_steps,omitempty"`
	Tol      float64     `json:"tol,omitempty"`
	Box      *[2]float64 `json:"box,omitempty"`
}

// RecallResult is its answer: the final states, the steps each query
// took, its final energy and how its descent ended (converged, max-steps
// or stalled).
type RecallResult struct {
	X       Rows      `json:"x"`
	Steps   []int     `json:"steps"`
	Energy  []float64 `json:"energy"`
	Outcome []string  `json:"outcome"`
}

// Snapshot is the answer to POST …/snapshot: the model file written (on
// the server's disk) and the patterns it holds.
type Snapshot struct {
	File  string `json:"file"`
	Count int    `json:"count"`
}

// ErrorBody is the JSON body of every error: {"error": {"status": 400,
// "field": "queries", "message": "row 2, column 5: NaN"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is what an error says: its HTTP status, the field of the
// request it is about (if one), and a message.
type ErrorDetail struct {
	Status  int    `json:"status"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}
