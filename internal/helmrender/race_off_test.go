//go:build !race

package helmrender

// raceDetector is set when the tests are built with -race (race_on_test.go).
const raceDetector = false
