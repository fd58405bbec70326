package actioninstall

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// targz is a release archive holding files (name: content), each executable.
func targz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The install step puts the render worker beside each plugin whose archive holds it (the
// plugin looks for it there), and installs a plugin whose archive holds none without it.
func TestInstallPutsTheWorkerBesideThePlugin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs the action's bash script with tar archives")
	}
	for _, tool := range []string{"bash", "curl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s: %v", tool, err)
		}
	}
	const version = "1.2.3"
	plat := runtime.GOOS + "_" + runtime.GOARCH
	archives := map[string][]byte{
		"flux-safe-retire_" + version + "_" + plat + ".tar.gz": targz(t, map[string]string{
			"flux-safe-retire": "#!/bin/sh\necho safe-retire\n", "kubectl_complete-safe_retire": "#!/bin/sh\n",
			"kubeforensics-helmrender": "#!/bin/sh\necho worker\n", "LICENSE": "license\n"}),
		"flux-why-terminating_" + version + "_" + plat + ".tar.gz": targz(t, map[string]string{
			"flux-why-terminating": "#!/bin/sh\necho why\n", "LICENSE": "license\n"}),
	}
	var sums strings.Builder
	for name, b := range archives {
		s := sha256.Sum256(b)
		sums.WriteString(hex.EncodeToString(s[:]) + "  " + name + "\n")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/v"+version+"/")
		switch b, ok := archives[name]; {
		case name == "checksums.txt":
			_, _ = w.Write([]byte(sums.String()))
		case ok:
			_, _ = w.Write(b)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	tmp := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "action", "install.sh"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "KF_VERSION=v" + version, "KF_PLUGINS=safe-retire why-terminating",
		"KF_RELEASE_URL=" + srv.URL, "RUNNER_TEMP=" + tmp, "GITHUB_PATH=" + filepath.Join(tmp, "path")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	bin := filepath.Join(tmp, "kubeforensics", "bin")
	for _, want := range []string{"flux-safe-retire", "kubectl-safe_retire", "kubeforensics-helmrender", "flux-why-terminating", "kubectl-why_terminating"} {
		fi, err := os.Stat(filepath.Join(bin, want))
		if err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s not installed as an executable (%v)\n%s", want, err, out)
		}
	}
	// kubectl-safe_retire's real file is flux-safe-retire in bin, so the worker is beside it.
	real, err := filepath.EvalSymlinks(filepath.Join(bin, "kubectl-safe_retire"))
	if err != nil || filepath.Dir(real) != bin {
		t.Errorf("kubectl-safe_retire resolves to %q (%v), not into %s", real, err, bin)
	}
	if got, err := os.ReadFile(filepath.Join(bin, "kubeforensics-helmrender")); err != nil || string(got) != "#!/bin/sh\necho worker\n" {
		t.Errorf("the worker installed is %q (%v)", got, err)
	}
	if !strings.Contains(string(out), "installed kubeforensics-helmrender beside it") {
		t.Errorf("the install does not say it installed the worker:\n%s", out)
	}
	if strings.Count(string(out), "kubeforensics-helmrender") != 1 {
		t.Errorf("the worker said installed for an archive without it:\n%s", out)
	}
}
