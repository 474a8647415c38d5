//go:build !amd64 || purego

package fwht

func transform32(x, s []float32, mode int) { transformGo(x, s, mode) }
func transform64(x, s []float64, mode int) { transformGo(x, s, mode) }
