package dataio

import (
	"bufio"
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
// Errors name the file and line, and the field and attribute, with what
// was expected and what was found, such as
//
//	letter.arff:25: field 3 ('width'): want a number, found "x"
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

// where returns "NAME:LINE: row I" for row i, or "row I" without a file
// name or line when they are not known (an ARFF not made by ParseARFF).
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

// arffParser holds the state of ParseARFF.
type arffParser struct {
	r    *bufio.Reader
	line int // the number of the current line
	a    *ARFF
	// index maps each nominal attribute's values to their indices.
	index []map[string]int
	// fields holds the fields of a dense row.
	fields []arffField
}

// arffField is a field of a dense data row.
type arffField struct {
	text   string
	quoted bool
}

// errf returns an error prefixed with the file name and current line.
func (p *arffParser) errf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.a.name, p.line, fmt.Sprintf(format, args...))
}

// next returns the next line, without its line ending, or io.EOF.
func (p *arffParser) next() (string, error) {
	s, err := p.r.ReadString('\n')
	if err != nil && (err != io.EOF || s == "") {
		if err != io.EOF {
			return "", fmt.Errorf("%s:%d: %w", p.a.name, p.line+1, err)
		}
		return "", err
	}
	p.line++
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	return s, nil
}

// field describes an attribute for a message: "field 3 ('width')".
func (p *arffParser) field(j int) string {
	return fmt.Sprintf("field %d (%s)", j+1, quoteName(p.a.Attributes[j].Name))
}

// lexer scans one line of an ARFF file.
type lexer struct {
	s   string
	pos int
}

// space skips spaces and tabs.
func (l *lexer) space() {
	for l.pos < len(l.s) && (l.s[l.pos] == ' ' || l.s[l.pos] == '\t' || l.s[l.pos] == '\v' || l.s[l.pos] == '\f' || l.s[l.pos] == '\r') {
		l.pos++
	}
}

// end skips white space and reports whether the rest of the line is
// empty or a comment.
func (l *lexer) end() bool {
	l.space()
	return l.pos >= len(l.s) || l.s[l.pos] == '%'
}

// rest returns the rest of the line, for a message.
func (l *lexer) rest() string {
	return strings.TrimSpace(l.s[l.pos:])
}

