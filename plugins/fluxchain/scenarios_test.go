package fluxchain_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/awalterschulze/gographviz"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// decode runs flux-chain -o json in ns and returns the result and exit code.
func decode(t *testing.T, args ...string) (fluxchain.Result, int) {
	t.Helper()
	out, stderr, code := run(t, append(args, "-o", "json")...)
	var res fluxchain.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("decoding %q (stderr %q): %v", out, stderr, err)
	}
	return res, code
}

func findingKinds(res fluxchain.Result) map[flux.FindingKind][]string {
	out := map[flux.FindingKind][]string{}
	for _, f := range res.Findings {
		out[f.Kind] = append(out[f.Kind], f.Kustomization)
	}
	return out
}

func TestScenarios(t *testing.T) {
	needEnv(t)
	cases := []struct {
		name  string
		build func(f *fixture)
		check func(t *testing.T, res fluxchain.Result)
	}{
		{"cycle", func(f *fixture) {
			f.ks(readyKS("base", rev1))
			f.ks(waitingKS(f.ns, "a", rev1, "b"))
			f.ks(waitingKS(f.ns, "b", rev1, "a"))
		}, func(t *testing.T, res fluxchain.Result) {
			if got := findingKinds(res)[flux.FindingCycle]; len(got) != 1 { // the cycle once, not per member (issue 25)
				t.Errorf("cycle findings = %v", got)
			}
			if len(res.Unordered) != 2 || len(res.Tiers) != 1 {
				t.Errorf("tiers %v, unordered %v", res.Tiers, res.Unordered)
			}
			// the cycle is one root cause, not one per member each freezing the others (issue 25)
			if len(res.RootCauses) != 1 || res.RootCauses[0].Reason != flux.ReasonDependencyCycle || len(res.RootCauses[0].BlastRadius) != 2 {
				t.Errorf("root causes = %+v, want the cycle once", res.RootCauses)
			}
		}},
		{"missing dependency", func(f *fixture) {
			f.ks(kspec{name: "apps", deps: []string{"gone"}, applied: rev1,
				ready: cond("Ready", "False", "DependencyNotReady", "dependency '"+f.ns+"/gone' not found")})
			f.ks(waitingKS(f.ns, "leaf", rev1, "apps"))
		}, func(t *testing.T, res fluxchain.Result) {
			if got := findingKinds(res)[flux.FindingMissingDependency]; len(got) != 1 || got[0] != "fc-missing-dependency/apps" {
				t.Errorf("missing dependency findings = %v", got)
			}
			if len(res.RootCauses) != 1 || res.RootCauses[0].Reason != flux.ReasonMissingDependency || len(res.RootCauses[0].BlastRadius) != 1 {
				t.Errorf("root causes = %+v", res.RootCauses)
			}
		}},
		{"suspended tier", func(f *fixture) {
			f.ks(readyKS("infra", rev1))
			s := readyKS("apps", rev1, "infra")
			s.suspend = true
			f.ks(s)
		}, func(t *testing.T, res fluxchain.Result) {
			if got := findingKinds(res)[flux.FindingSuspended]; len(got) != 1 || got[0] != "fc-suspended-tier/apps" {
				t.Errorf("suspended findings = %v", got)
			}
		}},
		{"revision lag", func(f *fixture) {
			f.ks(readyKS("infra", "main@sha1:0000000000000000000000000000000000000000"))
			f.ks(kspec{name: "apps", deps: []string{"infra"}, applied: rev1,
				ready: cond("Ready", "False", "DependencyNotReady", "dependency '"+f.ns+"/infra' revision is not up to date")})
		}, func(t *testing.T, res fluxchain.Result) {
			if got := findingKinds(res)[flux.FindingRevisionLag]; len(got) != 1 || got[0] != "fc-revision-lag/infra" {
				t.Errorf("revision lag findings = %v", got)
			}
			if len(res.RootCauses) != 1 || res.RootCauses[0].Reason != flux.ReasonRevisionLag ||
				!strings.Contains(strings.Join(res.RootCauses[0].Explanation, " "), "waits for it to apply revision "+rev1) {
				t.Errorf("root causes = %+v", res.RootCauses)
			}
		}},
		{"failing helmrelease", func(f *fixture) {
			f.ks(kspec{name: "apps", wait: true, timeout: "5m", applied: rev1,
				ready: cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0.1s: timeout waiting for: [HelmRelease/"+f.ns+"/podinfo status: 'InProgress']")})
			f.create(&unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
				"metadata": map[string]any{"name": "podinfo", "namespace": f.ns, "labels": map[string]any{
					"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": f.ns}},
				"spec": map[string]any{"interval": "10m", "timeout": "15m",
					"chart": map[string]any{"spec": map[string]any{"chart": "podinfo", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "podinfo"}}}},
			}}, map[string]any{"conditions": []any{cond("Ready", "False", "InstallFailed", "Helm install failed for release podinfo: context deadline exceeded")}})
		}, func(t *testing.T, res fluxchain.Result) {
			if len(res.RootCauses) != 1 || len(res.RootCauses[0].HelmReleases) != 1 {
				t.Fatalf("root causes = %+v", res.RootCauses)
			}
			hr := res.RootCauses[0].HelmReleases[0]
			if hr.Ready == nil || hr.Ready.Reason != "InstallFailed" || !hr.OutlivesTier || hr.Timeout != "15m0s" {
				t.Errorf("helm release = %+v", hr)
			}
			if bo := res.RootCauses[0].Objects; len(bo) != 1 || !bo[0].Found {
				t.Errorf("the HelmRelease named by the health check was not read: %+v", bo)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ns := "fc-" + strings.ReplaceAll(tc.name, " ", "-")
			f := newFixture(t, ns)
			f.gitRepo("fleet", rev1)
			tc.build(f)
			res, code := decode(t, "-n", ns)
			if code != 1 {
				t.Fatalf("exit %d, want 1", code)
			}
			tc.check(t, res)
			text, _, _ := run(t, "-n", ns)
			goldens.Assert(t, ns+".txt", text)
		})
	}
}

