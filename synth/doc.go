// Package synth generates the synthetic data of the paper's §4.1: unique
// random binary patterns in {0, 1/√D}^D and their corruptions by bit flips,
// and the uniform gray patterns of the peers' benchmark configurations,
// reproducibly from a seed (see package internal/rng).
package synth
