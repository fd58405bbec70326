package finalizers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestOwnValueRejected(t *testing.T) {
	requested := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	after, before := requested.Add(time.Minute), requested.Add(-time.Hour)
	autoneg := map[string]string{"anthos.cft.dev/autoneg": `{"name":"shop_web", "max_rate_per_endpoint":100}`,
		lastApplied: `{"metadata":{"annotations":{"anthos.cft.dev/autoneg":"{\"name\":\"other\"}"}}}`}
	invalid := "googleapi: Error 400: Invalid value for field 'backendService': 'shop_web'. Must be a match of regex '[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?', invalid"
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"backend": map[string]any{"name": "bad_name"}}}}
	ev := func(typ, msg string, at time.Time) Event {
		return Event{Type: typ, Reason: "BackendError", Message: msg, Last: at}
	}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		w           ownWord
		want        string
	}{
		{"an annotation's JSON holds the rejected value", autoneg, ownWord{events: []Event{ev(corev1.EventTypeWarning, invalid, after)}}, "shop_web"},
		{"a spec field holds it", nil, ownWord{obj: obj, events: []Event{ev(corev1.EventTypeWarning, `name "bad_name" is not valid`, after)}}, "bad_name"},
		{"no rejection said", autoneg, ownWord{events: []Event{ev(corev1.EventTypeWarning, "timeout deregistering 'shop_web'", after)}}, ""},
		{"a value the object does not hold", autoneg, ownWord{events: []Event{ev(corev1.EventTypeWarning, "Invalid value 'other_web'", after)}}, ""},
		{"only kubectl's copy holds it", autoneg, ownWord{events: []Event{ev(corev1.EventTypeWarning, "Invalid value 'other'", after)}}, ""},
		{"a normal event", autoneg, ownWord{events: []Event{ev(corev1.EventTypeNormal, invalid, after)}}, ""},
		{"before the deletion", autoneg, ownWord{events: []Event{ev(corev1.EventTypeWarning, invalid, before)}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _, _ := ownValueRejected(tc.annotations, tc.w, requested); got != tc.want {
				t.Fatalf("ownValueRejected = %q, want %q", got, tc.want)
			}
		})
	}
}
