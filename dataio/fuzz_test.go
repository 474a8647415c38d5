package dataio

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/drdam/drdam/internal/fuzzbudget"
	"github.com/drdam/drdam/npy"
)

// textBudget bounds what one read of an n-byte text file (.csv, .tsv,
// .txt) may allocate.
//
// Per byte of input, 256. A file of n bytes holds at most n+1 fields (a
// line of n commas), and each field costs at most: its text, copied by
// the line or record reader (1 byte per byte, twice with encoding/csv's
// record buffer); 16 bytes of string header in the record and 16 of
// encoding/csv's field position; 8 bytes of line number; 8 bytes of
// float64 in the row and 8 in the matrix, whose append-doubling
// allocates up to 3 times the final size; and, for a field that is not a
// number (a header), the copy of its text and the 48-byte *NumError that
// strconv.ParseFloat returns, and the lower-cased copy that a mask's
// true/false test makes. That is under 150 bytes per field; 256 leaves
// room for the slices' own growth. Fixed, 1 MiB: the 64 KiB buffered
// reader, encoding/csv's initial buffers and the error message.
var textBudget = fuzzbudget.Budget{PerByte: 256, Fixed: 1 << 20}

// maxFuzzInput is the length at which this package's fuzz targets cut
// their inputs. Go's fuzzer minimizes every input that finds new
// coverage, for up to a minute (-fuzzminimizetime), and go test reports 0
// execs/s meanwhile; minimizing n bytes tries up to about n²/2
// candidates. At the 6,000 to 10,000 calls a second of these targets on 2
// vCPUs, the 1.8 to 8 KB inputs that FuzzReadText grew from its former
// seeds of 4096 commas and 2048-field rows each took the whole minute,
// and in a row they held the progress line at 0 for minutes (measured:
// the worker never idle, no call over 7 ms). At 512 bytes a minimization
// takes at most about 1.3·10⁵ calls, under 25 s. The readers' code paths
// need no longer inputs but for wide rows and headers, which
// TestReadTextWide and TestParseARFFWide check against the same budgets.
const maxFuzzInput = 512

// textWhere is what every error of the text reader starts with after the
// file name: a place given as "line L (row R)" with an optional column
// (or, for encoding/csv's syntax errors, byte), or an error about the
// whole file.
var textWhere = regexp.MustCompile(`^(line [1-9][0-9]* \(row [1-9][0-9]*\)(, (column|byte) [0-9]+)?: |no data rows$|reading row [1-9])`)

// textFormats are the text formats that FuzzReadText and FuzzReadMask
// pick from, with a file name for each.
var textFormats = []struct {
	f    format
	name string
}{
	{formatCSV, "f.csv"},
	{formatTSV, "f.tsv"},
	{formatTXT, "f.txt"},
}

// FuzzReadText checks that the text reader (.csv, .tsv, .txt, as
// ReadMatrix and ReadMask parse them) never panics, returns a consistent
// matrix or an error that names the file and the place as the package
// documentation says, and allocates within textBudget: no declared or
// guessed width may size an allocation that the input does not back.
func FuzzReadText(f *testing.F) {
	for _, s := range []string{
		"1,2,3\n4,5,6\n",
		"x,y\n# comment\n\n1,2\r\n3,4\r\n",
		"\ufeffa\tb\n1\t2\n",
		"1 2 3\n4\t5   6\n",
		"1,2\n3,4,5\n",                  // ragged
		"1,2\n3,\"4\n5\n",               // unterminated quote
		"nan,NaN,-inf,Inf,+inf,1e400\n", // NaN text and out of range
		"true,FALSE,0,1\n",              // a mask
		"\"1\",\" 2 \"\n3,4\n",          // quoted fields
		strings.Repeat(",", 500) + "\n", // a header of empty fields (TestReadTextWide: 10⁵)
		strings.Repeat("1 ", 128) + "\n" + strings.Repeat("1 ", 127) + "\n",
		strings.Repeat("9", 400) + "\n",
		"",
		"\n\n#\n",
		"a,b\n",
		"1,x\n",
		"\x00,\xff\n",
	} {
		for k := range textFormats {
			f.Add([]byte(s), uint8(k))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		data = data[:min(len(data), maxFuzzInput)]
		tf := textFormats[int(k)%len(textFormats)]
		for _, parse := range []func(string) (float64, error){parseNumber, parseBool} {
			var m *Matrix
			var err error
			fuzzbudget.Check(t, "parseText "+tf.name, len(data), textBudget, func() {
				m, err = parseText(bytes.NewReader(data), tf.name, tf.f, parse)
			})
			if err != nil {
				msg := err.Error()
				rest, ok := strings.CutPrefix(msg, tf.name+": ")
				if !ok || !textWhere.MatchString(rest) {
					t.Fatalf("error %q does not start with %q and a place (line L (row R), column C)", msg, tf.name+": ")
				}
				continue
			}
			checkMatrix(t, m)
		}
	})
}

