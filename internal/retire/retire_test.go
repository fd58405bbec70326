package retire

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/report"
)

func obj(apiVersion, kind, ns, name string, ann map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}}
	if ns != "" {
		u.SetNamespace(ns)
	}
	if ann != nil {
		u.SetAnnotations(ann)
	}
	return u
}

func pvc(ann map[string]string) *unstructured.Unstructured {
	return obj("v1", "PersistentVolumeClaim", "headlamp", "headlamp", ann)
}

func deployMounting(claim string) *unstructured.Unstructured {
	d := obj("apps/v1", "Deployment", "headlamp", "headlamp", nil)
	_ = unstructured.SetNestedSlice(d.Object, []any{map[string]any{"name": "plugins-dir", "persistentVolumeClaim": map[string]any{"claimName": claim}}}, "spec", "template", "spec", "volumes")
	return d
}

var (
	apps     = Kustomization{Namespace: "flux-system", Name: "apps", Path: "./k8s/apps", Prune: true, Wait: true, Timeout: "20m0s"}
	infra    = Kustomization{Namespace: "flux-system", Name: "infra", Path: "./k8s/infra", Prune: true}
	noPrune  = Kustomization{Namespace: "flux-system", Name: "apps", Path: "./k8s/apps", Prune: false}
	cm       = obj("v1", "ConfigMap", "headlamp", "settings", nil)
	disabled = map[string]string{PruneAnnotation: Disabled}
)

func judge(t *testing.T, units []Unit, extra ...string) []Removal {
	t.Helper()
	k, err := NewKinds(extra...)
	if err != nil {
		t.Fatal(err)
	}
	rs, unparsed := Diff(units)
	if len(unparsed) > 0 {
		t.Fatalf("unparsed inventory ids: %v", unparsed)
	}
	Judge(rs, units, k)
	return rs
}

func TestJudge(t *testing.T) {
	sts := obj("apps/v1", "StatefulSet", "db", "pg", nil)
	_ = unstructured.SetNestedSlice(sts.Object, []any{map[string]any{"metadata": map[string]any{"name": "data"}}}, "spec", "volumeClaimTemplates")
	crd := obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com", nil)
	_ = unstructured.SetNestedField(crd.Object, "example.com", "spec", "group")
	_ = unstructured.SetNestedField(crd.Object, "Widget", "spec", "names", "kind")
	cases := []struct {
		name    string
		units   []Unit
		extra   []string
		outcome Outcome
		unsafe  bool
		want    string // in OptOut, MovedTo or Persistent.Detail
	}{
		{"unprotected claim is pruned", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(nil)}}}, nil, Pruned, true, "volume"},
		{"prune disabled retains", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(disabled)}}}, nil, Retained, false, "prune: disabled"},
		{"reconcile disabled retains", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(map[string]string{ReconcileAnnotation: Disabled})}}}, nil, Retained, false, "reconcile: disabled"},
		{"ssa Ignore retains", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(map[string]string{SSAAnnotation: "Ignore"})}}}, nil, Retained, false, "ssa: Ignore"},
		{"prune false retains", []Unit{{Kustomization: noPrune, Base: []*unstructured.Unstructured{pvc(nil)}}}, nil, Retained, false, "spec.prune is false"},
		{"configmap is pruned safely", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{cm}}}, nil, Pruned, false, ""},
		{"extra persistent kind", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{cm}}}, []string{"ConfigMap"}, Pruned, true, "--persistent-kind"},
		{"statefulset with templates", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{sts}}}, nil, Pruned, true, "whenDeleted: Retain"},
		{"namespace counts its content", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{obj("v1", "Namespace", "", "headlamp", nil), cm}, Candidate: []*unstructured.Unstructured{cm}}}, nil, Pruned, true, "1 objects declared at base"},
		{"crd counts its resources", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{crd, obj("example.com/v1", "Widget", "a", "w1", nil), obj("example.com/v1", "Widget", "b", "w2", nil)}, Candidate: []*unstructured.Unstructured{obj("example.com/v1", "Widget", "a", "w1", nil), obj("example.com/v1", "Widget", "b", "w2", nil)}}}, nil, Pruned, true, "2 declared at base"},
		{"helmrelease with persistence uninstalls it", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{helmRelease(t, "x", "persistence: {enabled: true}")}}}, nil, Pruned, true, "uninstalling release x/x deletes the chart's objects, and its values declare persistent state: spec.values.persistence.enabled"},
		{"helmrelease without visible state is not unsafe", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{helmRelease(t, "x", "replicas: 2")}}}, nil, Pruned, false, ""},
		{"move of a claim is unsafe", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(nil)}}, {Kustomization: infra, Candidate: []*unstructured.Unstructured{pvc(nil)}}}, nil, Moved, true, "flux-system/infra"},
		{"protected move is safe", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(disabled)}}, {Kustomization: infra, Candidate: []*unstructured.Unstructured{pvc(nil)}}}, nil, Moved, false, "flux-system/infra"},
		{"inventory only is pruned", []Unit{{Kustomization: apps, Inventory: []string{"headlamp_headlamp__PersistentVolumeClaim"}, Live: true}}, nil, Pruned, true, "volume"},
		{"not in live inventory", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(nil)}, Live: true}}, nil, NotManaged, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge(t, tc.units, tc.extra...)
			if len(rs) != 1 {
				t.Fatalf("removals = %+v, want 1", rs)
			}
			r := rs[0]
			if r.Outcome != tc.outcome || r.Unsafe != tc.unsafe {
				t.Fatalf("outcome %s unsafe %v, want %s %v (reasons %q)", r.Outcome, r.Unsafe, tc.outcome, tc.unsafe, r.Reasons)
			}
			got := r.OptOut + "|" + r.MovedTo
			if r.Persistent != nil {
				got += "|" + r.Persistent.Detail
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("%q lacks %q", got, tc.want)
			}
		})
	}
}

