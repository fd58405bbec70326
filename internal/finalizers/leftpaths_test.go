package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// A Backup's status.path beside status.backupRepoName is a path inside that repository
// (kubeblocks#10348), not a place on a node; the same path with nothing beside it naming a
// store is still read as a node's.
func TestRecordedPathInItsStore(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{
		"path":                      "/demo/dm-cluster-6f1c2a4e/full-1",
		"backupRepoName":            "backuprepo-pvc",
		"persistentVolumeClaimName": "pvc-backuprepo-pvc-x7k2p",
	}}}
	got := strings.Join(recordedResources(obj), "; ")
	want := "path /demo/dm-cluster-6f1c2a4e/full-1 in backupRepoName backuprepo-pvc, persistentVolumeClaimName pvc-backuprepo-pvc-x7k2p (status.path)"
	if got != want {
		t.Errorf("recorded = %q, want %q", got, want)
	}
	bare := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"hostPath": "/var/lib/openebs/local/pvc-1"}}}
	if got := strings.Join(recordedResources(bare), "; "); got != "node-local path /var/lib/openebs/local/pvc-1 (spec.hostPath)" {
		t.Errorf("recorded = %q", got)
	}
}