// quoted reads a quoted string starting at the quote character at l.pos.
func (l *lexer) quoted() (string, error) {
	q := l.s[l.pos]
	start := l.pos
	l.pos++
	var b strings.Builder
	for l.pos < len(l.s) {
		c := l.s[l.pos]
		switch {
		case c == q:
			l.pos++
			return b.String(), nil
		case c == '\\' && l.pos+1 < len(l.s):
			l.pos++
			switch e := l.s[l.pos]; e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
		l.pos++
	}
	return "", fmt.Errorf("unterminated quote: %s has no closing %c", quoteField(l.s[start:]), q)
}

// word reads a name: a quoted string, or text up to white space, '{',
// '}', ',' or '%'. It returns an error for a missing word.
func (l *lexer) word(what string) (string, error) {
	if l.end() {
		return "", fmt.Errorf("want %s, found the end of the line", what)
	}
	if c := l.s[l.pos]; c == '\'' || c == '"' {
		s, err := l.quoted()
		if err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		return s, nil
	}
	start := l.pos
	for l.pos < len(l.s) && !strings.ContainsRune(" \t\v\f\r{},%", rune(l.s[l.pos])) {
		l.pos++
	}
	if l.pos == start {
		return "", fmt.Errorf("want %s, found %s", what, quoteField(l.rest()))
	}
	return l.s[start:l.pos], nil
}

// value reads a data value or a nominal value declaration: a quoted
// string, or text up to one of the stop characters or '%', with white
// space around it dropped. It reports whether the value was quoted.
func (l *lexer) value(stop string) (s string, quoted bool, err error) {
	l.space()
	if l.pos < len(l.s) && (l.s[l.pos] == '\'' || l.s[l.pos] == '"') {
		s, err := l.quoted()
		return s, true, err
	}
	start := l.pos
	for l.pos < len(l.s) && l.s[l.pos] != '%' && !strings.ContainsRune(stop, rune(l.s[l.pos])) {
		l.pos++
	}
	return strings.TrimSpace(l.s[start:l.pos]), false, nil
}

// keyword returns the lower-cased @keyword at the start of a line, or "".
func keyword(l *lexer) string {
	l.space()
	if l.pos >= len(l.s) || l.s[l.pos] != '@' {
		return ""
	}
	start := l.pos
	for l.pos < len(l.s) && !strings.ContainsRune(" \t\v\f\r{%'\"", rune(l.s[l.pos])) {
		l.pos++
	}
	return strings.ToLower(l.s[start:l.pos])
}

// header parses the lines up to and including @data.
func (p *arffParser) header() error {
	a := p.a
	seen := map[string]int{} // attribute name -> line
	relation := false        // whether @relation was seen
	for {
		s, err := p.next()
		if err == io.EOF {
			if p.line == 0 {
				return fmt.Errorf("%s: empty file (want an ARFF header: @relation, @attribute lines and @data)", a.name)
			}
			if len(a.Attributes) == 0 {
				return p.errf("no @attribute declarations and no @data line: not an ARFF file?")
			}
			return p.errf("no @data line after the %d attributes", len(a.Attributes))
		}
		if err != nil {
			return err
		}
		l := &lexer{s: s}
		if l.end() {
			continue
		}
		switch kw := keyword(l); kw {
		case "@relation":
			if relation || len(a.Attributes) > 0 {
				return p.errf("@relation after the first @relation or @attribute")
			}
			name, err := l.word("a relation name")
			if err != nil {
				return p.errf("@relation: %v", err)
			}
			if !l.end() {
				return p.errf("@relation %s: want the end of the line, found %s", quoteName(name), quoteField(l.rest()))
			}
			a.Relation, relation = name, true
		case "@attribute":
			at, err := p.attribute(l)
			if err != nil {
				return err
			}
			if prev, dup := seen[at.Name]; dup {
				return p.errf("@attribute %s: the name is already declared on line %d", quoteName(at.Name), prev)
			}
			seen[at.Name] = p.line
			a.Attributes = append(a.Attributes, at)
		case "@data":
			if !l.end() {
				return p.errf("@data: want the end of the line, found %s (data starts on the next line)", quoteField(l.rest()))
			}
			if len(a.Attributes) == 0 {
				return p.errf("@data: no attributes declared before it")
			}
			return nil
		case "":
			return p.errf("want @relation, @attribute or @data, found %s", quoteField(strings.TrimSpace(s)))
		default:
			return p.errf("unknown keyword %s (want @relation, @attribute or @data)", quoteField(kw))
		}
	}
}

// attribute parses the rest of an @attribute line.
func (p *arffParser) attribute(l *lexer) (Attribute, error) {
	name, err := l.word("an attribute name")
	if err != nil {
		return Attribute{}, p.errf("@attribute: %v", err)
	}
	at := Attribute{Name: name}
	what := "@attribute " + quoteName(name)
	l.space()
	if l.pos < len(l.s) && l.s[l.pos] == '{' {
		at.Type = Nominal
		l.pos++
		seen := map[string]bool{}
		for {
			v, quoted, err := l.value(",}")
			if err != nil {
				return at, p.errf("%s: nominal value %d: %v", what, len(at.Values)+1, err)
			}
			l.space()
			if l.pos >= len(l.s) || l.s[l.pos] == '%' {
				return at, p.errf("%s: want ',' or '}' after nominal value %d, found the end of the line", what, len(at.Values)+1)
			}
			c := l.s[l.pos]
			if c != ',' && c != '}' {
				return at, p.errf("%s: want ',' or '}' after nominal value %d, found %s", what, len(at.Values)+1, quoteField(l.rest()))
			}
			l.pos++
			if c == '}' && !quoted && v == "" && len(at.Values) == 0 {
				return at, p.errf("%s: want at least one nominal value, found {}", what)
			}
			if !quoted && v == "" {
				return at, p.errf("%s: nominal value %d is empty (quote it as '' if that is meant)", what, len(at.Values)+1)
			}
			if seen[v] {
				return at, p.errf("%s: nominal value %s is declared twice", what, quoteField(v))
			}
			seen[v] = true
			at.Values = append(at.Values, v)
			if c == '}' {
				break
			}
		}
	} else {
		t, err := l.word("a type (numeric, real, integer, string, date or {values})")
		if err != nil {
			return at, p.errf("%s: %v", what, err)
		}
		switch strings.ToLower(t) {
		case "numeric", "real", "integer":
			at.Type = Numeric
		case "string":
			at.Type = String
		case "date":
			at.Type = Date
			if !l.end() {
				f, err := l.word("a date format")
				if err != nil {
					return at, p.errf("%s: %v", what, err)
				}
				at.DateFormat = f
			}
		case "relational":
			return at, p.errf("%s: relational attributes are not supported", what)
		default:
			return at, p.errf("%s: want a type (numeric, real, integer, string, date or {values}), found %s", what, quoteField(t))
		}
	}
	if !l.end() {
		return at, p.errf("%s: want the end of the line after the type, found %s", what, quoteField(l.rest()))
	}
	return at, nil
}

// data parses the rows after @data.
func (p *arffParser) data() error {
	a := p.a
	c := len(a.Attributes)
	p.index = make([]map[string]int, c)
	a.Strings = make([][]string, c)
	hasStrings := false
	for j, at := range a.Attributes {
		switch at.Type {
		case Nominal:
			m := make(map[string]int, len(at.Values))
			for k, v := range at.Values {
				m[v] = k
			}
			p.index[j] = m
		case String, Date:
			a.Strings[j] = []string{}
			hasStrings = true
		}
	}
	if !hasStrings {
		a.Strings = nil
	}
	row := make([]float64, c)
	strs := make([]string, c)
	for {
		s, err := p.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		l := &lexer{s: s}
		if l.end() {
			continue
		}
		if l.s[l.pos] == '@' {
			kl := &lexer{s: s}
			if kw := keyword(kl); kw == "@attribute" || kw == "@relation" || kw == "@data" {
				return p.errf("%s after @data", kw)
			}
		}
		for j := range strs {
			strs[j] = ""
		}
		if l.s[l.pos] == '{' {
			err = p.sparse(l, row, strs)
		} else {
			err = p.dense(l, row, strs)
		}
		if err != nil {
			return err
		}
		a.Data = append(a.Data, row...)
		for j := range a.Strings {
			if a.Strings[j] != nil {
				a.Strings[j] = append(a.Strings[j], strs[j])
			}
		}
		a.Rows++
		a.lines = append(a.lines, p.line)
	}
}

// set parses the text v of attribute j into row and strs.
func (p *arffParser) set(j int, v string, quoted bool, row []float64, strs []string, where string) error {
	if !quoted && v == "?" {
		row[j] = math.NaN()
		return nil
	}
	at := &p.a.Attributes[j]
	switch at.Type {
	case Numeric:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return p.errf("%s: %s is out of range for float64", where, quoteField(v))
			}
			if v == "" && !quoted {
				return p.errf("%s: want a number, found nothing", where)
			}
			return p.errf("%s: want a number, found %s", where, quoteField(v))
		}
		row[j] = x
	case Nominal:
		k, ok := p.index[j][v]
		if !ok {
			return p.errf("%s: want one of %s, found %s", where, valueList(at.Values), quoteField(v))
		}
		row[j] = float64(k)
	default:
		row[j] = 0
		strs[j] = v
	}
	return nil
}