// The live object is what Flux reads: a protection merged but not applied yet does not count.
func TestLiveAnnotationsWin(t *testing.T) {
	cases := []struct {
		name      string
		base, liv map[string]string
		outcome   Outcome
		unsafe    bool
	}{
		{"merged, not applied", disabled, nil, Pruned, true},
		{"applied", disabled, disabled, Retained, false},
		{"applied by hand only", nil, disabled, Retained, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			units := []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(tc.base)}, Inventory: []string{"headlamp_headlamp__PersistentVolumeClaim"}, Live: true}}
			rs, _ := Diff(units)
			rs[0].Live = &Live{Exists: true, Annotations: tc.liv}
			k, _ := NewKinds()
			Judge(rs, units, k)
			if rs[0].Outcome != tc.outcome || rs[0].Unsafe != tc.unsafe {
				t.Fatalf("outcome %s unsafe %v, want %s %v", rs[0].Outcome, rs[0].Unsafe, tc.outcome, tc.unsafe)
			}
		})
	}
}

func TestDeclaredConsumers(t *testing.T) {
	units := []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(disabled), deployMounting("headlamp")}, Candidate: []*unstructured.Unstructured{deployMounting("headlamp")}}}
	rs := judge(t, units)
	if len(rs) != 1 || len(rs[0].DeclaredConsumers) != 1 || rs[0].DeclaredConsumers[0].Kind != "Deployment" {
		t.Fatalf("removals = %+v", rs)
	}
	if rs[0].Outcome != Retained || rs[0].Unsafe {
		t.Errorf("a retained claim still mounted is safe to merge: %+v", rs[0])
	}
}

