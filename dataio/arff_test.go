package dataio_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/fuzzbudget"
)

var nan = math.NaN()

// letterHead is the start of the UCI Letter data in the layout of Weka's
// and OpenML's letter.arff (four of the 16 integer attributes).
const letterHead = `% Letter Image Recognition Data
% (a few rows)
@relation letter
@attribute 'x-box' integer
@attribute 'y-box' integer
@attribute 'width' integer
@attribute 'high' integer
@attribute 'class' { A, B, C, T, I}
@data
2,8,3,5,T
5,12,3,7,I
`

func TestParseARFF(t *testing.T) {
	type want struct {
		relation string
		attrs    []dataio.Attribute
		rows     int
		data     []float64
		strings  [][]string
	}
	num := func(names ...string) []dataio.Attribute {
		var a []dataio.Attribute
		for _, n := range names {
			a = append(a, dataio.Attribute{Name: n, Type: dataio.Numeric})
		}
		return a
	}
	for _, tc := range []struct {
		name, content string
		want          want
	}{
		{"dense", letterHead, want{
			relation: "letter",
			attrs: append(num("x-box", "y-box", "width", "high"),
				dataio.Attribute{Name: "class", Type: dataio.Nominal, Values: []string{"A", "B", "C", "T", "I"}}),
			rows: 2,
			data: []float64{2, 8, 3, 5, 3, 5, 12, 3, 7, 4},
		}},
		{"types", "@relation r\n@attribute a numeric\n@attribute b REAL\n@attribute c Integer\n@data\n1,2.5,-3\n1e3, -0.5 ,  7\n", want{
			relation: "r", attrs: num("a", "b", "c"), rows: 2, data: []float64{1, 2.5, -3, 1000, -0.5, 7},
		}},
		{"case-insensitive keywords", "@RELATION R\n@ATTRIBUTE x NUMERIC\n@Attribute y {a,b}\n@DaTa\n1,b\n", want{
			relation: "R",
			attrs:    append(num("x"), dataio.Attribute{Name: "y", Type: dataio.Nominal, Values: []string{"a", "b"}}),
			rows:     1, data: []float64{1, 1},
		}},
		{"no relation, no rows", "@attribute x numeric\n@data\n", want{attrs: num("x")}},
		{"quoted names with spaces", "@relation 'my data'\n@attribute 'first value' numeric\n@attribute \"second, \\\"quoted\\\"\" real\n@attribute 'it\\'s' integer\n@data\n1,2,3\n", want{
			relation: "my data", attrs: num("first value", `second, "quoted"`, "it's"), rows: 1, data: []float64{1, 2, 3},
		}},
		{"name next to brace", "@attribute class{x,y}\n@data\ny\n", want{
			attrs: []dataio.Attribute{{Name: "class", Type: dataio.Nominal, Values: []string{"x", "y"}}}, rows: 1, data: []float64{1},
		}},
		{"nominal with quoted values", "@attribute c {'a b', \"c,d\", 'e}', '?', plain , '', 'x\\ty'}\n@data\n'a b'\n\"c,d\"\n'e}'\n'?'\nplain\n''\n  'x\\ty'  \n?\n", want{
			attrs: []dataio.Attribute{{Name: "c", Type: dataio.Nominal, Values: []string{"a b", "c,d", "e}", "?", "plain", "", "x\ty"}}},
			rows:  8, data: []float64{0, 1, 2, 3, 4, 5, 6, nan},
		}},
		{"nominal value with spaces unquoted", "@attribute c {low, very high}\n@data\nvery high\n", want{
			attrs: []dataio.Attribute{{Name: "c", Type: dataio.Nominal, Values: []string{"low", "very high"}}}, rows: 1, data: []float64{1},
		}},
		{"missing values", "@attribute x numeric\n@attribute c {a,b}\n@attribute s string\n@data\n?,a,hello\n1,?,?\n?,?,''\n", want{
			attrs: append(num("x"), dataio.Attribute{Name: "c", Type: dataio.Nominal, Values: []string{"a", "b"}}, dataio.Attribute{Name: "s", Type: dataio.String}),
			rows:  3, data: []float64{nan, 0, 0, 1, nan, nan, nan, nan, 0},
			strings: [][]string{nil, nil, {"hello", "", ""}},
		}},
		{"CRLF", "@relation r\r\n@attribute x numeric\r\n@attribute c {a, b}\r\n@data\r\n1,a\r\n\r\n2,b\r\n", want{
			relation: "r", attrs: append(num("x"), dataio.Attribute{Name: "c", Type: dataio.Nominal, Values: []string{"a", "b"}}),
			rows: 2, data: []float64{1, 0, 2, 1},
		}},
		{"comments and blank lines", "% top\n\n@relation r % name\n  % indented\n@attribute x numeric % the x\n\n@attribute y numeric\n@data % here\n% a row comment\n\n1,2 % trailing\n   \n3,4\n% end", want{
			relation: "r", attrs: num("x", "y"), rows: 2, data: []float64{1, 2, 3, 4},
		}},
		{"BOM, tabs, no final newline", "\ufeff@relation\tr\n@attribute\tx\tnumeric\n@data\n\t1\t", want{
			relation: "r", attrs: num("x"), rows: 1, data: []float64{1},
		}},
		{"sparse", "@attribute a numeric\n@attribute b numeric\n@attribute c {x,y,z}\n@attribute d numeric\n@data\n{0 1.5,3 2}\n{ 1 -1 , 2 z }\n{}\n{2 ?}\n1,2,y,4\n", want{
			attrs: append(num("a", "b"), dataio.Attribute{Name: "c", Type: dataio.Nominal, Values: []string{"x", "y", "z"}}, dataio.Attribute{Name: "d", Type: dataio.Numeric}),
			rows:  5,
			data:  []float64{1.5, 0, 0, 2, 0, -1, 2, 0, 0, 0, 0, 0, 0, 0, nan, 0, 1, 2, 1, 4},
		}},
		{"sparse strings", "@attribute a numeric\n@attribute s string\n@data\n{1 'hi there'}\n{0 3}\n", want{
			attrs: append(num("a"), dataio.Attribute{Name: "s", Type: dataio.String}),
			rows:  2, data: []float64{0, 0, 3, 0}, strings: [][]string{nil, {"hi there", ""}},
		}},
		{"instance weights", "@attribute a numeric\n@attribute b {p,q}\n@data\n1,p,{2}\n{0 5, 1 q}, {0.5}\n{1 q} {3}\n2,q, { 1e-3 } % w\n", want{
			attrs: append(num("a"), dataio.Attribute{Name: "b", Type: dataio.Nominal, Values: []string{"p", "q"}}),
			rows:  4, data: []float64{1, 0, 5, 1, 0, 1, 2, 1},
		}},
		{"string and date", "@attribute s STRING\n@attribute d date \"yyyy-MM-dd HH:mm:ss\"\n@attribute e date\n@attribute x numeric\n@data\n'a, b',\"2001-04-03 12:12:12\",2001-01-01,1\nplain text,?,'',2\n", want{
			attrs: []dataio.Attribute{{Name: "s", Type: dataio.String}, {Name: "d", Type: dataio.Date, DateFormat: "yyyy-MM-dd HH:mm:ss"},
				{Name: "e", Type: dataio.Date}, {Name: "x", Type: dataio.Numeric}},
			rows: 2, data: []float64{0, 0, 0, 1, 0, nan, 0, 2},
			strings: [][]string{{"a, b", "plain text"}, {"2001-04-03 12:12:12", ""}, {"2001-01-01", ""}, nil},
		}},
		{"quoted number", "@attribute x numeric\n@data\n'2.5'\n", want{attrs: num("x"), rows: 1, data: []float64{2.5}}},
		{"percent in quotes", "@attribute 'a%b' {'5%'}\n@data\n'5%' % comment\n", want{
			attrs: []dataio.Attribute{{Name: "a%b", Type: dataio.Nominal, Values: []string{"5%"}}}, rows: 1, data: []float64{0},
		}},
		{"special numbers", "@attribute x numeric\n@data\nInfinity\n-inf\nNaN\n", want{attrs: num("x"), rows: 3, data: []float64{math.Inf(1), math.Inf(-1), nan}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := dataio.ParseARFF(strings.NewReader(tc.content), "t.arff")
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			if a.Relation != w.relation {
				t.Errorf("relation %q, want %q", a.Relation, w.relation)
			}
			if !slices.EqualFunc(a.Attributes, w.attrs, func(x, y dataio.Attribute) bool {
				return x.Name == y.Name && x.Type == y.Type && slices.Equal(x.Values, y.Values) && x.DateFormat == y.DateFormat
			}) {
				t.Errorf("attributes\n%+v\nwant\n%+v", a.Attributes, w.attrs)
			}
			if a.Rows != w.rows || !sameFloats(a.Data, w.data) && len(a.Data)+len(w.data) > 0 {
				t.Errorf("%d rows %v, want %d rows %v", a.Rows, a.Data, w.rows, w.data)
			}
			if !slices.EqualFunc(a.Strings, w.strings, slices.Equal) {
				t.Errorf("strings %q, want %q", a.Strings, w.strings)
			}
		})
	}
}

