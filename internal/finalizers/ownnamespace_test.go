package finalizers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The namespaces named for a cluster-scoped object that are being deleted since its own deletion
// are the ones its controller waits for; a namespace deleted before it, one that is not being
// deleted, and one whose name merely contains the object's are not.
func TestOwnNamespaces(t *testing.T) {
	requested := time.Date(2022, 5, 20, 8, 0, 0, 0, time.UTC)
	ns := func(name string, deleted *time.Time) corev1.Namespace {
		n := corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if deleted != nil {
			ts := metav1.NewTime(*deleted)
			n.DeletionTimestamp = &ts
		}
		return n
	}
	after, sameSecond, before := requested.Add(2*time.Second), requested.Add(300*time.Millisecond), requested.Add(-time.Minute)
	all := []corev1.Namespace{
		ns("space-of-member1", &after),
		ns("member1", &sameSecond),
		ns("old-member1", &before),
		ns("live-member1", nil),
		ns("member10", &after),
		ns("member1-logs", &after),
	}
	got := ownNamespaces(all, "member1", requested)
	var names []string
	for _, n := range got {
		names = append(names, n.Name)
	}
	if len(names) != 2 || names[0] != "member1" || names[1] != "space-of-member1" {
		t.Errorf("own namespaces = %q, want member1 and space-of-member1", names)
	}
	if got := ownNamespaces(all, "m1", requested); got != nil {
		t.Errorf("a two-letter name matched %d namespaces", len(got))
	}
}