func TestPlan(t *testing.T) {
	p := Planner{Target: cluster.Target{Context: "prod"}}
	cases := []struct {
		name   string
		ann    map[string]string
		stages int
		done   []bool
		want   []string
	}{
		{"unsafe claim", nil, 4, []bool{false, false, false, false}, []string{
			"kubectl --context=prod -n headlamp get persistentvolumeclaim headlamp -o 'jsonpath={.metadata.annotations.kustomize\\.toolkit\\.fluxcd\\.io/prune}'",
			"kubectl --context=prod -n headlamp get pods --no-headers -o 'custom-columns=POD:.metadata.name,CLAIMS:.spec.volumes[*].persistentVolumeClaim.claimName' | grep -Fw headlamp",
			"kubectl --context=prod -n flux-system get kustomization apps -o 'jsonpath={.status.inventory.entries[*].id}' | tr ' ' '\\n' | grep -Fx headlamp_headlamp__PersistentVolumeClaim",
			"kubectl --context=prod -n headlamp delete persistentvolumeclaim headlamp",
		}},
		{"retained claim", disabled, 4, []bool{true, false, true, false}, []string{"kubectl --context=prod -n headlamp delete persistentvolumeclaim headlamp"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge(t, []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(tc.ann)}}})
			rs[0].File = "k8s/apps/headlamp/pvc.yaml"
			p.Plan(&rs[0])
			if len(rs[0].Plan) != tc.stages {
				t.Fatalf("plan = %+v", rs[0].Plan)
			}
			var all []string
			for i, s := range rs[0].Plan {
				if s.Number != i+1 || s.Done != tc.done[i] {
					t.Errorf("stage %d: number %d done %v, want done %v", i+1, s.Number, s.Done, tc.done[i])
				}
				all = append(all, s.Check)
				all = append(all, s.Commands...)
				all = append(all, s.Do...)
			}
			joined := strings.Join(all, "\n")
			for _, w := range append(tc.want, "k8s/apps/headlamp/pvc.yaml") {
				if !strings.Contains(joined, w) {
					t.Errorf("plan lacks %q:\n%s", w, joined)
				}
			}
		})
	}
	safe := judge(t, []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{cm}}})
	p.Plan(&safe[0])
	if safe[0].Plan != nil {
		t.Errorf("a safe prune needs no plan: %+v", safe[0].Plan)
	}
}

// TestPlanInvalidName is issue 16 item 7: offline nothing checked a name from the repository,
// and `data;touch /tmp/x` was printed unquoted in `kubectl … delete …`. A name the API server
// refuses gets no command, only a reason that says it is invalid.
func TestPlanInvalidName(t *testing.T) {
	p := Planner{Target: cluster.Target{Context: "prod"}}
	bad := obj("v1", "PersistentVolumeClaim", "headlamp", "data;touch /tmp/x", nil)
	rs := judge(t, []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{bad}}})
	p.Plan(&rs[0])
	var all []string
	for _, s := range rs[0].Plan {
		if s.Check != "" || len(s.Commands) > 0 {
			t.Errorf("stage %q prints a command for an invalid name: %+v", s.Title, s)
		}
		all = append(all, s.Do...)
	}
	if !strings.Contains(strings.Join(append(all, rs[0].Reasons...), "\n"), `"data;touch /tmp/x" is not a valid PersistentVolumeClaim name`) {
		t.Errorf("no finding names the invalid name: %+v %+v", rs[0].Plan, rs[0].Reasons)
	}
	if got := p.DeleteCommand(&Removal{Object: Ref{Kind: "ConfigMap", Namespace: "a b", Name: "x;y"}}); got != "kubectl --context=prod -n 'a b' delete configmap 'x;y'" {
		t.Errorf("DeleteCommand does not quote: %s", got)
	}
}

// Flux writes the ":" of an RBAC name as "__" in its inventory (fluxcd/cli-utils
// object.ObjMetadata.String(); ids like `_system__controller__foo_rbac.authorization.k8s.io_ClusterRole`
// are in every flux-system inventory, see fluxcd/flux2#2262). Such an entry used to be skipped
// and the built object taken for one the live inventory does not hold ("Flux prunes nothing").
func TestInventoryIDWithColon(t *testing.T) {
	role := obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "system:controller:foo", nil)
	id := "_system__controller__foo_rbac.authorization.k8s.io_ClusterRole"
	units := []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{role}, Inventory: []string{id}, Live: true}}
	rs := judge(t, units)
	if len(rs) != 1 || rs[0].ID != id || !rs[0].InInventory || rs[0].Outcome != Pruned || rs[0].Object.Name != "system:controller:foo" {
		t.Fatalf("removals = %+v, want one pruned ClusterRole system:controller:foo in the inventory", rs)
	}
	_, unparsed := Diff([]Unit{{Kustomization: apps, Inventory: []string{"not-an-id"}, Live: true}})
	if len(unparsed) != 1 || !strings.Contains(unparsed[0].String(), "flux-system/apps") || unparsed[0].Reason != report.GapDecodeError || unparsed[0].Subject.Name != "apps" {
		t.Fatalf("an unparseable inventory id was skipped: %v", unparsed)
	}
}

func TestNewKindsRejects(t *testing.T) {
	for _, bad := range []string{"", "a b", "pvc/x"} {
		t.Run(bad, func(t *testing.T) {
			if _, err := NewKinds(bad); err == nil {
				t.Fatalf("NewKinds(%q) accepted", bad)
			}
		})
	}
}
