package retire

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Offline, a removed StatefulSet names the claims it made, as the StatefulSet controller names
// them (<template>-<statefulset>-<ordinal>, one per replica), and says whether they go with it
// (issue 30, item 2).
func TestStatefulSetClaimNames(t *testing.T) {
	sts := obj("apps/v1", "StatefulSet", "db", "pg", nil)
	_ = unstructured.SetNestedSlice(sts.Object, []any{map[string]any{"metadata": map[string]any{"name": "data"}}}, "spec", "volumeClaimTemplates")
	_ = unstructured.SetNestedField(sts.Object, int64(2), "spec", "replicas")
	if got := statefulSet(sts).Detail; !strings.Contains(got, "whenDeleted: Retain: its pods go and its claims are left orphaned (data-pg-0, data-pg-1)") {
		t.Errorf("detail %q", got)
	}
	_ = unstructured.SetNestedField(sts.Object, "Delete", "spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted")
	unstructured.RemoveNestedField(sts.Object, "spec", "replicas")
	if got := statefulSet(sts).Detail; !strings.Contains(got, "deleted with it (data-pg-0)") {
		t.Errorf("detail %q", got)
	}
}
