package saferetire_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/kinds"
)

// The sweep that lists every type pages through a LIST longer than its page: five labelled
// ConfigMaps read two at a time come back whole, in three requests, filtered by Keep while
// their managedFields are still there (what --orphans needs to see kustomize-controller's
// entry), and dropped of them afterwards.
func TestSweepPaginates(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := namespace(t, "sweep")
	const label = "kubeforensics.dev/sweep"
	for i := range 5 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Namespace: ns, Labels: map[string]string{label: "yes"}}}
		if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	flags := genericclioptions.NewConfigFlags(true)
	*flags.KubeConfig, *flags.Context = env.Kubeconfig, env.Context
	c, err := cluster.Connect(flags)
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := kinds.Discover(c.Discovery)
	if err != nil {
		t.Fatal(err)
	}
	sawFields := 0
	keep := func(r kinds.Resource, m *metav1.PartialObjectMetadata) bool {
		if len(m.ManagedFields) > 0 {
			sawFields++
		}
		return m.Name != "cm-4"
	}
	s := finalizers.Sweep(ctx, c, catalog, finalizers.ScanOptions{Namespace: ns, LabelSelector: label, Keep: keep, PageSize: 2})
	if len(s.Failed) > 0 {
		t.Fatalf("failed reads: %v", s.Failed)
	}
	var got []string
	for _, ty := range s.Types {
		for _, m := range ty.Items {
			got = append(got, ty.Resource.Kind+"/"+m.Name)
			if m.ManagedFields != nil {
				t.Errorf("%s kept its managedFields", m.Name)
			}
		}
	}
	if fmt.Sprint(got) != "[ConfigMap/cm-0 ConfigMap/cm-1 ConfigMap/cm-2 ConfigMap/cm-3]" {
		t.Errorf("swept %v, want cm-0..cm-3 (cm-4 filtered out)", got)
	}
	if sawFields != 5 {
		t.Errorf("Keep saw managedFields on %d of 5 objects", sawFields)
	}
	if want := int64(len(s.Types) + 2); s.Requests != want {
		t.Errorf("%d LIST requests, want %d: one per type and two more pages of ConfigMaps", s.Requests, want)
	}
}