// TestReadTextWide: rows and headers far wider than FuzzReadText's inputs
// (maxFuzzInput) are read within textBudget: a header of 10⁵ empty fields
// over a row of 10⁵ values, rows of 10⁵ values (a text file declares no
// width, so nothing is allocated ahead of the data), and a line of 10⁶
// values, in every text format, parsed as numbers and as a mask's
// booleans. (FuzzReadText's seeds had 4096 and 2048 fields.)
func TestReadTextWide(t *testing.T) {
	for _, tf := range textFormats {
		sep := map[format]string{formatCSV: ",", formatTSV: "\t", formatTXT: " "}[tf.f]
		row := func(n int, v string) string { return strings.Repeat(v+sep, n-1) + v + "\n" }
		for _, in := range []struct {
			name       string
			data       string
			rows, cols int
		}{
			{"header", row(100_000, "") + row(100_000, "1"), 1, 100_000},
			{"rows", strings.Repeat(row(100_000, "0"), 3), 3, 100_000},
			{"line", row(1_000_000, "1"), 1, 1_000_000},
		} {
			if tf.f == formatTXT && in.name == "header" {
				continue // spaces do not delimit empty fields
			}
			for _, parse := range []func(string) (float64, error){parseNumber, parseBool} {
				var m *Matrix
				var err error
				got := fuzzbudget.Check(t, in.name+" "+tf.name, len(in.data), textBudget, func() {
					m, err = parseText(strings.NewReader(in.data), tf.name, tf.f, parse)
				})
				if err != nil || m.Rows != in.rows || m.Cols != in.cols {
					t.Errorf("%s %s: %v, %+v; want %d×%d", in.name, tf.name, err, m, in.rows, in.cols)
				}
				t.Logf("%s %s: %.1f bytes allocated per byte", in.name, tf.name, float64(got)/float64(len(in.data)))
			}
		}
	}
}

// checkMatrix fails t unless m is a matrix with at least one element whose
// sizes agree.
func checkMatrix(t *testing.T, m *Matrix) {
	t.Helper()
	if m == nil || m.Rows < 1 || m.Cols < 1 || m.Rows*m.Cols != len(m.Data) {
		t.Fatalf("inconsistent matrix %+v", m)
	}
}

// maskBudget bounds what one ReadMask of an n-byte file allocates: the
// largest of the readers' budgets (text and .npy; an ARFF file's dense
// size is bounded by its size as the mask is a vector that FuzzReadMask
// only asks for when short, see there), plus the mask itself, a byte per
// value, which is within them.
var maskBudget = fuzzbudget.Budget{PerByte: 256, Fixed: 4 << 20}

// maskFormats are the formats of FuzzReadMask: the text ones, .npy and
// .arff.
var maskFormats = []struct {
	f    format
	name string
}{
	{formatCSV, "m.csv"},
	{formatTSV, "m.tsv"},
	{formatTXT, "m.txt"},
	{formatNPY, "m.npy"},
	{formatARFF, "m.arff"},
}

