package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// magic is the string every .npy file starts with.
const magic = "\x93NUMPY"

// maxInt is the largest value of an int on this platform.
const maxInt = int(^uint(0) >> 1)

// Header is the parsed header of a .npy file.
type Header struct {
	// Major and Minor are the format version, e.g. 1 and 0.
	Major, Minor int
	// Descr is the dtype as written in the file, e.g. "<f8". For a
	// structured dtype, whose descr is a Python list, Descr holds the
	// text of that list.
	Descr string
	// FortranOrder reports whether the data is stored in Fortran
	// (column-major) order.
	FortranOrder bool
	// Shape is the shape of the array; it is empty for a 0-d scalar.
	Shape []int
	// DataOffset is the offset of the first data byte from the start of
	// the file.
	DataOffset int64
}

// truncatedError is an error about input that ended too early. It wraps
// io.ErrUnexpectedEOF so callers can test for it with errors.Is.
type truncatedError struct{ msg string }

func (e *truncatedError) Error() string { return e.msg }
func (e *truncatedError) Unwrap() error { return io.ErrUnexpectedEOF }

func truncatedf(format string, args ...any) error {
	return &truncatedError{msg: fmt.Sprintf(format, args...)}
}

// ReadHeader reads the magic string, the version and the header of a .npy
// file from r and leaves r positioned at the first byte of the data.
//
// ReadHeader checks that the header is well formed (the three keys
// 'descr', 'fortran_order' and 'shape' with values of the right types, no
// negative dimension, and a number of elements that fits in an int) but
// not that the dtype is one Read supports.
func ReadHeader(r io.Reader) (Header, error) {
	h, err := readHeader(r, -1)
	if err != nil {
		return Header{}, err
	}
	return *h, nil
}

// readHeader is ReadHeader with the number of bytes left in r, or -1 when
// that is not known.
func readHeader(r io.Reader, remaining int64) (*Header, error) {
	var pre [12]byte
	n, err := io.ReadFull(r, pre[:8])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("npy: reading magic: %w", err)
	}
	got := pre[:n]
	if !strings.HasPrefix(magic, string(got[:min(n, len(magic))])) {
		return nil, fmt.Errorf("npy: bad magic: want %q, found %s", magic, quotePrefix(got, len(magic)))
	}
	if n == 0 {
		return nil, truncatedf("npy: empty input: want the magic string %q", magic)
	}
	if n < 8 {
		return nil, truncatedf("npy: truncated preamble: want at least 8 bytes (magic and version), found %d", n)
	}
	h := &Header{Major: int(pre[6]), Minor: int(pre[7])}
	var lenSize int
	switch {
	case h.Major == 1 && h.Minor == 0:
		lenSize = 2
	case (h.Major == 2 || h.Major == 3) && h.Minor == 0:
		lenSize = 4
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d (want 1.0, 2.0 or 3.0)", h.Major, h.Minor)
	}
	n, err = io.ReadFull(r, pre[8:8+lenSize])
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, truncatedf("npy: truncated preamble: want a %d-byte header length, found %d bytes", lenSize, n)
		}
		return nil, fmt.Errorf("npy: reading header length: %w", err)
	}
	var hlen int64
	if lenSize == 2 {
		hlen = int64(binary.LittleEndian.Uint16(pre[8:10]))
	} else {
		hlen = int64(binary.LittleEndian.Uint32(pre[8:12]))
	}
	preLen := int64(8 + lenSize)
	if remaining >= 0 && preLen+hlen > remaining {
		return nil, truncatedf("npy: header length %d goes past the end of the input: found only %d bytes after the %d-byte preamble",
			hlen, max(remaining-preLen, 0), preLen)
	}
	if hlen > int64(maxInt) {
		return nil, fmt.Errorf("npy: header length %d is too large for this platform", hlen)
	}
	buf, err := readBounded(r, int(hlen))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, truncatedf("npy: header length %d goes past the end of the input: found only %d bytes after the %d-byte preamble",
				hlen, len(buf), preLen)
		}
		return nil, fmt.Errorf("npy: reading header: %w", err)
	}
	h.DataOffset = preLen + hlen
	if err := parseHeader(h, buf); err != nil {
		return nil, err
	}
	return h, nil
}

