package cli

import (
	"errors"
	"fmt"

	"github.com/drdam/drdam/dam"
	"github.com/drdam/drdam/dataio"
)

// Fill reads rows into buf until it is full or the rows end (then io.EOF,
// with the rows read), so that every Add but the last stores a whole chunk
// (a multiple of the 256 patterns a DrDAM encodes at a time, if buf is).
// Each part read is checked as Add would check it for a model of
// configuration c (dataio.Rows.CheckFinite, dam.Config.CheckPatterns): an
// error names the file, its row and its column. drdam encode and
// drdam-beam encode store their chunks this way.
func Fill(rows *dataio.Rows, buf []float64, c dam.Config) (int, error) {
	return fill(rows, buf, func(p []float64) error {
		if err := rows.CheckFinite(p); err != nil {
			return err
		}
		if err := c.CheckPatterns(p); err != nil {
			var re *dam.RowError
			if errors.As(err, &re) {
				re.Row += rows.Before()
			}
			return fmt.Errorf("%s: %w", rows.Name(), err)
		}
		return nil
	})
}

// FillMissing reads rows into buf until it is full or the rows end (then
// io.EOF, with the rows read), as Fill does, for rows with missing
// entries (opened by dataio.OpenRowsMissing): NaN is a missing entry, and
// an infinite value is an error naming the file, its row and its column
// (dataio.Rows.CheckFinite).
func FillMissing(rows *dataio.Rows, buf []float64) (int, error) {
	return fill(rows, buf, rows.CheckFinite)
}

// fill reads rows into buf until it is full or the rows end (then io.EOF,
// with the rows read), checking each part read with check.
func fill(rows *dataio.Rows, buf []float64, check func(p []float64) error) (int, error) {
	d := rows.Cols()
	k := 0
	for k*d < len(buf) {
		n, err := rows.Read(buf[k*d:])
		if err != nil {
			return k, err
		}
		if err := check(buf[k*d : (k+n)*d]); err != nil {
			return k, err
		}
		k += n
	}
	return k, nil
}
