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

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
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
	k := func(args ...string) { kubectl(path, args...) }
	// on names the cluster the way every command the demo shows (and every command the plugins
	// print) does: the kubeconfig file and the context, both explicit, after the verb or plugin.
	conn := []string{"--kubeconfig=" + env.Kubeconfig, "--context=" + env.Context}
	on := func(verb string, args ...string) []string {
		return append(append([]string{verb}, conn...), args...)
	}

	caption("Which plugins does kubectl see?")
	k("plugin", "list")
	caption("Lesson 1: `kubectl get backup -A` silently picks one of three Backup kinds")
	k(on("get", "backup", "-A")...)
	caption("why-terminating refuses to guess, and counts what each Backup kind holds")
	k(on("why-terminating", "backup", "-A")...)
	caption("Deploys are failing. Which Flux tier is the root cause, and what does it wait on?")
	k(on("flux-chain", "-n", incident.FluxNS)...)
	caption("The claim the apps health check waits on: what holds it in Terminating, and the safe fix")
	k(on("why-terminating", "pvc", incident.Claim, "-n", incident.Namespace)...)
	if err := retireDemo(k, on); err != nil {
		return err
	}
	caption("Everything Terminating in the cluster, as JSON for a script (first lines)")
	kubectlHead(path, 12, on("why-terminating", "-A", "-o", "json")...)
	writePicture(path, on("flux-chain", "-n", incident.FluxNS, "-o", "dot"))
	return nil
}

func caption(s string) { fmt.Printf("\n\033[1m==> %s\033[0m\n", s) }

// kubectl runs the real kubectl with our plugins on PATH, and shows the command line, quoted
// as the plugins quote theirs, and its exit code.
func kubectl(path string, args ...string) {
	fmt.Printf("$ %s\n", cluster.Quote(append([]string{"kubectl"}, args...)...))
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "PATH="+path)
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

func kubectlHead(path string, n int, args ...string) {
	fmt.Printf("$ %s | head -%d\n", cluster.Quote(append([]string{"kubectl"}, args...)...), n)
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, _ := cmd.Output()
	lines := strings.SplitN(string(out), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	fmt.Println(strings.Join(lines, "\n"))
}

// writePicture renders the chain as Graphviz when flux-chain and dot are available.
func writePicture(path string, args []string) {
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "PATH="+path)
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
func retireDemo(k func(args ...string), on func(string, ...string) []string) error {
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
	k(on("safe-retire", "--dry-run", "--repo", repo, "--base", "HEAD")...)
	return nil
}
