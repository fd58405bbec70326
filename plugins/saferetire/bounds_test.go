package saferetire_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/charttest"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// peakBudget is what a whole gate run may hold in memory, whatever its charts do.
const peakBudget = 512 << 20

// hostileCharts are charts a fork's pull request can keep in the repository, each of whose
// templates would take gigabytes: a huge `repeat`, an `until` over a huge count, and
// templates that double through nested `include`s.
func hostileCharts() map[string]string {
	doubling := "{{- define \"d0\" }}" + strings.Repeat("x", 1024) + "{{ end }}\n"
	for i := 1; i <= 24; i++ {
		doubling += fmt.Sprintf("{{- define \"d%d\" }}{{ include \"d%d\" . }}{{ include \"d%d\" . }}{{ end }}\n", i, i-1, i-1)
	}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  x: %s\n"
	return map[string]string{
		"repeat":  fmt.Sprintf(cm, `{{ repeat 400000000 "x" | quote }}`),
		"until":   fmt.Sprintf(cm, `"{{ range until 100000000 }}x{{ end }}"`),
		"doubler": doubling + fmt.Sprintf(cm, `{{ include "d24" . | quote }}`),
	}
}

// fromRepository points a HelmRelease at a chart directory of the repository itself.
func fromRepository(hr, chart string) string {
	return strings.Replace(strings.Replace(hr, "chart: app-template", "chart: ./charts/"+chart, 1),
		"      version: 4.4.0\n      sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}",
		"      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}", 1)
}

// A chart kept in the repository is input: the offline gate, run as the built plugin, removes
// three HelmReleases whose charts are hostile and one whose chart is app-template. Each hostile
// release is UNKNOWN naming its chart and the memory bound that stopped its render; the
// app-template release is still rendered and its claim found; and the whole run, the plugin
// and the render processes it starts, peaks under 512 MiB.
func TestHostileChartsBounded(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("builds the plugin; memory is bounded on Linux")
	}
	files := map[string]string{
		"clusters/prod/apps.yaml":        fluxKS("flux-system", "apps", "./k8s/apps", true),
		"k8s/apps/settings.yaml":         configMap("media", "settings"),
		"charts/app-template/Chart.yaml": "apiVersion: v2\nname: app-template\nversion: 4.4.0\n",
		"k8s/apps/paperless.yaml":        fromRepository(appTemplateRelease("media", "paperless", "    persistence:\n      data:\n        size: 5Gi\n"), "app-template"),
	}
	for name, content := range charttest.AppTemplate("4.4.0").Files {
		files["charts/app-template/"+name] = content
	}
	gone := map[string]string{"k8s/apps/paperless.yaml": ""}
	for name, tmpl := range hostileCharts() {
		files["charts/"+name+"/Chart.yaml"] = "apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n"
		files["charts/"+name+"/templates/cm.yaml"] = tmpl
		files["k8s/apps/"+name+".yaml"] = fromRepository(appTemplateRelease("media", name, ""), name)
		gone["k8s/apps/"+name+".yaml"] = ""
	}
	r := gittest.New(t, files)
	r.Commit("retire the apps", gone)
	// Renders run in the plugin started again, in the render worker installed beside it, or,
	// when the worker beside it is of another build (another release's), in the plugin again,
	// which says so.
	stale := []string{"-ldflags", "-X github.com/kubeforensics/suite/internal/version.version=v0.0.1", "../../cmd/kubeforensics-helmrender"}
	for _, tc := range []struct {
		name   string
		builds [][]string
		note   bool
	}{
		{"kubectl-safe_retire", [][]string{{"../../cmd/kubectl-safe_retire"}}, false},
		{"kubeforensics-helmrender", [][]string{{"../../cmd/kubectl-safe_retire", "../../cmd/kubeforensics-helmrender"}}, false},
		{"another release's worker", [][]string{{"../../cmd/kubectl-safe_retire"}, stale}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, args := range tc.builds {
				if out, err := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("building the plugin: %v\n%s", err, out)
				}
			}
			errOut := hostileRun(t, filepath.Join(dir, "kubectl-safe_retire"), r.Dir)
			if said := strings.Contains(errOut, "is not used") && strings.Contains(errOut, `"v0.0.1@`); said != tc.note {
				t.Errorf("said the worker beside it is not used: %v, want %v\n%s", said, tc.note, errOut)
			}
		})
	}
}

// hostileRun runs the offline gate of bin on TestHostileChartsBounded's repository dir, and
// returns its standard error.
func hostileRun(t *testing.T, bin, dir string) string {
	cmd := exec.Command(bin, "--dry-run", "--offline", "--repo", dir, "--base", "HEAD~1", "--candidate", "HEAD")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "TZ=UTC")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	// The peak RSS of the plugin and of every render process it waited for, in KiB.
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("peak RSS %d MiB, exit %d", peak>>20, cmd.ProcessState.ExitCode())
	if peak > peakBudget {
		t.Errorf("the run peaked at %d MiB, more than %d MiB", peak>>20, peakBudget>>20)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 && code != 2 {
		t.Fatalf("exit %d, want a finding or UNKNOWN\n%s\n%s", code, out.String(), errOut.String())
	}
	contains(t, out.String(), "UNSAFE HelmRelease media/paperless", "deletes PersistentVolumeClaim media/paperless-data")
	for name := range hostileCharts() {
		contains(t, out.String(), "rendering release media/"+name+" (chart "+name+" 1.0.0): stopped by its memory bound")
	}
	if strings.Contains(out.String(), "── SAFE HelmRelease") {
		t.Errorf("a hostile release was judged SAFE\n%s", out.String())
	}
	return errOut.String()
}
