// Package atomicfile writes files so that a reader never sees a partial
// one: the content goes to a temporary file in the same directory, which is
// synced and then renamed over the target. If anything fails, the target is
// left as it was and the temporary file is removed.
//
// A path that is a symbolic link is followed: the file it names is
// replaced and the link is kept. While a temporary file is being written it
// is locked (an advisory lock, where the system has one); a temporary file
// of the same target that nobody holds is what a killed run left behind,
// and Write removes it. RemoveTemps removes the temporary files of the
// writes in progress, for a signal handler about to exit. Lock serializes
// the read–modify–write cycles of several processes on one file.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// live is the set of temporary files being written by this process, so
// that RemoveTemps can delete them when the process is interrupted. It is
// process-wide state by nature: a signal ends every write at once.
var live = struct {
	sync.Mutex
	names  map[string]bool
	closed bool // RemoveTemps was called: the process is exiting
}{names: map[string]bool{}}

// RemoveTemps removes the temporary files of the writes in progress and
// returns their names. A command calls it when a signal interrupts it,
// before it exits; the targets keep their old contents.
func RemoveTemps() []string {
	live.Lock()
	defer live.Unlock()
	live.closed = true // no write starts after this
	var out []string
	for n := range live.names {
		if os.Remove(n) == nil {
			out = append(out, n)
		}
		delete(live.names, n)
	}
	return out
}

// tempPrefix returns the prefix of the temporary files of the target base.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// Resolve returns the file that writing to path replaces: path itself, or
// the file a symbolic link at path names (followed through every link, even
// to a file that does not exist yet).
func Resolve(path string) (string, error) {
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		if hops == 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links", path)
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
}

// Write creates or replaces the file at path with what write produces,
// through a buffer. A new file gets permissions 0644; an existing file keeps
// its permissions. If path is a symbolic link, the file it names is
// replaced. Temporary files of path left by killed runs are removed first.
// Errors are prefixed with "write PATH: ".
func Write(path string, write func(w io.Writer) error) (err error) {
	target, err := Resolve(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file", path)
		}
		perm = fi.Mode().Perm()
	}
	removeStale(dir, base)
	// The file is created and registered under the lock, so that a
	// RemoveTemps that a signal triggers cannot fall between the two.
	live.Lock()
	if live.closed {
		live.Unlock()
		return fmt.Errorf("write %s: interrupted", path)
	}
	f, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		live.Unlock()
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("write %s: creating temporary file: %w", path, err)
	}
	tmp := f.Name()
	live.names[tmp] = true
	live.Unlock()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
		live.Lock()
		delete(live.names, tmp)
		live.Unlock()
	}()
	// Held until the file is closed: it tells a later Write that this
	// temporary file is not stale.
	if err := flock(f, true); err != nil && !errors.Is(err, errNoLocks) {
		return fmt.Errorf("write %s: locking the temporary file: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: close: %w", path, err)
	}
	// Make the rename durable; not every system can sync a directory, so a
	// failure here is ignored.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// removeStale removes the temporary files of base in dir that no process
// holds: those of runs killed while writing (and untouched for a second,
// so that a writer that has just created its file is not robbed). Where the system has no
// advisory locks nothing is removed, since a live writer cannot be told
// from a dead one.
func removeStale(dir, base string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), tempPrefix(base)) || !e.Type().IsRegular() {
			continue
		}
		// A file created this very moment may not be locked yet by its
		// writer: only files untouched for a second are candidates.
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < time.Second {
			continue
		}
		name := filepath.Join(dir, e.Name())
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if flock(f, false) == nil {
			os.Remove(name)
		}
		f.Close()
	}
}

// errLocked is returned by flock without waiting when another process
// holds the lock.
var errLocked = errors.New("locked by another process")

// Lock takes an exclusive advisory lock on the existing file at path (a
// symbolic link is followed), for a read–modify–write cycle that ends with
// Write: the lock is taken on the file itself, and a Lock that waited
// while the file was replaced takes it again on the new file, so that it
// reads what the holder wrote. If another process holds the lock, waiting
// is called once and Lock blocks until it is released. The lock is
// released by the returned function or when the process ends, however it
// ends. A path that does not exist has nothing to protect: Lock returns a
// release that does nothing. Where the system has no advisory locks, Lock
// does nothing.
func Lock(path string, waiting func()) (release func(), err error) {
	target, err := Resolve(path)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	told := false
	for {
		f, err := os.Open(target)
		if errors.Is(err, os.ErrNotExist) {
			return func() {}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		err = flock(f, false)
		if errors.Is(err, errNoLocks) {
			f.Close()
			return func() {}, nil
		}
		if errors.Is(err, errLocked) {
			if !told && waiting != nil {
				waiting()
				told = true
			}
			err = flock(f, true)
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// The holder may have replaced the file while we waited: then
		// the lock is on a file nobody reads any more.
		fi, err1 := f.Stat()
		cur, err2 := os.Stat(target)
		if err1 == nil && err2 == nil && os.SameFile(fi, cur) {
			return func() { f.Close() }, nil
		}
		f.Close()
		if err2 != nil && !errors.Is(err2, os.ErrNotExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err2)
		}
	}
}

// HeldError says that another process owns a file that Own was asked to
// take: its path, and the process ID the owner wrote into it (0 if none
// could be read).
type HeldError struct {
	Path string
	PID  int
}

func (e *HeldError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is held by process %d", e.Path, e.PID)
	}
	return fmt.Sprintf("%s is held by another process", e.Path)
}

// Own takes, without waiting, an exclusive advisory lock on the file at
// path (created if absent) for as long as the process runs or until
// release is called, and writes the process's ID into it, so that the
// next process to try is told who holds it: a *HeldError. The lock ends
// with the process, however it ends (kill -9 included): a lock file left
// behind by a dead owner is taken over. Where the system has no advisory
// locks, Own takes nothing and says so through noLocks.
func Own(path string) (release func(), noLocks bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	switch err := flock(f, false); {
	case errors.Is(err, errNoLocks):
		f.Close()
		return func() {}, true, nil
	case errors.Is(err, errLocked):
		he := &HeldError{Path: path}
		var b [32]byte
		n, _ := f.ReadAt(b[:], 0)
		fmt.Sscan(strings.TrimSpace(string(b[:n])), &he.PID)
		f.Close()
		return nil, false, he
	case err != nil:
		f.Close()
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0)
	}
	return func() { f.Close() }, false, nil
}

// IsTemp reports whether name (a base name) is a temporary file that Write
// creates: a killed run may leave one behind.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
