package dataio

// SetMaxValues sets the limit that MaxValues documents to n for a test,
// and returns a function that restores it.
func SetMaxValues(n int) (restore func()) {
	old := maxValues
	maxValues = n
	return func() { maxValues = old }
}

// MaxFuzzInput is maxFuzzInput, for the fuzz targets of package dataio_test.
const MaxFuzzInput = maxFuzzInput

// SetMaxAhead sets maxAhead to n for a test, and returns a function that
// restores it.
func SetMaxAhead(n int64) (restore func()) {
	old := maxAhead
	maxAhead = n
	return func() { maxAhead = old }
}
