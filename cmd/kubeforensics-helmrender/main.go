// Command kubeforensics-helmrender is the render worker the plugins start to render a Helm
// chart apart, its memory and time bounded (internal/helmrender, internal/chartrender). It
// links only the render, so it starts in about half the CPU time of a plugin; a plugin that
// does not find it beside itself starts itself as the worker instead. Run by hand it says
// what it is and exits 3.
package main

import (
	"fmt"
	"os"

	"github.com/kubeforensics/suite/internal/chartrender"
)

func main() {
	if code, ok := chartrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
		os.Exit(code)
	}
	fmt.Fprintln(os.Stderr, "kubeforensics-helmrender: the plugins' Helm render worker; it is started by them, not run by hand")
	os.Exit(3)
}
