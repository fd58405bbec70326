package saferetire_test

import (
	"strings"
	"testing"
)

// The two-stage path: protect first (no removal, safe), then remove the manifest — the claim
// is listed as retained, to delete by hand later, and the gate passes.
func TestTwoStage(t *testing.T) {
	r := incidentRepo(t)
	first := r.Git("rev-parse", "HEAD")
	protected := r.Commit("protect", map[string]string{pvcFile: claim("headlamp", "headlamp", "kustomize.toolkit.fluxcd.io/prune: disabled")})
	out, _, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", first, "--candidate", protected)
	if code != 0 || !strings.Contains(out, "Nothing is removed") {
		t.Fatalf("stage 1: exit %d\n%s", code, out)
	}
	// main has merged the protection; this branch removes the manifest and the mount.
	r.Git("update-ref", "refs/remotes/origin/main", protected)
	r.Git("checkout", "-q", "-b", "retire-headlamp")
	removeClaim(r)
	r.Write(map[string]string{deployFile: deployment("headlamp", false)})
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--context", "prod")
	if code != 0 {
		t.Fatalf("stage 3: exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"retained PersistentVolumeClaim headlamp/headlamp ("+pvcFile+"): kept by kustomize.toolkit.fluxcd.io/prune: disabled; delete by hand later",
		"1 protect (done by this change)", "3 remove the manifest (done by this change)",
		"$ kubectl --context=prod -n headlamp delete persistentvolumeclaim headlamp",
		"verdict: SAFE (exit 0)")
	contains(t, errOut, "merge-base with origin/main")
}

// Every opt-out keeps the claim; a Kustomization with prune: false prunes nothing.
func TestOptOuts(t *testing.T) {
	cases := []struct {
		name, annotation, optOut string
		prune                    bool
	}{
		{"prune disabled", "kustomize.toolkit.fluxcd.io/prune: disabled", "kustomize.toolkit.fluxcd.io/prune: disabled", true},
		{"reconcile disabled", "kustomize.toolkit.fluxcd.io/reconcile: disabled", "kustomize.toolkit.fluxcd.io/reconcile: disabled", true},
		{"ssa Ignore", "kustomize.toolkit.fluxcd.io/ssa: Ignore", "kustomize.toolkit.fluxcd.io/ssa: Ignore", true},
		{"prune false", "", "spec.prune is false on Kustomization flux-system/apps", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := incidentRepo(t)
			var ann []string
			if tc.annotation != "" {
				ann = append(ann, tc.annotation)
			}
			base := r.Commit("opt out", map[string]string{
				pvcFile:                   claim("headlamp", "headlamp", ann...),
				deployFile:                deployment("headlamp", false),
				"clusters/prod/apps.yaml": fluxKS("flux-system", "apps", "./k8s/apps", tc.prune),
			})
			removeClaim(r)
			out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			contains(t, out, "retained PersistentVolumeClaim headlamp/headlamp", "kept by "+tc.optOut, "verdict: SAFE")
		})
	}
}

// A Namespace removal counts what it cascades to; a CRD removal counts its custom resources.
func TestNamespaceAndCRD(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	widget := func(name string) string {
		return "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\n  namespace: headlamp\n"
	}
	r := incidentRepo(t)
	base := r.Commit("crd", map[string]string{
		"k8s/apps/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- namespace.yaml\n- headlamp/deployment.yaml\n- headlamp/persistent-volume-claim.yaml\n- crd.yaml\n- widgets.yaml\n",
		"k8s/apps/crd.yaml":           crd,
		"k8s/apps/widgets.yaml":       widget("a") + "---\n" + widget("b"),
		pvcFile:                       claim("headlamp", "headlamp", "kustomize.toolkit.fluxcd.io/prune: disabled"),
	})
	r.Write(map[string]string{
		"k8s/apps/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- headlamp/deployment.yaml\n- headlamp/persistent-volume-claim.yaml\n- widgets.yaml\n",
	})
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"UNSAFE Namespace headlamp (k8s/apps/namespace.yaml)",
		"deleting a namespace cascades to everything in it: 4 objects declared at base",
		"UNSAFE CustomResourceDefinition widgets.example.com (k8s/apps/crd.yaml)",
		"deleting a CRD deletes every custom resource of it: 2 declared at base",
		"$ kubectl --context=CONTEXT get widgets.example.com -A",
	)
}

// A claim that moves to another Kustomization unprotected is unsafe: the delete-then-recreate
// window loses its data.
func TestMove(t *testing.T) {
	r := incidentRepo(t)
	base := r.Commit("infra", map[string]string{"clusters/prod/infra.yaml": fluxKS("flux-system", "infra", "./k8s/infra", true)})
	removeClaim(r)
	r.Write(map[string]string{"k8s/infra/claim.yaml": claim("headlamp", "headlamp")})
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "UNSAFE PersistentVolumeClaim headlamp/headlamp ("+pvcFile+"): moves to Kustomization flux-system/infra",
		"if flux-system/apps prunes it before flux-system/infra adopts it, it is deleted and recreated")
}

// Bad input: not a repo, unknown revision, a path that does not build.
func TestBadInput(t *testing.T) {
	r := incidentRepo(t)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"not a repo", []string{"--dry-run", "--offline", "--repo", t.TempDir()}, 3, "not a git working tree"},
		{"unknown revision", []string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "nope"}, 3, `base revision "nope"`},
		{"offline without dry-run", []string{"--offline", "--repo", r.Dir}, 3, "add --dry-run"},
		{"bad output", []string{"--dry-run", "--offline", "--repo", r.Dir, "-o", "yaml"}, 3, "unknown output format"},
		{"base is the candidate", []string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD", "--candidate", "main"}, 3, "are the same commit"},
		{"bad persistent kind", []string{"--dry-run", "--offline", "--repo", r.Dir, "--persistent-kind", "a/b"}, 3, "--persistent-kind"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := invocation{}.raw(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q, stdout %q; want %d and %q", code, errOut, out, tc.code, tc.want)
			}
		})
	}
	t.Run("path that does not build", func(t *testing.T) {
		base := r.Git("rev-parse", "HEAD")
		r.Write(map[string]string{"k8s/apps/kustomization.yaml": "resources:\n- missing.yaml\n"})
		out, _, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
		if code != 2 || !strings.Contains(out, "UNKNOWN: these tiers did not build") ||
			!strings.Contains(out, "Kustomization flux-system/apps (path k8s/apps) at the candidate: kustomize build failed") ||
			!strings.Contains(out, "in the 0 Kustomizations that built") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
}
