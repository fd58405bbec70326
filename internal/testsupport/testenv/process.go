package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is one child of the control plane, in its own process group, whose output goes to
// a log file (and to an optional extra writer).
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	done    chan struct{} // closed once the process has been waited for
	waitErr error         // the result of cmd.Wait, valid after done is closed
}

// startProcess starts bin with args, logging to <logDir>/<name>.log and to extra if non-nil.
// The child gets its own process group and is killed if the thread that started it dies.
func startProcess(name, bin string, args []string, logDir string, extra io.Writer) (*process, error) {
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if extra != nil {
		w := io.MultiWriter(logFile, extra)
		cmd.Stdout, cmd.Stderr = w, w
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, logFile: logFile, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// pid returns the process id (also its process group id).
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes how an exited process ended, with the tail of its log.
func (p *process) exitError() error {
	return fmt.Errorf("%s exited early (%v); last lines of %s:\n%s", p.name, p.waitErr, p.logPath, p.logTail(40))
}

// stop sends SIGTERM to the process group, then SIGKILL after grace, and waits for the exit.
// An exit caused by those signals is not an error.
func (p *process) stop(grace time.Duration) error {
	if p.exited() {
		return nil
	}
	if err := syscall.Kill(-p.pid(), syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %s (pid %d): %w", p.name, p.pid(), err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := syscall.Kill(-p.pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill %s (pid %d): %w", p.name, p.pid(), err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("kill %s (pid %d): still running 10s after SIGKILL", p.name, p.pid())
	}
}

// logTail returns the last n lines of the process log, or a note that it could not be read.
func (p *process) logTail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	lines := strings.Split(string(bytes.TrimRight(data, "\n")), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
