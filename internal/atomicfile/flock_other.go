//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package atomicfile

import (
	"errors"
	"os"
)

// errNoLocks is returned by flock where the system has no advisory locks.
var errNoLocks = errors.New("advisory locks are not supported")

// flock reports that this system has no advisory locks (Lock and the stale
// temporary file check then do nothing).
func flock(f *os.File, wait bool) error { return errNoLocks }
