package datasets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// letterSHA256 is the sha256 of letter.csv, from PROVENANCE.md (see
// LETTER.md).
const letterSHA256 = "d0982cbc2106b8b52a811424b8171d50c1a96b05bc7ff4121ce7bd1087b6d226"

// letterUnique is the number of distinct feature rows of the Letter data
// (checked with Python's csv module and a set of tuples).
const letterUnique = 18668

func TestLetterSHA256(t *testing.T) {
	zr, err := gzip.NewReader(bytes.NewReader(letterGZ))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 712666 {
		t.Errorf("letter.csv is %d bytes, want 712666", len(b))
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != letterSHA256 {
		t.Errorf("sha256 of letter.csv is %s, want %s", got, letterSHA256)
	}
}

func TestLetter(t *testing.T) {
	x, labels, err := Letter()
	if err != nil {
		t.Fatal(err)
	}
	if x.Rows != 20000 || x.Cols != 16 || len(x.Data) != 20000*16 || len(labels) != 20000 {
		t.Fatalf("Letter is %d×%d (%d values) with %d labels, want 20000×16 with 20000", x.Rows, x.Cols, len(x.Data), len(labels))
	}
	// "T,2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8"
	if labels[0] != "T" || !slices.Equal(x.Data[:16], []float64{2, 8, 3, 5, 1, 8, 13, 0, 6, 6, 10, 8, 0, 8, 0, 8}) {
		t.Errorf("first row %s %v, want T [2 8 3 5 1 8 13 0 6 6 10 8 0 8 0 8]", labels[0], x.Data[:16])
	}
	// The last row of the UCI file.
	if labels[19999] != "A" || !slices.Equal(x.Data[19999*16:], []float64{4, 9, 6, 6, 2, 9, 5, 3, 1, 8, 1, 8, 2, 7, 2, 8}) {
		t.Errorf("last row %s %v", labels[19999], x.Data[19999*16:])
	}
	for k, v := range x.Data {
		if v != math.Trunc(v) || v < 0 || v > 15 {
			t.Fatalf("value %d is %v, want an integer 0..15", k, v)
		}
	}
	counts := map[string]int{}
	for _, l := range labels {
		counts[l]++
	}
	total := 0
	for c := 'A'; c <= 'Z'; c++ {
		n := counts[string(c)]
		if n < 734 || n > 813 {
			t.Errorf("%d rows of %c, want 734 to 813", n, c)
		}
		total += n
	}
	if len(counts) != 26 || total != 20000 {
		t.Errorf("%d labels counting %d rows, want 26 counting 20000", len(counts), total)
	}
	if counts["A"] != 789 || counts["B"] != 766 || counts["Z"] != 734 {
		t.Errorf("A %d, B %d, Z %d; want 789, 766, 734", counts["A"], counts["B"], counts["Z"])
	}
	u := Unique(x.Data, 16)
	if len(u) != letterUnique || u[0] != 0 || !slices.IsSorted(u) {
		t.Errorf("%d distinct rows starting at %d, want %d starting at 0, in order", len(u), u[0], letterUnique)
	}
	// Duplicate feature rows all have the same letter.
	first := map[string]string{}
	for i, l := range labels {
		k := fmt.Sprint(x.Data[i*16 : (i+1)*16])
		if f, ok := first[k]; ok && f != l {
			t.Errorf("row %d: features %s are labelled %s and %s", i+1, k, f, l)
		} else if !ok {
			first[k] = l
		}
	}
	// Each call returns new slices.
	x.Data[0], labels[0] = -1, "?"
	y, ylabels, err := Letter()
	if err != nil || y.Data[0] != 2 || ylabels[0] != "T" {
		t.Errorf("a second call gives %v %q, %v; want 2 \"T\"", y.Data[0], ylabels[0], err)
	}
}

func TestParseLetterErrors(t *testing.T) {
	row := "T,2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8\n"
	for _, tc := range []struct{ name, content, want string }{
		{"empty", "", "letter.csv.gz: empty file"},
		{"bad header", "a,b\n" + row, `letter.csv.gz: line 1: want the header "lettr,`},
		{"short row", letterHeader + "\n" + row + "T,1,2\n", "letter.csv.gz: line 3 (row 2): want 17 comma-separated fields, found 3"},
		{"bad letter", letterHeader + "\n" + "t" + row[1:], `letter.csv.gz: line 2 (row 1): field 1 (lettr): want a letter A to Z, found "t"`},
		{"bad number", letterHeader + "\n" + strings.Replace(row, ",3,", ",x,", 1), `letter.csv.gz: line 2 (row 1): field 4 (width): want an integer 0 to 15, found "x"`},
		{"out of range", letterHeader + "\n" + strings.Replace(row, ",13,", ",16,", 1), `letter.csv.gz: line 2 (row 1): field 8 (y-bar): want an integer 0 to 15, found "16"`},
		{"CRLF", letterHeader + "\n" + strings.Replace(row, "\n", "\r\n", 1), `letter.csv.gz: line 2 (row 1): field 17 (yegvx): want an integer 0 to 15, found "8\r"`},
		{"too few rows", letterHeader + "\n" + row + row, "letter.csv.gz: want 20000 data rows, found 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseLetter([]byte(tc.content))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n%v\nwant it to start with\n%s", err, tc.want)
			}
		})
	}
}
