package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

func TestIsKeepSwitch(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"preserveOnDelete", true}, {"retainOnDeletion", true}, {"keepOnDelete", true}, {"orphanOnDelete", true},
		{"skipCleanup", true}, {"abandonOnDeprovision", true}, {"skipFinalizerOnTeardown", true},
		{"deletionProtection", false}, {"preserveUnknownFields", false}, {"keepAlive", false}, {"skipTLSVerify", false}, {"delete", false},
	} {
		t.Run(tc.key, func(t *testing.T) {
			if got := isKeepSwitch(tc.key); got != tc.want {
				t.Errorf("isKeepSwitch(%q) = %v, want %v", tc.key, got, tc.want)
			}
		})
	}
}

func enumOf(vals ...string) []apiextensionsv1.JSON {
	var out []apiextensionsv1.JSON
	for _, v := range vals {
		out = append(out, apiextensionsv1.JSON{Raw: []byte(`"` + v + `"`)})
	}
	return out
}

// A switch is found from the schema (set or not, with its description) and from the object
// alone (a schema that declares nothing); a deletion policy only with an enum value that keeps;
// a switch already set to keep is not offered again.
func TestOptOuts(t *testing.T) {
	schemaWith := func(props map[string]apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
		return &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	}
	for _, tc := range []struct {
		name   string
		spec   map[string]any
		schema *apiextensionsv1.JSONSchemaProps
		want   []string // field=value (now)
	}{
		{"object alone, set false", map[string]any{"preserveOnDelete": false}, nil, []string{"spec.preserveOnDelete=true (false)"}},
		{"object alone, already true", map[string]any{"preserveOnDelete": true}, nil, nil},
		{"schema, unset, described", map[string]any{}, schemaWith(map[string]apiextensionsv1.JSONSchemaProps{
			"retainOnDelete": {Type: "boolean", Description: "keeps the bucket"}}), []string{"spec.retainOnDelete=true () keeps the bucket"}},
		{"nested in the spec", map[string]any{"cleanup": map[string]any{"skipCleanup": false}}, nil, []string{"spec.cleanup.skipCleanup=true (false)"}},
		{"a policy with an enum that orphans", map[string]any{"deletionPolicy": "Delete"}, schemaWith(map[string]apiextensionsv1.JSONSchemaProps{
			"deletionPolicy": {Type: "string", Enum: enumOf("Delete", "Orphan")}}), []string{"spec.deletionPolicy=Orphan (Delete)"}},
		{"a policy already orphaning", map[string]any{"deletionPolicy": "Orphan"}, schemaWith(map[string]apiextensionsv1.JSONSchemaProps{
			"deletionPolicy": {Type: "string", Enum: enumOf("Delete", "Orphan")}}), nil},
		{"a policy without an enum: value unknown", map[string]any{"deletionPolicy": "Delete"}, nil, nil},
		{"a policy whose enum never keeps", map[string]any{}, schemaWith(map[string]apiextensionsv1.JSONSchemaProps{
			"deletionPolicy": {Type: "string", Enum: enumOf("Delete", "WipeOut")}}), nil},
		{"a string named like a switch is not one", map[string]any{"preserveOnDelete": "yes"}, nil, nil},
		{"unrelated booleans", map[string]any{"paused": false, "deletionProtection": true}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, s := range optOuts(tc.spec, tc.schema) {
				g := s.field() + "=" + strings.TrimSpace(strings.Join([]string{toString(s.value), "(" + s.now + ")", s.description}, " "))
				got = append(got, strings.TrimSpace(g))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("optOuts = %q, want %q", got, tc.want)
			}
		})
	}
}

func toString(v any) string {
	switch t := v.(type) {
	case bool:
		return boolWord(t)
	case string:
		return t
	}
	return ""
}

func TestOptOutPatch(t *testing.T) {
	if got := optOutPatch(optOut{path: []string{"cleanup", "orphanOnDelete"}, value: true}); got != `{"spec":{"cleanup":{"orphanOnDelete":true}}}` {
		t.Errorf("optOutPatch = %s", got)
	}
	if got := optOutPatch(optOut{path: []string{"deletionPolicy"}, value: "Orphan"}); got != `{"spec":{"deletionPolicy":"Orphan"}}` {
		t.Errorf("optOutPatch = %s", got)
	}
}

func TestNamesWork(t *testing.T) {
	for _, tc := range []struct {
		kind, finalizer string
		want            bool
	}{
		{"ClusterDeprovision", "example.io/deprovision", true},
		{"BucketCleanup", "store.example.io/finalizer", true},
		{"VolumeTeardown", "example.io/x", true},
		{"MachineSnapshot", "example.io/snapshot-release", true},
		{"ClusterImageSet", "example.io/deprovision", false},
		{"SyncSet", "example.io/finalizer", false},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			if got := namesWork(tc.kind, tc.finalizer); got != tc.want {
				t.Errorf("namesWork(%s, %s) = %v, want %v", tc.kind, tc.finalizer, got, tc.want)
			}
		})
	}
}

