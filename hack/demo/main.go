// Command demo replays the incident on a local control plane and runs the plugins against it
// through the real kubectl, the way an operator would: `make demo`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubeforensics/suite/internal/incident"
	"github.com/kubeforensics/suite/internal/testenv"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin, err := filepath.Abs("bin")
	if err != nil {
		return err
	}
	caption("Starting a local control plane (etcd, kube-apiserver, kube-controller-manager) on 127.0.0.1")
	caption("Seeding the incident: the headlamp claim mounted by its pod, pruned, held by pvc-protection")
	replay, err := incident.StartReplay(ctx, testenv.Options{ContextName: "admin@demo"})
	if err != nil {
		return err
	}
	env := replay.Env
	defer func() {
		caption("Tearing the control plane down")
		_ = replay.Stop()
	}()
	path := bin + string(os.PathListSeparator) + filepath.Dir(env.KubectlPath) + string(os.PathListSeparator) + os.Getenv("PATH")
	k := func(args ...string) { kubectl(env, path, args...) }
	ctxFlag := "--context=" + env.Context

	caption("Which plugins does kubectl see?")
	k("plugin", "list")
	caption("Lesson 1: `kubectl get backup -A` silently picks one of three Backup kinds")
	k(ctxFlag, "get", "backup", "-A")
	caption("why-terminating refuses to guess, and counts what each Backup kind holds")
	k("why-terminating", ctxFlag, "backup", "-A")
	caption("Deploys are failing. Which Flux tier is the root cause, and what does it wait on?")
	k("flux-chain", ctxFlag, "-n", incident.FluxNS)
	caption("The claim the apps health check waits on: what holds it in Terminating, and the safe fix")
	k("why-terminating", ctxFlag, "pvc", incident.Claim, "-n", incident.Namespace)
	if err := retireDemo(k, ctxFlag); err != nil {
		return err
	}
	caption("Everything Terminating in the cluster, as JSON for a script (first lines)")
	kubectlHead(env, path, 12, "why-terminating", ctxFlag, "-A", "-o", "json")
	writePicture(env, path, ctxFlag)
	return nil
}

func caption(s string) { fmt.Printf("\n\033[1m==> %s\033[0m\n", s) }

// kubectl runs the real kubectl with the demo kubeconfig and our plugins on PATH, and shows
// the command line and its exit code.
func kubectl(env *testenv.Env, path string, args ...string) {
	fmt.Printf("$ kubectl %s\n", strings.Join(args, " "))
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "PATH="+path, "KUBECONFIG="+env.Kubeconfig)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		fmt.Printf("(could not run: %v)\n", err)
		return
	}
	fmt.Printf("(exit %d)\n", code)
}

func kubectlHead(env *testenv.Env, path string, n int, args ...string) {
	fmt.Printf("$ kubectl %s | head -%d\n", strings.Join(args, " "), n)
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "PATH="+path, "KUBECONFIG="+env.Kubeconfig)
	out, _ := cmd.Output()
	lines := strings.SplitN(string(out), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	fmt.Println(strings.Join(lines, "\n"))
}

// writePicture renders the chain as Graphviz when flux-chain and dot are available.
func writePicture(env *testenv.Env, path, ctxFlag string) {
	cmd := exec.Command("kubectl", "flux-chain", ctxFlag, "-n", incident.FluxNS, "-o", "dot")
	cmd.Env = append(os.Environ(), "PATH="+path, "KUBECONFIG="+env.Kubeconfig)
	out, err := cmd.Output()
	if len(out) == 0 {
		fmt.Printf("(no chain picture: %v)\n", err)
		return
	}
	if err := os.WriteFile("bin/seed-chain.dot", out, 0o644); err != nil {
		return
	}
	caption("The chain as a picture: bin/seed-chain.dot")
	if _, err := exec.LookPath("dot"); err != nil {
		fmt.Println("(install graphviz to render it: apt-get install -y graphviz)")
		return
	}
	if err := exec.Command("dot", "-Tsvg", "-o", "bin/seed-chain.svg", "bin/seed-chain.dot").Run(); err == nil {
		fmt.Println("rendered bin/seed-chain.svg")
	}
}

// retireDemo replays #2741 in a GitOps repository checkout: the claim's manifest is deleted in
// the working tree, and safe-retire gates the change against the live cluster.
func retireDemo(k func(args ...string), ctxFlag string) error {
	repo, err := os.MkdirTemp("", "kubeforensics-gitops-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(repo)
	if err := incident.InitRepo(repo); err != nil {
		return err
	}
	if err := incident.WriteFiles(repo, incident.ClaimRemoval()); err != nil {
		return err
	}
	caption("Before the next removal merges: the PR deletes " + incident.ClaimFile + "; is that safe?")
	k("safe-retire", ctxFlag, "--dry-run", "--repo", repo, "--base", "HEAD")
	return nil
}
