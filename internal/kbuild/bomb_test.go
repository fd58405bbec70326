package kbuild

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	yaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// billionLaughs is the YAML alias bomb (https://en.wikipedia.org/wiki/Billion_laughs_attack,
// as reported against YAML parsers in https://github.com/go-yaml/yaml/pull/375): 9 levels of
// 9 aliases of the level below, 9^10 strings once expanded, a few hundred bytes as written.
func billionLaughs(indent string) string { return laughs(indent, 10) }

// laughs is billionLaughs with levels levels: 9^levels strings once expanded.
func laughs(indent string, levels int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n", indent)
	for i := 1; i < levels; i++ {
		p := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "%sl%d: &l%d [%s]\n", indent, i, i, strings.Repeat(p+", ", 8)+p)
	}
	return b.String()
}

// bombRSSLimit is what the process may reach while a bomb is refused: a few hundred MB.
const bombRSSLimit = 400 << 20

// A YAML alias bomb in a repository file must fail its build with a clear error while the
// process stays small. The build runs in a child process whose resident memory is watched:
// past bombRSSLimit (or a minute) it is killed and the test fails, so the machine never feels
// the bomb.
func TestAliasBombIsRefused(t *testing.T) {
	cases := map[string]map[string]string{
		"in a resource": {
			"apps/kustomization.yaml": "resources:\n- bomb.yaml\n",
			"apps/bomb.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  namespace: apps\nspec:\n" + billionLaughs("  "),
		},
		"in the kustomization": {
			"apps/kustomization.yaml": "resources: []\nx-bomb:\n" + billionLaughs("  "),
		},
		"in a generated kustomization's directory": {
			"apps/bomb.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  namespace: apps\nspec:\n" + billionLaughs("  "),
		},
	}
	// 9^5 strings: within the limit.
	moderate := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: apps\nspec:\n" + laughs("  ", 5)
	cases["moderate aliases build"] = map[string]string{"apps/shared.yaml": moderate}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if err := incident.WriteFiles(root, files); err != nil {
				t.Fatal(err)
			}
			out, peak := runWatched(t, "TestBombChild", map[string]string{"KF_BOMB_ROOT": root})
			if peak > bombRSSLimit {
				t.Fatalf("peak RSS %d MB, above %d MB", peak>>20, bombRSSLimit>>20)
			}
			if name == "moderate aliases build" {
				if !strings.Contains(out, "BUILT 1 objects") {
					t.Fatalf("want the build to succeed, child said:\n%s", out)
				}
				return
			}
			if !strings.Contains(out, "BUILD ERROR:") || !strings.Contains(out, "alias") {
				t.Fatalf("want the build to fail naming the aliases, child said:\n%s", out)
			}
			t.Logf("peak RSS %d MB; %s", peak>>20, strings.TrimSpace(out))
		})
	}
}

// fromNode bounds alias expansion itself, for a node that did not come through kustomize's
// reader (which expands aliases, within boundedFS's limits, before fromNode sees them).
// 9^6 strings are past the limit, yet small enough not to hurt should the bound be lost.
func TestFromNodeBoundsAliases(t *testing.T) {
	var doc yaml.Node
	if err := yaml.NewDecoder(strings.NewReader(laughs("", 6))).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if _, err := fromNode(&doc); err == nil || !strings.Contains(err.Error(), "aliases") {
		t.Fatalf("fromNode(billion laughs) = %v, want an error about aliases", err)
	}
}

// TestBombChild is the child process of TestAliasBombIsRefused.
func TestBombChild(t *testing.T) {
	root := os.Getenv("KF_BOMB_ROOT")
	if root == "" {
		t.Skip("child process of TestAliasBombIsRefused")
	}
	res := Build(context.Background(), root, Kustomization{Path: "apps"}, Options{})
	if res.Err != nil {
		fmt.Printf("BUILD ERROR: %v\n", res.Err)
		return
	}
	fmt.Printf("BUILT %d objects\n", len(res.Objects))
}

// runWatched runs this test binary's test named child with env, polling its resident memory;
// it kills the child past twice bombRSSLimit or after a minute, and returns its output and
// the peak resident memory seen (VmHWM).
func runWatched(t *testing.T, child string, env map[string]string) (string, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.count=1")
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	deadline := time.After(time.Minute)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return out.String(), peak
		case <-deadline:
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("child still running after a minute (peak RSS %d MB)\n%s", peak>>20, out.String())
		case <-tick.C:
			if hwm := statusKB(cmd.Process.Pid, "VmHWM"); hwm > peak {
				peak = hwm
			}
			if peak > 2*bombRSSLimit {
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("child killed at %d MB resident", peak>>20)
			}
		}
	}
}

// statusKB reads a memory field of /proc/PID/status, in bytes; 0 when it cannot.
func statusKB(pid int, field string) int64 {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
