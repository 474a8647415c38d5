package datasets

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/drdam/drdam/dataio"
)

// letterGZ is letter.csv (see LETTER.md), compressed with gzip -9 -n.
//
//go:embed letter.csv.gz
var letterGZ []byte

// letterName names the embedded file in error messages.
const letterName = "letter.csv.gz"

// The shape of the Letter data.
const (
	// LetterRows is the number of rows (instances) of the Letter data.
	LetterRows = 20000
	// LetterDim is the number of features of the Letter data.
	LetterDim = 16
)

// letterHeader is the header row of letter.csv: mlbench's column names.
const letterHeader = "lettr,x.box,y.box,width,high,onpix,x.bar,y.bar,x2bar,y2bar,xybar,x2ybr,xy2br,x.ege,xegvy,y.ege,yegvx"

// letterFeatures are the names of the features, in column order.
var letterFeatures = [LetterDim]string{
	"x-box", "y-box", "width", "high", "onpix", "x-bar", "y-bar", "x2bar",
	"y2bar", "xybar", "x2ybr", "xy2br", "x-ege", "xegvy", "y-ege", "yegvx",
}

// LetterFeatures returns the names of the 16 features of the Letter data,
// in column order, as the UCI documentation spells them ("x-box", "y-box",
// "width", ..., "yegvx"; letter.csv has mlbench's "x.box" and so on).
func LetterFeatures() []string {
	return append([]string(nil), letterFeatures[:]...)
}

// Letter returns the UCI Letter Recognition data (Frey & Slate 1991): x is
// the 20000×16 matrix of features, integers 0 to 15 stored as float64, in
// the order of the UCI file, and labels[i] is the letter ("A" to "Z") of
// row i. The data are embedded in the package; every call decompresses
// and parses them afresh (in a few milliseconds) and returns new slices,
// which the caller may modify. An error can only come from a corrupted
// build, and names letter.csv.gz and the line.
//
// The features are not scaled: see NormalizeUnitBox for the scaling used
// by the paper, and Unique for the distinct rows.
func Letter() (x *dataio.Matrix, labels []string, err error) {
	zr, err := gzip.NewReader(bytes.NewReader(letterGZ))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", letterName, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", letterName, err)
	}
	return parseLetter(b)
}

// parseLetter parses the contents of letter.csv.
func parseLetter(b []byte) (*dataio.Matrix, []string, error) {
	s := string(b)
	x := &dataio.Matrix{Cols: LetterDim, Data: make([]float64, 0, LetterRows*LetterDim)}
	labels := make([]string, 0, LetterRows)
	// The labels share 26 strings.
	var letters [26]string
	for i := range letters {
		letters[i] = string(rune('A' + i))
	}
	line := 0
	for len(s) > 0 {
		var row string
		row, s, _ = strings.Cut(s, "\n")
		line++
		if line == 1 {
			if row != letterHeader {
				return nil, nil, fmt.Errorf("%s: line 1: want the header %q, found %q", letterName, letterHeader, row)
			}
			continue
		}
		fields := strings.Split(row, ",")
		if len(fields) != 1+LetterDim {
			return nil, nil, fmt.Errorf("%s: line %d (row %d): want %d comma-separated fields, found %d", letterName, line, line-1, 1+LetterDim, len(fields))
		}
		l := fields[0]
		if len(l) != 1 || l[0] < 'A' || l[0] > 'Z' {
			return nil, nil, fmt.Errorf("%s: line %d (row %d): field 1 (lettr): want a letter A to Z, found %q", letterName, line, line-1, l)
		}
		labels = append(labels, letters[l[0]-'A'])
		for j, f := range fields[1:] {
			v, err := strconv.Atoi(f)
			if err != nil || v < 0 || v > 15 {
				return nil, nil, fmt.Errorf("%s: line %d (row %d): field %d (%s): want an integer 0 to 15, found %q", letterName, line, line-1, j+2, letterFeatures[j], f)
			}
			x.Data = append(x.Data, float64(v))
		}
		x.Rows++
	}
	if line == 0 {
		return nil, nil, fmt.Errorf("%s: empty file", letterName)
	}
	if x.Rows != LetterRows {
		return nil, nil, fmt.Errorf("%s: want %d data rows, found %d", letterName, LetterRows, x.Rows)
	}
	return x, labels, nil
}
