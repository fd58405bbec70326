package cli

import (
	"bufio"
	"io"
	"os"
)

// quietStderr points os.Stderr at a pipe whose lines are copied to the real stderr, except
// those drop says: a library that writes to os.Stderr itself (kustomize's deprecation
// warnings, once per build) cannot be given a writer. It returns the real stderr, for the
// run's own messages, and restore, which puts os.Stderr back and waits until every line
// written before it was copied. Only a process's main may call it: os.Stderr is the
// process's.
func quietStderr(drop func(string) bool) (*os.File, func(), error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	real := os.Stderr
	os.Stderr = w
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The real stderr failing leaves no one to tell; the pipe is still drained, so a
		// writer never blocks on it.
		if filterLines(r, real, drop) != nil {
			_, _ = io.Copy(io.Discard, r)
		}
		_ = r.Close()
	}()
	return real, func() {
		os.Stderr = real
		_ = w.Close()
		<-done
	}, nil
}

// filterLines copies r to w line by line, leaving out the lines drop says; a last line
// without a newline is copied as it is.
func filterLines(r io.Reader, w io.Writer, drop func(string) bool) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			text := line
			if text[len(text)-1] == '\n' {
				text = text[:len(text)-1]
			}
			if !drop(text) {
				if _, werr := io.WriteString(w, line); werr != nil {
					return werr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
