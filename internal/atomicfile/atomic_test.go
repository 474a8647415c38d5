package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteInjectedFailure makes the writing fail half way and
// checks that neither a partial file nor a temporary file is left.
func TestWriteInjectedFailure(t *testing.T) {
	boom := errors.New("injected failure")
	halfThenFail := func(w io.Writer) error {
		if _, err := io.WriteString(w, "1,2,3\n4,"); err != nil {
			return err
		}
		return boom
	}
	for _, tc := range []struct {
		name string
		old  *string // the file's contents before, or nil if absent
	}{
		{"new file", nil},
		{"existing file", func() *string { s := "old,contents\n"; return &s }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.csv")
			if tc.old != nil {
				if err := os.WriteFile(path, []byte(*tc.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(path, halfThenFail)
			if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "write "+path+": ") {
				t.Errorf("error %v, want the injected failure, prefixed with %q", err, "write "+path+": ")
			}
			b, err := os.ReadFile(path)
			switch {
			case tc.old == nil && !errors.Is(err, os.ErrNotExist):
				t.Errorf("after a failed write the target exists, holding %q", b)
			case tc.old != nil && string(b) != *tc.old:
				t.Errorf("after a failed write the target holds %q, want the old %q", b, *tc.old)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if tc.old != nil {
				want = 1
			}
			if len(ents) != want {
				t.Errorf("directory holds %v, want %d files", ents, want)
			}
		})
	}
}
