package kinds

import (
	"errors"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// testCatalog mirrors the incident cluster: three Backup CRDs, pods shadowed by metrics.k8s.io,
// and one aggregated group whose discovery failed.
func testCatalog() *Catalog {
	rw := []string{"get", "list", "delete"}
	return NewCatalog([]Resource{
		{Group: "", Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Singular: "persistentvolumeclaim", ShortNames: []string{"pvc"}, Namespaced: true, Verbs: rw},
		{Group: "", Version: "v1", Resource: "pods", Kind: "Pod", Singular: "pod", ShortNames: []string{"po"}, Namespaced: true, Verbs: rw},
		{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods", Kind: "PodMetrics", Singular: "", Namespaced: true, Verbs: rw},
		{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Singular: "deployment", ShortNames: []string{"deploy"}, Namespaced: true, Verbs: rw},
		{Group: "longhorn.io", Version: "v1beta2", Resource: "backups", Kind: "Backup", Singular: "backup", ShortNames: []string{"lhb"}, Namespaced: true, Verbs: rw},
		{Group: "postgresql.cnpg.io", Version: "v1", Resource: "backups", Kind: "Backup", Singular: "backup", Namespaced: true, Verbs: rw},
		{Group: "velero.io", Version: "v1", Resource: "backups", Kind: "Backup", Singular: "backup", Namespaced: true, Verbs: rw},
		{Group: "velero.io", Version: "v2alpha1", Resource: "backups", Kind: "Backup", Singular: "backup", Namespaced: true, Verbs: rw},
	}, []GroupFailure{{GroupVersion: "custom.metrics.k8s.io/v1beta2", Error: "stale"}})
}

func TestResolve(t *testing.T) {
	c := testCatalog()
	cases := []struct{ in, want, version string }{
		{"pvc", "persistentvolumeclaims", "v1"},
		{"persistentvolumeclaims", "persistentvolumeclaims", "v1"},
		{"persistentvolumeclaim", "persistentvolumeclaims", "v1"},
		{"PersistentVolumeClaim", "persistentvolumeclaims", "v1"},
		{"deploy", "deployments.apps", "v1"},
		{"deployments.apps", "deployments.apps", "v1"},
		{"Deployment.v1.apps", "deployments.apps", "v1"},
		{"backups.velero.io", "backups.velero.io", "v1"},
		{"backup.velero.io", "backups.velero.io", "v1"},
		{"Backup.v1.velero.io", "backups.velero.io", "v1"},
		{"Backup.v2alpha1.velero.io", "backups.velero.io", "v2alpha1"},
		{"lhb", "backups.longhorn.io", "v1beta2"},
		{"pods", "pods", "v1"},
		{"pods.metrics.k8s.io", "pods.metrics.k8s.io", "v1beta1"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			res, err := c.Resolve(tc.in)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.in, err)
			}
			if got := res.Resource.QualifiedName(); got != tc.want || res.Resource.Version != tc.version {
				t.Fatalf("Resolve(%q) = %s %s, want %s %s", tc.in, got, res.Resource.Version, tc.want, tc.version)
			}
		})
	}
}

func TestResolvePodsReportsShadowed(t *testing.T) {
	res, err := testCatalog().Resolve("pods")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Shadowed) != 1 || res.Shadowed[0].QualifiedName() != "pods.metrics.k8s.io" {
		t.Fatalf("shadowed = %+v, want pods.metrics.k8s.io", res.Shadowed)
	}
}

func TestResolveAmbiguousBackup(t *testing.T) {
	for _, in := range []string{"backup", "backups", "Backup"} {
		t.Run(in, func(t *testing.T) {
			_, err := testCatalog().Resolve(in)
			var amb *AmbiguousError
			if !errors.As(err, &amb) {
				t.Fatalf("Resolve(%q) err = %v, want *AmbiguousError", in, err)
			}
			var got []string
			for _, c := range amb.Candidates {
				got = append(got, c.Resource.QualifiedName())
			}
			want := "backups.longhorn.io backups.postgresql.cnpg.io backups.velero.io"
			if strings.Join(got, " ") != want {
				t.Fatalf("candidates = %v, want %s", got, want)
			}
			if exitcode.Of(err) != exitcode.Usage {
				t.Fatalf("exit code = %v, want usage", exitcode.Of(err))
			}
			for _, name := range got {
				if !strings.Contains(err.Error(), name) {
					t.Fatalf("message does not name %s:\n%s", name, err)
				}
			}
		})
	}
}

func TestResolveUnknown(t *testing.T) {
	_, err := testCatalog().Resolve("persistentvolumeclam")
	var unk *UnknownKindError
	if !errors.As(err, &unk) {
		t.Fatalf("err = %v, want *UnknownKindError", err)
	}
	if len(unk.Suggestions) == 0 || unk.Suggestions[0] != "persistentvolumeclaims" {
		t.Fatalf("suggestions = %v", unk.Suggestions)
	}
	// A group failed discovery, so the kind may exist there: UNKNOWN, not bad input.
	if exitcode.Of(err) != exitcode.Unknown {
		t.Fatalf("exit code = %v, want unknown", exitcode.Of(err))
	}
	healthy := NewCatalog(testCatalog().resources, nil)
	if _, err := healthy.Resolve("nosuchkind"); exitcode.Of(err) != exitcode.Usage {
		t.Fatalf("unknown kind on a healthy catalog: code %v, want usage", exitcode.Of(err))
	}
}

func TestResolveRejectsMalformed(t *testing.T) {
	for _, in := range []string{"", " ", "pvc/x", "a b", "x_y"} {
		if _, err := testCatalog().Resolve(in); exitcode.Of(err) != exitcode.Usage {
			t.Errorf("Resolve(%q) code = %v, want usage", in, exitcode.Of(err))
		}
	}
}