// FuzzReadMask checks that reading a mask (ReadMask after the file is
// opened) never panics, returns a mask of the length asked for or an error
// naming the file, and allocates within maskBudget.
func FuzzReadMask(f *testing.F) {
	npyFile := func(shape []int, data []float64) []byte {
		var b bytes.Buffer
		if err := npy.Write(&b, shape, data); err != nil {
			f.Fatal(err)
		}
		return b.Bytes()
	}
	npyBool := func(v []bool) []byte {
		var b bytes.Buffer
		if err := npy.WriteBool(&b, []int{len(v)}, v); err != nil {
			f.Fatal(err)
		}
		return b.Bytes()
	}
	for _, tc := range []struct {
		data []byte
		k    uint8
		d    uint16
	}{
		{[]byte("1,0,1\n"), 0, 3},
		{[]byte("mask\ntrue\nFALSE\nTrue\n"), 0, 3},
		{[]byte("1\t0\n"), 1, 2},
		{[]byte("0 1 true false\n"), 2, 4},
		{[]byte("1,0,1\n"), 0, 4},    // wrong length
		{[]byte("1,nan\n"), 0, 2},    // NaN
		{[]byte("1,0\n0,1\n"), 0, 4}, // a matrix
		{[]byte("1,0,yes\n"), 0, 3},  // not a value
		{npyBool([]bool{true, false}), 3, 2},
		{npyFile([]int{3, 1}, []float64{0, 2, math.NaN()}), 3, 3},
		{npyFile([]int{2, 2}, []float64{0, 1, 1, 0}), 3, 4},
		{npyFile([]int{5}, []float64{1, 0, 1, 0, 1})[:100], 3, 5}, // truncated
		{[]byte("@attribute v numeric\n@data\n1\n0\n2\n"), 4, 3},
		{[]byte("@attribute v numeric\n@attribute w numeric\n@data\n{}\n{1 1}\n"), 4, 4},
		{[]byte(""), 0, 1},
	} {
		f.Add(tc.data, tc.k, tc.d)
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8, d uint16) {
		data = data[:min(len(data), maxFuzzInput)]
		mf := maskFormats[int(k)%len(maskFormats)]
		if mf.f == formatARFF && strings.Count(string(data), "\n")*strings.Count(strings.ToLower(string(data)), "@attribute") > len(data) {
			// Sparse rows can describe a matrix far larger than the
			// file (see MaxValues and FuzzParseARFF); a mask is a vector,
			// so the budget of a mask reader is checked on files whose
			// rows × attributes stay within their size.
			return
		}
		var mask []bool
		var err error
		fuzzbudget.Check(t, "ReadMask "+mf.name, len(data), maskBudget, func() {
			var m *Matrix
			m, err = decodeMatrix(bytes.NewReader(data), mf.name, mf.f, parseBool)
			if err == nil {
				mask, err = maskOf(mf.name, m, int(d))
			}
		})
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, mf.name+":") && !strings.HasPrefix(msg, "mask "+mf.name+": ") && !strings.HasPrefix(msg, "read "+mf.name+": ") {
				t.Fatalf("error %q does not name the file %s", msg, mf.name)
			}
			return
		}
		if len(mask) != int(d) {
			t.Fatalf("mask of length %d, want %d", len(mask), d)
		}
	})
}

// idxBudget bounds what reading an IDX file of n bytes (n counted
// before compression) allocates, in every mode of FuzzReadIDX.
//
// Per byte, 32: a value takes at least a byte, and costs 8 bytes of
// float64 in the matrix; where the input's size does not back the header
// (a .gz file, a stream) the matrix grows by doubling as values arrive,
// which allocates less than 3 times its final size (the last step is cut
// at the declared size, the steps before it sum to less than twice it):
// 24 bytes a value. Read by rows, a chunk of at least a row (8 bytes a
// value, as drdam encode sizes it by the width) and the first row read
// ahead in raw bytes, doubling (2 bytes a byte). Fixed, 2 MiB: a chunk of
// 64 Ki values (up to 512 KiB raw and 512 KiB of float64), the first 64
// KiB step of the read-ahead, gzip's decompressor and window (under 100
// KiB), the header's dimensions and the error message. Nothing is sized
// by what the header declares alone.
var idxBudget = fuzzbudget.Budget{PerByte: 32, Fixed: 2 << 20}

