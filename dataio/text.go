package dataio

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errNotNumber is returned by the field parsers for text that is not a
// value at all, as opposed to a number out of range.
var errNotNumber = errors.New("not a number")

// parseNumber parses a matrix field.
func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New("out of range for float64")
		}
		return 0, errNotNumber
	}
	return v, nil
}

// parseMissing parses a field of a row with missing entries: an empty
// field is NaN, anything else as parseNumber parses it.
func parseMissing(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	return parseNumber(s)
}

// parseBool parses a mask field: a number, or true or false in any case.
func parseBool(s string) (float64, error) {
	switch strings.ToLower(s) {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	return parseNumber(s)
}

// quoteField quotes s for an error message, cutting it if it is long.
func quoteField(s string) string {
	const maxLen = 40
	if len(s) <= maxLen {
		return strconv.Quote(s)
	}
	cut := maxLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// recordReader yields the records of a text file, with the line each field
// starts on. It skips blank lines and comments.
type recordReader interface {
	// next returns the next record and the line of each field, or
	// io.EOF.
	next() (fields []string, lines []int, err error)
}

// csvRecords reads .csv and .tsv files with encoding/csv.
type csvRecords struct {
	r     *csv.Reader
	lines []int // reused by next
}

func (c *csvRecords) next() ([]string, []int, error) {
	for {
		rec, err := c.r.Read()
		if err != nil {
			return nil, nil, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a line of spaces
		}
		c.lines = slices.Grow(c.lines[:0], len(rec))[:len(rec)]
		for i := range rec {
			c.lines[i], _ = c.r.FieldPos(i)
		}
		return rec, c.lines, nil
	}
}

// txtRecords reads .txt files: fields separated by commas, if the first
// data line holds one, and otherwise by runs of spaces and tabs.
type txtRecords struct {
	r     *bufio.Reader
	line  int
	comma int   // 0 until the first data line, then 1 for commas, -1 for spaces
	lines []int // reused by next
}

func (t *txtRecords) next() ([]string, []int, error) {
	for {
		s, err := t.r.ReadString('\n')
		if err != nil && (err != io.EOF || s == "") {
			return nil, nil, err
		}
		t.line++
		s = strings.TrimSpace(s)
		if s == "" || s[0] == '#' {
			continue
		}
		if t.comma == 0 {
			t.comma = -1
			if strings.Contains(s, ",") {
				t.comma = 1
			}
		}
		var fields []string
		if t.comma > 0 {
			fields = strings.Split(s, ",")
		} else {
			fields = strings.Fields(s)
		}
		t.lines = slices.Grow(t.lines[:0], len(fields))[:len(fields)]
		for i := range t.lines {
			t.lines[i] = t.line
		}
		return fields, t.lines, nil
	}
}

// skipBOM skips a UTF-8 byte order mark at the start of r.
func skipBOM(r *bufio.Reader) {
	if b, err := r.Peek(3); err == nil && string(b) == "\ufeff" {
		r.Discard(3)
	}
}

// parseText reads a matrix from r, a text file of format f called path
// (a name for messages only), parsing each field with parse.
func parseText(r io.Reader, path string, f format, parse func(string) (float64, error)) (*Matrix, error) {
	t, err := newTextRows(r, path, f, parse)
	if err != nil {
		return nil, err
	}
	m := &Matrix{Cols: t.cols}
	for {
		err := t.next()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, err
		}
		m.Data = append(m.Data, t.values...)
		m.Rows++
	}
}

// textRows parses the rows of a text file one at a time.
type textRows struct {
	path       string
	parse      func(string) (float64, error)
	rr         recordReader
	cols       int       // fields per row, known once newTextRows returns
	rows       int       // rows parsed
	headerLine int       // line of the header row, or 0
	firstLine  int       // line of row 1
	values     []float64 // the values of the row next parsed
	pending    bool      // the first row is parsed and not yet returned
}

// newTextRows reads the text file of format f called path from r up to
// and including its first data row, which the first call of next
// returns; a file without one is an error "PATH: no data rows".
func newTextRows(r io.Reader, path string, f format, parse func(string) (float64, error)) (*textRows, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	skipBOM(br)
	t := &textRows{path: path, parse: parse, values: make([]float64, 0, 64)}
	switch f {
	case formatCSV, formatTSV:
		cr := csv.NewReader(br)
		cr.FieldsPerRecord = -1
		cr.Comment = '#'
		cr.ReuseRecord = true
		if f == formatTSV {
			cr.Comma = '\t'
			// With tabs as separators TrimLeadingSpace would swallow
			// empty fields, silently shifting the columns after them;
			// fields are trimmed below anyway.
		} else {
			cr.TrimLeadingSpace = true
		}
		t.rr = &csvRecords{r: cr}
	default:
		t.rr = &txtRecords{r: br}
	}
	err := t.next()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	if err != nil {
		return nil, err
	}
	t.pending = true
	return t, nil
}

// next parses the next row into t.values, or returns io.EOF after the
// last. Its errors name the file, the line, the row and the column.
func (t *textRows) next() error {
	if t.pending {
		t.pending = false
		return nil
	}
	for {
		fields, lines, err := t.rr.next()
		if err == io.EOF {
			return io.EOF
		}
		if err != nil {
			return textError(t.path, t.rows+1, err)
		}
		first := t.rows == 0 && t.headerLine == 0
		if !first && len(fields) != t.cols {
			what := fmt.Sprintf("as in row 1 on line %d", t.firstLine)
			if t.rows == 0 {
				what = fmt.Sprintf("as in the header on line %d", t.headerLine)
			}
			return fmt.Errorf("%s: line %d (row %d): want %d fields (%s), found %d", t.path, lines[0], t.rows+1, t.cols, what, len(fields))
		}
		t.values = t.values[:0]
		var bad error
		badCol, numeric := 0, 0
		for i, s := range fields {
			s = strings.TrimSpace(s)
			v, err := t.parse(s)
			if err != errNotNumber {
				numeric++ // a number, possibly out of range
			}
			if err != nil {
				if bad == nil {
					badCol = i
					bad = err
					if err == errNotNumber {
						bad = fmt.Errorf("not a number: %s", quoteField(s))
					} else {
						bad = fmt.Errorf("%s: %v", quoteField(s), err)
					}
				}
				continue
			}
			t.values = append(t.values, v)
		}
		if first {
			t.cols = len(fields)
			if numeric == 0 {
				t.headerLine = lines[0]
				continue
			}
		}
		if bad != nil {
			hint := ""
			if first {
				hint = " (the first row is not a header because some of its fields are numbers)"
			}
			return fmt.Errorf("%s: line %d (row %d), column %d: %v%s", t.path, lines[badCol], t.rows+1, badCol+1, bad, hint)
		}
		if t.rows == 0 {
			t.firstLine = lines[0]
		}
		t.rows++
		return nil
	}
}

// textError names the file, the line and the row of an error that
// encoding/csv or the line reader returned while reading row row (counted
// from 1). A *csv.ParseError's column is a byte position in its line, not
// a field, so it is called "byte" here.
func textError(path string, row int, err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: reading row %d: %w", path, row, err)
	}
	start := ""
	if pe.StartLine != pe.Line {
		start = fmt.Sprintf(" (the row starts on line %d)", pe.StartLine)
	}
	return fmt.Errorf("%s: line %d (row %d), byte %d: %w%s", path, pe.Line, row, pe.Column, pe.Err, start)
}