// quotePrefix quotes at most n bytes of b, marking a cut with "..".
func quotePrefix(b []byte, n int) string {
	if len(b) <= n {
		return strconv.Quote(string(b))
	}
	return strconv.Quote(string(b[:n])) + ".."
}

// readBounded reads exactly n bytes from r. It grows its buffer as the data
// arrives, so a large n on a short input does not allocate n bytes. On a
// short read it returns the bytes read so far and io.ErrUnexpectedEOF.
func readBounded(r io.Reader, n int) ([]byte, error) {
	const chunk = 1 << 20
	buf := make([]byte, 0, min(n, chunk))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grow := min(n-len(buf), max(len(buf), chunk))
			nb := make([]byte, len(buf), len(buf)+grow)
			copy(nb, buf)
			buf = nb
		}
		m, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return buf, io.ErrUnexpectedEOF
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// parseHeader parses the header dict in buf into h.
func parseHeader(h *Header, buf []byte) error {
	p := &parser{s: buf, base: h.DataOffset - int64(len(buf))}
	d, keys, err := p.parseDict()
	if err != nil {
		return err
	}
	descr, ok := d["descr"]
	if !ok {
		return missingKey("descr", d)
	}
	switch v := descr.v.(type) {
	case string:
		h.Descr = v
	case pyList:
		h.Descr = descr.text
	default:
		return fmt.Errorf("npy: header: 'descr' must be a string, found %s", descr.text)
	}
	fo, ok := d["fortran_order"]
	if !ok {
		return missingKey("fortran_order", d)
	}
	b, ok := fo.v.(bool)
	if !ok {
		return fmt.Errorf("npy: header: 'fortran_order' must be True or False, found %s", fo.text)
	}
	h.FortranOrder = b
	sh, ok := d["shape"]
	if !ok {
		return missingKey("shape", d)
	}
	tup, ok := sh.v.(pyTuple)
	if !ok {
		return fmt.Errorf("npy: header: 'shape' must be a tuple of integers, found %s", sh.text)
	}
	h.Shape = make([]int, len(tup))
	for i, e := range tup {
		dim, ok := e.v.(int64)
		if !ok {
			return fmt.Errorf("npy: header: 'shape' must be a tuple of integers, found %s in %s", e.text, sh.text)
		}
		if dim < 0 {
			return fmt.Errorf("npy: header: negative dimension %d in shape %s", dim, sh.text)
		}
		if dim > int64(maxInt) {
			return fmt.Errorf("npy: header: dimension %d in shape %s is too large for this platform", dim, sh.text)
		}
		h.Shape[i] = int(dim)
	}
	if _, ok := numElements(h.Shape); !ok {
		return fmt.Errorf("npy: header: shape %s has too many elements: the product overflows an int", sh.text)
	}
	for _, k := range keys {
		v := d[k]
		switch k {
		case "descr", "fortran_order", "shape":
		default:
			return fmt.Errorf("npy: header: unexpected key %q (value %s): want only 'descr', 'fortran_order' and 'shape'", k, v.text)
		}
	}
	return nil
}

func missingKey(key string, d map[string]pyValue) error {
	return fmt.Errorf("npy: header: missing key '%s' (found %d of 'descr', 'fortran_order' and 'shape')", key, countKnown(d))
}

func countKnown(d map[string]pyValue) int {
	n := 0
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if _, ok := d[k]; ok {
			n++
		}
	}
	return n
}

// numElements returns the product of shape and whether it fits in an int.
func numElements(shape []int) (int, bool) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		if d == 0 {
			n = 0
			continue
		}
		if n > maxInt/d {
			// Overflow, unless a later dimension is zero.
			for _, e := range shape {
				if e == 0 {
					return 0, true
				}
			}
			return 0, false
		}
		n *= d
	}
	return n, true
}

