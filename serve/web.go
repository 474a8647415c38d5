package serve

import (
	"crypto/subtle"
	"embed"
	"fmt"
	"html/template"
	"math"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/drdam/drdam/dam"
)

// The web page: GET / lists the memories (server-rendered) and holds the
// completion panel; its script and style are embedded (web/), served
// under /web/, with no build step and nothing from elsewhere.

//go:embed web
var webFS embed.FS

var pageTmpl = template.Must(template.ParseFS(webFS, "web/index.html"))

// imageShape returns the side h and channels c of the square images a
// memory of dimension d holds (d = h·h·c, c = 1 gray or 3 RGB, h ≥ 2),
// or 0, 0 if d is no such size.
func imageShape(d int) (h, c int) {
	for _, c := range []int{1, 3} {
		if d%c != 0 {
			continue
		}
		h := int(math.Round(math.Sqrt(float64(d / c))))
		if h >= 2 && h*h*c == d {
			return h, c
		}
	}
	return 0, 0
}

// pageRow is a memory as the page lists it.
type pageRow struct {
	Name, Rep, Shape, Bytes, Config string
	D, Count, Gallery, H, C         int
}

// configSummary is a memory's configuration in a line.
func configSummary(c dam.Config) string {
	a := APIConfig(c)
	s := fmt.Sprintf("β = %g · %s", a.Beta, a.Similarity)
	if a.Rep == "drdam" {
		s += fmt.Sprintf(" · %s · %s · Y = %d · seed %d", a.Basis, a.Projection, a.Y, a.Seed)
		if a.Precision != "" && a.Precision != "float64" {
			s += " · " + a.Precision
		}
	}
	return s
}

// humanBytes writes n bytes in B, KiB, MiB or GiB.
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// authorized reports whether r may see the memories: no token, or r
// carries it.
func (s *Server) authorized(r *http.Request) bool {
	if s.opt.Token == "" {
		return true
	}
	got := []byte(r.Header.Get("Authorization"))
	return subtle.ConstantTimeCompare(got, []byte("Bearer "+s.opt.Token)) == 1
}

// public reports whether a request needs no token: GET /healthz, and the
// page and its assets, which show no memory until the token is given.
func public(r *http.Request) bool {
	if r.URL.Path == "/healthz" {
		return true
	}
	return (r.Method == "GET" || r.Method == "HEAD") && (r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, "/web/"))
}

// page renders GET /: the memories (if the request may see them; with a
// token the page's script fetches them once it is pasted) and the
// completion panel.
func (s *Server) page(w http.ResponseWriter, r *http.Request) error {
	data := struct {
		Token bool
		Rows  []pageRow
	}{Token: s.opt.Token != ""}
	if s.authorized(r) {
		data.Token = false
		for _, sl := range s.list() {
			info := s.info(sl)
			if info.Status == "damaged" {
				continue // GET /v1/memories lists it, with what is wrong
			}
			s.mu.Lock()
			mem := sl.mem
			s.mu.Unlock()
			h, c := imageShape(sl.cfg.D)
			row := pageRow{Name: info.Name, Rep: info.Config.Rep, D: sl.cfg.D, Count: info.Count, Bytes: humanBytes(info.Bytes),
				Config: configSummary(sl.cfg), H: h, C: c}
			if mem != nil {
				row.Gallery = len(mem.galleryRows()) / sl.cfg.D
			}
			if h > 0 {
				row.Shape = fmt.Sprintf("%d×%d %s", h, h, map[int]string{1: "gray", 3: "RGB"}[c])
			}
			data.Rows = append(data.Rows, row)
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	return pageTmpl.Execute(w, data)
}

// asset serves a file of web/ (the script, the style).
func (s *Server) asset(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("file")
	b, err := webFS.ReadFile("web/" + name)
	if err != nil || name == "index.html" || strings.Contains(name, "/") {
		return fieldErr(404, "", "no such file: /web/%s", name)
	}
	w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, err = w.Write(b)
	return err
}
