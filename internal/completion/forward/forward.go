// Package forward is the whole of a kubectl_complete-<plugin> executable. kubectl (1.26 and
// later) runs that executable, found on PATH, with the words typed after the plugin's name
// and expects cobra's __complete output; forward hands the words to the plugin's own hidden
// `__complete` command, so the completion logic lives once, in the plugin. It imports nothing
// beyond the standard library, which keeps the extra executable in each archive small.
package forward

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Main forwards os.Args to the plugin executable named plugin (e.g. "kubectl-why_terminating")
// and returns the exit code for os.Exit.
func Main(plugin string) int {
	return Run(plugin, os.Args[0], os.Args[1:], os.Stdout, os.Stderr)
}

// Run finds plugin beside self (the path this executable was started as, then its resolved
// location) or on PATH, runs it as `plugin __complete args...` and returns its exit code.
func Run(plugin, self string, args []string, stdout, stderr io.Writer) int {
	path, err := Find(plugin, self)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	cmd := exec.Command(path, append([]string{"__complete"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintf(stderr, "error: running %s: %v\n", path, err)
		return 1
	}
	return 0
}

// Find returns the plugin executable: beside self first, so a completion executable copied
// next to a plugin (as into krew's bin directory) completes that very plugin, then on PATH.
func Find(plugin, self string) (string, error) {
	name := plugin
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var dirs []string
	if filepath.IsAbs(self) || filepath.Base(self) != self {
		dirs = append(dirs, filepath.Dir(self))
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(plugin)
	if err != nil {
		return "", fmt.Errorf("%s is neither beside this completion executable nor on PATH: %w", plugin, err)
	}
	return p, nil
}
