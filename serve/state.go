package serve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cespare/xxhash/v2"
)

// tables are what a memory keeps beside its model, in its log: the
// fingerprints of the patterns it stores, so that a removal of a pattern
// that was never added is refused, and the answers of its recent
// idempotent writes, so that a retry is answered without being applied
// twice. The log's first record after a snapshot (op state) holds them
// as of that snapshot, and every later record updates them, so a restart
// rebuilds them exactly.
type tables struct {
	// fp counts the stored patterns by the hash of their values
	// (rowHash): a DrDAM's, which keeps no pattern. nil for an MrDAM,
	// which checks a removal against its own patterns.
	fp map[uint64]uint32
	// complete says that every stored pattern is in fp; when it is not
	// (a merge added patterns the memory cannot list, or the memory
	// predates fingerprints), incomplete says why.
	complete   bool
	incomplete string

	keys  map[string]*keyEntry
	order []keyRef // keys in the order they were written, oldest first
	head  int      // order[:head] are expired
}

// keyEntry is the answer a write with an Idempotency-Key had.
type keyEntry struct {
	hash   uint64 // of the request (reqHash)
	op     byte
	n      int    // rows added or removed, patterns merged
	count  int    // patterns in the memory after the record
	seq    uint64 // of the record
	at     int64  // Unix nanoseconds of the record
	synced bool   // the record is known durable (false after a failed sync)
}

type keyRef struct {
	key string
	seq uint64
}

// Idempotency keys are kept for KeyWindow after their write, and at most
// MaxKeys per memory (the oldest go first): a retry later than that, or
// after that many newer keyed writes, is a new write.
const (
	KeyWindow = 24 * time.Hour
	MaxKeys   = 1 << 16
)

// newTables returns the empty tables of a new memory (fingerprints kept
// if fingerprints).
func newTables(fingerprints bool) *tables {
	t := &tables{complete: true, keys: map[string]*keyEntry{}}
	if fingerprints {
		t.fp = map[uint64]uint32{}
	}
	return t
}

// rowHash returns the fingerprint of a row of values: xxHash64 of their
// little-endian bits, with −0 taken as +0 (the same pattern to a model).
// buf is a scratch of at least 8·len(row) bytes.
func rowHash(row []float64, buf []byte) uint64 {
	buf = buf[:8*len(row)]
	for i, v := range row {
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v+0))
	}
	return xxhash.Sum64(buf)
}

// reqHash returns the hash of a write request: its operation (with the
// force flag of a removal), D and its values, or a merge's model file.
func reqHash(op byte, force bool, d int, data []float64, raw []byte) uint64 {
	h := xxhash.New()
	var b [16]byte
	b[0] = op
	if force {
		b[1] = 1
	}
	binary.LittleEndian.PutUint64(b[8:], uint64(d))
	h.Write(b[:])
	if raw != nil {
		h.Write(raw)
		return h.Sum64()
	}
	var v [8]byte
	for _, x := range data {
		binary.LittleEndian.PutUint64(v[:], math.Float64bits(x+0))
		h.Write(v[:])
	}
	return h.Sum64()
}

// unknownRow returns the first row of the d-wide rows of data that the
// fingerprints cannot account for (counting repeats within data), or −1
// if each is stored.
func (t *tables) unknownRow(data []float64, d int) int {
	if t.fp == nil {
		return -1
	}
	buf := make([]byte, 8*d)
	seen := map[uint64]uint32{}
	for i := 0; i*d < len(data); i++ {
		h := rowHash(data[i*d:(i+1)*d], buf)
		seen[h]++
		if seen[h] > t.fp[h] {
			return i
		}
	}
	return -1
}

// apply updates the tables with a record; synced says that the record is
// durable (replayed from the log).
func (t *tables) apply(r record, synced bool, now time.Time) {
	switch r.op {
	case opAdd, opRemove:
		if t.fp != nil {
			buf := make([]byte, 8*r.cols)
			for i := range r.rows {
				h := rowHash(r.data[i*r.cols:(i+1)*r.cols], buf)
				if r.op == opAdd {
					t.fp[h]++
				} else if c := t.fp[h]; c > 1 {
					t.fp[h] = c - 1
				} else {
					delete(t.fp, h) // also a forced removal of a row never added
				}
			}
		}
	case opMerge:
		if t.fp != nil && t.complete {
			t.complete = false
			t.incomplete = fmt.Sprintf("a merge (record %d) added patterns that a DrDAM cannot list", r.seq)
		}
	}
	for _, k := range r.keys {
		t.put(k.key, &keyEntry{hash: k.hash, op: r.op, n: k.n, count: k.count, seq: r.seq, at: r.at, synced: synced}, now)
	}
}