func TestCompanionState(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	yes := true
	mk := func(age time.Duration, status map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.io/v1", "kind": "ClusterDeprovision",
			"metadata": map[string]any{"name": "c", "namespace": "ns", "uid": "dep-1"}}}
		if status != nil {
			u.Object["status"] = status
		}
		u.SetCreationTimestamp(metav1.NewTime(now.Add(-age)))
		return u
	}
	job := func(cond batchv1.JobConditionType, active int32) batchv1.Job {
		j := batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "uninstall", Namespace: "ns",
			OwnerReferences: []metav1.OwnerReference{{UID: types.UID("dep-1"), Controller: &yes}}}}
		j.Status.Active = active
		if cond != "" {
			j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}
		}
		return j
	}
	day := 24 * time.Hour
	for _, tc := range []struct {
		name string
		obj  *unstructured.Unstructured
		jobs []batchv1.Job
		want string // a word the state holds, "" for none
	}{
		{"never completed, no Job", mk(day, map[string]any{"completed": false}), nil, "status.completed is false"},
		{"no status at all: no evidence", mk(day, nil), nil, ""},
		{"a status silent on completion", mk(day, map[string]any{"results": map[string]any{}}), nil, ""},
		{"a completion condition False", mk(day, map[string]any{"conditions": []any{map[string]any{"type": "Completed", "status": "False", "reason": "Waiting"}}}), nil, "condition Completed is False"},
		{"too young to judge", mk(time.Minute, map[string]any{"completed": false}), nil, ""},
		{"completed", mk(day, map[string]any{"completed": true}), nil, ""},
		{"a failed condition", mk(time.Minute, map[string]any{"conditions": []any{map[string]any{"type": "DeprovisionFailed", "status": "True", "reason": "AuthFailed", "message": "no access"}}}), nil, "DeprovisionFailed"},
		{"a failed Job", mk(time.Minute, nil), []batchv1.Job{job(batchv1.JobFailed, 0)}, "jobs.batch/uninstall -n ns, failed"},
		{"a running Job", mk(day, map[string]any{"completed": false}), []batchv1.Job{job("", 1)}, ""},
		{"a completed Job", mk(day, nil), []batchv1.Job{job(batchv1.JobComplete, 0)}, ""},
		{"a state that failed", mk(time.Minute, map[string]any{"phase": "Failed"}), nil, "status.phase is Failed"},
		{"a phase that completed", mk(day, map[string]any{"phase": "Succeeded"}), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := companionState(tc.obj, tc.jobs, now)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("companionState = %q, want one with %q", got, tc.want)
			}
		})
	}
}

func TestCompanionTie(t *testing.T) {
	yes := true
	res := kinds.Resource{Group: "example.io", Version: "v1", Resource: "clusterdeployments", Kind: "ClusterDeployment", Namespaced: true}
	target := subject{res: res, obj: &metav1.ObjectMeta{Name: "prod-1", Namespace: "clusters", UID: "cd-1"}}
	mk := func(ns string, labels map[string]string, owner bool) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetNamespace(ns)
		u.SetLabels(labels)
		if owner {
			u.SetOwnerReferences([]metav1.OwnerReference{{UID: "cd-1", Controller: &yes}})
		}
		return u
	}
	for _, tc := range []struct {
		name string
		obj  *unstructured.Unstructured
		want string
	}{
		{"controller ownerReference", mk("clusters", nil, true), "ownerReference"},
		{"a label naming its kind holds its name", mk("clusters", map[string]string{"example.io/cluster-deployment-name": "prod-1"}, false), "label example.io/cluster-deployment-name"},
		{"the label in another namespace", mk("other", map[string]string{"example.io/cluster-deployment-name": "prod-1"}, false), ""},
		{"a label of another kind", mk("clusters", map[string]string{"example.io/pool-name": "prod-1"}, false), ""},
		{"another object's name", mk("clusters", map[string]string{"example.io/cluster-deployment-name": "prod-2"}, false), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := companionTie(tc.obj, target)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("companionTie = %q, want one with %q", got, tc.want)
			}
		})
	}
}

