package serve

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/drdam/drdam/serve/api"
)

// chromePath returns a Chromium or Chrome binary: $DRDAM_CHROME, or the
// first of the usual names on PATH; "" if there is none.
func chromePath() string {
	if p := os.Getenv("DRDAM_CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// photos28 returns the shared photos (../shared/data/photos/cifar32,
// 32×32 RGB) as 28×28 gray patterns (the centre, luminance), or, if the
// folder is absent, twelve synthetic images: discs and bars of different
// places and sizes. The value of a level v is v/255/28, as imageio makes it.
func photos28(t *testing.T) ([]float64, string) {
	files, _ := filepath.Glob("../../shared/data/photos/cifar32/*.png")
	var out []float64
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, gray28(img)...)
	}
	if len(out) > 0 {
		return out, fmt.Sprintf("%d shared photos", len(files))
	}
	for k := range 12 {
		cx, cy, r := 6+float64(k%4)*5, 6+float64(k/4)*7, 4+float64(k%3)*2
		for y := range 28 {
			for x := range 28 {
				v := 30.0
				if dx, dy := float64(x)-cx, float64(y)-cy; dx*dx+dy*dy < r*r {
					v = 230
				}
				if (x+k)%(5+k%4) == 0 || y == 20+k%6 {
					v = 140
				}
				out = append(out, v/255/28)
			}
		}
	}
	return out, "12 synthetic images"
}

// gray28 is the centre 28×28 of img, in gray levels 0.299R+0.587G+0.114B.
func gray28(img image.Image) []float64 {
	x := make([]float64, 784)
	b := img.Bounds()
	ox, oy := b.Min.X+(b.Dx()-28)/2, b.Min.Y+(b.Dy()-28)/2
	for y := range 28 {
		for xx := range 28 {
			r, g, bb, _ := img.At(ox+xx, oy+y).RGBA()
			x[y*28+xx] = math.Round(0.299*float64(r>>8)+0.587*float64(g>>8)+0.114*float64(bb>>8)) / 255 / 28
		}
	}
	return x
}

// rmseLevels is the RMSE of a against b on coordinates [from, to), in
// levels 0–255 (as the page computes it).
func rmseLevels(a, b []float64, from, to int) float64 {
	var s float64
	for j := from; j < to; j++ {
		e := math.Round(a[j]*255*28) - math.Round(b[j]*255*28)
		s += e * e
	}
	return math.Sqrt(s / float64(to-from))
}

// browser starts headless Chromium (or skips the test without one) and
// returns its context, cancelled with the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	chrome := chromePath()
	if chrome == "" {
		t.Skip("no Chromium or Chrome on PATH (nor $DRDAM_CHROME): the web page is not tested in a browser; apt-get install chromium")
	}
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox,
		chromedp.WindowSize(1240, 1040), chromedp.Flag("hide-scrollbars", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// poll waits until expr is true in the page.
func poll(expr string) chromedp.Action {
	var ok bool
	return chromedp.Poll(expr, &ok, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second))
}

