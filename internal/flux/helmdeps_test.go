package flux

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/apis/meta"
)

// waitsOnHR is a HelmRelease held back on dep, with the message helm-controller's dependency
// check writes (internal/controller/helmrelease_controller.go, checkDependencies).
func waitsOnHR(name, dep string) helmv2.HelmRelease {
	hr := helmRelease(name, "v1", "False", "DependencyNotReady", "dependency 'flux-system/"+dep+"' is not ready")
	hr.Spec.DependsOn = append(hr.Spec.DependsOn, meta.DependencyReference{Name: dep})
	return hr
}

func TestHelmReleaseWaits(t *testing.T) {
	installFailed := helmRelease("backend", "v1", "False", "InstallFailed", "Helm install failed for release flux-system/backend with chart backend@1.0.0: context deadline exceeded")
	ready := helmRelease("backend", "v1", "True", "InstallSucceeded", "Helm install succeeded")
	oldGen := ready
	oldGen.Generation = 2
	notFound := waitsOnHR("frontend", "backend")
	notFound.Status.Conditions[0].Message = `unable to get 'flux-system/backend' dependency: helmreleases.helm.toolkit.fluxcd.io "backend" not found`
	cycleA, cycleB := waitsOnHR("a", "b"), waitsOnHR("b", "a")
	suspended := waitsOnHR("frontend", "gone")
	suspended.Spec.Suspend = true
	health := "health check failed after 5m0s: timeout waiting for: [HelmRelease/flux-system/frontend status: 'InProgress']"
	cases := []struct {
		name      string
		appsReady bool // apps is Ready (does not wait), else its health check times out on frontend
		hrs       []helmv2.HelmRelease
		listed    string // the namespace read, "" for all
		cause     string // the one root cause's object name, "" for none
		reason    string
		heldBack  []string
		tiers     []string
		stale     bool
		gaps      int
	}{
		{"waits on one that failed", true, []helmv2.HelmRelease{installFailed, waitsOnHR("frontend", "backend")}, "",
			"backend", "InstallFailed", []string{"flux-system/frontend"}, nil, false, 0},
		{"the tier waits for the waiter", false, []helmv2.HelmRelease{installFailed, waitsOnHR("frontend", "backend")}, "",
			"backend", "InstallFailed", []string{"flux-system/frontend"}, []string{"flux-system/apps"}, false, 0},
		{"a line of waiters", true, []helmv2.HelmRelease{installFailed, waitsOnHR("middle", "backend"), waitsOnHR("frontend", "middle")}, "",
			"backend", "InstallFailed", []string{"flux-system/frontend", "flux-system/middle"}, nil, false, 0},
		{"a dependency that does not exist", true, []helmv2.HelmRelease{notFound}, "",
			"backend", ReasonNotFound, []string{"flux-system/frontend"}, nil, false, 0},
		{"two wait on one that does not exist", true, []helmv2.HelmRelease{notFound, waitsOnHR("web", "backend")}, "",
			"backend", ReasonNotFound, []string{"flux-system/frontend", "flux-system/web"}, nil, false, 0},
		{"the tier waits for one that waits on one that does not exist", false, []helmv2.HelmRelease{notFound}, "",
			"backend", ReasonNotFound, []string{"flux-system/frontend"}, []string{"flux-system/apps"}, false, 0},
		{"a dependency in a namespace not read", true, []helmv2.HelmRelease{notFound}, "elsewhere",
			"backend", ReasonDependencyUnread, []string{"flux-system/frontend"}, nil, false, 1},
		{"a dependency Ready at an older generation", true, []helmv2.HelmRelease{oldGen, waitsOnHR("frontend", "backend")}, "",
			"backend", ReasonGenerationNotObserved, []string{"flux-system/frontend"}, nil, false, 0},
		{"a dependency Ready now: a stale wait", true, []helmv2.HelmRelease{ready, waitsOnHR("frontend", "backend")}, "",
			"", "", nil, nil, true, 0},
		{"a cycle", true, []helmv2.HelmRelease{cycleA, cycleB}, "",
			"b", ReasonDependencyCycle, []string{"flux-system/a"}, nil, false, 0},
		{"failed, nothing waits on it", true, []helmv2.HelmRelease{installFailed}, "",
			"backend", "InstallFailed", nil, nil, false, 0},
		{"suspended while it waits", true, []helmv2.HelmRelease{suspended}, "",
			"frontend", "DependencyNotReady", nil, nil, false, 0},
		{"no status yet", true, []helmv2.HelmRelease{helmRelease("backend", "v1", "", "", "")}, "",
			"backend", ReasonNoStatus, nil, nil, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := objects(ks("apps", "True", "ReconciliationSucceeded", ""), ks("web", "True", "ReconciliationSucceeded", "", "apps"))
			if !tc.appsReady {
				objs = objects(ks("apps", "False", "HealthCheckFailed", health), ks("web", "False", "DependencyNotReady", waitApps, "apps"))
			}
			objs.HelmReleases, objs.namespace = tc.hrs, tc.listed
			c := Build(objs)
			stale := slices.ContainsFunc(c.Findings, func(f Finding) bool { return f.Kind == FindingStaleWait })
			if stale != tc.stale || len(c.Unevaluated) != tc.gaps {
				t.Errorf("stale wait %v, unevaluated %v; want %v and %d", stale, c.Unevaluated, tc.stale, tc.gaps)
			}
			if c.Healthy() {
				t.Errorf("healthy, with a HelmRelease not Ready")
			}
			if tc.cause == "" {
				if len(c.RootCauses) != 0 {
					t.Errorf("root causes %+v, want none", c.RootCauses)
				}
				return
			}
			if len(c.RootCauses) != 1 {
				t.Fatalf("root causes %+v, want %s alone", c.RootCauses, tc.cause)
			}
			rc := c.RootCauses[0]
			appliedBy := "flux-system/apps"
			if tc.reason == ReasonNotFound || tc.reason == ReasonDependencyUnread {
				appliedBy = "" // it was not read
			}
			if rc.Object != "helmreleases.helm.toolkit.fluxcd.io/"+tc.cause+" -n flux-system" || rc.Reason != tc.reason || rc.AppliedBy != appliedBy {
				t.Errorf("root cause %s %s applied by %s, want %s %s", rc.Object, rc.Reason, rc.AppliedBy, tc.cause, tc.reason)
			}
			if !slices.Equal(rc.HeldBack, tc.heldBack) || !slices.Equal(rc.Tiers, tc.tiers) {
				t.Errorf("held back %v, tiers %v; want %v and %v", rc.HeldBack, rc.Tiers, tc.heldBack, tc.tiers)
			}
			if tc.tiers != nil && !slices.Equal(rc.BlastRadius, []string{"flux-system/apps", "flux-system/web"}) {
				t.Errorf("blast radius %v, want apps and web behind it", rc.BlastRadius)
			}
		})
	}
}

