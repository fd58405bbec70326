package finalizers

import (
	"strings"
	"testing"
)

func TestNodeLocalPath(t *testing.T) {
	for _, c := range []struct {
		path  string
		value string
		want  bool
	}{
		{"spec.hostPath", "/var/lib/openebs/local/pvc-1", true},
		{"spec.dataDirHostPath", "/var/lib/rook", true},
		{"status.localDir", "/mnt/disks/ssd0", true},
		{"spec.mountPath", "/data", false},
		{"spec.volumeMounts.mountPath", "/var/lib/data", false},
		{"spec.ingress.rules.http.paths.path", "/", false},
		{"spec.ingress.rules.http.paths.path", "/api/v1", false},
		{"spec.routes.match.path", "/checkout", false},
		{"spec.livenessProbe.httpGet.path", "/healthz", false},
		{"spec.rewrite.path", "/v2", false},
		{"spec.urlPath", "/index.html", false},
		{"spec.rootPath", "/", false},
		{"spec.hostPath", "relative/dir", false},
		{"spec.monitor.path", "/healthz", false},
		{"spec.healthCheck.path", "/ready", false},
		{"spec.templates.outputs.artifacts.path", "/tmp/out.txt", false},
		{"spec.containers.args.inputPath", "/work/in", false},
		// A fault injected under a path of the target Pod's volume goes with the Pod; a
		// gateway's listen path is where requests arrive.
		{"spec.volumePath", "/var/run", false},
		{"spec.proxy.listen_path", "/httpbin", false},
	} {
		if got := nodeLocalPath(strings.Split(c.path, "."), c.value); got != c.want {
			t.Errorf("nodeLocalPath(%s, %q) = %v, want %v", c.path, c.value, got, c.want)
		}
	}
}

func TestNodeLocalPathKeepsControlPlaneFiles(t *testing.T) {
	// A control plane's own files are on its nodes, although the field names an API server.
	if !nodeLocalPath([]string{"spec", "kubeAPIServer", "auditLogPath"}, "/var/log/kubernetes/audit.log") {
		t.Errorf("an API server's audit log path is a node-local path")
	}
}
