package resourceset

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// decodeObject decodes one YAML document for a test.
func decodeObject(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// names lists "Kind namespace/name" of objs in order.
func names(objs []*unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName())
	}
	return out
}

// The ResourceSets below follow the examples of the Flux Operator's ResourceSet API
// (https://github.com/controlplaneio-fluxcd/flux-operator/blob/main/docs/api/v1/resourceset.md)
// and of its ResourceSetInputProvider API (resourcesetinputprovider.md there).
const rsetTenants = `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: podinfo
  namespace: default
spec:
  commonMetadata:
    labels:
      app.kubernetes.io/name: podinfo
  inputs:
    - tenant: "team1"
      app:
        version: "6.7.x"
        replicas: 2
    - tenant: "team2"
      app:
        version: "6.6.x"
        replicas: 3
  resources:
    - apiVersion: source.toolkit.fluxcd.io/v1
      kind: OCIRepository
      metadata:
        name: podinfo-<< inputs.tenant >>
        namespace: default
      spec:
        url: oci://ghcr.io/stefanprodan/charts/podinfo
        ref:
          semver: << inputs.app.version | quote >>
    - apiVersion: v1
      kind: PersistentVolumeClaim
      metadata:
        name: data-<< inputs.tenant >>
        namespace: << inputs.provider.namespace >>
      spec:
        resources:
          requests:
            storage: << inputs.app.replicas >>Gi
  resourcesTemplate: |
    apiVersion: v1
    kind: Namespace
    metadata:
      name: shared
    ---
    <<- if eq inputs.tenant "team2" >>
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: skipped
      namespace: default
      annotations:
        fluxcd.controlplane.io/reconcile: disabled
    <<- end >>
`

func TestRenderResourceSetInline(t *testing.T) {
	objs, unresolved, err := Render(decodeObject(t, rsetTenants), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"OCIRepository default/podinfo-team1", "OCIRepository default/podinfo-team2",
		"PersistentVolumeClaim default/data-team1", "PersistentVolumeClaim default/data-team2", "Namespace /shared"}
	if got := names(objs); !reflect.DeepEqual(got, want) {
		t.Errorf("rendered %v, want %v (one Namespace: duplicates dropped; reconcile: disabled left out)", got, want)
	}
	if len(unresolved) > 0 {
		t.Errorf("unresolved = %v", unresolved)
	}
	semver, _, _ := unstructured.NestedString(objs[1].Object, "spec", "ref", "semver")
	size, _, _ := unstructured.NestedString(objs[3].Object, "spec", "resources", "requests", "storage")
	labels := objs[0].GetLabels()
	if semver != "6.6.x" || size != "3Gi" || labels["app.kubernetes.io/name"] != "podinfo" || labels["resourceset.fluxcd.controlplane.io/name"] != "podinfo" {
		t.Errorf("semver %q, size %q, labels %v", semver, size, labels)
	}
}

const rsetPermute = `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: apps
  namespace: apps
spec:
  inputStrategy:
    name: Permute
  inputsFrom:
    - kind: ResourceSetInputProvider
      selector:
        matchLabels:
          rset: apps
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: << inputs.tenants.tenant >>-<< inputs.envs.env >>
        namespace: apps
      data:
        id: << inputs.id | quote >>
`

func rsip(name, typ, values string) string {
	return `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSetInputProvider
metadata:
  name: ` + name + `
  namespace: apps
  labels:
    rset: apps
spec:
  type: ` + typ + `
  defaultValues:
` + values
}

func TestRenderResourceSetProviders(t *testing.T) {
	tenants := decodeObject(t, rsip("tenants", "Static", "    tenant: a\n"))
	envs := decodeObject(t, rsip("envs", "Static", "    env: prod\n"))
	objs, _, err := Render(decodeObject(t, rsetPermute), []*unstructured.Unstructured{tenants, envs})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(objs); !reflect.DeepEqual(got, []string{"ConfigMap apps/a-prod"}) {
		t.Errorf("rendered %v", got)
	}
	// The operator's id of a permutation: adler32 of "envs=0/tenants=0" (providers by name).
	if id, _, _ := unstructured.NestedString(objs[0].Object, "data", "id"); id != "844891587" {
		t.Errorf("id = %q", id)
	}

	t.Run("a provider that reads the network makes it unknown", func(t *testing.T) {
		prs := decodeObject(t, rsip("pulls", "GitHubPullRequest", "    env: preview\n"))
		_, _, err := Render(decodeObject(t, rsetPermute), []*unstructured.Unstructured{tenants, prs})
		if !errors.Is(err, ErrNetworkInputs) || !strings.Contains(err.Error(), "apps/pulls is of type GitHubPullRequest") {
			t.Errorf("err = %v, want ErrNetworkInputs naming the provider", err)
		}
	})
	t.Run("a missing input is an error", func(t *testing.T) {
		_, _, err := Render(decodeObject(t, rsetPermute), []*unstructured.Unstructured{tenants})
		if err == nil || !strings.Contains(err.Error(), "envs") {
			t.Errorf("err = %v, want the missing key named", err)
		}
	})
	t.Run("a provider named but not in the repository", func(t *testing.T) {
		rs := decodeObject(t, strings.Replace(rsetPermute, "selector:\n        matchLabels:\n          rset: apps", "name: elsewhere", 1))
		_, _, err := Render(rs, nil)
		if err == nil || !strings.Contains(err.Error(), "apps/elsewhere is not in the repository") {
			t.Errorf("err = %v", err)
		}
		// The caller names the ResourceSet; the error does not repeat it.
		if err != nil && strings.Contains(err.Error(), "ResourceSet "+rs.GetNamespace()+"/"+rs.GetName()) {
			t.Errorf("err = %v, names the ResourceSet its caller names", err)
		}
	})
	t.Run("no provider selected renders nothing", func(t *testing.T) {
		objs, _, err := Render(decodeObject(t, rsetPermute), nil)
		if err != nil || len(objs) != 0 {
			t.Errorf("rendered %v, %v; want nothing (the operator collects everything)", names(objs), err)
		}
	})
	t.Run("a Static provider's id in a name is unresolved", func(t *testing.T) {
		rs := decodeObject(t, strings.Replace(rsetPermute, "<< inputs.tenants.tenant >>-<< inputs.envs.env >>", "cm-<< inputs.tenants.id >>", 1))
		_, unresolved, err := Render(rs, []*unstructured.Unstructured{tenants, envs})
		if err != nil || len(unresolved) != 1 {
			t.Errorf("unresolved = %v, %v", unresolved, err)
		}
	})
}

func TestPermuteOrder(t *testing.T) {
	got, err := permute([]inputSource{
		{name: "A b", inputs: []map[string]any{{"x": 1}, {"x": 2}}},
		{name: "empty"},
		{name: "c", inputs: []map[string]any{{"y": "p"}, {"y": "q"}}},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range got {
		order = append(order, fmt.Sprint(p["a_b"].(map[string]any)["x"], p["c"].(map[string]any)["y"]))
	}
	if want := []string{"1p", "1q", "2p", "2q"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order = %v, want %v (the first provider varies slowest)", order, want)
	}
	if none, _ := permute([]inputSource{{name: "a", inputs: []map[string]any{{}}}, {name: "empty"}}, true); len(none) != 0 {
		t.Errorf("includeEmptyProviders with an empty provider = %v, want nothing", none)
	}
}
