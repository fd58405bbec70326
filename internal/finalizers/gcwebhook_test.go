package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A fail-closed webhook that answers and intercepts every UPDATE of the owner is named as what
// refuses the garbage collector's update, once the collector has had nothing to wait for past
// the stall window; never sooner, never for objects its selector leaves out, never while a
// dependent still blocks; its step is the webhook's product, never a strip.
func TestCollectorRefusedByAnAnsweringWebhook(t *testing.T) {
	ctx := context.Background()
	widgets := kinds.Resource{Group: "example.org", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	objects := func() []runtime.Object {
		objs := namedHookObjects()
		cfg := objs[0].(*admissionv1.ValidatingWebhookConfiguration)
		cfg.Webhooks[0].Rules[0].Operations = []admissionv1.OperationType{admissionv1.Create, admissionv1.Update}
		cfg.Webhooks[0].ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "example.org/owner", Operator: metav1.LabelSelectorOpExists}}}
		return objs
	}
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	owner := func(ago time.Duration, labels map[string]string) subject {
		ts := metav1.NewTime(now.Add(-ago))
		return subject{res: widgets, obj: &metav1.ObjectMeta{Name: "w", Namespace: "team", Labels: labels, DeletionTimestamp: &ts, Finalizers: []string{metav1.FinalizerDeleteDependents}}}
	}
	labelled := map[string]string{"example.org/owner": "w"}
	run := func(o subject, have ...Blocker) Finalizer {
		x := fakeExplainer(objects())
		x.now = now
		f := Finalizer{Name: metav1.FinalizerDeleteDependents, Blockers: have, Remedies: []Remediation{{Summary: "the collector's own"}}}
		x.collectorRefused(ctx, o, &f)
		return f
	}
	const cfg = "validatingwebhookconfigurations.admissionregistration.k8s.io/product-validation"

	t.Run("refused", func(t *testing.T) {
		f := run(owner(30*time.Minute, labelled))
		if len(f.Blockers) != 1 || f.Blockers[0].Object.String() != cfg || f.Blockers[0].Code != ReasonWebhookRejectsUpdate {
			t.Fatalf("blockers %+v", f.Blockers)
		}
		if len(f.Remedies) != 1 || f.Remedies[0].Code == ReasonStripFinalizer || !strings.Contains(f.Remedies[0].Summary, "v.example.org") {
			t.Fatalf("steps %+v", f.Remedies)
		}
	})
	for name, c := range map[string]struct {
		o    subject
		have []Blocker
	}{
		"within the stall window":           {o: owner(time.Minute, labelled)},
		"the object selector leaves it out": {o: owner(30*time.Minute, nil)},
		"a dependent still blocks":          {o: owner(30*time.Minute, labelled), have: []Blocker{{Code: ReasonForegroundDependent}}},
	} {
		t.Run(name, func(t *testing.T) {
			f := run(c.o, c.have...)
			if len(f.Blockers) != len(c.have) || f.Remedies[0].Summary != "the collector's own" {
				t.Fatalf("blockers %+v, steps %+v", f.Blockers, f.Remedies)
			}
		})
	}
}
