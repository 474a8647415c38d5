// Package qr orthonormalizes the rows of a square matrix by a blocked
// Householder QR, deterministically: the same bits on every machine and
// kernel level.
package qr