// idxModes are the ways FuzzReadIDX reads its input: whole (ReadMatrix's
// decoder) or by rows (NewRows, with a chunk buffer sized by the width as
// drdam encode sizes it), from an in-memory file (whose size backs the
// header, as a regular file's does; compressed, it is read through and
// again), plain or gzip-compressed, or from a stream that cannot seek or
// tell its size (read as it arrives, its first row read ahead).
var idxModes = []struct {
	name         string
	rows, gz, st bool
}{
	{name: "f-ubyte"},
	{name: "f-ubyte.gz", gz: true},
	{name: "f-ubyte", rows: true},
	{name: "f-ubyte.gz", rows: true, gz: true},
	{name: "f-ubyte", rows: true, st: true},
	{name: "f-ubyte.gz", gz: true, st: true},
	{name: "f-ubyte.gz", rows: true, gz: true, st: true},
}

// FuzzReadIDX checks that reading an IDX file never panics, returns a
// consistent matrix whose values fill what its header declares, or rows of
// the width it declares, or an error naming the file, and allocates by the
// bytes it reads, not by the sizes its header claims (idxBudget).
func FuzzReadIDX(f *testing.F) {
	for _, s := range [][]byte{
		idxFile(0x08, []uint32{2, 2, 2}, []byte{0, 1, 2, 3, 4, 5, 6, 255}),
		idxFile(0x0E, []uint32{1, 1}, make([]byte, 8)),
		idxFile(0x0D, []uint32{2}, make([]byte, 7)),
		idxFile(0x08, []uint32{1 << 16, 1 << 12}, []byte{1}),
		idxFile(0x0B, []uint32{3, 0}, nil),
		idxFile(0x08, []uint32{1 << 28}, nil),                     // 8 bytes declaring a row of 2^28
		idxFile(0x08, []uint32{2, 1 << 14, 1 << 14}, nil),         // rows of 2^28
		idxFile(0x0E, []uint32{1, 1 << 20}, make([]byte, 256)),    // a row cut short
		idxFile(0x08, []uint32{3, 2}, append(make([]byte, 6), 1)), // a byte too many
		{0, 0, 8},
		{1, 2, 3, 4},
	} {
		for k := range idxModes {
			f.Add(s, uint8(k))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		data = data[:min(len(data), maxFuzzInput)]
		mode := idxModes[int(k)%len(idxModes)]
		in := data
		if mode.gz {
			var b bytes.Buffer
			gzw.Reset(&b) // a new writer's state is 800 KB: reused, for speed
			gzw.Write(data)
			gzw.Close()
			in = b.Bytes()
		}
		var m *Matrix
		var rows, cols int
		var err error
		what := fmt.Sprintf("reading %s (mode %d: by rows %v, from a stream %v)", mode.name, int(k)%len(idxModes), mode.rows, mode.st)
		fuzzbudget.Check(t, what, len(data), idxBudget, func() {
			var r io.Reader = bytes.NewReader(in)
			if mode.st {
				r = struct{ io.Reader }{r}
			}
			if !mode.rows {
				m, err = decodeMatrix(r, mode.name, formatIDX, parseNumber)
				return
			}
			rows, cols, err = readRows(r, mode.name)
		})
		if err != nil {
			if !strings.HasPrefix(err.Error(), mode.name+": ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if mode.rows {
			if rows < 1 || cols < 1 {
				t.Fatalf("%d rows of %d values", rows, cols)
			}
			return
		}
		checkMatrix(t, m)
	})
}

// gzw compresses FuzzReadIDX's inputs.
var gzw = gzip.NewWriter(io.Discard)

// readRows reads every row of the file called name from r with NewRows,
// into a chunk buffer of 4096 values or a row, sized by the width as
// drdam encode sizes its chunks, and returns the numbers of rows and
// columns.
func readRows(r io.Reader, name string) (rows, cols int, err error) {
	rs, err := NewRows(r, name)
	if err != nil {
		return 0, 0, err
	}
	cols = rs.Cols()
	buf := make([]float64, max(1, 4096/cols)*cols)
	for {
		k, err := rs.Read(buf)
		if err == io.EOF {
			return rows, cols, nil
		}
		if err != nil {
			return 0, 0, err
		}
		rows += k
	}
}