// The whole rule on fakes: a stalled remover whose object offers a keep switch and owns a
// deprovision record that never completes gets the switch first, the record as its blocker,
// and keeps the strip last; without the record and without a stall, nothing changes; with the
// record and no switch, the record's step leads.
func TestApplyOwnWayOut(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	yes := true
	list := []string{"get", "list"}
	cdRes := kinds.Resource{Group: "example.io", Version: "v1", Resource: "clusterdeployments", Kind: "ClusterDeployment", Namespaced: true, Verbs: list}
	depRes := kinds.Resource{Group: "example.io", Version: "v1", Resource: "clusterdeprovisions", Kind: "ClusterDeprovision", Namespaced: true, Verbs: list}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.io/v1", "kind": "ClusterDeployment",
		"metadata": map[string]any{"name": "prod-1", "namespace": "clusters", "uid": "cd-1"},
		"spec":     map[string]any{"preserveOnDelete": false, "clusterMetadata": map[string]any{"infraID": "prod-1-x7k2p"}}}}
	dep := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.io/v1", "kind": "ClusterDeprovision",
		"metadata": map[string]any{"name": "prod-1", "namespace": "clusters", "uid": "dep-1"},
		"status":   map[string]any{"completed": false}}}
	dep.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "example.io/v1", Kind: "ClusterDeployment", Name: "prod-1", UID: "cd-1", Controller: &yes}})
	dep.SetCreationTimestamp(metav1.NewTime(now.Add(-48 * time.Hour)))
	explainer := func(dyn ...runtime.Object) *Explainer {
		lists := map[schema.GroupVersionResource]string{depRes.GVR(): "ClusterDeprovisionList", cdRes.GVR(): "ClusterDeploymentList"}
		c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(),
			APIExtensions: apiextensionsfake.NewSimpleClientset(),
			Dynamic:       dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, dyn...)}
		x := New(c, kinds.NewCatalog([]kinds.Resource{cdRes, depRes}, nil))
		x.now = now
		return x
	}
	run := func(x *Explainer, o *unstructured.Unstructured, stalled bool) Finalizer {
		strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", LastResort: true, Cost: "left behind: x"}
		f := Finalizer{Name: "example.io/deprovision",
			Controllers: []Controller{{Object: ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "sys", Name: "ctl"}, Found: true, Healthy: true}},
			Remedies:    []Remediation{{Code: ReasonReadControllerLogs, Summary: "logs"}, strip}}
		if stalled {
			f.Stalled = &Stall{}
		}
		e := &Explanation{Finalizers: []Finalizer{f}}
		x.applyOwnWayOut(ctx, subject{res: cdRes, obj: o}, e, ownWord{obj: o})
		return e.Finalizers[0]
	}
	codes := func(f Finalizer) string {
		var out []string
		for _, r := range f.Remedies {
			out = append(out, string(r.Code))
		}
		return strings.Join(out, ",")
	}

	t.Run("switch first, record blocks, strip last", func(t *testing.T) {
		f := run(explainer(dep), obj, true)
		if got := codes(f); got != "opt-out-of-cleanup,fix-companion-work,read-controller-logs,strip-finalizer" {
			t.Fatalf("steps %s", got)
		}
		if !strings.Contains(f.Remedies[0].Command, `-n clusters patch clusterdeployments.example.io prod-1 --type=merge -p '{"spec":{"preserveOnDelete":true}}'`) {
			t.Errorf("command %s", f.Remedies[0].Command)
		}
		if !strings.Contains(f.Remedies[0].Cost, "infrastructure tagged with ID prod-1-x7k2p (spec.clusterMetadata.infraID)") {
			t.Errorf("cost %s", f.Remedies[0].Cost)
		}
		if len(f.Blockers) != 1 || f.Blockers[0].Object.String() != "clusterdeprovisions.example.io/prod-1 -n clusters" || f.Blockers[0].Code != ReasonCompanionUnfinished {
			t.Errorf("blockers %+v", f.Blockers)
		}
	})
	t.Run("no stall, no record: unchanged", func(t *testing.T) {
		if f := run(explainer(), obj, false); codes(f) != "read-controller-logs,strip-finalizer" || len(f.Blockers) != 0 {
			t.Errorf("changed: %s %+v", codes(f), f.Blockers)
		}
	})
	t.Run("stalled without a record: the switch alone", func(t *testing.T) {
		if f := run(explainer(), obj, true); codes(f) != "opt-out-of-cleanup,read-controller-logs,strip-finalizer" {
			t.Errorf("steps %s", codes(f))
		}
	})
	t.Run("no switch: the record leads, the strip stays", func(t *testing.T) {
		plain := obj.DeepCopy()
		unstructured.RemoveNestedField(plain.Object, "spec", "preserveOnDelete")
		f := run(explainer(dep), plain, false)
		if codes(f) != "fix-companion-work,read-controller-logs,strip-finalizer" || !strings.Contains(f.Remedies[0].Summary, "remove example.io/deprovision by hand as a last resort") {
			t.Errorf("steps %s: %s", codes(f), f.Remedies[0].Summary)
		}
	})
}
