package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// fluxCommand runs the real Flux CLI with pluginDir as its plugin directory and the
// snapshot's catalog, served by the test's HTTP server, as its catalog.
func fluxCommand(pluginDir string, args ...string) *exec.Cmd {
	cmd := command("", nil, s.flux, args...)
	cmd.Env = append(cmd.Env, "FLUXCD_PLUGINS="+pluginDir, "FLUXCD_PLUGIN_CATALOG="+s.catalog)
	return cmd
}

// fluxInstall installs every plugin with `flux plugin install` into a fresh plugin directory
// and returns it.
func fluxInstall(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range cli.Plugins {
		run(t, fluxCommand(dir, "plugin", "install", p.Flux))
	}
	return dir
}

// outcome is what one run printed and how it exited.
type outcome struct {
	out, errOut string
	code        int
}

// exit runs cmd and returns its outcome; only a failure to start it fails the test.
func exit(t *testing.T, cmd *exec.Cmd) outcome {
	t.Helper()
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	return outcome{reportTime.ReplaceAllString(out.String(), `"timestamp": "TIME"`), errOut.String(), cmd.ProcessState.ExitCode()}
}

// reportTime is a JSON report's timestamp, to the second: two runs of one report a moment
// apart may fall on either side of a second.
var reportTime = regexp.MustCompile(`"timestamp": "[0-9T:Z-]+"`)

// TestFluxPluginInstall installs the three plugins from the snapshot's catalog with the real
// `flux plugin install` and checks that flux lists and runs them under their Flux names.
func TestFluxPluginInstall(t *testing.T) {
	dir := fluxInstall(t)
	list := run(t, fluxCommand(dir, "plugin", "list"))
	for _, p := range cli.Plugins {
		t.Run(p.Flux, func(t *testing.T) {
			if fi, err := os.Stat(filepath.Join(dir, p.FluxBinary())); err != nil || fi.Mode().Perm()&0o100 == 0 {
				t.Fatalf("flux plugin install left no executable %s: %v", p.FluxBinary(), err)
			}
			if !strings.Contains(list, p.Flux) || !strings.Contains(list, strings.TrimPrefix(s.version, "v")) {
				t.Errorf("flux plugin list lacks %s %s:\n%s", p.Flux, s.version, list)
			}
			help := run(t, fluxCommand(dir, p.Flux, "--help"))
			if !strings.Contains(help, "Usage:\n  flux "+p.Flux+" ") || strings.Contains(help, "kubectl "+p.Kubectl) {
				t.Errorf("flux %s --help does not say flux %s throughout:\n%s", p.Flux, p.Flux, help)
			}
			want := "flux " + p.Flux + " version " + s.version + " ("
			if v := run(t, fluxCommand(dir, p.Flux, "--version")); !strings.HasPrefix(v, want) {
				t.Errorf("flux %s --version = %q, want it to start with %q", p.Flux, v, want)
			}
		})
	}
}

// TestFluxChainOnTheIncident runs `flux chain` on the seeded chain: apps fails its health
// check and freezes the tiers that wait on it.
func TestFluxChainOnTheIncident(t *testing.T) {
	dir := fluxInstall(t)
	got := exit(t, fluxCommand(dir, "chain", "-n", "flux-system", "--context", "e2e"))
	if got.code != 1 {
		t.Fatalf("flux chain: exit %d, want 1 (a finding)\n%s\n%s", got.code, got.out, got.errOut)
	}
	for _, want := range []string{
		"ROOT CAUSES (1)",
		"HealthCheckFailed kustomizations.kustomize.toolkit.fluxcd.io/apps -n flux-system",
		"blast radius: 2 Kustomization(s) frozen",
		"flux-system/apps-wave-1 Waiting",
	} {
		if !strings.Contains(got.out, want) {
			t.Errorf("flux chain output lacks %q:\n%s", want, got.out)
		}
	}
	if !strings.HasPrefix(got.errOut, "# ") || !strings.Contains(got.errOut, "e2e") {
		t.Errorf("stderr does not name the cluster:\n%s", got.errOut)
	}
}

