package gitrev

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// removeWait is how long Close removes a snapshot itself. A revision of a million files takes
// seconds to remove, more on a loaded disk, and a run stopped by a signal must end within a
// second: past this, what is left is handed to a process of its own (removeDetached) that
// outlives the run.
const removeWait = 500 * time.Millisecond

// removeSnapshot removes dir, within about removeWait: what is left then is handed to
// removeDetached, and the error is nil once that process started.
func removeSnapshot(dir string) error {
	var stop atomic.Bool
	done := make(chan error, 1)
	go func() { done <- removeTree(dir, &stop) }()
	select {
	case err := <-done:
		return err
	case <-time.After(removeWait):
	}
	stop.Store(true)
	if err := <-done; !errors.Is(err, errRemoveStopped) {
		return err // finished, or failed, before it saw the stop
	}
	if err := removeDetached(dir); err != nil {
		return errors.Join(err, os.RemoveAll(dir))
	}
	return nil
}

var errRemoveStopped = errors.New("removal stopped")

// removeTree removes dir and everything under it without following a symlink, and stops with
// errRemoveStopped once stop is set.
func removeTree(dir string, stop *atomic.Bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if stop.Load() {
			return errRemoveStopped
		}
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			err = removeTree(p, stop)
		} else {
			err = os.Remove(p)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return os.Remove(dir)
}
