package saferetire_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// garageRepo is modelled on rcdailey/home-ops (kubernetes/apps/storage/garage-instance and the
// apps' buckets, https://github.com/rcdailey/home-ops), whose Garage operator comes from an
// OCIRepository, so no CRD of its kinds is in the repository: a GarageBucket
// (garage.rajsingh.info, its quota as in the operator's README,
// https://github.com/rajsinghtech/garage-operator) beside an app's ExternalSecret and
// ServiceMonitor. extra are more files.
func garageRepo(extra map[string]string) map[string]string {
	files := map[string]string{
		"clusters/prod/flux-system/gotk-sync.yaml": fluxKS("flux-system", "flux-system", "./clusters/prod", true),
		"clusters/prod/apps.yaml":                  fluxKS("flux-system", "apps", "./apps", true),
		"apps/bucket.yaml": "apiVersion: garage.rajsingh.info/v1beta1\nkind: GarageBucket\nmetadata:\n  name: photos\n  namespace: storage\n" +
			"spec:\n  clusterRef:\n    name: garage\n  quotas:\n    maxSize: 100Gi\n",
		"apps/externalsecret.yaml": "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: photos\n  namespace: storage\n" +
			"spec:\n  secretStoreRef:\n    kind: ClusterSecretStore\n    name: onepassword\n  target:\n    name: photos-secret\n",
		"apps/servicemonitor.yaml": "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: photos\n  namespace: storage\n" +
			"spec:\n  endpoints:\n    - port: http\n  selector:\n    matchLabels:\n      app: photos\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

// TestCustomResourceState: removing a custom resource whose operator deletes what it made
// outside the cluster is never SAFE. Before, only listed kinds and specs that ask for a claim
// counted, so dropping the GarageBucket was SAFE ("prune-stateless") while the operator deletes
// the bucket and its objects. Evidence the repository shows decides: a deletion/reclaim policy
// the object sets or its CRD defaults, a spec that sizes storage; a kind the gate knows nothing
// of is UNKNOWN; the everyday kinds stay judged.
func TestCustomResourceState(t *testing.T) {
	const dbCRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: databases.db.example.io\n" +
		"spec:\n  group: db.example.io\n  names:\n    kind: Database\n    plural: databases\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n" +
		"      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n" +
		"                name:\n                  type: string\n                reclaimPolicy:\n                  type: string\n                  default: %s\n"
	db := "apiVersion: db.example.io/v1\nkind: Database\nmetadata:\n  name: app\n  namespace: storage\nspec:\n  name: app\n%s"
	for _, tc := range []struct {
		name   string
		extra  map[string]string
		remove string
		code   int
		want   []string
	}{
		{name: "a bucket with a quota", remove: "apps/bucket.yaml", code: 1, want: []string{"GarageBucket storage/photos", "spec.quotas.maxSize: 100Gi"}},
		{name: "everyday kinds", remove: "apps/externalsecret.yaml apps/servicemonitor.yaml", code: 0, want: []string{"ExternalSecret storage/photos", "ServiceMonitor storage/photos"}},
		{name: "the object's policy deletes", extra: map[string]string{"apps/db.yaml": strings.Replace(db, "%s", "  deletionPolicy: Delete\n", 1)}, remove: "apps/db.yaml", code: 1,
			want: []string{"Database storage/app", "spec.deletionPolicy: Delete"}},
		{name: "the object's policy retains", extra: map[string]string{"apps/db.yaml": strings.Replace(db, "%s", "  databaseReclaimPolicy: retain\n", 1)}, remove: "apps/db.yaml", code: 0,
			want: []string{"spec.databaseReclaimPolicy: retain"}},
		{name: "the CRD's default deletes", extra: map[string]string{"apps/db.yaml": strings.Replace(db, "%s", "", 1), "clusters/prod/crd.yaml": strings.Replace(dbCRD, "%s", "Delete", 1)}, remove: "apps/db.yaml", code: 1,
			want: []string{"Database storage/app", "spec.reclaimPolicy (unset, its CRD's default): Delete"}},
		{name: "the CRD's default retains", extra: map[string]string{"apps/db.yaml": strings.Replace(db, "%s", "", 1), "clusters/prod/crd.yaml": strings.Replace(dbCRD, "%s", "Retain", 1)}, remove: "apps/db.yaml", code: 0,
			want: []string{"spec.reclaimPolicy (unset, its CRD's default): Retain"}},
		{name: "a kind nothing shows", extra: map[string]string{"apps/db.yaml": strings.Replace(db, "%s", "", 1)}, remove: "apps/db.yaml", code: 2,
			want: []string{"Database storage/app", "nothing the gate reads shows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := gittest.New(t, garageRepo(tc.extra))
			files := []string{}
			for _, f := range strings.Fields(tc.remove) {
				files = append(files, f)
				r.Git("rm", "--quiet", f)
			}
			r.Commit("remove "+strings.Join(files, ", "), nil)
			for _, mode := range [][]string{nil, {"--full"}} {
				args := append([]string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD"}, mode...)
				out, errOut, code := invocation{}.raw(t, args...)
				if code != tc.code {
					t.Errorf("%v: exit %d, want %d\n%s\n%s", mode, code, tc.code, out, errOut)
				}
				if testing.Verbose() {
					t.Log(out)
				}
				contains(t, out, tc.want...)
			}
		})
	}
}
