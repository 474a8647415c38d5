package dataio

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	r *csv.Reader
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
		lines := make([]int, len(rec))
		for i := range rec {
			lines[i], _ = c.r.FieldPos(i)
		}
		return rec, lines, nil
	}
}

// txtRecords reads .txt files: fields separated by commas, if the first
// data line holds one, and otherwise by runs of spaces and tabs.
type txtRecords struct {
	r     *bufio.Reader
	line  int
	comma int // 0 until the first data line, then 1 for commas, -1 for spaces
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
		lines := make([]int, len(fields))
		for i := range lines {
			lines[i] = t.line
		}
		return fields, lines, nil
	}
}

// skipBOM skips a UTF-8 byte order mark at the start of r.
func skipBOM(r *bufio.Reader) {
	if b, err := r.Peek(3); err == nil && string(b) == "\ufeff" {
		r.Discard(3)
	}
}

// readText reads a matrix from a text file of format f, parsing each
// field with parse.
func readText(path string, f format, parse func(string) (float64, error)) (*Matrix, error) {
	file, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer file.Close()
	br := bufio.NewReaderSize(file, 1<<16)
	skipBOM(br)
	var rr recordReader
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
		rr = &csvRecords{r: cr}
	default:
		rr = &txtRecords{r: br}
	}

	m := &Matrix{}
	var headerLine int // line of the header row, or 0
	values := make([]float64, 0, 64)
	for {
		fields, lines, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			// A *csv.ParseError says "parse error on line L, column C:
			// ...".
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		first := m.Rows == 0 && headerLine == 0
		if !first && len(fields) != m.Cols {
			what := "as in the first data row"
			if m.Rows == 0 {
				what = fmt.Sprintf("as in the header on line %d", headerLine)
			}
			return nil, fmt.Errorf("%s: line %d: want %d fields (%s), found %d", path, lines[0], m.Cols, what, len(fields))
		}
		values = values[:0]
		var bad error
		badCol, numeric := 0, 0
		for i, s := range fields {
			s = strings.TrimSpace(s)
			v, err := parse(s)
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
			values = append(values, v)
		}
		if first {
			m.Cols = len(fields)
			if numeric == 0 {
				headerLine = lines[0]
				continue
			}
		}
		if bad != nil {
			hint := ""
			if first {
				hint = " (the first row is not a header because some of its fields are numbers)"
			}
			return nil, fmt.Errorf("%s: line %d, column %d: %v%s", path, lines[badCol], badCol+1, bad, hint)
		}
		m.Data = append(m.Data, values...)
		m.Rows++
	}
	if m.Rows == 0 {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	return m, nil
}
