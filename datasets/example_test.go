package datasets_test

import (
	"fmt"
	"log"

	"github.com/drdam/drdam/datasets"
)

func ExampleLetter() {
	x, labels, err := datasets.Letter()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d×%d, %d labels\n", x.Rows, x.Cols, len(labels))
	fmt.Println(labels[0], x.Data[:x.Cols])
	fmt.Println(len(datasets.Unique(x.Data, x.Cols)), "distinct rows")

	// Scale into [0, 1/√16]^16 as the paper's appendix does.
	if _, _, err := datasets.NormalizeUnitBox(x.Data, x.Data, x.Cols); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", x.Data[:x.Cols])
	// Output:
	// 20000×16, 20000 labels
	// T [2 8 3 5 1 8 13 0 6 6 10 8 0 8 0 8]
	// 18668 distinct rows
	// [0.0333 0.1333 0.0500 0.0833 0.0167 0.1333 0.2167 0.0000 0.1000 0.1000 0.1667 0.1333 0.0000 0.1333 0.0000 0.1333]
}
