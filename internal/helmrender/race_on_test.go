//go:build race

package helmrender

// raceDetector is set when the tests are built with -race: the race detector's shadow memory
// is mapped in every process this test binary starts as a render worker, beyond what the
// render itself uses.
const raceDetector = true