func TestHealthyChainExitsZero(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-healthy")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("infra", rev1))
	f.ks(readyKS("apps", rev1, "infra"))
	if _, stderr, code := run(t, "-n", "fc-healthy"); code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", code, stderr)
	}
}

func TestBadInput(t *testing.T) {
	needEnv(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown kustomization", []string{"-n", "fc-seed", "nope"}, "Kustomization fc-seed/nope not found"},
		{"unknown format", []string{"-o", "table"}, `unknown output format "table"`},
		{"name with -A", []string{"-A", "apps"}, "needs its namespace"},
		// The lint's flags belong to --repo: the live chain refuses them, not ignores them.
		{"--fail-on without --repo", []string{"--fail-on", "warning"}, "--fail-on needs --repo"},
		{"--allow-network without --repo", []string{"--allow-network"}, "--allow-network needs --repo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, tc.args...)
			if code != 3 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 3 and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestFocus(t *testing.T) {
	needEnv(t)
	seedChain(t, "fc-focus")
	res, code := decode(t, "-n", "fc-focus", "apps-wave-1")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var ids []string
	for _, n := range res.Kustomizations {
		ids = append(ids, n.ID)
	}
	if got := strings.Join(ids, " "); got != "fc-focus/apps fc-focus/apps-wave-1 fc-focus/flux-system fc-focus/infra" {
		t.Fatalf("focused view holds %s", got)
	}
}

// TestDotParses reads the dot output back with a Graphviz parser and checks nodes and edges.
func TestDotParses(t *testing.T) {
	needEnv(t)
	seedChain(t, "fc-dot")
	out, _, _ := run(t, "-n", "fc-dot", "-o", "dot")
	ast, err := gographviz.ParseString(out)
	if err != nil {
		t.Fatalf("dot output does not parse: %v\n%s", err, out)
	}
	g := gographviz.NewGraph()
	if err := gographviz.Analyse(ast, g); err != nil {
		t.Fatal(err)
	}
	if !g.Directed || len(g.Nodes.Nodes) != 6 {
		t.Fatalf("directed=%v nodes=%d, want a digraph of 6", g.Directed, len(g.Nodes.Nodes))
	}
	edges := map[string]bool{}
	for _, e := range g.Edges.Edges {
		edges[e.Src+" -> "+e.Dst] = true
	}
	for _, want := range []string{`"fc-dot/infra" -> "fc-dot/apps"`, `"fc-dot/apps" -> "fc-dot/apps-wave-1"`, `"fc-dot/flux-system" -> "fc-dot/infra"`} {
		if !edges[want] {
			t.Errorf("missing edge %s in %v", want, edges)
		}
	}
	if attrs := g.Nodes.Lookup[`"fc-dot/apps"`].Attrs; attrs["color"] != "red" {
		t.Errorf("root cause not outlined: %v", attrs)
	}
}
