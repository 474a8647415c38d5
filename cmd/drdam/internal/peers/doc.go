// Package peers speaks the protocols of the peers in ../shared/peers, so
// that drdam can be checked against the numpy oracle and timed against
// numpy and PyTorch on identical work:
//
//   - numpy_dam.py compute: Run reads the same input files (Xi.npy, Q.npy,
//     S.npy, b.npy, mask.npy, params.json; ResolvePaths, ReadParams,
//     LoadInputs), runs MrDAM and every DrDAM kernel with the given
//     projection in float64, and writes the same output files and
//     summary.json (WriteOutputs). drdam compute is its command.
//   - bench.py run: Configs are bench.py's CONFIGS, Phases its phases; for
//     one of each, Measure sets the models up, times the phase over its
//     repeats after the warm-up runs, and returns the Result line with
//     bench.py's keys, order and units (plus drdam's own). drdam bench is
//     its command.
//
// Keep Configs, Phases and Kernels in step with the peers' scripts.
package peers