func TestParseARFFErrors(t *testing.T) {
	const h = "@relation r\n@attribute x numeric\n@attribute 'the width' real\n@attribute class {A, B}\n@data\n" // data from line 6
	for _, tc := range []struct {
		name, content, want string
	}{
		{"bad number", h + "1,2,A\n3,x,B\n", `t.arff:7: row 2, field 2 ('the width'): want a number, found "x"`},
		{"empty number", h + "1,,A\n", `t.arff:6: row 1, field 2 ('the width'): want a number, found nothing`},
		{"number out of range", h + "1e999,1,A\n", `t.arff:6: row 1, field 1 ('x'): "1e999" is out of range for float64`},
		{"too few fields", h + "1,2\n", `t.arff:6: row 1: want 3 comma-separated fields (one per attribute), found 2`},
		{"too many fields", h + "1,2,A,4\n", `t.arff:6: row 1: want 3 comma-separated fields (one per attribute), found 4`},
		{"space separated", h + "1 2 A\n", `t.arff:6: row 1: want 3 comma-separated fields (one per attribute), found 1`},
		{"trailing comma", h + "1,2,A,\n", `t.arff:6: row 1: want 3 comma-separated fields (one per attribute), found 4`},
		{"nominal not declared", h + "1,2,C\n", `t.arff:6: row 1, field 3 ('class'): want one of {A, B}, found "C"`},
		{"nominal is case-sensitive", h + "1,2,a\n", `t.arff:6: row 1, field 3 ('class'): want one of {A, B}, found "a"`},
		{"long nominal list is cut", "@attribute c {a,b,c,d,e,f,g,h,i,j}\n@data\nz\n", `t.arff:3: row 1, field 1 ('c'): want one of {a, b, c, d, e, f, g, h, ... (10 values)}, found "z"`},
		{"unterminated quote in data", h + "1,2,'A\n", `t.arff:6: row 1, field 3 ('class'): unterminated quote: "'A" has no closing '`},
		{"text after quote", h + "1,2,'A'B\n", `t.arff:6: row 1, field 3: want ',' after the quoted value, found "B"`},
		{"unterminated quote in name", "@attribute 'x numeric\n@data\n", `t.arff:1: @attribute: an attribute name: unterminated quote`},
		{"unterminated quote in nominal", "@attribute c {'a, b}\n@data\n", `t.arff:1: @attribute 'c': nominal value 1: unterminated quote`},
		{"unterminated nominal list", "@attribute c {a, b\n@data\n", `t.arff:1: @attribute 'c': want ',' or '}' after nominal value 2, found the end of the line`},
		{"empty nominal list", "@attribute c {}\n@data\n", `t.arff:1: @attribute 'c': want at least one nominal value, found {}`},
		{"empty nominal value", "@attribute c {a,,b}\n@data\n", `t.arff:1: @attribute 'c': nominal value 2 is empty`},
		{"duplicate nominal value", "@attribute c {a,b,a}\n@data\n", `t.arff:1: @attribute 'c': nominal value "a" is declared twice`},
		{"no @data", "@relation r\n@attribute x numeric\n\n", `t.arff:3: no @data line after the 1 attributes`},
		{"no attributes", "@relation r\n@data\n1\n", `t.arff:2: @data: no attributes declared before it`},
		{"empty file", "", `t.arff: empty file (want an ARFF header`},
		{"comments only", "% nothing\n\n", `t.arff:2: no @attribute declarations and no @data line: not an ARFF file?`},
		{"not ARFF", "a,b\n1,2\n", `t.arff:1: want @relation, @attribute or @data, found "a,b"`},
		{"unknown keyword", "@relation r\n@attributes x numeric\n", `t.arff:2: unknown keyword "@attributes" (want @relation, @attribute or @data)`},
		{"unknown type", "@attribute x float\n@data\n", `t.arff:1: @attribute 'x': want a type (numeric, real, integer, string, date or {values}), found "float"`},
		{"missing type", "@attribute x\n@data\n", `t.arff:1: @attribute 'x': want a type (numeric, real, integer, string, date or {values}), found the end of the line`},
		{"missing name", "@attribute\n@data\n", `t.arff:1: @attribute: want an attribute name, found the end of the line`},
		{"relational", "@attribute bag relational\n@data\n", `t.arff:1: @attribute 'bag': relational attributes are not supported`},
		{"text after type", "@attribute x numeric y\n@data\n", `t.arff:1: @attribute 'x': want the end of the line after the type, found "y"`},
		{"duplicate attribute", "@attribute x numeric\n@attribute y numeric\n@attribute x real\n@data\n", `t.arff:3: @attribute 'x': the name is already declared on line 1`},
		{"two relations", "@relation a\n@relation b\n", `t.arff:2: @relation after the first @relation or @attribute`},
		{"attribute after data", h + "1,2,A\n@attribute y numeric\n", `t.arff:7: @attribute after @data`},
		{"text after @data", "@attribute x numeric\n@data 1\n", `t.arff:2: @data: want the end of the line, found "1"`},
		{"sparse index out of range", h + "{0 1, 3 2}\n", `t.arff:6: row 1, sparse entry 2: attribute index 3 out of range (want 0 to 2, for 3 attributes)`},
		{"sparse huge index", h + "{99999999999999999999999 1}\n", `t.arff:6: row 1, sparse entry 1: attribute index 99999999999999999999999 out of range`},
		{"sparse negative index", h + "{-1 1}\n", `t.arff:6: row 1, sparse entry 1: want an attribute index (0 to 2), found "-1 1}"`},
		{"sparse indices out of order", h + "{1 1, 0 2}\n", `t.arff:6: row 1, sparse entry 2: attribute index 0 after 1; want indices in increasing order`},
		{"sparse repeated index", h + "{1 1, 1 2}\n", `t.arff:6: row 1, sparse entry 2: attribute index 1 after 1`},
		{"sparse bad value", h + "{1 abc}\n", `t.arff:6: row 1, sparse entry 1, field 2 ('the width'): want a number, found "abc"`},
		{"sparse bad nominal", h + "{2 Q}\n", `t.arff:6: row 1, sparse entry 1, field 3 ('class'): want one of {A, B}, found "Q"`},
		{"sparse unclosed", h + "{0 1, 1 2\n", `t.arff:6: row 1: sparse row: want ',' or '}' after entry 2, found the end of the line`},
		{"sparse no value separator", h + "{0:1}\n", `t.arff:6: row 1, sparse entry 1, field 1 ('x'): want a space between the index and the value, found ":1}"`},
		{"sparse trailing text", h + "{0 1} x\n", `t.arff:6: row 1: want the end of the line after the sparse row, found "x"`},
		{"bad weight", h + "1,2,A,{heavy}\n", `t.arff:6: row 1: instance weight: want a number, found "heavy"`},
		{"unclosed weight", h + "1,2,A,{2\n", `t.arff:6: row 1: instance weight: want {number}, found "{2"`},
		{"weight after too few fields", h + "1,2,{2}\n", `t.arff:6: row 1: want 3 comma-separated fields (one per attribute), found 2 before the instance weight`},
		{"text after weight", h + "1,2,A,{2} 3\n", `t.arff:6: row 1: want the end of the line after the instance weight, found "3"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := dataio.ParseARFF(strings.NewReader(tc.content), "t.arff")
			if err == nil {
				t.Fatalf("no error, read %+v; want %q", a, tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n%s\nwant it to start with\n%s", err, tc.want)
			}
		})
	}
}

// TestARFFMaxValues checks that sparse rows, which stand for whole rows
// however short they are, cannot expand past MaxValues (lowered here to
// 12, so that 4 rows of 3 attributes pass and a fifth does not).
func TestARFFMaxValues(t *testing.T) {
	defer dataio.SetMaxValues(12)()
	const h = "@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n@data\n"
	for _, tc := range []struct {
		name, content string
		rows          int
		want          string
	}{
		{"at the limit", h + "{}\n{}\n{}\n{0 1}\n", 4, ""},
		{"sparse past the limit", h + "{}\n{}\n% c\n{}\n{}\n{}\n", 0, "t.arff:10: row 5: too much data: 5 rows of 3 attributes would be more than MaxValues = 12 values"},
		{"dense past the limit", h + "1,2,3\n1,2,3\n1,2,3\n1,2,3\n1,2,3\n", 0, "t.arff:9: row 5: too much data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := dataio.ParseARFF(strings.NewReader(tc.content), "t.arff")
			if tc.want == "" {
				if err != nil || a.Rows != tc.rows {
					t.Fatalf("ParseARFF: %v; want %d rows", err, tc.rows)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n%v\nwant it to start with\n%s", err, tc.want)
			}
		})
	}
}

func TestARFFNumericLabels(t *testing.T) {
	a, err := dataio.ParseARFF(strings.NewReader(letterHead), "letter.arff")
	if err != nil {
		t.Fatal(err)
	}
	m, names, err := a.Numeric()
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 2 || m.Cols != 4 || !slices.Equal(m.Data, []float64{2, 8, 3, 5, 5, 12, 3, 7}) {
		t.Errorf("Numeric: %d×%d %v", m.Rows, m.Cols, m.Data)
	}
	if !slices.Equal(names, []string{"x-box", "y-box", "width", "high"}) {
		t.Errorf("Numeric names %q", names)
	}
	labels, err := a.Labels("class")
	if err != nil || !slices.Equal(labels, []string{"T", "I"}) {
		t.Errorf("Labels(class) = %q, %v; want [T I]", labels, err)
	}
	if j := a.Index("width"); j != 2 {
		t.Errorf("Index(width) = %d, want 2", j)
	}
	if j := a.Index("Width"); j != -1 {
		t.Errorf("Index(Width) = %d, want -1", j)
	}

	// Mixed types: Numeric keeps only the numeric columns, in file order.
	mixed := "@attribute s string\n@attribute a numeric\n@attribute c {u,v}\n@attribute b integer\n@data\nfoo,1,v,2\nbar,3,u,4\n"
	a, err = dataio.ParseARFF(strings.NewReader(mixed), "m.arff")
	if err != nil {
		t.Fatal(err)
	}
	m, names, err = a.Numeric()
	if err != nil || !slices.Equal(m.Data, []float64{1, 2, 3, 4}) || m.Cols != 2 || !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("Numeric of mixed: %+v %q %v", m, names, err)
	}
	if s, err := a.Labels("s"); err != nil || !slices.Equal(s, []string{"foo", "bar"}) {
		t.Errorf("Labels(s) = %q, %v", s, err)
	}

	for _, tc := range []struct {
		name, content, attr, want string
	}{
		{"missing numeric", "@attribute x numeric\n@attribute 'the y' numeric\n@data\n1,2\n\n3,?\n", "", `m.arff:6: row 2, field 2 ('the y'): want a number, found a missing value`},
		{"NaN numeric", "@attribute x numeric\n@data\nNaN\n", "", `m.arff:3: row 1, field 1 ('x'): want a number, found a missing value`},
		{"no numeric", "@attribute c {a}\n@data\na\n", "", `m.arff: no numeric attributes (found 1 of other types)`},
		{"missing label", "@attribute c {a,b}\n@data\na\n% x\n?\n", "c", `m.arff:5: row 2, field 1 ('c'): want a value, found a missing value`},
		{"no such attribute", "@attribute c {a,b}\n@attribute d numeric\n@data\na,1\n", "class", `m.arff: no attribute 'class' (the attributes are 'c', 'd')`},
		{"numeric labels", "@attribute c {a,b}\n@attribute d numeric\n@data\na,1\n", "d", `m.arff: attribute 'd' is numeric; want a nominal, string or date attribute`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := dataio.ParseARFF(strings.NewReader(tc.content), "m.arff")
			if err != nil {
				t.Fatal(err)
			}
			if tc.attr == "" {
				_, _, err = a.Numeric()
			} else {
				_, err = a.Labels(tc.attr)
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n%v\nwant\n%s", err, tc.want)
			}
		})
	}

	// An ARFF built by hand: no file name or lines in messages, and sizes
	// checked.
	h := &dataio.ARFF{Attributes: []dataio.Attribute{{Name: "x"}}, Rows: 2, Data: []float64{1, nan}}
	if _, _, err := h.Numeric(); err == nil || err.Error() != "row 2, field 1 ('x'): want a number, found a missing value" {
		t.Errorf("hand-made ARFF: %v", err)
	}
	h.Rows = 3
	if _, _, err := h.Numeric(); err == nil || !strings.Contains(err.Error(), "do not match") {
		t.Errorf("hand-made ARFF with bad size: %v", err)
	}
	h = &dataio.ARFF{Attributes: []dataio.Attribute{{Name: "s", Type: dataio.String}}, Rows: 1, Data: []float64{0}}
	if _, err := h.Labels("s"); err == nil {
		t.Error("Labels of a string attribute without Strings: no error")
	}
}

func TestReadARFF(t *testing.T) {
	path := writeFile(t, "letter.arff", letterHead)
	a, err := dataio.ReadARFF(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rows != 2 || len(a.Attributes) != 5 {
		t.Errorf("read %d rows of %d attributes, want 2 of 5", a.Rows, len(a.Attributes))
	}
	bad := writeFile(t, "bad.arff", strings.Replace(letterHead, "5,12,3", "5,12,x", 1))
	if _, err := dataio.ReadARFF(bad); err == nil || err.Error() != bad+`:11: row 2, field 3 ('width'): want a number, found "x"` {
		t.Errorf("error %v", err)
	}
	missing := filepath.Join(t.TempDir(), "missing.arff")
	if _, err := dataio.ReadARFF(missing); err == nil || !strings.HasPrefix(err.Error(), missing+": ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v, want it to start with %q and wrap os.ErrNotExist", err, missing+": ")
	}
}

func TestReadMatrixARFF(t *testing.T) {
	for _, file := range []string{"a.arff", "A.ARFF"} {
		m, err := dataio.ReadMatrix(writeFile(t, file, letterHead))
		if err != nil {
			t.Fatal(err)
		}
		if m.Rows != 2 || m.Cols != 4 || !slices.Equal(m.Data, []float64{2, 8, 3, 5, 5, 12, 3, 7}) {
			t.Errorf("%s: read %d×%d %v", file, m.Rows, m.Cols, m.Data)
		}
	}
	for _, tc := range []struct{ name, content, want string }{
		{"no rows", "@attribute x numeric\n@data\n", "PATH: no data rows"},
		{"no numeric", "@attribute c {a}\n@data\na\n", "PATH: no numeric attributes"},
		{"missing", "@attribute x numeric\n@data\n?\n", "PATH:3: row 1, field 1 ('x'): want a number, found a missing value"},
		{"syntax", "@attribute x numeric\n", "PATH:1: no @data line"},
	} {
		path := writeFile(t, "a.arff", tc.content)
		want := strings.ReplaceAll(tc.want, "PATH", path)
		if _, err := dataio.ReadMatrix(path); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want it to start with %q", tc.name, err, want)
		}
	}
	// A vector and a mask can be read from an ARFF file too.
	path := writeFile(t, "v.arff", "@attribute v numeric\n@data\n1\n0\n2\n")
	if v, err := dataio.ReadVector(path); err != nil || !slices.Equal(v, []float64{1, 0, 2}) {
		t.Errorf("ReadVector: %v, %v", v, err)
	}
	if m, err := dataio.ReadMask(path, 3); err != nil || !slices.Equal(m, []bool{true, false, true}) {
		t.Errorf("ReadMask: %v, %v", m, err)
	}
	// Writing ARFF is not supported.
	out := filepath.Join(t.TempDir(), "out.arff")
	err := dataio.WriteMatrix(out, &dataio.Matrix{Rows: 1, Cols: 1, Data: []float64{1}})
	if err == nil || err.Error() != "write "+out+": writing .arff files is not supported (want .npy, .csv, .tsv or .txt)" {
		t.Errorf("WriteMatrix to .arff: %v", err)
	}
}

// arffBudget bounds what one ParseARFF (and the Numeric and Labels that
// FuzzParseARFF calls after it) may allocate, for an input of n bytes
// whose rows × attributes are at most v; see arffValues.
//
// Per byte of input, 256: each line is copied once by the line reader and
// once more, unquoted, by the lexer; a dense field costs a 24-byte
// arffField (twice, for append's growth) and a declared nominal value its
// string, a map entry (about 50 bytes) and a place in Values; an
// attribute takes a 72-byte Attribute, a map entry and per-attribute
// slices of a few words, and an attribute declaration is at least 15 bytes
// long ("@attribute a{b}"). Messages quote at most a few dozen bytes.
// Per value, 128: 8 bytes in Data, 16 bytes of string header in Strings
// for a string or date attribute, 8 in Numeric's matrix and 16 in Labels'
// result, all grown by append, which allocates up to 3 times the final
// size. Values are counted apart from bytes because a sparse row ({})
// stands for a whole row however short it is: MaxValues bounds them, not
// the input's size. Fixed, 1 MiB: the 64 KiB buffered reader and small
// maps and messages.
func arffBudget(v int) fuzzbudget.Budget {
	return fuzzbudget.Budget{PerByte: 256, Fixed: 1<<20 + 128*uint64(v)}
}

// arffWhere is what every error of ParseARFF starts with after the file
// name: a line, with the row for an error in a data row, or a complaint
// about the file as a whole.
var arffWhere = regexp.MustCompile(`^([1-9][0-9]*: (row [1-9][0-9]*(: |, (field|sparse entry) [1-9]))?|empty file)`)

// arffValues returns an upper bound of the rows × attributes of the ARFF
// text s: at most one row per line, and one attribute per "@attribute".
func arffValues(s string) int {
	return (strings.Count(s, "\n") + 1) * strings.Count(strings.ToLower(s), "@attribute")
}

// wideARFF returns an ARFF file that declares n numeric attributes, with
// rows of every kind: sparse and empty, sparse with the last attribute, a
// full row and a row cut at half (an error).
func wideARFF(n int) string {
	var b strings.Builder
	for j := range n {
		fmt.Fprintf(&b, "@attribute a%d numeric\n", j)
	}
	fmt.Fprintf(&b, "@data\n{}\n{%d 1}\n%s1\n%s\n", n-1, strings.Repeat("1,", n-1), strings.Repeat("1,", n/2))
	return b.String()
}

// TestParseARFFWide: a file that declares a thousand attributes (wider
// than FuzzParseARFF's inputs, dataio.MaxFuzzInput) is parsed within
// arffBudget, up to the row cut at half, which is an error naming it.
// (It was FuzzParseARFF's seed.)
func TestParseARFFWide(t *testing.T) {
	s := wideARFF(1000)
	var err error
	got := fuzzbudget.Check(t, "ParseARFF", len(s), arffBudget(arffValues(s)), func() {
		_, err = dataio.ParseARFF(strings.NewReader(s), "f.arff")
	})
	if err == nil || !strings.HasPrefix(err.Error(), "f.arff:1005: row 4") {
		t.Errorf("error %v, want one naming line 1005, row 4", err)
	}
	t.Logf("%d bytes allocated for %d bytes and %d values", got, len(s), arffValues(s))
}

// FuzzParseARFF checks that ParseARFF never panics, that what it returns
// is consistent, that its errors name the file and a data row's row, and
// that it allocates within arffBudget.
func FuzzParseARFF(f *testing.F) {
	for _, s := range []string{
		letterHead,
		"@attribute x numeric\n@attribute c {a,'b c'}\n@attribute s string\n@data\n1,a,x\n?,'b c',?\n{0 2, 2 'y'}\n{1 a} {3}\n",
		"@RELATION r\r\n@ATTRIBUTE 'a b' REAL\r\n@attribute d date 'yyyy'\r\n@DATA\r\n1.5,2001\r\n",
		"% c\n@attribute x {'a\\'b', \"c\\\"d\"}\n@data\n'a\\'b' % x\n",
		"@attribute x numeric\n@data\n{99 1}\n",
		"@attribute x numeric\n@data\n1,{",
		"@attribute 'x",
		"",
		// Sparse rows of many attributes: the largest expansion.
		strings.Repeat("@attribute a numeric\n", 1) + strings.Repeat("@attribute 'b\\'' string\n", 1) + "@data\n" + strings.Repeat("{}\n", 64),
		"@attribute x {a,b}\n@data\n{0 ?}\n?\n{0 a},{1}\n",
		"@attribute x numeric\n@data\n1,{2\n",
		"@attribute x numeric\n@data\nnan\n-Inf\n1e400\n",
		"@attribute x numeric\n@data\n@data\n",
		"@attribute x date \"yyyy\"\n@attribute y relational\n",
	} {
		f.Add(s)
	}
	// A width declared by 16 attributes, and rows of every kind
	// (TestParseARFFWide: a thousand).
	f.Add(wideARFF(16))
	f.Fuzz(func(t *testing.T, s string) {
		s = s[:min(len(s), dataio.MaxFuzzInput)]
		var a *dataio.ARFF
		var err error
		fuzzbudget.Check(t, "ParseARFF", len(s), arffBudget(arffValues(s)), func() {
			a, err = dataio.ParseARFF(strings.NewReader(s), "f.arff")
			if err == nil {
				a.Numeric()
				for _, at := range a.Attributes {
					if at.Type != dataio.Numeric {
						a.Labels(at.Name)
					}
				}
			}
		})
		if err != nil {
			msg := err.Error()
			rest, ok := strings.CutPrefix(msg, "f.arff:")
			if !ok {
				t.Errorf("error %q does not start with the file name", msg)
			}
			if !arffWhere.MatchString(strings.TrimPrefix(rest, " ")) {
				t.Errorf("error %q does not name its place as the package documentation says", msg)
			}
			return
		}
		c := len(a.Attributes)
		if c == 0 || a.Rows*c != len(a.Data) {
			t.Fatalf("%d rows of %d attributes, %d values", a.Rows, c, len(a.Data))
		}
		for j, at := range a.Attributes {
			for i := range a.Rows {
				v := a.Data[i*c+j]
				if at.Type == dataio.Nominal && !math.IsNaN(v) && (v < 0 || int(v) >= len(at.Values) || v != math.Trunc(v)) {
					t.Fatalf("row %d, attribute %d: nominal index %v of %d values", i, j, v, len(at.Values))
				}
			}
			isStr := at.Type == dataio.String || at.Type == dataio.Date
			if isStr != (j < len(a.Strings) && a.Strings[j] != nil) || isStr && len(a.Strings[j]) != a.Rows {
				t.Fatalf("attribute %d (%v): Strings %q", j, at.Type, a.Strings)
			}
			if at.Type != dataio.Numeric {
				if _, err := a.Labels(at.Name); err != nil && !strings.Contains(err.Error(), "missing value") {
					t.Errorf("Labels(%q): %v", at.Name, err)
				}
			}
		}
		a.Numeric()
	})
}

// TestARFFDeclaredValues: an ARFF file's values are bounded by its data
// lines (not blank, not comments, a sparse row "{}" counted as a whole
// row) times its attributes, and a malformed header is an error.
func TestARFFDeclaredValues(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.arff")
	body := "% a comment\n@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute c {x,y}\n@data\n1,2,x\n\n% c\n{}\n{0 5}\n   \n" + strings.Repeat("z", 70000) + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, ok, err := dataio.DeclaredValues(p); err != nil || !ok || n != 4*3 {
		t.Errorf("DeclaredValues = %d, %v, %v; want 4 data lines × 3 attributes = 12", n, ok, err)
	}
	bad := filepath.Join(dir, "bad.arff")
	os.WriteFile(bad, []byte("@relation r\n@attribute a sometype\n@data\n1\n"), 0o644)
	if _, ok, err := dataio.DeclaredValues(bad); err == nil || !ok {
		t.Errorf("a malformed header: %v, %v", ok, err)
	}
}
