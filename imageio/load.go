package imageio

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // register JPEG for image.Decode
	_ "image/png"  // register PNG for image.Decode
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/drdam/drdam/dataio"
	"github.com/drdam/drdam/internal/sysinfo"
)

// MaxPixels is the largest number of pixels (width × height) of an image
// file that Load and LoadTinyImageNet will decode, 10^8 (10000×10000);
// larger files are an error, found from the file's header before any
// pixel is decoded, rather than a huge allocation. A file too short to
// hold the pixels its header declares (a PNG of less than 1 byte per 1032
// bytes of pixel rows, which deflate cannot reach; a JPEG of less than 1
// bit per 8×8 block) is also refused before decoding, as truncated.
//
// Decoding an image and converting it takes up to about 40 bytes per
// pixel at once: the decoded image (1 to 8 bytes per pixel; a progressive
// JPEG also holds 4 bytes per pixel and component of coefficients) and a
// 16-bit RGBA copy (8 bytes per pixel) that FromImage resizes.
const MaxPixels = 100_000_000

// isImageName reports whether a file name has a PNG or JPEG extension
// (.png, .jpg, .jpeg, any case).
func isImageName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg":
		return true
	}
	return false
}

// baseName returns the file name of path without its extension.
func baseName(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// Load reads images from paths, each a PNG or JPEG file or a folder; a
// folder contributes every regular file directly in it whose name ends in
// .png, .jpg or .jpeg (any case), sorted by name (not recursive; other files
// and subfolders are ignored). A file named explicitly is decoded whatever
// its extension, but must hold a PNG or JPEG. Every image is converted by
// FromImage to h×w (h ≤ 0 or w ≤ 0: its own size) and named after its file
// name without the extension. The images are returned in the order of paths.
//
// Errors name the file or folder: one that cannot be read, an image that is
// corrupt or truncated, in another format, or larger than MaxPixels, and a
// folder without PNG or JPEG files ("no PNG or JPEG files in DIR").
func Load(paths []string, h, w int) ([]*Image, error) {
	if len(paths) == 0 {
		return nil, errors.New("imageio: Load: no paths given")
	}
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("imageio: %w", err)
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p) // sorted by file name
		if err != nil {
			return nil, fmt.Errorf("imageio: %w", err)
		}
		n := len(files)
		for _, e := range entries {
			if !isImageName(e.Name()) {
				continue
			}
			// Follow symbolic links, but skip anything that is not a
			// regular file (folders named x.png, sockets, broken links).
			fp := filepath.Join(p, e.Name())
			if fi, err := os.Stat(fp); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			files = append(files, fp)
		}
		if len(files) == n {
			return nil, fmt.Errorf("imageio: no PNG or JPEG files in %s", p)
		}
	}
	return loadFiles(files, h, w)
}

// loadFiles decodes PNG or JPEG files, in order, and converts them to h×w.
func loadFiles(files []string, h, w int) ([]*Image, error) {
	ims := make([]*Image, len(files))
	for i, f := range files {
		im, err := loadFile(f, h, w)
		if err != nil {
			return nil, err
		}
		ims[i] = im
	}
	return ims, nil
}

// loadFile decodes one PNG or JPEG file and converts it to h×w.
func loadFile(path string, h, w int) (*Image, error) {
	// Asked before opening: opening a fifo waits for a writer, for ever.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("imageio: %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("imageio: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("imageio: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("imageio: %s: not a regular file", path)
	}
	return decodeFile(path, f, fi.Size(), h, w)
}

// decodeFile decodes the PNG or JPEG image of size bytes in r, the file
// path (a name for messages and the image's name), and converts it to h×w.
// It is loadFile after the file is opened, and what FuzzDecode calls.
func decodeFile(path string, r io.ReadSeeker, size int64, h, w int) (*Image, error) {
	img, err := decode(r, size)
	if err != nil {
		return nil, fmt.Errorf("imageio: %s: %w", path, err)
	}
	im, err := FromImage(baseName(path), img, h, w)
	if err != nil {
		return nil, fmt.Errorf("imageio: %s: %w", path, err)
	}
	return im, nil
}

// bytesPerPixel bounds what decoding and converting takes per pixel (see
// MaxPixels): an image whose pixels need more than the memory budget
// (sysinfo.Budget) is refused from its header.
const bytesPerPixel = 40

// maxPixels is MaxPixels, lowered by the fuzz target to keep each input
// fast.
var maxPixels int64 = MaxPixels