// weight parses an instance weight {w} at l.pos, which is at '{'.
func (p *arffParser) weight(l *lexer) error {
	start := l.pos
	l.pos++
	w, _, err := l.value("}")
	if err != nil {
		return p.errf("instance weight: %v", err)
	}
	if l.pos >= len(l.s) || l.s[l.pos] != '}' {
		return p.errf("instance weight: want {number}, found %s", quoteField(strings.TrimSpace(l.s[start:])))
	}
	l.pos++
	if _, err := strconv.ParseFloat(w, 64); err != nil {
		return p.errf("instance weight: want a number, found %s", quoteField(w))
	}
	if !l.end() {
		return p.errf("want the end of the line after the instance weight, found %s", quoteField(l.rest()))
	}
	return nil
}

// dense parses a dense data row.
func (p *arffParser) dense(l *lexer, row []float64, strs []string) error {
	c := len(p.a.Attributes)
	p.fields = p.fields[:0]
	for {
		l.space()
		// An instance weight: an unquoted {w} after a comma, ending the
		// row. Instance weights are ignored.
		if len(p.fields) > 0 && l.pos < len(l.s) && l.s[l.pos] == '{' {
			if len(p.fields) != c {
				return p.errf("want %d comma-separated fields (one per attribute), found %d before the instance weight", c, len(p.fields))
			}
			if err := p.weight(l); err != nil {
				return err
			}
			break
		}
		n := len(p.fields)
		v, quoted, err := l.value(",")
		if err != nil {
			if n < c {
				return p.errf("%s: %v", p.field(n), err)
			}
			return p.errf("field %d: %v", n+1, err)
		}
		p.fields = append(p.fields, arffField{v, quoted})
		if l.end() {
			break
		}
		if l.s[l.pos] != ',' {
			return p.errf("field %d: want ',' after the quoted value, found %s", n+1, quoteField(l.rest()))
		}
		l.pos++
	}
	if len(p.fields) != c {
		return p.errf("want %d comma-separated fields (one per attribute), found %d", c, len(p.fields))
	}
	for j, f := range p.fields {
		if err := p.set(j, f.text, f.quoted, row, strs, p.field(j)); err != nil {
			return err
		}
	}
	return nil
}

