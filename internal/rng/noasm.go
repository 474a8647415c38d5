//go:build !amd64 || purego

package rng

func blocks(dst []float64, k key2, blk uint64) { blocksGo(dst, k, blk) }

func interleaved64(dst []float64, keys *[16]uint64, nblk int) { interleavedGo(dst, keys[:8], nblk) }
func interleaved32(dst []float32, keys *[16]uint64, nblk int) { interleavedGo(dst, keys[:], nblk) }
