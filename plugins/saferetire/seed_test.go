package saferetire_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// The seed case, live: #2741 removes the claim's manifest while the headlamp pod mounts it.
// The gate names the claim, the pod, what its deletion loses, the tiers a wedge freezes, and
// a protect-and-drain-first plan.
func TestSeedLive(t *testing.T) {
	needEnv(t)
	r := incidentRepo(t)
	r.Commit("second", nil)
	removeClaim(r)
	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "-n", incident.FluxNS)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"UNSAFE PersistentVolumeClaim headlamp/headlamp ("+pvcFile+"): Flux prunes it",
		"mounted by pods/"+seed.Pod+`: mounts the claim as volume "plugins-dir"`,
		"GitOps owner: Kustomization flux-system/apps",
		"256Mi of data in volume persistentvolumes/pv-headlamp is lost: its reclaim policy is Delete",
		"would freeze: flux-system/apps-wave-1, flux-system/monitoring",
		"1 protect", "2 drain", "3 remove the manifest", "4 verify and delete by hand",
		"$ kubectl --kubeconfig="+env.Kubeconfig+" --context="+env.Context+" -n flux-system get kustomization apps -o 'jsonpath={.status.lastAppliedRevision}'",
		"pod "+seed.Pod,
		"verdict: UNSAFE (exit 1)",
	)
	contains(t, errOut, "context "+env.Context, "HEAD~1 (no upstream default branch)")

	out, _, code = run(t, "--dry-run", "--repo", r.Dir, "-n", incident.FluxNS, "-o", "json")
	var res saferetire.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 {
		t.Fatalf("exit %d, json %v\n%s", code, err, out)
	}
	if res.Verdict != "UNSAFE" || len(res.Removals) != 1 || res.Removals[0].ID != "headlamp_headlamp__PersistentVolumeClaim" || res.Removals[0].Wedge == nil {
		t.Fatalf("result = %+v", res)
	}
}

// The seed case offline: no cluster, the Kustomization comes from clusters/prod/apps.yaml; the
// Deployment that still mounts the claim is named from the candidate build.
func TestSeedOffline(t *testing.T) {
	r := incidentRepo(t)
	base := r.Git("rev-parse", "HEAD")
	removeClaim(r)
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base, "--context", "prod")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"Kustomization flux-system/apps",
		"UNSAFE PersistentVolumeClaim headlamp/headlamp ("+pvcFile+")",
		"the candidate still mounts the claim in Deployment headlamp/headlamp",
		"kubectl --context=prod -n headlamp get persistentvolumeclaim headlamp -o 'jsonpath=",
		"verdict: UNSAFE (exit 1)",
	)
	contains(t, errOut, "offline", "given with --base")
}

// GitHub Actions: an ::error annotation on the removed manifest and a markdown summary.
func TestGitHubAnnotations(t *testing.T) {
	r := incidentRepo(t)
	base := r.Git("rev-parse", "HEAD")
	removeClaim(r)
	summary := filepath.Join(t.TempDir(), "summary.md")
	iv := invocation{env: map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}}
	out, _, code := iv.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	contains(t, out, "::error file="+pvcFile+",title=safe-retire%3A unsafe removal of PersistentVolumeClaim headlamp/headlamp::Kustomization flux-system/apps prunes")
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, string(md), "## safe-retire: UNSAFE", "| ❌ | PersistentVolumeClaim headlamp/headlamp | flux-system/apps | Pruned | "+pvcFile+" |", "1. **protect**")
	// json keeps stdout parseable: annotations go to stderr.
	out, errOut, _ := iv.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base, "-o", "json")
	if !json.Valid([]byte(out)) {
		t.Fatalf("stdout is not json:\n%s", out)
	}
	contains(t, errOut, "::error file="+pvcFile)
}
