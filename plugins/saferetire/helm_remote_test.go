package saferetire_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// onSpoke gives a HelmRelease manifest its own spec.kubeConfig: helm-controller installs the
// release on the cluster that Secret reaches (fluxcd/flux2-hub-spoke-example), while the
// HelmRelease itself stays on the hub.
func onSpoke(manifest string) string {
	return strings.Replace(manifest, "spec:\n  interval: 1h\n", "spec:\n  interval: 1h\n  kubeConfig: {secretRef: {name: spoke-kubeconfig}}\n", 1)
}

// liveSpokeHelmRelease is liveHelmRelease with the same spec.kubeConfig.
func liveSpokeHelmRelease(t *testing.T, ns, name string) {
	t.Helper()
	liveHelmRelease(t, ns, name)
	ctx := context.Background()
	ri := kc.Dynamic.Resource(hrGVR).Namespace(ns)
	hr, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(hr.Object, "spoke-kubeconfig", "spec", "kubeConfig", "secretRef", "name"); err != nil {
		t.Fatal(err)
	}
	if _, err := ri.Update(ctx, hr, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("giving HelmRelease %s/%s a kubeConfig: %v", ns, name, err)
	}
}

// Live, a HelmRelease whose own spec.kubeConfig installs its release on a spoke is judged
// without the hub's storage: the hub holds a release of the same name (another release, with
// a claim paperless-old the spoke's never had) and that claim must not be judged, nor any
// command aimed at the hub for an object of the spoke. The renders are still compared (the
// candidate drops the claim paperless-cache: UNSAFE, its commands on REMOTE_KUBECONFIG), and
// the release on the spoke is named as not read. Deleting the HelmRelease is judged from its
// base render the same way.
func TestHelmReleaseOnASpokeLive(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "helmspoke")
	liveKS(t, ns, "apps", "./k8s/"+ns, ns+"_paperless_helm.toolkit.fluxcd.io_HelmRelease", "flux-system_bjw-s_source.toolkit.fluxcd.io_HelmRepository")
	liveSpokeHelmRelease(t, ns, "paperless")
	storeRelease(t, ns, "paperless", 3, claimDoc("paperless-cache", "")+claimDoc("paperless-old", ""))
	helmClaim(t, ns, "paperless-old", map[string]string{"helm.toolkit.fluxcd.io/name": "paperless", "helm.toolkit.fluxcd.io/namespace": ns},
		map[string]string{"meta.helm.sh/release-name": "paperless", "meta.helm.sh/release-namespace": ns}, "")
	config := "    persistence:\n      config:\n        existingClaim: paperless\n"
	cache := "      cache:\n        type: persistentVolumeClaim\n        size: 10Gi\n"
	r := renderRepo(t, offlineURL, "", map[string]string{
		"k8s/" + ns + "/repos.yaml":     helmRepository("bjw-s", offlineURL, ""),
		"k8s/" + ns + "/paperless.yaml": onSpoke(appTemplateRelease(ns, "paperless", config+cache)),
	})
	base := r.Git("rev-parse", "HEAD")
	args := []string{"--dry-run", "--repo", r.Dir, "--base", base, "-n", ns, "--charts", chartsDir(t)}
	notRead := "its release is on the cluster HelmRelease " + ns + "/paperless installs its release on through its spec.kubeConfig (kubeConfig Secret " + ns + "/spoke-kubeconfig), which this run does not read"

	t.Run("upgrade", func(t *testing.T) {
		r.Write(map[string]string{"k8s/" + ns + "/paperless.yaml": onSpoke(appTemplateRelease(ns, "paperless", config))})
		out, errOut, code := run(t, args...)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
		}

		contains(t, out, "UNSAFE PersistentVolumeClaim "+ns+"/paperless-cache: Helm deletes it", notRead,
			"kubectl --kubeconfig=REMOTE_KUBECONFIG -n "+ns+" delete persistentvolumeclaim paperless-cache")
		for _, hub := range []string{"paperless-old", "revision 3", "Secret " + ns + "/sh.helm.release", "delete persistentvolumeclaim paperless-cache --context"} {
			if strings.Contains(out, hub) {
				t.Errorf("the output shows %q, from the hub's release or aimed at the hub\n%s", hub, out)
			}
		}
	})
	t.Run("removal", func(t *testing.T) {
		if err := os.Remove(filepath.Join(r.Dir, "k8s", ns, "paperless.yaml")); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, args...)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
		}

		contains(t, out, "rendered: chart app-template 4.4.0 at base", "paperless-cache", notRead,
			"on another cluster: the HelmRelease installs the release through its spec.kubeConfig (kubeConfig Secret "+ns+"/spoke-kubeconfig)")
		for _, hub := range []string{"paperless-old", "revision 3", "Secret " + ns + "/sh.helm.release"} {
			if strings.Contains(out, hub) {
				t.Errorf("the output shows %q, from the hub's release\n%s", hub, out)
			}
		}
	})
}