// put records the answer of a keyed write and drops the keys past the
// window or the count.
func (t *tables) put(key string, e *keyEntry, now time.Time) {
	t.keys[key] = e
	t.order = append(t.order, keyRef{key, e.seq})
	t.expire(now)
}

// expire drops the keys older than KeyWindow and the oldest past MaxKeys.
func (t *tables) expire(now time.Time) {
	old := now.Add(-KeyWindow).UnixNano()
	for t.head < len(t.order) {
		ref := t.order[t.head]
		e := t.keys[ref.key]
		if e != nil && e.seq == ref.seq && len(t.keys) <= MaxKeys && e.at >= old {
			break
		}
		if e != nil && e.seq == ref.seq {
			delete(t.keys, ref.key)
		}
		t.head++
	}
	if t.head > 1024 && t.head > len(t.order)/2 {
		t.order = append(t.order[:0], t.order[t.head:]...)
		t.head = 0
	}
}

// The state record's body:
//
//	u8 flags (1: fingerprints kept, 2: complete) | u32 len | why incomplete
//	u64 n | n × (u64 hash | u32 count)
//	u32 k | k × (u8 len | key | u64 hash | u8 op | u32 n | u64 count | u64 seq | i64 at)

// encode returns the body of the state record.
func (t *tables) encode() []byte {
	b := make([]byte, 0, 16+len(t.incomplete)+12*len(t.fp)+64*len(t.keys))
	var flags byte
	if t.fp != nil {
		flags |= 1
	}
	if t.complete {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(t.incomplete)))
	b = append(b, t.incomplete...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(t.fp)))
	for h, c := range t.fp {
		b = binary.LittleEndian.AppendUint64(b, h)
		b = binary.LittleEndian.AppendUint32(b, c)
	}
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, 0)
	n := 0
	for _, ref := range t.order[t.head:] {
		e := t.keys[ref.key]
		if e == nil || e.seq != ref.seq {
			continue
		}
		b = append(b, byte(len(ref.key)))
		b = append(b, ref.key...)
		b = binary.LittleEndian.AppendUint64(b, e.hash)
		b = append(b, e.op)
		b = binary.LittleEndian.AppendUint32(b, uint32(e.n))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.count))
		b = binary.LittleEndian.AppendUint64(b, e.seq)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.at))
		n++
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(n))
	return b
}

var errState = errors.New("malformed state record")

// decodeTables reads the body of a state record.
func decodeTables(b []byte, now time.Time) (*tables, error) {
	if len(b) < 5 {
		return nil, errState
	}
	flags := b[0]
	ln := int(binary.LittleEndian.Uint32(b[1:]))
	b = b[5:]
	if ln > len(b) {
		return nil, errState
	}
	t := &tables{complete: flags&2 != 0, incomplete: string(b[:ln]), keys: map[string]*keyEntry{}}
	b = b[ln:]
	if len(b) < 8 {
		return nil, errState
	}
	nfp := binary.LittleEndian.Uint64(b)
	b = b[8:]
	if nfp > uint64(len(b))/12 {
		return nil, errState
	}
	if flags&1 != 0 {
		t.fp = make(map[uint64]uint32, nfp)
	} else if nfp > 0 {
		return nil, errState
	}
	for range nfp {
		t.fp[binary.LittleEndian.Uint64(b)] = binary.LittleEndian.Uint32(b[8:])
		b = b[12:]
	}
	if len(b) < 4 {
		return nil, errState
	}
	nk := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	for range nk {
		if len(b) < 1 || len(b) < 1+int(b[0])+37 {
			return nil, errState
		}
		l := int(b[0])
		key := string(b[1 : 1+l])
		b = b[1+l:]
		e := &keyEntry{hash: binary.LittleEndian.Uint64(b), op: b[8], n: int(binary.LittleEndian.Uint32(b[9:])),
			count: int(binary.LittleEndian.Uint64(b[13:])), seq: binary.LittleEndian.Uint64(b[21:]), at: int64(binary.LittleEndian.Uint64(b[29:])), synced: true}
		b = b[37:]
		t.keys[key] = e
		t.order = append(t.order, keyRef{key, e.seq})
	}
	if len(b) != 0 {
		return nil, errState
	}
	t.expire(now)
	return t, nil
}

// validKey checks an Idempotency-Key: 1 to 255 printable ASCII
// characters, no space.
func validKey(k string) error {
	if len(k) == 0 || len(k) > maxKey {
		return fmt.Errorf("want 1 to %d printable ASCII characters, found %d bytes", maxKey, len(k))
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("want printable ASCII characters without spaces, found byte 0x%02x at %d", c, i)
		}
	}
	return nil
}