// decode decodes a PNG or JPEG image of size bytes from r, checking its
// header first: its size (at most MaxPixels), and that the file is large
// enough to hold that many pixels (see minSize), so that neither a huge
// declared size nor a truncated file makes the decoders allocate the
// whole image.
func decode(r io.ReadSeeker, size int64) (img image.Image, err error) {
	cfg, format, err := image.DecodeConfig(bufio.NewReaderSize(r, 4096))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return nil, errors.New("not a PNG or JPEG image")
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("truncated header: %w", io.ErrUnexpectedEOF)
		}
		return nil, fmt.Errorf("bad header: %w", err)
	}
	name := strings.ToUpper(format)
	if format != "png" && format != "jpeg" {
		return nil, fmt.Errorf("%s image, want PNG or JPEG", name)
	}
	px := int64(cfg.Width) * int64(cfg.Height)
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("%s header says %d×%d pixels: no pixels", name, cfg.Width, cfg.Height)
	}
	if px > maxPixels {
		return nil, fmt.Errorf("%s header says %d×%d = %d pixels, more than the %d (MaxPixels) that drdam decodes",
			name, cfg.Width, cfg.Height, px, maxPixels)
	}
	if b := sysinfo.Budget(); float64(px)*bytesPerPixel > float64(b) {
		return nil, fmt.Errorf("%s header says %d×%d pixels, which take up to %.3g GiB to decode (about %d bytes per pixel), more than the memory budget of %.3g GiB (three quarters of this machine's memory, or what ulimit -v leaves)",
			name, cfg.Width, cfg.Height, float64(px)*bytesPerPixel/(1<<30), bytesPerPixel, float64(b)/(1<<30))
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	need, why, err := minSize(r, format, cfg)
	if err != nil {
		return nil, err
	}
	if size < need {
		return nil, fmt.Errorf("truncated %s: its header says %d×%d pixels, which take at least %d bytes (%s), but the file has %d",
			name, cfg.Width, cfg.Height, need, why, size)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	// The standard decoders return errors on malformed input; recover
	// anyway so that a decoder bug is reported against the file instead of
	// crashing a long experiment.
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("decoding %s: panic: %v", name, r)
		}
	}()
	img, _, err = image.Decode(bufio.NewReaderSize(r, 1<<16))
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = fmt.Errorf("truncated %s: %w", name, err)
	}
	return img, err
}

// deflateMaxRatio is the largest ratio of bytes out to bytes in of a
// deflate stream: a match of 258 bytes coded in 2 bits (a 1-bit length
// code and a 1-bit distance code).
const deflateMaxRatio = 1032

// minSize returns a lower bound of the size of a file that holds a whole
// image with header cfg, read from r (positioned at the file's start), and
// how it was found.
//
// A PNG's pixel rows, with a filter byte each, are compressed with
// deflate, which packs at most deflateMaxRatio bytes into one: the bound
// is exact for any PNG that decodes. A JPEG codes each 8×8 block of a
// component at full resolution with at least 1 bit (the Huffman code of
// its DC difference); real files take far more, about 64 pixels per byte
// for a flat colour with the standard tables and 170 with optimized ones.
// A file below the bound is truncated, or a header made to make the
// decoders allocate an image that the file cannot fill.
func minSize(r io.Reader, format string, cfg image.Config) (int64, string, error) {
	w, h := int64(cfg.Width), int64(cfg.Height)
	if format == "jpeg" {
		blocks := ((w + 7) / 8) * ((h + 7) / 8)
		return (blocks + 7) / 8, "at least 1 bit per 8×8 block", nil
	}
	// PNG: the signature, then IHDR: length, "IHDR", width, height, bit
	// depth, colour type. DecodeConfig has checked them.
	var b [26]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, "", fmt.Errorf("truncated PNG header: %w", io.ErrUnexpectedEOF)
	}
	depth := int64(b[24])
	channels := map[byte]int64{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[b[25]]
	if channels == 0 {
		channels = 1 // unreachable: DecodeConfig rejects other colour types
	}
	raw := h * (1 + (w*depth*channels+7)/8)
	return raw / deflateMaxRatio, fmt.Sprintf("%d bytes of %d-bit pixel rows, compressed at most %d:1", raw, depth*channels, deflateMaxRatio), nil
}

// CIFAR-10 binary batch layout.
const (
	cifarSide   = 32
	cifarPixels = cifarSide * cifarSide
	// CIFARRecordSize is the size in bytes of one CIFAR-10 binary record:
	// 1 label byte and 3·32·32 pixel bytes.
	CIFARRecordSize = 1 + Channels*cifarPixels
)

