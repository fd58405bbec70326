package saferetire_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// substLiveRepo is TestDeletedSubstitutionSource's shape (stefanprodan/gitops-istio's
// istio-version ConfigMap, https://github.com/stefanprodan/gitops-istio) in namespace ns: tier
// root applies ConfigMap vars and tier app, whose postBuild.substituteFrom reads vars (ref is
// the entry's extra lines) and names its claim ${claim}; vars' metadata takes meta. Like
// gitops-istio's, app substitutes an inline variable too: with no variable at all the
// controller substitutes nothing, defaults included.
func substLiveRepo(ns, ref, meta string) map[string]string {
	return map[string]string{
		"k8s/" + ns + "/root/vars.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vars\n  namespace: " + ns + "\n" + meta + "data:\n  claim: data-claim\n",
		"k8s/" + ns + "/root/app.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app\n  namespace: " + ns + "\n" +
			"spec:\n  interval: 10m\n  path: ./k8s/" + ns + "/app\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n" +
			"  postBuild:\n    substitute:\n      cluster: live\n    substituteFrom:\n      - kind: ConfigMap\n        name: vars\n" + ref,
		"k8s/" + ns + "/app/claim.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ${claim:=fallback-claim}\n  namespace: " + ns + "\n" +
			"spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n",
		"k8s/" + ns + "/app/settings.yaml": configMap(ns, "settings"),
	}
}

// Live, a commit deletes the ConfigMap a Kustomization's postBuild.substituteFrom reads. The
// cluster holds it, unprotected, and its tier prunes it, so kustomize-controller fails the
// reader's build afterwards: it applies and prunes nothing, and every later change to it waits.
// Before, the live gate substituted from the live ConfigMap at both revisions, as if it stayed,
// and said SAFE. Now the reader is built without it, as offline: not optional, UNKNOWN naming
// the ConfigMap, the controller's error and what it does; optional, judged with the variables
// unset (the claim takes its default name, so data-claim is pruned: UNSAFE); kept on the
// cluster by the live object's opt-out, read as before.
func TestDeletedSubstitutionSourceLive(t *testing.T) {
	needEnv(t)
	for _, tc := range []struct {
		name, ref, live string
		code            int
		want            []string
	}{
		{name: "not optional", code: 2, want: []string{
			`substitute from 'ConfigMap/vars' error: configmaps "vars" not found: the candidate no longer declares it, and Kustomization {ns}/root, which applied it, prunes it`,
			"the cluster holds it now"}},
		{name: "optional", ref: "        optional: true\n", code: 1, want: []string{
			"UNSAFE PersistentVolumeClaim {ns}/data-claim", "postBuild.substituteFrom reads ConfigMap {ns}/vars, optional, which the change deletes"}},
		{name: "kept by the live object's opt-out", live: "disabled", code: 0, want: []string{"verdict: SAFE (exit 0)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := namespace(t, "substlive")
			ctx := context.Background()
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "vars", Namespace: ns}, Data: map[string]string{"claim": "data-claim"}}
			if tc.live != "" {
				cm.Annotations = map[string]string{"kustomize.toolkit.fluxcd.io/prune": tc.live}
			}
			if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			liveKS(t, ns, "root", "./k8s/"+ns+"/root", ns+"_vars__ConfigMap", ns+"_app_kustomize.toolkit.fluxcd.io_Kustomization")
			substituteFrom := map[string]any{"kind": "ConfigMap", "name": "vars"}
			if tc.ref != "" {
				substituteFrom["optional"] = true
			}
			createKS(t, ns, "app", map[string]any{"interval": "10m", "path": "./k8s/" + ns + "/app", "prune": true,
				"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"},
				"postBuild": map[string]any{"substitute": map[string]any{"cluster": "live"}, "substituteFrom": []any{substituteFrom}}},
				ns+"_data-claim__PersistentVolumeClaim", ns+"_settings__ConfigMap")
			r := gittest.New(t, substLiveRepo(ns, tc.ref, ""))
			r.Git("rm", "--quiet", "k8s/"+ns+"/root/vars.yaml")
			r.Commit("delete the vars ConfigMap", nil)
			out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "-n", ns)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				contains(t, out, strings.ReplaceAll(w, "{ns}", ns))
			}
		})
	}
}