// FormatShape formats shape as a Python tuple, as NumPy prints it: (2, 3),
// (5,) or ().
func FormatShape(shape []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// The values the header parser understands: the subset of Python literals
// that .npy headers use.
type (
	pyTuple []pyValue
	pyList  []pyValue
)

// pyValue is a parsed Python literal: a string, a bool, an int64, a
// pyTuple or a pyList, with the source text it came from.
type pyValue struct {
	v    any
	text string
}

// maxDepth bounds the nesting of lists and tuples in a header, so that a
// hostile header cannot exhaust the stack.
const maxDepth = 32

type parser struct {
	s     []byte
	i     int
	base  int64 // file offset of s[0], for error messages
	depth int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("npy: header: at offset %d: "+format, append([]any{p.base + int64(p.i)}, args...)...)
}

// found describes the input at the current position for an error message.
func (p *parser) found() string {
	if p.i >= len(p.s) {
		return "end of header"
	}
	return quotePrefix(p.s[p.i:], 16)
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.i++
		default:
			return
		}
	}
}

// parseDict parses the header dict and returns it with its keys in the
// order they appear.
func (p *parser) parseDict() (map[string]pyValue, []string, error) {
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, nil, p.errorf("want '{' to start the header dict, found %s", p.found())
	}
	p.i++
	d := make(map[string]pyValue)
	var keys []string
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, nil, p.errorf("header dict is not terminated: want '}', found end of header")
		}
		if p.s[p.i] == '}' {
			p.i++
			break
		}
		if c := p.s[p.i]; c != '\'' && c != '"' {
			return nil, nil, p.errorf("want a string key or '}', found %s", p.found())
		}
		kv, err := p.parseValue()
		if err != nil {
			return nil, nil, err
		}
		key := kv.v.(string)
		if _, dup := d[key]; dup {
			return nil, nil, p.errorf("duplicate key %q", key)
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, nil, p.errorf("want ':' after key %q, found %s", key, p.found())
		}
		p.i++
		v, err := p.parseValue()
		if err != nil {
			return nil, nil, err
		}
		d[key] = v
		keys = append(keys, key)
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, nil, p.errorf("header dict is not terminated: want ',' or '}', found end of header")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
		default:
			return nil, nil, p.errorf("want ',' or '}' after the value of %q, found %s", key, p.found())
		}
	}
	p.skipSpace()
	if p.i < len(p.s) {
		// NumPy pads with spaces and a newline; some old writers pad
		// with NUL bytes.
		for _, c := range p.s[p.i:] {
			if c != 0 {
				return nil, nil, p.errorf("want only padding after the header dict, found %s", p.found())
			}
		}
	}
	return d, keys, nil
}

func (p *parser) parseValue() (pyValue, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return pyValue{}, p.errorf("want a value, found end of header")
	}
	start := p.i
	var v any
	var err error
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		v, err = p.parseString()
	case c == '(' || c == '[':
		v, err = p.parseSeq()
	case c == '-' || c == '+' || ('0' <= c && c <= '9'):
		v, err = p.parseInt()
	case c == 'T' || c == 'F':
		v, err = p.parseBool()
	default:
		return pyValue{}, p.errorf("want a string, number, tuple, list, True or False, found %s", p.found())
	}
	if err != nil {
		return pyValue{}, err
	}
	return pyValue{v: v, text: string(p.s[start:p.i])}, nil
}

func (p *parser) parseString() (string, error) {
	start := p.i
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				p.i = start
				return "", p.errorf("unterminated string %s", p.found())
			}
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		case c == '\n':
			p.i = start
			return "", p.errorf("unterminated string %s", p.found())
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	p.i = start
	return "", p.errorf("unterminated string %s", p.found())
}

func (p *parser) parseSeq() (any, error) {
	open := p.s[p.i]
	closer := byte(')')
	if open == '[' {
		closer = ']'
	}
	if p.depth >= maxDepth {
		return nil, p.errorf("tuples and lists nested more than %d deep", maxDepth)
	}
	p.depth++
	defer func() { p.depth-- }()
	p.i++
	var elems []pyValue
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("want %q to close %q, found end of header", closer, open)
		}
		if p.s[p.i] == closer {
			p.i++
			break
		}
		e, err := p.parseValue()
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("want ',' or %q, found end of header", closer)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case closer:
		default:
			return nil, p.errorf("want ',' or %q, found %s", closer, p.found())
		}
	}
	if open == '[' {
		return pyList(elems), nil
	}
	return pyTuple(elems), nil
}