// LoadCIFAR reads a CIFAR-10 binary batch (data_batch_1.bin … test_batch.bin):
// records of CIFARRecordSize = 3073 bytes, each 1 label byte (0–9) and 3072
// pixel bytes, 1024 red, then 1024 green, then 1024 blue, each plane 32×32
// row-major. It returns the first n images (n ≤ 0: all), as 32×32 Images
// named "FILE#i" (FILE without its folder, i the record index from 0), and
// their labels.
//
// Errors name the file: it cannot be read, it is empty, its size is not a
// multiple of 3073 (the error gives the size and the index of the partial
// record), or a record (named by its index) has a label above 9.
func LoadCIFAR(path string, n int) ([]*Image, []int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("imageio: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("imageio: %w", err)
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("imageio: %s: not a regular file", path)
	}
	if size == 0 {
		return nil, nil, fmt.Errorf("imageio: %s: empty file, want CIFAR-10 records of %d bytes", path, CIFARRecordSize)
	}
	if size%CIFARRecordSize != 0 {
		return nil, nil, fmt.Errorf("imageio: %s: size %d bytes is not a multiple of the CIFAR-10 record size %d (record %d has only %d bytes)",
			path, size, CIFARRecordSize, size/CIFARRecordSize, size%CIFARRecordSize)
	}
	k := int(size / CIFARRecordSize)
	if n > 0 && n < k {
		k = n
	}
	name := filepath.Base(path)
	br := bufio.NewReaderSize(f, 1<<16)
	rec := make([]byte, CIFARRecordSize)
	ims := make([]*Image, k)
	labels := make([]int, k)
	s := unitScale(Channels * cifarPixels)
	for i := range k {
		if _, err := io.ReadFull(br, rec); err != nil {
			// Only if the file shrank after Stat.
			return nil, nil, fmt.Errorf("imageio: %s: record %d: %w", path, i, err)
		}
		if rec[0] > 9 {
			return nil, nil, fmt.Errorf("imageio: %s: record %d: label %d is not a CIFAR-10 class 0–9", path, i, rec[0])
		}
		labels[i] = int(rec[0])
		im := &Image{Name: fmt.Sprintf("%s#%d", name, i), H: cifarSide, W: cifarSide, Pix: make([]float64, Channels*cifarPixels)}
		planes := rec[1:]
		for p := range cifarPixels {
			for c := range Channels {
				im.Pix[p*Channels+c] = float64(planes[c*cifarPixels+p]) / 255 * s
			}
		}
		ims[i] = im
	}
	return ims, labels, nil
}

// TinyImageNetSide is the side in pixels of the images of Tiny ImageNet.
const TinyImageNetSide = 64

// LoadTinyImageNet reads images from the Tiny ImageNet folder layout:
// ROOT/train/<wnid>/images/*.JPEG and ROOT/val/images/*.JPEG (the extension
// may be .jpeg, .jpg or .png in any case; other files are ignored). split is
// "train", "val" or "" for both; with "" either folder may be missing, but at
// least one must exist. The matching files are sorted by path (train before
// val), so the result is deterministic, and the first n (n ≤ 0: all) are
// decoded and converted by FromImage to h×w (h ≤ 0 or w ≤ 0: 64×64, the size
// of the data set; a file of another size is resized and centre-cropped; its
// few grayscale images become gray RGB). Images are named after their file
// names without the extension (e.g. "n01443537_0", "val_0").
//
// Errors name the folder or file: an unknown split, a missing split folder,
// no image files, an unreadable or corrupt image.
func LoadTinyImageNet(root, split string, n, h, w int) ([]*Image, error) {
	if h <= 0 || w <= 0 {
		h, w = TinyImageNetSide, TinyImageNetSide
	}
	var splits []string
	switch split {
	case "train", "val":
		splits = []string{split}
	case "":
		splits = []string{"train", "val"}
	default:
		return nil, fmt.Errorf("imageio: Tiny ImageNet split %q, want \"train\", \"val\" or \"\" (both)", split)
	}
	var files []string
	found := 0
	for _, sp := range splits {
		dir := filepath.Join(root, sp)
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			if split != "" {
				if err == nil {
					err = errors.New("not a folder")
				}
				return nil, fmt.Errorf("imageio: Tiny ImageNet %s split: %w", sp, err)
			}
			continue
		}
		found++
		var pattern string
		if sp == "train" {
			pattern = filepath.Join(dir, "*", "images", "*")
		} else {
			pattern = filepath.Join(dir, "images", "*")
		}
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("imageio: %s: %w", dir, err)
		}
		for _, p := range m {
			if !isImageName(p) {
				continue
			}
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				files = append(files, p)
			}
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("imageio: %s: neither %s nor %s exists; not a Tiny ImageNet folder",
			root, filepath.Join(root, "train"), filepath.Join(root, "val"))
	}
	if len(files) == 0 {
		what := "train/*/images/ or val/images/"
		if split == "train" {
			what = "train/*/images/"
		} else if split == "val" {
			what = "val/images/"
		}
		return nil, fmt.Errorf("imageio: no PNG or JPEG files in %s", filepath.Join(root, what))
	}
	slices.Sort(files)
	if n > 0 && n < len(files) {
		files = files[:n]
	}
	return loadFiles(files, h, w)
}

