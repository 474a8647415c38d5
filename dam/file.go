package dam

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/drdam/drdam/features"
	"github.com/drdam/drdam/internal/atomicfile"
)

// File format constants.
const (
	fileMagic      = "DRDAMMDL"
	FileVersion    = 2  // FileVersion is the model file format version that Save writes.
	fileHeaderSize = 88 // bytes before the payload
	fileTrailer    = 4  // CRC-32C
	flagBias       = 1
	flagOnDemand   = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes m to path atomically (a temporary file in the same directory,
// synced, then renamed over path), in the model file format:
//
//	offset  size  field (little-endian)
//	     0     8  magic "DRDAMMDL"
//	     8     4  format version (uint32), currently 2
//	    12     1  representation: 1 MrDAM, 2 DrDAM
//	    13     1  similarity: 1 L2, 2 dot
//	    14     1  basis: 0 (MrDAM), 1 cos, 2 sincos, 3 exp, 4 expexp
//	    15     1  projection: 0 (MrDAM), 1 gaussian, 2 orthogonal, 4 structured (SORF)
//	    16     1  compute precision: 1 float64, 2 float32 (the payload is float64)
//	    17     1  flags: bit 0 the random shift b is used, bit 1 the dense
//	              projection is regenerated on demand
//	    18     1  generator version of the projection (features.Generator):
//	              1 or 2 for a DrDAM, 0 for an MrDAM (format version 2)
//	    19     5  reserved, zero
//	    24     8  D (uint64)
//	    32     8  Y (uint64; 0 for MrDAM)
//	    40     8  β (float64)
//	    48     8  ε (float64; 0 for MrDAM)
//	    56     8  seed (uint64)
//	    64     8  number of memories stored (uint64)
//	    72     8  log-scale c (float64; see below)
//	    80     8  N, the number of payload values (uint64)
//	    88   8·N  payload (float64)
//	88+8N    4  CRC-32C (Castagnoli) of every preceding byte
//
// The payload of an MrDAM is its K×D patterns, row-major (N = K·D). That of
// a DrDAM is T in its stored form (N = F): t with T = exp(c)·t for the
// trigonometric bases, log T for the positive ones (−Inf where T_α = 0).
// The random projection and shift are not stored: Load regenerates them from
// the seed with the recorded generator. A DrDAM with an external projection
// cannot be saved.
//
// Format version 1 is the same with byte 18 reserved (zero): its DrDAMs
// were drawn with generator version 1, which Load gives them, so that a
// version-1 model loaded and saved again (as version 2) keeps its
// projection.
func Save(path string, m Memory) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, m) })
}

// Write writes m to w in the model file format (see Save).
func Write(w io.Writer, m Memory) error {
	switch mm := m.(type) {
	case *MrDAM:
		c := mm.cfg
		if err := checkValues("patterns", mm.xi, c.D, c); err != nil {
			return err
		}
		return writeModel(w, fileHeader(c, uint64(mm.Len())), mm.xi)
	case *DrDAM:
		if mm.cfg.Projection == features.External {
			return fmt.Errorf("the model uses an external projection matrix, which a model file cannot regenerate from a seed")
		}
		return writeDrDAM(w, mm.cfg, uint64(mm.count), mm.logScale, mm.t)
	default:
		return fmt.Errorf("cannot save a %T", m)
	}
}

// fileHeader returns the header of a model file of configuration c that
// stores count memories, with the fields that both representations have.
func fileHeader(c Config, count uint64) []byte {
	h := make([]byte, fileHeaderSize)
	copy(h, fileMagic)
	binary.LittleEndian.PutUint32(h[8:], FileVersion)
	h[12], h[13], h[16] = byte(c.Rep), byte(c.Similarity), byte(c.Precision)
	binary.LittleEndian.PutUint64(h[24:], uint64(c.D))
	binary.LittleEndian.PutUint64(h[40:], math.Float64bits(c.Beta))
	binary.LittleEndian.PutUint64(h[64:], count)
	return h
}

