package testenv

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// controllerManagerArgs returns the kube-controller-manager command line.
func (e *Env) controllerManagerArgs() []string {
	return []string{
		"--kubeconfig=" + e.Kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers=" + e.opts.Controllers,
		"--service-account-private-key-file=" + e.saKeyFile,
		"--use-service-account-credentials=false",
		"--flex-volume-plugin-dir=" + filepath.Join(e.WorkDir, "flexvolume"),
	}
}

// StartControllerManager starts kube-controller-manager against the running apiserver and
// waits until its serviceaccount controller has created the "default" ServiceAccount in the
// "default" namespace. Start calls it when Options.ControllerManager is set; a test may call
// it later instead. It fails if the controller manager is already running. When
// Options.Controllers leaves out "serviceaccount-controller" (alias "serviceaccount") it
// only checks that the process stays up for two seconds.
func (e *Env) StartControllerManager(ctx context.Context) error {
	e.mu.Lock()
	running := e.kcm != nil && !e.kcm.exited()
	e.mu.Unlock()
	if running {
		return errors.New("start kube-controller-manager: already running")
	}
	if e.RESTConfig == nil {
		return errors.New("start kube-controller-manager: apiserver not started")
	}
	cs, err := kubernetes.NewForConfig(e.RESTConfig)
	if err != nil {
		return fmt.Errorf("start kube-controller-manager: create clientset: %w", err)
	}
	bin := filepath.Join(e.BinDir, "kube-controller-manager")
	p, err := startProcess("kube-controller-manager", bin, e.controllerManagerArgs(), e.WorkDir, e.opts.Log)
	if err != nil {
		return err
	}
	if err := e.addProcess(p); err != nil {
		return err
	}
	e.mu.Lock()
	e.kcm = p
	e.mu.Unlock()
	if !controllerEnabled(e.opts.Controllers, "serviceaccount-controller", "serviceaccount") {
		return e.waitFor(ctx, "kube-controller-manager to stay up", p, stayedUp(2*time.Second))
	}
	return e.waitFor(ctx, "kube-controller-manager (default ServiceAccount)", p, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, err
		}
		return err == nil, err
	})
}

// controllerEnabled reports whether the --controllers value list enables the controller
// known by any of names (its name and its short alias): named explicitly, or by "*" without
// a "-name".
func controllerEnabled(list string, names ...string) bool {
	items := strings.Split(list, ",")
	for i := range items {
		items[i] = strings.TrimSpace(items[i])
	}
	enabled := slices.Contains(items, "*")
	for _, name := range names {
		if slices.Contains(items, "-"+name) {
			return false
		}
		enabled = enabled || slices.Contains(items, name)
	}
	return enabled
}

// stayedUp returns a readiness check that passes once d has elapsed since its first call;
// waitFor fails meanwhile if the process exits.
func stayedUp(d time.Duration) func(context.Context) (bool, error) {
	var since time.Time
	return func(context.Context) (bool, error) {
		if since.IsZero() {
			since = time.Now()
		}
		return time.Since(since) >= d, nil
	}
}
