package serve

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/drdam/drdam/internal/atomicfile"
	"github.com/drdam/drdam/npy"
	"github.com/drdam/drdam/serve/api"
)

// GalleryMax is the number of patterns a memory keeps for the web page:
// the first GalleryMax added through POST …/patterns. A DrDAM stores no
// pattern (only T), so without them the page could not offer "a stored
// image" to complete.
const GalleryMax = 64

// gallery holds the first GalleryMax patterns added to a memory, in the
// file gallery.npy of its folder (rows of D values), loaded when first
// asked. It is a sample for the page, not part of the memory: a removal
// or a merge leaves it as it is.
type gallery struct {
	mu     sync.Mutex
	loaded bool
	rows   []float64
}

func (mem *memory) galleryPath() string { return filepath.Join(mem.dir, "gallery.npy") }

// loadLocked reads gallery.npy once; g.mu must be held.
func (g *gallery) loadLocked(mem *memory) {
	if g.loaded {
		return
	}
	g.loaded = true
	a, err := npy.ReadFile(mem.galleryPath())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("gallery unreadable, starting it again", "memory", mem.name, "err", err)
		}
		return
	}
	if len(a.Shape) == 2 && a.Shape[1] == mem.cfg.D && a.Shape[0] <= GalleryMax {
		g.rows = a.Data
	}
}

// keep adds the first rows of x (patterns just added, durably) to the
// gallery until it holds GalleryMax, and rewrites gallery.npy atomically.
// A failure is logged, not returned: the patterns are in the memory
// already, and the gallery is only the page's.
func (mem *memory) keep(x []float64) {
	d := mem.cfg.D
	g := &mem.gal
	g.mu.Lock()
	defer g.mu.Unlock()
	g.loadLocked(mem)
	n := len(g.rows) / d
	if n >= GalleryMax {
		return
	}
	take := min(GalleryMax-n, len(x)/d)
	rows := append(g.rows[:n*d:n*d], x[:take*d]...)
	if mem.closed.Load() {
		return
	}
	err := atomicfile.Write(mem.galleryPath(), func(w io.Writer) error {
		return npy.Write(w, []int{n + take, d}, rows)
	})
	if err != nil {
		slog.Warn("gallery not written", "memory", mem.name, "err", err)
		return
	}
	g.rows = rows
}

// galleryRows returns the kept patterns, row-major.
func (mem *memory) galleryRows() []float64 {
	g := &mem.gal
	g.mu.Lock()
	defer g.mu.Unlock()
	g.loadLocked(mem)
	return g.rows
}

// getGallery answers GET …/gallery ({"count", "max"}) and GET
// …/gallery?i=K ({"i", "pattern"}).
func (s *Server) getGallery(w http.ResponseWriter, r *http.Request) error {
	mem, err := s.memoryOf(r)
	if err != nil {
		return err
	}
	rows, d := mem.galleryRows(), mem.cfg.D
	n := len(rows) / d
	q := r.URL.Query()
	if !q.Has("i") {
		return writeJSON(w, 200, api.Gallery{Count: n, Max: GalleryMax})
	}
	i, err := strconv.Atoi(q.Get("i"))
	if err != nil {
		return fieldErr(400, "i", "want a whole number, found %q", q.Get("i"))
	}
	if i < 0 || i >= n {
		return fieldErr(404, "i", "pattern %d: the gallery of %q holds %d (0 to %d)", i, mem.name, n, n-1)
	}
	return writeJSON(w, 200, api.GalleryPattern{I: i, Pattern: rows[i*d : (i+1)*d]})
}
