package finalizers

import (
	"strings"
	"testing"
)

// A stuck object's own annotation or label key whose domain begins with a workload's name ties
// that workload to the finalizer's domain: medium when the key's domain also names a word of the
// finalizer's domain, low otherwise; keys of other products, short names and keys without a
// domain tie nothing.
func TestObjectKeyTies(t *testing.T) {
	op := workload{ref: ObjectRef{Group: "apps", Kind: "Deployment", Resource: "deployments", Namespace: "ops", Name: "remove-empty-ns-operator"}, labels: map[string]string{"application": "remove-empty-ns-operator"}}
	web := workload{ref: ObjectRef{Group: "apps", Kind: "Deployment", Resource: "deployments", Namespace: "web", Name: "web"}}
	for _, tc := range []struct {
		name   string
		w      workload
		annots map[string]string
		labels map[string]string
		want   string
	}{
		{"its key under the framework's domain", op, map[string]string{"remove-empty-ns-operator.kopf.dev/will-remove": "True"}, nil, "medium: the object carries its annotation remove-empty-ns-operator.kopf.dev/will-remove"},
		{"its key under another domain", op, nil, map[string]string{"remove-empty-ns-operator.example.com/owned": "true"}, "low: the object carries its label remove-empty-ns-operator.example.com/owned"},
		{"another product's key", op, map[string]string{"argocd.argoproj.io/sync-wave": "1"}, nil, ""},
		{"a name too short to say", web, map[string]string{"web.kopf.dev/x": "1"}, nil, ""},
		{"a key without a domain", op, map[string]string{"remove-empty-ns-operator/x": "1"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ti := range objectKeyTies("kopf.zalando.org", tc.annots, tc.labels, tc.w) {
				got = append(got, string(ti.conf)+": "+ti.evidence)
			}
			if (tc.want == "") != (len(got) == 0) || (tc.want != "" && !strings.HasPrefix(strings.Join(got, "|"), tc.want)) {
				t.Errorf("ties %q, want one starting %q", got, tc.want)
			}
		})
	}
}
