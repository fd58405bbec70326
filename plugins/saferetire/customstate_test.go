package saferetire_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

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

// liveCRD creates a namespaced CRD <plural>.<group> serving kind at v1, whose spec schema has
// the properties given (YAML, indented for the spec's properties), and waits for it to serve.
func liveCRD(t *testing.T, group, kind, plural, props string) {
	t.Helper()
	doc := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + plural + "." + group + "\n" +
		"spec:\n  group: " + group + "\n  scope: Namespaced\n  names: {kind: " + kind + ", plural: " + plural + "}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n" +
		"    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n" + props
	var crd map[string]any
	if err := yaml.Unmarshal([]byte(doc), &crd); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Dynamic.Resource(crdGVR).Create(context.Background(), &unstructured.Unstructured{Object: crd}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// liveCR creates ns/name of kind (plural) in group at v1 with spec, retrying until its CRD serves.
func liveCR(t *testing.T, ns, group, kind, plural, name string, spec map[string]any) {
	t.Helper()
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural}
	o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
	var err error
	for try := 0; try < 100; try++ {
		if _, err = kc.Dynamic.Resource(gvr).Namespace(ns).Create(context.Background(), o, metav1.CreateOptions{}); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal(err)
}

// Live, the cluster answers what the repository does not: the CRDs come from the operators'
// charts, not the repository (offline, such removals are UNKNOWN: TestCustomResourceState). Live, the Bucket as the API
// server holds it carries its CRD's default `reclaimPolicy: Delete` (UNSAFE, named), and the
// Gadget's CRD, read from the cluster, shows no deletion policy and no storage (judged: pruned,
// stateless).
func TestCustomResourceStateLive(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "crstate")
	group := ns + ".example.com"
	liveCRD(t, group, "Bucket", "buckets", "              reclaimPolicy: {type: string, default: Delete}\n              cluster: {type: string}\n")
	liveCRD(t, group, "Gadget", "gadgets", "              color: {type: string}\n")
	liveCR(t, ns, group, "Bucket", "buckets", "photos", map[string]any{"cluster": "garage"})
	liveCR(t, ns, group, "Gadget", "gadgets", "tool", map[string]any{"color": "blue"})
	liveKS(t, ns, "apps", "./k8s/"+ns, ns+"_photos_"+group+"_Bucket", ns+"_tool_"+group+"_Gadget", ns+"_settings__ConfigMap")
	r := gittest.New(t, map[string]string{
		"k8s/" + ns + "/settings.yaml": configMap(ns, "settings"),
		"k8s/" + ns + "/bucket.yaml":   "apiVersion: " + group + "/v1\nkind: Bucket\nmetadata:\n  name: photos\n  namespace: " + ns + "\nspec:\n  cluster: garage\n",
		"k8s/" + ns + "/gadget.yaml":   "apiVersion: " + group + "/v1\nkind: Gadget\nmetadata:\n  name: tool\n  namespace: " + ns + "\nspec:\n  color: blue\n",
	})
	base := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"k8s/" + ns + "/bucket.yaml": "", "k8s/" + ns + "/gadget.yaml": ""})
	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "UNSAFE Bucket "+ns+"/photos", "spec.reclaimPolicy: Delete", "pruned Gadget "+ns+"/tool", "verdict: UNSAFE (exit 1)")
	if strings.Contains(out, "nothing the gate reads shows") {
		t.Errorf("live, a kind whose CRD the cluster serves is taken as unknown\n%s", out)
	}
}
