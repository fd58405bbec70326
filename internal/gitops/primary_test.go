package gitops

import (
	"testing"

	"github.com/kubeforensics/suite/internal/kbuild"
)

func TestPrimarySource(t *testing.T) {
	ks := func(name, path string) kbuild.Kustomization {
		return kbuild.Kustomization{Namespace: "flux-system", Name: name, Path: path, SourceKind: "GitRepository", SourceNamespace: "flux-system", SourceName: name}
	}
	own := func(name, path string) kbuild.Kustomization {
		k := ks(name, path)
		k.SourceName = "flux-system"
		return k
	}
	here := map[string]bool{"infrastructure": true, "apps/production": true}
	exists := func(p string) bool { return here[p] }
	cases := []struct {
		name   string
		kss    []kbuild.Kustomization
		entry  string
		exists func(string) bool
		want   string
	}{
		// terotuomala/gitops-flux2-example at 80fb2bb: clusters/production holds infrastructure
		// (the bootstrap's flux-system, gotk-sync.yaml not committed) and two tenants' apps.
		{"a tie goes to the source whose paths are here", []kbuild.Kustomization{own("infrastructure", "infrastructure"), ks("api", "k8s/overlays/production/api"), ks("client", "k8s/overlays/production/client")},
			"clusters/production", exists, "GitRepository/flux-system/flux-system"},
		{"without the paths, the tie goes by name", []kbuild.Kustomization{own("infrastructure", "infrastructure"), ks("api", "k8s/api")},
			"clusters/production", nil, "GitRepository/flux-system/api"},
		{"the root Kustomization wins", []kbuild.Kustomization{ks("api", "clusters/production"), own("infrastructure", "infrastructure")},
			"clusters/production", exists, "GitRepository/flux-system/api"},
		{"the most used source whose paths are here keeps it", []kbuild.Kustomization{own("infrastructure", "infrastructure"), own("apps", "apps/production"), ks("api", "k8s/api")},
			"", exists, "GitRepository/flux-system/flux-system"},
		{"a path . says nothing", []kbuild.Kustomization{own("infrastructure", "ghost"), ks("api", "."), ks("api2", ".")},
			"", func(p string) bool { return p == "." }, "GitRepository/flux-system/api"},
		{"no path here: the most used", []kbuild.Kustomization{own("a", "x"), own("b", "y"), ks("api", "z")},
			"", exists, "GitRepository/flux-system/flux-system"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := PrimarySource(c.kss, c.entry, c.exists); got != c.want {
				t.Errorf("PrimarySource = %q, want %q", got, c.want)
			}
		})
	}
}