// TestBrowserControls drives the rest of the page: behind a token it
// lists nothing until the token is pasted; an uploaded PNG becomes the
// original; a box dragged on the query is what is occluded; and the
// completion streams with the token.
func TestBrowserControls(t *testing.T) {
	ctx := browser(t)
	_, url := testServer(t, t.TempDir(), Options{Token: "s3cret"})
	auth := []string{"Authorization", "Bearer s3cret"}
	call(t, "PUT", url+"/v1/memories/tiny", map[string]any{"d": 64, "beta": 40, "y": 4000, "projection": "structured"}, nil, auth...)
	call(t, "POST", url+"/v1/memories/tiny/patterns", map[string]any{"patterns": api.RowsOf(patterns(5, 64, 3), 64)}, nil, auth...)
	// A 40×30 image: its centre square, 30×30, at level 200, and bands
	// of 0 on the left and right that the page's centre crop cuts off.
	img := image.NewGray(image.Rect(0, 0, 40, 30))
	for y := range 30 {
		for x := 5; x < 35; x++ {
			img.Set(x, y, color.Gray{Y: 200})
		}
	}
	pngPath := filepath.Join(t.TempDir(), "upload.png")
	f, err := os.Create(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, img)
	f.Close()

	var note string
	var rows int
	var box struct{ X, Y, W, H float64 }
	if err := chromedp.Run(ctx,
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible("#token"),
		poll(`document.getElementById("list-note").textContent.includes("needs a token")`),
		chromedp.Text("#list-note", &note),
		chromedp.Evaluate(`document.querySelectorAll("#memories tbody tr").length`, &rows),
	); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Errorf("without the token the page lists %d memories", rows)
	}
	var src, occl string
	var uploaded []float64
	var done map[string]string
	if err := chromedp.Run(ctx,
		chromedp.SendKeys("#token", "s3cret"),
		chromedp.Click(`#token-form button`),
		chromedp.WaitVisible(`#memories tr[data-name="tiny"]`),
		poll(`drdam.state.cur && drdam.state.cur.name === "tiny" && document.querySelectorAll("#thumbs canvas").length === 5`),
		chromedp.SetUploadFiles("#upload", []string{pngPath}),
		poll(`document.getElementById("src").value === "upload"`),
		chromedp.Value("#src", &src),
		chromedp.Evaluate(`Array.from(drdam.state.orig, (v) => v * 255 * 8)`, &uploaded),
		chromedp.Evaluate(`(() => { const r = document.getElementById("c-query").getBoundingClientRect(); return {X: r.left, Y: r.top, W: r.width, H: r.height}; })()`, &box),
	); err != nil {
		t.Fatal(err)
	}
	// Drag from pixel (2, 1) to pixel (6, 4) of the 8×8 query: 4×3 pixels.
	at := func(px, py float64) (float64, float64) { return box.X + px*box.W/8, box.Y + py*box.H/8 }
	x0, y0 := at(2.1, 1.1)
	x1, y1 := at(5.9, 3.9)
	if err := chromedp.Run(ctx,
		chromedp.MouseEvent(input.MouseMoved, x0, y0),
		chromedp.MouseEvent(input.MousePressed, x0, y0, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.MouseMoved, (x0+x1)/2, (y0+y1)/2, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseMoved, x1, y1, chromedp.ButtonLeft),
		chromedp.MouseEvent(input.MouseReleased, x1, y1, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.Evaluate(`Array.from(drdam.state.occl).map((o, p) => o ? (p % 8) + "," + (p / 8 | 0) : "").filter(Boolean).join(" ")`, &occl),
		chromedp.Click("#go"),
		poll(`document.getElementById("a-stat").dataset.done !== ""`),
		chromedp.Evaluate(`({...document.getElementById("a-stat").dataset})`, &done),
	); err != nil {
		t.Fatal(err)
	}
	if src != "upload" || len(uploaded) != 64 {
		t.Fatalf("upload: source %q, %d values", src, len(uploaded))
	}
	for p, v := range uploaded {
		if math.Abs(v-200) > 1e-9 {
			t.Errorf("uploaded pixel %d at level %v, want 200 (the centre square alone)", p, v)
			break
		}
	}
	if want := "2,1 3,1 4,1 5,1 2,2 3,2 4,2 5,2 2,3 3,3 4,3 5,3"; occl != want {
		t.Errorf("occluded pixels after the drag: %s, want %s", occl, want)
	}
	if done["step"] == "" || done["rmse"] == "" {
		t.Errorf("the completion with the token did not finish: %v", done)
	}
}

