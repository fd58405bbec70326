package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// namespace creates a namespace for one test.
func namespace(t *testing.T, name string) string {
	t.Helper()
	_, err := kc.Kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// A Kustomization whose failure message carries an ANSI escape, a bidi override and a
// newline (status text is written by whoever can write the status): the envelope carries
// them escaped, as the text printer does, and none reaches the client raw.
func TestClusterTextEscaped(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "mcp-escape")
	msg := "kustomize build failed\x1b[2J\u202eevil\nforged line"
	gvr := schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": "apps", "namespace": ns},
		"spec":     map[string]any{"interval": "10m", "path": "./apps", "prune": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
	}}
	ctx := context.Background()
	created, err := kc.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Object["status"] = map[string]any{"observedGeneration": int64(1), "conditions": []any{map[string]any{
		"type": "Ready", "status": "False", "reason": "BuildFailed", "message": msg,
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": int64(1)}}}
	if _, err := kc.Dynamic.Resource(gvr).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, config(env.Kubeconfig, t.TempDir()))
	res := call(t, cs, "flux_chain", map[string]any{"namespace": ns})
	var r fluxchain.Result
	structured(t, res, &r)
	if len(r.RootCauses) != 1 {
		t.Fatalf("root causes = %+v", r.RootCauses)
	}
	if got, want := r.RootCauses[0].Message, `kustomize build failed\x1b[2J\u202eevil\nforged line`; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	all := text(res) + string(raw)
	for _, c := range []string{"\x1b", "\u202e", `\u001b`, `\u202e"`, "\nforged line"} {
		if strings.Contains(all, c) {
			t.Errorf("the answer carries %q raw", c)
		}
	}
}

// A Terminating Secret is explained from its metadata; its data is in no answer.
func TestSecretDataNeverReturned(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "mcp-secret")
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns, Finalizers: []string{"example.com/backup"}},
		Data: map[string][]byte{"password": []byte(secretValue)}, StringData: map[string]string{"token": secretValue + "-token"}}
	if _, err := kc.Kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kc.Kube.CoreV1().Secrets(ns).Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = kc.Kube.CoreV1().Secrets(ns).Patch(context.Background(), "db", "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	cs := connect(t, config(env.Kubeconfig, t.TempDir()))
	for _, args := range []map[string]any{{"object": "secret db", "namespace": ns}, {"namespace": ns}, {"allNamespaces": true}} {
		res := call(t, cs, "why_terminating", args)
		var r whyterminating.Result
		structured(t, res, &r)
		found := false
		for _, o := range r.Objects {
			found = found || o.Object.String() == "secrets/db -n "+ns
		}
		if !found || r.Verdict == "CLEAR" {
			t.Errorf("%v: verdict %s, the Secret is not explained: %+v", args, r.Verdict, r.Objects)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if strings.Contains(text(res)+string(raw), secretValue) {
			t.Errorf("%v: the answer carries the Secret's data", args)
		}
	}
}