// TestFluxFormsMatchKubectl runs each plugin through flux and through kubectl (installed by
// krew from the same archives) with the same arguments: same output, same exit code.
func TestFluxFormsMatchKubectl(t *testing.T) {
	fluxDir := fluxInstall(t)
	krewRoot := t.TempDir()
	for _, p := range plugins {
		install(t, krewRoot, p)
	}
	repo := t.TempDir()
	if err := incident.InitRepo(repo); err != nil {
		t.Fatal(err)
	}
	if err := incident.WriteFiles(repo, incident.ClaimRemoval()); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, kubectl, flux string
		args                []string
	}{
		{"chain", "flux-chain", "chain", []string{"-n", "flux-system", "--context", "e2e"}},
		{"chain as json", "flux-chain", "chain", []string{"-A", "--context", "e2e", "-o", "json"}},
		{"why-terminating a claim", "why-terminating", "why-terminating", []string{"--context", "e2e", "pvc", "headlamp", "-n", "headlamp"}},
		{"why-terminating everywhere", "why-terminating", "why-terminating", []string{"--context", "e2e", "-A"}},
		{"why-terminating an unknown kind", "why-terminating", "why-terminating", []string{"--context", "e2e", "nosuchkind", "x"}},
		{"safe-retire offline", "safe-retire", "safe-retire", []string{"--dry-run", "--offline", "--repo", repo, "--base", "HEAD"}},
		{"safe-retire live", "safe-retire", "safe-retire", []string{"--dry-run", "--context", "e2e", "--repo", repo, "--base", "HEAD"}},
	}
	kubectl := filepath.Join(s.pathDir, "kubectl")
	bin := []string{filepath.Join(krewRoot, "bin")}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := exit(t, command(krewRoot, bin, kubectl, append([]string{tc.kubectl}, tc.args...)...))
			got := exit(t, fluxCommand(fluxDir, append([]string{tc.flux}, tc.args...)...))
			if got != want {
				t.Fatalf("flux %s vs kubectl %s %s:\nexit %d vs %d\nstdout:\n%s\nvs\n%s\nstderr:\n%s\nvs\n%s",
					tc.flux, tc.kubectl, strings.Join(tc.args, " "), got.code, want.code, got.out, want.out, got.errOut, want.errOut)
			}
			t.Logf("exit %d, %d bytes of output", got.code, len(got.out))
		})
	}
}

// TestCompletionThroughFlux asks the real flux to complete a plugin's arguments: flux runs
// `flux-<name> __complete ...` and passes the candidates on.
func TestCompletionThroughFlux(t *testing.T) {
	dir := fluxInstall(t)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"Kustomizations in flux-system", []string{"chain", "apps"}, []string{"apps", "apps-wave-1"}},
		{"contexts", []string{"chain", "--context", ""}, []string{"e2e"}},
		{"resource types", []string{"why-terminating", "persistentvolumec"}, []string{"persistentvolumeclaims"}},
		{"object names", []string{"why-terminating", "-n", "headlamp", "pvc", ""}, []string{"headlamp"}},
		{"namespaces", []string{"why-terminating", "-n", "head"}, []string{"headlamp"}},
		{"output formats", []string{"safe-retire", "-o", ""}, []string{"text", "json"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := run(t, fluxCommand(dir, append([]string{"__complete"}, tc.args...)...))
			got := completions(out)
			for _, w := range tc.want {
				if !contains(got, w) {
					t.Fatalf("flux __complete %s: %q lacks %q\n%s", strings.Join(tc.args, " "), got, w, out)
				}
			}
			if !strings.Contains(out, "\n:4\n") && !strings.HasSuffix(strings.TrimSpace(out), ":4") {
				t.Errorf("want directive :4 (no file completion):\n%s", out)
			}
		})
	}
}
