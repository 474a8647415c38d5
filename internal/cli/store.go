package cli

import (
	"fmt"
	"io"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
)

// DefaultChunkValues is about the number of values of a chunk of patterns
// that Store reads at a time: 8 MiB of float64.
const DefaultChunkValues = 1 << 20

// ChunkRows returns the rows of a chunk of patterns of dimension d, for
// chunks of about values values: a multiple of the 256 patterns that a
// DrDAM encodes at a time, so that T is the same bit for bit as when the
// patterns are added in one call (for the L2 energy; a DrDAM of the dot
// energy rescales T when a pattern of larger weight comes, so its T is the
// same to rounding). Rows wider than values/256 go fewer at a time, at
// least one.
func ChunkRows(d, values int) int {
	if d <= values/256 {
		return 256 * (values / (256 * d))
	}
	return max(1, values/d)
}

// Store is how the patterns of a dataio.Rows go into a model: a chunk at
// a time, the next chunk read (and checked: Fill) while the model stores
// the last. drdam encode, add and remove store their files this way.
type Store struct {
	// ChunkValues is about the number of values of a chunk (0:
	// DefaultChunkValues); Budget is the memory budget in bytes (0:
	// dam.DefaultBudget()), of which the two chunks take a quarter at
	// most.
	ChunkValues int
	Budget      int64
	// Progress, if not nil, is called after each chunk with the patterns
	// stored and Rows.Progress (what is read of the input, and its size).
	Progress func(stored, read, all int64)
}

// Run adds (or, with remove set, removes) the patterns of rows to m and
// returns the number stored. A bad row is an error naming its file, row
// and column (Fill); an error of the model's Add or Remove is returned
// wrapped in a *StoreError. In both cases m is then partly updated, and
// the caller must not save it.
func (s Store) Run(m dam.Memory, rows *dataio.Rows, remove bool) (int64, error) {
	d := rows.Cols()
	if d != m.Dim() {
		return 0, fmt.Errorf("%s: patterns have %d columns, but the model has dimension D = %d", rows.Name(), d, m.Dim())
	}
	n, err := s.chunk(rows.Name(), d)
	if err != nil {
		return 0, err
	}
	op := m.Add
	if remove {
		op = m.Remove
	}
	full, stop := s.read(rows, m.Config(), n*d)
	defer close(stop)
	var stored int64
	for ch := range full {
		if ch.err != nil && ch.err != io.EOF {
			return stored, ch.err
		}
		if ch.k == 0 {
			break
		}
		if err := op(ch.data[:ch.k*d]); err != nil {
			return stored, &StoreError{Err: err}
		}
		stored += int64(ch.k)
		ch.free <- ch.data
		if s.Progress != nil {
			s.Progress(stored, ch.read[0], ch.read[1])
		}
	}
	return stored, nil
}

// chunk returns the rows of a chunk of patterns of dimension d under the
// budget: two chunks take at most a quarter of it (a header may declare
// rows of any width), so fewer rows under a small budget, and an error if
// one row is too wide.
func (s Store) chunk(name string, d int) (int, error) {
	values := s.ChunkValues
	if values <= 0 {
		values = DefaultChunkValues
	}
	n, b := underBudget(ChunkRows(d, values), s.Budget, 16*int64(d))
	if n > 256 {
		n -= n % 256
	}
	if n < 1 {
		return 0, fmt.Errorf("%s: rows of %d values take %s to read (two chunks of a row), more than a quarter of the memory budget of %s; raise --max-memory",
			name, d, dam.Bytes(16*float64(d)), dam.Bytes(float64(b)))
	}
	return n, nil
}

// underBudget returns n, or fewer rows if n rows of perRow bytes would
// take more than a quarter of the budget b (0: dam.DefaultBudget()), and
// the budget it used. The chunked readers (Store, Complete) size their
// chunks this way; 0 rows means that one row does not fit.
func underBudget(n int, b, perRow int64) (int, int64) {
	if b <= 0 {
		b = dam.DefaultBudget()
	}
	if fit := b / 4 / perRow; int64(n) > fit {
		n = int(fit)
	}
	return n, b
}

// chunk is a buffer of patterns read by Store.read.
type chunk struct {
	data []float64
	k    int
	read [2]int64 // rows.Progress() after the chunk
	err  error
	free chan<- []float64
}

// read fills two buffers of size values in turn, from as many files as it
// takes (so that the chunks start at the same rows as those of one file),
// and sends each on full; the receiver gives a buffer back on its chunk's
// free. Closing stop ends it.
func (s Store) read(rows *dataio.Rows, c dam.Config, size int) (full <-chan chunk, stop chan struct{}) {
	free := make(chan []float64, 2)
	free <- make([]float64, size)
	free <- make([]float64, size)
	out := make(chan chunk, 1)
	stop = make(chan struct{})
	go func() {
		defer close(out)
		for {
			var buf []float64
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			k, err := Fill(rows, buf, c)
			done, all := rows.Progress()
			select {
			case out <- chunk{buf, k, [2]int64{done, all}, err, free}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, stop
}

// StoreError is an error of the model's Add or Remove during Store.Run
// (not of reading the rows).
type StoreError struct{ Err error }

func (e *StoreError) Error() string { return e.Err.Error() }

// Unwrap returns the model's error.
func (e *StoreError) Unwrap() error { return e.Err }
