package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Options configures Start. The zero value starts etcd and kube-apiserver only.
type Options struct {
	// ControllerManager also starts kube-controller-manager once the apiserver is ready.
	ControllerManager bool
	// Controllers is the --controllers value for kube-controller-manager; default "*".
	Controllers string
	// ContextName names the kubeconfig context (and cluster); default "kubeforensics-local".
	ContextName string
	// WorkDir holds data, keys, logs and the kubeconfig; default a new temporary directory,
	// which Stop removes. A given WorkDir is created if missing and never removed; Start
	// empties its etcd and certs subdirectories and appends to its logs.
	WorkDir string
	// Log, if set, receives a copy of every process's output; each process always logs to
	// <WorkDir>/<name>.log as well.
	Log io.Writer
	// StartTimeout bounds how long Start waits for each component; default 90s.
	StartTimeout time.Duration
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Controllers == "" {
		o.Controllers = "*"
	}
	if o.ContextName == "" {
		o.ContextName = "kubeforensics-local"
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 90 * time.Second
	}
	return o
}

// Env is a running local control plane. Its exported fields are set by Start and must not
// be changed.
type Env struct {
	// Kubeconfig is the path of a kubeconfig whose current context is Context.
	Kubeconfig string
	// Context is the kubeconfig context name (Options.ContextName).
	Context string
	// Server is the apiserver URL, https://127.0.0.1:<port>.
	Server string
	// RESTConfig authenticates as an admin in group system:masters.
	RESTConfig *rest.Config
	// KubectlPath is the kubectl binary built with the control plane.
	KubectlPath string
	// WorkDir holds data, keys, logs (<name>.log) and the kubeconfig.
	WorkDir string
	// BinDir is the directory the control-plane binaries were run from.
	BinDir string

	opts        Options
	ownsWorkDir bool
	saKeyFile   string
	mu          sync.Mutex
	procs       []*process // in start order; Stop ends them in reverse
	stopped     bool
	stopErr     error
	kcm         *process // kube-controller-manager, once started
}

// startAttempts is how many times Start tries when a port it picked was taken meanwhile.
const startAttempts = 3

// Start starts etcd and kube-apiserver (and kube-controller-manager if
// opts.ControllerManager) on free 127.0.0.1 ports and waits until they serve. The cluster is
// always empty: etcd data and certificates from an earlier run in the same WorkDir are
// removed. On failure everything already started is stopped and the error carries the tail
// of the failing log. If another process grabbed a chosen port first, Start tries again.
func Start(ctx context.Context, opts Options) (*Env, error) {
	opts = opts.withDefaults()
	binDir, err := BinDir()
	if err != nil {
		return nil, fmt.Errorf("locate control-plane binaries: %w", err)
	}
	for attempt := 1; ; attempt++ {
		e := &Env{opts: opts, Context: opts.ContextName, BinDir: binDir, KubectlPath: filepath.Join(binDir, "kubectl")}
		if err := e.makeWorkDir(); err != nil {
			return nil, err
		}
		err := e.start(ctx)
		if err == nil {
			return e, nil
		}
		err = errors.Join(err, e.Stop())
		if attempt == startAttempts || !strings.Contains(err.Error(), "address already in use") {
			return nil, err
		}
	}
}

// makeWorkDir creates the work directory and its subdirectories, emptying those that hold
// cluster state.
func (e *Env) makeWorkDir() error {
	dir := e.opts.WorkDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "kubeforensics-testenv-")
		if err != nil {
			return fmt.Errorf("create work directory: %w", err)
		}
		dir, e.ownsWorkDir = tmp, true
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("resolve work directory %s: %w", dir, err)
	}
	e.WorkDir = abs
	for _, sub := range []string{"etcd", "certs"} {
		if err := os.RemoveAll(filepath.Join(abs, sub)); err != nil {
			return fmt.Errorf("clear %s: %w", filepath.Join(abs, sub), err)
		}
	}
	for _, sub := range []string{"", "etcd", "certs", "flexvolume"} {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o700); err != nil {
			return fmt.Errorf("create work directory %s: %w", filepath.Join(abs, sub), err)
		}
	}
	return nil
}

// start brings up etcd, the apiserver and, if asked, the controller manager.
func (e *Env) start(ctx context.Context) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdURL, err := e.startEtcd(ctx, ports[0], ports[1])
	if err != nil {
		return err
	}
	if err := e.startAPIServer(ctx, etcdURL, ports[2]); err != nil {
		return err
	}
	if e.opts.ControllerManager {
		return e.StartControllerManager(ctx)
	}
	return nil
}

// addProcess records p so that Stop ends it; it fails if the Env is already stopped.
func (e *Env) addProcess(p *process) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		_ = p.stop(time.Second)
		return fmt.Errorf("start %s: environment already stopped", p.name)
	}
	e.procs = append(e.procs, p)
	return nil
}

// Pids returns the process ids of the processes Start (and StartControllerManager)
// started, in start order, whether or not they are still running.
func (e *Env) Pids() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	pids := make([]int, 0, len(e.procs))
	for _, p := range e.procs {
		pids = append(pids, p.pid())
	}
	return pids
}

// Stop ends every process the Env started (SIGTERM to its process group, SIGKILL a few
// seconds later), waits for them, and removes WorkDir if Start created it. Calling Stop again
// returns the first call's result.
func (e *Env) Stop() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return e.stopErr
	}
	e.stopped = true
	var errs []error
	for i := len(e.procs) - 1; i >= 0; i-- {
		if err := e.procs[i].stop(5 * time.Second); err != nil {
			errs = append(errs, err)
		}
	}
	if e.ownsWorkDir && e.WorkDir != "" {
		if err := os.RemoveAll(e.WorkDir); err != nil {
			errs = append(errs, fmt.Errorf("remove work directory: %w", err))
		}
	}
	e.stopErr = errors.Join(errs...)
	return e.stopErr
}
