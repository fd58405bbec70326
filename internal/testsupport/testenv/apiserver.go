package testenv

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// pollInterval is how often Start checks whether a component is ready.
const pollInterval = 200 * time.Millisecond

// waitFor polls ready until it returns true, p exits, or the start timeout (or ctx) ends.
// The error names what was awaited and includes the last check error and p's log tail.
func (e *Env) waitFor(ctx context.Context, what string, p *process, ready func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, e.opts.StartTimeout)
	defer cancel()
	var lastErr error
	for {
		if p.exited() {
			return fmt.Errorf("wait for %s: %w", what, p.exitError())
		}
		ok, err := ready(ctx)
		if ok {
			return nil
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w (last check: %v); last lines of %s:\n%s",
				what, ctx.Err(), lastErr, p.logPath, p.logTail(40))
		case <-time.After(pollInterval):
		}
	}
}

// startEtcd starts a single-member etcd and waits until /health answers; it returns the
// client URL.
func (e *Env) startEtcd(ctx context.Context, clientPort, peerPort int) (string, error) {
	clientURL := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	args := []string{
		"--name=default",
		"--data-dir=" + filepath.Join(e.WorkDir, "etcd"),
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=default=" + peerURL,
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
	p, err := startProcess("etcd", filepath.Join(e.BinDir, "etcd"), args, e.WorkDir, e.opts.Log)
	if err != nil {
		return "", err
	}
	if err := e.addProcess(p); err != nil {
		return "", err
	}
	client := &http.Client{Timeout: 2 * time.Second}
	err = e.waitFor(ctx, "etcd health", p, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientURL+"/health", nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Errorf("etcd /health: %s", resp.Status)
		}
		return true, nil
	})
	return clientURL, err
}

// apiServerArgs returns the kube-apiserver command line.
func (e *Env) apiServerArgs(etcdURL string, port int, tokenFile, saPub string) []string {
	return []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none",
		"--etcd-servers=" + etcdURL,
		"--cert-dir=" + filepath.Join(e.WorkDir, "certs"),
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + saPub,
		"--service-account-signing-key-file=" + e.saKeyFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
	}
}

// startAPIServer writes the keys and token file, starts kube-apiserver, writes the
// kubeconfig once the serving certificate exists, and waits for /readyz.
func (e *Env) startAPIServer(ctx context.Context, etcdURL string, port int) error {
	saKey, saPub, err := writeServiceAccountKeys(e.WorkDir)
	if err != nil {
		return err
	}
	e.saKeyFile = saKey
	tokenFile, token, err := writeTokenFile(e.WorkDir)
	if err != nil {
		return err
	}
	args := e.apiServerArgs(etcdURL, port, tokenFile, saPub)
	p, err := startProcess("kube-apiserver", filepath.Join(e.BinDir, "kube-apiserver"), args, e.WorkDir, e.opts.Log)
	if err != nil {
		return err
	}
	if err := e.addProcess(p); err != nil {
		return err
	}
	var caData []byte
	err = e.waitFor(ctx, "kube-apiserver serving certificate", p, func(context.Context) (bool, error) {
		data, readErr := readServingCA(filepath.Join(e.WorkDir, "certs"))
		caData = data
		return readErr == nil, readErr
	})
	if err != nil {
		return err
	}
	e.Server = "https://127.0.0.1:" + strconv.Itoa(port)
	e.Kubeconfig = filepath.Join(e.WorkDir, "kubeconfig")
	if err := writeKubeconfig(e.Kubeconfig, e.Context, e.Server, caData, token); err != nil {
		return err
	}
	if e.RESTConfig, err = clientcmd.BuildConfigFromFlags("", e.Kubeconfig); err != nil {
		return fmt.Errorf("load kubeconfig %s: %w", e.Kubeconfig, err)
	}
	e.RESTConfig.QPS, e.RESTConfig.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(e.RESTConfig)
	if err != nil {
		return fmt.Errorf("create clientset: %w", err)
	}
	return e.waitFor(ctx, "kube-apiserver /readyz", p, func(ctx context.Context) (bool, error) {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return false, fmt.Errorf("%w: %s", err, body)
		}
		return true, nil
	})
}
