package dataio

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// data parses the rows after @data into p.a.
func (p *arffParser) data() error {
	a := p.a
	c := len(a.Attributes)
	p.startData()
	a.Strings = make([][]string, c)
	hasStrings := false
	for j, at := range a.Attributes {
		if at.Type == String || at.Type == Date {
			a.Strings[j] = []string{}
			hasStrings = true
		}
	}
	if !hasStrings {
		a.Strings = nil
	}
	p.limit = true
	row := make([]float64, c)
	strs := make([]string, c)
	for {
		err := p.row(row, strs)
		if err == io.EOF {
			return nil
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

// startData prepares the parsing of the rows after @data: the indices of
// the nominal values.
func (p *arffParser) startData() {
	p.index = make([]map[string]int, len(p.a.Attributes))
	for j, at := range p.a.Attributes {
		if at.Type == Nominal {
			m := make(map[string]int, len(at.Values))
			for k, v := range at.Values {
				m[v] = k
			}
			p.index[j] = m
		}
	}
}

// row parses the next data row, row p.a.Rows+1, into row and strs
// (len(Attributes) each), skipping blank lines and comments, or returns
// io.EOF after the last. With p.limit set, a row past MaxValues values is
// an error.
func (p *arffParser) row(row []float64, strs []string) error {
	c := len(p.a.Attributes)
	for {
		s, err := p.next()
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
		if p.limit && p.a.Rows >= maxValues/c {
			// Only a sparse file can get here with less than
			// MaxValues bytes of data: "{}" is a whole row.
			return p.rowErrf("too much data: %d rows of %d attributes would be more than MaxValues = %d values", p.a.Rows+1, c, maxValues)
		}
		if l.s[l.pos] == '{' {
			return p.sparse(l, row, strs)
		}
		return p.dense(l, row, strs)
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
				return p.rowErrf("%s: %s is out of range for float64", where, quoteField(v))
			}
			if v == "" && !quoted {
				return p.rowErrf("%s: want a number, found nothing", where)
			}
			return p.rowErrf("%s: want a number, found %s", where, quoteField(v))
		}
		row[j] = x
	case Nominal:
		k, ok := p.index[j][v]
		if !ok {
			return p.rowErrf("%s: want one of %s, found %s", where, valueList(at.Values), quoteField(v))
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
		return p.rowErrf("instance weight: %v", err)
	}
	if l.pos >= len(l.s) || l.s[l.pos] != '}' {
		return p.rowErrf("instance weight: want {number}, found %s", quoteField(strings.TrimSpace(l.s[start:])))
	}
	l.pos++
	if _, err := strconv.ParseFloat(w, 64); err != nil {
		return p.rowErrf("instance weight: want a number, found %s", quoteField(w))
	}
	if !l.end() {
		return p.rowErrf("want the end of the line after the instance weight, found %s", quoteField(l.rest()))
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
				return p.rowErrf("want %d comma-separated fields (one per attribute), found %d before the instance weight", c, len(p.fields))
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
				return p.rowErrf("%s: %v", p.field(n), err)
			}
			return p.rowErrf("field %d: %v", n+1, err)
		}
		p.fields = append(p.fields, arffField{v, quoted})
		if l.end() {
			break
		}
		if l.s[l.pos] != ',' {
			return p.rowErrf("field %d: want ',' after the quoted value, found %s", n+1, quoteField(l.rest()))
		}
		l.pos++
	}
	if len(p.fields) != c {
		return p.rowErrf("want %d comma-separated fields (one per attribute), found %d", c, len(p.fields))
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
			return p.rowErrf("sparse entry %d: want an attribute index (0 to %d), found %s", entry, c-1, found)
		}
		idx, err := strconv.Atoi(l.s[start:l.pos])
		if err != nil || idx >= c {
			return p.rowErrf("sparse entry %d: attribute index %s out of range (want 0 to %d, for %d attributes)", entry, l.s[start:l.pos], c-1, c)
		}
		if idx <= last {
			return p.rowErrf("sparse entry %d: attribute index %d after %d; want indices in increasing order", entry, idx, last)
		}
		last = idx
		where := fmt.Sprintf("sparse entry %d, %s", entry, p.field(idx))
		if l.pos < len(l.s) && l.s[l.pos] != ' ' && l.s[l.pos] != '\t' {
			return p.rowErrf("%s: want a space between the index and the value, found %s", where, quoteField(l.rest()))
		}
		v, quoted, err := l.value(",}")
		if err != nil {
			return p.rowErrf("%s: %v", where, err)
		}
		if err := p.set(idx, v, quoted, row, strs, where); err != nil {
			return err
		}
		l.space()
		if l.pos >= len(l.s) || l.s[l.pos] == '%' {
			return p.rowErrf("sparse row: want ',' or '}' after entry %d, found the end of the line", entry)
		}
		if l.s[l.pos] == '}' {
			l.pos++
			break
		}
		if l.s[l.pos] != ',' {
			return p.rowErrf("sparse row: want ',' or '}' after entry %d, found %s", entry, quoteField(l.rest()))
		}
		l.pos++
	}
	// An optional instance weight, {w} or , {w}; it is ignored.
	l.space()
	if l.pos < len(l.s) && l.s[l.pos] == ',' {
		l.pos++
		l.space()
		if l.pos >= len(l.s) || l.s[l.pos] != '{' {
			return p.rowErrf("want an instance weight {number} after the sparse row and ',', found %s", quoteField(l.rest()))
		}
	}
	if l.pos < len(l.s) && l.s[l.pos] == '{' {
		return p.weight(l)
	}
	if !l.end() {
		return p.rowErrf("want the end of the line after the sparse row, found %s", quoteField(l.rest()))
	}
	return nil
}
