package retire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// An entry that resolves to no Kustomization is never SAFE (issue 23, item 6): a hub-and-spoke
// repository (fluxcd/flux2-hub-spoke-example) keeps kustomize overlays in clusters/<name> and
// bootstraps from hub/, whose Kustomizations build ./deploy/... for the spokes. The only
// clusters/ directory declares no Kustomization, so nothing would be judged: bad input (exit
// 3) naming hub, the directory that declares Kustomizations nothing builds. Before, the
// gate said "Nothing is removed in 0 Kustomizations", SAFE, while the claim went.
func TestEntryWithoutKustomizations(t *testing.T) {
	f := fixture{
		files: map[string]string{
			"hub/staging.yaml":                    incident.KustomizationManifest("flux-system", "apps", "./deploy/apps", true),
			"clusters/staging/kustomization.yaml": "resources:\n- values.yaml\n",
			"clusters/staging/values.yaml":        incident.ConfigMapManifest("default", "values"),
			"deploy/apps/kustomization.yaml":      "resources:\n- claim.yaml\n",
			"deploy/apps/claim.yaml":              incident.ClaimManifest("apps", "data"),
		},
		change: map[string]string{"deploy/apps/claim.yaml": "", "deploy/apps/kustomization.yaml": "resources: []\n"},
	}
	_, err := f.gate(t, retire.Request{}, nil)
	// Detection itself refuses clusters/staging, which declares nothing, and names hub.
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(fmt.Sprint(err), "clusters/staging declares no Flux Kustomization") || !strings.Contains(fmt.Sprint(err), "give it with `--path hub`") {
		t.Fatalf("err %v (exit %d), want bad input naming hub", err, exitcode.Of(err))
	}
	rep := f.mustGate(t, retire.Request{Entry: "hub"}, nil)
	wantCode(t, rep, exitcode.Finding, "apps_data__PersistentVolumeClaim Pruned")
}
