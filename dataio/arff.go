package dataio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AttrType is the type of an ARFF attribute.
type AttrType int

// The ARFF attribute types. Relational attributes are not supported.
const (
	// Numeric is a number: declared numeric, real or integer (an integer
	// attribute is not checked to hold integers, as in Weka).
	Numeric AttrType = iota
	// Nominal is one of a declared list of values, {v1, v2, ...}.
	Nominal
	// String is free text.
	String
	// Date is a date, kept as the text found in the file (it is not
	// parsed).
	Date
)

// String returns the type's ARFF keyword: "numeric", "nominal", "string"
// or "date".
func (t AttrType) String() string {
	switch t {
	case Numeric:
		return "numeric"
	case Nominal:
		return "nominal"
	case String:
		return "string"
	case Date:
		return "date"
	}
	return "AttrType(" + strconv.Itoa(int(t)) + ")"
}

// Attribute is one ARFF attribute (one column of the data).
type Attribute struct {
	// Name is the attribute's name, unquoted.
	Name string
	// Type is the attribute's type.
	Type AttrType
	// Values are the declared values of a Nominal attribute, unquoted and
	// in declaration order; a value is stored in ARFF.Data as its index
	// here. Values is nil for other types.
	Values []string
	// DateFormat is the format declared for a Date attribute (a Java
	// SimpleDateFormat pattern, such as "yyyy-MM-dd"), or "" if none was
	// given or the attribute is not a Date.
	DateFormat string
}

// ARFF is a parsed ARFF file (Weka's Attribute-Relation File Format).
//
// Data is row-major, Rows×len(Attributes): the value of attribute j in
// row i (both counted from 0) is Data[i*len(Attributes)+j]. A Numeric
// value is stored as is, and a Nominal value as its index in the
// attribute's Values. A String or Date value is stored in Strings, and is
// 0 in Data. A missing value (written ?) is NaN in Data for every type, so
// math.IsNaN(Data[k]) tells whether a value is missing whatever the
// attribute's type (and a String value "" is told apart from a missing
// one).
type ARFF struct {
	// Relation is the name declared by @relation, or "" if there was none.
	Relation string
	// Attributes are the declared attributes, in file order.
	Attributes []Attribute
	// Rows is the number of data rows (instances).
	Rows int
	// Data holds the values, Rows×len(Attributes), row-major.
	Data []float64
	// Strings holds the values of String and Date attributes: Strings[j]
	// is nil unless attribute j is a String or a Date, and then holds
	// Rows values, Strings[j][i] being row i's ("" when missing).
	Strings [][]string

	name  string // the file name, for error messages
	lines []int  // the line of each row, for error messages
}

// ReadARFF reads the ARFF file at path. See ParseARFF.
func ReadARFF(path string) (*ARFF, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	return ParseARFF(f, path)
}

// ParseARFF parses an ARFF file from r; name is the file's name, used
// only in error messages.
//
// The header holds an optional @relation, one or more @attribute
// declarations and @data, each on its own line, with keywords and type
// names in any case. An attribute's type is numeric, real or integer
// (all Numeric), string, date with an optional format, or a list of
// nominal values {v1, v2, ...}; relational attributes are not supported.
// Names and values may be quoted with ' or ", in which a backslash escapes
// the next character (\n, \r and \t are a newline, a return and a tab).
// Unquoted names end at white space or {, and unquoted values at a comma
// (white space around them is dropped). An unquoted % starts a comment,
// which runs to the end of the line; blank lines, a UTF-8 byte order mark
// and CRLF line endings are allowed.
//
// Each data line is one row: either dense, the values of all attributes
// separated by commas, or sparse, {i v, j w, ...} with attribute indices
// counted from 0 in increasing order, where an unlisted value is 0 (a
// Numeric 0, a Nominal's first value, a String or Date ""). An unquoted ?
// is a missing value. A row may be followed by an instance weight
// {w} (after a comma in a dense row); weights are checked to be numbers
// and otherwise ignored, as this package has no use for them.
//
// Errors name the file and line, for a data row the row (counted from
// 1), and the field and attribute, with what was expected and what was
// found, such as
//
//	letter.arff:25: row 20, field 3 ('width'): want a number, found "x"
//
// Fields are counted from 1 in messages, in sparse rows too, whose
// indices count from 0: index 2 is field 3.
func ParseARFF(r io.Reader, name string) (*ARFF, error) {
	p := &arffParser{r: bufio.NewReaderSize(r, 1<<16), a: &ARFF{name: name}}
	skipBOM(p.r)
	if err := p.header(); err != nil {
		return nil, err
	}
	if err := p.data(); err != nil {
		return nil, err
	}
	return p.a, nil
}

// Index returns the index of the attribute called name (matched exactly),
// or -1 if there is none.
func (a *ARFF) Index(name string) int {
	for j, at := range a.Attributes {
		if at.Name == name {
			return j
		}
	}
	return -1
}

// where returns "NAME:L: row I" for row i (counted from 0, shown from 1),
// or "NAME: row I" or "row I" without a file name or line when they are
// not known (an ARFF not made by ParseARFF).
func (a *ARFF) where(i int) string {
	if i < len(a.lines) && a.name != "" {
		return fmt.Sprintf("%s:%d: row %d", a.name, a.lines[i], i+1)
	}
	if a.name != "" {
		return fmt.Sprintf("%s: row %d", a.name, i+1)
	}
	return fmt.Sprintf("row %d", i+1)
}

// prefix returns "NAME: ", or "" if the ARFF has no file name.
func (a *ARFF) prefix() string {
	if a.name == "" {
		return ""
	}
	return a.name + ": "
}

