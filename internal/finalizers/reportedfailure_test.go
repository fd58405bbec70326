package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The object's own Warning event after the deletion leads the steps of a running remover; one
// from before the deletion, a Normal one, one another component reported (the scheduler, another
// workload), or a remover that does not run changes nothing.
func TestApplyReportedFailure(t *testing.T) {
	requested := time.Date(2026, 12, 2, 9, 0, 0, 500e6, time.UTC)
	now := requested.Add(3 * time.Hour)
	running := Finalizer{Name: "app.example.dev/cleanup", Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "sys", Name: "core"}, Found: true, Healthy: true}},
		Remedies: []Remediation{{Code: ReasonReadControllerLogs, Summary: "read its logs"}}}
	stopped := running
	stopped.Controllers = []Controller{{Object: running.Controllers[0].Object, Found: true}}
	warn := Event{Type: "Warning", Reason: "FailedGC", Message: "dial tcp 10.0.0.1:6443: connect: connection timed out", Source: "app", Count: 37}
	for _, c := range []struct {
		name string
		f    Finalizer
		ev   Event
		last time.Time
		want bool
	}{
		{"a warning after the deletion", running, warn, now.Add(-time.Minute), true},
		{"a warning in the deletion's second", running, warn, requested.Truncate(time.Second), true},
		{"a warning before the deletion", running, warn, requested.Add(-time.Second), false},
		{"a normal event", running, Event{Type: "Normal", Reason: "Synced"}, now.Add(-time.Minute), false},
		{"a remover that does not run", stopped, warn, now.Add(-time.Minute), false},
		{"a warning of the scheduler", running, Event{Type: "Warning", Reason: "FailedScheduling", Message: "connection timed out", Source: "default-scheduler", Count: 37}, now.Add(-time.Minute), false},
		{"a warning of another workload", running, Event{Type: "Warning", Reason: "Failed", Message: "connection timed out", Source: "other-agent", Count: 37}, now.Add(-time.Minute), false},
		{"a warning of the remover by name", running, Event{Type: "Warning", Reason: "Failed", Message: "connection timed out", Source: "core", Count: 37}, now.Add(-time.Minute), true},
	} {
		x := fakeExplainer(controllerObjects("sys", "other-agent", nil)).At(now)
		ev := c.ev
		ev.Last = c.last
		e := &Explanation{Finalizers: []Finalizer{c.f}}
		e.Finalizers[0].Remedies = append([]Remediation(nil), c.f.Remedies...)
		x.applyReportedFailure(context.Background(), e, ownWord{events: []Event{ev}}, requested)
		first := e.Finalizers[0].Remedies[0].Summary
		got := strings.Contains(first, "acts on the object and fails") && strings.Contains(first, "connection timed out") && strings.Contains(first, "37 times")
		if coded := e.Finalizers[0].Remedies[0].Code == ReasonFixReportedFailure; coded != c.want {
			t.Errorf("%s: first step's code %q, want %s: %v", c.name, e.Finalizers[0].Remedies[0].Code, ReasonFixReportedFailure, c.want)
		}
		if got != c.want {
			t.Errorf("%s: first step %q, want the failure first: %v", c.name, first, c.want)
		}
	}
}
