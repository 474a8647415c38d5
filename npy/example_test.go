package npy_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/drdam/drdam/npy"
)

func Example() {
	// Write a 2×3 float64 array, as numpy.save would.
	var buf bytes.Buffer
	if err := npy.Write(&buf, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}); err != nil {
		log.Fatal(err)
	}

	// Read it back.
	a, err := npy.Read(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Descr, a.Shape, a.Data)

	// A corrupted file is an error, not a panic.
	_, err = npy.Read(bytes.NewReader([]byte("\x93NUMPY\x01\x00\x04\x00abcd")))
	fmt.Println(err)
	// Output:
	// <f8 [2 3] [1 2 3 4 5 6]
	// npy: header: at offset 10: want '{' to start the header dict, found "abcd"
}
