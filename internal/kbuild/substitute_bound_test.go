package kbuild

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// substTier is a Kustomization of path apps whose postBuild.substitute sets BIG to value.
func substTier(name, value string) Kustomization {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": name, "namespace": "flux-system"},
		"spec":     map[string]any{"path": "./apps", "postBuild": map[string]any{"substitute": map[string]any{"BIG": value}}},
	}}
	return Kustomization{Namespace: "flux-system", Name: name, Path: "apps", Object: obj}
}

// referencing is a ConfigMap in apps whose data references ${BIG} refs times, spread over
// keys of ten references each.
func referencing(refs int) map[string]string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: amplifier\n  namespace: apps\ndata:\n")
	for i := 0; i < refs; i += 10 {
		fmt.Fprintf(&b, "  k%d: %s\n", i, strings.Repeat("${BIG}", min(10, refs-i)))
	}
	return map[string]string{"apps/kustomization.yaml": "resources:\n- cm.yaml\n", "apps/cm.yaml": b.String()}
}

// TestSubstitutionBounded is issue 25 item 2: a 1 MiB postBuild.substitute value referenced
// 4,000 times in a 24 KB manifest took the gates past 2 GB in seconds. The tier now fails
// before anything is substituted, naming the variable, how often it is referenced and the
// bound, while the build process (a child, its resident memory watched) stays small.
func TestSubstitutionBounded(t *testing.T) {
	root := t.TempDir()
	if err := incident.WriteFiles(root, referencing(4000)); err != nil {
		t.Fatal(err)
	}
	out, peak := runWatched(t, "TestSubstChild", map[string]string{"KF_SUBST_ROOT": root})
	if peak > 200<<20 {
		t.Errorf("peak RSS %d MB, above 200 MB", peak>>20)
	}
	for _, want := range []string{"BUILD ERROR:", "${BIG}", "referenced 4000 times", "ConfigMap amplifier", "allowed per tier"} {
		if !strings.Contains(out, want) {
			t.Errorf("the child's report lacks %q:\n%s", want, out)
		}
	}
	t.Logf("peak RSS %d MB; %s", peak>>20, strings.TrimSpace(out))
}

// TestSubstChild is the child process of TestSubstitutionBounded.
func TestSubstChild(t *testing.T) {
	root := os.Getenv("KF_SUBST_ROOT")
	if root == "" {
		t.Skip("child process of TestSubstitutionBounded")
	}
	res := Build(context.Background(), root, substTier("amplified", strings.Repeat("x", 1<<20)), Options{})
	if res.Err != nil {
		fmt.Printf("BUILD ERROR: %v\n", res.Err)
		return
	}
	fmt.Printf("BUILT %d objects\n", len(res.Objects))
}

// TestSubstitutionBudget checks the bound over all the tiers of a run: each tier below the
// per-tier bound builds until the run's budget is spent; the next fails naming that budget.
// A value within every bound is substituted as before.
func TestSubstitutionBudget(t *testing.T) {
	root := t.TempDir()
	if err := incident.WriteFiles(root, referencing(100)); err != nil {
		t.Fatal(err)
	}
	ctx := WithSubstitutionBudget(context.Background(), 3<<20)
	value := strings.Repeat("v", 10<<10) // 100 references: 1000 KiB a tier
	for i, wantErr := range []bool{false, false, false, true} {
		res := Build(ctx, root, substTier(fmt.Sprintf("t%d", i), value), Options{})
		if gotErr := res.Err != nil; gotErr != wantErr {
			t.Fatalf("tier %d: error %v, want one: %t", i, res.Err, wantErr)
		}
		if wantErr && !strings.Contains(res.Err.Error(), "of the run's 3.0 MiB for all tiers") {
			t.Errorf("tier %d: the error does not name the run's budget: %v", i, res.Err)
		}
		if !wantErr {
			data, _, _ := unstructured.NestedStringMap(res.Objects[0].Object, "data")
			if data["k0"] != strings.Repeat(value, 10) {
				t.Errorf("tier %d: not substituted", i)
			}
		}
	}
}