// check returns an error if the sizes of a's fields disagree.
func (a *ARFF) check() error {
	c := len(a.Attributes)
	if a.Rows < 0 || c > 0 && a.Rows > len(a.Data)/c || a.Rows*c != len(a.Data) {
		return fmt.Errorf("%s%d rows of %d attributes do not match len(Data) = %d", a.prefix(), a.Rows, c, len(a.Data))
	}
	return nil
}

// Numeric returns the values of the Numeric attributes as a Rows×n
// matrix, with the attributes' columns in file order, and the attributes'
// names. It is an error, naming the row and attribute, if one of the
// values is missing (? or NaN), and an error if there are no Numeric
// attributes.
func (a *ARFF) Numeric() (*Matrix, []string, error) {
	if err := a.check(); err != nil {
		return nil, nil, err
	}
	var cols []int
	var names []string
	for j, at := range a.Attributes {
		if at.Type == Numeric {
			cols = append(cols, j)
			names = append(names, at.Name)
		}
	}
	if len(cols) == 0 {
		return nil, nil, fmt.Errorf("%sno numeric attributes (found %d of other types)", a.prefix(), len(a.Attributes))
	}
	c := len(a.Attributes)
	m := &Matrix{Rows: a.Rows, Cols: len(cols), Data: make([]float64, 0, a.Rows*len(cols))}
	for i := range a.Rows {
		row := a.Data[i*c : (i+1)*c]
		for _, j := range cols {
			if math.IsNaN(row[j]) {
				return nil, nil, fmt.Errorf("%s, field %d (%s): want a number, found a missing value", a.where(i), j+1, quoteName(a.Attributes[j].Name))
			}
			m.Data = append(m.Data, row[j])
		}
	}
	return m, names, nil
}

// Labels returns the values of the Nominal, String or Date attribute
// called attr, one per row, as text (for example the class column). It is
// an error, naming the row, if a value is missing.
func (a *ARFF) Labels(attr string) ([]string, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	j := a.Index(attr)
	if j < 0 {
		return nil, fmt.Errorf("%sno attribute %s (the attributes are %s)", a.prefix(), quoteName(attr), attrList(a.Attributes))
	}
	at := a.Attributes[j]
	if at.Type == Numeric {
		return nil, fmt.Errorf("%sattribute %s is numeric; want a nominal, string or date attribute", a.prefix(), quoteName(attr))
	}
	c := len(a.Attributes)
	var col []string
	if at.Type != Nominal {
		if j >= len(a.Strings) || len(a.Strings[j]) != a.Rows {
			return nil, fmt.Errorf("%sattribute %s: Strings holds no %d values", a.prefix(), quoteName(attr), a.Rows)
		}
		col = a.Strings[j]
	}
	out := make([]string, a.Rows)
	for i := range out {
		v := a.Data[i*c+j]
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%s, field %d (%s): want a value, found a missing value", a.where(i), j+1, quoteName(attr))
		}
		if at.Type != Nominal {
			out[i] = col[i]
			continue
		}
		k := int(v)
		if float64(k) != v || k < 0 || k >= len(at.Values) {
			return nil, fmt.Errorf("%s, field %d (%s): value index %v is not one of the %d nominal values", a.where(i), j+1, quoteName(attr), v, len(at.Values))
		}
		out[i] = at.Values[k]
	}
	return out, nil
}

// quoteName quotes an attribute name for a message: 'name', or a Go
// quoted string if the name holds a quote or an unprintable character.
func quoteName(s string) string {
	for _, r := range s {
		if r == '\'' || r == '\\' || r < ' ' || r == utf8.RuneError || r == 0x7f {
			return quoteField(s)
		}
	}
	if len(s) > 40 {
		return quoteField(s)
	}
	return "'" + s + "'"
}

// attrList lists attribute names for a message, cutting long lists.
func attrList(attrs []Attribute) string {
	const show = 8
	var b strings.Builder
	for j, at := range attrs {
		if j == show {
			fmt.Fprintf(&b, ", ... (%d in all)", len(attrs))
			break
		}
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteName(at.Name))
	}
	return b.String()
}

// valueList lists nominal values for a message, {A, B, C}, cutting long
// lists.
func valueList(vals []string) string {
	const show = 8
	var b strings.Builder
	b.WriteByte('{')
	for k, v := range vals {
		if k == show {
			fmt.Fprintf(&b, ", ... (%d values)", len(vals))
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		if v == "" || strings.ContainsAny(v, " ,{}'\"\\%\t") || len(v) > 40 {
			b.WriteString(quoteField(v))
		} else {
			b.WriteString(v)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// arffValues bounds the values of the ARFF file at path: its data lines
// (neither blank nor comments) times its attributes, for DeclaredValues.
// It reads the header and counts the lines, holding no more than a line.
func arffValues(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	p := &arffParser{r: bufio.NewReaderSize(f, 1<<16), a: &ARFF{name: path}}
	skipBOM(p.r)
	if err := p.header(); err != nil {
		return 0, err
	}
	var lines int64
	for {
		b, err := p.r.ReadSlice('\n')
		if t := bytes.TrimSpace(b); len(t) > 0 && t[0] != '%' || err == bufio.ErrBufferFull {
			lines++ // a data line (one longer than the buffer counted as one)
		}
		for err == bufio.ErrBufferFull {
			_, err = p.r.ReadSlice('\n')
		}
		if err == io.EOF {
			return lines * int64(len(p.a.Attributes)), nil
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// arffMatrix reads the numeric attributes of the ARFF file in r, called
// path, for ReadMatrix.
func arffMatrix(r io.Reader, path string) (*Matrix, error) {
	a, err := ParseARFF(r, path)
	if err != nil {
		return nil, err
	}
	m, _, err := a.Numeric()
	if err != nil {
		return nil, err
	}
	if m.Rows == 0 {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	return m, nil
}
