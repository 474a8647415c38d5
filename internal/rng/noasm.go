//go:build !amd64 || purego

package rng

func blocks(dst []float64, k key2, blk uint64) { blocksGo(dst, k, blk) }