// Patterns stacks images of one size H×W into a K×D row-major matrix
// (D = H·W·C, image μ in row μ) and returns it with D. It is an error if ims
// is empty, holds nil, images of different sizes, or a malformed image
// (len(Pix) ≠ H·W·3).
func Patterns(ims []*Image) ([]float64, int, error) {
	if len(ims) == 0 {
		return nil, 0, errors.New("imageio: Patterns: no images")
	}
	for i, im := range ims {
		if im == nil {
			return nil, 0, fmt.Errorf("imageio: Patterns: image %d is nil", i)
		}
		if im.H <= 0 || im.W <= 0 || len(im.Pix) != im.D() {
			return nil, 0, fmt.Errorf("imageio: Patterns: image %d (%q) is malformed: %d×%d with %d values", i, im.Name, im.H, im.W, len(im.Pix))
		}
		if im.H != ims[0].H || im.W != ims[0].W || im.Gray != ims[0].Gray {
			return nil, 0, fmt.Errorf("imageio: Patterns: image %d (%q) is %d×%d×%d, image 0 (%q) is %d×%d×%d",
				i, im.Name, im.H, im.W, im.C(), ims[0].Name, ims[0].H, ims[0].W, ims[0].C())
		}
	}
	d := ims[0].D()
	out := make([]float64, 0, len(ims)*d)
	for _, im := range ims {
		out = append(out, im.Pix...)
	}
	return out, d, nil
}

// LoadIDX reads the first n images (n ≤ 0: all) of an IDX file of
// unsigned bytes, LeCun's format of MNIST (train-images-idx3-ubyte, plain
// or gzip-compressed with .gz after it; see package dataio): a file of
// shape N×H×W holds gray images (Gray set), and one of shape N×H×W×3 RGB
// images. Each level v becomes v/255/√D, as dataio reads the file for
// drdam encode, so that a completion and a model encoded from the same
// file agree. Image i is named "NAME#i", NAME the file's base name. It
// reads the images a chunk at a time, and stops after the n-th.
func LoadIDX(path string, n int) ([]*Image, error) {
	dims, typ, err := dataio.IDXShape(path)
	if err != nil {
		return nil, err
	}
	if typ != "unsigned byte" || (len(dims) != 3 && !(len(dims) == 4 && dims[3] == Channels)) {
		return nil, fmt.Errorf("%s: want images, N×H×W (gray) or N×H×W×3 (RGB) unsigned bytes, found %s values of shape %s", path, typ, dataio.FormatDims(dims))
	}
	h, w := dims[1], dims[2]
	gray := len(dims) == 3
	count := dims[0]
	if n > 0 {
		count = min(count, n)
	}
	rows, err := dataio.OpenRows(path)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	name := strings.TrimSuffix(filepath.Base(path), ".gz")
	// The images are appended as they are read: a compressed file's
	// header may declare up to 1032 times its size in images (deflate's
	// largest expansion), which a slice sized by it would hold before any
	// image arrived.
	ims := make([]*Image, 0, min(count, 1024))
	d := rows.Cols()
	buf := make([]float64, max(1, 1<<16/d)*d)
	for len(ims) < count {
		k, err := rows.Read(buf[:min(len(buf), (count-len(ims))*d)])
		if err != nil {
			return nil, err
		}
		for r := range k {
			ims = append(ims, &Image{Name: fmt.Sprintf("%s#%d", name, len(ims)), H: h, W: w, Gray: gray, Pix: slices.Clone(buf[r*d : (r+1)*d])})
		}
	}
	return ims, nil
}
