// Package dataio reads and writes the matrices and vectors that the
// command line works with: patterns (K×D), queries (B×D), masks (length D)
// and results, stored as NumPy .npy files or as delimited text, and reads
// Weka's ARFF files.
//
// The format is chosen by the file name's extension, ignoring case:
//
//   - .npy: a NumPy array (see package npy). Any real or bool dtype is
//     read; matrices and vectors are written as little-endian float64.
//     A 1-D array of length n is read as a matrix with one row (1×n), and
//     a vector is written as a 1-D array.
//   - .csv: comma-separated values, read with encoding/csv (so quoted
//     fields work).
//   - .tsv: tab-separated values, read with encoding/csv.
//   - .txt: whitespace- or comma-separated values, as numpy.savetxt writes
//     them. The separator is a comma if the first data line holds a comma,
//     and otherwise any run of spaces and tabs.
//   - .arff: Weka's Attribute-Relation File Format, as OpenML serves it
//     (read only). ReadMatrix reads its numeric attributes, one row per
//     instance, and drops the others; ReadARFF gives every attribute,
//     including nominal ones such as a class label.
//   - IDX, LeCun's format of the MNIST files (read only), recognized by its
//     name rather than an extension: a name ending in "ubyte"
//     (train-images-idx3-ubyte, train-images.idx3-ubyte) or ".idx", plain
//     or gzip-compressed with ".gz" after it. The first dimension gives the
//     rows and the others are flattened, row-major (an MNIST image of 28×28
//     is a row of 784 values); a 1-D file is one row. Unsigned bytes are
//     8-bit gray levels, read as v/255/√D in [0, 1/√D] (D the values of a
//     row) as package imageio reads pixels; signed bytes, shorts, ints,
//     floats and doubles are read as they are. DeclaredValues reads the number of values a header declares
//     (what a compressed file's size does not bound). A header that
//     declares more than its file can hold is an error before anything is
//     allocated for the values: a plain file must hold them all, and a
//     compressed one at most 1032 times its size (deflate's largest
//     expansion). A compressed file or a stream is read as its bytes
//     arrive, and OpenRows and NewRows read its first row before they
//     report a width, so that nothing is sized by what a header alone
//     declares (a .npy stream's first row too).
//
// # Reading by rows
//
// ReadMatrix holds a whole matrix in memory. OpenRows and NewRows read the
// rows of a file, of every format above, a chunk at a time, so that a file
// larger than memory is read in the memory of a chunk: a .npy array of any
// dtype in C order from any reader (and in Fortran order by columns, from
// a file), text and ARFF files line by line, IDX files (compressed too) as
// their bytes arrive. OpenRows also reads a glob or a folder of shards,
// one after another in the order of their names. Rows reads the values
// that ReadMatrix reads, bit for bit, with the same errors; its
// CheckFinite names the shard and its row.
//
// # Text files
//
// Each line is one row. Blank lines and lines starting with '#' are
// skipped, and so is a UTF-8 byte order mark. The first row is a header, and
// is skipped, when none of its fields is a number; a first row that mixes
// numbers and other text is an error, not a header, so that a typo in the
// first data row is reported rather than silently dropped. Every row,
// header included, must have the same number of fields. Fields may be
// surrounded by spaces, and "nan", "inf" and "-inf" (in any case) are read
// as NaN and infinities: reading never rejects them, and callers that need
// finite data call CheckFinite. Errors quote the text found and name its
// place as described below.
//
// Text is written with strconv.FormatFloat(v, 'g', -1, 64), which reads
// back to exactly the same float64, one row per line and without a header.
//
// # ARFF files
//
// ReadARFF and ParseARFF read an ARFF file's header (@relation, @attribute
// and @data, in any case) and its dense or sparse data rows into an ARFF:
// numeric values as they are, a nominal value as its index in the
// declared values, string and date values as text, and a missing value (?)
// as NaN. Instance weights are ignored. Errors name the file, the line, the
// row, the field and its attribute, what was expected and what was found,
// such as
//
//	letter.arff:25: row 20, field 3 ('width'): want a number, found "x"
//
// A sparse file may not expand to more than MaxValues values.
// ARFF.Numeric gives the numeric attributes as a Matrix and ARFF.Labels
// the values of a nominal attribute as text.
//
// # Where errors point
//
// Every reader names the place of a bad value the same way, with the
// row of the matrix and its column (an ARFF file's field), all counted
// from 1, after the file and its line:
//
//	data.csv: line L (row R), column C: ...
//	data.arff:L: row R, field C ('name'): ...
//
// L is the line of the file, as an editor shows it; ARFF messages write
// it NAME:L, as they do for the header's lines. R is the row of the
// matrix the line holds: a text file's header, blank lines and comments,
// and an ARFF file's header, are not rows, so R is L less the lines before
// the data and the skipped ones. C is the column of the matrix in a text
// file and the attribute in an ARFF file (in sparse rows too, whose
// indices count from 0: index 2 is field 3). encoding/csv's syntax errors
// give the byte of the line instead of the column. Errors about the file
// as a whole give "FILE: ...", and about an ARFF header line "FILE:L:
// ...". CheckFinite and ReadMask, which see the matrix and not the file's
// lines, give "FILE: row R, column C: ...". A .npy file has no lines: its
// errors give byte offsets, and the row (along the first axis) in which
// truncated data stops.
//
// # Atomic writes
//
// WriteMatrix and WriteVector write to a temporary file in the destination
// directory, sync it and rename it over the destination, so the
// destination holds either its old contents or the complete new file,
// never a partial one.
package dataio
