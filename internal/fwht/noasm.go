//go:build !amd64 || purego

package fwht

import "github.com/drdam/drdam/internal/cpuid"

func transform32(x, s []float32, mode int) { transformGo(x, s, mode) }
func transform64(x, s []float64, mode int) { transformGo(x, s, mode) }

func linesAsm(cpuid.Level) bool { return false }

func linesRun[T float32 | float64](x, s []T, n int) { panic("unreachable") }

func callLScale[T float32 | float64](dst, x, s *T, nv int, add bool) { panic("unreachable") }
