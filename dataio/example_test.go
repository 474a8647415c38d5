package dataio_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/drdam/drdam/dataio"
)

func ExampleReadMatrix() {
	dir, err := os.MkdirTemp("", "dataio-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Three patterns of dimension 2, with a header row and a comment.
	path := filepath.Join(dir, "patterns.csv")
	csv := "# patterns\nx,y\n0.5,1\n-2,3e-3\n4,nan\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		log.Fatal(err)
	}

	m, err := dataio.ReadMatrix(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d×%d %v\n", m.Rows, m.Cols, m.Data)

	// ReadMatrix keeps NaN; CheckFinite reports it.
	err = dataio.CheckFinite("patterns.csv", m)
	fmt.Println(err)
	// Output:
	// 3×2 [0.5 1 -2 0.003 4 NaN]
	// patterns.csv: row 3, column 2: NaN
}
