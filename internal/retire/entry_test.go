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
// bootstraps from hub/, whose Kustomizations build ./deploy/... for the spokes. Detection picks
// the only clusters/ directory; it declares no Kustomization, so nothing would be judged: bad
// input (exit 3) naming every directory that could be the entry, hub among them. Before, the
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
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(fmt.Sprint(err), "declares no Flux Kustomization at base or candidate") || !strings.Contains(fmt.Sprint(err), "clusters/staging, hub: choose one with --path") {
		t.Fatalf("err %v, want bad input naming hub", err)
	}
	rep := f.mustGate(t, retire.Request{Entry: "hub"}, nil)
	wantCode(t, rep, exitcode.Finding, "apps_data__PersistentVolumeClaim Pruned")
}
