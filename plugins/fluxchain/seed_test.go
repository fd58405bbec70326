package fluxchain_test

import (
	"context"
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/testsupport/golden"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

const (
	rev1       = "main@sha1:1111111111111111111111111111111111111111"
	healthMsg  = "health check failed after 20m0.036985668s: timeout waiting for: [PersistentVolumeClaim/headlamp/headlamp status: 'Terminating']"
	headlampPo = "headlamp-7d9f8c6b5-x2x4k"
)

// seedChain builds flux-system → infra → apps (failing its health check on the Terminating
// PVC headlamp/headlamp, mounted by a pod), two leaves waiting on apps, an unrelated leaf.
func seedChain(t *testing.T, ns string) {
	f := newFixture(t, ns)
	terminatingPVC(t, f)
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("flux-system", rev1))
	f.ks(readyKS("infra", rev1, "flux-system"))
	f.ks(kspec{name: "apps", deps: []string{"infra"}, wait: true, timeout: "20m", applied: rev1,
		ready:     cond("Ready", "False", "HealthCheckFailed", healthMsg),
		inventory: []string{"headlamp_headlamp__PersistentVolumeClaim", "headlamp_headlamp_apps_Deployment"}})
	f.ks(waitingKS(ns, "apps-wave-1", rev1, "apps"))
	f.ks(waitingKS(ns, "apps-wave-2", rev1, "apps"))
	f.ks(readyKS("monitoring", rev1, "flux-system"))
}

// terminatingPVC creates headlamp/headlamp mounted by a scheduled pod, then deletes it: the
// pvc-protection finalizer keeps it Terminating (no controller removes it here).
func terminatingPVC(t *testing.T, f *fixture) {
	ctx := context.Background()
	f.namespace("headlamp")
	core := f.kube.CoreV1()
	if _, err := core.PersistentVolumeClaims("headlamp").Get(ctx, "headlamp", metav1.GetOptions{}); err == nil {
		return
	}
	_, _ = core.ServiceAccounts("headlamp").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "headlamp", Namespace: "headlamp", Finalizers: []string{"kubernetes.io/pvc-protection"},
			// One claim serves every chain seeded in this package, whichever test seeds it first,
			// so its GitOps owner is fixed to the seed chain's namespace.
			Labels: map[string]string{"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": "fc-seed"}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
	}
	if _, err := core.PersistentVolumeClaims("headlamp").Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	no := false
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: headlampPo, Namespace: "headlamp"},
		Spec: corev1.PodSpec{NodeName: "node-1", AutomountServiceAccountToken: &no,
			Containers: []corev1.Container{{Name: "headlamp", Image: "ghcr.io/headlamp-k8s/headlamp:v0.30.0",
				VolumeMounts: []corev1.VolumeMount{{Name: "plugins-dir", MountPath: "/headlamp/plugins"}}}},
			Volumes: []corev1.Volume{{Name: "plugins-dir", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "headlamp"}}}}},
	}
	if _, err := core.Pods("headlamp").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := core.PersistentVolumeClaims("headlamp").Delete(ctx, "headlamp", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestSeedChain(t *testing.T) {
	needEnv(t)
	seedChain(t, "fc-seed")
	out, stderr, code := run(t, "-n", "fc-seed", "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a failing tier); stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "# context "+env.Context) {
		t.Errorf("no banner on stderr: %q", stderr)
	}
	var res fluxchain.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.RootCauses) != 1 || res.RootCauses[0].Kustomization != "fc-seed/apps" {
		t.Fatalf("root causes = %+v, want only fc-seed/apps", res.RootCauses)
	}
	rc := res.RootCauses[0]
	if diff := cmp.Diff([]string{"fc-seed/apps-wave-1", "fc-seed/apps-wave-2"}, rc.BlastRadius); diff != "" {
		t.Errorf("blast radius (-want +got):\n%s", diff)
	}
	if len(rc.Objects) != 1 || rc.Objects[0].Object == nil || rc.Objects[0].Object.String() != "persistentvolumeclaims/headlamp -n headlamp" {
		t.Fatalf("blocking objects = %+v", rc.Objects)
	}
	pvc := rc.Objects[0]
	if pvc.Terminating == nil || !pvc.Terminating.Terminating {
		t.Fatalf("the PVC carries no why-terminating explanation: %+v", pvc)
	}
	if !strings.Contains(out, headlampPo) {
		t.Errorf("the explanation does not name the pod %s", headlampPo)
	}
	if pvc.Command != "kubectl why-terminating --kubeconfig="+env.Kubeconfig+" --context="+env.Context+" persistentvolumeclaims/headlamp -n headlamp" {
		t.Errorf("command = %q", pvc.Command)
	}
	if diff := cmp.Diff([]string{"fc-seed/flux-system", "fc-seed/infra", "fc-seed/monitoring"}, res.Unaffected); diff != "" {
		t.Errorf("unaffected (-want +got):\n%s", diff)
	}
	goldens.Assert(t, "seed.json", out)
	for _, format := range []string{"text", "yaml", "dot", "mermaid"} {
		out, _, code := run(t, "-n", "fc-seed", "-o", format)
		if code != 1 {
			t.Errorf("-o %s: exit %d, want 1", format, code)
		}
		goldens.Assert(t, "seed."+map[string]string{"text": "txt"}[format]+map[bool]string{true: format}[format != "text"], out)
	}
}

// goldens are the files under testdata/, with ports, the kubeconfig's path and times
// normalised; -update rewrites them.
var goldens = golden.Register(flag.CommandLine, "testdata",
	golden.Regexp(`https://127\.0\.0\.1:\d+`, "https://127.0.0.1:PORT"),
	golden.Regexp(`--kubeconfig=\S*kubeforensics-testenv-\d+/kubeconfig`, "--kubeconfig=KUBECONFIG"),
	golden.Regexp(`"deletionTimestamp": "[^"]*"`, `"deletionTimestamp": "TIME"`),
	golden.Regexp(`deletionTimestamp: "?[0-9TZ:.-]+"?`, `deletionTimestamp: TIME`),
	golden.Regexp(`(?i)(terminating ?for"?:? "?)\d+[smhd]`, "${1}AGE"),
	golden.Regexp(`\b\d+s ago\b`, "AGE ago"),
	golden.Regexp(`\bage \d+[smhd]\b`, "age AGE"),
	// The report's envelope: when it was written (docs/report.md).
	golden.Regexp(`"timestamp": "[^"]*"`, `"timestamp": "2026-01-01T00:00:00Z"`),
	golden.Regexp(`(?m)^(\s*)timestamp: .*$`, `${1}timestamp: "2026-01-01T00:00:00Z"`),
	// Conditions are written a minute before the run (fixture_test.go cond), so a status is
	// fresh: a readyExpr's view of them shows when, in a string of the same length.
	golden.Regexp(`"lastTransitionTime":"[0-9TZ:-]{20}"`, `"lastTransitionTime":"2026-01-01T00:00:00Z"`),
)
