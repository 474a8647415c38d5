// Package npy reads and writes NumPy .npy files.
//
// The format is described at
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html.
// A file is the magic string "\x93NUMPY", a major and a minor version byte,
// the length of the header (a little-endian uint16 for version 1.0, a
// uint32 for versions 2.0 and 3.0), the header itself, and the raw array
// data. The header is a Python dict literal such as
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
//
// padded with spaces and ended by a newline so that the data starts at an
// aligned offset.
//
// # Reading
//
// Read and ReadFile accept versions 1.0, 2.0 and 3.0, every real and bool
// dtype that NumPy writes (float16/32/64, signed and unsigned integers of 1,
// 2, 4 and 8 bytes, and bool) in either byte order, C or Fortran order, and
// any number of dimensions, including 0-d scalars. The values are converted
// to float64 and returned in C (row-major) order, whatever the order in the
// file. Integers of magnitude above 2^53 lose precision in that conversion.
// Structured, object, string, complex and date dtypes are reported as an
// error naming the dtype.
//
// The reader is meant to be safe on untrusted input: a malformed, truncated
// or fuzzed file returns an error and never panics, and the reader never
// allocates much more memory than the input actually holds. A header that
// claims more data than the input contains is reported as truncated, and
// bytes left after the data are reported too, since a .npy file holds
// exactly one array.
//
// # Writing
//
// Write, WriteFloat32 and WriteBool write little-endian float64, float32 and
// bool arrays in C order, byte for byte as NumPy 1.24's numpy.save would
// (format version 1.0, or 2.0 when the header does not fit in 65535 bytes).
// WriteFile and WriteFileFloat32 write a file atomically: the array is
// written to a temporary file in the destination directory, synced, and then
// renamed over the destination, so a failure never leaves a half-written
// file at the destination path.
package npy
