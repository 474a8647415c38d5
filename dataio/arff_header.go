package dataio

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// arffParser holds the state of ParseARFF.
type arffParser struct {
	r    *bufio.Reader
	line int // the number of the current line
	a    *ARFF
	// index maps each nominal attribute's values to their indices.
	index []map[string]int
	// fields holds the fields of a dense row.
	fields []arffField
	// limit makes row refuse data past MaxValues values (when the rows
	// are kept, not streamed).
	limit bool
}

// arffField is a field of a dense data row.
type arffField struct {
	text   string
	quoted bool
}

// errf returns an error prefixed with the file name and current line:
// "NAME:L: ...".
func (p *arffParser) errf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.a.name, p.line, fmt.Sprintf(format, args...))
}

// rowErrf returns an error about the data row being parsed, row
// a.Rows+1, prefixed with the file name, the line and the row: "NAME:L:
// row R, field F ('x'): ..." or "NAME:L: row R: ...".
func (p *arffParser) rowErrf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	sep := ": "
	if strings.HasPrefix(msg, "field ") || strings.HasPrefix(msg, "sparse entry ") {
		sep = ", "
	}
	return fmt.Errorf("%s:%d: row %d%s%s", p.a.name, p.line, p.a.Rows+1, sep, msg)
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
