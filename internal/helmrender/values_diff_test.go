package helmrender_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/chartutil"
	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubeforensics/suite/internal/helmrender"
)

// valuesObjects are the ConfigMaps and Secrets every case of TestValuesDifferential declares.
const valuesObjects = `apiVersion: v1
kind: ConfigMap
metadata: {name: doc}
data:
  values.yaml: |
    persistence:
      data: {size: 1Gi}
      cache: {size: 2Gi}
    list: [a, b]
  cfg: "a,b=[c]{d}\\e"
  quoted: "'0123'"
  number: "0123"
binaryData:
  bin.yaml: cGVyc2lzdGVuY2U6IHtkYXRhOiB7c2l6ZTogOUdpfX0K
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
data:
  both: ZnJvbS1kYXRh
  values.yaml: cGVyc2lzdGVuY2U6IHtjYWNoZToge3NpemU6IDVHaX19Cg==
stringData:
  both: from-stringData
  tag: v1.2.3
`

// Each valuesFrom case is composed twice: by ComposeValues from the declared objects, and by
// fluxcd/pkg's ChartValuesFromReferences reading the same objects from a real API server, as
// helm-controller reads them. Values and failure must agree.
func TestValuesDifferential(t *testing.T) {
	e := needEnv(t)
	ctx := context.Background()
	c, err := client.New(e.RESTConfig, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct{ name, spec string }{
		{"document merged, values on top", "valuesFrom: [{kind: ConfigMap, name: doc}]\n  values: {persistence: {cache: {size: 20Gi}}}"},
		{"literal targetPath", "valuesFrom: [{kind: ConfigMap, name: doc, valuesKey: cfg, targetPath: app.config, literal: true}]"},
		{"--set targetPath", "valuesFrom: [{kind: ConfigMap, name: doc, valuesKey: cfg, targetPath: app.config}]"},
		{"quoted targetPath", "valuesFrom: [{kind: ConfigMap, name: doc, valuesKey: quoted, targetPath: app.id}]"},
		{"number targetPath", "valuesFrom: [{kind: ConfigMap, name: doc, valuesKey: number, targetPath: app.id}]"},
		{"binaryData not read", "valuesFrom: [{kind: ConfigMap, name: doc, valuesKey: bin.yaml}]"},
		{"binaryData optional", "valuesFrom: [{kind: ConfigMap, name: doc, valuesKey: bin.yaml, optional: true}]"},
		{"missing optional", "valuesFrom: [{kind: ConfigMap, name: absent, optional: true}, {kind: ConfigMap, name: doc}]"},
		{"missing required", "valuesFrom: [{kind: ConfigMap, name: absent}]"},
		{"missing key optional", "valuesFrom: [{kind: Secret, name: creds, valuesKey: nope, optional: true}]"},
		{"secret stringData over data", "valuesFrom: [{kind: Secret, name: creds, valuesKey: both, targetPath: who}]"},
		{"secret document and targetPath", "valuesFrom: [{kind: ConfigMap, name: doc}, {kind: Secret, name: creds}, {kind: Secret, name: creds, valuesKey: tag, targetPath: image.tag}]"},
		{"targetPath then values", "valuesFrom: [{kind: Secret, name: creds, valuesKey: tag, targetPath: image.tag}]\n  values: {image: {tag: inline, repo: r}}"},
		{"unsupported kind", "valuesFrom: [{kind: Pod, name: doc}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := fmt.Sprintf("values-%d", i)
			if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				t.Fatal(err)
			}
			var objs []*unstructured.Unstructured
			for _, doc := range strings.Split(valuesObjects, "\n---\n") {
				o := obj(t, doc)
				objs = append(objs, o)
				live := o.DeepCopy()
				live.SetNamespace(ns)
				if err := c.Create(ctx, live); err != nil {
					t.Fatal(err)
				}
			}
			u := release(t, "  "+tc.spec+"\n")
			u.SetNamespace(ns)
			hr, err := helmrender.Decode(u)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := chartutil.ChartValuesFromReferences(ctx, logr.Discard(), c, ns, hr.GetValues(), hr.Spec.ValuesFrom...)
			got, _, gotErr := helmrender.ComposeValues(ctx, hr, objs)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("helm-controller's error %v, ours %v", wantErr, gotErr)
			}
			if wantErr == nil {
				if d := cmp.Diff(want.AsMap(), got); d != "" {
					t.Fatalf("values differ from helm-controller's (-theirs +ours):\n%s", d)
				}
			}
		})
	}
}
