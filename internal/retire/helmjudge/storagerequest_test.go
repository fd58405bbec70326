package helmjudge

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestStorageRequest(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"MariaDB storage.size (rcdailey/home-ops 775bf1b1)", `apiVersion: k8s.mariadb.com/v1alpha1
kind: MariaDB
spec:
  storage: {size: 5Gi, storageClassName: ceph-block}`, "spec.storage.size: 5Gi"},
		{"EMQX map-shaped volumeClaimTemplates (soulwhisper/homelab-ops 80c1c39d)", `apiVersion: apps.emqx.io/v2beta1
kind: EMQX
spec:
  coreTemplate:
    spec:
      replicas: 1
      volumeClaimTemplates:
        storageClassName: ceph-block
        resources: {requests: {storage: 1Gi}}`, "spec.coreTemplate.spec.volumeClaimTemplates"},
		{"a list of claim templates", `apiVersion: elasticsearch.k8s.elastic.co/v1
kind: Elasticsearch
spec:
  nodeSets:
  - name: default
    volumeClaimTemplates:
    - metadata: {name: elasticsearch-data}`, "spec.nodeSets[0].volumeClaimTemplates (1 claim template(s))"},
		{"a claim spec", `apiVersion: dragonflydb.io/v1alpha1
kind: Dragonfly
spec:
  snapshot:
    persistentVolumeClaimSpec: {accessModes: [ReadWriteOnce]}`, "spec.snapshot.persistentVolumeClaimSpec"},
		{"a cache with no storage", `apiVersion: dragonflydb.io/v1alpha1
kind: Dragonfly
spec:
  replicas: 1
  resources: {limits: {memory: 1Gi}}`, ""},
		{"an empty storage block", `apiVersion: example.io/v1
kind: Db
spec:
  storage: {}`, ""},
		{"a HelmRelease's values are judged by the chart rules", `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  values:
    primary: {storage: {size: 8Gi}}`, ""},
		{"values of another kind's chart", `apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  source:
    helm:
      valuesObject:
        storage: {size: 8Gi}`, ""},
		{"a ResourceSet's templates", `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
spec:
  resources:
  - spec: {storage: {size: 1Gi}}`, ""},
		{"a pod volume names a claim made elsewhere (grafana-operator on devantler-tech/platform 2dc642957)", `apiVersion: grafana.integreatly.org/v1beta1
kind: Grafana
spec:
  deployment:
    spec:
      template:
        spec:
          volumes:
          - name: data
            persistentVolumeClaim: {claimName: grafana-data}
          - name: scratch
            ephemeral:
              volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}`, ""},
		{"a claim spec the operator makes (grafana-operator's own)", `apiVersion: grafana.integreatly.org/v1beta1
kind: Grafana
spec:
  persistentVolumeClaim:
    spec: {accessModes: [ReadWriteOnce]}`, "spec.persistentVolumeClaim"},
		// https://github.com/tyriis/home-ops/commit/4f994fbaa3e3ea8460ef8dbfed4242a10451b824 removed
		// tekton-system with this TriggerTemplate (triggers/templates/krr.yaml at its parent): the
		// claim template is the PipelineRuns' it makes, each deleted with its run.
		{"a template kind describes objects made later (tyriis/home-ops 4f994fbaa)", `apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
spec:
  resourcetemplates:
  - apiVersion: tekton.dev/v1beta1
    kind: PipelineRun
    metadata: {generateName: krr-run-}
    spec:
      pipelineRef: {name: krr}
      workspaces:
      - name: output
        volumeClaimTemplate:
          spec:
            storageClassName: nfs-csi
            accessModes: [ReadWriteOnce]
            resources: {requests: {storage: 1Gi}}`, ""},
		{"a built-in StatefulSet has its own rule", `apiVersion: apps/v1
kind: StatefulSet
spec:
  volumeClaimTemplates:
  - metadata: {name: data}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(c.doc), &m); err != nil {
				t.Fatal(err)
			}
			if got := StorageRequest(&unstructured.Unstructured{Object: m}); got != c.want {
				t.Errorf("StorageRequest = %q, want %q", got, c.want)
			}
		})
	}
	if got := StorageRequest(nil); got != "" {
		t.Errorf("StorageRequest(nil) = %q", got)
	}
}

// A chart that renders a database's custom resource uninstalls the database: the uninstall
// lists it as deleted state, not among the other objects.
func TestRenderedUninstallStorageRequest(t *testing.T) {
	var db, cache map[string]any
	for doc, m := range map[string]*map[string]any{
		"apiVersion: k8s.mariadb.com/v1alpha1\nkind: MariaDB\nmetadata: {name: db, namespace: x}\nspec:\n  storage: {size: 5Gi}\n": &db,
		"apiVersion: dragonflydb.io/v1alpha1\nkind: Dragonfly\nmetadata: {name: cache, namespace: x}\nspec: {replicas: 1}\n":       &cache,
	} {
		if err := yaml.Unmarshal([]byte(doc), m); err != nil {
			t.Fatal(err)
		}
	}
	hr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "app", "namespace": "x"}}}
	rd := renderOf("app", &unstructured.Unstructured{Object: db}, &unstructured.Unstructured{Object: cache}).render
	h := renderedUninstall(Removed{Base: hr}, stateful(), rd)
	if len(h.Deleted) != 1 || h.Deleted[0].Object.Kind != "MariaDB" || !strings.HasPrefix(h.Deleted[0].Detail, "its operator makes storage from it, spec.storage.size: 5Gi;") {
		t.Errorf("Deleted = %+v, want the MariaDB with where it asks for storage", h.Deleted)
	}
	if h.Others["Dragonfly.dragonflydb.io"] != 1 {
		t.Errorf("Others = %v, want the Dragonfly counted among the stateless", h.Others)
	}
}
