package sourceroot

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// A clusters/<name> directory that declares no Flux Kustomization is not what a bootstrap
// syncs first (that declares at least its own sync). When other directories declare Flux
// Kustomizations nothing builds, detection refuses naming those, each as the flag to give:
// fluxcd/flux2-hub-spoke-example (hub/ builds clusters/<spoke>/… for each spoke) and
// giantswarm/gitops-template (a cluster template in bases/clusters/capa, the root in
// management-clusters/MC_NAME, which syncs itself). A clusters/prod whose kustomization.yaml
// lists a file that declares the Kustomizations is still the entry, and so is one with nothing
// declared anywhere else.
func TestDetectRefusesCandidatesThatDeclareNothing(t *testing.T) {
	cases := []struct {
		name      string
		files     map[string]string
		wantErr   string
		wantEntry string
	}{
		{name: "hub and spokes", files: map[string]string{
			"hub/staging.yaml":                            fluxKS("apps", "./clusters/staging/apps"),
			"hub/production.yaml":                         fluxKS("apps", "./clusters/production/apps"),
			"clusters/staging/apps/kustomization.yaml":    "resources: [../../../deploy/apps]\n",
			"clusters/production/apps/kustomization.yaml": "resources: [../../../deploy/apps]\n",
			"deploy/apps/namespace.yaml":                  mediaNS,
		}, wantErr: "clusters/production, clusters/staging declare no Flux Kustomization, so none of them is what a bootstrap syncs first, which declares at least its own sync; hub declares Flux Kustomizations that no other directory's Kustomizations build, so it is likely the entry: give it with `--path hub`"},
		{name: "a cluster template under bases, a self-syncing root", files: map[string]string{
			"bases/clusters/capa/template/kustomization.yaml": "resources: [cluster.yaml]\n",
			"bases/clusters/capa/template/cluster.yaml":       mediaNS,
			"management-clusters/MC_NAME/MC_NAME.yaml":        fluxKS("mc", "./management-clusters/MC_NAME"),
			"management-clusters/MC_NAME/orgs/namespace.yaml": mediaNS,
		}, wantErr: "bases/clusters/capa declares no Flux Kustomization, so it is not what a bootstrap syncs first, which declares at least its own sync; management-clusters/MC_NAME declares Flux Kustomizations that no other directory's Kustomizations build, so it is likely the entry: give it with `--path management-clusters/MC_NAME`"},
		{name: "several elsewhere", files: map[string]string{
			"clusters/prod/values.yaml": "a: b\n",
			"a/ks.yaml":                 fluxKS("a", "./apps/a"),
			"b/ks.yaml":                 fluxKS("b", "./apps/b"),
		}, wantErr: "2 directories declare Flux Kustomizations that no other directory's Kustomizations build, so one of them is likely the entry: give it with `--path a` or `--path b`"},
		{name: "the candidate lists the declaring file", files: map[string]string{
			"clusters/prod/kustomization.yaml": "resources: [../../flux/apps.yaml]\n",
			"flux/apps.yaml":                   fluxKS("apps", "./apps"),
			"apps/namespace.yaml":              mediaNS,
		}, wantEntry: "clusters/prod"},
		{name: "nothing declared elsewhere", files: map[string]string{
			"clusters/prod/kustomization.yaml": "resources: [namespace.yaml]\n",
			"clusters/prod/namespace.yaml":     mediaNS,
		}, wantEntry: "clusters/prod"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			if err := incident.WriteFiles(top, tc.files); err != nil {
				t.Fatal(err)
			}
			l, err := Detect(top, "", "", nil)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, layout %+v\nwant %q", err, l, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case l.SourceRoot != "." || l.Entry != tc.wantEntry:
				t.Errorf("layout %+v, want entry %s from the top", l, tc.wantEntry)
			}
		})
	}
}