func (p *parser) parseInt() (int64, error) {
	start := p.i
	if c := p.s[p.i]; c == '-' || c == '+' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
	}
	if p.i == digits {
		p.i = start
		return 0, p.errorf("want an integer, found %s", p.found())
	}
	text := string(p.s[start:p.i])
	// Python 2 wrote long integers with an L suffix, e.g. (3L, 4L).
	if p.i < len(p.s) && (p.s[p.i] == 'L' || p.s[p.i] == 'l') {
		p.i++
	}
	if p.i < len(p.s) {
		if c := p.s[p.i]; c == '.' || c == 'e' || c == 'E' || c == 'x' || c == '_' || c == 'j' ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			p.i = start
			return 0, p.errorf("want an integer, found %s", p.found())
		}
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		p.i = start
		return 0, p.errorf("integer %s does not fit in 64 bits", text)
	}
	return v, nil
}

func (p *parser) parseBool() (bool, error) {
	rest := p.s[p.i:]
	for _, w := range []string{"True", "False"} {
		if len(rest) >= len(w) && string(rest[:len(w)]) == w {
			end := p.i + len(w)
			if end < len(p.s) && isIdent(p.s[end]) {
				break
			}
			p.i = end
			return w == "True", nil
		}
	}
	return false, p.errorf("want True or False, found %s", p.found())
}

func isIdent(c byte) bool {
	return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// dtype is a data type that Read can convert to float64.
type dtype struct {
	kind  byte // 'f', 'i', 'u' or 'b'
	size  int  // item size in bytes
	order binary.ByteOrder
}

// parseDescr parses a dtype descr such as "<f8" or "|b1".
func parseDescr(descr string) (dtype, error) {
	unsupported := func() (dtype, error) {
		return dtype{}, fmt.Errorf("npy: unsupported dtype %s (want a real or bool dtype: f2, f4, f8, i1-i8, u1-u8 or b1)", quoteDescr(descr))
	}
	if strings.HasPrefix(descr, "[") {
		return dtype{}, fmt.Errorf("npy: unsupported structured dtype %s (want a real or bool dtype)", quoteDescr(descr))
	}
	s := descr
	// '=' (native) and '|' (not applicable) are read as little endian,
	// as is a descr without a byte-order character.
	var order binary.ByteOrder = binary.LittleEndian
	if len(s) > 0 {
		switch s[0] {
		case '<', '=', '|':
			s = s[1:]
		case '>':
			order = binary.BigEndian
			s = s[1:]
		}
	}
	var dt dtype
	switch s {
	case "f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1":
		dt = dtype{kind: s[0], size: int(s[1] - '0'), order: order}
	case "?":
		dt = dtype{kind: 'b', size: 1, order: order}
	default:
		return unsupported()
	}
	return dt, nil
}

func quoteDescr(descr string) string {
	if len(descr) > 64 {
		return strconv.Quote(descr[:64]) + ".."
	}
	return strconv.Quote(descr)
}

// decode converts the raw item b to float64.
func (dt dtype) decode(b []byte) float64 {
	switch dt.kind {
	case 'f':
		switch dt.size {
		case 2:
			return halfToFloat64(dt.order.Uint16(b))
		case 4:
			return float64(math.Float32frombits(dt.order.Uint32(b)))
		default:
			return math.Float64frombits(dt.order.Uint64(b))
		}
	case 'i':
		switch dt.size {
		case 1:
			return float64(int8(b[0]))
		case 2:
			return float64(int16(dt.order.Uint16(b)))
		case 4:
			return float64(int32(dt.order.Uint32(b)))
		default:
			return float64(int64(dt.order.Uint64(b)))
		}
	case 'u':
		switch dt.size {
		case 1:
			return float64(b[0])
		case 2:
			return float64(dt.order.Uint16(b))
		case 4:
			return float64(dt.order.Uint32(b))
		default:
			return float64(dt.order.Uint64(b))
		}
	default: // 'b'
		if b[0] != 0 {
			return 1
		}
		return 0
	}
}

// halfToFloat64 converts an IEEE 754 half-precision value to float64.
func halfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	default:
		return sign * math.Ldexp(1+frac/1024, exp-15)
	}
}
