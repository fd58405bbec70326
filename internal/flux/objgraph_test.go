package flux

import "testing"

// A message names a referenced object by namespace/name or its name quoted, and only where the
// name ends: `podinfo` is not named by `podinfo-2`.
func TestMessageNamesReference(t *testing.T) {
	r := gref{kind: "HelmChart", namespace: "apps", name: "apps-podinfo"}
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"HelmChart 'apps/apps-podinfo' is not ready: does not have an artifact", true},
		{"no artifact available for HelmRepository source 'apps-podinfo'", true},
		{`secrets "apps-podinfo" not found`, true},
		{"[HelmRelease/apps/apps-podinfo status: 'Failed']", true},
		{"HelmChart 'apps/apps-podinfo-2' is not ready", false},
		{"apps-podinfo is mentioned without quotes", false},
		{"", false},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			if got := names(&Condition{Message: tc.msg}, r); got != tc.want {
				t.Errorf("names = %v, want %v", got, tc.want)
			}
		})
	}
}

// The walk follows only the edges an object's own condition says it waits on, and ends at the
// deepest object: a HelmRelease that failed its upgrade for its own reason is not blamed on a
// HelmChart that is not Ready, while one whose reason is SourceNotReady is.
func TestWalkFollowsOnlyWaitedEdges(t *testing.T) {
	notReady := func(reason, msg string) *Condition { return &Condition{Status: "False", Reason: reason, Message: msg} }
	chart := gref{kind: helmChartKind, namespace: "a", name: "a-p", field: "status.helmChart"}
	objs := &Objects{namespace: "a", graph: map[string]*gobj{
		"HelmRelease/a/own":  {kind: helmReleaseKind, namespace: "a", name: "own", ready: notReady("UpgradeFailed", "context deadline exceeded"), refs: []gref{chart}},
		"HelmRelease/a/wait": {kind: helmReleaseKind, namespace: "a", name: "wait", ready: notReady("SourceNotReady", "HelmChart 'a/a-p' is not ready"), refs: []gref{chart}},
		"HelmChart/a/a-p":    {kind: helmChartKind, namespace: "a", name: "a-p", ready: notReady("NoSourceArtifact", "no artifact available for HelmRepository source 'p'"), refs: []gref{{kind: helmRepositoryKind, namespace: "a", name: "p", field: "spec.sourceRef"}}},
	}}
	if got := objs.deepest("HelmRelease/a/own"); len(got) != 1 || got[0].cause != "HelmRelease/a/own" {
		t.Errorf("own reason: %+v", got)
	}
	got := objs.deepest("HelmRelease/a/wait")
	if len(got) != 1 || got[0].cause != "HelmRepository/a/p" || got[0].state != refMissing || len(got[0].path) != 1 || got[0].path[0] != "HelmChart/a/a-p" {
		t.Errorf("waiting: %+v", got)
	}
}
