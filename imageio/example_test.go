package imageio_test

import (
	"fmt"
	"image"
	"image/color"
	"log"
	"os"
	"path/filepath"

	"github.com/drdam/drdam/imageio"
	"github.com/drdam/drdam/metrics"
	"github.com/drdam/drdam/plots"
)

// Example turns an image into a pattern, occludes its bottom half as in the
// paper's Fig. 4B, and measures the occluded query against the original.
func Example() {
	// A 64×64 gradient; a real experiment would call Load, LoadCIFAR or
	// LoadTinyImageNet.
	src := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			src.SetRGBA(x, y, color.RGBA{uint8(4 * x), uint8(4 * y), 128, 255})
		}
	}
	im, err := imageio.FromImage("gradient", src, 32, 32) // scaled to cover, centre-cropped
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d×%d, D = %d\n", im.Name, im.H, im.W, im.D())

	// The query: the bottom half set to 0 (black); visible is the Clamp of
	// dam.RecallOptions.
	visible := imageio.OccludeBottom(im.H, im.W, 0.5)
	query := make([]float64, im.D())
	imageio.Apply(query, im.Pix, visible, 0)
	fmt.Printf("hidden pixels: %d\n", imageio.Hidden(visible)/3)
	fmt.Printf("RMSE of the query on the occluded half: %.1f levels\n", metrics.RMSE255(query, im.Pix, im.D(), visible))

	// A figure: the query next to the original.
	q, _ := imageio.FromPattern("query", im.H, im.W, query)
	g := plots.ImageGrid{ColTitles: []string{"occluded", "original"}, Cells: [][]image.Image{{q.RGBA(), im.RGBA()}}}
	dir, _ := os.MkdirTemp("", "imageio-example")
	defer os.RemoveAll(dir)
	if err := g.Save(filepath.Join(dir, "grid.png")); err != nil {
		log.Fatal(err)
	}
	// Output:
	// gradient: 32×32, D = 3072
	// hidden pixels: 512
	// RMSE of the query on the occluded half: 158.3 levels
}