// TestBrowser drives the web page in headless Chromium: the memory list
// shows, a stored image is picked, its bottom half occluded, and the
// completion by a DrDAM and an MrDAM of the same images streams in; the
// test holds both at step 12 (the page's pauseAt hook) for a screenshot
// mid-descent, then lets them finish. It asserts that the DrDAM's energy
// fell and that its RMSE on the occluded half is below half that of the
// nearest other stored image there (a completion closer to the original
// than to any other pattern by a margin: the right image was recalled).
// With DRDAM_SCREENSHOTS=1 it writes docs/serve/page.png,
// completion-mid.png and completion-end.png.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	t0 := time.Now()
	_, url := testServer(t, t.TempDir(), Options{})
	imgs, what := photos28(t)
	const d, pick = 784, 0
	k := len(imgs) / d
	// β = 120 separates the photos' gray crops (an MrDAM recalls them
	// within about 5 levels); Y = 200 000 features make the DrDAM's
	// energy close enough to recall them too, in about a second.
	for _, c := range []struct {
		name string
		cfg  map[string]any
	}{
		{"photos", map[string]any{"d": d, "beta": 120, "y": 200000, "projection": "structured", "seed": 1}},
		{"photos-exact", map[string]any{"d": d, "beta": 120, "rep": "mrdam"}},
		{"vectors", map[string]any{"d": 10, "beta": 10, "y": 1000, "projection": "structured"}},
		// First by name, and a square D = 2·2: not an image memory, so
		// the page must not open on it (it did, drawing "2×2 gray").
		{"a-tiny", map[string]any{"d": 4, "beta": 10, "y": 100}},
	} {
		if st, b := call(t, "PUT", url+"/v1/memories/"+c.name, c.cfg, nil); st != 201 {
			t.Fatalf("create %s: %d %s", c.name, st, b)
		}
		if c.name == "photos" || c.name == "photos-exact" {
			if st, b := call(t, "POST", url+"/v1/memories/"+c.name+"/patterns", map[string]any{"patterns": api.RowsOf(imgs, d)}, nil); st != 200 {
				t.Fatalf("add: %d %s", st, b)
			}
		}
	}
	call(t, "POST", url+"/v1/memories/vectors/patterns", map[string]any{"patterns": api.RowsOf(patterns(5, 10, 1), 10)}, nil)
	orig := imgs[pick*d : (pick+1)*d]
	nearest := math.Inf(1)
	for i := range k {
		if i != pick {
			nearest = min(nearest, rmseLevels(imgs[i*d:(i+1)*d], orig, d/2, d))
		}
	}
	zero := make([]float64, d)
	t.Logf("%s; on the occluded half, the query (zeros) is %.1f levels from the original, the nearest other image %.1f", what, rmseLevels(zero, orig, d/2, d), nearest)

	shots := os.Getenv("DRDAM_SCREENSHOTS") != ""
	shoot := func(name string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			if !shots {
				return nil
			}
			var b []byte
			if err := chromedp.FullScreenshot(&b, 100).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join("..", "docs", "serve", name), b, 0o644)
		})
	}
	if shots {
		if err := os.MkdirAll(filepath.Join("..", "docs", "serve"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var rows int
	var cmp, opened, choices string
	err := chromedp.Run(ctx,
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(`#memories tr[data-name="photos"]`),
		chromedp.Evaluate(`document.querySelectorAll("#memories tbody tr").length`, &rows),
		poll(`document.querySelectorAll("#thumbs canvas").length === `+strconv.Itoa(k)),
		chromedp.Value("#cmp", &cmp),
		chromedp.Value("#mem", &opened),
		chromedp.Evaluate(`[...document.getElementById("mem").options].map((o) => o.value).join(",")`, &choices),
		chromedp.Click(`#thumbs canvas[data-i="`+strconv.Itoa(pick)+`"]`),
		chromedp.SetValue("#maxsteps", "200"),
		chromedp.Evaluate(`drdam.pauseAt(12)`, nil),
		shoot("page.png"),
		chromedp.Click("#go"),
		poll(`document.getElementById("a-stat").dataset.step === "12" && document.getElementById("b-stat").dataset.step === "12"`),
		shoot("completion-mid.png"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 4 || cmp != "photos-exact" {
		t.Errorf("the page lists %d memories (want 4) and compares with %q (want photos-exact)", rows, cmp)
	}
	var eticks, tticks []string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`[...document.querySelectorAll("#plot text.etick")].map((e) => e.textContent)`, &eticks),
		chromedp.Evaluate(`[...document.querySelectorAll("#plot text.ttick")].map((e) => e.textContent)`, &tticks),
	); err != nil {
		t.Fatal(err)
	}
	for _, ax := range [][]string{eticks, tticks} {
		if !roundTicks(ax) {
			t.Errorf("axis ticks %q: want at least two, at the multiples of a step of 1, 2 or 5 times a power of ten", ax)
		}
	}
	if opened != "photos" || choices != "photos,photos-exact" {
		t.Errorf("the page opened on %q among image memories %q; want photos among photos,photos-exact", opened, choices)
	}
	var mid map[string]string
	var a, b map[string]string
	var status string
	err = chromedp.Run(ctx,
		chromedp.Evaluate(`({...document.getElementById("a-stat").dataset})`, &mid),
		chromedp.Evaluate(`drdam.resume()`, nil),
		poll(`document.getElementById("a-stat").dataset.done !== "" && document.getElementById("b-stat").dataset.done !== ""`),
		chromedp.Sleep(100*time.Millisecond), // the status line and the plot's last frame
		chromedp.Evaluate(`({...document.getElementById("a-stat").dataset})`, &a),
		chromedp.Evaluate(`({...document.getElementById("b-stat").dataset})`, &b),
		chromedp.Text("#status", &status),
		shoot("completion-end.png"),
	)
	if err != nil {
		t.Fatal(err)
	}
	num := func(m map[string]string, k string) float64 {
		v, err := strconv.ParseFloat(m[k], 64)
		if err != nil {
			t.Errorf("%s = %q: %v", k, m[k], err)
		}
		return v
	}
	t.Logf("mid-descent (step %s): DrDAM RMSE %s; end: DrDAM %s steps, %s, RMSE %s, E %s → %s; MrDAM RMSE %s; %q; %.1f s",
		mid["step"], mid["rmse"], a["step"], a["done"], a["rmse"], a["energy0"], a["energy"], b["rmse"], status, time.Since(t0).Seconds())
	if e0, e := num(a, "energy0"), num(a, "energy"); !(e < e0) {
		t.Errorf("DrDAM energy %v at the end, %v at the start: it did not fall", e, e0)
	}
	if r := num(a, "rmse"); !(r < nearest/2) {
		t.Errorf("DrDAM completion RMSE %.2f on the occluded half, want < %.2f (half the nearest other image's)", r, nearest/2)
	}
	if r := num(b, "rmse"); !(r < nearest/2) {
		t.Errorf("MrDAM completion RMSE %.2f on the occluded half, want < %.2f", r, nearest/2)
	}
	// The page sends no tol: the server's default (dam.DefaultTol) stops
	// the descent once it has settled, and the page says so.
	if st, err := strconv.Atoi(a["step"]); err != nil || st >= 200 || a["done"] != "converged" {
		t.Errorf("the DrDAM ended at step %s, %q; want converged before --max-steps 200", a["step"], a["done"])
	}
}

// roundTicks reports whether the tick labels are at least two numbers at
// the multiples of one round step (1, 2 or 5 times a power of ten).
func roundTicks(labels []string) bool {
	if len(labels) < 2 {
		return false
	}
	v := make([]float64, len(labels))
	for i, l := range labels {
		x, err := strconv.ParseFloat(l, 64)
		if err != nil {
			return false
		}
		v[i] = x
	}
	step := math.Abs(v[1] - v[0])
	if step == 0 {
		return false
	}
	m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	if math.Abs(m-1) > 1e-6 && math.Abs(m-2) > 1e-6 && math.Abs(m-5) > 1e-6 {
		return false
	}
	for _, x := range v {
		if k := x / step; math.Abs(k-math.Round(k)) > 1e-6 {
			return false
		}
	}
	return true
}
