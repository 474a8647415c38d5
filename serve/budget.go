package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/drdam/drdam/dam"
)

// budget is the server's memory budget (Options.MaxMemory): every open
// memory holds its model's footprint of it, and every request what its
// body, its evaluation or its descent may allocate, reserved before it is
// allocated; a reservation that would pass the limit is refused with a
// *BudgetError (507), and nothing is allocated.
type budget struct {
	limit int64
	mu    sync.Mutex
	used  int64
}

// BudgetError says that a request needs more of the server's memory
// budget than is free: the server answers it 507 Insufficient Storage.
type BudgetError struct {
	Need  int64  // bytes the request needed
	What  string // what for
	Used  int64  // bytes in use when it asked
	Limit int64  // the budget
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("the server's memory budget is %s, %s of it in use; %s needs %s more: delete or close a memory, retry when fewer requests run, or start the server with a larger --max-memory",
		dam.Bytes(float64(e.Limit)), dam.Bytes(float64(e.Used)), e.What, dam.Bytes(float64(e.Need)))
}

// reserve takes n bytes of the budget for what, or refuses.
func (b *budget) reserve(n int64, what string) error {
	if n <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return &BudgetError{Need: n, What: what, Used: b.used, Limit: b.limit}
	}
	b.used += n
	return nil
}

// release gives n bytes back.
func (b *budget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if b.used < 0 {
		panic("serve: budget released more than was reserved")
	}
	b.mu.Unlock()
}

// inUse returns the bytes reserved.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// bodyFactor bounds what reading a request body allocates per byte of it:
// the bytes read (and an io.ReadAll's doubling), the JSON decoder's
// buffer and raw values, and 8 bytes of float64 for each value, which
// takes at least 2 bytes of JSON text ("0,") or 1 byte of a .npy of a
// 1-byte dtype, twice (rows, then the row-major copy).
const bodyFactor = 12

// budgetBody reserves, as the bytes of a request body arrive, bodyFactor
// bytes of the budget for each (or factor, for a body read as it is), so
// that no body is read past the budget; the request releases it when it
// ends.
type budgetBody struct {
	io.ReadCloser
	st     *reqState
	factor int64
}

func (r *budgetBody) Read(p []byte) (int, error) {
	st := r.st
	if st.next == 0 {
		st.moveDeadline() // the first: the body's first bytes are due too
	}
	n, err := r.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = st.bodyError(err)
	}
	if n > 0 {
		if berr := st.reserve(int64(n)*r.factor, "reading the request's body"); berr != nil {
			return 0, berr
		}
		st.read += int64(n)
	}
	if err == io.EOF || st.length >= 0 && st.read >= st.length {
		// The whole body. net/http lifted the deadline as it met the end
		// (its read for a closed connection starts then, and would
		// cancel the request at a deadline); it must not be set again.
		st.bodyDone()
	} else if n > 0 {
		st.moveDeadline()
	}
	return n, err
}

// passThrough returns err if it is an error of the body's transport that
// a handler must answer as it is (413 too large, 507 over the budget, 408
// too slow) rather than as a malformed body, and nil otherwise.
func passThrough(err error) error {
	var be *BudgetError
	var mb *http.MaxBytesError
	if errors.As(err, &be) || errors.As(err, &mb) || errors.Is(err, errSlowBody) {
		return err
	}
	return nil
}
