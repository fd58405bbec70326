package retire

import "testing"

// TestApplier holds the name of what applies a tier's objects: angelnu/k8s-gitops fa6ca1274
// moved six HelmReleases into a ResourceSet, and the gate said they moved "to Kustomization
// ResourceSet/paperless/podinfo".
func TestApplier(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"flux-system/apps", "Kustomization flux-system/apps"},
		{"ResourceSet/paperless/podinfo", "ResourceSet paperless/podinfo"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			if got := Applier(tc.id); got != tc.want {
				t.Errorf("Applier(%q) = %q, want %q", tc.id, got, tc.want)
			}
		})
	}
}