// sparse parses a sparse data row, {i v, j w, ...}; l.pos is at '{'.
func (p *arffParser) sparse(l *lexer, row []float64, strs []string) error {
	c := len(p.a.Attributes)
	clear(row)
	l.pos++
	last := -1
	for entry := 1; ; entry++ {
		l.space()
		if l.pos < len(l.s) && l.s[l.pos] == '}' && entry == 1 {
			l.pos++
			break // an empty row: all values 0
		}
		// The index.
		start := l.pos
		for l.pos < len(l.s) && l.s[l.pos] >= '0' && l.s[l.pos] <= '9' {
			l.pos++
		}
		if l.pos == start {
			found := "the end of the line"
			if !l.end() {
				found = quoteField(l.rest())
			}
			return p.errf("sparse entry %d: want an attribute index (0 to %d), found %s", entry, c-1, found)
		}
		idx, err := strconv.Atoi(l.s[start:l.pos])
		if err != nil || idx >= c {
			return p.errf("sparse entry %d: attribute index %s out of range (want 0 to %d, for %d attributes)", entry, l.s[start:l.pos], c-1, c)
		}
		if idx <= last {
			return p.errf("sparse entry %d: attribute index %d after %d; want indices in increasing order", entry, idx, last)
		}
		last = idx
		where := fmt.Sprintf("sparse entry %d, %s", entry, p.field(idx))
		if l.pos < len(l.s) && l.s[l.pos] != ' ' && l.s[l.pos] != '\t' {
			return p.errf("%s: want a space between the index and the value, found %s", where, quoteField(l.rest()))
		}
		v, quoted, err := l.value(",}")
		if err != nil {
			return p.errf("%s: %v", where, err)
		}
		if err := p.set(idx, v, quoted, row, strs, where); err != nil {
			return err
		}
		l.space()
		if l.pos >= len(l.s) || l.s[l.pos] == '%' {
			return p.errf("sparse row: want ',' or '}' after entry %d, found the end of the line", entry)
		}
		if l.s[l.pos] == '}' {
			l.pos++
			break
		}
		if l.s[l.pos] != ',' {
			return p.errf("sparse row: want ',' or '}' after entry %d, found %s", entry, quoteField(l.rest()))
		}
		l.pos++
	}
	// An optional instance weight, {w} or , {w}; it is ignored.
	l.space()
	if l.pos < len(l.s) && l.s[l.pos] == ',' {
		l.pos++
		l.space()
		if l.pos >= len(l.s) || l.s[l.pos] != '{' {
			return p.errf("want an instance weight {number} after the sparse row and ',', found %s", quoteField(l.rest()))
		}
	}
	if l.pos < len(l.s) && l.s[l.pos] == '{' {
		return p.weight(l)
	}
	if !l.end() {
		return p.errf("want the end of the line after the sparse row, found %s", quoteField(l.rest()))
	}
	return nil
}

// readARFFMatrix reads the numeric attributes of the ARFF file at path,
// for ReadMatrix.
func readARFFMatrix(path string) (*Matrix, error) {
	a, err := ReadARFF(path)
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