// writeDrDAM writes the model file of a DrDAM of the validated
// configuration c (not External) that stores count memories in t, its T
// in stored form, with log-scale logScale: for Write and WriteSum.
func writeDrDAM(w io.Writer, c Config, count uint64, logScale float64, t []float64) error {
	// Write nothing that Load would refuse.
	if math.IsNaN(logScale) || math.IsInf(logScale, 0) {
		return fmt.Errorf("the log-scale of T is %v", logScale)
	}
	if err := checkT(c, t, logScale, count); err != nil {
		return err
	}
	h := fileHeader(c, count)
	h[14], h[15], h[18] = byte(c.Basis), byte(c.Projection), byte(c.Generator)
	if !c.NoBias {
		h[17] |= flagBias
	}
	if c.OnDemand {
		h[17] |= flagOnDemand
	}
	binary.LittleEndian.PutUint64(h[32:], uint64(c.Y))
	binary.LittleEndian.PutUint64(h[48:], math.Float64bits(c.Epsilon))
	binary.LittleEndian.PutUint64(h[56:], c.Seed)
	binary.LittleEndian.PutUint64(h[72:], math.Float64bits(logScale))
	return writeModel(w, h, t)
}

// writeModel writes the header h, with the number of payload values, the
// payload and the checksum.
func writeModel(w io.Writer, h []byte, payload []float64) error {
	binary.LittleEndian.PutUint64(h[80:], uint64(len(payload)))
	crc := crc32.New(castagnoli)
	out := io.MultiWriter(w, crc)
	if _, err := out.Write(h); err != nil {
		return err
	}
	buf := make([]byte, 8*4096)
	for len(payload) > 0 {
		n := min(len(payload), 4096)
		for i, v := range payload[:n] {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
		}
		if _, err := out.Write(buf[:8*n]); err != nil {
			return err
		}
		payload = payload[n:]
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	_, err := w.Write(sum[:])
	return err
}

// Load reads the model file at path (see Save). Errors name the file and
// say what is wrong: not a model file, a newer format version, truncation,
// a checksum mismatch, or an invalid field.
func Load(path string) (Memory, error) { return LoadBudget(path, 0) }

// LoadBudget is Load with a memory budget in bytes (Config.MaxMemory; 0
// means DefaultBudget()): a file whose model would need more is refused
// with a *BudgetError before its payload is read.
func LoadBudget(path string, maxMemory int64) (Memory, error) {
	return LoadContext(context.Background(), path, maxMemory)
}

// LoadContext is LoadBudget whose DrDAM reports the drawing of its
// projection's rows to the progress function that ctx carries (see
// NewContext).
func LoadContext(ctx context.Context, path string, maxMemory int64) (Memory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	m, err := read(ctx, f, st.Size(), maxMemory)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return m, nil
}

// Read reads a model in the file format of Save from the size bytes of r.
func Read(r io.ReaderAt, size int64) (Memory, error) { return ReadBudget(r, size, 0) }

// ReadBudget is Read with a memory budget (see LoadBudget).
func ReadBudget(r io.ReaderAt, size int64, maxMemory int64) (Memory, error) {
	return read(context.Background(), r, size, maxMemory)
}

// read is ReadBudget with the context of NewContext.
func read(ctx context.Context, r io.ReaderAt, size int64, maxMemory int64) (Memory, error) {
	if maxMemory < 0 {
		return nil, fmt.Errorf("memory budget must be ≥ 0 bytes, found %d", maxMemory)
	}
	h, err := ReadHeader(r, size)
	if err != nil {
		return nil, err
	}
	c := h.Config
	c.MaxMemory = maxMemory
	np := uint64(h.Values)
	if err := checkFileBudget(c, h.Count, np); err != nil {
		return nil, err
	}
	payload := make([]float64, np)
	buf := make([]byte, 8*4096)
	for off := 0; off < len(payload); off += 4096 {
		k := min(4096, len(payload)-off)
		if _, err := r.ReadAt(buf[:8*k], fileHeaderSize+8*int64(off)); err != nil {
			return nil, err
		}
		for i := range k {
			payload[off+i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
		}
	}
	return build(ctx, c, h.Count, h.logScale, payload)
}

// Header is what a model file says of itself, read without building the
// model (see ReadHeader).
type Header struct {
	Config  Config // validated
	Count   uint64 // memories stored
	Values  int64  // payload values (K·D for an MrDAM, F for a DrDAM)
	Size    int64  // bytes of the file
	Version uint32 // format version

	logScale float64
}

// StatModel reads the header of the model file at path and checks the
// whole file against its checksum (see ReadHeader).
func StatModel(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Header{}, fmt.Errorf("read %s: %w", path, err)
	}
	h, err := ReadHeader(f, st.Size())
	if err != nil {
		return Header{}, fmt.Errorf("read %s: %w", path, err)
	}
	return h, nil
}

// ReadHeader reads and validates the header of a model file of size bytes
// and checks the whole file against its checksum, streaming: it allocates
// nothing that depends on what the file declares, and builds nothing (no
// projection is generated). Errors say what is wrong: not a model file, a
// newer format version, truncation, a checksum mismatch, or an invalid
// field.
func ReadHeader(r io.ReaderAt, size int64) (Header, error) {
	if size < 8 {
		return Header{}, fmt.Errorf("not a drdam model file: only %d bytes", size)
	}
	h := make([]byte, fileHeaderSize)
	n, _ := r.ReadAt(h[:min(int64(len(h)), size)], 0)
	if n < 8 || string(h[:8]) != fileMagic {
		return Header{}, fmt.Errorf("not a drdam model file: starts with %q, want %q", h[:min(n, 8)], fileMagic)
	}
	if size < fileHeaderSize+fileTrailer || n < fileHeaderSize {
		return Header{}, fmt.Errorf("truncated: %d bytes, a model file has at least %d", size, fileHeaderSize+fileTrailer)
	}
	v := binary.LittleEndian.Uint32(h[8:])
	if v != 1 && v != FileVersion {
		if v > FileVersion {
			return Header{}, fmt.Errorf("format version %d is newer than this program reads (%d): upgrade drdam", v, FileVersion)
		}
		return Header{}, fmt.Errorf("unknown format version %d", v)
	}
	np := binary.LittleEndian.Uint64(h[80:])
	want := int64(-1) // expected file size, if the header's N is sane
	if np <= uint64(size)/8 {
		want = fileHeaderSize + 8*int64(np) + fileTrailer
	}
	// Check the whole file against its checksum before trusting any field.
	crc := crc32.New(castagnoli)
	if _, err := io.Copy(crc, io.NewSectionReader(r, 0, size-fileTrailer)); err != nil {
		return Header{}, err
	}
	var sum [4]byte
	if _, err := r.ReadAt(sum[:], size-fileTrailer); err != nil {
		return Header{}, err
	}
	if got := binary.LittleEndian.Uint32(sum[:]); got != crc.Sum32() {
		if want != size {
			return Header{}, fmt.Errorf("truncated or corrupted: the header declares %d payload values (%.0f bytes in all), the file has %d bytes",
				np, float64(fileHeaderSize+fileTrailer)+8*float64(np), size)
		}
		return Header{}, fmt.Errorf("checksum mismatch (stored %08x, computed %08x): the file is corrupted", got, crc.Sum32())
	}
	if want != size {
		return Header{}, fmt.Errorf("the header declares %d payload values but the file has %d bytes", np, size)
	}
	c, count, logScale, err := parseHeader(h, v)
	if err != nil {
		return Header{}, err
	}
	return Header{Config: c, Count: count, Values: int64(np), Size: size, Version: v, logScale: logScale}, nil
}

// parseHeader decodes and validates the header fields of a file of the
// given format version.
func parseHeader(h []byte, format uint32) (c Config, count uint64, logScale float64, err error) {
	u64 := func(off int) uint64 { return binary.LittleEndian.Uint64(h[off:]) }
	f64 := func(off int) float64 { return math.Float64frombits(u64(off)) }
	c.Rep, c.Similarity = Representation(h[12]), Similarity(h[13])
	if c.Rep != RepMrDAM && c.Rep != RepDrDAM {
		return c, 0, 0, fmt.Errorf("header: unknown representation %d (want 1 mrdam or 2 drdam)", h[12])
	}
	if c.Similarity != L2 && c.Similarity != Dot {
		return c, 0, 0, fmt.Errorf("header: unknown similarity %d (want 1 l2 or 2 dot)", h[13])
	}
	c.Precision = Precision(h[16])
	if c.Precision != Float64 && c.Precision != Float32 {
		return c, 0, 0, fmt.Errorf("header: unknown precision %d (want 1 float64 or 2 float32)", h[16])
	}
	if !bytes.Equal(h[19:24], make([]byte, 5)) || (format == 1 && h[18] != 0) {
		return c, 0, 0, fmt.Errorf("header: reserved bytes are not zero")
	}
	const maxDim = 1 << 40
	d, y := u64(24), u64(32)
	if d == 0 || d > maxDim {
		return c, 0, 0, fmt.Errorf("header: dimension D = %d out of range", d)
	}
	if y > maxDim {
		return c, 0, 0, fmt.Errorf("header: Y = %d out of range", y)
	}
	c.D, c.Y, c.Beta, count, logScale = int(d), int(y), f64(40), u64(64), f64(72)
	if c.Rep == RepDrDAM {
		c.Basis, c.Projection = features.Basis(h[14]), features.ProjectionKind(h[15])
		// Validate would take a zero for the default: a file says which.
		if !c.Basis.Valid() {
			return c, 0, 0, fmt.Errorf("header: unknown basis %d", h[14])
		}
		if !c.Projection.Valid() {
			return c, 0, 0, fmt.Errorf("header: unknown projection kind %d", h[15])
		}
		c.Generator = features.Generator(h[18])
		if format == 1 {
			c.Generator = features.GeneratorV1 // the only one there was
		}
		if !c.Generator.Valid() {
			return c, 0, 0, fmt.Errorf("header: unknown generator version %d", h[18])
		}
		c.Epsilon, c.Seed, c.NoBias = f64(48), u64(56), h[17]&flagBias == 0
		c.OnDemand = h[17]&flagOnDemand != 0
		if h[17]&^(flagBias|flagOnDemand) != 0 {
			return c, 0, 0, fmt.Errorf("header: unknown flags %#x", h[17])
		}
		if c.Projection == features.External {
			return c, 0, 0, fmt.Errorf("header: projection kind %d cannot be regenerated", h[15])
		}
		if c.Epsilon == 0 && c.Basis.DefaultEpsilon() != 0 {
			return c, 0, 0, fmt.Errorf("header: ε = 0 with the %v basis", c.Basis)
		}
		if math.IsNaN(logScale) || math.IsInf(logScale, 0) {
			return c, 0, 0, fmt.Errorf("header: log-scale is %v", logScale)
		}
	} else if h[14] != 0 || h[15] != 0 || h[17] != 0 || h[18] != 0 || y != 0 || !bytes.Equal(h[48:64], make([]byte, 16)) || u64(72) != 0 {
		return c, 0, 0, fmt.Errorf("header: an mrdam file has DrDAM fields (basis, projection, bias, generator, Y, ε, seed, log-scale) set")
	}
	v, err := c.Validate()
	if err != nil {
		return c, 0, 0, fmt.Errorf("header: %w", err)
	}
	if c.Rep == RepDrDAM && c.NoBias != v.NoBias {
		return c, 0, 0, fmt.Errorf("header: the bias flag is set for the %v basis, which has no bias", c.Basis)
	}
	if c.Rep == RepDrDAM && c.OnDemand != v.OnDemand {
		return c, 0, 0, fmt.Errorf("header: the on-demand flag is set for a %v projection", c.Projection)
	}
	return v, count, logScale, nil
}

// build makes the memory described by a validated header and its payload.
func build(ctx context.Context, c Config, count uint64, logScale float64, payload []float64) (Memory, error) {
	if c.Rep == RepMrDAM {
		if uint64(len(payload)) != count*uint64(c.D) || count > uint64(len(payload)) {
			return nil, fmt.Errorf("payload has %d values, want %d memories × D = %d", len(payload), count, c.D)
		}
		m, _ := NewMrDAM(c)
		if count == 0 {
			return m, nil
		}
		if err := m.Add(payload); err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
		return m, nil
	}
	if len(payload) != c.FeatureDim() {
		return nil, fmt.Errorf("payload has %d values, want F = %d for the %v basis with Y = %d", len(payload), c.FeatureDim(), c.Basis, c.Y)
	}
	if err := checkT(c, payload, logScale, count); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	if count > math.MaxInt32 {
		return nil, fmt.Errorf("header: %d memories stored is implausible", count)
	}
	m, err := newSeededDrDAM(ctx, c)
	if err != nil {
		return nil, err
	}
	copy(m.t, payload)
	m.logScale, m.count = logScale, int(count)
	m.eng.invalidate()
	return m, nil
}

// crc32Castagnoli returns the CRC-32C of b (the model file checksum).
func crc32Castagnoli(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
