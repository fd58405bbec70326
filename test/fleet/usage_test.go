package fleet_test

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// offlineKubeconfig writes a kubeconfig whose contexts point at the given servers; no
// control plane is needed for what these tests check.
func offlineKubeconfig(t *testing.T, servers map[string]string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	for name, server := range servers {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: "t"}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// Fleet mode refuses, before any request, what it cannot honour: exit 3 and a message that
// says why.
func TestFleetRefusesContradictions(t *testing.T) {
	kc := "--kubeconfig=" + offlineKubeconfig(t, map[string]string{"prod-a": "https://127.0.0.1:1", "prod-legacy": "https://127.0.0.1:2"})
	for _, tc := range []struct {
		name string
		cmd  newCmd
		args []string
		want string
	}{
		{"one context and a selection", whyTerminating, []string{"--contexts=prod-.*", "--context=prod-a", "-A"}, "fleet mode refuses --context"},
		{"a token for every cluster", whyTerminating, []string{"--all-contexts", "--token=secret", "-A"}, "fleet mode refuses --token"},
		{"a server for every context", fluxChain, []string{"--all-contexts", "--server=https://127.0.0.1:3"}, "fleet mode refuses --server"},
		{"both selections", whyTerminating, []string{"--all-contexts", "--contexts=prod-a", "-A"}, "give one"},
		{"only exclusions", whyTerminating, []string{"--contexts=^prod-legacy", "-A"}, "has no inclusion"},
		{"a bad regexp", whyTerminating, []string{"--contexts=prod-(", "-A"}, "--contexts pattern"},
		{"no context matches", whyTerminating, []string{"--contexts=staging-.*", "-A"}, "selects none of the kubeconfig's 2 context(s)"},
		{"parallel without a selection", whyTerminating, []string{"--parallel=2", "-A"}, "add --contexts=PATTERN or --all-contexts"},
		{"parallel out of range", whyTerminating, []string{"--all-contexts", "--parallel=0", "-A"}, "--parallel=0"},
		{"no timeout", fluxChain, []string{"--all-contexts", "--context-timeout=0s"}, "--context-timeout"},
		{"an object", whyTerminating, []string{"--all-contexts", "pvc", "headlamp"}, "give no TYPE or NAME"},
		{"the repository lint", fluxChain, []string{"--all-contexts", "--repo=."}, "fleet mode runs the live chain only"},
		{"a graph", fluxChain, []string{"--all-contexts", "-o", "dot"}, "fleet mode prints text, json or yaml"},
		{"NAME with -A", fluxChain, []string{"--all-contexts", "-A", "apps"}, "needs its namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, tc.cmd, append([]string{kc}, tc.args...)...)
			if code != 3 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 3 and %q", code, stderr, tc.want)
			}
			if out != "" || strings.Contains(stderr, "# context") {
				t.Errorf("a refused run printed a result or connected:\n%s%s", out, stderr)
			}
			if strings.Contains(stderr, "secret") {
				t.Errorf("the token was echoed: %s", stderr)
			}
		})
	}
}

// A server that accepts connections and never answers is UNKNOWN (timed-out) after
// --context-timeout; the other contexts still get their answer, and the run does not hang.
func TestContextTimeout(t *testing.T) {
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	var (
		mu   sync.Mutex
		held []net.Conn
	)
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "https://" + closed.Addr().String()
	closed.Close()
	kc := offlineKubeconfig(t, map[string]string{"hung": "https://" + hung.Addr().String(), "down": closedURL})
	start := time.Now()
	out, stderr, code := run(t, whyTerminating, "--kubeconfig="+kc, "--all-contexts", "--context-timeout=2s", "-A", "-o", "json")
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("the run took %s with --context-timeout=2s", elapsed)
	}
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, stderr)
	}
	r := decode(t, out, json.Unmarshal)
	reasons := map[string]string{}
	for _, c := range r.Contexts {
		if c.Failure != nil {
			reasons[c.Context] = c.Failure.Reason
		}
	}
	if reasons["hung"] != "timed-out" || reasons["down"] != "unreachable" {
		t.Errorf("failure reasons %v, want hung timed-out and down unreachable\n%s", reasons, out)
	}
}

// A kubeconfig that cannot be read is bad input, not an empty fleet.
func TestFleetUnreadableKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte("clusters: [ {"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, whyTerminating, "--kubeconfig="+path, "--all-contexts", "-A")
	if code != 3 || !strings.Contains(stderr, "loading kubeconfig") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// A context whose kubeconfig entry does not load (its cluster is not defined) is that
// context's UNKNOWN (refused), not a failure of the run; the other contexts still answer.
func TestBrokenContextEntry(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "https://" + closed.Addr().String()
	closed.Close()
	path := offlineKubeconfig(t, map[string]string{"down": closedURL})
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contexts["broken"] = &clientcmdapi.Context{Cluster: "nowhere", AuthInfo: "down"}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, fluxChain, "--kubeconfig="+path, "--all-contexts", "-o", "json")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, stderr)
	}
	r := decode(t, out, json.Unmarshal)
	if len(r.Contexts) != 2 || r.Contexts[0].Context != "broken" || r.Contexts[0].Failure == nil || r.Contexts[0].Failure.Reason != "refused" ||
		r.Contexts[1].Failure == nil || r.Contexts[1].Failure.Reason != "unreachable" {
		t.Errorf("contexts: %s", out)
	}
}
