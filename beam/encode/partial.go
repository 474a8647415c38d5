package encode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/drdam/drdam/dam"
)

// partial is what the encoders exchange: the Sum of the patterns that one
// bundle stored, with their dimension and the name of a shard they came
// from (for errors about shards of different dimensions). The zero
// partial is the empty one.
type partial struct {
	D     int     // the dimension of the patterns; 0 when empty
	Shard string  // a shard whose patterns the Sum holds
	Sum   dam.Sum // T in stored form, its log-scale, the count
}

func init() {
	beam.RegisterCoder(reflect.TypeOf(partial{}), encodePartial, decodePartial)
}

// merge adds q to p: p ← p + q, for models of configuration c (its D is
// set from the partials). Partials of different dimensions are an error
// that names a shard of each.
func (p *partial) merge(c dam.Config, q partial) error {
	if q.Sum.Count == 0 {
		return nil
	}
	if p.Sum.Count == 0 {
		*p = q
		return nil
	}
	if p.D != q.D {
		return fmt.Errorf("%s has %d columns but %s has %d: every shard must hold patterns of one dimension D", q.Shard, q.D, p.Shard, p.D)
	}
	c.D = p.D
	return p.Sum.Merge(c, q.Sum)
}

// The coder of partial: D, the count (uvarint, varint), the log-scale
// (8 bytes), the shard name (uvarint length and bytes), then the F values
// of T (uvarint F, 8 bytes each, little-endian). T travels once per
// bundle, so the coder writes it as it is, with nothing per value.

func encodePartial(p partial) ([]byte, error) {
	if p.D < 0 {
		return nil, fmt.Errorf("partial sum of dimension %d", p.D)
	}
	b := make([]byte, 0, 4*binary.MaxVarintLen64+8+len(p.Shard)+8*len(p.Sum.T))
	b = binary.AppendUvarint(b, uint64(p.D))
	b = binary.AppendVarint(b, p.Sum.Count)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Sum.LogScale))
	b = binary.AppendUvarint(b, uint64(len(p.Shard)))
	b = append(b, p.Shard...)
	b = binary.AppendUvarint(b, uint64(len(p.Sum.T)))
	for _, v := range p.Sum.T {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b, nil
}

var errPartial = errors.New("decoding a partial sum: truncated or corrupt")

func decodePartial(b []byte) (partial, error) {
	var p partial
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return math.MaxUint64
		}
		b = b[n:]
		return v
	}
	d := uv()
	count, n := binary.Varint(b)
	if d > math.MaxInt32 || n <= 0 || len(b[n:]) < 8 {
		return p, errPartial
	}
	b = b[n:]
	p.D, p.Sum.Count = int(d), count
	p.Sum.LogScale = math.Float64frombits(binary.LittleEndian.Uint64(b))
	b = b[8:]
	ns := uv()
	if ns > uint64(len(b)) {
		return p, errPartial
	}
	p.Shard, b = string(b[:ns]), b[ns:]
	f := uv()
	if f > uint64(len(b))/8 || uint64(len(b)) != 8*f {
		return p, errPartial
	}
	if f > 0 {
		p.Sum.T = make([]float64, f)
		for i := range p.Sum.T {
			p.Sum.T[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	return p, nil
}
