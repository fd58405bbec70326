package retire_test

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/retire"
)

// objects decodes a multi-document YAML string into objects.
func objects(t *testing.T, docs string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(docs, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		m := map[string]any{}
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("decoding %q: %v", doc, err)
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
	return out
}

const (
	claimYAML = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: apps}`
	claimKeptYAML = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: apps, annotations: {kustomize.toolkit.fluxcd.io/prune: disabled}}`
	claimLabelledYAML = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: apps, labels: {kustomize.toolkit.fluxcd.io/prune: Disabled}}`
	claimResourceSetKeptYAML = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: apps, annotations: {fluxcd.controlplane.io/prune: disabled}}`
	configMapYAML = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: apps}`
	secretYAML = `apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: apps}`
	mounterYAML = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  template:
    spec:
      volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]`
	stsYAML = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pg, namespace: apps}
spec:
  persistentVolumeClaimRetention: {whenDeleted: Retain}
  volumeClaimTemplates: [{metadata: {name: data}}]`
	stsNoTemplatesYAML = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pg, namespace: apps}`
	hrSuspendedYAML = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: pg, namespace: apps}
spec:
  suspend: true
  values: {persistence: {enabled: true}}`
	// a node's policy as bupd/homelab keeps it in clusters/homelab/nodes
	nodeYAML = `apiVersion: v1
kind: Node
metadata: {name: media-worker, labels: {homelab.bupd.dev/workload-pool: media}}`
	// a workload cluster as microsoft/multicluster-gitops' aks-cluster-chart renders it
	capiClusterYAML = `apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: north-aks, namespace: default}
spec:
  controlPlaneRef: {apiVersion: exp.infrastructure.cluster.x-k8s.io/v1alpha4, kind: AzureManagedControlPlane, name: north-aks}`
	hrExistingClaimYAML = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: pg, namespace: apps}
spec:
  values: {persistence: {enabled: true, existingClaim: data}}`
)

