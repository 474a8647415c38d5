package serve

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
)

// The write-ahead log of a memory: a file that starts with walMagic and
// holds records, each
//
//	u32 n | u32 CRC-32C of the n bytes that follow | n bytes:
//	u64 seq | u8 op | u32 rows | u32 cols | rows·cols float64    (add, remove)
//	u64 seq | u8 op | the bytes of a model file                  (merge)
//
// all little-endian. A record is appended, and the file synced, before
// the request that made it is answered, so an acknowledged write is in
// the log when the process or the machine dies. A crash while appending leaves a torn last record:
// reading stops at the first record that is short or fails its checksum,
// and the file is cut there (repaired), so the next record is appended
// after the last whole one.

// walMagic starts every log file.
const walMagic = "DRDAMWAL1\n"

// The operations of a record.
const (
	opAdd    byte = 1
	opRemove byte = 2
	opMerge  byte = 3
)

// maxRecord bounds the length of one record, so that a corrupt length
// cannot ask for an unbounded allocation: larger than any body the server
// accepts.
const maxRecord = 1 << 31

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is one entry of the log.
type record struct {
	seq  uint64
	op   byte
	rows int
	cols int
	data []float64 // add, remove: rows×cols values
	raw  []byte    // merge: a model file
}

// wal is an open log, positioned at its end.
type wal struct {
	f    *os.File
	path string
	buf  []byte
	end  int64 // the size of the log
	last int64 // its size before the last record appended
}

// openWAL opens the log at path, creating it if it does not exist, reads
// its records and calls apply for each in order; it cuts a torn tail
// (saying so through repaired) and leaves the log open for appending.
func openWAL(path string, apply func(record) error) (w *wal, repaired int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if st.Size() == 0 {
		if _, err := f.WriteString(walMagic); err != nil {
			return nil, 0, err
		}
		if err := syncFile(f); err != nil {
			return nil, 0, err
		}
		n := int64(len(walMagic))
		return &wal{f: f, path: path, end: n, last: n}, 0, nil
	}
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(walMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != walMagic {
		return nil, 0, fmt.Errorf("%s: not a drdam write-ahead log (it does not start with %q)", path, walMagic)
	}
	good := int64(len(walMagic))
	for {
		rec, n, err := readRecord(r)
		if err != nil {
			break // a torn or corrupt tail: cut below
		}
		if err := apply(rec); err != nil {
			return nil, 0, fmt.Errorf("%s: record %d (byte %d): %w", path, rec.seq, good, err)
		}
		good += n
	}
	if good < st.Size() {
		repaired = st.Size() - good
		if err := f.Truncate(good); err != nil {
			return nil, 0, err
		}
		if err := syncFile(f); err != nil {
			return nil, 0, err
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		return nil, 0, err
	}
	return &wal{f: f, path: path, end: good, last: good}, repaired, nil
}

// readRecord reads one whole record and the bytes it took, or an error if
// the record is short, too long or fails its checksum.
func readRecord(r io.Reader) (record, int64, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return record{}, 0, err
	}
	n := binary.LittleEndian.Uint32(h[:4])
	sum := binary.LittleEndian.Uint32(h[4:])
	if n < 9 || n > maxRecord {
		return record{}, 0, errors.New("bad length")
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return record{}, 0, err
	}
	if crc32.Checksum(p, castagnoli) != sum {
		return record{}, 0, errors.New("bad checksum")
	}
	rec := record{seq: binary.LittleEndian.Uint64(p), op: p[8]}
	switch rec.op {
	case opAdd, opRemove:
		if n < 17 {
			return record{}, 0, errors.New("short record")
		}
		rec.rows = int(binary.LittleEndian.Uint32(p[9:]))
		rec.cols = int(binary.LittleEndian.Uint32(p[13:]))
		if int64(rec.rows)*int64(rec.cols)*8 != int64(n)-17 {
			return record{}, 0, errors.New("length does not match the shape")
		}
		rec.data = make([]float64, rec.rows*rec.cols)
		for i := range rec.data {
			rec.data[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[17+8*i:]))
		}
	case opMerge:
		rec.raw = p[9:]
	default:
		return record{}, 0, errors.New("unknown operation")
	}
	return rec, int64(n) + 8, nil
}

// append writes rec at the end of the log; sync makes it durable.
func (w *wal) append(rec record) error {
	n := 9
	if rec.op == opMerge {
		n += len(rec.raw)
	} else {
		n += 8 + 8*len(rec.data)
	}
	if n > maxRecord {
		return fmt.Errorf("a record of %d bytes is larger than the log takes (%d)", n, maxRecord)
	}
	b := w.buf[:0]
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint32(b, 0) // the checksum, below
	b = binary.LittleEndian.AppendUint64(b, rec.seq)
	b = append(b, rec.op)
	if rec.op == opMerge {
		b = append(b, rec.raw...)
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(rec.rows))
		b = binary.LittleEndian.AppendUint32(b, uint32(rec.cols))
		for _, v := range rec.data {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(b[8:], castagnoli))
	w.buf = b
	if _, err := w.f.Write(b); err != nil {
		w.f.Truncate(w.end) // a partial record would be cut when the log is opened anyway
		w.f.Seek(w.end, io.SeekStart)
		return fmt.Errorf("write-ahead log %s: %w", w.path, err)
	}
	w.last, w.end = w.end, w.end+int64(len(b))
	return nil
}

// sync makes every record appended so far durable. It may run while
// another record is appended (the records are whole in the file, in
// order, before their append returns).
func (w *wal) sync() error {
	if err := syncFile(w.f); err != nil {
		return fmt.Errorf("write-ahead log %s: %w", w.path, err)
	}
	return nil
}

// cutLast removes the record appended last.
func (w *wal) cutLast() error {
	if err := w.f.Truncate(w.last); err != nil {
		return err
	}
	if _, err := w.f.Seek(w.last, io.SeekStart); err != nil {
		return err
	}
	w.end = w.last
	return syncFile(w.f)
}

// reset empties the log after a snapshot that holds every record in it.
func (w *wal) reset() error {
	n := int64(len(walMagic))
	if err := w.f.Truncate(n); err != nil {
		return err
	}
	if _, err := w.f.Seek(n, io.SeekStart); err != nil {
		return err
	}
	w.end, w.last = n, n
	return syncFile(w.f)
}

func (w *wal) close() error { return w.f.Close() }

// syncFile makes what was written to f durable (File.Sync: fsync on
// Linux; fdatasync would do for the log, but measured once it saved
// little on this workload: 0.8 against 1.3–1.9 ms a 3.2 MB record, and
// only on a preallocated file).
func syncFile(f *os.File) error { return f.Sync() }
