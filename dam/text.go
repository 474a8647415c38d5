package dam

import "fmt"

// The enumerations of a configuration read and write as their names, so
// that they stay text in JSON (paper's config.json; a dam.Config in JSON,
// as Beam serializes the DoFns that hold one): each MarshalText writes
// the name (String, never an alias) and errs on a value without one;
// each UnmarshalText reads what the Parse function reads, with its error.
// The zero value, which Validate replaces by the default, is unset: it
// writes as "", and "" reads as it.

// MarshalText returns the representation's name: mrdam or drdam.
func (r Representation) MarshalText() ([]byte, error) { return repNames.text(r) }

// UnmarshalText sets r to the representation named by text, as
// ParseRepresentation reads it.
func (r *Representation) UnmarshalText(text []byte) error { return repNames.set(r, text) }

// MarshalText returns the similarity's name: l2 or dot.
func (s Similarity) MarshalText() ([]byte, error) { return simNames.text(s) }

// UnmarshalText sets s to the similarity named by text, as
// ParseSimilarity reads it.
func (s *Similarity) UnmarshalText(text []byte) error { return simNames.set(s, text) }

// MarshalText returns the precision's name: float64 or float32.
func (p Precision) MarshalText() ([]byte, error) { return precNames.text(p) }

// UnmarshalText sets p to the precision named by text, as ParsePrecision
// reads it.
func (p *Precision) UnmarshalText(text []byte) error { return precNames.set(p, text) }

// text returns the name of v ("" for the zero value), or an error for a
// value without one.
func (e enumNames[T]) text(v T) ([]byte, error) {
	if v == 0 {
		return []byte{}, nil
	}
	if v > 0 && int(v) < len(e.names) && len(e.names[v]) > 0 {
		return []byte(e.names[v][0]), nil
	}
	return nil, fmt.Errorf("unknown %s %d: want %s", e.what, int(v), e.want)
}

// set sets *p to the value named by text (the zero value for ""), or
// returns parse's error.
func (e enumNames[T]) set(p *T, text []byte) error {
	if len(text) == 0 {
		*p = 0
		return nil
	}
	v, err := e.parse(string(text))
	if err != nil {
		return err
	}
	*p = v
	return nil
}