// TestHelmReleaseDependsOnKustomization: a HelmRelease's dependsOn names a Kustomization
// (https://github.com/ionfury/homelab/pull/272): helm-controller looks for a HelmRelease of that
// name and waits forever; the cause says the name is a Kustomization's.
func TestHelmReleaseDependsOnKustomization(t *testing.T) {
	objs := objects(ks("apps", "True", "ReconciliationSucceeded", ""), ks("prereqs", "True", "ReconciliationSucceeded", ""))
	objs.HelmReleases = []helmv2.HelmRelease{waitsOnHR("frontend", "prereqs")}
	c := Build(objs)
	if len(c.RootCauses) != 1 || c.RootCauses[0].Reason != ReasonNotFound ||
		!strings.Contains(strings.Join(c.RootCauses[0].Explanation, " "), "kustomizations.kustomize.toolkit.fluxcd.io/prereqs -n flux-system") {
		t.Errorf("root causes %+v, want prereqs not found, named as a Kustomization", c.RootCauses)
	}
}

// TestHelmReleaseWalkIsLinear: a line of n HelmReleases waiting behind one that failed walks
// each once.
func TestHelmReleaseWalkIsLinear(t *testing.T) {
	const n = 500
	hrs := []helmv2.HelmRelease{helmRelease("hr-0000", "v1", "False", "InstallFailed", "")}
	for i := 1; i <= n; i++ {
		hrs = append(hrs, waitsOnHR(fmt.Sprintf("hr-%04d", i), fmt.Sprintf("hr-%04d", i-1)))
	}
	objs := objects(ks("apps", "True", "ReconciliationSucceeded", ""))
	objs.HelmReleases = hrs
	nodes := map[string]*Node{}
	for i := range objs.Kustomizations {
		nd := newNode(&objs.Kustomizations[i], objs, nil, time.Now())
		nodes[nd.ID] = nd
	}
	cs := newCauses(nodes, order(nodes), attachHelmReleases(nodes, objs, time.Now()))
	rcs, _ := cs.find()
	if len(rcs) != 1 || len(rcs[0].HeldBack) != n {
		t.Fatalf("%d root causes, want hr-0000 holding back %d", len(rcs), n)
	}
	if cs.walks != n {
		t.Errorf("%d walks for %d waiting HelmReleases, want one each", cs.walks, n)
	}
}

// TestHelmReleaseWaitFocused: focused on the Kustomization that applies a HelmRelease held back
// by a dependency that does not exist, the cause stays (the focused view said HEALTHY), and that
// Kustomization is not listed as unaffected.
func TestHelmReleaseWaitFocused(t *testing.T) {
	objs := objects(ks("apps", "True", "ReconciliationSucceeded", ""), ks("other", "True", "ReconciliationSucceeded", ""))
	objs.HelmReleases = []helmv2.HelmRelease{waitsOnHR("frontend", "backend")}
	c := Build(objs)
	if !slices.Equal(c.Unaffected, []string{"flux-system/other"}) {
		t.Errorf("unaffected %v, want other alone", c.Unaffected)
	}
	f := c.Focus("flux-system/apps")
	if len(f.RootCauses) != 1 || f.Healthy() {
		t.Errorf("focused on apps: root causes %+v, healthy %v; want backend not found", f.RootCauses, f.Healthy())
	}
	if g := c.Focus("flux-system/other"); len(g.RootCauses) != 0 {
		t.Errorf("focused on other: root causes %+v, want none", g.RootCauses)
	}
}
