package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWriteFollowsSymlink checks that writing through a link replaces the
// file it names and keeps the link.
func TestWriteFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := Write(link, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced (%v, %v)", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the linked file holds %q, want %q", b, "new")
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("the linked file's permissions became %v, want 0600", fi.Mode().Perm())
	}
}

// TestWriteRemovesStale checks that a temporary file left by a killed run
// is removed by the next write, and that one being written is not.
func TestWriteRemovesStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.drdam")
	stale := filepath.Join(dir, tempPrefix("m.drdam")+"123")
	held := filepath.Join(dir, tempPrefix("m.drdam")+"456")
	old := time.Now().Add(-time.Hour)
	for _, n := range []string{stale, held} {
		if err := os.WriteFile(n, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(n, old, old)
	}
	h, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := flock(h, false); err == errNoLocks {
		t.Skip("no advisory locks on this system")
	} else if err != nil {
		t.Fatal(err)
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file still there (%v)", err)
	}
	if _, err := os.Stat(held); err != nil {
		t.Errorf("a temporary file held by a writer was removed: %v", err)
	}
}

// TestRemoveTemps checks that RemoveTemps deletes the temporary file of a
// write in progress and leaves the target as it was.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	inWrite, resume := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- Write(path, func(w io.Writer) error {
			close(inWrite)
			<-resume
			return io.ErrUnexpectedEOF // the interrupted write fails
		})
	}()
	<-inWrite
	removed := RemoveTemps()
	defer func() { live.Lock(); live.closed = false; live.Unlock() }() // for the other tests
	if err := Write(filepath.Join(dir, "late.csv"), func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("a write after RemoveTemps: err = %v, want it refused", err)
	}
	if len(removed) != 1 || !strings.HasPrefix(filepath.Base(removed[0]), tempPrefix("out.csv")) {
		t.Errorf("RemoveTemps removed %v, want the one temporary file", removed)
	}
	close(resume)
	<-done
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %v, want only out.csv", ents)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("target holds %q, want the old contents", b)
	}
}

// TestLockSerializes checks that a second Lock waits, says so, and then
// holds the lock on the file the first holder wrote (not on the file it
// replaced), so that a read–modify–write after it sees the first one's
// update.
func TestLockSerializes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "counter")
	if err := os.WriteFile(path, []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	release, err := Lock(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var waited, acquired atomic.Bool
	got := make(chan string)
	go func() {
		rel, err := Lock(path, func() { waited.Store(true) })
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		acquired.Store(true)
		b, _ := os.ReadFile(path)
		rel()
		got <- string(b)
	}()
	// Let the second Lock reach its wait; a generous bound, since only
	// its ordering matters.
	for i := 0; i < 200 && !waited.Load(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if !waited.Load() {
		t.Skip("the second Lock did not wait: no advisory locks here")
	}
	if acquired.Load() {
		t.Fatal("the second Lock was acquired while the first was held")
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "1"); return err }); err != nil {
		t.Fatal(err)
	}
	release()
	if s := <-got; s != "1" {
		t.Errorf("after the first holder's update, the second read %q, want %q", s, "1")
	}
}

// TestLockMissing checks that locking a file that does not exist is not an
// error.
func TestLockMissing(t *testing.T) {
	rel, err := Lock(filepath.Join(t.TempDir(), "none"), nil)
	if err != nil {
		t.Fatal(err)
	}
	rel()
}

// TestOwn: a second Own of a held file fails at once with the holder's
// process ID; once released, it is taken again.
func TestOwn(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	release, noLocks, err := Own(p)
	if err != nil {
		t.Fatal(err)
	}
	if noLocks {
		t.Skip("no advisory locks on this system")
	}
	_, _, err = Own(p)
	var he *HeldError
	if !errors.As(err, &he) || he.PID != os.Getpid() || he.Path != p {
		t.Fatalf("second Own: %v, want a HeldError naming pid %d", err, os.Getpid())
	}
	release()
	release2, _, err := Own(p)
	if err != nil {
		t.Fatalf("Own after release: %v", err)
	}
	release2()
}
