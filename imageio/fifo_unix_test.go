//go:build unix

package imageio

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadFifo: a fifo named as an image is refused at once, not opened
// (opening a fifo waits for a writer: the command hung for ever).
func TestLoadFifo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.png")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no fifo here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Load([]string{p}, 8, 8)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), p+": not a regular file") {
			t.Errorf("a fifo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load of a fifo did not return within 5 s")
	}
}