// TestVerdicts is the judgement as a table, in the manner of kstatus' status_compute_test.go:
// the Kustomization and what it builds at each revision (and, live, what the cluster holds)
// in, the verdict out. No repository is built and no cluster is read: Diff and Judge are pure.
func TestVerdicts(t *testing.T) {
	ks := retire.Kustomization{Namespace: "flux-system", Name: "apps", Path: "./apps", Prune: true}
	with := func(f func(*retire.Kustomization)) retire.Kustomization { k := ks; f(&k); return k }
	deleted := func(policy string) retire.Kustomization {
		return with(func(k *retire.Kustomization) { k.DeletionPolicy = policy })
	}
	for _, tc := range []struct {
		name       string
		ks         retire.Kustomization
		removed    bool   // the candidate deletes the Kustomization itself
		base, cand string // YAML documents
		live       map[string]string
		liveExists bool
		outcome    retire.Outcome
		unsafe     bool
		reason     retire.Reason
		also       retire.Reason // among ReasonCodes too
	}{
		{name: "a claim pruned", ks: ks, base: claimYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonPrunePersistent},
		{name: "a claim kept by its annotation", ks: ks, base: claimKeptYAML, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "a claim kept by its label, any case", ks: ks, base: claimLabelledYAML, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "a ResourceSet's opt-out does not keep it from a Kustomization", ks: ks, base: claimResourceSetKeptYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonPrunePersistent},
		{name: "a ResourceSet honours its own opt-out", ks: with(func(k *retire.Kustomization) { k.Kind = "ResourceSet" }), base: claimResourceSetKeptYAML, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "a Kustomization that does not prune", ks: with(func(k *retire.Kustomization) { k.Prune = false }), base: claimYAML, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "a ConfigMap pruned", ks: ks, base: configMapYAML, outcome: retire.Pruned, reason: retire.ReasonPruneStateless},
		{name: "a Secret pruned", ks: ks, base: secretYAML, outcome: retire.Pruned, reason: retire.ReasonPruneStateless},
		{name: "a StatefulSet with claim templates", ks: ks, base: stsYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonPrunePersistent},
		{name: "a StatefulSet without claim templates", ks: ks, base: stsNoTemplatesYAML, outcome: retire.Pruned, reason: retire.ReasonPruneStateless},
		{name: "a claim still mounted at the candidate", ks: ks, base: claimKeptYAML + "\n---\n" + mounterYAML, cand: mounterYAML, outcome: retire.Retained, reason: retire.ReasonRetained, also: retire.ReasonClaimStillMounted},
		{name: "a claim pruned and still mounted", ks: ks, base: claimYAML + "\n---\n" + mounterYAML, cand: mounterYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonPrunePersistent, also: retire.ReasonClaimStillMounted},
		{name: "live: the protection merged but not applied", ks: ks, base: claimKeptYAML, liveExists: true, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonProtectionNotApplied},
		{name: "live: protected by hand only", ks: ks, base: claimYAML, liveExists: true, live: map[string]string{retire.PruneAnnotation: retire.Disabled}, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "deleted, MirrorPrune with prune", ks: deleted(""), removed: true, base: claimYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonKustomizationDeletedPersistent},
		{name: "deleted, MirrorPrune without prune", ks: with(func(k *retire.Kustomization) { k.Prune = false }), removed: true, base: claimYAML, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "deleted, Delete ignores spec.prune", ks: with(func(k *retire.Kustomization) { k.Prune, k.DeletionPolicy = false, "Delete" }), removed: true, base: claimYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonKustomizationDeletedPersistent},
		{name: "deleted, WaitForTermination", ks: deleted("WaitForTermination"), removed: true, base: claimYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonKustomizationDeletedPersistent},
		{name: "deleted, Orphan", ks: deleted("Orphan"), removed: true, base: claimYAML, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "deleted while suspended", ks: with(func(k *retire.Kustomization) { k.Suspend = true }), removed: true, base: claimYAML, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "deleted, the object's opt-out still holds", ks: deleted("Delete"), removed: true, base: claimKeptYAML, outcome: retire.Retained, reason: retire.ReasonRetained},
		{name: "a suspended HelmRelease deletes nothing it installed", ks: ks, base: hrSuspendedYAML, outcome: retire.Pruned, reason: retire.ReasonPruneStateless},
		{name: "a HelmRelease mounting an existing claim", ks: ks, base: hrExistingClaimYAML, outcome: retire.Pruned, reason: retire.ReasonPruneStateless},
		{name: "a Node pruned: its registration and pods go", ks: ks, base: nodeYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonPrunePersistent},
		{name: "a Cluster API Cluster pruned: the workload cluster goes", ks: ks, base: capiClusterYAML, outcome: retire.Pruned, unsafe: true, reason: retire.ReasonPrunePersistent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := retire.Unit{Kustomization: tc.ks, Base: objects(t, tc.base), Candidate: objects(t, tc.cand), Removed: tc.removed}
			units := []retire.Unit{u}
			rs, unparsed := retire.Diff(units)
			if len(rs) != 1 || len(unparsed) > 0 {
				t.Fatalf("removals %+v, unparsed %v: want one", rs, unparsed)
			}
			if tc.liveExists {
				rs[0].Live = &retire.Live{Exists: true, Annotations: tc.live, Count: -1}
			}
			k, err := retire.NewKinds()
			if err != nil {
				t.Fatal(err)
			}
			retire.Judge(rs, units, k)
			r := rs[0]
			if r.Outcome != tc.outcome || r.Unsafe != tc.unsafe || r.Reason != tc.reason {
				t.Errorf("outcome %s, unsafe %v, reason %s; want %s, %v, %s (reasons %q)", r.Outcome, r.Unsafe, r.Reason, tc.outcome, tc.unsafe, tc.reason, r.Reasons)
			}
			if tc.also != "" && !slices.Contains(r.ReasonCodes, tc.also) {
				t.Errorf("reason codes %v lack %s", r.ReasonCodes, tc.also)
			}
		})
	}
}
