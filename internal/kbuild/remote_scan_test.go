package kbuild

import (
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// A build that needs the network never runs offline, so what it would read is what the scan
// walked: every kustomization directory and every local file a kustomization names (resources
// outside it, patches, generator sources). A change to any of them must change the tier.
func TestScanTreeNamesWhatTheBuildWouldRead(t *testing.T) {
	fs := filesys.MakeFsInMemory()
	files := map[string]string{
		"/r/app/kustomization.yaml": "resources:\n- ../shared/cm.yaml\n- ./sub\n- github.com/example/platform//base?ref=v1\n" +
			"patches:\n- path: patch.yaml\n" +
			"configMapGenerator:\n- name: settings\n  files:\n  - conf=settings.conf\n  envs:\n  - vars.env\n",
		"/r/app/sub/kustomization.yaml": "resources:\n- claim.yaml\n",
		"/r/app/sub/claim.yaml":         "kind: PersistentVolumeClaim\n",
		"/r/shared/cm.yaml":             "kind: ConfigMap\n",
	}
	for p, c := range files {
		if err := fs.WriteFile(p, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	remote, _, local := scanTree(fs, "/r/app")
	if !slices.Equal(remote, []string{"github.com/example/platform//base?ref=v1"}) {
		t.Errorf("remote %q", remote)
	}
	for _, want := range []string{"/r/app", "/r/app/sub", "/r/app/sub/claim.yaml", "/r/shared/cm.yaml", "/r/app/patch.yaml", "/r/app/settings.conf", "/r/app/vars.env"} {
		if !slices.Contains(local, filepath.FromSlash(want)) {
			t.Errorf("%s is not among the scan's local paths %q", want, local)
		}
	}
}
