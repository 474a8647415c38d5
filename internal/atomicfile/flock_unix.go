//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// errNoLocks is returned by flock where the system has no advisory locks.
var errNoLocks = errors.New("advisory locks are not supported")

// flock takes an exclusive advisory lock on f, waiting for it if wait is
// set, else failing with errLocked when another holds it.
func flock(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP):
			return errNoLocks
		}
		return err
	}
}
