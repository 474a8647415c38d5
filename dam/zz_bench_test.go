package dam

import (
	"testing"

	"github.com/drdam/drdam/features"
)

func BenchmarkZZPanels(b *testing.B) {
	src, _ := features.NewSeeded(features.Gaussian, features.DefaultGenerator, 1, 4000, 12288)
	for b.Loop() {
		panelsFrom[float32](src)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(4000*12288), "ns/entry")
}
